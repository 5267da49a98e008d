#!/usr/bin/env python3
"""A differential sweep over Triton's code-generation choices: random matmul configurations,
compiled for sm_100a, run and checked by tmemu, compared with numpy.

    kernels/.venv/bin/python kernels/sweep_triton.py [--count N] [--seed S] [--only I]
                                                    [--tmemu PATH] [--keep DIR]

The committed corpus pins a few dozen compiled kernels; a compiler picks its lowering from the
tile shape, the operand majors, the dtypes, the stage count, the warp count, warp
specialisation and what it can prove about alignment, and users' kernels take other corners of
that space. Each configuration here is drawn from a seeded generator (configuration I of seed S
is always the same kernel), compiled with the pinned Triton (kernels/requirements.txt) through
the same path as the corpus (`regen.generate_one`: ptxas must accept the PTX), and must:

- compute numpy's product under `tmemu run` (inputs from {0, ±0.25, ±0.5, ±0.75, ±1, ±1.5, ±2},
  exact in every input type, and K small enough that every partial sum is exact in f32: the
  only error allowed is the output's own rounding, argued per output type below), and
- be `clean` under `tmemu check` (5 schedules, every checker): correct compiler output has no
  findings, so any finding is a false positive or an engine bug.

A configuration Triton refuses to compile is counted as skipped, not failed. Failures keep the
generated spec, PTX and inputs under --keep (default target/sweep-triton/) with the command
that reproduces them. Slow (1-5 s of compiling per configuration): not part of CI; docs/arch/
testing.md says when to run it.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "kernels"))

import numpy as np  # noqa: E402

import regen  # noqa: E402
from regen import Case, HostTMA, Input, Output, Ptr, TritonKernel  # noqa: E402

VALUES = np.array([0.0, 0.25, -0.25, 0.5, -0.5, 0.75, -0.75, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0])

# input type: Triton pointer type, spec dtype, bit pattern maker, smallest BLOCK_K Triton takes
INPUTS = {
    "fp16": ("*fp16", "f16", 16),
    "bf16": ("*bf16", "bf16", 16),
    "tf32": ("*fp32", "f32", 8),
    "fp8e4m3": ("*fp8e4nv", "fp8e4m3", 32),
    "fp8e5m2": ("*fp8e5", "fp8e5m2", 32),
    "i8": ("*i8", "i8", 32),
}
# output type: Triton pointer type, spec dtype, rtol and why. The accumulator is exact (inputs
# are multiples of 1/4 of magnitude <= 2, so products are multiples of 1/16 <= 4 and K <= 320
# keeps every partial sum below 2^11 on a 1/16 grid: 15 bits, within f32's 24); the output's
# round-to-nearest adds at most half an ulp, 2^-11 relative for f16 and 2^-8 for bf16 (no
# subnormals: the grid step 1/16 is above both types' smallest normal).
OUTPUTS = {
    "f32": ("*fp32", "f32", 0.0, "exact: every partial sum is exact in f32"),
    "f16": ("*fp16", "f16", 2.0 ** -11, "f16 output rounding: half an ulp, 2^-11 relative"),
    "bf16": ("*bf16", "bf16", 2.0 ** -8, "bf16 output rounding: half an ulp, 2^-8 relative"),
    "i32": ("*i32", "i32", 0.0, "exact: s32 accumulation of small integers"),
}


# sm_100's shared memory per CTA (227 KiB): Triton compiles larger pipelines, then refuses them
SHARED_LIMIT = 232448


def encode(values: np.ndarray, dtype: str) -> np.ndarray:
    """`values` (exactly representable) as the spec dtype's numpy array (bit patterns for bf16
    and fp8)."""
    if dtype == "f16":
        return values.astype(np.float16)
    if dtype == "f32":
        return values.astype(np.float32)
    if dtype == "bf16":
        return regen.f32_to_bf16_bits(values.astype(np.float32))
    if dtype == "fp8e5m2":
        # e5m2 is f16's top byte (same exponent, two mantissa bits); exact for VALUES
        return (values.astype(np.float16).view(np.uint16) >> 8).astype(np.uint8)
    if dtype == "fp8e4m3":
        table = {float(regen.e4m3_bits_to_f64(np.array([b], np.uint8))[0]): b
                 for b in range(256) if b not in (0x7F, 0xFF, 0x80)}
        return np.vectorize(lambda v: table[float(v)], otypes=[np.uint8])(values)
    if dtype == "i8":
        return values.astype(np.int8)
    raise ValueError(dtype)


def draw(seed: int, index: int) -> dict:
    """Configuration `index` of `seed`: a dict of plain values (printed on failure)."""
    r = random.Random(seed * 1_000_003 + index)
    roll = r.random()
    if roll < 0.3:
        return draw_tma(r, seed, index)
    if roll < 0.5:
        return draw_attention(r, seed, index)
    if roll < 0.65:
        return draw_scaled(r, seed, index)
    inp = r.choice(list(INPUTS))
    out = "i32" if inp == "i8" else r.choice(["f32", "f16", "bf16"])
    kmin = INPUTS[inp][2]
    bm = r.choice([64, 128, 128])
    bn = r.choice([16, 32, 64, 128, 128, 256])
    bk = r.choice([k for k in (8, 16, 32, 64, 128) if k >= kmin])
    # 8 warps for wide tiles; 4 otherwise (Triton's own defaults)
    warps = r.choice([4, 8]) if bm * bn >= 128 * 128 else 4
    cfg = dict(
        index=index, seed=seed, input=inp, output=out, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
        num_warps=warps, num_stages=r.choice([1, 2, 3, 4]),
        a_major_m=r.random() < 0.3, b_major_n=r.random() < 0.7,
        group_m=r.choice([1, 1, 4]), bias=inp != "i8" and r.random() < 0.3,
        relu=r.random() < 0.2, warp_specialize=r.random() < 0.25,
        aligned=r.random() < 0.6,
        M=r.choice([r.randrange(2, 300), bm * r.randrange(1, 3)]),
        N=r.choice([r.randrange(2, 300), bn * r.randrange(1, 3)]),
        K=r.choice([r.randrange(2, 321), bk * r.randrange(1, 4)]),
    )
    if cfg["aligned"]:
        # the JIT marks an int divisible by 16 and a 16-byte-aligned pointer `tt.divisibility =
        # 16`; make the leading dimensions qualify so the specialisation is the JIT's
        for d in ("M", "N", "K"):
            cfg[d] = max(16, (cfg[d] + 15) // 16 * 16)
    return cfg


def draw_tma(r: random.Random, seed: int, index: int) -> dict:
    """The TMA family: operands and C through tensor maps (host `TensorDescriptor` parameters
    or `tl.make_tensor_descriptor` in the kernel), optionally a persistent tile loop over
    fewer CTAs than tiles, optionally warp-specialised."""
    inp = r.choice(["fp16", "bf16", "tf32", "fp8e4m3", "fp8e5m2"])
    kmin = INPUTS[inp][2]
    bm = r.choice([64, 128, 128])
    bn = r.choice([32, 64, 128, 128, 256])
    bk = r.choice([k for k in (16, 32, 64, 128) if k >= kmin])
    cfg = dict(
        family="tma", index=index, seed=seed, input=inp, output=r.choice(["f32", "f16", "bf16"]),
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=r.choice([4, 4, 8]),
        num_stages=r.choice([1, 2, 3, 4]), host=r.random() < 0.5, b_major_n=r.random() < 0.6,
        persistent=r.choice([0, 0, 2, 3]), warp_specialize=r.random() < 0.35,
        # a tensor map's row pitch is a multiple of 16 bytes (cuTensorMapEncodeTiled): K and N
        # are multiples of 16 elements (covers 1-, 2- and 4-byte types); M is free
        M=r.choice([r.randrange(2, 300), bm * r.randrange(1, 3)]),
        N=16 * r.randrange(1, 19), K=16 * r.randrange(1, 21))
    return cfg


def draw_attention(r: random.Random, seed: int, index: int) -> dict:
    """The attention family: flash-attention forward (online softmax, two `tl.dot`s, P rounded
    to the input type between them), optionally causal."""
    d = r.choice([16, 32, 64, 64, 128])
    return dict(family="attention", index=index, seed=seed, input=r.choice(["fp16", "bf16"]),
                HEAD_DIM=d, BLOCK_M=r.choice([64, 128, 128]),
                BLOCK_N=r.choice([n for n in (16, 32, 64, 128) if n * d <= 128 * 128]),
                num_warps=r.choice([4, 4, 8]), num_stages=r.choice([1, 2, 3]),
                causal=r.random() < 0.4, heads=r.randrange(1, 4),
                seq=r.choice([r.randrange(2, 300), 64 * r.randrange(1, 5)]),
                aligned=r.random() < 0.6)


def draw_scaled(r: random.Random, seed: int, index: int) -> dict:
    """The block-scaled family: `tl.dot_scaled` with e8m0 scales per 32 K, each side's element
    format drawn on its own (mixed e2m1 x e4m3 and so on)."""
    bm, bn = 128, r.choice([64, 128, 128, 256])
    bk = r.choice([64, 128, 128, 256])
    return dict(family="scaled", index=index, seed=seed,
                a_format=r.choice(["e4m3", "e5m2", "e2m1"]),
                b_format=r.choice(["e4m3", "e5m2", "e2m1"]), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                num_warps=r.choice([4, 4, 8]), num_stages=r.choice([1, 2, 3]),
                M=bm * r.randrange(1, 3), N=bn * r.randrange(1, 3),
                K=bk * r.randrange(1, max(2, 512 // bk) + 1))


def kernel_fn():
    global triton, tl
    import triton
    import triton.language as tl

    @triton.jit
    def sweep_matmul(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K, stride_a, stride_b, stride_c,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                     A_MAJOR_M: tl.constexpr, B_MAJOR_N: tl.constexpr, GROUP_M: tl.constexpr,
                     BIAS: tl.constexpr, RELU: tl.constexpr, INT_ACC: tl.constexpr,
                     WS: tl.constexpr, ZERO: tl.constexpr):
        pid = tl.program_id(0)
        num_m = tl.cdiv(M, BLOCK_M)
        num_n = tl.cdiv(N, BLOCK_N)
        if GROUP_M > 1:
            group = pid // (GROUP_M * num_n)
            first_m = group * GROUP_M
            size_m = min(num_m - first_m, GROUP_M)
            pid_m = first_m + (pid % (GROUP_M * num_n)) % size_m
            pid_n = (pid % (GROUP_M * num_n)) // size_m
        else:
            pid_m = pid // num_n
            pid_n = pid % num_n
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        if INT_ACC:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
        else:
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in tl.range(0, K, BLOCK_K, warp_specialize=WS):
            ks = k0 + offs_k
            mask_a = (offs_m[:, None] < M) & (ks[None, :] < K)
            if A_MAJOR_M:  # A stored K x M
                a = tl.load(a_ptr + ks[None, :] * stride_a + offs_m[:, None], mask=mask_a, other=ZERO)
            else:  # A stored M x K
                a = tl.load(a_ptr + offs_m[:, None] * stride_a + ks[None, :], mask=mask_a, other=ZERO)
            mask_b = (ks[:, None] < K) & (offs_n[None, :] < N)
            if B_MAJOR_N:  # B stored K x N
                b = tl.load(b_ptr + ks[:, None] * stride_b + offs_n[None, :], mask=mask_b, other=ZERO)
            else:  # B stored N x K
                b = tl.load(b_ptr + offs_n[None, :] * stride_b + ks[:, None], mask=mask_b, other=ZERO)
            acc = tl.dot(a, b, acc)
        if BIAS:
            acc += tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0)[None, :]
        if RELU:
            acc = tl.maximum(acc, 0)
        tl.store(c_ptr + offs_m[:, None] * stride_c + offs_n[None, :],
                 acc.to(c_ptr.dtype.element_ty),
                 mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

    return sweep_matmul


def kernel_fns():
    # module globals, not locals: Triton resolves names in a host descriptor kernel's globals
    global triton, tl
    import triton
    import triton.language as tl

    @triton.jit
    def _tile_loop(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr, B_MAJOR_N: tl.constexpr, STEP: tl.constexpr,
                   WS: tl.constexpr):
        num_n = tl.cdiv(N, BLOCK_N)
        num_tiles = tl.cdiv(M, BLOCK_M) * num_n
        for tile in tl.range(tl.program_id(0), num_tiles, STEP, warp_specialize=WS):
            off_m = (tile // num_n) * BLOCK_M
            off_n = (tile % num_n) * BLOCK_N
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for k in range(0, K, BLOCK_K):
                a = a_desc.load([off_m, k])
                if B_MAJOR_N:
                    b = b_desc.load([k, off_n])
                else:
                    b = b_desc.load([off_n, k]).T
                acc = tl.dot(a, b, acc)
            c_desc.store([off_m, off_n], acc.to(c_desc.dtype))

    @triton.jit
    def sweep_tma_host(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, B_MAJOR_N: tl.constexpr,
                       STEP: tl.constexpr, WS: tl.constexpr):
        _tile_loop(a_desc, b_desc, c_desc, M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, B_MAJOR_N, STEP, WS)

    @triton.jit
    def sweep_tma_device(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, B_MAJOR_N: tl.constexpr,
                         STEP: tl.constexpr, WS: tl.constexpr):
        a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                           block_shape=[BLOCK_M, BLOCK_K])
        if B_MAJOR_N:
            b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                               block_shape=[BLOCK_K, BLOCK_N])
        else:
            b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1],
                                               block_shape=[BLOCK_N, BLOCK_K])
        c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                           block_shape=[BLOCK_M, BLOCK_N])
        _tile_loop(a_desc, b_desc, c_desc, M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, B_MAJOR_N, STEP, WS)

    @triton.jit
    def sweep_attention(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, seq_len, head_stride,
                        HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        CAUSAL: tl.constexpr):
        pid_m = tl.program_id(0)
        base = tl.program_id(1) * head_stride
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        offs_d = tl.arange(0, HEAD_DIM)
        q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
                    mask=offs_m[:, None] < seq_len, other=0.0)
        m_i = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
        l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
        acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
        qk_scale = sm_scale * 1.4426950408889634
        if CAUSAL:
            end = tl.minimum((pid_m + 1) * BLOCK_M, seq_len)
        else:
            end = seq_len
        for start in range(0, end, BLOCK_N):
            kn = start + offs_n
            kt = tl.load(k_ptr + base + kn[None, :] * HEAD_DIM + offs_d[:, None],
                         mask=kn[None, :] < seq_len, other=0.0)
            qk = tl.dot(q, kt) * qk_scale
            keep = kn[None, :] < seq_len
            if CAUSAL:
                keep = keep & (kn[None, :] <= offs_m[:, None])
            qk = tl.where(keep, qk, -float("inf"))
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            p = tl.math.exp2(qk - m_ij[:, None])
            alpha = tl.math.exp2(m_i - m_ij)
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(v_ptr + base + kn[:, None] * HEAD_DIM + offs_d[None, :],
                        mask=kn[:, None] < seq_len, other=0.0)
            acc = tl.dot(p.to(q.dtype), v, acc * alpha[:, None])
            m_i = m_ij
        out = acc / l_i[:, None]
        tl.store(o_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
                 out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < seq_len)

    @triton.jit
    def sweep_scaled(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M, N, K,
                     A_FORMAT: tl.constexpr, B_FORMAT: tl.constexpr, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        A_PACK: tl.constexpr = 2 if A_FORMAT == "e2m1" else 1
        B_PACK: tl.constexpr = 2 if B_FORMAT == "e2m1" else 1
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_ka = tl.arange(0, BLOCK_K // A_PACK)
        offs_kb = tl.arange(0, BLOCK_K // B_PACK)
        offs_ks = tl.arange(0, BLOCK_K // 32)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            a = tl.load(a_ptr + offs_m[:, None] * (K // A_PACK) + (k0 // A_PACK + offs_ka)[None, :])
            b = tl.load(b_ptr + (k0 // B_PACK + offs_kb)[:, None] * N + offs_n[None, :])
            sa = tl.load(a_scale_ptr + offs_m[:, None] * (K // 32) + (k0 // 32 + offs_ks)[None, :])
            sb = tl.load(b_scale_ptr + offs_n[:, None] * (K // 32) + (k0 // 32 + offs_ks)[None, :])
            acc = tl.dot_scaled(a, sa, A_FORMAT, b, sb, B_FORMAT, acc)
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc)

    return dict(ptr=kernel_fn(), tma_host=sweep_tma_host, tma_device=sweep_tma_device,
                attention=sweep_attention, scaled=sweep_scaled)


TRITON_ELEM = {"fp16": "fp16", "bf16": "bf16", "tf32": "fp32", "fp8e4m3": "fp8e4nv",
               "fp8e5m2": "fp8e5", "f32": "fp32", "f16": "fp16"}


def operands(cfg: dict):
    """(A as stored, B as stored, bias, the f64 reference) for a configuration."""
    M, N, K = cfg["M"], cfg["N"], cfg["K"]
    rng = np.random.default_rng([cfg["seed"], cfg["index"]])
    pick = (lambda shape: rng.integers(-4, 5, size=shape).astype(np.float64)) \
        if cfg["input"] == "i8" else (lambda shape: rng.choice(VALUES, size=shape))
    a64, b64 = pick((M, K)), pick((K, N))
    bias64 = rng.choice(VALUES, size=N) if cfg.get("bias") else np.zeros(N)
    ref = a64 @ b64 + bias64[None, :]
    if cfg.get("relu"):
        ref = np.maximum(ref, 0)
    a_store = a64.T.copy() if cfg.get("a_major_m") else a64
    b_store = b64 if cfg["b_major_n"] else b64.T.copy()
    return a_store, b_store, bias64, ref


def build_tma(cfg: dict, fns) -> TritonKernel:
    in_dtype = INPUTS[cfg["input"]][1]
    _c_ty, c_dtype, rtol, why = OUTPUTS[cfg["output"]]
    M, N, K = cfg["M"], cfg["N"], cfg["K"]
    bm, bn, bk = cfg["BLOCK_M"], cfg["BLOCK_N"], cfg["BLOCK_K"]
    tiles = -(-M // bm) * -(-N // bn)
    grid = min(cfg["persistent"], tiles) if cfg["persistent"] else tiles
    const = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, B_MAJOR_N=cfg["b_major_n"],
                 STEP=grid, WS=cfg["warp_specialize"])
    t_in, t_out = TRITON_ELEM[cfg["input"]], TRITON_ELEM[cfg["output"]]
    if cfg["host"]:
        b_box = [bk, bn] if cfg["b_major_n"] else [bn, bk]
        sig = dict(a_desc=f"tensordesc<{t_in}[{bm}, {bk}]>",
                   b_desc=f"tensordesc<{t_in}[{b_box[0]}, {b_box[1]}]>",
                   c_desc=f"tensordesc<{t_out}[{bm}, {bn}]>", M="i32", N="i32", K="i32")
        fn, aligned = fns["tma_host"], ()
    else:
        sig = dict(a_ptr=f"*{t_in}", b_ptr=f"*{t_in}", c_ptr=f"*{t_out}", M="i32", N="i32",
                   K="i32")
        fn, aligned = fns["tma_device"], ("a_ptr", "b_ptr", "c_ptr")
    sig.update({k: "constexpr" for k in const})
    name = f"sweep_{cfg['seed']}_{cfg['index']}"

    def cases():
        a_store, b_store, _, ref = operands(cfg)
        buffers = dict(a=Input(encode(a_store, in_dtype), in_dtype),
                       b=Input(encode(b_store, in_dtype), in_dtype),
                       c=Output(c_dtype, [M, N], ref.astype(np.float64), rtol, 0.0, why))
        if cfg["host"]:
            args = dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_desc=HostTMA("c"))
        else:
            args = dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"))
        return [Case(name=name, grid=[grid], buffers=buffers, args=dict(args, M=M, N=N, K=K),
                     note="kernels/sweep_triton.py configuration:\n" + json.dumps(cfg))]

    return TritonKernel(name=name, fn=fn, signature=sig, constexprs=const, cases=cases,
                        num_warps=cfg["num_warps"], num_stages=cfg["num_stages"],
                        aligned=aligned, must_contain=())


# P is rounded to the input type before P @ V: each term's relative error is at most half an
# ulp (2^-11 fp16, 2^-8 bf16), and the terms sum to at most max|V| = 1 times l, so O's error
# from it is below that half ulp in absolute terms; O's own rounding to the input type adds
# the same relative amount. ex2.approx's 2^-22 is far below both. Twice each, for margin.
ATTENTION_TOL = {"fp16": (2 * 2.0 ** -11, 2 * 2.0 ** -11), "bf16": (2 * 2.0 ** -8, 2 * 2.0 ** -8)}


def build_attention(cfg: dict, fns) -> TritonKernel:
    ty, dtype, _ = INPUTS[cfg["input"]]
    d, heads, seq = cfg["HEAD_DIM"], cfg["heads"], cfg["seq"]
    const = dict(HEAD_DIM=d, BLOCK_M=cfg["BLOCK_M"], BLOCK_N=cfg["BLOCK_N"], CAUSAL=cfg["causal"])
    sig = dict(q_ptr=ty, k_ptr=ty, v_ptr=ty, o_ptr=ty, sm_scale="fp32", seq_len="i32",
               head_stride="i32", **{k: "constexpr" for k in const})
    args = dict(seq_len=seq, head_stride=seq * d)
    aligned = ("q_ptr", "k_ptr", "v_ptr", "o_ptr") + tuple(
        k for k, v in args.items() if v % 16 == 0) if cfg["aligned"] else ()
    name = f"sweep_{cfg['seed']}_{cfg['index']}"
    scale = float(np.float32(1.0 / np.sqrt(d)))

    def cases():
        rng = np.random.default_rng([cfg["seed"], cfg["index"]])
        q, k, v = (encode(rng.uniform(-1, 1, size=(heads, seq, d)).astype(
            np.float16 if dtype == "f16" else np.float32).astype(np.float64), dtype)
            for _ in range(3))
        as64 = (lambda x: x.astype(np.float64)) if dtype == "f16" else regen.bf16_bits_to_f64
        q64, k64, v64 = as64(q), as64(k), as64(v)
        sc = np.einsum("hmd,hnd->hmn", q64, k64) * scale
        if cfg["causal"]:
            sc = np.where(np.tril(np.ones((seq, seq), bool))[None], sc, -np.inf)
        p = np.exp(sc - sc.max(axis=-1, keepdims=True))
        p /= p.sum(axis=-1, keepdims=True)
        ref = np.einsum("hmn,hnd->hmd", p, v64)
        rtol, atol = ATTENTION_TOL[cfg["input"]]
        buffers = dict(q=Input(q, dtype), k=Input(k, dtype), v=Input(v, dtype),
                       o=Output(dtype, [heads, seq, d], ref, rtol, atol,
                                "P and O rounded to the input type: half an ulp each, doubled"))
        return [Case(name=name, grid=[-(-seq // cfg["BLOCK_M"]), heads], buffers=buffers,
                     args=dict(q_ptr=Ptr("q"), k_ptr=Ptr("k"), v_ptr=Ptr("v"), o_ptr=Ptr("o"),
                               sm_scale=scale, **args),
                     note="kernels/sweep_triton.py configuration:\n" + json.dumps(cfg))]

    return TritonKernel(name=name, fn=fns["attention"], signature=sig, constexprs=const,
                        cases=cases, num_warps=cfg["num_warps"], num_stages=cfg["num_stages"],
                        aligned=aligned, must_contain=())


E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def scaled_operand(rng, fmt: str, rows: int, cols: int, pack_axis: int):
    """(stored bytes, f64 values) of a rows x cols operand in `fmt`; e2m1 is packed two per
    byte along `pack_axis` (K), first element in the low nibble (Triton's packing)."""
    if fmt == "e2m1":
        nib = rng.integers(0, 16, size=(rows, cols), dtype=np.uint8)
        vals = regen.e2m1_nibbles_to_f64(nib)
        lo, hi = (nib[:, 0::2], nib[:, 1::2]) if pack_axis == 1 else (nib[0::2], nib[1::2])
        return (lo | (hi << 4)).astype(np.uint8), vals
    vals = rng.choice(VALUES, size=(rows, cols))
    return encode(vals, "fp8e4m3" if fmt == "e4m3" else "fp8e5m2"), vals


def build_scaled(cfg: dict, fns) -> TritonKernel:
    M, N, K = cfg["M"], cfg["N"], cfg["K"]
    const = dict(A_FORMAT=cfg["a_format"], B_FORMAT=cfg["b_format"], BLOCK_M=cfg["BLOCK_M"],
                 BLOCK_N=cfg["BLOCK_N"], BLOCK_K=cfg["BLOCK_K"])
    sig = dict(a_ptr="*u8", a_scale_ptr="*u8", b_ptr="*u8", b_scale_ptr="*u8", c_ptr="*fp32",
               M="i32", N="i32", K="i32", **{k: "constexpr" for k in const})
    name = f"sweep_{cfg['seed']}_{cfg['index']}"

    def cases():
        rng = np.random.default_rng([cfg["seed"], cfg["index"]])
        a, a64 = scaled_operand(rng, cfg["a_format"], M, K, 1)
        b, b64 = scaled_operand(rng, cfg["b_format"], K, N, 0)
        # scales 2^-1 .. 2^1: elements on a 2^-2 grid (e2m1: 2^-1) of magnitude <= 6, so every
        # scaled product is on a 2^-6 grid below 2^8 and K <= 512 keeps each partial sum within
        # 2^17 on that grid: 23 bits, exact in f32 whatever order the hardware adds in
        sa = rng.integers(126, 129, size=(M, K // 32), dtype=np.uint8)
        sb = rng.integers(126, 129, size=(N, K // 32), dtype=np.uint8)
        ref = (a64 * np.repeat(regen.e8m0_to_f64(sa), 32, axis=1)) @ \
            (b64 * np.repeat(regen.e8m0_to_f64(sb), 32, axis=1).T)
        buffers = dict(a=Input(a, "u8"), a_scale=Input(sa, "u8"), b=Input(b, "u8"),
                       b_scale=Input(sb, "u8"),
                       c=Output("f32", [M, N], ref, 0.0, 0.0, "exact: every partial sum is exact in f32"))
        return [Case(name=name, grid=[M // cfg["BLOCK_M"], N // cfg["BLOCK_N"]], buffers=buffers,
                     args=dict(a_ptr=Ptr("a"), a_scale_ptr=Ptr("a_scale"), b_ptr=Ptr("b"),
                               b_scale_ptr=Ptr("b_scale"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                     note="kernels/sweep_triton.py configuration:\n" + json.dumps(cfg))]

    return TritonKernel(name=name, fn=fns["scaled"], signature=sig, constexprs=const,
                        cases=cases, num_warps=cfg["num_warps"], num_stages=cfg["num_stages"],
                        aligned=("a_ptr", "a_scale_ptr", "b_ptr", "b_scale_ptr", "c_ptr"),
                        must_contain=())


def build(cfg: dict, fns) -> TritonKernel:
    if cfg.get("family") == "scaled":
        return build_scaled(cfg, fns)
    if cfg.get("family") == "tma":
        return build_tma(cfg, fns)
    if cfg.get("family") == "attention":
        return build_attention(cfg, fns)
    fn = fns["ptr"]
    ab_ty, in_dtype, _ = INPUTS[cfg["input"]]
    c_ty, c_dtype, rtol, why = OUTPUTS[cfg["output"]]
    M, N, K = cfg["M"], cfg["N"], cfg["K"]
    sig = dict(a_ptr=ab_ty, b_ptr=ab_ty, c_ptr=c_ty, bias_ptr="*fp32", M="i32", N="i32",
               K="i32", stride_a="i32", stride_b="i32", stride_c="i32")
    const = dict(BLOCK_M=cfg["BLOCK_M"], BLOCK_N=cfg["BLOCK_N"], BLOCK_K=cfg["BLOCK_K"],
                 A_MAJOR_M=cfg["a_major_m"], B_MAJOR_N=cfg["b_major_n"], GROUP_M=cfg["group_m"],
                 BIAS=cfg["bias"], RELU=cfg["relu"], INT_ACC=cfg["input"] == "i8",
                 WS=cfg["warp_specialize"], ZERO=0 if cfg["input"] == "i8" else 0.0)
    sig.update({k: "constexpr" for k in const})
    args = dict(M=M, N=N, K=K, stride_a=M if cfg["a_major_m"] else K,
                stride_b=N if cfg["b_major_n"] else K, stride_c=N)
    aligned = ("a_ptr", "b_ptr", "c_ptr", "bias_ptr") + tuple(
        k for k, v in args.items() if v % 16 == 0) if cfg["aligned"] else ()

    def cases():
        a_store, b_store, bias64, ref = operands(cfg)
        buffers = dict(
            a=Input(encode(a_store, in_dtype), in_dtype),
            b=Input(encode(b_store, in_dtype), in_dtype),
            bias=Input(bias64.astype(np.float32), "f32"),
            c=Output(c_dtype, [M, N], ref.astype(np.float64), rtol, 0.0, why))
        grid = [-(-M // cfg["BLOCK_M"]) * -(-N // cfg["BLOCK_N"])]
        return [Case(name=f"sweep_{cfg['seed']}_{cfg['index']}", grid=grid, buffers=buffers,
                     args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"),
                               bias_ptr=Ptr("bias"), **args),
                     note="kernels/sweep_triton.py configuration:\n" + json.dumps(cfg))]

    return TritonKernel(name=f"sweep_{cfg['seed']}_{cfg['index']}", fn=fn, signature=sig,
                        constexprs=const, cases=cases, num_warps=cfg["num_warps"],
                        num_stages=cfg["num_stages"], aligned=aligned, must_contain=())


def known_compiler_bug(cfg: dict, check_output: str) -> str | None:
    """A failure that is Triton's, already in the corpus: a tf32 operand in MN-major order is
    transposed through registers into one staging buffer that the next K step rewrites while
    the previous step's MMA may still read it (TM0209 under `check`; adversarial completion
    gives wrong numbers, immediate completion numpy's). tests/corpus/kernels/holdout_bugs:
    `ho3_bug_tf32_mn_b` (B) and `ho9_bug_tf32_mn_a` (A); docs/arch/holdout.md."""
    mn_major = cfg.get("a_major_m") or (cfg.get("family") == "tma" and cfg["b_major_n"])
    rules = set(re.findall(r"error\[(TM\d{4})\]", check_output))
    if cfg.get("input") == "tf32" and mn_major and rules == {"TM0209"}:
        return "Triton 3.9's tf32 MN-major staging race (holdout_bugs/ho3_bug_tf32_mn_b)"
    return None


def describe(cfg: dict) -> str:
    if cfg.get("family") == "scaled":
        return (f"[{cfg['index']}] dot_scaled {cfg['a_format']}x{cfg['b_format']} "
                f"{cfg['M']}x{cfg['N']}x{cfg['K']} tile {cfg['BLOCK_M']}x{cfg['BLOCK_N']}x"
                f"{cfg['BLOCK_K']} w{cfg['num_warps']} s{cfg['num_stages']}")
    if cfg.get("family") == "attention":
        return (f"[{cfg['index']}] attention {cfg['input']} heads {cfg['heads']} seq {cfg['seq']} "
                f"d {cfg['HEAD_DIM']} tile {cfg['BLOCK_M']}x{cfg['BLOCK_N']} w{cfg['num_warps']} "
                f"s{cfg['num_stages']}{' causal' if cfg['causal'] else ''}"
                f"{' div16' if cfg['aligned'] else ''}")
    flags = [("tma host" if cfg["host"] else "tma device") if cfg.get("family") == "tma" else "",
             f"persistent {cfg['persistent']}" if cfg.get("persistent") else "",
             "A^T" if cfg.get("a_major_m") else "", "" if cfg["b_major_n"] else "B^T",
             "ws" if cfg["warp_specialize"] else "", "div16" if cfg.get("aligned") else "",
             "bias" if cfg.get("bias") else "", "relu" if cfg.get("relu") else "",
             "g4" if cfg.get("group_m", 1) > 1 else ""]
    return (f"[{cfg['index']}] {cfg['input']}->{cfg['output']} {cfg['M']}x{cfg['N']}x{cfg['K']} "
            f"tile {cfg['BLOCK_M']}x{cfg['BLOCK_N']}x{cfg['BLOCK_K']} w{cfg['num_warps']} "
            f"s{cfg['num_stages']} " + " ".join(f for f in flags if f))


def tmemu_step(tmemu: str, args: list[str], spec: Path) -> tuple[bool, str]:
    try:
        p = subprocess.run([tmemu, *args, str(spec)], capture_output=True, text=True,
                           timeout=600, cwd=spec.parent)
    except subprocess.TimeoutExpired:
        return False, f"tmemu {' '.join(args)}: no answer in 600 s"
    out = p.stdout + p.stderr
    return p.returncode == 0, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", type=int, action="append", help="configuration index (repeatable)")
    ap.add_argument("--tmemu", default=str(REPO / "target" / "release" / "tmemu"))
    ap.add_argument("--keep", default=str(REPO / "target" / "sweep-triton"))
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a field of every drawn configuration (to narrow a failure "
                         "down: --set persistent=0 --set host=true); VALUE is JSON")
    opts = ap.parse_args(argv)
    regen.check_versions()
    indices = opts.only or list(range(opts.count))
    keep = Path(opts.keep)
    counts = dict(passed=0, failed=0, skipped=0, known=0)
    with tempfile.TemporaryDirectory(prefix="tmemu-sweep-") as tmpname:
        tmp = Path(tmpname)
        regen.clean_environment(tmp)
        # as regen.run: the DWARF's compilation directory is then the repository, which the
        # path rewriting turns relative
        os.chdir(REPO)
        compile_triton = regen.compile_triton
        # this file loaded again by its repo-relative name, so the PTX's line info names it as
        # the corpus's does (an absolute path would be refused by the corpus path's checks)
        fns = regen.load_kernel_module("kernels/sweep_triton.py").kernel_fns()
        for i in indices:
            cfg = draw(opts.seed, i)
            for kv in opts.set:
                key, _, value = kv.partition("=")
                if key not in cfg:
                    sys.exit(f"--set {kv}: configuration {i} has no field {key!r}: {sorted(cfg)}")
                cfg[key] = json.loads(value)
            desc = describe(cfg)
            out_dir = tmp / f"c{i}"
            out_dir.mkdir()
            t = time.perf_counter()
            kernel = build(cfg, fns)
            try:
                result = regen.compile_triton(kernel)
            except Exception as e:  # Triton refused the configuration: not ours to judge
                counts["skipped"] += 1
                print(f"{desc}: skipped (Triton: {str(e).strip().splitlines()[-1][:120]})",
                      flush=True)
                continue
            if result[1]["shared"] > SHARED_LIMIT:  # Triton's launcher refuses it (OutOfResources)
                counts["skipped"] += 1
                print(f"{desc}: skipped ({result[1]['shared']} bytes of shared memory)", flush=True)
                continue
            # the rest of the corpus path (ptxas, paths, the spec) with that compile: a failure
            # there is the sweep's or ptxas's, and fails the configuration
            regen.compile_triton = lambda _k, result=result: result
            try:
                regen.generate_one(kernel, out_dir, tmp, log=lambda *_: None)
            except (Exception, SystemExit) as e:
                counts["failed"] += 1
                print(f"{desc}: FAILED before tmemu: {e}", flush=True)
                continue
            finally:
                regen.compile_triton = compile_triton
            spec = out_dir / f"sweep_{opts.seed}_{i}.toml"
            compile_s = time.perf_counter() - t
            ptxs = list(out_dir.glob("*.ptx"))  # a large one is written .ptx.xz: not read here
            has_mma = bool(ptxs) and "tcgen05.mma" in ptxs[0].read_text(errors="replace")
            problems = []
            ok_run, log_run = tmemu_step(opts.tmemu, ["run"], spec)
            if not ok_run:
                problems.append("run:\n" + log_run)
            ok, log_check = tmemu_step(opts.tmemu, ["check"], spec)
            if not ok:
                known = ok_run and known_compiler_bug(cfg, log_check)
                if known:
                    counts["known"] += 1
                    print(f"{desc}: known compiler bug: {known}", flush=True)
                    continue
                problems.append("check:\n" + log_check)
            took = time.perf_counter() - t - compile_s
            if problems:
                counts["failed"] += 1
                dest = keep / spec.stem
                shutil.rmtree(dest, ignore_errors=True)
                shutil.copytree(out_dir, dest)
                (dest / "failure.txt").write_text("\n".join(problems))
                print(f"{desc}: FAILED (kept in {dest}; reproduce: {sys.argv[0]} --seed "
                      f"{opts.seed} --only {i})", flush=True)
                for p in problems:
                    print("    " + "\n    ".join(p.strip().splitlines()[-12:]), flush=True)
            else:
                counts["passed"] += 1
                print(f"{desc}: ok ({'tcgen05.mma' if has_mma else 'no tcgen05.mma'}, "
                      f"compile {compile_s:.1f} s, run+check {took:.1f} s)", flush=True)
    print(f"sweep seed {opts.seed}: {counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['known']} known compiler bugs, {counts['skipped']} skipped (Triton refused)")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
