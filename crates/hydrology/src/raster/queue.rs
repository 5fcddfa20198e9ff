//! A monotone radix queue keyed on f32 elevations.
//!
//! Priority-Flood pops elevations that never decrease, so a radix heap (Ahuja, Mehlhorn, Orlin
//! and Tarjan 1990) is exact and cheaper than a binary heap: an element sits in the bucket of the
//! highest bit in which its key differs from the last key popped, and moves only to lower
//! buckets, at most 32 times (in practice once or twice).
//!
//! Every Priority-Flood uses it: the raster fill ([`crate::raster::fill`], f32 keys) and the
//! graph core (`crate::flood`) under the graph routing ([`crate::graph::priority_flood`], f32) and
//! erosion's routing (f64 keys), ties by node index there ([`RadixQueue::index_ordered`]).
//!
//! Raw f32 bits do not sort like the floats once negative values appear (the sign bit makes
//! every negative value look larger than every positive one, and negative values sort backwards),
//! so keys go through [`key`], an order-preserving map from f32 to u32.

/// Maps an f32 to a u32 whose unsigned order is the float order (for non-NaN values;
/// -0.0 sorts just below +0.0). Positive floats get the sign bit set; negative floats have all
/// their bits flipped, which reverses their order and puts them below every positive float.
#[inline]
pub(crate) fn key(z: f32) -> u32 {
    let bits = z.to_bits();
    if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

/// `f64` keys: the same order-preserving map on 64 bits.
#[inline]
pub(crate) fn key64(z: f64) -> u64 {
    let bits = z.to_bits();
    if bits & (1 << 63) != 0 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// An unsigned key of a [`RadixQueue`]: `u32` (f32 levels) or `u64` (f64 levels), packed with
/// its cell into one integer whose order is (key, cell).
pub(crate) trait RadixKey: Copy + Ord + Default {
    /// The key and the cell in one integer, key in the high half.
    type Entry: Copy + Ord;
    /// The key's width in bits; the queue has one bucket more.
    const BITS: u32;
    /// The highest bit in which `self` and `other` differ, counted from 1 (0 when equal).
    fn bucket(self, other: Self) -> usize;
    /// Packs `(self, cell)`.
    fn pack(self, cell: u32) -> Self::Entry;
    /// Unpacks an entry.
    fn unpack(entry: Self::Entry) -> (Self, u32);
}

impl RadixKey for u32 {
    type Entry = u64;
    const BITS: u32 = 32;
    #[inline]
    fn bucket(self, other: Self) -> usize {
        (32 - (self ^ other).leading_zeros()) as usize
    }
    #[inline]
    fn pack(self, cell: u32) -> u64 {
        (u64::from(self) << 32) | u64::from(cell)
    }
    #[inline]
    fn unpack(entry: u64) -> (u32, u32) {
        ((entry >> 32) as u32, entry as u32)
    }
}

impl RadixKey for u64 {
    type Entry = u128;
    const BITS: u32 = 64;
    #[inline]
    fn bucket(self, other: Self) -> usize {
        (64 - (self ^ other).leading_zeros()) as usize
    }
    #[inline]
    fn pack(self, cell: u32) -> u128 {
        (u128::from(self) << 32) | u128::from(cell)
    }
    #[inline]
    fn unpack(entry: u128) -> (u64, u32) {
        ((entry >> 32) as u64, entry as u32)
    }
}

/// Cells waiting for Priority-Flood, popped in non-decreasing key order.
///
/// Entries are `(key, cell)` packed into one integer ([`RadixKey::pack`]); cells of equal key pop in a fixed order that depends only
/// on the input, never on timing: last pushed first ([`RadixQueue::new`]), or smallest cell
/// first ([`RadixQueue::index_ordered`], the order of a binary heap of `(key, cell)`).
#[derive(Debug)]
pub(crate) struct RadixQueue<K: RadixKey = u32> {
    last: K,
    len: usize,
    buckets: Vec<Vec<K::Entry>>,
    /// Bit `b` set when bucket `b` (b >= 1) may hold entries: refill finds the lowest at once.
    nonempty: u128,
    index_ordered: bool,
}

impl<K: RadixKey> RadixQueue<K> {
    /// Equal keys pop last-pushed first.
    pub(crate) fn new() -> Self {
        RadixQueue {
            last: K::default(),
            len: 0,
            buckets: (0..=K::BITS).map(|_| Vec::new()).collect(),
            nonempty: 0,
            index_ordered: false,
        }
    }

    /// Equal keys pop smallest cell first, provided no key equal to the last one popped is
    /// pushed while cells of that key still wait (Priority-Flood pushes only keys above the
    /// level it is at; equal ones go to its FIFO).
    pub(crate) fn index_ordered() -> Self {
        RadixQueue {
            index_ordered: true,
            ..Self::new()
        }
    }

    #[inline]
    fn bucket(&self, key: K) -> usize {
        key.bucket(self.last)
    }

    /// Adds `cell` with priority `key`, which must not be below the last key popped.
    #[inline]
    pub(crate) fn push(&mut self, key: K, cell: u32) {
        debug_assert!(key >= self.last, "radix queue keys must not decrease");
        debug_assert!(
            !self.index_ordered || key > self.last || self.buckets[0].is_empty(),
            "an index-ordered queue takes no key equal to the one it is popping"
        );
        let b = self.bucket(key);
        self.buckets[b].push(key.pack(cell));
        self.nonempty |= 1 << b;
        self.len += 1;
    }

    /// Removes a cell of the smallest key: `(key, cell)`.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<(K, u32)> {
        if self.buckets[0].is_empty() {
            if self.len == 0 {
                return None;
            }
            self.refill();
        }
        let entry = self.buckets[0].pop()?;
        self.len -= 1;
        Some(K::unpack(entry))
    }

    /// Moves the smallest keys into bucket 0: finds the first non-empty bucket, makes its minimum
    /// the new `last`, and redistributes its entries (each to a strictly lower bucket).
    fn refill(&mut self) {
        let above = self.nonempty & !1;
        if above == 0 {
            return;
        }
        let i = above.trailing_zeros() as usize;
        self.nonempty &= !(1 << i);
        let mut moving = std::mem::take(&mut self.buckets[i]);
        self.last = moving
            .iter()
            .map(|&e| K::unpack(e).0)
            .min()
            .unwrap_or(self.last);
        for &e in &moving {
            let b = self.bucket(K::unpack(e).0);
            self.buckets[b].push(e);
            self.nonempty |= 1 << b;
        }
        moving.clear();
        // Keep the allocation for the next time this bucket fills.
        self.buckets[i] = moving;
        if self.index_ordered && self.buckets[0].len() > 1 {
            // One key in bucket 0: descending entries pop (from the end) smallest cell first.
            self.buckets[0].sort_unstable_by(|a, b| b.cmp(a));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_like_the_floats_including_negatives() {
        let mut values = vec![
            -f32::MAX,
            -2000.5,
            -2000.0,
            -1.0,
            -f32::MIN_POSITIVE,
            -0.0,
            0.0,
            f32::MIN_POSITIVE,
            1.0,
            236.0,
            f32::MAX,
            f32::INFINITY,
        ];
        values.insert(0, f32::NEG_INFINITY);
        for pair in values.windows(2) {
            assert!(key(pair[0]) < key(pair[1]), "{} vs {}", pair[0], pair[1]);
        }
        // Raw bits would misorder them: -1 looks larger than 1.
        assert!((-1.0f32).to_bits() > 1.0f32.to_bits());
    }

    #[test]
    fn pops_in_key_order_with_interleaved_pushes() {
        let mut q = RadixQueue::new();
        let mut state = 0x1234_5678_u64;
        let mut next = || {
            state = orogen_world::seed::splitmix64(state);
            state
        };
        let mut popped = Vec::new();
        let mut reference = std::collections::BinaryHeap::new();
        let mut floor = 0u32;
        for round in 0..2000 {
            let pushes = (next() % 4) as u32;
            for _ in 0..pushes {
                let z = -500.0 + (next() % 1000) as f32 * 0.5;
                let k = key(z).max(floor);
                q.push(k, round);
                reference.push(std::cmp::Reverse(k));
            }
            if next() % 2 == 0
                && let Some((k, _)) = q.pop()
            {
                assert_eq!(Some(std::cmp::Reverse(k)), reference.pop());
                floor = k;
                popped.push(k);
            }
        }
        while let Some((k, _)) = q.pop() {
            assert_eq!(Some(std::cmp::Reverse(k)), reference.pop());
            popped.push(k);
        }
        assert!(reference.is_empty());
        assert!(popped.windows(2).all(|w| w[0] <= w[1]));
        assert!(popped.len() > 1000);
    }

    #[test]
    fn index_ordered_ties_pop_like_a_binary_heap_of_key_and_cell() {
        let mut q = RadixQueue::index_ordered();
        let mut reference = std::collections::BinaryHeap::new();
        let mut state = 0x9e37_u64;
        let mut popped = 0;
        let mut floor = 0u32;
        for round in 0..3000u32 {
            state = orogen_world::seed::splitmix64(state);
            // Few distinct keys, so most pops break ties; pushes stay above the key popped.
            let k = key((state % 7) as f32).max(floor + 1);
            let cell = (state >> 40) as u32 % 100_000;
            q.push(k, cell);
            reference.push(std::cmp::Reverse((k, cell)));
            if round % 3 != 0 {
                let got = q.pop().unwrap();
                assert_eq!(std::cmp::Reverse(got), reference.pop().unwrap());
                popped += 1;
                // Later pushes go above the smallest key waiting (the queue's contract).
                floor = got.0.max(reference.peek().map_or(got.0, |r| r.0.0));
            }
        }
        while let Some(got) = q.pop() {
            assert_eq!(std::cmp::Reverse(got), reference.pop().unwrap());
            popped += 1;
        }
        assert!(reference.is_empty() && popped == 3000);
    }
}
