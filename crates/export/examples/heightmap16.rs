//! Write a heightmap array of your own as a 16-bit PNG and a headerless `.r16` for a game
//! engine, each through a temporary name and a rename (never a half-written file).
//!
//! `cargo run -p orogen-export --example heightmap16 -- [OUT_DIR]`
//!
//! The array here is 257 x 257 heights in metres (a ridge from -200 m to 1800 m); the files go
//! to OUT_DIR, or to a temporary folder that is removed afterwards.

use std::error::Error;
use std::path::PathBuf;

use ndarray::Array2;
use orogen_export::atomic::write_atomic;
use orogen_export::heightmap::write_r16;
use orogen_export::heights::to_u16;
use orogen_export::png::write_gray16;

pub fn main() -> Result<(), Box<dyn Error>> {
    let n = 257;
    let metres = Array2::from_shape_fn((n, n), |(row, col)| {
        let (x, y) = (col as f64 / (n - 1) as f64, row as f64 / (n - 1) as f64);
        -200.0 + 2000.0 * (std::f64::consts::PI * x).sin() * (1.0 - 0.5 * y)
    });

    // 0 is the lowest height and 65535 the highest (or pass a fixed range such as (-500, 3000)
    // so that sea level has the same value in every map).
    let range = metres
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &m| {
            (lo.min(m), hi.max(m))
        });
    let pixels = metres.mapv(|m| to_u16(m, range));

    let (dir, temporary) = match std::env::args().nth(1) {
        Some(arg) => (PathBuf::from(arg), false),
        None => (
            std::env::temp_dir().join(format!("heightmap-{}", std::process::id())),
            true,
        ),
    };
    std::fs::create_dir_all(&dir)?;
    write_atomic(&dir.join("heightmap.png"), |w| {
        write_gray16(w, pixels.view())
    })?;
    write_atomic(&dir.join("heightmap.r16"), |w| write_r16(w, pixels.view()))?;

    // Read both back: the PNG decodes to the same samples as the raw little-endian file.
    let raw = std::fs::read(dir.join("heightmap.r16"))?;
    assert_eq!(raw.len(), n * n * 2);
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(
        dir.join("heightmap.png"),
    )?));
    let mut reader = decoder.read_info()?;
    let mut buf = vec![0; reader.output_buffer_size().ok_or("PNG too large")?];
    let info = reader.next_frame(&mut buf)?;
    assert_eq!((info.width, info.height), (n as u32, n as u32));
    assert_eq!(info.bit_depth, png::BitDepth::Sixteen);
    let same = buf
        .chunks(2)
        .zip(raw.chunks(2))
        .all(|(b, r)| b[0] == r[1] && b[1] == r[0]);
    assert!(
        same,
        "PNG (big-endian) and .r16 (little-endian) hold the same samples"
    );
    assert_eq!(pixels.iter().min(), Some(&0));
    assert_eq!(pixels.iter().max(), Some(&65535));

    println!(
        "{n} x {n} heightmap, {:.0} m at 0 and {:.0} m at 65535, in {}",
        range.0,
        range.1,
        dir.display()
    );
    if temporary {
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(())
}
