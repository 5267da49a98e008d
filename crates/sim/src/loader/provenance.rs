//! Which kernel parameters global memory may be written through: a flow-insensitive analysis
//! of the address provenance of every register, over the kernel and the functions it calls.
//!
//! Why: the race observer skips the weak global reads of buffers a launch never writes (no
//! write, no race on those bytes), which are most of the checked run's work on a GEMM's
//! operands and an elementwise kernel's inputs (docs/arch/race.md, "Read-only buffers"). This
//! analysis names the candidates; the observer *verifies* at run time that no write lands in
//! them (the verdict is `incomplete` if one does), so a mistake here costs speed or a verdict,
//! never a missed race in a complete one.
//!
//! The model: a register's provenance is the set of kernel parameters its value may derive
//! from. `ld.param` of a kernel parameter (directly, or through a register holding a
//! parameter's address) gives that parameter; the address of a parameter (`mov %rd, param`)
//! too; every instruction gives its destination the union of its sources. Memory is one
//! place: every value any instruction stores (to any space, TMEM included, and the new field
//! of `tensormap.replace`) joins its provenance, and every other load gives it back, so a
//! pointer the kernel spills, passes to a function or writes into a tensor map is followed.
//! The launch spec puts device addresses only in parameters, never in buffers, so memory
//! holds no pointer to a spec buffer that the kernel did not put there. A global write (a
//! store, atomic or reduction that is not to shared, local or parameter memory, a bulk or
//! tensor copy whose destination is global, `tensormap.replace`/`cp_fenceproxy`, `discard`,
//! surface stores, and any instruction with an address operand this module does not know)
//! adds the provenance of its address; a tensor copy's destination is named by its tensor map,
//! which may lie in memory, so it adds memory's provenance as well.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::NameHasher;

use tmemu_ptx::ast::{Function, Instruction, OperandKind, Statement};

/// Bit of "unknown": a parameter past the 127th.
const UNKNOWN: u128 = 1 << 127;

/// One instruction of the analysis: its operands' names interned (registers and parameter
/// symbols), so the fixpoint walks arrays instead of hashing names.
struct Step {
    /// Ids written (the destination operand's names).
    dst: std::ops::Range<u32>,
    /// Ids read (the sources; for a load, the address).
    src: std::ops::Range<u32>,
    /// Ids of the values a store (or an atomic) puts into memory.
    stored: std::ops::Range<u32>,
    /// Ids of the address of a global write.
    written: std::ops::Range<u32>,
    kind: StepKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum StepKind {
    /// The destination gets the union of the sources.
    Compute,
    /// The destination gets memory's provenance.
    Load,
    /// `ld.param` of the kernel: the destination gets the address's parameters (memory's if
    /// none).
    ParamLoad,
    /// A tensor copy to global: its destination also comes from the map, which may lie in memory.
    TensorWrite,
}

/// For each kernel parameter, whether global memory may be written through it; `None` when a
/// write's address may come from anywhere (every buffer may be written).
pub(crate) fn written_params<'src>(funcs: &[&Function<'src>]) -> Option<Vec<bool>> {
    let Some(kernel) = funcs.first() else {
        return Some(Vec::new());
    };
    let params: Vec<&'src str> = (kernel.params.as_deref().unwrap_or(&[]).iter())
        .map(|p| p.name.name)
        .collect();
    // (function, name) → id; the kernel's parameters are ids 0..params.len() of function 0,
    // seeded with their own bit
    let mut ids: HashMap<(usize, &'src str), u32, BuildHasherDefault<NameHasher>> =
        HashMap::default();
    let mut seed: Vec<u128> = Vec::new();
    for (i, p) in params.iter().enumerate() {
        ids.insert((0, p), i as u32);
        seed.push(if i < 127 { 1 << i } else { UNKNOWN });
    }
    let mut refs: Vec<u32> = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut insts: Vec<(usize, &Instruction<'src>)> = Vec::new();
    for (fi, f) in funcs.iter().enumerate() {
        if let Some(body) = &f.body {
            collect(&body.statements, fi, &mut insts);
        }
    }
    for &(fi, ins) in &insts {
        let mut intern = |ops: &mut dyn Iterator<Item = &OperandKind<'src>>,
                          refs: &mut Vec<u32>| {
            let start = refs.len() as u32;
            for k in ops {
                each_name(k, &mut |n: &'src str| {
                    let next = ids.len() as u32;
                    let id = *ids.entry((fi, n)).or_insert(next);
                    if id as usize == seed.len() {
                        seed.push(0);
                    }
                    refs.push(id);
                });
            }
            start..refs.len() as u32
        };
        let dst = dest(ins);
        let has_addr = ins
            .operands
            .iter()
            .any(|o| matches!(o.kind, OperandKind::Address(_)));
        let stores = has_addr
            && !matches!(
                ins.name,
                "ld" | "ldu" | "ldmatrix" | "prefetch" | "prefetchu"
            );
        // a store's values (an atomic's operands) go to memory
        let stored = if stores {
            let mut it = (ins.operands.iter().enumerate())
                .filter(|&(i, o)| {
                    !matches!(o.kind, OperandKind::Address(_)) && dst.is_none_or(|(d, _)| i != d)
                })
                .map(|(_, o)| &o.kind);
            intern(&mut it, &mut refs)
        } else {
            0..0
        };
        let written = match global_write_address(ins) {
            Some(a) => intern(&mut std::iter::once(a), &mut refs),
            None => 0..0,
        };
        let tensor_write =
            !written.is_empty() && ins.name == "cp" && ins.modifiers.contains("tensor");
        let (dst_r, src_r, kind) = match dst {
            None => (0..0, 0..0, StepKind::Compute),
            Some((d, first_src)) => {
                let dst_r = intern(&mut std::iter::once(&ins.operands[d].kind), &mut refs);
                let mut srcs = ins.operands[first_src..].iter().map(|o| &o.kind);
                let src_r = intern(&mut srcs, &mut refs);
                let kind = if !is_load(ins.name) {
                    StepKind::Compute
                } else if ins.name == "ld" && fi == 0 && ins.modifiers.contains("param") {
                    StepKind::ParamLoad
                } else {
                    StepKind::Load
                };
                (dst_r, src_r, kind)
            }
        };
        let kind = if tensor_write {
            StepKind::TensorWrite
        } else {
            kind
        };
        steps.push(Step {
            dst: dst_r,
            src: src_r,
            stored,
            written,
            kind,
        });
    }
    let mut prov = seed;
    let union = |prov: &[u128], r: &std::ops::Range<u32>| {
        refs[r.start as usize..r.end as usize]
            .iter()
            .fold(0, |p, &i| p | prov[i as usize])
    };
    // A fixpoint: provenance only grows, bounded by 128 bits per name.
    let mut mem = 0u128;
    for _round in 0..64 {
        let mut changed = false;
        for st in &steps {
            let stored = union(&prov, &st.stored);
            if mem | stored != mem {
                mem |= stored;
                changed = true;
            }
            if st.dst.is_empty() {
                continue;
            }
            let p = match st.kind {
                StepKind::Compute | StepKind::TensorWrite => union(&prov, &st.src),
                StepKind::Load => mem,
                StepKind::ParamLoad => match union(&prov, &st.src) {
                    0 => mem,
                    p => p,
                },
            };
            if p == 0 {
                continue;
            }
            for &i in &refs[st.dst.start as usize..st.dst.end as usize] {
                let e = &mut prov[i as usize];
                if *e | p != *e {
                    *e |= p;
                    changed = true;
                }
            }
        }
        if !changed {
            let mut written = 0u128;
            for st in &steps {
                written |= union(&prov, &st.written);
                if st.kind == StepKind::TensorWrite {
                    written |= mem;
                }
            }
            if written & UNKNOWN != 0 {
                return None;
            }
            return Some((0..params.len()).map(|i| written >> i & 1 != 0).collect());
        }
    }
    None
}

fn collect<'a, 'src>(
    stmts: &'a [Statement<'src>],
    fi: usize,
    out: &mut Vec<(usize, &'a Instruction<'src>)>,
) {
    for s in stmts {
        match s {
            Statement::Instruction(i) => out.push((fi, i)),
            Statement::Block(b) => collect(&b.statements, fi, out),
            _ => {}
        }
    }
}

/// Every identifier an operand names (registers, symbols; an address's base and the items
/// after it).
fn each_name<'src>(k: &OperandKind<'src>, f: &mut impl FnMut(&'src str)) {
    match k {
        OperandKind::Ident(i) | OperandKind::Not(i) | OperandKind::SymbolOffset(i, _) => f(i.name),
        OperandKind::PredPair(a, b) => {
            f(a.name);
            f(b.name);
        }
        OperandKind::Vector(v) => v.iter().for_each(|o| each_name(&o.kind, f)),
        OperandKind::Address(a) => {
            if let Some(b) = &a.base {
                f(b.name);
            }
            a.rest.iter().for_each(|o| each_name(&o.kind, f));
        }
        _ => {}
    }
}

/// The destination operand's index and the index of the first source, for instructions whose
/// first operand is written (a register, a vector of them, a predicate pair); `None` for
/// those that write no register. Taking a source for a destination only adds provenance.
fn dest(ins: &Instruction<'_>) -> Option<(usize, usize)> {
    if matches!(
        ins.name,
        "st" | "red" | "bar" | "barrier" | "bra" | "brx" | "call" | "ret" | "exit" | "trap"
    ) || ins.operands.len() < 2
    {
        return None;
    }
    match ins.operands[0].kind {
        OperandKind::Ident(_) | OperandKind::Vector(_) | OperandKind::PredPair(..) => Some((0, 1)),
        _ => None,
    }
}

/// Instructions whose destination is read from memory (a value that may be a pointer).
fn is_load(name: &str) -> bool {
    matches!(
        name,
        "ld" | "ldu" | "atom" | "ldmatrix" | "tex" | "tld4" | "suld" | "multimem"
    ) || name.starts_with("tcgen05")
        || name.starts_with("mbarrier")
        || name.starts_with("clusterlaunchcontrol")
}

/// The address operand of an instruction that may write global memory.
fn global_write_address<'a, 'src>(ins: &'a Instruction<'src>) -> Option<&'a OperandKind<'src>> {
    let addr = ins
        .operands
        .iter()
        .find(|o| matches!(o.kind, OperandKind::Address(_)))?;
    let m = &ins.modifiers;
    let private = || {
        m.iter().any(|x| {
            matches!(
                x,
                "shared" | "shared::cta" | "shared::cluster" | "local" | "param"
            )
        })
    };
    let writes = match ins.name {
        // reads of memory, or writes of shared memory and TMEM only
        "ld"
        | "ldu"
        | "ldmatrix"
        | "prefetch"
        | "prefetchu"
        | "mbarrier"
        | "stmatrix"
        | "fence"
        | "applypriority"
        | "createpolicy"
        | "tex"
        | "tld4"
        | "suld"
        | "txq"
        | "suq"
        | "isspacep"
        | "clusterlaunchcontrol"
        | "barrier"
        | "bar"
        | "mapa"
        | "getctarank"
        | "cvta" => false,
        n if n.starts_with("tcgen05") => false,
        // st.async / red.async: shared::cluster only
        "st" | "red" if m.contains("async") => false,
        "st" | "atom" | "red" => !private(),
        "cp" => {
            // `cp{.reduce}.async{.bulk{.tensor.Nd}}.DST.SRC...`: the first space is the
            // destination; `cp.async.bulk.prefetch*` writes nothing
            if m.contains("prefetch") {
                false
            } else {
                let dst = m.iter().find(|x| {
                    matches!(*x, "global" | "shared" | "shared::cta" | "shared::cluster")
                });
                dst.is_none_or(|d| d == "global")
            }
        }
        // multimem.ld_reduce reads; multimem.st / .red write
        "multimem" => !m.contains("ld_reduce"),
        _ => true,
    };
    if !writes {
        return None;
    }
    Some(&addr.kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyse(src: &str) -> Option<Vec<bool>> {
        let m = tmemu_ptx::parse(src).unwrap();
        let funcs: Vec<&Function<'_>> = m.entries().collect();
        written_params(&funcs)
    }

    const HEAD: &str = ".version 8.8\n.target sm_100a\n.address_size 64\n";

    #[test]
    fn stores_mark_their_pointer_and_loads_do_not() {
        let src = format!(
            "{HEAD}.visible .entry k(.param .u64 x, .param .u64 y, .param .u64 out, .param .u32 n)\n{{\n\
             .reg .b32 %r<4>;\n.reg .b64 %rd<8>;\n.reg .f32 %f<4>;\n\
             ld.param.u64 %rd1, [x];\nld.param.u64 %rd2, [y];\nld.param.u64 %rd3, [out];\n\
             ld.param.u32 %r1, [n];\nmov.u32 %r2, %tid.x;\n\
             mul.wide.u32 %rd4, %r2, 4;\n\
             add.s64 %rd5, %rd1, %rd4;\nadd.s64 %rd6, %rd2, %rd4;\nadd.s64 %rd7, %rd3, %rd4;\n\
             ld.global.f32 %f1, [%rd5];\nld.global.f32 %f2, [%rd6];\nadd.f32 %f3, %f1, %f2;\n\
             st.global.f32 [%rd7], %f3;\nret;\n}}\n"
        );
        assert_eq!(analyse(&src), Some(vec![false, false, true, false]));
    }

    #[test]
    fn a_pointer_written_to_memory_and_loaded_back_is_followed() {
        // `out` is spilled to local memory and read back; `x` only read
        let src = format!(
            "{HEAD}.visible .entry k(.param .u64 table, .param .u64 x, .param .u64 out)\n{{\n\
             .reg .b64 %rd<8>;\n.reg .b32 %r<2>;\n.local .align 8 .b8 spill[8];\n\
             ld.param.u64 %rd1, [table];\nld.param.u64 %rd2, [x];\nld.param.u64 %rd3, [out];\n\
             ld.global.u32 %r1, [%rd2];\nst.local.u64 [spill], %rd3;\n\
             ld.local.u64 %rd4, [spill];\nst.global.u32 [%rd4], %r1;\nret;\n}}\n"
        );
        assert_eq!(analyse(&src), Some(vec![false, false, true]));
    }

    #[test]
    fn a_tensor_map_built_in_memory_writes_the_pointer_put_into_it() {
        // Triton's device-side descriptors: the map is filled in shared memory with
        // tensormap.replace, copied to global scratch and used by a TMA store
        let src = format!(
            "{HEAD}.visible .entry k(.param .u64 a, .param .u64 c, .param .u64 scratch)\n{{\n\
             .reg .b64 %rd<8>;\n.reg .b32 %r<4>;\n.shared .align 128 .b8 map[128];\n.shared .align 128 .b8 tile[1024];\n\
             ld.param.u64 %rd1, [a];\nld.param.u64 %rd2, [c];\nld.param.u64 %rd3, [scratch];\n\
             mov.u64 %rd4, map;\n\
             tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%rd4], %rd2;\n\
             tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd3], [%rd4], 128;\n\
             mov.u32 %r1, tile;\n\
             cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd3, {{%r2, %r3}}], [%r1];\n\
             ld.global.u32 %r2, [%rd1];\nret;\n}}\n"
        );
        assert_eq!(analyse(&src), Some(vec![false, true, true]));
    }

    #[test]
    fn shared_stores_and_loads_into_shared_write_no_parameter() {
        let src = format!(
            "{HEAD}.visible .entry k(.param .u64 x)\n{{\n\
             .reg .b64 %rd<4>;\n.reg .b32 %r<4>;\n.shared .align 16 .b8 buf[512];\n\
             ld.param.u64 %rd1, [x];\nmov.u32 %r1, buf;\n\
             cp.async.cg.shared.global [%r1], [%rd1], 16;\n\
             st.shared.u32 [%r1], %r2;\natom.shared.add.u32 %r3, [%r1], 1;\nret;\n}}\n"
        );
        assert_eq!(analyse(&src), Some(vec![false]));
    }

    #[test]
    fn provenance_flows_through_loops_and_selects() {
        // %rd3 becomes out's pointer only on the second pass (defined after its use)
        let src = format!(
            "{HEAD}.visible .entry k(.param .u64 x, .param .u64 out)\n{{\n\
             .reg .b64 %rd<6>;\n.reg .pred %p<2>;\n.reg .b32 %r<2>;\n\
             ld.param.u64 %rd1, [x];\n\
             L:\nst.global.u32 [%rd4], %r1;\n\
             selp.b64 %rd4, %rd3, %rd1, %p1;\n\
             ld.param.u64 %rd2, [out];\nadd.s64 %rd3, %rd2, 4;\n\
             @%p1 bra L;\nret;\n}}\n"
        );
        assert_eq!(analyse(&src), Some(vec![true, true]));
    }

    #[test]
    fn tma_stores_write_through_their_tensor_map_and_tma_loads_do_not() {
        let src = format!(
            "{HEAD}.visible .entry k(.param .align 64 .b8 a_desc[128], .param .align 64 .b8 c_desc[128])\n{{\n\
             .reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.shared .align 128 .b8 buf[1024];\n.shared .align 8 .b64 bar;\n\
             mov.u64 %rd1, a_desc;\nmov.u64 %rd2, c_desc;\nmov.u32 %r1, buf;\nmov.u32 %r2, bar;\n\
             cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {{%r3, %r4}}], [%r2];\n\
             cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd2, {{%r3, %r4}}], [%r1];\n\
             ret;\n}}\n"
        );
        assert_eq!(analyse(&src), Some(vec![false, true]));
    }

    #[test]
    fn an_unknown_instruction_with_an_address_counts_as_a_write() {
        let src = format!(
            "{HEAD}.visible .entry k(.param .u64 x)\n{{\n\
             .reg .b64 %rd<4>;\n.reg .b32 %r<2>;\n\
             ld.param.u64 %rd1, [x];\ndiscard.global.L2 [%rd1], 128;\nret;\n}}\n"
        );
        assert_eq!(analyse(&src), Some(vec![true]));
    }
}
