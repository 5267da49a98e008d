"""Triton dots that sm_100a lowers to the warp-level `mma.sync` (MMAv2), not tcgen05.mma.

Triton 3.9 takes the tcgen05 path only when the tile, types and warps allow it; small tiles
(BLOCK_M = 16 or 32), fp64 dots, int8 dots and f16 accumulators fall back to
`mma.sync.aligned` with operands staged through shared memory and `ldmatrix`. Each variant
below pins the exact mma.sync form it must produce (`must_contain`). fp8 inputs are converted
to f16 by Triton before an f16 mma.sync. Shapes are not tile multiples (masked loads).
"""
import numpy as np
import triton
import triton.language as tl

from regen import (Case, Input, Output, Ptr, TritonKernel, bf16_bits_to_f64, e4m3_bits_to_f64,
                   f32_to_bf16_bits, random_e4m3_bits, tf32_exact)


@triton.jit
def dot_sync_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                    ACC: tl.constexpr, PREC: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :],
                    mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_n[None, :],
                    mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PREC, out_dtype=ACC)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _f16(rng, shape):
    x = rng.uniform(-1, 1, size=shape).astype(np.float16)
    return x, "f16", x.astype(np.float64)


def _bf16(rng, shape):
    bits = f32_to_bf16_bits(rng.uniform(-1, 1, size=shape).astype(np.float32))
    return bits, "bf16", bf16_bits_to_f64(bits)


def _tf32(rng, shape):
    x = tf32_exact(rng, shape)
    return x, "f32", x.astype(np.float64)


def _i8(rng, shape):
    x = rng.integers(-128, 128, size=shape).astype(np.int8)
    return x, "i8", x.astype(np.float64)


def _f64(rng, shape):
    x = rng.uniform(-1, 1, size=shape)
    return x, "f64", x


def _fp8(rng, shape):
    bits = random_e4m3_bits(rng, shape, max_abs=2.0)
    return bits, "fp8e4m3", e4m3_bits_to_f64(bits)


HMMA_WHY = ("f32 accumulation in the tensor core: each mma.sync step truncates its terms below "
            "2^-25 of the largest and rounds toward zero (H100-measured, docs/arch/mma-sync.md), "
            "about 2^-22 of sum|ab| <= K per step, K/16 steps")

# name: (a/b type, c type, c spec dtype, ACC, PREC, BLOCK_M, BLOCK_N, BLOCK_K, num_warps,
#        inputs, rtol, atol, why, the mma.sync form)
VARIANTS = {
    "fp16_m16": ("*fp16", "*fp32", "f32", "fp32", "tf32", 16, 64, 32, 4, _f16, 1e-4, 2e-4, HMMA_WHY,
                 "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
    "bf16_m32": ("*bf16", "*fp32", "f32", "fp32", "tf32", 32, 32, 32, 4, _bf16, 1e-4, 2e-4, HMMA_WHY,
                 "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
    "fp16acc": ("*fp16", "*fp16", "f16", "fp16", "tf32", 16, 64, 32, 4, _f16, 1e-2, 2e-2,
                "f16 accumulator: every mma.sync step rounds the running sum (|sum| <= 10 or so) "
                "to f16, 2^-11 relative, K/16 = 5 steps",
                "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"),
    "tf32_m16": ("*fp32", "*fp32", "f32", "fp32", "tf32", 16, 64, 16, 4, _tf32, 1e-4, 2e-4,
                 "inputs exact in tf32; " + HMMA_WHY,
                 "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"),
    "i8": ("*i8", "*i32", "i32", "int32", "tf32", 16, 64, 32, 4, _i8, 0.0, 0.0,
           "integer products and sums are exact",
           "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32"),
    "fp64": ("*fp64", "*fp64", "f64", "fp64", "tf32", 16, 16, 16, 4, _f64, 1e-12, 1e-12,
             "f64 fused multiply-adds: K roundings of 2^-53 relative",
             "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"),
    "fp8_m16": ("*fp8e4nv", "*fp32", "f32", "fp32", "tf32", 16, 64, 32, 4, _fp8, 1e-4, 1e-3,
                "e4m3 converted exactly to f16 by Triton; " + HMMA_WHY + " (sum|ab| <= 4K)",
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
}

SHAPE = (50, 72, 80)  # M, N, K: no dimension a tile multiple


def _cases(variant):
    ab_ty, c_ty, c_dtype, _acc, _prec, bm, bn, _bk, _w, make, rtol, atol, why, _form = VARIANTS[variant]
    name = f"dot_sync_{variant}"

    def cases():
        M, N, K = SHAPE
        rng = np.random.default_rng(7)
        a, a_dtype, a64 = make(rng, (M, K))
        b, b_dtype, b64 = make(rng, (K, N))
        exp = a64 @ b64
        exp = exp.astype(np.float64 if c_dtype in ("f64", "i32") else np.float32)
        return [Case(
            name=name, grid=[triton.cdiv(M, bm), triton.cdiv(N, bn)],
            buffers=dict(a=Input(a, a_dtype), b=Input(b, b_dtype),
                         c=Output(c_dtype, [M, N], exp, rtol, atol, why)),
            args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K,
                      stride_am=K, stride_bk=N, stride_cm=N),
            note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}], {variant}: a {bm}x{bn} tile, which "
                 "Triton lowers to warp-level mma.sync on sm_100a")]

    return cases


def _kernel(variant):
    ab_ty, c_ty, _cd, acc, prec, bm, bn, bk, warps, *_rest, form = VARIANTS[variant]
    sig = dict(a_ptr=ab_ty, b_ptr=ab_ty, c_ptr=c_ty, M="i32", N="i32", K="i32", stride_am="i32",
               stride_bk="i32", stride_cm="i32", BLOCK_M="constexpr", BLOCK_N="constexpr",
               BLOCK_K="constexpr", ACC="constexpr", PREC="constexpr")
    return TritonKernel(name=f"dot_sync_{variant}", fn=dot_sync_kernel, signature=sig,
                        constexprs=dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                        ACC=getattr(tl, {"fp32": "float32", "fp16": "float16",
                                                         "int32": "int32", "fp64": "float64"}[acc]),
                                        PREC=prec),
                        cases=_cases(variant), num_warps=warps, num_stages=2,
                        aligned=("a_ptr", "b_ptr", "c_ptr"), must_contain=(form,))


KERNELS = [_kernel(v) for v in VARIANTS]
