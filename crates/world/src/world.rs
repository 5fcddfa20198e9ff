use std::collections::BTreeMap;
use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD, Ix1, Ix2};
use serde::{Deserialize, Serialize};

use crate::{Domain, DualMesh, Layer, Values, WorldError};

/// The small, fixed part of a world.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WorldMeta {
    /// The world seed every stage derives its own from.
    pub seed: u64,
    /// Map width W in map units. Default: 1.
    pub width: f64,
    /// Map height H in map units. Default: 1.
    pub height: f64,
    /// The water level on the base-height scale (0..=1). Default: 0.35.
    pub water_level: f64,
    /// The map's width in metres. Default: 100,000.
    pub world_size_m: f64,
    /// Metres at elevation 1 (the highest land). Default: 2,000.
    pub max_height_m: f64,
    /// Metres below sea level at elevation -1 (the deepest water). Default: 1,000.
    pub max_depth_m: f64,
}

impl Default for WorldMeta {
    fn default() -> Self {
        WorldMeta {
            seed: 123,
            width: 1.0,
            height: 1.0,
            water_level: 0.35,
            world_size_m: 100_000.0,
            max_height_m: 2000.0,
            max_depth_m: 1000.0,
        }
    }
}

/// An element type a layer can hold.
pub trait Element: Sized + Clone + 'static {
    /// A view of the values when they hold this element type.
    fn view(values: &Values) -> Option<ArrayViewD<'_, Self>>;
    /// The array as layer values.
    fn wrap(array: ArrayD<Self>) -> Values;
}

macro_rules! element {
    ($t:ty, $variant:ident) => {
        impl Element for $t {
            fn view(values: &Values) -> Option<ArrayViewD<'_, Self>> {
                match values {
                    Values::$variant(a) => Some(a.view()),
                    _ => None,
                }
            }
            fn wrap(array: ArrayD<Self>) -> Values {
                Values::$variant(array)
            }
        }
    };
}
element!(u8, U8);
element!(u32, U32);
element!(i32, I32);
element!(f32, F32);
element!(f64, F64);

/// A world: meta, the dual mesh (once the mesh stage ran) and named layers.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct World {
    /// Seed, map size and height scale.
    pub meta: WorldMeta,
    /// Shared: a cloned world (the playground's cached mesh) copies no mesh array.
    mesh: Option<Arc<DualMesh>>,
    layers: BTreeMap<String, Layer>,
}

impl World {
    /// An empty world: no mesh, no layers.
    pub fn new(meta: WorldMeta) -> Self {
        World {
            meta,
            mesh: None,
            layers: BTreeMap::new(),
        }
    }

    /// The mesh, or [`WorldError::NoMesh`].
    pub fn mesh(&self) -> Result<&DualMesh, WorldError> {
        self.mesh.as_deref().ok_or(WorldError::NoMesh)
    }

    /// True once a mesh is set.
    pub fn has_mesh(&self) -> bool {
        self.mesh.is_some()
    }

    /// Sets the mesh after checking it. Layers that counted regions or corners of an old mesh
    /// are dropped, since they no longer apply.
    pub fn set_mesh(&mut self, mesh: DualMesh) -> Result<(), WorldError> {
        mesh.validate()
            .map_err(|(array, problem)| WorldError::bad_array(array, problem))?;
        self.layers.retain(|_, l| {
            l.domain != Domain::Region && l.domain != Domain::Corner && l.index_of.is_none()
        });
        self.mesh = Some(Arc::new(mesh));
        Ok(())
    }

    /// The layer of this name, if computed.
    pub fn layer(&self, name: &str) -> Option<&Layer> {
        self.layers.get(name)
    }

    /// True when the layer exists.
    pub fn has_layer(&self, name: &str) -> bool {
        self.layers.contains_key(name)
    }

    /// Every layer, by name.
    pub fn layers(&self) -> impl Iterator<Item = (&str, &Layer)> {
        self.layers.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Removes a layer, returning it.
    pub fn remove_layer(&mut self, name: &str) -> Option<Layer> {
        self.layers.remove(name)
    }

    /// Adds or replaces a dense layer after checking its length against the mesh.
    pub fn set_layer<T: Element>(
        &mut self,
        name: &str,
        domain: Domain,
        array: ArrayD<T>,
    ) -> Result<(), WorldError> {
        self.insert_layer(name, Layer::dense(domain, T::wrap(array)))
    }

    /// Adds or replaces a dense one-dimensional layer from plain values (one per item of
    /// `domain`): [`set_layer`](Self::set_layer) without building the array.
    pub fn set_values<T: Element>(
        &mut self,
        name: &str,
        domain: Domain,
        values: Vec<T>,
    ) -> Result<(), WorldError> {
        self.set_layer(name, domain, ndarray::Array1::from(values).into_dyn())
    }

    /// Adds or replaces any layer after checking its shape and indices against the mesh.
    pub fn insert_layer(&mut self, name: &str, mut layer: Layer) -> Result<(), WorldError> {
        // Offsets are kept contiguous ([`World::offsets`] lends them as a slice): a strided
        // array is copied once here.
        if let Some(offsets) = &mut layer.offsets
            && !offsets.is_standard_layout()
        {
            *offsets = offsets.as_standard_layout().into_owned();
        }
        self.check_layer(name, &layer)
            .map_err(|problem| WorldError::BadLayer {
                name: name.to_owned(),
                problem,
            })?;
        self.layers.insert(name.to_owned(), layer);
        Ok(())
    }

    /// A view of a layer's values with element type `T`.
    pub fn view<T: Element>(&self, name: &str) -> Result<ArrayViewD<'_, T>, WorldError> {
        let layer = self
            .layers
            .get(name)
            .ok_or_else(|| WorldError::MissingLayer {
                name: name.to_owned(),
            })?;
        T::view(&layer.values).ok_or_else(|| WorldError::BadLayer {
            name: name.to_owned(),
            problem: format!(
                "holds {}, not {}",
                layer.values.dtype(),
                std::any::type_name::<T>()
            ),
        })
    }

    /// A 1-D view (per-region and per-corner values).
    pub fn view1<T: Element>(&self, name: &str) -> Result<ndarray::ArrayView1<'_, T>, WorldError> {
        self.view::<T>(name)?
            .into_dimensionality::<Ix1>()
            .map_err(|_| WorldError::BadLayer {
                name: name.to_owned(),
                problem: "is not 1-D".into(),
            })
    }

    /// The water kind per region ([`crate::ids::water`]) with the hydrology's lakes: the
    /// elevation stage's `region_water` (ocean, enclosed water), and [`water::LAKE`](
    /// crate::ids::water::LAKE) wherever `region_lake` (written by the hydrology stage, a lake
    /// id or -1) names a lake. The hydrology stage leaves `region_water` as the elevation stage
    /// wrote it, so it can run again on a saved world; every reader of lakes goes through here.
    pub fn water_kinds(&self) -> Result<Vec<u8>, WorldError> {
        let mut kinds = self.view1::<u8>("region_water")?.to_vec();
        if self.has_layer("region_lake") {
            let lakes = self.view1::<i32>("region_lake")?;
            if lakes.len() != kinds.len() {
                return Err(WorldError::BadLayer {
                    name: "region_lake".into(),
                    problem: format!(
                        "holds {} regions, region_water {}",
                        lakes.len(),
                        kinds.len()
                    ),
                });
            }
            for (kind, &lake) in kinds.iter_mut().zip(lakes) {
                if lake >= 0 {
                    *kind = crate::ids::water::LAKE;
                }
            }
        }
        Ok(kinds)
    }

    /// A 2-D view (rasters, tables, per-region vectors).
    pub fn view2<T: Element>(&self, name: &str) -> Result<ndarray::ArrayView2<'_, T>, WorldError> {
        self.view::<T>(name)?
            .into_dimensionality::<Ix2>()
            .map_err(|_| WorldError::BadLayer {
                name: name.to_owned(),
                problem: "is not 2-D".into(),
            })
    }

    /// The offsets of a ragged layer.
    pub fn offsets(&self, name: &str) -> Result<&[u32], WorldError> {
        let layer = self
            .layers
            .get(name)
            .ok_or_else(|| WorldError::MissingLayer {
                name: name.to_owned(),
            })?;
        layer
            .offsets
            .as_ref()
            .and_then(|o| o.as_slice())
            .ok_or_else(|| WorldError::BadLayer {
                name: name.to_owned(),
                problem: "is not ragged".into(),
            })
    }

    /// Checks a layer against this world's mesh. Returns what is wrong.
    pub(crate) fn check_layer(&self, _name: &str, layer: &Layer) -> Result<(), String> {
        let shape = layer.values.shape();
        let count = |domain: Domain| -> Result<Option<usize>, String> {
            Ok(match domain {
                Domain::Region => Some(
                    self.mesh
                        .as_ref()
                        .ok_or("counts regions but the world has no mesh")?
                        .n_regions(),
                ),
                Domain::Corner => Some(
                    self.mesh
                        .as_ref()
                        .ok_or("counts corners but the world has no mesh")?
                        .n_corners(),
                ),
                Domain::Raster | Domain::Free => None,
            })
        };
        if layer.domain == Domain::Raster && (shape.len() < 2 || layer.offsets.is_some()) {
            return Err(format!(
                "a raster must be dense with at least 2 axes, got shape {shape:?}"
            ));
        }
        if shape.is_empty() {
            return Err("has no axes (a scalar); store a 1-element array".into());
        }
        match &layer.offsets {
            Some(offsets) => {
                if let Some(n) = count(layer.domain)?
                    && offsets.len() != n + 1
                {
                    return Err(format!(
                        "has {} lists, expected {n}",
                        offsets.len().saturating_sub(1)
                    ));
                }
                // Checked where they lie, without a copy of them and a zeroed array of the
                // values' length.
                let offsets = offsets.as_slice().ok_or("offsets are not contiguous")?;
                crate::csr::check_offsets(offsets, shape[0])?;
            }
            None => {
                if let Some(n) = count(layer.domain)?
                    && shape[0] != n
                {
                    return Err(format!(
                        "has {} rows, expected {n} ({}s)",
                        shape[0],
                        layer.domain.name()
                    ));
                }
            }
        }
        if let Some(index_of) = layer.index_of {
            let bound = count(index_of)?.ok_or_else(|| {
                format!("index_of must be region or corner, got {}", index_of.name())
            })?;
            let bad = match &layer.values {
                Values::U32(a) => a
                    .iter()
                    .find(|&&v| v as usize >= bound)
                    .map(|v| v.to_string()),
                Values::I32(a) => a
                    .iter()
                    .find(|&&v| v < -1 || v as i64 >= bound as i64)
                    .map(|v| v.to_string()),
                other => {
                    return Err(format!(
                        "index layer holds {}, expected u32 or i32",
                        other.dtype()
                    ));
                }
            };
            if let Some(bad) = bad {
                return Err(format!("index {bad} out of range (must be below {bound})"));
            }
        }
        Ok(())
    }

    #[cfg(feature = "npz")]
    pub(crate) fn from_parts(meta: WorldMeta, mesh: Option<DualMesh>) -> Self {
        World {
            meta,
            mesh: mesh.map(Arc::new),
            layers: BTreeMap::new(),
        }
    }
}
