//! The DEM reader (`.npy`, PNG and GeoTIFF) never panics, whatever the bytes; a grid it accepts goes
//! through the raster kernels (fill, epsilon fill, D8, accumulation) without a panic either.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orogen::dem::{Grid, parse_grid};
use orogen_hydrology::raster;

fuzz_target!(|data: &[u8]| {
    let Ok(grid) = parse_grid(std::path::Path::new("fuzz.npy"), data) else {
        return;
    };
    match grid {
        Grid::Elevation(dem) if dem.len() <= 1 << 16 => {
            if let Ok(filled) = raster::fill(dem.view()) {
                assert_eq!(filled.dim(), dem.dim());
            }
            if let Ok(eps) = raster::fill_epsilon(dem.view()) {
                let receivers = raster::d8_receivers(eps.view());
                let _ = raster::flow_accumulation(receivers.view());
            }
        }
        Grid::Receivers(receivers) if receivers.len() <= 1 << 16 => {
            let _ = raster::flow_accumulation(receivers.view());
        }
        _ => {}
    }
});
