// Reproduces the mechanism of facebookexperimental/triton PR #908 ("[TLX] Fix CLC barrier
// race for multi-CTA clusters"): with `.multicast::cluster::all`, one
// clusterlaunchcontrol.try_cancel writes the response into every CTA of the cluster and
// signals complete-tx on each CTA's own mbarrier, but only CTA 0 armed its barrier
// (expect-tx) and waited on it: CTA 1 read its copy of the response with nothing ordering the
// asynchronous (async-proxy) write before the read. A cluster barrier after the request orders
// the *issue*, not the write's completion, which only the mbarrier reports (PTX ISA
// §9.7.13.17). tmemu reports TM0213 at CTA 1's load of the response, related to the
// try_cancel. Fixed: every CTA arms its own barrier and waits on it before reading.
// Launch: grid 2, cluster 2 (one cluster), 32 threads; thread 0 of rank 0 makes the request.
#include "bugs.cuh"

extern "C" __global__ void clc_multicast_peer_reads_unwaited(uint32_t* out) {
  __shared__ __align__(16) uint32_t resp[4];
  __shared__ __align__(8) uint64_t bar;
  const uint32_t r = smem_u32(resp), b = smem_u32(&bar), rank = cluster_rank();
  if (threadIdx.x == 0) mbar_init(b, 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  cluster_sync();
#if TMEM_FIXED
  const bool arms = true;  // every CTA expects its 16 bytes
#else
  const bool arms = rank == 0;  // only the requesting CTA does
#endif
  if (arms && threadIdx.x == 0) mbar_arrive_expect_tx(b, 16);
  cluster_sync();
  if (rank == 0 && threadIdx.x == 0)
    asm volatile(
        "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes"
        ".multicast::cluster::all.b128 [%0], [%1];" SITE("request")::"r"(r),
        "r"(b)
        : "memory");
  cluster_sync();
  if (arms) mbar_wait(b, 0);
  uint32_t ok, x;
  asm volatile(
      "{\n\t.reg .b128 q;\n\t.reg .pred p;\n\t"
      "ld.shared.b128 q, [%2];" SITE("read") "\n\t"
      "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, q;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t"
      "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %1, q;\n\t}"
      : "=r"(ok), "=r"(x)
      : "r"(r)
      : "memory");
  out[blockIdx.x * 32 + threadIdx.x] = ok ? x : 0xffffu;
  cluster_sync();  // no CTA exits while its peer's request may still write its memory
}
