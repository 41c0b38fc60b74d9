//! The pseudo-random numbers the model's small simulations draw
//! (`crossbar.rs`, `dram_rate.rs`): a fixed stream from a fixed seed, so
//! every figure they give is the same on every call and every platform.

/// Marsaglia's xorshift64.
pub(crate) struct XorShift(u64);

impl XorShift {
    /// The stream every caller starts from.
    pub(crate) fn seeded() -> Self {
        Self(0x9E37_79B9_7F4A_7C15)
    }

    /// A number in `0..n`.
    pub(crate) fn below(&mut self, n: u32) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (((self.0 >> 32) * u64::from(n)) >> 32) as usize
    }
}
