//! `getctarank{.shared::cluster}.{u32,u64} d, a` (PTX ISA §9.7.9.24, sm_90+): "the rank of
//! the CTA which contains the address specified in operand a". CuTe DSL and CUTLASS use it to
//! address a peer CTA's shared memory in a cluster.
//!
//! In tmemu's address model (see `mem`) a 32-bit shared::cluster address carries its CTA's
//! cluster rank in bits 24 and up, and a generic shared address is `SHARED_WINDOW` plus that;
//! so the rank is read from the address. A shared variable operand (`getctarank.shared::cluster
//! d, var(+imm)`) names the executing CTA's own variable: the loader decodes that form as a
//! read of `%cluster_ctarank`.
//!
//! An address that is no shared memory of the cluster (a generic address outside the shared
//! window, or a rank at or past the cluster size) has no rank: the ISA requires a valid shared
//! memory address, so this is reported as TM0503 (address-outside-space) and `d` gets the
//! rank bits anyway (the hardware result is undefined; the run goes on).

use super::{Ctx, Flow, Warp};
use crate::error::rules;
use crate::mem::{self, classify, Window};
use crate::observer::Observer;
use crate::program::Any;

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    generic: bool,
    d: Any,
    a: Any,
) -> Flow {
    let n = cx.ctas.len();
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let v = w.read_any(a, l);
        let shared = if generic {
            match classify(v) {
                Window::Shared(s) => Some(s),
                _ => None,
            }
        } else {
            Some(v as u32)
        };
        let rank = shared.map(|s| s >> 24);
        match rank {
            Some(r) if (r as usize) < n => w.write_any(d, l, r as u64),
            _ => {
                let pc = w.cur_pc;
                let why = match rank {
                    Some(r) => format!("it names CTA rank {r}, but the cluster has {n} CTAs"),
                    None => "it is not in the generic window of shared memory".to_string(),
                };
                cx.diag(
                    w,
                    pc,
                    1 << l,
                    rules::BAD_ADDRESS_SPACE,
                    format!(
                        "getctarank of address {v:#x} (lane {l}), which is no shared memory of \
                         this cluster: {why}"
                    ),
                );
                let bits = shared.unwrap_or((v.wrapping_sub(mem::SHARED_WINDOW)) as u32) >> 24;
                w.write_any(d, l, bits as u64);
            }
        }
    }
    Flow::Next
}
