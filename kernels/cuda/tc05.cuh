// Small inline-asm wrappers for the Blackwell (sm_100a) instructions the corpus uses.
// One function = one PTX instruction (or one spin loop), so each kernel reads like the
// PTX it produces. Descriptor builders follow /work/shared/spec/descriptors.md.
#pragma once
#include <stdint.h>
#include "tc05_ldst.cuh"

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// ---- TMEM allocation (cta_group::1) ------------------------------------------------------
__device__ __forceinline__ void tc_alloc1(uint32_t dst_smem, uint32_t ncols) {
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;"
               :: "r"(dst_smem), "r"(ncols) : "memory");
}
// Generic-address destination: the form without a state space.
__device__ __forceinline__ void tc_alloc1_generic(uint32_t* dst, uint32_t ncols) {
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.b32 [%0], %1;"
               :: "l"(dst), "r"(ncols) : "memory");
}
__device__ __forceinline__ void tc_dealloc1(uint32_t taddr, uint32_t ncols) {
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;"
               :: "r"(taddr), "r"(ncols) : "memory");
}
__device__ __forceinline__ void tc_relinquish1() {
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
}
// ---- TMEM allocation (cta_group::2, CTA pair) ---------------------------------------------
__device__ __forceinline__ void tc_alloc2(uint32_t dst_smem, uint32_t ncols) {
  asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;"
               :: "r"(dst_smem), "r"(ncols) : "memory");
}
__device__ __forceinline__ void tc_dealloc2(uint32_t taddr, uint32_t ncols) {
  asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;"
               :: "r"(taddr), "r"(ncols) : "memory");
}
__device__ __forceinline__ void tc_relinquish2() {
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" ::: "memory");
}

// ---- ordering ------------------------------------------------------------------------------
__device__ __forceinline__ void tc_fence_before() {
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}
__device__ __forceinline__ void tc_fence_after() {
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}
__device__ __forceinline__ void tc_wait_ld() { asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void tc_wait_st() { asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory"); }
// bar.sync 0 with tcgen05 fences on both sides: the canonical cross-thread hand-off.
__device__ __forceinline__ void tc_sync_cta() {
  tc_fence_before();
  __syncthreads();
  tc_fence_after();
}
__device__ __forceinline__ void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// ---- commit ----------------------------------------------------------------------------------
// Plain form: generic address of the mbarrier.
__device__ __forceinline__ void tc_commit1_generic(uint64_t* mbar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%0];"
               :: "l"(mbar) : "memory");
}
__device__ __forceinline__ void tc_commit1_cluster(uint32_t mbar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
               :: "r"(mbar) : "memory");
}
__device__ __forceinline__ void tc_commit2_multicast(uint32_t mbar, uint16_t cta_mask) {
  asm volatile(
      "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64"
      " [%0], %1;" :: "r"(mbar), "h"(cta_mask) : "memory");
}

// ---- mbarrier ----------------------------------------------------------------------------------
__device__ __forceinline__ void mbar_init(uint32_t mbar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(mbar), "r"(count) : "memory");
}
__device__ __forceinline__ uint64_t mbar_arrive(uint32_t mbar) {
  uint64_t state;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(mbar) : "memory");
  return state;
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t mbar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
               :: "r"(mbar), "r"(bytes) : "memory");
}
// Arrive on the mbarrier at the same offset in CTA `rank` of the cluster (mapa + remote arrive).
__device__ __forceinline__ void mbar_arrive_remote(uint32_t mbar, uint32_t rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(mbar), "r"(rank));
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];"
               :: "r"(remote) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint32_t mbar, uint32_t parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "WAIT_AGAIN:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_AGAIN;\n"
      "}" :: "r"(mbar), "r"(parity) : "memory");
}
// Cluster-scope acquire: for arrivals coming from a peer CTA (remote arrive, multicast commit).
__device__ __forceinline__ void mbar_wait_cluster(uint32_t mbar, uint32_t parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "WAIT_AGAIN:\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_AGAIN;\n"
      "}" :: "r"(mbar), "r"(parity) : "memory");
}

// ---- warp / cluster helpers -----------------------------------------------------------------------
// True in exactly one lane of the (fully active) warp.
__device__ __forceinline__ bool elect_one() {
  uint32_t is_leader;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "elect.sync _|p, 0xffffffff;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}" : "=r"(is_leader));
  return is_leader != 0;
}
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// ---- bulk copy (non-tensor TMA) ------------------------------------------------------------
__device__ __forceinline__ void bulk_g2s(uint32_t dst, const void* src, uint32_t bytes, uint32_t mbar) {
  asm volatile(
      "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
      :: "r"(dst), "l"(src), "r"(bytes), "r"(mbar) : "memory");
}

// ---- descriptors (descriptors.md §1, §3) ------------------------------------------------------
// Shared-memory matrix descriptor, no swizzle (layout type 0), version bits 46..48 = 0b001.
__device__ __forceinline__ uint64_t smem_desc(uint32_t saddr, uint32_t lbo, uint32_t sbo) {
  return static_cast<uint64_t>((saddr & 0x3FFFF) >> 4) |
         (static_cast<uint64_t>((lbo & 0x3FFFF) >> 4) << 16) |
         (static_cast<uint64_t>((sbo & 0x3FFFF) >> 4) << 32) |
         (1ull << 46);
}
// Instruction descriptor for kind::f16 / tf32 / f8f6f4 / i8 (Table 42): both operands K-major.
__device__ __forceinline__ uint32_t instr_desc(uint32_t d_fmt, uint32_t a_fmt, uint32_t b_fmt,
                                               uint32_t m, uint32_t n) {
  return (d_fmt << 4) | (a_fmt << 7) | (b_fmt << 10) | ((n >> 3) << 17) | ((m >> 4) << 24);
}
// Instruction descriptor for kind::mxf8f6f4 (Table 43): scale type UE8M0 (bit 23 = 1).
__device__ __forceinline__ uint32_t instr_desc_mx(uint32_t a_fmt, uint32_t b_fmt, uint32_t m,
                                                  uint32_t n, uint32_t sfa_id, uint32_t sfb_id) {
  return (sfb_id << 4) | (a_fmt << 7) | (b_fmt << 10) | ((n >> 3) << 17) | (1u << 23) |
         ((m >> 7) << 27) | (sfa_id << 29);
}

// K-major, no-swizzle canonical layout (descriptors.md §2.4): byte offset of 16-byte chunk
// `chunk` (along K) of row `row` (along M/N), with core matrices of 8 rows x 16 bytes,
// LBO = distance between K-adjacent core matrices, SBO = distance between 8-row groups.
__device__ __forceinline__ uint32_t kmajor_offset(uint32_t row, uint32_t chunk, uint32_t lbo,
                                                  uint32_t sbo) {
  return (row % 8) * 16 + (row / 8) * sbo + chunk * lbo;
}

// Makes this thread's mbarrier.init visible to the cluster (remote arrives, multicast commit).
__device__ __forceinline__ void fence_mbarrier_init_cluster() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
