"""Holdout Gluon: a persistent, warp-specialised GEMM with a double-buffered TMEM accumulator.

Three partitions (`gl.warp_specialize`): a 1-warp TMA loader filling a 3-stage ring, a 1-warp MMA
issuer, and the 4-warp default partition as epilogue. The MMA warp accumulates tile t into TMEM
buffer t % 2 and signals `acc_ready[b]` with tcgen05.commit; the epilogue reads the buffer and
frees it with `acc_empty[b]`, so the MMAs of tile t+1 overlap the epilogue of tile t — the
production shape of Blackwell GEMMs, which the main corpus only has in Triton's compiler-made
form. fp16 in, f32 out; the programs stride over the tiles.
"""
import numpy as np
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout,
                                                                 allocate_tensor_memory,
                                                                 fence_async_shared, mbarrier,
                                                                 tcgen05_commit, tcgen05_mma, tma)

from regen import Case, HostTMA, Input, Output, Ptr, TritonKernel

BM, BN, BK, STAGES = 128, 64, 64, 3
A_LAYOUT = gl.NVMMASharedLayout.get_default_for([BM, BK], gl.float16)
B_LAYOUT = gl.NVMMASharedLayout.get_default_for([BN, BK], gl.float16)


@gluon.jit
def _epilogue(c_ptr, M, N, acc_tmem, acc_ready, acc_empty, num_tiles, n_tiles_n,
              BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr):
    reg: gl.constexpr = acc_tmem.index(0).get_reg_layout()
    i = 0
    for tile in range(gl.program_id(0), num_tiles, gl.num_programs(0)):
        b = i % 2
        mbarrier.wait(acc_ready.index(b), (i // 2) & 1)
        acc = acc_tmem.index(b).load(reg)
        mbarrier.arrive(acc_empty.index(b), count=1)
        rm = (tile // n_tiles_n) * BLOCK_M + gl.arange(0, BLOCK_M, gl.SliceLayout(1, reg))
        rn = (tile % n_tiles_n) * BLOCK_N + gl.arange(0, BLOCK_N, gl.SliceLayout(0, reg))
        gl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))
        i += 1


@gluon.jit
def _loader(a_desc, b_desc, a_s, b_s, ready, empty, num_tiles, n_tiles_n, k_tiles,
            STAGES: gl.constexpr):
    BLOCK_M: gl.constexpr = a_desc.block_shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_shape[0]
    stage_bytes: gl.constexpr = a_desc.nbytes_per_cta + b_desc.nbytes_per_cta
    cnt = 0
    for tile in range(gl.program_id(0), num_tiles, gl.num_programs(0)):
        off_m = (tile // n_tiles_n) * BLOCK_M
        off_n = (tile % n_tiles_n) * BLOCK_N
        for kk in range(k_tiles):
            s = cnt % STAGES
            # A fresh barrier passes a wait for the parity before its first phase.
            mbarrier.wait(empty.index(s), ((cnt // STAGES) & 1) ^ 1)
            mbarrier.expect(ready.index(s), stage_bytes)
            tma.async_load(a_desc, [off_m, kk * BLOCK_K], ready.index(s), a_s.index(s))
            tma.async_load(b_desc, [off_n, kk * BLOCK_K], ready.index(s), b_s.index(s))
            cnt += 1


@gluon.jit
def _mma(a_s, b_s, acc_tmem, ready, empty, acc_ready, acc_empty, num_tiles, k_tiles,
         STAGES: gl.constexpr):
    cnt = 0
    i = 0
    for tile in range(gl.program_id(0), num_tiles, gl.num_programs(0)):
        b = i % 2
        mbarrier.wait(acc_empty.index(b), ((i // 2) & 1) ^ 1)
        acc = acc_tmem.index(b)
        for kk in range(k_tiles):
            s = cnt % STAGES
            mbarrier.wait(ready.index(s), (cnt // STAGES) & 1)
            tcgen05_mma(a_s.index(s), b_s.index(s).permute((1, 0)), acc, use_acc=kk > 0,
                        mbarriers=[empty.index(s)])
            cnt += 1
        tcgen05_commit(acc_ready.index(b))
        i += 1


@gluon.jit
def persistent_ws_kernel(a_desc, b_desc, c_ptr, M, N, K, STAGES: gl.constexpr):
    BLOCK_M: gl.constexpr = a_desc.block_shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_shape[0]
    a_s = gl.allocate_shared_memory(a_desc.dtype, [STAGES, BLOCK_M, BLOCK_K], a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [STAGES, BLOCK_N, BLOCK_K], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    acc_ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    acc_empty = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for q in gl.static_range(STAGES):
        mbarrier.init(ready.index(q), count=1)
        mbarrier.init(empty.index(q), count=1)
    for q in gl.static_range(2):
        mbarrier.init(acc_ready.index(q), count=1)
        mbarrier.init(acc_empty.index(q), count=1)
    fence_async_shared()
    acc_tmem = allocate_tensor_memory(gl.float32, [2, BLOCK_M, BLOCK_N],
                                      TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))
    n_tiles_n = gl.cdiv(N, BLOCK_N)
    num_tiles = gl.cdiv(M, BLOCK_M) * n_tiles_n
    k_tiles = gl.cdiv(K, BLOCK_K)
    gl.warp_specialize([
        (_epilogue, (c_ptr, M, N, acc_tmem, acc_ready, acc_empty, num_tiles, n_tiles_n, BLOCK_M,
                     BLOCK_N)),
        (_loader, (a_desc, b_desc, a_s, b_s, ready, empty, num_tiles, n_tiles_n, k_tiles, STAGES)),
        (_mma, (a_s, b_s, acc_tmem, ready, empty, acc_ready, acc_empty, num_tiles, k_tiles,
                STAGES)),
    ], [1, 1], [24, 24])


def _cases():
    M, N, K = 256, 200, 192
    progs = 3
    rng = np.random.default_rng(3201)
    a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(N, K)).astype(np.float16)
    expected = (a.astype(np.float64) @ b.astype(np.float64).T).astype(np.float32)
    why = "fp16 inputs exact; f32 accumulation of K = 192 terms: 2^-24·K·Σ|ab| < 1e-5"
    return [Case("ho_gluon_persistent_ws", grid=[progs],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f32", [M, N], expected, 1e-5, 1e-5, why)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_ptr=Ptr("c"), M=M, N=N,
                           K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{N}x{K}]^T, fp16 in, f32 out; {progs} "
                      "persistent programs over 8 tiles of 128x64, loader / MMA / epilogue "
                      "partitions, double-buffered TMEM accumulator (acc_ready / acc_empty)")]


def _desc(shape, layout):
    return f"tensordesc<fp16[{shape[0]},{shape[1]}],{layout!r}>"


KERNELS = [
    TritonKernel(name="ho_gluon_persistent_ws", fn=persistent_ws_kernel, gluon=True,
                 signature=dict(a_desc=_desc([BM, BK], A_LAYOUT), b_desc=_desc([BN, BK], B_LAYOUT),
                                c_ptr="*fp32", M="i32", N="i32", K="i32", STAGES="constexpr"),
                 constexprs=dict(STAGES=STAGES), cases=_cases, num_warps=4, num_stages=1,
                 aligned=("c_ptr", ), must_contain=("tcgen05.commit", "cp.async.bulk.tensor")),
]
