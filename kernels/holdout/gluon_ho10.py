"""Holdout batch 10 (Gluon, Triton 3.9).

ho10_gluon_cluster4_mcast: a **2x2 cluster** (num_ctas = 4) computing a 256x128 tile of C, one
128x64 quarter per CTA. A's cluster layout splits M over CTA bit 0 and broadcasts over bit 1
(`cga_layout=[[1, 0], [0, 0]]`), B's broadcasts over bit 0 and splits N over bit 1, so each A
half is multicast to the CTA pair {r, r^2} and each B half to {r, r^1}: TMA multicast masks that
are neither "all" nor the 2-CTA mask 3 of the earlier kernels (0b0101 / 0b1010, 0b0011 /
0b1100). The MMA completion (`tcgen05_mma(multicast=True)`) is committed to every CTA whose
shared memory this CTA's MMA read: three CTAs per commit, masks such as 0b0111, and every
mma barrier counts 3 arrivals.
"""
import numpy as np
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout,
                                                                 fence_async_shared,
                                                                 tcgen05_commit, tcgen05_copy,
                                                                 allocate_tensor_memory, mbarrier,
                                                                 tcgen05_mma,
                                                                 tcgen05_mma_barrier_count, tma)

from regen import Case, HostTMA, Input, Output, Ptr, TritonKernel


@gluon.jit
def cluster4_mcast_kernel(a_desc, b_desc, c_desc, K, C_FIRST: gl.constexpr):
    gl.static_assert(gl.num_ctas() == 4)
    if C_FIRST:
        # allocated first, the epilogue tile takes shared offset 0 (see COMPILER_BUGS below)
        c_smem = gl.allocate_shared_memory(c_desc.dtype, c_desc.block_shape, c_desc.layout)
    cl_m: gl.constexpr = a_desc.block_shape[0]
    block_k: gl.constexpr = a_desc.block_shape[1]
    cl_n: gl.constexpr = b_desc.block_shape[1]
    off_m = gl.program_id(0) * cl_m
    off_n = gl.program_id(1) * cl_n

    smem_a = gl.allocate_shared_memory(a_desc.dtype, a_desc.block_shape, a_desc.layout)
    smem_b = gl.allocate_shared_memory(b_desc.dtype, b_desc.block_shape, b_desc.layout)
    tma_bar = mbarrier.allocate_mbarrier()
    mma_bar = mbarrier.allocate_mbarrier()
    mbarrier.init(tma_bar, count=1)
    mbarrier.init(mma_bar, count=tcgen05_mma_barrier_count([smem_a, smem_b], True, False))

    acc_layout: gl.constexpr = TensorMemoryLayout(block=(cl_m // 2, cl_n // 2), col_stride=1,
                                                  cga_layout=c_desc.layout.cga_layout)
    acc = allocate_tensor_memory(gl.float32, [cl_m, cl_n], acc_layout)

    phase = 0
    for k in range(0, K, block_k):
        mbarrier.expect(tma_bar, a_desc.nbytes_per_cta + b_desc.nbytes_per_cta)
        tma.async_load(a_desc, [off_m, k], tma_bar, smem_a, multicast=True)
        tma.async_load(b_desc, [k, off_n], tma_bar, smem_b, multicast=True)
        mbarrier.wait(tma_bar, phase=phase, deps=[smem_a, smem_b])
        tcgen05_mma(smem_a, smem_b, acc, use_acc=(k != 0), multicast=True, mbarriers=[mma_bar])
        # the peers' next multicast loads overwrite this CTA's A and B: wait for every MMA
        # that reads them (this CTA's and the peers') before the next iteration's loads
        mbarrier.wait(mma_bar, phase=phase, deps=[smem_a, smem_b])
        phase ^= 1
    mbarrier.invalidate(tma_bar)
    mbarrier.invalidate(mma_bar)

    if not C_FIRST:
        c_smem = gl.allocate_shared_memory(c_desc.dtype, c_desc.block_shape, c_desc.layout)
    c_smem.store(acc.load())
    tma.async_store(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


CL_M, CL_N, C4_BK = 256, 128, 64


def _cluster4_cases(name, seed):
    M, N, K = 256, 256, 192
    rng = np.random.default_rng(seed)
    a = (rng.integers(-2, 3, size=(M, K)) / 2).astype(np.float16)
    b = (rng.integers(-2, 3, size=(K, N)) / 2).astype(np.float16)
    ref = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    why = ("inputs on a 1/2 grid: products on a 1/4 grid, sums of 192 terms below 2^8 are "
           "exact in f32 in any order: exact")
    return [Case(name, grid=[M // CL_M, N // CL_N],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f32", [M, N], ref, 0.0, 0.0, why)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_desc=HostTMA("c"), K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}] fp16, clusters of 4 CTAs (2x2) per "
                      f"{CL_M}x{CL_N} tile: A multicast to the CTA pair {{r, r^2}}, B to "
                      "{r, r^1}; cta_group::1 MMAs committed with multicast to the three CTAs "
                      "whose shared memory they read; f32 out through a TMA store.\nThe grid is "
                      "Triton's times num_ctas = 4, as Triton's launcher does.")]


def _desc(dtype, shape, layout):
    return f"tensordesc<{dtype}[{shape[0]},{shape[1]}],{layout!r}>"


def _cluster4_kernel(name, c_first, seed):
    a_layout = gl.NVMMASharedLayout.get_default_for([CL_M, C4_BK], gl.float16,
                                                    cga_layout=[[1, 0], [0, 0]])
    b_layout = gl.NVMMASharedLayout.get_default_for([C4_BK, CL_N], gl.float16,
                                                    cga_layout=[[0, 0], [0, 1]])
    c_layout = gl.NVMMASharedLayout.get_default_for([CL_M, CL_N], gl.float32,
                                                    cga_layout=[[1, 0], [0, 1]])
    return TritonKernel(name=name, fn=cluster4_mcast_kernel, gluon=True,
                        signature=dict(a_desc=_desc("fp16", [CL_M, C4_BK], a_layout),
                                       b_desc=_desc("fp16", [C4_BK, CL_N], b_layout),
                                       c_desc=_desc("fp32", [CL_M, CL_N], c_layout), K="i32",
                                       C_FIRST="constexpr"),
                        constexprs=dict(C_FIRST=c_first),
                        cases=lambda: _cluster4_cases(name, seed), num_warps=4, num_stages=1,
                        num_ctas=4,
                        must_contain=("multicast::cluster", "tcgen05.mma.cta_group::1"))


KERNELS = [_cluster4_kernel("ho10_gluon_cluster4_mcast", True, 10001)]

# With the A tile allocated first, Triton 3.9 places it at shared offset 0, where tcgen05.alloc
# wrote the TMEM address that every thread reads back (line 65); the only cluster-wide sync
# before a peer's multicast write into that buffer is `barrier.cluster.arrive.relaxed` (no
# release semantics): the `ho3_bug_multicast_relaxed_cluster` race, here in a 2x2 cluster where
# the peer is the CTA two ranks away. Allocating the epilogue tile first moves A off offset 0
# (the spec above).
COMPILER_BUGS = [_cluster4_kernel("ho10_bug_cluster4_relaxed", False, 10004)]


@gluon.jit
def mma_pred_kernel(a_ptr, b_ptr, mask_ptr, c_ptr, N, K, KB):
    # Block-masked GEMM: C = sum over the K blocks whose mask byte is set of A_k B_k. Every K
    # block's MMA is issued with `pred=` its mask bit (a predicated tcgen05.mma), followed by an
    # unpredicated tcgen05_commit to the stage's mbarrier.
    BLOCK_M: gl.constexpr = 128
    BLOCK_N: gl.constexpr = 64
    BLOCK_K: gl.constexpr = 64
    dt: gl.constexpr = a_ptr.dtype.element_ty
    rows: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N
    rm = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, rows))
    rn = off_n + gl.arange(0, BLOCK_N, gl.SliceLayout(1, rows))
    rk = gl.arange(0, BLOCK_K, gl.SliceLayout(0, rows))
    rc = off_n + gl.arange(0, BLOCK_N, gl.SliceLayout(0, rows))
    a_s = gl.allocate_shared_memory(dt, [2, BLOCK_M, BLOCK_K],
                                    gl.NVMMASharedLayout.get_default_for([BLOCK_M, BLOCK_K], dt))
    b_s = gl.allocate_shared_memory(dt, [2, BLOCK_N, BLOCK_K],
                                    gl.NVMMASharedLayout.get_default_for([BLOCK_N, BLOCK_K], dt))
    bars = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(2):
        mbarrier.init(bars.index(i), count=1)
    acc = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N],
                                 TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))
    # the accumulator starts at zero in TMEM: a masked-off first block leaves nothing to
    # initialise it
    acc.store(gl.zeros([BLOCK_M, BLOCK_N], gl.float32, acc.get_reg_layout()))
    for ki in range(KB):
        s = ki % 2
        if ki >= 2:
            # the MMA two blocks back read this stage
            mbarrier.wait(bars.index(s), ((ki - 2) // 2) & 1)
        k0 = ki * BLOCK_K
        a_s.index(s).store(gl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :]))
        b_s.index(s).store(gl.load(b_ptr + rn[:, None] * K + (k0 + rk)[None, :]))
        fence_async_shared()
        on = gl.load(mask_ptr + gl.program_id(0) * KB + ki) != 0
        tcgen05_mma(a_s.index(s), b_s.index(s).permute((1, 0)), acc, use_acc=True, pred=on)
        # not `mbarriers=`: Gluon predicates that commit with the MMA, and a stage whose MMA
        # did not run would never complete its barrier. An explicit commit arrives either way
        # (at once when this thread has no MMA in flight).
        tcgen05_commit(bars.index(s))
    for s in gl.static_range(2):
        # the last completion of each stage's barrier
        last = KB - 1 - ((KB - 1 - s) % 2)
        mbarrier.wait(bars.index(s), (last // 2) & 1)
    for i in gl.static_range(2):
        mbarrier.invalidate(bars.index(i))
    out = gl.convert_layout(acc.load(acc.get_reg_layout()), rows)
    gl.store(c_ptr + rm[:, None] * N + rc[None, :], out)


def _mma_pred_cases():
    M, N, KB, BK = 256, 128, 5, 64
    K = KB * BK
    rng = np.random.default_rng(10002)
    a = (rng.integers(-2, 3, size=(M, K)) / 2).astype(np.float16)
    bt = (rng.integers(-2, 3, size=(N, K)) / 2).astype(np.float16)
    # row block 0: first block off (the zeroed accumulator is all that starts it), last on;
    # row block 1: first on, last two off
    mask = np.array([[0, 1, 1, 0, 1], [1, 0, 1, 0, 0]], dtype=np.uint8)
    keep = np.repeat(mask, BK, axis=1).astype(np.float64)            # [2, K]
    ref = np.concatenate([(a[i * 128:(i + 1) * 128].astype(np.float64) * keep[i])
                          @ bt.astype(np.float64).T for i in range(2)]).astype(np.float32)
    why = ("inputs on a 1/2 grid: products on a 1/4 grid, sums of at most 320 terms below 2^9 "
           "are exact in f32 in any order: exact")
    return [Case("ho10_gluon_mma_pred", grid=[M // 128, N // 64],
                 buffers=dict(a=Input(a, "f16"), b=Input(bt, "f16"), mask=Input(mask, "u8"),
                              c=Output("f32", [M, N], ref, 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), mask_ptr=Ptr("mask"), c_ptr=Ptr("c"),
                           N=N, K=K, KB=KB),
                 note=f"C[{M}x{N}] = sum over the K blocks whose mask byte is set of A_k Bt_k^T "
                      "(fp16, 64-wide K blocks): every block's tcgen05.mma is predicated on its "
                      "mask byte (`pred=`) and followed by an unpredicated tcgen05.commit to its stage's mbarrier; "
                      "the accumulator is zeroed by tcgen05.st first; f32 out, 4 warps")]


KERNELS.append(
    TritonKernel(name="ho10_gluon_mma_pred", fn=mma_pred_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", mask_ptr="*u8", c_ptr="*fp32",
                                N="i32", K="i32", KB="i32"),
                 constexprs={}, cases=_mma_pred_cases, num_warps=4, num_stages=1, gluon=True,
                 aligned=("a_ptr", "b_ptr", "mask_ptr", "c_ptr", "N", "K")))


@gluon.jit
def pairs_mcast_kernel(a_desc, b_desc, c_desc, K):
    # A cluster of 4 = two CTA pairs side by side along N. Each pair runs cta_group::2 MMAs
    # (256-row pair tile, each CTA holding 128 rows of A and half of the pair's B columns); the
    # two pairs need the same A, so A is multicast across the pairs.
    gl.static_assert(gl.num_ctas() == 4)
    cluster_m: gl.constexpr = a_desc.block_shape[0]
    block_k: gl.constexpr = a_desc.block_shape[1]
    cluster_n: gl.constexpr = b_desc.block_shape[0]
    off_m = gl.program_id(0) * cluster_m
    off_n = gl.program_id(1) * cluster_n

    # The epilogue tile, the largest buffer, takes shared offset 0 (where tcgen05.alloc writes
    # the TMEM address): that offset must not be a multicast destination (the
    # ho10_bug_cluster4_relaxed race, which this kernel has too when A lands there)
    c_smem = gl.allocate_shared_memory(c_desc.dtype, c_desc.block_shape, c_desc.layout)
    a_s = gl.allocate_shared_memory(a_desc.dtype, [2] + a_desc.block_shape, a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [2] + b_desc.block_shape, b_desc.layout)
    ready = mbarrier.allocate_mbarrier(batch=2, two_ctas=True)
    freed = mbarrier.allocate_mbarrier(batch=2)
    for i in gl.static_range(2):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(freed.index(i),
                      count=tcgen05_mma_barrier_count([a_s.index(i), b_s.index(i)], True, True))

    acc_layout: gl.constexpr = TensorMemoryLayout(block=(cluster_m // 2, cluster_n // 2),
                                                  col_stride=1, cga_layout=[[1, 0], [0, 1]],
                                                  two_ctas=True)
    acc = allocate_tensor_memory(gl.float32, [cluster_m, cluster_n], acc_layout)

    n_k = K // block_k
    mbarrier.expect(ready.index(0), a_desc.nbytes_per_cta + b_desc.nbytes_per_cta)
    tma.async_load(a_desc, [off_m, 0], ready.index(0), a_s.index(0), multicast=True)
    tma.async_load(b_desc, [off_n, 0], ready.index(0), b_s.index(0))
    for ki in range(n_k):
        s = ki % 2
        if ki + 1 < n_k:
            ns = (ki + 1) % 2
            if ki >= 1:
                # stage ns was read by MMA ki-1 of both pairs: wait for its release
                mbarrier.wait(freed.index(ns), ((ki - 1) // 2) & 1, deps=[a_s, b_s])
            mbarrier.expect(ready.index(ns), a_desc.nbytes_per_cta + b_desc.nbytes_per_cta)
            tma.async_load(a_desc, [off_m, (ki + 1) * block_k], ready.index(ns), a_s.index(ns),
                           multicast=True)
            tma.async_load(b_desc, [off_n, (ki + 1) * block_k], ready.index(ns), b_s.index(ns))
        mbarrier.wait(ready.index(s), (ki // 2) & 1, deps=[a_s, b_s])
        tcgen05_mma(a_s.index(s), b_s.index(s).permute((1, 0)), acc, use_acc=(ki != 0),
                    multicast=True, mbarriers=[freed.index(s)])
    last = n_k - 1
    mbarrier.wait(freed.index(last % 2), (last // 2) & 1, deps=[a_s, b_s])
    for i in gl.static_range(2):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(freed.index(i))

    c_smem.store(acc.load())
    tma.async_store(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


PM, PN, PK = 256, 256, 64


def _pairs_cases():
    M, N, K = 256, 256, 256
    rng = np.random.default_rng(10005)
    a = (rng.integers(-2, 3, size=(M, K)) / 2).astype(np.float16)
    bt = (rng.integers(-2, 3, size=(N, K)) / 2).astype(np.float16)
    ref = (a.astype(np.float64) @ bt.astype(np.float64).T).astype(np.float32)
    why = ("inputs on a 1/2 grid: products on a 1/4 grid, sums of 256 terms below 2^8 are "
           "exact in f32 in any order: exact")
    return [Case("ho10_gluon_pairs_mcast", grid=[M // PM, N // PN],
                 buffers=dict(a=Input(a, "f16"), b=Input(bt, "f16"),
                              c=Output("f32", [M, N], ref, 0.0, 0.0, why)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_desc=HostTMA("c"), K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ Bt[{N}x{K}]^T fp16 on one cluster of 4 CTAs: "
                      "two CTA pairs (cta_group::2 MMAs, 256x128 per pair) side by side along N, "
                      "A multicast across the pairs, B K-major split within each pair, 2-stage "
                      "ring released by multicast MMA commits; f32 out through a TMA store.\nThe "
                      "grid is Triton's times num_ctas = 4.")]


def _pairs_kernel():
    a_layout = gl.NVMMASharedLayout.get_default_for([PM, PK], gl.float16,
                                                    cga_layout=[[1, 0], [0, 0]])
    b_layout = gl.NVMMASharedLayout.get_default_for([PN, PK], gl.float16,
                                                    cga_layout=[[1, 0], [2, 0]])
    c_layout = gl.NVMMASharedLayout.get_default_for([PM, PN], gl.float32,
                                                    cga_layout=[[1, 0], [0, 1]])
    return TritonKernel(name="ho10_gluon_pairs_mcast", fn=pairs_mcast_kernel, gluon=True,
                        signature=dict(a_desc=_desc("fp16", [PM, PK], a_layout),
                                       b_desc=_desc("fp16", [PN, PK], b_layout),
                                       c_desc=_desc("fp32", [PM, PN], c_layout), K="i32"),
                        constexprs={}, cases=_pairs_cases, num_warps=4, num_stages=1,
                        num_ctas=4, aligned=("K",),
                        must_contain=("tcgen05.mma.cta_group::2", "multicast::cluster"))


KERNELS.append(_pairs_kernel())


@gluon.jit
def cp_a_operand_kernel(a_desc, b_desc, c_ptr, N, K):
    # A reaches the tensor core through TMEM: each f32 A tile goes global -> shared by TMA,
    # then shared -> TMEM by tcgen05_copy (tcgen05.cp from the 128B-swizzled tile; Gluon copies
    # 32-bit elements only), and the kind::tf32 MMA reads A from TMEM. The copy and the MMA are issued by the same thread, so the
    # copy -> mma pair is ordered in the tensor pipe; the next copy into the same columns waits
    # for the MMA's mbarrier.
    BLOCK_M: gl.constexpr = a_desc.block_shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_shape[0]
    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N
    a_s = gl.allocate_shared_memory(a_desc.dtype, a_desc.block_shape, a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, b_desc.block_shape, b_desc.layout)
    tma_bar = mbarrier.allocate_mbarrier()
    mma_bar = mbarrier.allocate_mbarrier()
    mbarrier.init(tma_bar, count=1)
    mbarrier.init(mma_bar, count=1)
    a_t = allocate_tensor_memory(a_desc.dtype, [BLOCK_M, BLOCK_K],
                                 TensorMemoryLayout([BLOCK_M, BLOCK_K], col_stride=1))
    acc = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N],
                                 TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))
    phase = 0
    for k in range(0, K, BLOCK_K):
        mbarrier.expect(tma_bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_load(a_desc, [off_m, k], tma_bar, a_s)
        tma.async_load(b_desc, [off_n, k], tma_bar, b_s)
        mbarrier.wait(tma_bar, phase)
        tcgen05_copy(a_s, a_t)
        tcgen05_mma(a_t, b_s.permute((1, 0)), acc, use_acc=(k != 0), mbarriers=[mma_bar])
        mbarrier.wait(mma_bar, phase)
        phase ^= 1
    mbarrier.invalidate(tma_bar)
    mbarrier.invalidate(mma_bar)
    rows: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    out = gl.convert_layout(acc.load(acc.get_reg_layout()), rows)
    rm = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, rows))
    rn = off_n + gl.arange(0, BLOCK_N, gl.SliceLayout(0, rows))
    gl.store(c_ptr + rm[:, None] * N + rn[None, :], out)


def _cp_a_cases():
    M, N, K = 256, 128, 160
    rng = np.random.default_rng(10008)
    # a 1/2 grid in [-1, 1]: exact in tf32 (and in f32 whatever tf32 conversion the tensor core
    # applies), products on a 1/4 grid, sums of 160 terms below 2^8: exact in any order
    a = (rng.integers(-2, 3, size=(M, K)) / 2).astype(np.float32)
    bt = (rng.integers(-2, 3, size=(N, K)) / 2).astype(np.float32)
    ref = (a.astype(np.float64) @ bt.astype(np.float64).T).astype(np.float32)
    why = ("inputs on a 1/2 grid (exact in tf32): products on a 1/4 grid, sums of 160 terms "
           "below 2^8 are exact in f32 in any order: exact")
    return [Case("ho10_gluon_cp_a_tf32", grid=[M // 128, N // 64],
                 buffers=dict(a=Input(a, "f32"), b=Input(bt, "f32"),
                              c=Output("f32", [M, N], ref, 0.0, 0.0, why)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_ptr=Ptr("c"), N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ Bt[{N}x{K}]^T f32 inputs, kind::tf32: each A "
                      "tile TMA -> shared -> TMEM by tcgen05.cp (128x256b from a 128B-swizzled "
                      "tile), the MMA takes A from TMEM; f32 out, 4 warps")]


def _cp_a_kernel():
    a_layout = gl.NVMMASharedLayout.get_default_for([128, 32], gl.float32)
    b_layout = gl.NVMMASharedLayout.get_default_for([64, 32], gl.float32)
    return TritonKernel(name="ho10_gluon_cp_a_tf32", fn=cp_a_operand_kernel, gluon=True,
                        signature=dict(a_desc=_desc("fp32", [128, 32], a_layout),
                                       b_desc=_desc("fp32", [64, 32], b_layout), c_ptr="*fp32",
                                       N="i32", K="i32"),
                        constexprs={}, cases=_cp_a_cases, num_warps=4, num_stages=1,
                        aligned=("c_ptr", "N", "K"),
                        must_contain=("tcgen05.cp", "tcgen05.mma.cta_group::1.kind::tf32"))


KERNELS.append(_cp_a_kernel())
