// Reproduces the mechanism of NVIDIA/cutlass PR #3647 (issue #3643, the CuTe DSL example
// 2cta_mma_blockscale_m128; the class of NVIDIA/cutlass#3324): the non-leader CTA writes its
// half of an operand into its own shared memory and signals the leader through the leader's
// mbarrier with `mbarrier_arrive(remote, scope=CTA)`, which lowers to
// `mbarrier.arrive.release.cta.shared::cluster.b64`. A release and an acquire synchronise only
// when each one's scope includes the other thread (PTX ISA §8, morally strong); a CTA-scope
// release by a thread of another CTA reaches no waiter of the barrier, so the leader's wait
// (acquire at cluster scope) orders nothing, and its read of the peer's buffer races the write.
// tmemu reports TM0211 at the leader's ld.shared::cluster, related to the peer's st.shared.
// Fixed: mbarrier.arrive.release.cluster.
// Launch: grid 2, cluster 2, 32 threads.
#include "bugs.cuh"

extern "C" __global__ void cta_scope_arrive_on_peer_barrier(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(8) uint64_t full;  // used in rank 0 (the leader)
  __shared__ uint32_t half_tile[32];      // filled in rank 1
  const uint32_t rank = cluster_rank(), t = threadIdx.x;
  if (t == 0) mbar_init(smem_u32(&full), 32);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  cluster_sync();
  uint32_t v = 0;
  if (rank == 1) {
    asm volatile("st.shared.u32 [%0], %1;" SITE("store")::"r"(smem_u32(&half_tile[t])),
                 "r"(in[t] * 3u)
                 : "memory");
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote) : "r"(smem_u32(&full)));
#if TMEM_FIXED
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote)
                 : "memory");
#else
    asm volatile("mbarrier.arrive.release.cta.shared::cluster.b64 _, [%0];" ::"r"(remote)
                 : "memory");
#endif
  } else {
    uint32_t done;
    do {
      asm volatile(
          "{\n\t.reg .pred p;\n\t"
          "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n\t"
          "selp.u32 %0, 1, 0, p;\n\t}"
          : "=r"(done)
          : "r"(smem_u32(&full))
          : "memory");
    } while (!done);
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(remote)
                 : "r"(smem_u32(&half_tile[t])));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" SITE("load") : "=r"(v) : "r"(remote) : "memory");
  }
  out[blockIdx.x * 32 + t] = v;
  cluster_sync();  // rank 1 stays until rank 0 has read its shared memory
}
