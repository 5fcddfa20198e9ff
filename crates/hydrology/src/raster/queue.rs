//! A monotone radix queue keyed on f32 elevations.
//!
//! Priority-Flood pops elevations that never decrease, so a radix heap (Ahuja, Mehlhorn, Orlin
//! and Tarjan 1990) is exact and cheaper than a binary heap. This one has a digit of 8 bits: an
//! element sits in the bucket named by the highest byte in which its key differs from the last
//! key popped and by its own value of that byte, and moves only to buckets of lower bytes, so at
//! most 4 times for f32 keys (8 for f64) however many distinct keys wait; a radix of 2 moves an
//! element once per bit, and elevations of whole metres differ in a dozen of them.
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

/// The f32 of a [`key`]: `unkey(key(z))` has the bits of `z`.
#[inline]
pub(crate) fn unkey(k: u32) -> f32 {
    f32::from_bits(if k & 0x8000_0000 != 0 {
        k & 0x7fff_ffff
    } else {
        !k
    })
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
    /// The key's width in bytes: the queue has 256 buckets per byte.
    const BYTES: usize;
    /// The bucket of `self` against the last key popped `last < self`: the highest byte in
    /// which they differ times 256, plus `self`'s value of that byte. Bucket order is key order.
    fn bucket(self, last: Self) -> usize;
    /// Packs `(self, cell)`.
    fn pack(self, cell: u32) -> Self::Entry;
    /// Unpacks an entry.
    fn unpack(entry: Self::Entry) -> (Self, u32);
}

impl RadixKey for u32 {
    type Entry = u64;
    const BYTES: usize = 4;
    #[inline]
    fn bucket(self, last: Self) -> usize {
        let byte = (31 - (self ^ last).leading_zeros()) / 8;
        (byte * 256 + (self >> (byte * 8)) % 256) as usize
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
    const BYTES: usize = 8;
    #[inline]
    fn bucket(self, last: Self) -> usize {
        let byte = (63 - (self ^ last).leading_zeros()) / 8;
        (byte * 256) as usize + ((self >> (byte * 8)) % 256) as usize
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
/// on the input, never on timing: an order of the pushes ([`RadixQueue::new`]), or smallest cell
/// first ([`RadixQueue::index_ordered`], the order of a binary heap of `(key, cell)`).
#[derive(Debug)]
pub(crate) struct RadixQueue<K: RadixKey = u32> {
    last: K,
    len: usize,
    /// Entries whose key is `last`, popped from the end.
    equal: Vec<K::Entry>,
    /// `BYTES * 256` buckets of keys above `last` ([`RadixKey::bucket`]), allocated on first use.
    buckets: Vec<Vec<K::Entry>>,
    /// Bit `b` set when bucket `b` may hold entries, 64 buckets to a word...
    nonempty: Vec<u64>,
    /// ...and bit `w` when word `w` of `nonempty` is not zero: refill finds the lowest at once.
    words: u64,
    index_ordered: bool,
}

impl<K: RadixKey> RadixQueue<K> {
    /// Equal keys pop in an order fixed by the order of the pushes.
    pub(crate) fn new() -> Self {
        let n = K::BYTES * 256;
        RadixQueue {
            last: K::default(),
            len: 0,
            equal: Vec::new(),
            buckets: (0..n).map(|_| Vec::new()).collect(),
            nonempty: vec![0; n / 64],
            words: 0,
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

    /// Puts `entry` of `key` (not below `last`) where it belongs.
    #[inline]
    fn place(&mut self, key: K, entry: K::Entry) {
        if key == self.last {
            self.equal.push(entry);
        } else {
            let b = key.bucket(self.last);
            self.buckets[b].push(entry);
            self.nonempty[b / 64] |= 1 << (b % 64);
            self.words |= 1 << (b / 64);
        }
    }

    /// Adds `cell` with priority `key`, which must not be below the last key popped.
    #[inline]
    pub(crate) fn push(&mut self, key: K, cell: u32) {
        debug_assert!(key >= self.last, "radix queue keys must not decrease");
        debug_assert!(
            !self.index_ordered || key > self.last || self.equal.is_empty(),
            "an index-ordered queue takes no key equal to the one it is popping"
        );
        self.place(key, key.pack(cell));
        self.len += 1;
    }

    /// Removes a cell of the smallest key: `(key, cell)`.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<(K, u32)> {
        if self.equal.is_empty() {
            if self.len == 0 {
                return None;
            }
            self.refill();
        }
        let entry = self.equal.pop()?;
        self.len -= 1;
        Some(K::unpack(entry))
    }

    /// Moves the smallest keys into `equal`: takes the lowest non-empty bucket, makes its minimum
    /// the new `last`, and redistributes its entries (each to `equal` or a bucket of a lower
    /// byte: they share with the new `last` every byte from the bucket's up).
    fn refill(&mut self) {
        if self.words == 0 {
            return;
        }
        let w = self.words.trailing_zeros() as usize;
        let b = w * 64 + self.nonempty[w].trailing_zeros() as usize;
        self.nonempty[w] &= !(1 << (b % 64));
        if self.nonempty[w] == 0 {
            self.words &= !(1 << w);
        }
        let mut moving = std::mem::take(&mut self.buckets[b]);
        self.last = moving
            .iter()
            .map(|&e| K::unpack(e).0)
            .min()
            .unwrap_or(self.last);
        for &e in &moving {
            self.place(K::unpack(e).0, e);
        }
        moving.clear();
        // Keep the allocation for the next time this bucket fills.
        self.buckets[b] = moving;
        if self.index_ordered && self.equal.len() > 1 {
            // One key in `equal`: descending entries pop (from the end) smallest cell first.
            self.equal.sort_unstable_by(|a, b| b.cmp(a));
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
        for &v in &values {
            assert_eq!(unkey(key(v)).to_bits(), v.to_bits());
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
    fn f64_keys_spread_over_every_byte_pop_in_order() {
        // Keys from 1e-300 to 1e300 differ from the last popped in any of the 8 bytes, so every
        // bucket level is used; a few equal keys test the ties.
        let mut q = RadixQueue::<u64>::new();
        let mut reference = std::collections::BinaryHeap::new();
        let mut state = 0x5eed_u64;
        let mut floor = 0u64;
        let mut popped = 0;
        for round in 0..5000u32 {
            state = orogen_world::seed::splitmix64(state);
            let z = 10f64.powi((state % 601) as i32 - 300) * (1.0 + (state >> 40) as f64 / 2e7);
            let k = key64(if round % 7 == 0 { 1.0 } else { z }).max(floor);
            q.push(k, round);
            reference.push(std::cmp::Reverse(k));
            if round % 2 == 1 {
                let (got, _) = q.pop().unwrap();
                assert_eq!(std::cmp::Reverse(got), reference.pop().unwrap());
                floor = got;
                popped += 1;
            }
        }
        while let Some((got, _)) = q.pop() {
            assert_eq!(std::cmp::Reverse(got), reference.pop().unwrap());
            popped += 1;
        }
        assert!(reference.is_empty() && popped == 5000);
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
