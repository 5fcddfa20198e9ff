//! Blue-noise points over a rectangle of your own: a constant minimum distance, then a distance
//! that varies over the map from a raster of radii.
//!
//! `cargo run -p orogen-sampling --example blue_noise`

use std::error::Error;

use ndarray::Array2;
use orogen_sampling::{DEFAULT_K, RadiusRaster, Rect, poisson_disc, poisson_disc_raster};
use orogen_world::seed;

pub fn main() -> Result<(), Box<dyn Error>> {
    // Points at least 5 units apart over a 300 x 200 field; the seed fixes them.
    let field = Rect::new(0.0, 0.0, 300.0, 200.0)?;
    let points = poisson_disc(&mut seed::rng_from_seed(1), field, 5.0, DEFAULT_K)?;
    let closest = points
        .iter()
        .enumerate()
        .flat_map(|(i, a)| {
            points[i + 1..]
                .iter()
                .map(move |b| (a[0] - b[0]).hypot(a[1] - b[1]))
        })
        .fold(f64::INFINITY, f64::min);
    assert!(closest >= 5.0);

    // Denser on the left: radius 3 at x = 0 up to 12 at x = 300, one value per 10 x 10 pixel.
    let radii = Array2::from_shape_fn((20, 30), |(_, col)| 3.0 + 9.0 * col as f64 / 29.0);
    let raster = RadiusRaster::new(radii.view(), field)?;
    let varied = poisson_disc_raster(&mut seed::rng_from_seed(1), &raster, DEFAULT_K)?;
    let left = varied.iter().filter(|p| p[0] < 150.0).count();
    assert!(
        left > 2 * (varied.len() - left),
        "the small radii pack more points"
    );

    println!(
        "{} points at r = 5 (closest pair {closest:.2} apart); {} with r from 3 to 12, \
         {left} of them in the left half",
        points.len(),
        varied.len()
    );
    Ok(())
}
