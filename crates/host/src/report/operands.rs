//! Which operand of an instruction a rule is about, so the carets go under `[taddr]`, the
//! nCols, the mbarrier or the instruction descriptor rather than the whole line.
//!
//! The engine reports a rule at an instruction's span; the parser keeps a span per operand.
//! [`OperandTable`] records, per instruction of a PTX text, its family and its operands'
//! spans (flat, sorted, one binary search per finding); [`pick`] chooses per rule and
//! family. A rule that is about the instruction as a whole (a divergent `.aligned`, an
//! allocation after relinquish) or whose operand cannot be told from the rule alone keeps
//! the whole instruction: a caret under the wrong operand would be worse than none.

use tmemu_ptx::ast::{Block, Instruction, ModuleItem, OperandKind, Statement};
use tmemu_ptx::span::Span;
use tmemu_tmem::rules;

/// What kind of instruction, as far as choosing an operand needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Alloc,
    Dealloc,
    /// tcgen05.ld / st / cp / shift: `[taddr]` is the TMEM address.
    TmemAccess,
    Mma,
    Commit,
    /// mbarrier.init/arrive/expect_tx/test_wait/try_wait/...: `init` separately (its count).
    Mbarrier {
        init: bool,
    },
    /// cp.async.bulk.tensor / cp.reduce.async.bulk.tensor.
    TensorCopy,
    Barrier,
    Other,
}

impl Family {
    fn of(i: &Instruction<'_>) -> Family {
        let first = i.modifiers.iter().next().unwrap_or("");
        match i.name {
            "tcgen05" => match first {
                "alloc" => Family::Alloc,
                "dealloc" => Family::Dealloc,
                "ld" | "st" | "cp" | "shift" => Family::TmemAccess,
                "mma" => Family::Mma,
                "commit" => Family::Commit,
                _ => Family::Other,
            },
            "mbarrier" => Family::Mbarrier {
                init: first == "init",
            },
            "cp" | "cp.reduce" if i.modifiers.contains("tensor") => Family::TensorCopy,
            "bar" | "barrier" => Family::Barrier,
            _ => Family::Other,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct OperandSite {
    span: Span,
    /// `[...]`
    address: bool,
    /// `[tmap, {c0, c1}]`: an address with further items (a tensor map and coordinates).
    with_rest: bool,
}

/// Per instruction (by span), its family and operand spans.
#[derive(Clone, Debug, Default)]
pub struct OperandTable {
    /// (instruction span, family, range into `operands`), sorted by span start.
    insts: Vec<(Span, Family, u32, u32)>,
    operands: Vec<OperandSite>,
}

impl OperandTable {
    pub fn from_module(module: &tmemu_ptx::ast::Module<'_>) -> OperandTable {
        let mut t = OperandTable::default();
        for item in &module.items {
            if let ModuleItem::Function(f) = item {
                if let Some(body) = &f.body {
                    t.collect(body);
                }
            }
        }
        t.insts.sort_by_key(|i| i.0.start);
        t
    }

    fn collect(&mut self, block: &Block<'_>) {
        for s in &block.statements {
            match s {
                Statement::Instruction(i) => {
                    let first = self.operands.len() as u32;
                    for o in &i.operands {
                        let (address, with_rest) = match &o.kind {
                            OperandKind::Address(a) => (true, !a.rest.is_empty()),
                            _ => (false, false),
                        };
                        self.operands.push(OperandSite {
                            span: o.span,
                            address,
                            with_rest,
                        });
                    }
                    let end = self.operands.len() as u32;
                    self.insts.push((i.span, Family::of(i), first, end));
                }
                Statement::Block(b) => self.collect(b),
                _ => {}
            }
        }
    }

    /// The span of the operand `rule` is about in the instruction at `span` (the engine's
    /// instruction span), when the rule names one.
    pub fn operand(&self, rule: &str, message: &str, span: Span) -> Option<Span> {
        let i = self.insts.partition_point(|x| x.0.start <= span.start);
        let &(inst, family, a, b) = self.insts.get(i.checked_sub(1)?)?;
        if span.start >= inst.end.max(inst.start + 1) {
            return None;
        }
        let ops = &self.operands[a as usize..b as usize];
        let s = pick(rule, message, family, ops)?.span;
        // an operand spanning the whole instruction says nothing more
        (s.end > s.start && (s.start, s.end) != (inst.start, inst.end)).then_some(s)
    }
}

/// The operand of `ops` that `rule` is about, for an instruction of `family`.
fn pick<'o>(
    rule: &str,
    message: &str,
    family: Family,
    ops: &'o [OperandSite],
) -> Option<&'o OperandSite> {
    let addresses = || ops.iter().filter(|o| o.address);
    let only_address = || {
        let mut it = addresses();
        let first = it.next();
        first.filter(|_| it.next().is_none())
    };
    let tensor_map = || addresses().find(|o| o.with_rest);
    // the mbarrier of a tensor copy: the plain address after the tensor map
    let tma_mbarrier = || {
        ops.iter()
            .skip_while(|o| !o.with_rest)
            .skip(1)
            .find(|o| o.address && !o.with_rest)
    };
    let id = |r: &rules::Rule| r.id == rule;
    use Family::*;
    match family {
        Alloc | Dealloc
            if id(&rules::NCOLS_NOT_POWER_OF_TWO)
                || id(&rules::NCOLS_NOT_MULTIPLE_OF_32)
                || id(&rules::NCOLS_OUT_OF_RANGE)
                || id(&rules::NCOLS_NOT_UNIFORM)
                || id(&rules::NCOLS_GROWS)
                || id(&rules::DEALLOC_NCOLS_MISMATCH) =>
        {
            ops.get(1)
        }
        Alloc if id(&rules::ALLOC_DST_NOT_SHARED_CTA) => ops.first(),
        Dealloc if id(&rules::DEALLOC_NOT_LIVE) || id(&rules::TADDR_NOT_UNIFORM) => ops.first(),
        TmemAccess
            if id(&rules::LDST_TADDR_NOT_UNIFORM)
                || id(&rules::LANE_QUARTER_VIOLATION)
                || id(&rules::SHIFT_LANE_NOT_MULTIPLE_OF_32)
                || id(&rules::ACCESS_UNALLOCATED_COLUMNS) =>
        {
            addresses().next()
        }
        // which of the MMA's TMEM operands: the engine's message names it (`D at taddr`,
        // `A at taddr`)
        Mma if id(&rules::ACCESS_UNALLOCATED_COLUMNS) => {
            if message.contains(": D at taddr") || message.starts_with("D at taddr") {
                ops.first()
            } else if message.contains(": A at taddr") || message.starts_with("A at taddr") {
                ops.get(1).filter(|o| o.address)
            } else {
                None
            }
        }
        Mma if id(&rules::MMA_LANE_ALIGN) => ops.first(),
        // `[d], a, b, idesc, ...`: every form has the instruction descriptor fourth
        Mma if ("TM0306"..="TM0312").contains(&rule) && rule.len() == 6 => ops.get(3),
        Commit if id(&rules::COMMIT_MBAR_NOT_SHARED_CLUSTER) => addresses().next(),
        TensorCopy
            if id(&rules::TMA_COORDS_RANK)
                || id(&rules::TMA_MAP_INVALID)
                || id(&rules::TMA_GLOBAL_FAULT) =>
        {
            tensor_map()
        }
        TensorCopy if id(&rules::TMA_SMEM_MISALIGNED) || id(&rules::TMA_SMEM_OUT_OF_BOUNDS) => {
            addresses().find(|o| !o.with_rest)
        }
        TensorCopy if id(&rules::TMA_MBARRIER_MISALIGNED) || rule.starts_with("TM022") => {
            tma_mbarrier()
        }
        Mbarrier { init: true } if id(&rules::MBARRIER_COUNT_RANGE) => ops.get(1),
        // arrive's count / expect_tx's tx-count: the last operand, when it is not the address
        Mbarrier { .. } if id(&rules::MBARRIER_COUNT_RANGE) || id(&rules::MBARRIER_TX_RANGE) => {
            ops.last().filter(|o| !o.address)
        }
        Mbarrier { .. } if rule.starts_with("TM022") => addresses().next(),
        Barrier if id(&rules::INVALID_BARRIER_OPERAND) => {
            if message.starts_with("barrier id") {
                ops.first()
            } else if message.contains("count") {
                ops.get(1)
            } else {
                None
            }
        }
        // memory accesses and races: the address, when the instruction has only one
        Other | TmemAccess | Mbarrier { .. }
            if id(&rules::OUT_OF_BOUNDS_ACCESS)
                || id(&rules::MISALIGNED_ACCESS)
                || id(&rules::ADDRESS_OUTSIDE_SPACE)
                || (("TM0204"..="TM0213").contains(&rule) && rule.len() == 6) =>
        {
            only_address()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = r#".version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.shared .align 8 .b8 bar[8];
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd1], 48;
	tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r3}, [%r1];
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 32;
	mbarrier.init.shared::cta.b64 [bar], %r2;
	mbarrier.arrive.shared::cta.b64 %rd2, [bar];
	st.global.u32 [%rd1+128], %r1;
	bar.sync %r4, %r5;
	ret;
}
"#;

    fn inst_span(t: &OperandTable, needle: &str) -> Span {
        let start = PTX.find(needle).unwrap() as u32;
        t.insts.iter().find(|i| i.0.start == start).unwrap().0
    }

    fn operand_text(rule: &rules::Rule, message: &str, needle: &str) -> Option<&'static str> {
        let m = tmemu_ptx::parse(PTX).unwrap();
        let t = OperandTable::from_module(&m);
        let s = t.operand(rule.id, message, inst_span(&t, needle))?;
        Some(&PTX[s.start as usize..s.end as usize])
    }

    #[test]
    fn each_rule_points_at_its_operand() {
        assert_eq!(
            operand_text(&rules::NCOLS_NOT_POWER_OF_TWO, "", "tcgen05.alloc"),
            Some("48")
        );
        assert_eq!(
            operand_text(&rules::ACCESS_UNALLOCATED_COLUMNS, "", "tcgen05.ld"),
            Some("[%r1]")
        );
        assert_eq!(
            operand_text(&rules::LANE_QUARTER_VIOLATION, "", "tcgen05.ld"),
            Some("[%r1]")
        );
        assert_eq!(
            operand_text(&rules::DEALLOC_NOT_LIVE, "", "tcgen05.dealloc"),
            Some("%r1")
        );
        assert_eq!(
            operand_text(&rules::DEALLOC_NCOLS_MISMATCH, "", "tcgen05.dealloc"),
            Some("32")
        );
        assert_eq!(
            operand_text(&rules::MBARRIER_COUNT_RANGE, "", "mbarrier.init"),
            Some("%r2")
        );
        assert_eq!(
            operand_text(&rules::MBARRIER_OVERARRIVE, "", "mbarrier.arrive"),
            Some("[bar]")
        );
        assert_eq!(
            operand_text(&rules::OUT_OF_BOUNDS_ACCESS, "", "st.global"),
            Some("[%rd1+128]")
        );
        assert_eq!(
            operand_text(
                &rules::INVALID_BARRIER_OPERAND,
                "barrier id 17 is not",
                "bar.sync"
            ),
            Some("%r4")
        );
    }

    #[test]
    fn rules_about_the_whole_instruction_point_at_none() {
        assert_eq!(
            operand_text(&rules::ALLOC_AFTER_RELINQUISH, "", "tcgen05.alloc"),
            None
        );
        assert_eq!(
            operand_text(&rules::DIVERGENT_ALIGNED_INSTRUCTION, "", "bar.sync"),
            None
        );
        // an instruction span the table does not know
        let m = tmemu_ptx::parse(PTX).unwrap();
        let t = OperandTable::from_module(&m);
        assert_eq!(t.operand("TM0105", "", Span::DUMMY), None);
    }
}
