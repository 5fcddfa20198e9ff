//! Fill and route a DEM of your own, loaded from a `.npy` file (2-D float32, `[row, col]`,
//! NaN = NoData): depression filling, D8 receivers and flow accumulation, no `World` needed.
//!
//! `cargo run -p orogen-hydrology --example fill_and_route -- [DEM.npy]`
//!
//! Without an argument it first writes a small DEM (a valley draining east with a closed pit
//! dug into it) to a temporary `.npy`, and loads that as it would load yours.

use std::error::Error;
use std::path::PathBuf;

use ndarray::Array2;
use ndarray_npy::{read_npy, write_npy};
use orogen_hydrology::raster;

pub fn main() -> Result<(), Box<dyn Error>> {
    let (path, written) = match std::env::args().nth(1) {
        Some(arg) => (PathBuf::from(arg), false),
        None => {
            let dem = Array2::from_shape_fn((64, 96), |(row, col)| {
                let (y, x) = (row as f32, col as f32);
                let valley = 2.0 * (y - 32.0).abs() + 0.5 * (96.0 - x);
                let pit = 30.0 * (-((x - 40.0).powi(2) + (y - 32.0).powi(2)) / 20.0).exp();
                valley - pit
            });
            let path = std::env::temp_dir().join(format!("dem-{}.npy", std::process::id()));
            write_npy(&path, &dem)?;
            (path, true)
        }
    };
    let dem: Array2<f32> = read_npy(&path)?;
    if written {
        std::fs::remove_file(&path)?;
    }

    // The unique depression fill: the lowest surface from which every cell drains.
    let filled = raster::fill(dem.view())?;
    let raised = filled.iter().zip(&dem).filter(|(f, d)| f > d).count();
    let deepest = filled
        .iter()
        .zip(&dem)
        .map(|(f, d)| f - d)
        .filter(|v| !v.is_nan())
        .fold(0.0f32, f32::max);

    // Route on the epsilon fill, where every interior cell has a strictly lower neighbour.
    let receivers = raster::d8_receivers(raster::fill_epsilon(dem.view())?.view());
    let accumulation = raster::flow_accumulation(receivers.view())?;

    // All water leaves the map: the cells without a receiver collect every valid cell once.
    let valid = dem.iter().filter(|v| !v.is_nan()).count();
    let outflow: f64 = accumulation
        .iter()
        .zip(receivers.iter().zip(&dem))
        .filter(|(_, (code, z))| **code == 0 && !z.is_nan())
        .map(|(a, _)| a)
        .sum();
    assert_eq!(outflow as usize, valid, "every cell drains to an outlet");
    let largest = accumulation.iter().copied().fold(0.0, f64::max);
    println!(
        "{}: {} x {} cells, {raised} raised by the fill (up to {deepest:.2}), \
         the largest catchment drains {largest} cells",
        path.display(),
        dem.nrows(),
        dem.ncols(),
    );
    Ok(())
}
