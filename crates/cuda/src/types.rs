//! The subset's types and C's rules between them: the scalar types, pointers
//! into global or shared memory, `dim3`, the usual arithmetic conversions,
//! and clang's spelling of each type in messages.

use std::fmt;

/// A scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// `int`, 32-bit two's complement.
    Int,
    /// `unsigned int`, 32 bits.
    Unsigned,
    /// `float`, IEEE single precision.
    Float,
    /// `bool`.
    Bool,
}

impl Scalar {
    /// Whether the type is `int`, `unsigned int` or `bool` (C's integer types).
    pub fn is_integer(self) -> bool {
        self != Scalar::Float
    }

    /// The size in bytes (a `bool` takes one, as in CUDA).
    pub fn size_bytes(self) -> u32 {
        if self == Scalar::Bool { 1 } else { 4 }
    }

    /// C's integer promotion: `bool` becomes `int`, the rest stay.
    pub fn promoted(self) -> Scalar {
        if self == Scalar::Bool { Scalar::Int } else { self }
    }

    /// C's usual arithmetic conversions: the type both operands of a binary
    /// arithmetic operator are converted to.
    pub fn common(self, other: Scalar) -> Scalar {
        match (self.promoted(), other.promoted()) {
            (Scalar::Float, _) | (_, Scalar::Float) => Scalar::Float,
            (Scalar::Unsigned, _) | (_, Scalar::Unsigned) => Scalar::Unsigned,
            _ => Scalar::Int,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Scalar::Int => "int",
            Scalar::Unsigned => "unsigned int",
            Scalar::Float => "float",
            Scalar::Bool => "bool",
        }
    }
}

/// Which memory a pointer points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Global memory: `device_array` allocations and kernel pointer parameters.
    Global,
    /// Shared memory: only `&array[i]` of a `__shared__` array, which may be
    /// offset and passed to an atomic but not stored.
    Shared,
}

/// A pointer type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pointer {
    /// The element type: `int`, `unsigned int` or `float`.
    pub elem: Scalar,
    /// Whether the elements are `const` (read-only through this pointer).
    pub is_const: bool,
    /// The memory pointed into.
    pub space: Space,
}

/// The type of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// The result of a call to a `void` function.
    Void,
    /// A scalar.
    Scalar(Scalar),
    /// A pointer.
    Pointer(Pointer),
    /// `dim3`, in host code only: a launch's grid or block shape.
    Dim3,
}

impl Type {
    /// The scalar, if the type is one.
    pub fn scalar(self) -> Option<Scalar> {
        match self {
            Type::Scalar(scalar) => Some(scalar),
            _ => None,
        }
    }

    /// The pointer, if the type is one.
    pub fn pointer(self) -> Option<Pointer> {
        match self {
            Type::Pointer(pointer) => Some(pointer),
            _ => None,
        }
    }
}

/// Spelled as clang spells types in its messages: `unsigned int`,
/// `const float *`.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Void => f.write_str("void"),
            Type::Scalar(scalar) => f.write_str(scalar.name()),
            Type::Pointer(pointer) => {
                let space = if pointer.space == Space::Shared { "__shared__ " } else { "" };
                let constness = if pointer.is_const { "const " } else { "" };
                write!(f, "{space}{constness}{} *", pointer.elem.name())
            }
            Type::Dim3 => f.write_str("dim3"),
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usual_arithmetic_conversions() {
        use Scalar::*;
        let check = |a: Scalar, b: Scalar, expect: Scalar| assert_eq!((a.common(b), b.common(a)), (expect, expect));
        check(Int, Int, Int);
        check(Int, Unsigned, Unsigned);
        check(Bool, Bool, Int);
        check(Bool, Unsigned, Unsigned);
        check(Unsigned, Float, Float);
        check(Bool, Float, Float);
    }

    #[test]
    fn types_print_as_clang_prints_them() {
        let pointer = |is_const, space| Type::Pointer(Pointer { elem: Scalar::Float, is_const, space });
        assert_eq!(pointer(true, Space::Global).to_string(), "const float *");
        assert_eq!(pointer(false, Space::Shared).to_string(), "__shared__ float *");
        assert_eq!(Type::Scalar(Scalar::Unsigned).to_string(), "unsigned int");
    }
}
