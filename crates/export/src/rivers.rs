//! The river mask: river polylines drawn antialiased into an 8-bit image.
//!
//! Each river is a polyline of corner positions with a width (map units) and an opacity per
//! vertex (layers `rivers`, `river_width`, `river_opacity`, and `river_on_lake` for the segments
//! on a lake's surface, which are skipped). Optional Chaikin smoothing rounds the corners; each
//! segment is then drawn as a capsule whose radius and opacity vary linearly along it, with
//! coverage from the exact distance (a one-pixel ramp), and overlapping strokes combine by
//! maximum, so the image does not depend on drawing order.

use ndarray::Array2;
use orogen_world::World;

use crate::ExportError;
use crate::grid::{PixelGrid, Sampling};

/// One vertex of a polyline to draw: position (map units), width (map units), opacity (0..1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrokeVertex {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub opacity: f64,
}

/// `iterations` rounds of Chaikin corner cutting (1/4, 3/4), keeping both end points.
pub fn chaikin(points: &[StrokeVertex], iterations: usize) -> Vec<StrokeVertex> {
    let mut cur = points.to_vec();
    for _ in 0..iterations {
        if cur.len() < 3 {
            break;
        }
        let mut next = Vec::with_capacity(2 * cur.len());
        next.push(cur[0]);
        for w in cur.windows(2) {
            let lerp = |t: f64| StrokeVertex {
                x: w[0].x + t * (w[1].x - w[0].x),
                y: w[0].y + t * (w[1].y - w[0].y),
                width: w[0].width + t * (w[1].width - w[0].width),
                opacity: w[0].opacity + t * (w[1].opacity - w[0].opacity),
            };
            next.push(lerp(0.25));
            next.push(lerp(0.75));
        }
        next.push(cur[cur.len() - 1]);
        cur = next;
    }
    cur
}

/// Draws polylines into an 8-bit mask of the grid's size (`[row, col]`, row 0 north).
pub fn draw_strokes(strokes: &[Vec<StrokeVertex>], grid: &PixelGrid) -> Array2<u8> {
    let (nx, ny) = (grid.nx, grid.ny);
    let mut value = Array2::<f32>::zeros((ny, nx));
    // Map units -> pixel coordinates whose integers are the sample points.
    let (sx, sy, off) = match grid.sampling {
        Sampling::PixelCentres => (nx as f64 / grid.width, ny as f64 / grid.height, -0.5),
        Sampling::Vertices => (
            (nx - 1).max(1) as f64 / grid.width,
            (ny - 1).max(1) as f64 / grid.height,
            0.0,
        ),
    };
    for stroke in strokes {
        for w in stroke.windows(2) {
            let (ax, ay) = (w[0].x * sx + off, w[0].y * sy + off);
            let (bx, by) = (w[1].x * sx + off, w[1].y * sy + off);
            let (ra, rb) = (0.5 * w[0].width * sx, 0.5 * w[1].width * sx);
            let reach = ra.max(rb) + 1.0;
            let col0 = (ax.min(bx) - reach).floor().max(0.0) as usize;
            let col1 = ((ax.max(bx) + reach).ceil().max(0.0) as usize).min(nx - 1);
            let row0 = (ay.min(by) - reach).floor().max(0.0) as usize;
            let row1 = ((ay.max(by) + reach).ceil().max(0.0) as usize).min(ny - 1);
            if col0 > col1 || row0 > row1 {
                continue;
            }
            let (dx, dy) = (bx - ax, by - ay);
            let len2 = dx * dx + dy * dy;
            for row in row0..=row1 {
                for col in col0..=col1 {
                    let (px, py) = (col as f64, row as f64);
                    let t = if len2 > 0.0 {
                        (((px - ax) * dx + (py - ay) * dy) / len2).clamp(0.0, 1.0)
                    } else {
                        0.0
                    };
                    let d = (px - (ax + t * dx)).hypot(py - (ay + t * dy));
                    let r = ra + t * (rb - ra);
                    let coverage = (r + 0.5 - d).clamp(0.0, 1.0).min(2.0 * r.max(0.0));
                    if coverage <= 0.0 {
                        continue;
                    }
                    let opacity = w[0].opacity + t * (w[1].opacity - w[0].opacity);
                    let v = (coverage.min(1.0) * opacity.clamp(0.0, 1.0)) as f32;
                    let cell = &mut value[[row, col]];
                    if v > *cell {
                        *cell = v;
                    }
                }
            }
        }
    }
    value.mapv(|v| (v * 255.0).round().clamp(0.0, 255.0) as u8)
}

/// The river mask of a world: the `rivers` layers drawn at the grid's size, lake crossings
/// skipped, each piece smoothed by `smoothing` Chaikin rounds.
pub fn river_mask(
    world: &World,
    grid: &PixelGrid,
    smoothing: usize,
) -> Result<Array2<u8>, ExportError> {
    let mesh = world.mesh()?;
    let offsets = world.offsets("rivers")?;
    let corners = world.view::<u32>("rivers")?;
    let width = world.view::<f32>("river_width")?;
    let opacity = world.view::<f32>("river_opacity")?;
    let on_lake = world.view::<u8>("river_on_lake")?;
    let n = corners.len();
    if width.len() != n || opacity.len() != n || on_lake.len() != n {
        return Err(orogen_world::WorldError::BadLayer {
            name: "river_width".into(),
            problem: "river layers have different lengths".into(),
        }
        .into());
    }
    let mut strokes = Vec::new();
    for w in offsets.windows(2) {
        let mut piece: Vec<StrokeVertex> = Vec::new();
        for k in w[0] as usize..w[1] as usize {
            let c = corners[k] as usize;
            piece.push(StrokeVertex {
                x: mesh.corner_xy[[c, 0]],
                y: mesh.corner_xy[[c, 1]],
                width: f64::from(width[k]),
                opacity: f64::from(opacity[k]),
            });
            if on_lake[k] != 0 {
                // The segment to the next vertex lies on a lake: end this piece here.
                if piece.len() >= 2 {
                    strokes.push(chaikin(&piece, smoothing));
                }
                piece.clear();
            }
        }
        if piece.len() >= 2 {
            strokes.push(chaikin(&piece, smoothing));
        }
    }
    Ok(draw_strokes(&strokes, grid))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64, width: f64) -> StrokeVertex {
        StrokeVertex {
            x,
            y,
            width,
            opacity: 1.0,
        }
    }

    #[test]
    fn a_horizontal_stroke_covers_its_band_with_soft_edges() {
        let grid = PixelGrid::centres(20, 1.0, 1.0).unwrap();
        // Along y = 0.5, 0.22 wide (radius 2.2 px): rows 8..=11 have centres within 1.5 px.
        let mask = draw_strokes(&[vec![v(0.1, 0.5, 0.22), v(0.7, 0.5, 0.22)]], &grid);
        assert_eq!(mask[[9, 10]], 255);
        assert_eq!(mask[[10, 10]], 255);
        assert_eq!(mask[[0, 10]], 0);
        assert_eq!(mask[[10, 19]], 0);
        assert_eq!(mask[[8, 10]], 255);
        assert_eq!(mask[[6, 10]], 0);
        // Partial coverage at the edge: row 7's centre is 2.5 px from the axis.
        let edge = mask[[7, 10]];
        assert!(edge > 0 && edge < 255, "{edge}");
        // Symmetric.
        assert_eq!(mask[[7, 10]], mask[[12, 10]]);
    }

    #[test]
    fn chaikin_keeps_ends_and_doubles_segments() {
        let pts = [v(0.0, 0.0, 1.0), v(1.0, 0.0, 1.0), v(1.0, 1.0, 3.0)];
        let out = chaikin(&pts, 1);
        assert_eq!(out.len(), 6);
        assert_eq!(out[0], pts[0]);
        assert_eq!(out[5], pts[2]);
        assert_eq!(out[1].x, 0.25);
        assert_eq!(out[4].width, 2.5);
    }
}
