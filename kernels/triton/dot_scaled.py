"""Block-scaled (microscaling) matmul with `tl.dot_scaled`: mxfp8 (e4m3) and mxfp4 (e2m1).

Every 32 consecutive K elements share one e8m0 scale (2^(s-127)); A scales are [M, K/32] and
B scales are [N, K/32]. fp4 values are packed two per byte along K, first element in the low
nibble (Triton's documented packing). On sm_100a this lowers to tcgen05.mma with
`block_scale` and the scales in Tensor Memory.
"""
import numpy as np
import triton
import triton.language as tl

from regen import (Case, Input, Output, Ptr, TritonKernel, e2m1_nibbles_to_f64, e4m3_bits_to_f64,
                   e8m0_to_f64, random_e4m3_bits)


@triton.jit
def mx_matmul_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M, N, K,
                     FORMAT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr):
    PACK: tl.constexpr = 2 if FORMAT == "e2m1" else 1
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_kp = tl.arange(0, BLOCK_K // PACK)
    offs_ks = tl.arange(0, BLOCK_K // 32)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * (K // PACK) + (k0 // PACK + offs_kp)[None, :])
        b = tl.load(b_ptr + (k0 // PACK + offs_kp)[:, None] * N + offs_n[None, :])
        sa = tl.load(a_scale_ptr + offs_m[:, None] * (K // 32) + (k0 // 32 + offs_ks)[None, :])
        sb = tl.load(b_scale_ptr + offs_n[:, None] * (K // 32) + (k0 // 32 + offs_ks)[None, :])
        acc = tl.dot_scaled(a, sa, FORMAT, b, sb, FORMAT, acc)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc)


def _cases(fmt, name, seed):
    def cases():
        M, N, K = 256, 128, 256
        rng = np.random.default_rng(seed)
        if fmt == "e4m3":
            a = random_e4m3_bits(rng, (M, K))
            b = random_e4m3_bits(rng, (K, N))
            a64, b64 = e4m3_bits_to_f64(a), e4m3_bits_to_f64(b)
            a_dtype = b_dtype = "fp8e4m3"
        else:
            an = rng.integers(0, 16, size=(M, K), dtype=np.uint8)
            bn = rng.integers(0, 16, size=(K, N), dtype=np.uint8)
            a = (an[:, 0::2] | (an[:, 1::2] << 4)).astype(np.uint8)        # [M, K/2]
            b = (bn[0::2, :] | (bn[1::2, :] << 4)).astype(np.uint8)        # [K/2, N]
            a64, b64 = e2m1_nibbles_to_f64(an), e2m1_nibbles_to_f64(bn)
            a_dtype = b_dtype = "u8"  # two e2m1 per byte: no spec dtype for packed fp4
        sa = rng.integers(125, 130, size=(M, K // 32), dtype=np.uint8)    # 2^-2 .. 2^2
        sb = rng.integers(125, 130, size=(N, K // 32), dtype=np.uint8)
        a_scaled = a64 * np.repeat(e8m0_to_f64(sa), 32, axis=1)
        b_scaled = b64 * np.repeat(e8m0_to_f64(sb), 32, axis=1).T
        expected = (a_scaled @ b_scaled).astype(np.float32)
        why = ("element products times power-of-two scales are exact in f32; the f32 sum of "
               "K = 256 terms stays within 1e-3 relative / 1e-2 absolute (|c| up to ~1e3)")
        return [Case(name, grid=[M // 128, N // 128],
                     buffers=dict(a=Input(a, a_dtype), a_scale=Input(sa, "u8"),
                                  b=Input(b, b_dtype), b_scale=Input(sb, "u8"),
                                  c=Output("f32", [M, N], expected, 1e-3, 1e-2, why)),
                     args=dict(a_ptr=Ptr("a"), a_scale_ptr=Ptr("a_scale"), b_ptr=Ptr("b"),
                               b_scale_ptr=Ptr("b_scale"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                     note=f"C[{M}x{N}] = (A*sA)[{M}x{K}] @ (B*sB)[{K}x{N}], {fmt} elements, "
                          "e8m0 scales per 32 K")]
    return cases


def _kernel(fmt, name, block_k, seed):
    kind = ("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale" if fmt == "e4m3"
            else "tcgen05.mma.cta_group::1.kind::mxf4.block_scale")
    return TritonKernel(
        name=name, fn=mx_matmul_kernel,
        signature=dict(a_ptr="*u8", a_scale_ptr="*u8", b_ptr="*u8", b_scale_ptr="*u8",
                       c_ptr="*fp32", M="i32", N="i32", K="i32", FORMAT="constexpr",
                       BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr"),
        constexprs=dict(FORMAT=fmt, BLOCK_M=128, BLOCK_N=128, BLOCK_K=block_k),
        cases=_cases(fmt, name, seed), num_warps=4, num_stages=2,
        aligned=("a_ptr", "a_scale_ptr", "b_ptr", "b_scale_ptr", "c_ptr"),
        must_contain=(kind, "tcgen05.ld"))


KERNELS = [_kernel("e4m3", "dot_scaled_mxfp8", 128, 51), _kernel("e2m1", "dot_scaled_mxfp4", 128, 52)]
