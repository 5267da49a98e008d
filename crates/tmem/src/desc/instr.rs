//! The 32-bit instruction descriptor (PTX ISA 9.1 §9.7.16.4.2, Tables 42–44) and the
//! shape/type legality of `tcgen05.mma` (§9.7.16.2.1 Table 39, §9.7.16.10.1 Tables 51–52).

use super::{DescError, Major};

/// The `.kind` qualifier of `tcgen05.mma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaKind {
    F16,
    Tf32,
    F8f6f4,
    I8,
    MxF8f6f4,
    MxF4,
    MxF4Nvf4,
}

impl MmaKind {
    pub fn is_block_scaled(self) -> bool {
        matches!(self, MmaKind::MxF8f6f4 | MmaKind::MxF4 | MmaKind::MxF4Nvf4)
    }
}

/// Element type of A or B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    F16,
    Bf16,
    Tf32,
    E4m3,
    E5m2,
    E2m3,
    E3m2,
    E2m1,
    U8,
    S8,
}

impl ElemType {
    /// Width of one element in bits (its value bits, not its container).
    pub fn bits(self) -> u32 {
        match self {
            ElemType::Tf32 => 32,
            ElemType::F16 | ElemType::Bf16 => 16,
            ElemType::E4m3 | ElemType::E5m2 | ElemType::U8 | ElemType::S8 => 8,
            ElemType::E2m3 | ElemType::E3m2 => 6,
            ElemType::E2m1 => 4,
        }
    }
}

/// Accumulator (D) type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccumType {
    F16,
    F32,
    S32,
}

/// Scale-factor element type of the block-scaled kinds (idesc bit 23).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScaleType {
    Ue8m0,
    Ue4m3,
}

/// Instruction variant and group: what the shape rules depend on besides the idesc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaShapeContext {
    /// 1 or 2.
    pub cta_group: u8,
    /// `tcgen05.mma.ws`.
    pub ws: bool,
    /// K = 96 (idesc bit 31) is an sm_103a feature; false on sm_100a.
    pub allow_k96: bool,
}

/// A decoded instruction descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstrDescriptor {
    pub raw: u32,
    pub kind: MmaKind,
    pub sparse: bool,
    pub sparse_selector: u8,
    pub saturate: bool,
    pub d_type: AccumType,
    pub a_type: ElemType,
    pub b_type: ElemType,
    pub negate_a: bool,
    pub negate_b: bool,
    pub a_major: Major,
    pub b_major: Major,
    /// M of the whole instruction (for cta_group::2, the pair total).
    pub m: u32,
    pub n: u32,
    /// `.ws` B-reuse max shift in columns (0, 8, 16, 32).
    pub max_shift: u32,
    /// Block-scaled kinds only.
    pub scale_type: Option<ScaleType>,
    pub sfa_id: u8,
    pub sfb_id: u8,
    /// Block-scaled mxf4/mxf4nvf4: K = 96 instead of 64 (dense).
    pub k96: bool,
}

fn f8f6f4_type(code: u8) -> Option<ElemType> {
    Some(match code {
        0 => ElemType::E4m3,
        1 => ElemType::E5m2,
        3 => ElemType::E2m3,
        4 => ElemType::E3m2,
        5 => ElemType::E2m1,
        _ => return None,
    })
}

fn elem_type(kind: MmaKind, code: u8) -> Option<ElemType> {
    match kind {
        MmaKind::F16 => match code {
            0 => Some(ElemType::F16),
            1 => Some(ElemType::Bf16),
            _ => None,
        },
        MmaKind::Tf32 => (code == 2).then_some(ElemType::Tf32),
        MmaKind::F8f6f4 | MmaKind::MxF8f6f4 => f8f6f4_type(code),
        MmaKind::I8 => match code {
            0 => Some(ElemType::U8),
            1 => Some(ElemType::S8),
            _ => None,
        },
        MmaKind::MxF4 | MmaKind::MxF4Nvf4 => (code == 1).then_some(ElemType::E2m1),
    }
}

fn bit(raw: u32, at: u32) -> bool {
    (raw >> at) & 1 == 1
}

fn major(b: bool) -> Major {
    if b {
        Major::MN
    } else {
        Major::K
    }
}

impl InstrDescriptor {
    /// Decodes `raw` for `kind`, rejecting reserved bits and type codes the kind does not
    /// accept. Shape legality needs the variant: see [`InstrDescriptor::check_shape`].
    pub fn decode(raw: u32, kind: MmaKind) -> Result<Self, DescError> {
        let block = kind.is_block_scaled();
        let mut reserved = (1 << 6) | if block { 0 } else { (1 << 23) | (1 << 29) };
        if block {
            reserved |= 0b11 | (1 << 3);
            match kind {
                MmaKind::MxF8f6f4 => reserved |= 1 << 31,
                _ => reserved |= 1 << 12,
            }
        }
        if raw & reserved != 0 {
            return Err(DescError::IdescReservedBits {
                bits: raw & reserved,
            });
        }
        // Block-scaled kinds: the PTX ISA's table has M >> 7 in bits 27-28 and bits 24-26
        // reserved; newer CUTLASS (`UMMA::InstrDescriptorBlockScaled`) agrees on M and names
        // bit 26 "unique SfA". Triton 3.9 sets bit 24 for `mxf4nvf4.block16` with UE8M0 scales
        // (its 2-bit `scaleType` = 2), which by the ISA would select UE4M3. Which reading the
        // hardware follows is UNCONFIRMED, so any of bits 24-26 set is an unmodelled form
        // (verdict incomplete), never a shape error or a guess.
        if block && raw & (0b111 << 24) != 0 {
            return Err(DescError::IdescUnmodelledBits {
                bits: raw & (0b111 << 24),
            });
        }
        let a_code = ((raw >> 7) & 7) as u8;
        let b_code = if block && kind != MmaKind::MxF8f6f4 {
            ((raw >> 10) & 3) as u8
        } else {
            ((raw >> 10) & 7) as u8
        };
        let a_type = elem_type(kind, a_code).ok_or(DescError::IdescType {
            operand: 'A',
            code: a_code,
        })?;
        let b_type = elem_type(kind, b_code).ok_or(DescError::IdescType {
            operand: 'B',
            code: b_code,
        })?;
        let d_type = if block {
            AccumType::F32
        } else {
            let code = ((raw >> 4) & 3) as u8;
            let d = match code {
                0 => AccumType::F16,
                1 => AccumType::F32,
                2 => AccumType::S32,
                _ => return Err(DescError::IdescType { operand: 'D', code }),
            };
            let ok = match kind {
                MmaKind::F16 | MmaKind::F8f6f4 => d != AccumType::S32,
                MmaKind::Tf32 => d == AccumType::F32,
                MmaKind::I8 => d == AccumType::S32,
                _ => unreachable!(),
            };
            if !ok {
                return Err(DescError::IdescType { operand: 'D', code });
            }
            d
        };
        let sparse = bit(raw, 2);
        let sparse_selector = if block { 0 } else { (raw & 3) as u8 };
        if !sparse && sparse_selector != 0 {
            return Err(DescError::IdescSparseSelector);
        }
        let saturate = !block && bit(raw, 3);
        if saturate && kind != MmaKind::I8 {
            return Err(DescError::IdescSaturate);
        }
        let negate_a = bit(raw, 13);
        let negate_b = bit(raw, 14);
        if kind == MmaKind::I8 && (negate_a || negate_b) {
            return Err(DescError::IdescNegateI8);
        }
        if kind == MmaKind::F16
            && d_type == AccumType::F16
            && (a_type != ElemType::F16 || b_type != ElemType::F16)
        {
            return Err(DescError::IdescF16Accumulator);
        }
        let a_major = major(bit(raw, 15));
        let b_major = major(bit(raw, 16));
        // MN-major needs 8-bit or wider types (CUTLASS InstrDescriptor comment; Table 54 lists
        // no 4/6-bit transposed layout); mxf4/mxf4nvf4 forbid transpose (Table 51).
        for (op, t, mj) in [('A', a_type, a_major), ('B', b_type, b_major)] {
            if mj == Major::MN
                && (matches!(kind, MmaKind::MxF4 | MmaKind::MxF4Nvf4) || t.bits() < 8)
            {
                return Err(DescError::IdescTranspose { operand: op });
            }
        }
        let (scale_type, sfa_id, sfb_id, k96, max_shift) = if block {
            let st = if bit(raw, 23) {
                ScaleType::Ue8m0
            } else {
                ScaleType::Ue4m3
            };
            if st == ScaleType::Ue4m3 && kind != MmaKind::MxF4Nvf4 {
                return Err(DescError::IdescScaleType);
            }
            let sfa = ((raw >> 29) & 3) as u8;
            let sfb = ((raw >> 4) & 3) as u8;
            if kind != MmaKind::MxF8f6f4 {
                for (op, id) in [('A', sfa), ('B', sfb)] {
                    if id & 1 != 0 {
                        return Err(DescError::IdescScaleFactorId { operand: op, id });
                    }
                }
            }
            (Some(st), sfa, sfb, bit(raw, 31), 0)
        } else {
            let shift = match (raw >> 30) & 3 {
                0 => 0,
                1 => 8,
                2 => 16,
                _ => 32,
            };
            (None, 0, 0, false, shift)
        };
        Ok(InstrDescriptor {
            raw,
            kind,
            sparse,
            sparse_selector,
            saturate,
            d_type,
            a_type,
            b_type,
            negate_a,
            negate_b,
            a_major,
            b_major,
            m: ((raw >> 24) & 0x1F) << 4,
            n: ((raw >> 17) & 0x3F) << 3,
            max_shift,
            scale_type,
            sfa_id,
            sfb_id,
            k96,
        })
    }

    /// K of one instruction: 256 bits of dense K per row (f16 16, tf32 8, 8/6/4-bit 32;
    /// mxf4/mxf4nvf4 64 because two e2m1 share a byte), doubled when sparse;
    /// 96 with the mxf4 K-size bit.
    pub fn k(&self) -> u32 {
        let dense = match self.kind {
            MmaKind::F16 => 16,
            MmaKind::Tf32 => 8,
            MmaKind::F8f6f4 | MmaKind::I8 | MmaKind::MxF8f6f4 => 32,
            MmaKind::MxF4 | MmaKind::MxF4Nvf4 => {
                if self.k96 {
                    96
                } else {
                    64
                }
            }
        };
        if self.sparse {
            dense * 2
        } else {
            dense
        }
    }

    /// M, N legality for the kind, cta_group and variant (mma.md §5), the `.ws`-only
    /// max-shift, and the K = 96 bit.
    pub fn check_shape(&self, ctx: MmaShapeContext) -> Result<(), DescError> {
        let (m, n) = (self.m, self.n);
        let bad = Err(DescError::IdescShape { m, n });
        if self.max_shift != 0 && !ctx.ws {
            return Err(DescError::IdescMaxShift);
        }
        if self.k96 && !(ctx.allow_k96 && m == 256 && ctx.cta_group == 2 && !self.sparse) {
            return Err(DescError::IdescK96);
        }
        let step = |lo: u32, s: u32| n >= lo && n <= 256 && n % s == 0;
        if ctx.ws {
            if ctx.cta_group != 1 || self.kind.is_block_scaled() {
                return bad;
            }
            let n_ok = if self.sparse {
                matches!(n, 64 | 128)
            } else {
                matches!(n, 64 | 128 | 256)
            };
            return if matches!(m, 32 | 64 | 128) && n_ok {
                Ok(())
            } else {
                bad
            };
        }
        let m_ok = match (self.kind.is_block_scaled(), ctx.cta_group) {
            (false, 1) => matches!(m, 64 | 128),
            (false, 2) => matches!(m, 128 | 256),
            (true, 1) => m == 128,
            (true, 2) => m == 256 || (m == 128 && !self.sparse),
            _ => false,
        };
        let n_ok = match (self.kind, ctx.cta_group) {
            (MmaKind::I8, 1) => matches!(n, 8 | 16 | 24 | 32) || step(48, 16),
            (MmaKind::I8, _) => step(32, 32),
            (_, 1) => step(8, 8),
            _ => step(16, 16),
        };
        // 8-bit MN-major B restricts N (Table 52).
        let transposed_8bit_b = self.b_major == Major::MN && self.b_type.bits() == 8;
        let n_ok = n_ok
            && (!transposed_8bit_b
                || if ctx.cta_group == 1 {
                    step(16, 16)
                } else {
                    step(32, 32)
                });
        if m_ok && n_ok {
            Ok(())
        } else {
            bad
        }
    }

    /// Table 54: which swizzle modes an operand of this element type may use in each
    /// major-ness. K-major accepts every mode; MN-major tf32 needs 128B-with-32B-atoms, and
    /// MN-major 8/16-bit types accept every mode but that one.
    pub fn check_operand_swizzle(
        elem: ElemType,
        major: Major,
        swizzle: super::Swizzle,
        operand: char,
    ) -> Result<(), DescError> {
        let atom32 = swizzle == super::Swizzle::B128Atom32;
        let ok = match major {
            Major::K => true,
            Major::MN => (elem.bits() == 32) == atom32,
        };
        if ok {
            Ok(())
        } else {
            Err(DescError::MajorSwizzle { operand })
        }
    }
}
