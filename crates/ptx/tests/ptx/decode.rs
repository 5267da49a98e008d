//! Typed modifier decoding: exact field values for hand-picked forms (from the PTX ISA syntax
//! in shared/spec), and every tcgen05 / ld / st instruction of the corpus decodes.

use crate::common;

use tmemu_ptx::ast::{Instruction, ScalarType, StateSpace, Statement};
use tmemu_ptx::decode::*;

/// Parses one instruction inside a minimal module. The text is leaked so the returned tree
/// can borrow it for `'static` (a few bytes per test).
fn instr(text: &str) -> Instruction<'static> {
    let src: &'static str = Box::leak(
        format!(".version 9.0\n.target sm_100a\n.entry k() {{ {text} }}").into_boxed_str(),
    );
    let m = tmemu_ptx::parse(src).unwrap();
    let f = m.functions().next().unwrap();
    match &f.body.as_ref().unwrap().statements[0] {
        Statement::Instruction(i) => i.clone(),
        other => panic!("not an instruction: {other:?}"),
    }
}

#[test]
fn ld_global_nc_v4_b32() {
    let i = instr("ld.global.nc.v4.b32 {%r1, %r2, %r3, %r4}, [%rd1];");
    let a = decode_memory(&i).unwrap();
    assert_eq!(a.space, Some(StateSpace::Global));
    assert!(a.non_coherent);
    assert_eq!(a.vector, Some(4));
    assert_eq!(a.ty, Some(ScalarType::B32));
    assert_eq!(a.cache, None);
}

#[test]
fn ld_with_cache_hint_and_semantics() {
    let i = instr("ld.relaxed.gpu.global.L1::evict_last.L2::cache_hint.u32 %r1, [%rd1], %rd2;");
    let a = decode_memory(&i).unwrap();
    assert_eq!(a.sem, Some(Semantics::Relaxed));
    assert_eq!(a.scope, Some(Scope::Gpu));
    assert_eq!(a.eviction, Some(Eviction::L1EvictLast));
    assert!(a.l2_cache_hint);
    let e = decode_memory(&instr("ld.global.bogus.u32 %r1, [%rd1];")).unwrap_err();
    assert_eq!(e.modifier, "bogus");
    assert_eq!(
        e.to_string(),
        "unsupported: `ld.global.bogus.u32` (modifier `bogus`)"
    );
}

#[test]
fn atom_ops() {
    let a = decode_memory(&instr("atom.global.cas.b32 %r1, [%rd1], %r2, %r3;")).unwrap();
    assert_eq!(a.op, Some(AtomOp::Cas));
    let a = decode_memory(&instr("red.shared.add.noftz.f16 [%r1], %h1;")).unwrap();
    assert_eq!(
        (a.op, a.space, a.ty),
        (
            Some(AtomOp::Add),
            Some(StateSpace::Shared),
            Some(ScalarType::F16)
        )
    );
}

#[test]
fn modifier_set_families() {
    let s = ModifierSet::of(&instr("cvt.rn.satfinite.f16.f32 %h1, %f1;"));
    assert_eq!(s.rounding, Some(Rounding::Rn));
    assert!(s.has(Flag::Sat));
    assert_eq!(
        s.types.iter().collect::<Vec<_>>(),
        [ScalarType::F16, ScalarType::F32]
    );
    let s = ModifierSet::of(&instr(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];",
    ));
    assert_eq!(
        s.spaces.iter().collect::<Vec<_>>(),
        [StateSpace::SharedCluster, StateSpace::Global]
    );
    assert_eq!(
        s.others.iter().collect::<Vec<_>>(),
        [
            "async",
            "bulk",
            "tensor",
            "2d",
            "mbarrier::complete_tx::bytes"
        ]
    );
    let s = ModifierSet::of(&instr("setp.lt.and.u32 %p1, %r1, %r2, %p2;"));
    assert_eq!((s.cmp, s.bool_op), (Some(CmpOp::Lt), Some(BoolOp::And)));
}

#[test]
fn tcgen05_forms() {
    let t = decode_tcgen05(&instr(
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;",
    ))
    .unwrap();
    assert_eq!(
        (t.op, t.cta_group, t.space),
        (Tcgen05Op::Alloc, Some(1), Some(StateSpace::SharedCta))
    );
    assert!(t.sync && t.aligned);

    let t = decode_tcgen05(&instr(
        "tcgen05.ld.sync.aligned.16x32bx2.x2.pack::16b.b32 {%r1, %r2}, [%r3], 2;",
    ))
    .unwrap();
    assert_eq!(
        (t.op, t.shape, t.num, t.pack_16b),
        (Tcgen05Op::Ld, Some(LdStShape::S16x32bx2), Some(2), true)
    );

    let t = decode_tcgen05(&instr(
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.abs.NaN.f32 {%r1, %r2}, %r3, [%r4];",
    ))
    .unwrap();
    assert_eq!(
        (t.op, t.red, t.abs, t.nan, t.ty),
        (
            Tcgen05Op::LdRed,
            Some(RedOp::Min),
            true,
            true,
            Some(ScalarType::F32)
        )
    );

    let t = decode_tcgen05(&instr(
        "tcgen05.cp.cta_group::2.128x256b.warpx2::02_13.b8x16.b6x16_p32 [%r1], %rd1;",
    ))
    .unwrap();
    assert_eq!(t.cp_shape, Some(CpShape::S128x256b));
    assert_eq!(t.multicast, Some(CpMulticast::Warpx2_02_13));
    assert_eq!(t.cp_src_format, Some(CpSrcFormat::B6x16P32));

    let t = decode_tcgen05(&instr(
        "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16.collector::a::fill [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;",
    ))
    .unwrap();
    assert_eq!(
        (t.op, t.kind, t.block_scale),
        (Tcgen05Op::Mma, Some(MmaKind::Mxf4nvf4), true)
    );
    assert_eq!(
        (t.scale_vec, t.collector),
        (
            Some(ScaleVec::Block16),
            Some(Collector::A(CollectorOp::Fill))
        )
    );

    let t = decode_tcgen05(&instr("tcgen05.mma.ws.sp.cta_group::1.kind::i8.collector::b2::lastuse [%r1], %rd1, %rd2, [%r5], %r2, %p1;")).unwrap();
    assert_eq!(
        (t.op, t.collector),
        (
            Tcgen05Op::MmaWsSp,
            Some(Collector::B(2, CollectorOp::LastUse))
        )
    );

    let t = decode_tcgen05(&instr("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r1], %rs1;")).unwrap();
    assert!(t.mbarrier_arrive_one && t.multicast_cluster);
    assert_eq!((t.cta_group, t.ty), (Some(2), Some(ScalarType::B64)));

    let t = decode_tcgen05(&instr("tcgen05.shift.down.cta_group::1 [%r1];")).unwrap();
    assert!(t.down);
    assert_eq!(
        decode_tcgen05(&instr("tcgen05.wait::st.sync.aligned;"))
            .unwrap()
            .op,
        Tcgen05Op::WaitSt
    );
    assert_eq!(
        decode_tcgen05(&instr("tcgen05.fence::after_thread_sync;"))
            .unwrap()
            .op,
        Tcgen05Op::FenceAfterThreadSync
    );
}

#[test]
fn tcgen05_rejects_unknown_and_repeated_qualifiers() {
    for (text, bad) in [
        ("tcgen05.ld.sync.aligned.16x8b.x1.b32 %r1, [%r2];", "16x8b"),
        ("tcgen05.ld.sync.aligned.32x32b.x3.b32 %r1, [%r2];", "x3"),
        (
            "tcgen05.alloc.cta_group::1.cta_group::2.sync.aligned.b32 [%r1], 32;",
            "cta_group::2",
        ),
        (
            "tcgen05.mma.cta_group::1.kind::f32 [%r1], %rd1, %rd2, %r2, %p1;",
            "kind::f32",
        ),
        ("tcgen05.teleport.cta_group::1;", "teleport"),
        (
            "tcgen05.mma.cta_group::1.kind::f16.collector::c::fill [%r1], %rd1, %rd2, %r2, %p1;",
            "collector::c::fill",
        ),
    ] {
        let e = decode_tcgen05(&instr(text)).unwrap_err();
        assert_eq!(e.modifier, bad, "{text}");
    }
}

/// Misplaced but well-spelled qualifiers decode, so the checker can name the rule (TM0404,
/// TM0407, TM0411) instead of the loader calling the form unsupported.
#[test]
fn tcgen05_records_misplaced_qualifiers() {
    let t = decode_tcgen05(&instr(
        "tcgen05.st.sync.aligned.32x32b.x1.pack::16b.b32 [%r1], {%r2};",
    ))
    .unwrap();
    assert!(t.pack_16b && !t.unpack_16b);
    let t = decode_tcgen05(&instr(
        "tcgen05.cp.cta_group::1.128x256b.b6x16_p32 [%r1], %rd1;",
    ))
    .unwrap();
    assert_eq!(
        (t.cp_src_format, t.cp_dst_b8x16),
        (Some(CpSrcFormat::B6x16P32), false)
    );
    let t = decode_tcgen05(&instr(
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cluster.b32 [%r1], 32;",
    ))
    .unwrap();
    assert_eq!(t.space, Some(StateSpace::SharedCluster));
    let t = decode_tcgen05(&instr(
        "tcgen05.alloc.cta_group::1.shared::cta.b32 [%r1], 32;",
    ))
    .unwrap();
    assert!(!t.sync && !t.aligned);
}

fn for_each_instruction<'a>(stmts: &'a [Statement<'a>], f: &mut dyn FnMut(&'a Instruction<'a>)) {
    for s in stmts {
        match s {
            Statement::Instruction(i) => f(i),
            Statement::Block(b) => for_each_instruction(&b.statements, f),
            _ => {}
        }
    }
}

#[test]
fn every_corpus_tcgen05_and_memory_instruction_decodes() {
    let (mut tc, mut mem) = (0, 0);
    for path in common::good_corpus_files() {
        let src = common::read_text(&path);
        let m = tmemu_ptx::parse(&src).unwrap();
        for func in m.functions() {
            let Some(body) = &func.body else { continue };
            for_each_instruction(&body.statements, &mut |i| {
                if i.name == "tcgen05" {
                    decode_tcgen05(i)
                        .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i.span));
                    tc += 1;
                }
                // `st.async`/`red.async` and `st.bulk` are not plain memory forms: the engine's
                // loader decodes them itself (crates/sim/src/loader/st_async.rs, st_bulk.rs)
                let is_async = matches!(i.name, "st" | "red") && i.modifiers.contains("async");
                let is_bulk = i.name == "st" && i.modifiers.contains("bulk");
                if matches!(i.name, "ld" | "st" | "ldu" | "red" | "atom") && !is_async && !is_bulk {
                    decode_memory(i)
                        .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i.span));
                    mem += 1;
                }
            });
        }
    }
    eprintln!("decoded {tc} tcgen05 and {mem} memory instructions");
    assert!(tc > 0 && mem > 0);
}
