//! Lakes from a Priority-Flood routing, as the world conventions define them.

use orogen_world::ids::water;

use super::route::check_len;
use super::{CsrGraph, Error};

/// The lakes of a map.
#[derive(Clone, Debug, PartialEq)]
pub struct Lakes {
    /// Lake id per region, or -1.
    pub region_lake: Vec<i32>,
    /// Lake id per corner on a lake's surface (its filled level is the surface and it drains
    /// through the lake's outlet), the outlet included; or -1.
    pub corner_lake: Vec<i32>,
    /// Surface level per lake: the filled level of its outlet.
    pub surface: Vec<f32>,
    /// The outlet (spill) corner per lake.
    pub outlet: Vec<u32>,
    /// The number of regions per lake.
    pub size: Vec<u32>,
    /// Water kind per region: the input's, with every lake region set to lake
    /// ([`water::LAKE`]).
    pub region_water: Vec<u8>,
}

/// Finds the lakes.
///
/// - A region's level is the lowest filled level of its corners (ties by corner index); its
///   spill corner is that corner's spill node ([`spill_nodes`](super::spill_nodes)).
/// - A region is flooded when it is land, not next to an ocean region, and its elevation is
///   below its level.
/// - Flooded and enclosed-water ([`water::LAKE`]) regions join neighbouring such regions that
///   share their spill corner (so every lake has one level and one outlet); a connected set is
///   a lake when it holds enclosed water (any size) or has at least `min_regions` regions.
///   Smaller flooded patches stay land; the flow passes through them.
///
/// Lakes are numbered by their lowest region index.
#[allow(clippy::too_many_arguments)]
pub fn find_lakes(
    region_neighbors: CsrGraph<'_>,
    region_corners: CsrGraph<'_>,
    region_elevation: &[f32],
    region_water: &[u8],
    corner_filled: &[f32],
    corner_spill: &[u32],
    min_regions: usize,
) -> Result<Lakes, Error> {
    let n_regions = region_neighbors.n_nodes();
    let n_corners = corner_filled.len();
    check_len("region_corners", region_corners.n_nodes(), n_regions)?;
    check_len("region_elevation", region_elevation.len(), n_regions)?;
    check_len("region_water", region_water.len(), n_regions)?;
    check_len("corner_spill", corner_spill.len(), n_corners)?;
    if let Some(&bad) = region_corners
        .targets()
        .iter()
        .find(|&&c| c as usize >= n_corners)
    {
        return Err(Error::Input(format!(
            "region_corners holds corner {bad}, but there are {n_corners} corners"
        )));
    }
    if let Some(&bad) = corner_spill.iter().find(|&&c| c as usize >= n_corners) {
        return Err(Error::Input(format!(
            "corner_spill holds corner {bad}, but there are {n_corners} corners"
        )));
    }
    const NONE: u32 = u32::MAX;
    let mut key = vec![NONE; n_regions];
    let mut candidate = vec![false; n_regions];
    for r in 0..n_regions {
        let mut best: Option<(f32, u32)> = None;
        for &c in region_corners.neighbors(r) {
            let f = corner_filled[c as usize];
            if best.is_none_or(|(bf, bc)| f < bf || (f == bf && c < bc)) {
                best = Some((f, c));
            }
        }
        if let Some((level, c)) = best {
            key[r] = corner_spill[c as usize];
            let enclosed = region_water[r] == water::LAKE;
            let flooded = region_water[r] == water::LAND
                && region_elevation[r] < level
                && !region_neighbors
                    .neighbors(r)
                    .iter()
                    .any(|&nb| region_water[nb as usize] == water::OCEAN);
            candidate[r] = enclosed || flooded;
        } else {
            candidate[r] = region_water[r] == water::LAKE;
        }
    }
    let mut region_lake = vec![-1i32; n_regions];
    let mut seen = vec![false; n_regions];
    let mut out_water = region_water.to_vec();
    let mut corner_lake = vec![-1i32; n_corners];
    let (mut surface, mut outlet, mut size) = (Vec::new(), Vec::new(), Vec::new());
    let mut component = Vec::new();
    for start in 0..n_regions {
        if !candidate[start] || seen[start] {
            continue;
        }
        component.clear();
        component.push(start as u32);
        seen[start] = true;
        let mut head = 0;
        let mut enclosed = false;
        while head < component.len() {
            let r = component[head] as usize;
            head += 1;
            enclosed |= region_water[r] == water::LAKE;
            for &nb in region_neighbors.neighbors(r) {
                let nb = nb as usize;
                if candidate[nb] && !seen[nb] && key[nb] == key[r] {
                    seen[nb] = true;
                    component.push(nb as u32);
                }
            }
        }
        if !(enclosed || component.len() >= min_regions) || key[start] == NONE {
            continue;
        }
        let id = surface.len() as i32;
        let spill = key[start];
        let level = corner_filled[spill as usize];
        for &r in &component {
            region_lake[r as usize] = id;
            out_water[r as usize] = water::LAKE;
            for &c in region_corners.neighbors(r as usize) {
                let c = c as usize;
                if corner_lake[c] < 0 && corner_filled[c] == level && corner_spill[c] == spill {
                    corner_lake[c] = id;
                }
            }
        }
        if corner_lake[spill as usize] < 0 {
            corner_lake[spill as usize] = id;
        }
        surface.push(level);
        outlet.push(spill);
        size.push(component.len() as u32);
    }
    Ok(Lakes {
        region_lake,
        corner_lake,
        surface,
        outlet,
        size,
        region_water: out_water,
    })
}
