"""One tiny PTX program per sm_90/sm_100 instruction family a GEMM/attention kernel could
contain (session 6 scan, docs/arch/forms.md). Writes OUT/<case>/k.ptx + k.toml, optionally
assembles each with ptxas (all 150 assemble for sm_100a with ptxas 13.5) and runs each through
`tmemu run`, printing every case that does not end clean (exit 0).

Usage: scan.py OUT [--tmemu PATH] [--ptxas PATH]
"""
import os, subprocess, sys, argparse
ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--tmemu")
ap.add_argument("--ptxas")
args = ap.parse_args()
OUT = args.out
os.makedirs(OUT, exist_ok=True)
HDR=""".version 9.0
.target sm_100a
.address_size 64

.visible .entry k(
    .param .u64 k_out,
    .param .align 64 .b8 k_map[128]
)
{
    .reg .pred %p<16>;
    .reg .b16 %rs<16>;
    .reg .b32 %r<64>;
    .reg .f32 %f<32>;
    .reg .b64 %rd<32>;
    .reg .f64 %fd<8>;
    .shared .align 8 .b64 mbar;
    .shared .align 128 .b32 sbuf[1024];

    ld.param.u64 %rd1, [k_out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    cvt.u64.u32 %rd2, %r2;
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r7, mbar;
    mov.u32 %r30, sbuf;
    add.u32 %r31, %r30, %r2;
    setp.eq.u32 %p1, %r1, 0;
    mov.u32 %r3, 0x3f800000;
    mov.u32 %r4, 0x40000000;
    mov.b32 %f1, %r3;
    mov.b32 %f2, %r4;
    mov.u64 %rd4, k_map;
    cvta.param.u64 %rd4, %rd4;
    shl.b32 %r32, %r1, 4;
    add.u32 %r32, %r32, %r30;
    mul.wide.u32 %rd9, %r1, 16;
    add.s64 %rd9, %rd1, %rd9;
    @%p1 mbarrier.init.shared::cta.b64 [%r7], 1;
    bar.sync 0;
"""
FTR="""    st.global.u32 [%rd3], %r10;
    ret;
}
"""
cases = {}
def c(name, body, cluster=1):
    cases[name]=(body, cluster)
c("elect_sync", "elect.sync %r10|%p2, 0xffffffff;")
c("setmaxnreg", "setmaxnreg.inc.sync.aligned.u32 232;\n setmaxnreg.dec.sync.aligned.u32 40;\n mov.u32 %r10, 1;")
c("griddepcontrol", "griddepcontrol.wait;\n griddepcontrol.launch_dependents;\n mov.u32 %r10, 1;")
c("multimem_ld_reduce", "multimem.ld_reduce.relaxed.sys.global.add.u32 %r10, [%rd3];")
c("multimem_st", "multimem.st.relaxed.sys.global.u32 [%rd3], %r1; mov.u32 %r10,1;")
c("multimem_red", "multimem.red.relaxed.sys.global.add.u32 [%rd3], %r1; mov.u32 %r10,1;")
c("cp_reduce_bulk_add_f32", "@%p1 cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [%r30], 128;\n cp.async.bulk.commit_group;\n cp.async.bulk.wait_group 0;\n mov.u32 %r10,1;")
c("cp_reduce_bulk_add_noftz_f16", "@%p1 cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%rd1], [%r30], 128;\n cp.async.bulk.commit_group;\n cp.async.bulk.wait_group 0;\n mov.u32 %r10,1;")
c("cp_reduce_bulk_min_bf16", "@%p1 cp.reduce.async.bulk.global.shared::cta.bulk_group.min.bf16 [%rd1], [%r30], 128;\n cp.async.bulk.commit_group;\n cp.async.bulk.wait_group 0;\n mov.u32 %r10,1;")
c("cp_reduce_bulk_cluster_add_u32", "mapa.shared::cluster.u32 %r40, %r30, 0;\n mapa.shared::cluster.u32 %r41, %r7, 0;\n @%p1 cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%r40], [%r30], 128, [%r41];\n barrier.cluster.arrive.aligned;\n barrier.cluster.wait.aligned;\n mov.u32 %r10,1;", 2)
c("cp_reduce_bulk_tensor_add_2d", "mov.u32 %r40, 0;\n @%p1 cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd4, {%r40, %r40}], [%r30];\n cp.async.bulk.commit_group;\n cp.async.bulk.wait_group.read 0;\n mov.u32 %r10,1;")
c("tensormap_cp_fenceproxy", "@%p1 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r30], 128;\n mov.u32 %r10,1;")
c("fence_proxy_tensormap", "fence.proxy.tensormap::generic.release.gpu;\n fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;\n mov.u32 %r10,1;")
c("fence_proxy_async_variants", "fence.proxy.async;\n fence.proxy.async.shared::cta;\n fence.proxy.async.global;\n fence.proxy.async.shared::cluster;\n mov.u32 %r10,1;")
c("fence_proxy_alias", "fence.proxy.alias;\n mov.u32 %r10,1;")
c("fence_sync_restrict", "fence.acquire.sync_restrict::shared::cluster.cluster;\n fence.release.sync_restrict::shared::cta.cluster;\n mov.u32 %r10,1;")
c("fence_proxy_async_generic_sync_restrict", "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;\n mov.u32 %r10,1;")
c("mapa_u64", "cvta.shared.u64 %rd5, sbuf;\n mapa.u64 %rd6, %rd5, 1;\n cvt.u32.u64 %r10, %rd6;", 2)
c("mapa_shared_cluster", "mapa.shared::cluster.u32 %r10, %r30, 1;", 2)
c("getctarank", "mapa.shared::cluster.u32 %r11, %r30, 1;\n getctarank.shared::cluster.u32 %r10, %r11;\n cvta.shared.u64 %rd5, sbuf;\n getctarank.u64 %r12, %rd5;\n add.u32 %r10, %r10, %r12;", 2)
for m in ["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"]:
    c("prmt"+m.replace(".","_"), f"prmt.b32{m} %r10, %r1, %r4, 0x1234;")
c("redux_add", "redux.sync.add.u32 %r10, %r1, 0xffffffff;")
c("redux_minmax_s32", "redux.sync.min.s32 %r10, %r1, 0xffffffff;\n redux.sync.max.u32 %r11, %r1, 0xffffffff;\n add.u32 %r10,%r10,%r11;")
c("redux_bits", "redux.sync.and.b32 %r10, %r1, 0xffffffff;\n redux.sync.or.b32 %r11, %r1, 0xffffffff;\n redux.sync.xor.b32 %r12, %r1, 0xffffffff;\n add.u32 %r10,%r10,%r11; add.u32 %r10,%r10,%r12;")
c("redux_f32", "cvt.rn.f32.u32 %f3, %r1;\n redux.sync.min.f32 %f4, %f3, 0xffffffff;\n redux.sync.max.abs.NaN.f32 %f5, %f3, 0xffffffff;\n add.f32 %f4,%f4,%f5;\n mov.b32 %r10, %f4;")
c("match_any", "match.any.sync.b32 %r10, %r1, 0xffffffff;")
c("match_all", "and.b32 %r11, %r1, 1;\n match.all.sync.b32 %r10|%p3, %r11, 0xffffffff;")
c("match_any_b64", "cvt.u64.u32 %rd5, %r1;\n match.any.sync.b64 %r10, %rd5, 0xffffffff;")
c("activemask", "activemask.b32 %r10;")
c("nanosleep", "nanosleep.u32 100;\n nanosleep.u32 %r1;\n mov.u32 %r10,1;")
c("mbarrier_test_wait", "mbarrier.arrive.shared::cta.b64 %rd5, [%r7];\n mbarrier.test_wait.shared::cta.b64 %p3, [%r7], %rd5;\n selp.u32 %r10, 1, 0, %p3;")
c("mbarrier_test_wait_parity", "mbarrier.arrive.shared::cta.b64 %rd5, [%r7];\n mbarrier.test_wait.parity.shared::cta.b64 %p3, [%r7], 0;\n selp.u32 %r10, 1, 0, %p3;")
c("mbarrier_pending_count", ".shared .align 8 .b64 mbar2;\n @%p1 mbarrier.init.shared::cta.b64 [mbar2], 64;\n bar.sync 0;\n mbarrier.arrive.noComplete.shared::cta.b64 %rd5, [mbar2], 1;\n mbarrier.pending_count.b64 %r10, %rd5;")
c("mbarrier_try_wait_hint", "mbarrier.arrive.shared::cta.b64 %rd5, [%r7];\n mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r7], 0, 1000;\n selp.u32 %r10, 1, 0, %p3;")
c("mbarrier_arrive_drop", "@%p1 mbarrier.arrive_drop.shared::cta.b64 %rd5, [%r7];\n mov.u32 %r10,1;")
c("mbarrier_expect_complete_tx", "@%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r7], 16;\n @%p1 mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r7], 16;\n mov.u32 %r10,1;")
c("mbarrier_inval", "bar.sync 0;\n @%p1 mbarrier.inval.shared::cta.b64 [%r7];\n mov.u32 %r10,1;")
c("mbarrier_arrive_remote", "mapa.shared::cluster.u32 %r41, %r7, 0;\n @%p1 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r41];\n barrier.cluster.arrive.aligned;\n barrier.cluster.wait.aligned;\n mov.u32 %r10,1;", 2)
c("cvt_e4m3x2_f32", "cvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;\n cvt.u32.u16 %r10, %rs1;")
c("cvt_e5m2x2_f32", "cvt.rn.satfinite.e5m2x2.f32 %rs1, %f1, %f2;\n cvt.u32.u16 %r10, %rs1;")
c("cvt_f16x2_e4m3x2", "mov.u16 %rs1, 0x3838;\n cvt.rn.f16x2.e4m3x2 %r10, %rs1;")
c("cvt_e4m3x2_f16x2", "cvt.rn.satfinite.e4m3x2.f16x2 %rs1, %r3;\n cvt.u32.u16 %r10, %rs1;")
c("cvt_e2m1x2_f32", ".reg .b8 %b1;\n cvt.rn.satfinite.e2m1x2.f32 %b1, %f1, %f2;\n cvt.u32.u8 %r10, %b1;")
#c("x", "cvt.rn.satfinite.e2m1x2.f32 %rs1, %f1, %f2;\n cvt.u32.u16 %r10, %rs1;")
c("cvt_f16x2_e2m1x2", "mov.u16 %rs1, 0x23;\n .reg .b8 %b1;\n cvt.u8.u16 %b1, %rs1;\n cvt.rn.f16x2.e2m1x2 %r10, %b1;")
c("cvt_e2m3x2_f32", "cvt.rn.satfinite.e2m3x2.f32 %rs1, %f1, %f2;\n cvt.u32.u16 %r10, %rs1;")
c("cvt_e3m2x2_f32", "cvt.rn.satfinite.e3m2x2.f32 %rs1, %f1, %f2;\n cvt.u32.u16 %r10, %rs1;")
c("cvt_f16x2_e2m3x2", "mov.u16 %rs1, 0x0808;\n cvt.rn.f16x2.e2m3x2 %r10, %rs1;")
c("cvt_ue8m0x2_f32", "cvt.rz.satfinite.ue8m0x2.f32 %rs1, %f1, %f2;\n cvt.u32.u16 %r10, %rs1;")
c("cvt_bf16x2_ue8m0x2", "mov.u16 %rs1, 0x7f80;\n cvt.rn.bf16x2.ue8m0x2 %r10, %rs1;")
c("cvt_f16x2_f32", "cvt.rn.f16x2.f32 %r10, %f1, %f2;")
c("cvt_bf16x2_f32_relu_sat", "cvt.rn.relu.satfinite.bf16x2.f32 %r10, %f1, %f2;")
c("cvt_tf32_f32", "cvt.rna.satfinite.tf32.f32 %r10, %f1;")
c("cvt_rs_e4m3x4", "cvt.rs.satfinite.e4m3x4.f32 %r10, {%f1, %f2, %f1, %f2}, %r1;")
c("cvt_rs_f16x2", "cvt.rs.f16x2.f32 %r10, %f1, %f2, %r1;")
c("cvt_rs_bf16x2", "cvt.rs.relu.satfinite.bf16x2.f32 %r10, %f1, %f2, %r1;")
c("ld_nc_no_allocate", "ld.global.nc.L1::no_allocate.v4.u32 {%r10,%r11,%r12,%r13}, [%rd9];")
c("ld_evict_last", "ld.global.L1::evict_last.u32 %r10, [%rd3];")
c("ld_L2_256B", "ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%r10,%r11,%r12,%r13}, [%rd9];")
c("ld_cache_hint", "createpolicy.fractional.L2::evict_last.b64 %rd5, 1.0;\n ld.global.L2::cache_hint.u32 %r10, [%rd3], %rd5;")
c("st_cache_hint", "createpolicy.fractional.L2::evict_first.b64 %rd5, 1.0;\n st.global.L2::cache_hint.u32 [%rd3], %r1, %rd5;\n mov.u32 %r10, 1;")
c("st_no_allocate", "st.global.L1::no_allocate.u32 [%rd3], %r1;\n mov.u32 %r10, 1;")
c("ld_v8_f32", "ld.global.v8.f32 {%f3,%f4,%f5,%f6,%f7,%f8,%f9,%f10}, [%rd1];\n mov.b32 %r10, %f3;")
c("ld_v4_b64", "ld.global.v4.b64 {%rd10,%rd11,%rd12,%rd13}, [%rd1];\n cvt.u32.u64 %r10, %rd10;")
c("st_v8_b32", "st.global.v8.b32 [%rd1], {%r1,%r1,%r1,%r1,%r1,%r1,%r1,%r1};\n mov.u32 %r10, 1;")
c("st_bulk", "@%p1 st.bulk.weak.shared::cta [%r30], 256, 0;\n mov.u32 %r10, 1;")
c("discard", "discard.global.L2 [%rd1], 128;\n mov.u32 %r10, 1;")
c("applypriority", "applypriority.global.L2::evict_normal [%rd1], 128;\n mov.u32 %r10, 1;")
c("createpolicy_fractional2", "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd5, 0.5;\n cvt.u32.u64 %r10, %rd5;")
c("createpolicy_range", "createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %rd5, [%rd1], 128, 256;\n cvt.u32.u64 %r10, %rd5;")
c("prefetch", "prefetch.global.L2 [%rd3];\n prefetch.global.L1 [%rd3];\n prefetch.global.L2::evict_last [%rd3];\n prefetchu.L1 [%rd3];\n mov.u32 %r10,1;")
c("prefetch_tensormap", "prefetch.tensormap [%rd4];\n mov.u32 %r10,1;")
c("prefetch_param_tensormap", "prefetch.param.tensormap [k_map];\n mov.u32 %r10,1;")
c("bulk_prefetch_L2", "@%p1 cp.async.bulk.prefetch.L2.global [%rd1], 128;\n mov.u32 %r10,1;")
c("bulk_prefetch_tensor", "mov.u32 %r40, 0;\n @%p1 cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd4, {%r40, %r40}];\n mov.u32 %r10,1;")
c("ldmatrix", "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10,%r11,%r12,%r13}, [%r32];")
c("ldmatrix_trans", "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r10,%r11}, [%r32];")
# session 8: the 8-bit forms run; rows are 16 bytes, so each lane points at its own 16-byte row
c("ldmatrix_b8", "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r10,%r11}, [%r32];")
c("ldmatrix_b6", "ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32 {%r10}, [%r31];")
c("stmatrix", "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r32], {%r1,%r1,%r1,%r1};\n mov.u32 %r10,1;")
c("stmatrix_b8", "stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%r32], {%r1};\n ldmatrix.sync.aligned.m16n16.x2.trans.shared::cta.b8 {%r10,%r11,%r12,%r13}, [%r32];")
c("movmatrix", "movmatrix.sync.aligned.m8n8.trans.b16 %r10, %r1;")
c("cp_async_ca", "cp.async.ca.shared.global [%r31], [%rd3], 4;\n cp.async.commit_group;\n cp.async.wait_group 0;\n mov.u32 %r10,1;")
c("cp_async_cg_hint", "createpolicy.fractional.L2::evict_last.b64 %rd5, 1.0;\n cp.async.cg.shared.global.L2::cache_hint [%r32], [%rd9], 16, %rd5;\n cp.async.wait_all;\n mov.u32 %r10,1;")
c("cp_async_mbar_noinc", "cp.async.ca.shared.global [%r31], [%rd3], 4;\n cp.async.mbarrier.arrive.noinc.shared.b64 [%r7];\n mov.u32 %r10,1;")
c("bulk_s2g", "fence.proxy.async.shared::cta;\n @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r30], 128;\n cp.async.bulk.commit_group;\n cp.async.bulk.wait_group.read 0;\n mov.u32 %r10,1;")
c("bulk_s2g_hint", "createpolicy.fractional.L2::evict_last.b64 %rd5, 1.0;\n @%p1 cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd1], [%r30], 128, %rd5;\n cp.async.bulk.commit_group;\n cp.async.bulk.wait_group 0;\n mov.u32 %r10,1;")
c("bulk_g2s_cta", "@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r7], 128;\n @%p1 cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r30], [%rd1], 128, [%r7];\n L1: mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r7], 0;\n @!%p3 bra L1;\n mov.u32 %r10,1;")
c("bulk_s2s_cluster", "mapa.shared::cluster.u32 %r40, %r30, 0;\n mapa.shared::cluster.u32 %r41, %r7, 0;\n @%p1 cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r40], [%r30], 128, [%r41];\n barrier.cluster.arrive.aligned;\n barrier.cluster.wait.aligned;\n mov.u32 %r10,1;", 2)
c("barrier_cluster_relaxed", "barrier.cluster.arrive.relaxed.aligned;\n barrier.cluster.wait.aligned;\n mov.u32 %r10,1;", 2)
c("red_add_f32", "red.global.add.f32 [%rd1], %f1;\n mov.u32 %r10,1;")
c("red_v4_f32", "red.global.v4.f32.add [%rd1], {%f1,%f1,%f1,%f1};\n mov.u32 %r10,1;")
c("red_bf16x2", "red.global.add.noftz.bf16x2 [%rd1], %r3;\n mov.u32 %r10,1;")
c("atom_acq_rel", "atom.acq_rel.gpu.global.add.u32 %r10, [%rd1], 1;")
c("ld_acquire", "ld.acquire.gpu.global.u32 %r10, [%rd3];\n st.release.gpu.global.u32 [%rd3], %r10;")
c("ld_relaxed_cluster", "ld.relaxed.cluster.global.u32 %r10, [%rd3];")
c("ld_volatile", "ld.volatile.global.u32 %r10, [%rd3];")
c("ld_mmio", "ld.mmio.relaxed.sys.global.u32 %r10, [%rd3];")
c("ld_shared_cluster", "mapa.shared::cluster.u32 %r40, %r31, 1;\n barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;\n ld.shared::cluster.u32 %r10, [%r40];\n barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;", 2)
c("st_async_global", "st.async.release.gpu.global.u32 [%rd3], %r1;\n mov.u32 %r10,1;")
c("red_async_global", "red.async.release.gpu.global.add.u32 [%rd1], %r1;\n mov.u32 %r10,1;")
c("st_async_mmio", "st.async.mmio.release.sys.global.u32 [%rd3], %r1;\n mov.u32 %r10,1;")
c("shfl_sync", "shfl.sync.bfly.b32 %r10|%p3, %r1, 1, 0x1f, 0xffffffff;\n shfl.sync.idx.b32 %r11, %r1, 3, 0x1f, 0xffffffff;\n add.u32 %r10,%r10,%r11;")
c("vote_sync", "setp.gt.u32 %p3, %r1, 3;\n vote.sync.ballot.b32 %r10, %p3, 0xffffffff;\n vote.sync.any.pred %p4, %p3, 0xffffffff;\n vote.sync.uni.pred %p5, %p3, 0xffffffff;")
c("bar_variants", "bar.sync 1, 32;\n bar.arrive 2, 64;\n barrier.sync.aligned 3;\n bar.warp.sync 0xffffffff;\n setp.gt.u32 %p3, %r1, 3;\n bar.red.popc.u32 %r10, 4, %p3;")
c("barrier_arrive_named", "bar.arrive 1, 32;\n mov.u32 %r10,1;")
c("tanh", "tanh.approx.f32 %f3, %f1;\n mov.b32 %r10, %f3;")
c("ex2_f16x2", "ex2.approx.f16x2 %r10, %r3;")
c("ex2_bf16x2", "ex2.approx.ftz.bf16x2 %r10, %r3;")
c("tanh_bf16x2", "tanh.approx.bf16x2 %r10, %r3;")
c("rcp_approx_f64", "mov.f64 %fd1, 3.0;\n rcp.approx.ftz.f64 %fd2, %fd1;\n cvt.rn.f32.f64 %f3, %fd2; mov.b32 %r10, %f3;")
c("f32x2_fma", "mov.b64 %rd5, {%f1,%f2};\n fma.rn.f32x2 %rd6, %rd5, %rd5, %rd5;\n add.rn.f32x2 %rd7, %rd6, %rd5;\n mul.rz.ftz.f32x2 %rd8, %rd7, %rd5;\n sub.f32x2 %rd9, %rd8, %rd5;\n cvt.u32.u64 %r10, %rd9;")
c("max3_f32", "max.f32 %f3, %f1, %f2, %f1;\n min.NaN.f32 %f4, %f1, %f2, %f3;\n add.f32 %f3,%f3,%f4; mov.b32 %r10, %f3;")
#c("x", "max.s32 %r10, %r1, %r3, %r4;")
c("max_relu_f16x2", "max.NaN.f16x2 %r10, %r3, %r4;\n min.NaN.bf16x2 %r11, %r3, %r4; add.u32 %r10,%r10,%r11;")
c("max_xorsign", "max.xorsign.abs.f32 %f3, %f1, %f2;\n mov.b32 %r10, %f3;")
c("fma_relu_bf16", "fma.rn.relu.bf16x2 %r10, %r3, %r4, %r3;")
c("fma_relu_f16", "fma.rn.ftz.relu.f16x2 %r10, %r3, %r4, %r3;\n fma.rn.relu.f16 %rs1, %rs2, %rs3, %rs2;\n fma.rn.relu.bf16 %rs4, %rs2, %rs3, %rs2;\n cvt.u32.u16 %r11, %rs1; add.u32 %r10,%r10,%r11;")
c("mov_b128", ".reg .b128 %q<4>;\n mov.b128 %q1, {%rd1, %rd2};\n mov.b128 {%rd5,%rd6}, %q1;\n cvt.u32.u64 %r10, %rd6;")
c("st_shared_b128", ".reg .b128 %q<4>;\n mov.b128 %q1, {%rd1, %rd2};\n shl.b32 %r40, %r1, 4;\n add.u32 %r40, %r40, %r30;\n st.shared.b128 [%r40], %q1;\n ld.shared.b128 %q2, [%r40];\n mov.b128 {%rd5,%rd6}, %q2;\n cvt.u32.u64 %r10, %rd6;")
c("int_misc", "lop3.b32 %r10, %r1, %r3, %r4, 0x96;\n shf.l.wrap.b32 %r11, %r1, %r3, 5;\n bmsk.clamp.b32 %r12, %r1, 3;\n szext.clamp.s32 %r13, %r1, 3;\n dp4a.u32.u32 %r14, %r1, %r3, %r4;\n dp2a.lo.s32.s32 %r15, %r1, %r3, %r4;\n add.u32 %r10,%r10,%r11; add.u32 %r10,%r10,%r12; add.u32 %r10,%r10,%r13; add.u32 %r10,%r10,%r14; add.u32 %r10,%r10,%r15;")
c("bfind_fns", "bfind.u32 %r10, %r1;\n fns.b32 %r11, 0xffffffff, %r1, 1;\n brev.b32 %r12, %r1;\n add.u32 %r10,%r10,%r11; add.u32 %r10,%r10,%r12;")
c("isspacep", "cvta.shared.u64 %rd5, sbuf;\n isspacep.shared::cluster %p3, %rd5;\n isspacep.shared::cta %p4, %rd5;\n isspacep.global %p5, %rd5;\n selp.u32 %r10,1,0,%p3;")
c("sregs", "mov.u32 %r10, %clusterid.x;\n mov.u32 %r11, %cluster_nctarank;\n mov.u32 %r12, %smid;\n mov.u64 %rd5, %globaltimer;\n mov.u64 %rd6, %clock64;\n mov.u32 %r13, %dynamic_smem_size;\n mov.u32 %r14, %total_smem_size;\n mov.u32 %r15, %lanemask_lt;\n mov.u32 %r16, %warpid;\n mov.u32 %r17, %nsmid;\n mov.u32 %r18, %cluster_ctaid.x;\n mov.u32 %r19, %nclusterid.x;\n mov.u32 %r20, %aggr_smem_size;\n mov.u64 %rd7, %current_graph_exec;\n mov.u32 %r21, %clock_hi;\n mov.u32 %r27, %globaltimer_lo;\n mov.u32 %r22, %clock;\n mov.u32 %r23, %cluster_nctaid.x;\n mov.u32 %r24, %nwarpid;\n mov.u32 %r25, %laneid;\n mov.u32 %r26, %gridid;\n add.u32 %r10,%r10,%r15;")
# session 7: the driver-defined registers load as unsupported (incomplete), not bad input
c("sregs_reserved_smem", "mov.u32 %r10, %reserved_smem_offset_begin;\n mov.u32 %r11, %reserved_smem_offset_cap;\n add.u32 %r10,%r10,%r11;")
c("mov_pred_explicit_cluster", "mov.pred %p3, %is_explicit_cluster;\n selp.u32 %r10,1,0,%p3;")
c("trap_not_taken", "setp.gt.u32 %p3, %r1, 100;\n @%p3 trap;\n mov.u32 %r10,1;")
c("pmevent", "pmevent 1;\n mov.u32 %r10,1;")
c("cp_async_bulk_tensor_cta_group2", "mov.u32 %r40, 0;\n @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r7], 0;\n mov.u32 %r10,1;")
c("tile_gather4", "mov.u32 %r40, 0;\n @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r7], 256;\n @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [%r30], [%rd4, {%r40, %r40, %r40, %r40, %r40}], [%r7];\n L1: mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r7], 0;\n @!%p3 bra L1;\n mov.u32 %r10,1;")
c("tile_scatter4", "mov.u32 %r40, 0;\n fence.proxy.async.shared::cta;\n @%p1 cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd4, {%r40, %r40, %r40, %r40, %r40}], [%r30];\n cp.async.bulk.commit_group;\n cp.async.bulk.wait_group 0;\n mov.u32 %r10,1;")
c("mul_wide_hi", "mul.wide.u32 %rd5, %r1, %r4;\n mul.hi.u32 %r10, %r1, %r4;\n mad.lo.cc.u32 %r11, %r1, %r4, %r3;\n addc.u32 %r12, %r1, 0;\n add.u32 %r10,%r10,%r11; add.u32 %r10,%r10,%r12;")
c("membar_fence", "membar.gl;\n fence.sc.gpu;\n fence.acq_rel.cluster;\n membar.cta;\n fence.sc.sys;\n mov.u32 %r10,1;")
c("cvt_f32_bf16", "mov.b16 %rs1, 0x3f80;\n cvt.f32.bf16 %f3, %rs1;\n cvt.rn.bf16.f32 %rs2, %f3;\n cvt.u32.u16 %r10, %rs2;")
c("copysign_testp", "copysign.f32 %f3, %f1, %f2;\n testp.finite.f32 %p3, %f3;\n selp.u32 %r10,1,0,%p3;")
c("abs_neg_bf16", "abs.bf16x2 %r10, %r3;\n neg.bf16x2 %r11, %r3; add.u32 %r10,%r10,%r11;")
c("add_bf16x2", "add.rn.bf16x2 %r10, %r3, %r4;\n mul.rn.bf16x2 %r11, %r3, %r4;\n sub.bf16 %rs1, %rs2, %rs3; add.u32 %r10,%r10,%r11;")
c("sqrt_approx", "sqrt.approx.ftz.f32 %f3, %f2;\n rsqrt.approx.ftz.f32 %f4, %f2;\n lg2.approx.ftz.f32 %f5, %f2;\n sin.approx.ftz.f32 %f6, %f2;\n add.f32 %f3,%f3,%f4; add.f32 %f3,%f3,%f5; add.f32 %f3,%f3,%f6;\n mov.b32 %r10, %f3;")
c("div_full", "div.full.f32 %f3, %f1, %f2;\n div.rn.f32 %f4, %f1, %f2;\n add.f32 %f3,%f3,%f4; mov.b32 %r10, %f3;")
c("atom_cas_b16", "cvta.to.global.u64 %rd5, %rd1;\n atom.global.cas.b16 %rs1, [%rd5], %rs2, %rs3;\n cvt.u32.u16 %r10, %rs1;")
c("atom_exch_b128", ".reg .b128 %q<4>;\n mov.b128 %q1, {%rd1, %rd2};\n atom.global.exch.b128 %q2, [%rd9], %q1;\n mov.b32 %r10, 1;")
c("atom_cas_b128", ".reg .b128 %q<4>;\n mov.b128 %q1, {%rd1, %rd2};\n atom.shared.cas.b128 %q2, [%r32], %q1, %q1;\n mov.b128 {%rd5, %rd6}, %q2;\n cvt.u32.u64 %r10, %rd5;")
c("clusterlaunchcontrol", ".shared .align 16 .b8 clcresp[16];\n mov.u32 %r10, 1;")
c("stacksave", "stacksave.u64 %rd5;\n alloca.u64 %rd6, 64, 32;\n st.local.u32 [%rd6+60], %r1;\n ld.local.u32 %r10, [%rd6+60];\n stackrestore.u64 %rd5;")
# session 8: nvcc's form (`alloca()` in device code), the pointer used through ld/st.local
c("alloca", "mul.wide.u32 %rd5, %r1, 4;\n add.s64 %rd5, %rd5, 4;\n alloca.u64 %rd6, %rd5, 16;\n add.s64 %rd7, %rd6, %rd5;\n st.local.u32 [%rd7+-4], %r1;\n ld.local.u32 %r10, [%rd7+-4];\n alloca.u32 %r11, 8;\n st.local.u32 [%r11], %r1;")
c("wmma_s8", ".reg .b32 %w<16>;\n wmma.load.a.sync.aligned.row.m16n16k16.shared.s8 {%w1,%w2}, [%r30], 16;\n wmma.load.b.sync.aligned.col.m16n16k16.shared.s8 {%w3,%w4}, [%r30], 16;\n wmma.load.c.sync.aligned.row.m16n16k16.shared.s32 {%w5,%w6,%w7,%w8,%w9,%w10,%w11,%w12}, [%r30], 16;\n wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32 {%w5,%w6,%w7,%w8,%w9,%w10,%w11,%w12}, {%w1,%w2}, {%w3,%w4}, {%w5,%w6,%w7,%w8,%w9,%w10,%w11,%w12};\n add.u32 %r10, %w5, %w12;")
c("wmma_f64", ".reg .f64 %d<8>;\n wmma.load.a.sync.aligned.row.m8n8k4.shared.f64 {%d1}, [%r30], 8;\n wmma.load.b.sync.aligned.col.m8n8k4.shared.f64 {%d2}, [%r30], 8;\n wmma.load.c.sync.aligned.row.m8n8k4.shared.f64 {%d3,%d4}, [%r30], 8;\n wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64 {%d3,%d4}, {%d1}, {%d2}, {%d3,%d4};\n cvt.rn.f32.f64 %f3, %d3; mov.b32 %r10, %f3;")
c("mma_sync_m8n8k4", ".reg .f32 %e<16>;\n mov.f32 %e1, 0f00000000; mov.f32 %e2, %e1; mov.f32 %e3, %e1; mov.f32 %e4, %e1; mov.f32 %e5, %e1; mov.f32 %e6, %e1; mov.f32 %e7, %e1; mov.f32 %e8, %e1;\n mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%e1,%e2,%e3,%e4,%e5,%e6,%e7,%e8}, {%r3,%r4}, {%r3,%r4}, {%e1,%e2,%e3,%e4,%e5,%e6,%e7,%e8};\n mov.b32 %r10, %e1;")
c("mma_sync_e4m3", ".reg .f32 %e<8>;\n mov.f32 %e1, 0f00000000; mov.f32 %e2, %e1; mov.f32 %e3, %e1; mov.f32 %e4, %e1;\n mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%e1,%e2,%e3,%e4}, {%r3,%r4,%r3,%r4}, {%r3,%r4}, {%e1,%e2,%e3,%e4};\n mov.b32 %r10, %e1;")
#c("x", ".reg .f32 %e<8>;\n mov.f32 %e1, 0f00000000; mov.f32 %e2, %e1; mov.f32 %e3, %e1; mov.f32 %e4, %e1;\n mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32 {%e1,%e2,%e3,%e4}, {%r3,%r4,%r3,%r4}, {%r3,%r4}, {%e1,%e2,%e3,%e4};\n mov.b32 %r10, %e1;")
#c("x", ".reg .f32 %e<8>;\n mov.f32 %e1, 0f00000000; mov.f32 %e2, %e1; mov.f32 %e3, %e1; mov.f32 %e4, %e1;\n mov.u16 %rs5, 0; mov.u16 %rs6, 0;\n mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0 {%e1,%e2,%e3,%e4}, {%r3,%r4,%r3,%r4}, {%r3,%r4}, {%e1,%e2,%e3,%e4}, %r40, {%rs5, %rs6}, %r40, {%rs5, %rs6};\n mov.b32 %r10, %e1;")
c("mma_sp_sync", ".reg .f32 %e<8>;\n mov.f32 %e1, 0f00000000; mov.f32 %e2, %e1; mov.f32 %e3, %e1; mov.f32 %e4, %e1;\n mov.u32 %r40, 0;\n mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%e1,%e2,%e3,%e4}, {%r3,%r4,%r3,%r4}, {%r3,%r4,%r3,%r4}, {%e1,%e2,%e3,%e4}, %r40, 0x0;\n mov.b32 %r10, %e1;")
c("mma_sp_ordered", ".reg .f32 %e<8>;\n mov.f32 %e1, 0f00000000; mov.f32 %e2, %e1; mov.f32 %e3, %e1; mov.f32 %e4, %e1;\n mov.u32 %r40, 0;\n mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 {%e1,%e2,%e3,%e4}, {%r3,%r4,%r3,%r4}, {%r3,%r4,%r3,%r4}, {%e1,%e2,%e3,%e4}, %r40, 0x0;\n mov.b32 %r10, %e1;")
for name,(body,cl) in cases.items():
    d=os.path.join(OUT,name); os.makedirs(d,exist_ok=True)
    open(os.path.join(d,"k.ptx"),"w").write(HDR+"    "+body.replace("\n","\n    ")+"\n"+FTR)
    # .tile::gather4/scatter4 maps have one-row boxes (the ISA's rule, TM0123 otherwise)
    box_rows = 1 if name.startswith("tile_") else 16
    open(os.path.join(d,"k.toml"),"w").write(f'''ptx = "k.ptx"
kernel = "k"
grid = [{cl}, 1, 1]
block = [32, 1, 1]
cluster = [{cl}, 1, 1]

[[arg]]
dtype = "u32"
shape = [4096]
fill = "iota"

[[arg]]
tensormap = {{ buffer = "t", box = [16, {box_rows}] }}

[buffers.t]
dtype = "u32"
shape = [64, 64]
fill = "iota"
''')
print(len(cases), "cases in", OUT)
for name in sorted(cases):
    d = os.path.join(OUT, name)
    if args.ptxas:
        p = subprocess.run([args.ptxas, "-arch=sm_100a", os.path.join(d, "k.ptx"), "-o", os.devnull],
                           capture_output=True, text=True)
        errs = [l for l in p.stderr.splitlines() if "error" in l]
        if errs:
            print(f"ptxas rejects {name}: {errs[0]}")
    if args.tmemu:
        p = subprocess.run([args.tmemu, "run", os.path.join(d, "k.toml")], capture_output=True,
                           text=True, timeout=120)
        if p.returncode != 0:
            first = next((l for l in (p.stdout + p.stderr).splitlines() if l.strip()), "")
            print(f"{name}: exit {p.returncode}: {first}")
