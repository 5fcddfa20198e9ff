use ndarray::{ArrayD, ArrayViewD};

use crate::Csr;

/// What a layer's first axis counts, so that loading can check it against the mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Domain {
    /// One row per region (axis 0 has `n_regions` entries).
    Region,
    /// One row per corner (axis 0 has `n_corners` entries).
    Corner,
    /// A 2-D raster, `[row = y, col = x]`, row 0 at the north edge; any size.
    Raster,
    /// Anything else: tables, instance lists, ragged lists.
    Free,
}

impl Domain {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Domain::Region => "region",
            Domain::Corner => "corner",
            Domain::Raster => "raster",
            Domain::Free => "free",
        }
    }

    #[cfg(feature = "npz")]
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "region" => Domain::Region,
            "corner" => Domain::Corner,
            "raster" => Domain::Raster,
            "free" => Domain::Free,
            _ => return None,
        })
    }
}

/// The element array of a layer, typed.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Bytes: water kinds, biome ids, flags.
    U8(ArrayD<u8>),
    /// Unsigned integers: region and corner indices, counts.
    U32(ArrayD<u32>),
    /// Signed integers: indices where -1 means none (lake ids, parents).
    I32(ArrayD<i32>),
    /// Single-precision values: elevations, moisture, rasters.
    F32(ArrayD<f32>),
    /// Double-precision values: positions, areas.
    F64(ArrayD<f64>),
}

impl Values {
    /// The array's shape.
    pub fn shape(&self) -> &[usize] {
        match self {
            Values::U8(a) => a.shape(),
            Values::U32(a) => a.shape(),
            Values::I32(a) => a.shape(),
            Values::F32(a) => a.shape(),
            Values::F64(a) => a.shape(),
        }
    }

    /// The NumPy-style element type name.
    pub fn dtype(&self) -> &'static str {
        match self {
            Values::U8(_) => "u8",
            Values::U32(_) => "u32",
            Values::I32(_) => "i32",
            Values::F32(_) => "f32",
            Values::F64(_) => "f64",
        }
    }
}

macro_rules! values_from {
    ($t:ty, $variant:ident, $view:ident) => {
        impl From<ArrayD<$t>> for Values {
            fn from(a: ArrayD<$t>) -> Self {
                Values::$variant(a)
            }
        }
        impl Values {
            /// A view of the array when it has this element type.
            pub fn $view(&self) -> Option<ArrayViewD<'_, $t>> {
                match self {
                    Values::$variant(a) => Some(a.view()),
                    _ => None,
                }
            }
        }
    };
}
values_from!(u8, U8, as_u8);
values_from!(u32, U32, as_u32);
values_from!(i32, I32, as_i32);
values_from!(f32, F32, as_f32);
values_from!(f64, F64, as_f64);

/// A named array of a world.
///
/// A dense layer is `values` alone; a ragged layer (river polylines, lake outlines) also has
/// `offsets`: list `i` is rows `offsets[i]..offsets[i + 1]` of `values`. When the layer's values
/// are indices into the mesh (`index_of`), loading checks every one against the mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    /// What axis 0 counts: for a ragged layer, the number of lists.
    pub domain: Domain,
    /// When `Some`, every value is a region or corner index and must be in range.
    pub index_of: Option<Domain>,
    /// List offsets of a ragged layer.
    pub offsets: Option<ndarray::Array1<u32>>,
    /// The elements (for a ragged layer, the rows of every list one after another).
    pub values: Values,
}

impl Layer {
    /// A dense layer.
    pub fn dense(domain: Domain, values: impl Into<Values>) -> Self {
        Layer {
            domain,
            index_of: None,
            offsets: None,
            values: values.into(),
        }
    }

    /// A ragged layer of indices (for example river polylines of corner ids).
    pub fn ragged_indices(domain: Domain, index_of: Domain, csr: Csr) -> Self {
        Layer {
            domain,
            index_of: Some(index_of),
            offsets: Some(csr.offsets),
            values: Values::U32(csr.values.into_dyn()),
        }
    }

    /// A ragged layer of arbitrary rows.
    pub fn ragged(
        domain: Domain,
        offsets: ndarray::Array1<u32>,
        values: impl Into<Values>,
    ) -> Self {
        Layer {
            domain,
            index_of: None,
            offsets: Some(offsets),
            values: values.into(),
        }
    }

    /// The number of items along axis 0 (lists for a ragged layer).
    pub fn len(&self) -> usize {
        match &self.offsets {
            Some(o) => o.len().saturating_sub(1),
            None => self.values.shape().first().copied().unwrap_or(0),
        }
    }

    /// True when the layer has no items.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
