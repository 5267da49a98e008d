//! TMA and bulk reductions from many CTAs into the same global elements, on two worker threads.
//! The ISA performs each element's reduction with `.relaxed.gpu` semantics, i.e. as one
//! indivisible update (PTX ISA §9.7.9.25.4), so N CTAs each adding 1.0 to a tile must leave
//! exactly N there. The engine used to read, add and write back without atomicity, and CTAs
//! on different worker threads lost updates (found by the holdout kernel
//! ho6_splitk_desc_atomic: split-K partial tiles meeting through a descriptor atomic_add).

use tmemu_sim::{install_globals, load, run, GlobalMemory, Launch, RunOptions};
use tmemu_spec::tensormap::*;

/// Every CTA loads the same 32x8 f32 box of ones and reduce-adds it into `omap` (tensor form)
/// and its first 1 KiB into `acc2` (non-tensor bulk form).
const REDUCE_MANY: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry tma_red_many(.param .align 64 .b8 tmap[128], .param .align 64 .b8 omap[128],
    .param .u64 acc2)
{
    .shared .align 1024 .b8 buf[1024];
    .shared .align 8 .b64 bar;
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [acc2];
    mov.u32 %r1, 0;
    mov.u32 %r3, %tid.x;
    setp.eq.u32 %p1, %r3, 0;
    @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 1024;
    @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [buf], [tmap, {%r1, %r1}], [bar];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
    @!%p2 bra WAIT;
    @%p1 cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [omap, {%r1, %r1}], [buf];
    @%p1 cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [buf], 1024;
    @%p1 cp.async.bulk.commit_group;
    @%p1 cp.async.bulk.wait_group 0;
    ret;
}
"#;

fn map(addr: u64) -> TensorMapDesc {
    TensorMapDesc {
        elem_type: TmElemType::F32,
        rank: 2,
        global_address: addr,
        global_dims: [32, 8, 0, 0, 0],
        global_strides: [128, 0, 0, 0],
        box_dims: [32, 8, 0, 0, 0],
        elem_strides: [1, 1, 0, 0, 0],
        interleave: Interleave::None,
        swizzle: SwizzleMode::None,
        swizzle_atomicity: SwizzleAtomicity::B16,
        oob_fill: OobFill::Zero,
        l2_promotion: L2Promotion::None,
        mode: TensorMapMode::Tile,
    }
}

#[test]
fn reductions_from_many_ctas_on_two_threads_lose_no_update() {
    const CTAS: u32 = 512;
    let m = tmemu_ptx::parse(REDUCE_MANY).expect("parse");
    let k = load(&m, REDUCE_MANY, "tma_red_many.ptx", None).expect("load");
    let opts = RunOptions {
        threads: 2,
        ..Default::default()
    };
    let ones: Vec<u8> = (0..256).flat_map(|_| 1.0f32.to_le_bytes()).collect();
    for round in 0..3 {
        let mut g = GlobalMemory::new();
        install_globals(&k, &mut g).unwrap();
        let src = g.alloc("src", &ones);
        let acc = g.alloc("acc", &[0u8; 1024]);
        let acc2 = g.alloc("acc2", &[0u8; 1024]);
        let mut p = vec![0u8; k.param_bytes as usize];
        for (pi, v) in k.params.iter().zip([
            &map(src).encode()[..],
            &map(acc).encode()[..],
            &acc2.to_le_bytes()[..],
        ]) {
            p[pi.offset as usize..pi.offset as usize + v.len()].copy_from_slice(v);
        }
        let launch = Launch {
            grid: [CTAS, 1, 1],
            block: [32, 1, 1],
            cluster: None,
            dyn_shared: 0,
            params: p,
        };
        let r = run(&k, &launch, &g, &opts).expect("launch");
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        for (name, buf) in [("tensor", acc), ("bulk", acc2)] {
            let got = g.read_buffer(buf).unwrap();
            for (i, c) in got.chunks(4).enumerate() {
                let v = f32::from_le_bytes(c.try_into().unwrap());
                assert_eq!(
                    v, CTAS as f32,
                    "{name} reduction, round {round}, element {i}"
                );
            }
        }
    }
}
