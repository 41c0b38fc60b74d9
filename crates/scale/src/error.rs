//! What can be wrong with a predictor's inputs. Every case the paper's tool
//! would have crashed on, or silently turned into a meaningless number, is an
//! error here that says which input and why.

use std::fmt;

/// An input the predictor cannot work from.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ScaleError {
    /// Fewer than two system sizes: there is nothing to extrapolate from.
    TooFewSizes {
        /// How many sizes were given.
        given: usize,
    },
    /// More sizes than [`crate::MAX_SIZES`].
    TooManySizes {
        /// How many sizes were given.
        given: usize,
    },
    /// Each size must be double the one before it (S, 2S, 4S, …).
    NotDoubling {
        /// The size before.
        previous: u32,
        /// The size that should have been twice it.
        size: u32,
    },
    /// The smallest size must be at least one SM (or chiplet).
    ZeroSize,
    /// The MPKI series must have one value per size.
    MpkiCount {
        /// Sizes.
        sizes: usize,
        /// MPKI values.
        mpki: usize,
    },
    /// An MPKI value is negative or not a number.
    BadMpki {
        /// The size it belongs to.
        size: u32,
        /// The value.
        value: f64,
    },
    /// The cliff test needs `MPKI(previous) / MPKI(size)` and the divisor is zero.
    ZeroMpki {
        /// The size whose MPKI is zero.
        size: u32,
    },
    /// A scale model's IPC is zero, negative or not a number.
    BadIpc {
        /// The scale model's size.
        size: u32,
        /// The value.
        value: f64,
    },
    /// f_mem is a fraction in [0, 1).
    BadFmem {
        /// The value.
        value: f64,
    },
    /// A cliff was found, and the cliff formula needs f_mem.
    MissingFmem {
        /// The size before the cliff.
        from: u32,
        /// The size at the cliff.
        to: u32,
    },
}

impl fmt::Display for ScaleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooFewSizes { given } => {
                write!(f, "need at least two system sizes (the two scale models), got {given}")
            }
            Self::TooManySizes { given } => {
                write!(f, "at most {} system sizes, got {given}", crate::MAX_SIZES)
            }
            Self::NotDoubling { previous, size } => {
                write!(f, "sizes must double: {size} follows {previous}, expected {}", u64::from(*previous) * 2)
            }
            Self::ZeroSize => write!(f, "the smallest size must be at least 1"),
            Self::MpkiCount { sizes, mpki } => {
                write!(f, "need one MPKI per size: {sizes} sizes, {mpki} MPKI values")
            }
            Self::BadMpki { size, value } => write!(f, "MPKI at {size} is {value}; it must be a number >= 0"),
            Self::ZeroMpki { size } => write!(
                f,
                "MPKI at {size} is zero where the cliff test divides by it (MPKI of the size before / MPKI at {size})"
            ),
            Self::BadIpc { size, value } => write!(f, "the IPC at {size} is {value}; it must be a number > 0"),
            Self::BadFmem { value } => write!(f, "f_mem is {value}; it must be a fraction in [0, 1)"),
            Self::MissingFmem { from, to } => write!(
                f,
                "a cliff is expected from {from} to {to}: the cliff formula needs f_mem of the larger scale model"
            ),
        }
    }
}

impl std::error::Error for ScaleError {}
