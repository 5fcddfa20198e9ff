//! Small anti-aliased drawing primitives shared by the painters.

/// Calls `f(pixel_index, coverage)` for every pixel (row-major index in an `nx x ny` image,
/// pixel `(i, j)` centred at `(i, j)`) within `half + 0.5` pixels of the segment `pa`-`pb`, with
/// coverage `clamp(half + 0.5 - distance, 0, 1)` > 0. A zero-length segment is a disc.
pub(crate) fn segment_coverage(
    nx: usize,
    ny: usize,
    pa: (f64, f64),
    pb: (f64, f64),
    half: f64,
    mut f: impl FnMut(usize, f32),
) {
    if nx == 0 || ny == 0 {
        return;
    }
    let r = half + 0.5;
    let xmin = (pa.0.min(pb.0) - r).floor().max(0.0);
    let xmax = (pa.0.max(pb.0) + r).ceil().min((nx - 1) as f64);
    let ymin = (pa.1.min(pb.1) - r).floor().max(0.0);
    let ymax = (pa.1.max(pb.1) + r).ceil().min((ny - 1) as f64);
    if !(xmin <= xmax && ymin <= ymax) {
        return;
    }
    let (dx, dy) = (pb.0 - pa.0, pb.1 - pa.1);
    let len2 = dx * dx + dy * dy;
    for j in ymin as usize..=ymax as usize {
        for i in xmin as usize..=xmax as usize {
            let (x, y) = (i as f64, j as f64);
            let t = if len2 > 0.0 {
                (((x - pa.0) * dx + (y - pa.1) * dy) / len2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let (qx, qy) = (pa.0 + t * dx - x, pa.1 + t * dy - y);
            let d = (qx * qx + qy * qy).sqrt();
            let cover = (r - d).clamp(0.0, 1.0) as f32;
            if cover > 0.0 {
                f(j * nx + i, cover);
            }
        }
    }
}
