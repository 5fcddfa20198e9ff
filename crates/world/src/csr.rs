use ndarray::Array1;

/// Compressed sparse rows: list `i` is `values[offsets[i]..offsets[i + 1]]`.
///
/// The flat form of every ragged relation in a world (region -> neighbouring regions, region ->
/// corners in ring order, river polylines, ...). `offsets` has one more entry than there are
/// lists, starts at 0 and never decreases.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Csr {
    pub offsets: Array1<u32>,
    pub values: Array1<u32>,
}

impl Csr {
    /// Builds a CSR from one `Vec` per list.
    pub fn from_lists<L: AsRef<[u32]>>(lists: &[L]) -> Self {
        let mut offsets = Vec::with_capacity(lists.len() + 1);
        let mut values = Vec::new();
        offsets.push(0u32);
        for list in lists {
            values.extend_from_slice(list.as_ref());
            offsets.push(to_u32(values.len()));
        }
        Csr {
            offsets: Array1::from(offsets),
            values: Array1::from(values),
        }
    }

    /// Builds a CSR from list lengths (offsets) and the concatenated values.
    pub fn from_parts(offsets: Vec<u32>, values: Vec<u32>) -> Self {
        Csr {
            offsets: Array1::from(offsets),
            values: Array1::from(values),
        }
    }

    /// The number of lists.
    pub fn n_lists(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// List `list_idx`.
    pub fn get(&self, list_idx: usize) -> &[u32] {
        let start = self.offsets[list_idx] as usize;
        let end = self.offsets[list_idx + 1] as usize;
        &self.values.as_slice().expect("CSR values are contiguous")[start..end]
    }

    /// Iterates over the lists in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u32]> + '_ {
        (0..self.n_lists()).map(move |i| self.get(i))
    }

    /// Checks the structure: offsets start at 0, never decrease, end at `values.len()`, and
    /// every value is below `bound` (when given). Returns what is wrong.
    pub fn check(&self, bound: Option<usize>) -> Result<(), String> {
        let offsets = &self.offsets;
        if offsets.is_empty() {
            return Err("offsets are empty (need at least one entry, 0)".into());
        }
        if offsets[0] != 0 {
            return Err(format!("offsets start at {}, not 0", offsets[0]));
        }
        if let Some(i) = (1..offsets.len()).find(|&i| offsets[i] < offsets[i - 1]) {
            return Err(format!("offsets decrease at entry {i}"));
        }
        let last = offsets[offsets.len() - 1] as usize;
        if last != self.values.len() {
            return Err(format!(
                "offsets end at {last} but there are {} values",
                self.values.len()
            ));
        }
        if let Some(bound) = bound
            && let Some(bad) = self.values.iter().find(|&&v| v as usize >= bound)
        {
            return Err(format!("index {bad} out of range (must be below {bound})"));
        }
        Ok(())
    }
}

/// Converts a count or index to `u32`, the index type of every world array.
///
/// # Panics
/// When the value does not fit; worlds are limited far below that by parameter validation.
pub(crate) fn to_u32(value: usize) -> u32 {
    u32::try_from(value).expect("world indices fit in u32 (cells are validated)")
}
