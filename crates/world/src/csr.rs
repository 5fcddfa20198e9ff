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

    /// Builds a CSR of `n_lists` lists in parallel: list `i` holds `len(i)` values, written by
    /// `fill(i, list)` into its slice (zeros before). The same CSR on any number of threads.
    pub fn from_fn_par(
        n_lists: usize,
        len: impl Fn(usize) -> usize + Sync,
        fill: impl Fn(usize, &mut [u32]) + Sync,
    ) -> Self {
        use rayon::prelude::*;
        const LISTS_A_TASK: usize = 4096;
        let lens: Vec<u32> = (0..n_lists)
            .into_par_iter()
            .map(|i| to_u32(len(i)))
            .collect();
        let mut offsets = Vec::with_capacity(n_lists + 1);
        offsets.push(0u32);
        let mut total = 0usize;
        for &l in &lens {
            total += l as usize;
            offsets.push(to_u32(total));
        }
        let mut values = vec![0u32; total];
        let mut tasks = Vec::with_capacity(n_lists.div_ceil(LISTS_A_TASK));
        let mut rest = values.as_mut_slice();
        for first in (0..n_lists).step_by(LISTS_A_TASK) {
            let end = (first + LISTS_A_TASK).min(n_lists);
            let size = (offsets[end] - offsets[first]) as usize;
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(size);
            tasks.push((first..end, head));
            rest = tail;
        }
        tasks.into_par_iter().for_each(|(lists, mut out)| {
            for i in lists {
                let (list, tail) = std::mem::take(&mut out).split_at_mut(lens[i] as usize);
                fill(i, list);
                out = tail;
            }
        });
        Csr::from_parts(offsets, values)
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
        let offsets = self
            .offsets
            .as_slice()
            .ok_or("offsets are not contiguous")?;
        let values = self.values.as_slice().ok_or("values are not contiguous")?;
        check_parts(offsets, values, bound)
    }

    /// A borrowed view of these lists as a relation whose values index `n_targets` things,
    /// checked once ([`CsrView::relation`]).
    pub fn view(&self, n_targets: usize) -> Result<CsrView<'_>, CsrError> {
        let offsets = self
            .offsets
            .as_slice()
            .ok_or_else(|| CsrError("offsets are not contiguous".into()))?;
        let values = self
            .values
            .as_slice()
            .ok_or_else(|| CsrError("values are not contiguous".into()))?;
        CsrView::relation(offsets, values, n_targets)
    }
}

/// The one structural check of CSR data: offsets start at 0, never decrease and end at
/// `values.len()`; every value is below `bound` (when given).
fn check_parts(offsets: &[u32], values: &[u32], bound: Option<usize>) -> Result<(), String> {
    check_offsets(offsets, values.len())?;
    if let Some(bound) = bound
        && values.iter().fold(0u32, |m, &v| m.max(v)) as usize >= bound
        && let Some(bad) = values.iter().find(|&&v| v as usize >= bound)
    {
        return Err(format!("index {bad} out of range (must be below {bound})"));
    }
    Ok(())
}

/// The offsets' part of [`check_parts`]: they start at 0, never decrease and end at `n_values`.
pub(crate) fn check_offsets(offsets: &[u32], n_values: usize) -> Result<(), String> {
    if offsets.is_empty() {
        return Err("offsets are empty (need at least one entry, 0)".into());
    }
    if offsets[0] != 0 {
        return Err(format!("offsets start at {}, not 0", offsets[0]));
    }
    // The checks fold over every entry (no early exit, so they vectorise); only a failing
    // one looks for where.
    let decreases = offsets.windows(2).fold(false, |bad, w| bad | (w[1] < w[0]));
    if decreases && let Some(i) = (1..offsets.len()).find(|&i| offsets[i] < offsets[i - 1]) {
        return Err(format!("offsets decrease at entry {i}"));
    }
    let last = offsets[offsets.len() - 1] as usize;
    if last != n_values {
        return Err(format!(
            "offsets end at {last} but there are {n_values} values"
        ));
    }
    Ok(())
}

/// Malformed CSR input to [`CsrView`]: what is wrong, in one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("graph: {0}")]
pub struct CsrError(pub String);

/// A borrowed, checked CSR relation: the values (targets) of list `i` are
/// `targets[offsets[i]..offsets[i + 1]]`, each below the relation's target count. A graph
/// (region -> neighbouring regions, corner -> corners) is a relation onto its own nodes.
///
/// The kernels of every stage take this view over plain slices, so a user can run them on
/// their own mesh; a world's [`Csr`] lends one with [`Csr::view`].
///
/// ```
/// use orogen_world::CsrView;
///
/// // A path 0 - 1 - 2.
/// let graph = CsrView::new(&[0, 1, 3, 4], &[1, 0, 2, 1])?;
/// assert_eq!(graph.n_nodes(), 3);
/// assert_eq!(graph.neighbors(1), [0, 2]);
/// assert!(CsrView::new(&[0, 1, 3, 4], &[1, 0, 3, 1]).is_err()); // node 3 does not exist
/// # Ok::<(), orogen_world::CsrError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct CsrView<'a> {
    offsets: &'a [u32],
    targets: &'a [u32],
}

impl<'a> CsrView<'a> {
    /// A graph: checks that `offsets` starts at 0, never decreases and ends at
    /// `targets.len()`, and that every target is a node (`< offsets.len() - 1`).
    pub fn new(offsets: &'a [u32], targets: &'a [u32]) -> Result<Self, CsrError> {
        let n = offsets.len().saturating_sub(1);
        Self::relation(offsets, targets, n)
    }

    /// A relation from `offsets.len() - 1` sources to `n_targets` targets (for example
    /// region -> corners), checked like [`CsrView::new`] but against `n_targets`.
    pub fn relation(
        offsets: &'a [u32],
        targets: &'a [u32],
        n_targets: usize,
    ) -> Result<Self, CsrError> {
        check_parts(offsets, targets, Some(n_targets)).map_err(CsrError)?;
        Ok(CsrView { offsets, targets })
    }

    /// A view of a world [`Csr`] as a graph on its own lists.
    pub fn from_csr(csr: &'a Csr) -> Result<Self, CsrError> {
        csr.view(csr.n_lists())
    }

    /// A view of a world [`Csr`] as a relation to `n_targets` targets.
    pub fn from_csr_relation(csr: &'a Csr, n_targets: usize) -> Result<Self, CsrError> {
        csr.view(n_targets)
    }

    /// The number of nodes (lists).
    pub fn n_nodes(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The neighbours (values) of node `i`.
    #[inline]
    pub fn neighbors(&self, i: usize) -> &'a [u32] {
        &self.targets[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Every target, concatenated.
    pub fn targets(&self) -> &'a [u32] {
        self.targets
    }

    /// The offsets (`n_nodes() + 1` entries).
    pub fn offsets(&self) -> &'a [u32] {
        self.offsets
    }
}

/// Converts a count or index to `u32`, the index type of every world array.
///
/// # Panics
/// When the value does not fit; worlds are limited far below that by parameter validation.
pub(crate) fn to_u32(value: usize) -> u32 {
    u32::try_from(value).expect("world indices fit in u32 (cells are validated)")
}

#[cfg(test)]
mod tests {
    use super::{Csr, check_parts};

    #[test]
    fn a_csr_filled_in_parallel_is_the_csr_of_its_lists() {
        // Lists of 0..=6 values, some empty, over several tasks of lists (and none at all).
        for n in [0, 1, 4095, 4096, 4097, 20_000] {
            let list = |i: usize| -> Vec<u32> {
                (0..(i * 7 + i / 3) % 7)
                    .map(|k| (i * 31 + k) as u32)
                    .collect()
            };
            let lists: Vec<Vec<u32>> = (0..n).map(list).collect();
            let built = Csr::from_fn_par(
                n,
                |i| list(i).len(),
                |i, out| {
                    out.copy_from_slice(&list(i));
                },
            );
            assert_eq!(built, Csr::from_lists(&lists), "{n} lists");
        }
    }

    #[test]
    fn the_check_names_the_first_fault_anywhere_in_the_lists() {
        assert_eq!(check_parts(&[0, 2, 3], &[1, 0, 2], Some(3)), Ok(()));
        // A decrease or a bad index far from the start (the common path folds without looking).
        let mut offsets: Vec<u32> = (0..=1000).collect();
        let values: Vec<u32> = (0..1000).map(|i| i % 7).collect();
        assert_eq!(check_parts(&offsets, &values, Some(7)), Ok(()));
        offsets[700] = 650;
        assert_eq!(
            check_parts(&offsets, &values, Some(7)),
            Err("offsets decrease at entry 700".into())
        );
        offsets[700] = 700;
        let mut values = values;
        values[900] = 9;
        values[950] = 8;
        assert_eq!(
            check_parts(&offsets, &values, Some(7)),
            Err("index 9 out of range (must be below 7)".into())
        );
        assert_eq!(check_parts(&offsets, &values, None), Ok(()));
    }
}
