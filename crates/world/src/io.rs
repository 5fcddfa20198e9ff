//! `.npz` serialisation of a world.
//!
//! Layout (every entry a `.npy` array, so `np.load` opens it):
//! - `orogen.meta`: UTF-8 JSON as `uint8` (format version, [`WorldMeta`], the layer directory);
//! - `orogen.config`: UTF-8 JSON as `uint8`, the full configuration of the run;
//! - `mesh.*`: the dual mesh arrays (CSR relations as `.offsets` and `.values`);
//! - `layer.NAME` (and `layer.NAME.offsets` for ragged layers).
//!
//! Reading checks every array's header against the bytes that follow before allocating, then
//! every shape and index bound, so a truncated or tampered file is an error naming the array.

use std::io::{Cursor, Read, Write};

use ndarray::{Array1, Array2, ArrayD, Ix1, Ix2};
use ndarray_npy::{NpzWriter, ReadNpyExt, ReadableElement};
use serde::{Deserialize, Serialize};

use crate::{Csr, Domain, DualMesh, Layer, Values, World, WorldError, WorldMeta};

const FORMAT_VERSION: u32 = 1;
const META: &str = "orogen.meta";
const CONFIG: &str = "orogen.config";

#[derive(Serialize, Deserialize)]
struct MetaFile {
    format_version: u32,
    meta: WorldMeta,
    has_mesh: bool,
    layers: Vec<LayerEntry>,
}

#[derive(Serialize, Deserialize)]
struct LayerEntry {
    name: String,
    domain: String,
    index_of: Option<String>,
    ragged: bool,
    dtype: String,
}

fn npz_err(e: impl std::fmt::Display) -> WorldError {
    WorldError::Npz(e.to_string())
}

impl World {
    /// Writes the world and the run's configuration (a JSON string) as one `.npz`.
    ///
    /// The bytes depend only on the world: entries are stored uncompressed, in a fixed order,
    /// with a fixed timestamp.
    pub fn write_npz<W: Write>(&self, mut writer: W, config_json: &str) -> Result<(), WorldError> {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .last_modified_time(zip::DateTime::default())
            .unix_permissions(0o644);
        let mut npz = NpzWriter::new_with_options(Cursor::new(Vec::new()), options);
        let meta = MetaFile {
            format_version: FORMAT_VERSION,
            meta: self.meta.clone(),
            has_mesh: self.has_mesh(),
            layers: self
                .layers()
                .map(|(name, l)| LayerEntry {
                    name: name.to_owned(),
                    domain: l.domain.name().to_owned(),
                    index_of: l.index_of.map(|d| d.name().to_owned()),
                    ragged: l.offsets.is_some(),
                    dtype: l.values.dtype().to_owned(),
                })
                .collect(),
        };
        let meta_json = serde_json::to_vec(&meta).map_err(npz_err)?;
        npz.add_array(META, &Array1::from(meta_json))
            .map_err(npz_err)?;
        npz.add_array(CONFIG, &Array1::from(config_json.as_bytes().to_vec()))
            .map_err(npz_err)?;
        if let Ok(mesh) = self.mesh() {
            npz.add_array("mesh.region_xy", &mesh.region_xy)
                .map_err(npz_err)?;
            npz.add_array("mesh.region_is_boundary", &mesh.region_is_boundary)
                .map_err(npz_err)?;
            npz.add_array("mesh.corner_xy", &mesh.corner_xy)
                .map_err(npz_err)?;
            npz.add_array("mesh.corner_regions", &mesh.corner_regions)
                .map_err(npz_err)?;
            for (name, csr) in mesh_csrs(mesh) {
                npz.add_array(format!("{name}.offsets"), &csr.offsets)
                    .map_err(npz_err)?;
                npz.add_array(format!("{name}.values"), &csr.values)
                    .map_err(npz_err)?;
            }
        }
        for (name, layer) in self.layers() {
            let key = format!("layer.{name}");
            match &layer.values {
                Values::U8(a) => npz.add_array(key.as_str(), a),
                Values::U32(a) => npz.add_array(key.as_str(), a),
                Values::I32(a) => npz.add_array(key.as_str(), a),
                Values::F32(a) => npz.add_array(key.as_str(), a),
                Values::F64(a) => npz.add_array(key.as_str(), a),
            }
            .map_err(npz_err)?;
            if let Some(offsets) = &layer.offsets {
                npz.add_array(format!("{key}.offsets"), offsets)
                    .map_err(npz_err)?;
            }
        }
        let bytes = npz.finish().map_err(npz_err)?.into_inner();
        writer.write_all(&bytes)?;
        Ok(())
    }

    /// Reads a world written by [`World::write_npz`], returning it and the configuration JSON.
    ///
    /// Every array is checked (header against the bytes present, shapes, index bounds) before
    /// use: a truncated or tampered file gives an error naming the array, never a panic.
    pub fn read_npz<R: Read>(mut reader: R) -> Result<(World, String), WorldError> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes)?;
        let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(npz_err)?;
        let mut read = |name: &str| read_entry(&mut zip, name);

        let meta_bytes: Array1<u8> = read(META)?.load1(META)?;
        let meta: MetaFile = serde_json::from_slice(meta_bytes.as_slice().unwrap_or_default())
            .map_err(|e| WorldError::bad_array(META, format!("not valid world metadata: {e}")))?;
        if meta.format_version != FORMAT_VERSION {
            return Err(WorldError::bad_array(
                META,
                format!(
                    "format version {} (this orogen reads {FORMAT_VERSION})",
                    meta.format_version
                ),
            ));
        }
        let config: Array1<u8> = read(CONFIG)?.load1(CONFIG)?;
        let config = String::from_utf8(config.to_vec())
            .map_err(|_| WorldError::bad_array(CONFIG, "not UTF-8"))?;

        let mesh = if meta.has_mesh {
            let csr = |read: &mut dyn FnMut(&str) -> Result<Entry, WorldError>, name: &str| {
                let off = format!("{name}.offsets");
                let val = format!("{name}.values");
                Ok::<_, WorldError>(Csr {
                    offsets: read(&off)?.load1(&off)?,
                    values: read(&val)?.load1(&val)?,
                })
            };
            let mesh = DualMesh {
                region_xy: read("mesh.region_xy")?.load2("mesh.region_xy")?,
                region_is_boundary: read("mesh.region_is_boundary")?
                    .load1("mesh.region_is_boundary")?,
                corner_xy: read("mesh.corner_xy")?.load2("mesh.corner_xy")?,
                corner_regions: read("mesh.corner_regions")?.load2("mesh.corner_regions")?,
                region_neighbors: csr(&mut read, "mesh.region_neighbors")?,
                region_corners: csr(&mut read, "mesh.region_corners")?,
                corner_neighbors: csr(&mut read, "mesh.corner_neighbors")?,
            };
            mesh.validate()
                .map_err(|(array, problem)| WorldError::bad_array(array, problem))?;
            Some(mesh)
        } else {
            None
        };

        let mut world = World::from_parts(meta.meta, mesh);
        for entry in meta.layers {
            let key = format!("layer.{}", entry.name);
            let bad = |problem: String| WorldError::bad_array(key.clone(), problem);
            let domain = Domain::from_name(&entry.domain)
                .ok_or_else(|| bad(format!("unknown domain `{}`", entry.domain)))?;
            let index_of = match &entry.index_of {
                None => None,
                Some(d) => Some(
                    Domain::from_name(d)
                        .ok_or_else(|| bad(format!("unknown index domain `{d}`")))?,
                ),
            };
            let data = read(&key)?;
            let values = match entry.dtype.as_str() {
                "u8" => Values::U8(data.load(&key)?),
                "u32" => Values::U32(data.load(&key)?),
                "i32" => Values::I32(data.load(&key)?),
                "f32" => Values::F32(data.load(&key)?),
                "f64" => Values::F64(data.load(&key)?),
                other => return Err(bad(format!("unknown dtype `{other}`"))),
            };
            let offsets = if entry.ragged {
                let off = format!("{key}.offsets");
                Some(read(&off)?.load1(&off)?)
            } else {
                None
            };
            let layer = Layer {
                domain,
                index_of,
                offsets,
                values,
            };
            world.check_layer(&entry.name, &layer).map_err(bad)?;
            world
                .insert_layer(&entry.name, layer)
                .map_err(|e| bad(e.to_string()))?;
        }
        Ok((world, config))
    }
}

fn mesh_csrs(mesh: &DualMesh) -> [(&'static str, &Csr); 3] {
    [
        ("mesh.region_neighbors", &mesh.region_neighbors),
        ("mesh.region_corners", &mesh.region_corners),
        ("mesh.corner_neighbors", &mesh.corner_neighbors),
    ]
}

/// The raw bytes of one `.npy` entry, checked lazily by the typed loaders.
struct Entry(Vec<u8>);

fn read_entry<R: Read + std::io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    name: &str,
) -> Result<Entry, WorldError> {
    let file_name = format!("{name}.npy");
    let mut file = zip.by_name(&file_name).map_err(|e| match e {
        zip::result::ZipError::FileNotFound => WorldError::bad_array(name, "missing"),
        other => WorldError::bad_array(name, other.to_string()),
    })?;
    // The declared size bounds what we read; a zip bomb cannot make us allocate more than the
    // entry really decompresses to.
    let declared = file.size();
    let mut bytes = Vec::new();
    (&mut file)
        .take(declared.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| WorldError::bad_array(name, format!("cannot be read: {e}")))?;
    Ok(Entry(bytes))
}

impl Entry {
    /// Parses the `.npy` header and checks that its shape fits the bytes present before any
    /// allocation, then reads the array.
    fn load<T: ReadableElement>(&self, name: &str) -> Result<ArrayD<T>, WorldError> {
        check_npy_header(&self.0).map_err(|problem| WorldError::bad_array(name, problem))?;
        let mut slice = &self.0[..];
        let header = ndarray_npy::npy::header::Header::from_reader(&mut slice)
            .map_err(|e| WorldError::bad_array(name, format!("bad .npy header: {e}")))?;
        check_npy_payload(&header.shape, std::mem::size_of::<T>(), slice.len())
            .map_err(|problem| WorldError::bad_array(name, problem))?;
        ArrayD::<T>::read_npy(&self.0[..]).map_err(|e| WorldError::bad_array(name, e.to_string()))
    }

    fn load1<T: ReadableElement>(&self, name: &str) -> Result<Array1<T>, WorldError> {
        self.load::<T>(name)?
            .into_dimensionality::<Ix1>()
            .map_err(|_| WorldError::bad_array(name, "expected a 1-D array"))
    }

    fn load2<T: ReadableElement>(&self, name: &str) -> Result<Array2<T>, WorldError> {
        self.load::<T>(name)?
            .into_dimensionality::<Ix2>()
            .map_err(|_| WorldError::bad_array(name, "expected a 2-D array"))
    }
}

/// Checks that an `.npy` payload of `present` bytes holds exactly `shape` elements of
/// `elem_size` bytes, before any allocation: the one payload check of every `.npy` reader
/// (saved worlds and DEMs).
pub fn check_npy_payload(shape: &[usize], elem_size: usize, present: usize) -> Result<(), String> {
    let needed = shape
        .iter()
        .try_fold(elem_size.max(1), |acc, &d| acc.checked_mul(d));
    if needed == Some(present) {
        return Ok(());
    }
    Err(format!(
        "shape {shape:?} needs {} bytes of data but {present} are present (truncated or not a \
         plain array)",
        needed.map_or_else(|| "too many".to_owned(), |n| n.to_string()),
    ))
}

/// Checks that a `.npy` file's magic is right and its header length fits the bytes present,
/// before `ndarray_npy`'s header parser allocates a buffer of that length (up to 4 GiB in format
/// versions 2 and 3). Every reader of untrusted `.npy` bytes calls this first.
pub fn check_npy_header(bytes: &[u8]) -> Result<(), String> {
    const MAGIC: &[u8] = b"\x93NUMPY";
    if bytes.len() < MAGIC.len() + 2 || &bytes[..MAGIC.len()] != MAGIC {
        return Err("not a .npy array (bad magic)".into());
    }
    let major = bytes[MAGIC.len()];
    let (len_bytes, start) = match major {
        1 => (2, MAGIC.len() + 2),
        2 | 3 => (4, MAGIC.len() + 2),
        v => return Err(format!("unsupported .npy format version {v}")),
    };
    let Some(len_field) = bytes.get(start..start + len_bytes) else {
        return Err("truncated .npy header".into());
    };
    let header_len = len_field
        .iter()
        .rev()
        .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    if start + len_bytes + header_len > bytes.len() {
        return Err(format!(
            ".npy header claims {header_len} bytes but only {} follow (truncated or tampered)",
            bytes.len() - start - len_bytes
        ));
    }
    Ok(())
}
