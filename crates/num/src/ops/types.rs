//! Decoded operand types, rounding modes and comparison operators: what the engine decodes
//! once per instruction so the per-lane loops do no string work.

use std::fmt;

/// A PTX fundamental (or alternate floating-point) scalar type, PTX ISA §5.2.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    Pred,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    F32,
    F64,
    Bf16,
    Bf16x2,
    Tf32,
    E4m3,
    E5m2,
    E4m3x2,
    E5m2x2,
    E2m3x2,
    E3m2x2,
    E2m1x2,
    Ue8m0x2,
    U16x2,
    S16x2,
}

/// What kind of value a type holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TypeKind {
    Pred,
    Bits,
    Unsigned,
    Signed,
    Float,
}

impl ScalarType {
    /// Parses a type suffix with or without the leading dot: `".f32"`, `"s64"`.
    pub fn from_ptx(s: &str) -> Option<ScalarType> {
        use ScalarType::*;
        let s = s.strip_prefix('.').unwrap_or(s);
        Some(match s {
            "pred" => Pred,
            "b8" => B8,
            "b16" => B16,
            "b32" => B32,
            "b64" => B64,
            "b128" => B128,
            "u8" => U8,
            "u16" => U16,
            "u32" => U32,
            "u64" => U64,
            "s8" => S8,
            "s16" => S16,
            "s32" => S32,
            "s64" => S64,
            "f16" => F16,
            "f16x2" => F16x2,
            "f32" => F32,
            "f64" => F64,
            "bf16" => Bf16,
            "bf16x2" => Bf16x2,
            "tf32" => Tf32,
            "e4m3" => E4m3,
            "e5m2" => E5m2,
            "e4m3x2" => E4m3x2,
            "e5m2x2" => E5m2x2,
            "e2m3x2" => E2m3x2,
            "e3m2x2" => E3m2x2,
            "e2m1x2" => E2m1x2,
            "ue8m0x2" => Ue8m0x2,
            "u16x2" => U16x2,
            "s16x2" => S16x2,
            _ => return None,
        })
    }

    /// The PTX spelling, with the dot.
    pub fn as_ptx(self) -> &'static str {
        use ScalarType::*;
        match self {
            Pred => ".pred",
            B8 => ".b8",
            B16 => ".b16",
            B32 => ".b32",
            B64 => ".b64",
            B128 => ".b128",
            U8 => ".u8",
            U16 => ".u16",
            U32 => ".u32",
            U64 => ".u64",
            S8 => ".s8",
            S16 => ".s16",
            S32 => ".s32",
            S64 => ".s64",
            F16 => ".f16",
            F16x2 => ".f16x2",
            F32 => ".f32",
            F64 => ".f64",
            Bf16 => ".bf16",
            Bf16x2 => ".bf16x2",
            Tf32 => ".tf32",
            E4m3 => ".e4m3",
            E5m2 => ".e5m2",
            E4m3x2 => ".e4m3x2",
            E5m2x2 => ".e5m2x2",
            E2m3x2 => ".e2m3x2",
            E3m2x2 => ".e3m2x2",
            E2m1x2 => ".e2m1x2",
            Ue8m0x2 => ".ue8m0x2",
            U16x2 => ".u16x2",
            S16x2 => ".s16x2",
        }
    }

    /// Size in bits of a value of this type (a predicate counts as 1).
    pub fn bits(self) -> u32 {
        use ScalarType::*;
        match self {
            Pred => 1,
            B8 | U8 | S8 | E4m3 | E5m2 | E2m1x2 => 8,
            B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 | E2m3x2 | E3m2x2 | Ue8m0x2 => 16,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 | U16x2 | S16x2 => 32,
            B64 | U64 | S64 | F64 => 64,
            B128 => 128,
        }
    }

    /// Size in bytes (a predicate counts as 1).
    pub fn size(self) -> u32 {
        self.bits().div_ceil(8)
    }

    pub fn kind(self) -> TypeKind {
        use ScalarType::*;
        match self {
            Pred => TypeKind::Pred,
            B8 | B16 | B32 | B64 | B128 => TypeKind::Bits,
            U8 | U16 | U32 | U64 | U16x2 => TypeKind::Unsigned,
            S8 | S16 | S32 | S64 | S16x2 => TypeKind::Signed,
            _ => TypeKind::Float,
        }
    }

    pub fn is_signed(self) -> bool {
        self.kind() == TypeKind::Signed
    }

    pub fn is_float(self) -> bool {
        self.kind() == TypeKind::Float
    }

    /// Integer (signed, unsigned or bit) types of 8..64 bits.
    pub fn is_integer(self) -> bool {
        matches!(
            self.kind(),
            TypeKind::Signed | TypeKind::Unsigned | TypeKind::Bits
        ) && self.bits() <= 64
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_ptx())
    }
}

/// A rounding modifier, PTX ISA §9.7.9.21 (cvt) and §9.7.3 (floating point).
///
/// `Rn`..`Rs` round to a floating-point result; `Rni`..`Rpi` round to an integral value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Rounding {
    /// Nearest, ties to even (the default of every float instruction that rounds).
    #[default]
    Rn,
    /// Toward zero.
    Rz,
    /// Toward -infinity.
    Rm,
    /// Toward +infinity.
    Rp,
    /// Nearest, ties away from zero (`cvt.rna.tf32.f32`, `cvt.rna.satfinite...`).
    Rna,
    /// Stochastic rounding with caller-supplied random bits (`cvt.rs`).
    Rs,
    /// Integer rounding: nearest even, toward zero, toward -inf, toward +inf.
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

impl Rounding {
    pub fn from_ptx(s: &str) -> Option<Rounding> {
        let s = s.strip_prefix('.').unwrap_or(s);
        Some(match s {
            "rn" => Rounding::Rn,
            "rz" => Rounding::Rz,
            "rm" => Rounding::Rm,
            "rp" => Rounding::Rp,
            "rna" => Rounding::Rna,
            "rs" => Rounding::Rs,
            "rni" => Rounding::Rni,
            "rzi" => Rounding::Rzi,
            "rmi" => Rounding::Rmi,
            "rpi" => Rounding::Rpi,
            _ => return None,
        })
    }

    /// True for the integer-rounding modifiers (`.rni` etc).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi
        )
    }

    /// The float rounding a mode stands for: `.rni` rounds like `.rn` to an integer, etc.
    pub fn float_mode(self) -> Rounding {
        match self {
            Rounding::Rni => Rounding::Rn,
            Rounding::Rzi => Rounding::Rz,
            Rounding::Rmi => Rounding::Rm,
            Rounding::Rpi => Rounding::Rp,
            r => r,
        }
    }
}

/// The comparison of `setp`/`set`, PTX ISA §9.7.4.1 (integer: eq ne lt le gt ge lo ls hi hs;
/// float adds the unordered forms and num/nan).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

impl CmpOp {
    pub fn from_ptx(s: &str) -> Option<CmpOp> {
        use CmpOp::*;
        let s = s.strip_prefix('.').unwrap_or(s);
        Some(match s {
            "eq" => Eq,
            "ne" => Ne,
            "lt" => Lt,
            "le" => Le,
            "gt" => Gt,
            "ge" => Ge,
            "lo" => Lo,
            "ls" => Ls,
            "hi" => Hi,
            "hs" => Hs,
            "equ" => Equ,
            "neu" => Neu,
            "ltu" => Ltu,
            "leu" => Leu,
            "gtu" => Gtu,
            "geu" => Geu,
            "num" => Num,
            "nan" => Nan,
            _ => return None,
        })
    }
}

/// The boolean combine of `setp.cmp.bop` / `set.cmp.bop`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

impl BoolOp {
    pub fn from_ptx(s: &str) -> Option<BoolOp> {
        match s.strip_prefix('.').unwrap_or(s) {
            "and" => Some(BoolOp::And),
            "or" => Some(BoolOp::Or),
            "xor" => Some(BoolOp::Xor),
            _ => None,
        }
    }

    #[inline]
    pub fn apply(self, a: bool, b: bool) -> bool {
        match self {
            BoolOp::And => a & b,
            BoolOp::Or => a | b,
            BoolOp::Xor => a ^ b,
        }
    }
}

/// Why an operation has no result: a form the ISA does not define, or one not modelled yet.
/// The engine turns this into an `incomplete` verdict (never a silent wrong value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpError {
    /// A form tmemu does not model (yet); the string names it.
    Unsupported(&'static str),
    /// A combination of modifiers and types the PTX ISA does not allow.
    Illegal(&'static str),
}

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpError::Unsupported(w) => write!(f, "unsupported form: {w}"),
            OpError::Illegal(w) => write!(f, "illegal form: {w}"),
        }
    }
}

impl std::error::Error for OpError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_types_round_trip_through_their_spelling() {
        use ScalarType::*;
        for t in [
            Pred, B8, B16, B32, B64, B128, U8, U16, U32, U64, S8, S16, S32, S64, F16, F16x2, F32,
            F64, Bf16, Bf16x2, Tf32, E4m3, E5m2, E4m3x2, E5m2x2, E2m3x2, E3m2x2, E2m1x2, Ue8m0x2,
            U16x2, S16x2,
        ] {
            assert_eq!(ScalarType::from_ptx(t.as_ptx()), Some(t));
        }
        assert_eq!(ScalarType::from_ptx("s32"), Some(S32));
        assert_eq!(ScalarType::from_ptx(".f128"), None);
        assert_eq!(S64.size(), 8);
        assert!(S16.is_signed() && !U16.is_signed() && F16.is_float());
        assert_eq!(Rounding::from_ptx(".rni"), Some(Rounding::Rni));
        assert!(Rounding::Rzi.is_integer() && !Rounding::Rz.is_integer());
        assert_eq!(CmpOp::from_ptx(".geu"), Some(CmpOp::Geu));
        assert_eq!(
            BoolOp::from_ptx("xor").map(|b| b.apply(true, true)),
            Some(false)
        );
    }
}
