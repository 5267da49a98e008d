#!/usr/bin/env python3
"""The H100 recording of warp-level `mma.sync.aligned` for tmemu (tests/corpus/mma_sync_h100/).

    python kernels/mma_sync_h100/gen.py          # writes harness.cu here and, under
                                                 # tests/corpus/mma_sync_h100/, manifest.txt,
                                                 # inputs.bin and harness.sm_90a.ptx
    (on an H100) kernels/mma_sync_h100/run_on_device.sh OUTDIR   # -> OUTDIR/outputs.bin

Each form is one kernel: block b runs trial b with one warp; lane t loads register r of the
A, B, C operands from in[trial][operand][r][t] (32-bit words, or 64-bit for f64 forms), runs the
one `mma.sync` of the form and stores every D register to out[trial][r][t]. The inputs are raw
register words made here by numpy with a fixed seed, so the recording knows nothing of fragment
layouts: crates/sim/tests/sim/mma_sync_h100.rs runs the same kernels (their nvcc PTX) through
the engine on the same words and compares D bit for bit, which checks the layouts and the
numerics together.

Trial kinds (trial % 7), per element format:
  0 unit     uniform values in [-1, 1] (integers: full range)
  1 wide     random sign, exponent over most of the finite range, random mantissa (subnormals)
  2 bits     uniformly random bit patterns (NaN and Inf included)
  3 cancel   A, B over a narrow spread of exponents, C large: probes alignment/truncation
  4 ints     small integers (every sum exact): must match in any model
  5 special  normal values with Inf, -Inf, NaN, -0, subnormals sprinkled in
  6 zeros    mostly +0 and -0 (the sign of a zero result), a few small values
"""
from __future__ import annotations

import struct
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CORPUS = REPO / "tests" / "corpus" / "mma_sync_h100"
TRIALS = 28
KINDS = 7

# name, PTX opcode, (a, b, c, d) register counts, element formats (a, b, c), register width
FORMS = [
    ("m16n8k16_f32_f16_f16_f32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", (4, 2, 4, 4), ("f16", "f16", "f32"), 32),
    ("m16n8k16_f16_f16_f16_f16", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", (4, 2, 2, 2), ("f16", "f16", "f16"), 32),
    ("m16n8k8_f32_f16_f16_f32", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", (2, 1, 4, 4), ("f16", "f16", "f32"), 32),
    ("m16n8k8_f16_f16_f16_f16", "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", (2, 1, 2, 2), ("f16", "f16", "f16"), 32),
    ("m16n8k16_f32_bf16_bf16_f32", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", (4, 2, 4, 4), ("bf16", "bf16", "f32"), 32),
    ("m16n8k8_f32_bf16_bf16_f32", "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", (2, 1, 4, 4), ("bf16", "bf16", "f32"), 32),
    ("m16n8k8_f32_tf32_tf32_f32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", (4, 2, 4, 4), ("tf32", "tf32", "f32"), 32),
    ("m16n8k4_f32_tf32_tf32_f32", "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", (2, 1, 4, 4), ("tf32", "tf32", "f32"), 32),
    ("m16n8k32_s32_s8_s8_s32", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", (4, 2, 4, 4), ("s8", "s8", "s32"), 32),
    ("m16n8k32_satfinite_s32_u8_s8_s32", "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32", (4, 2, 4, 4), ("u8", "s8", "s32"), 32),
    ("m16n8k32_satfinite_s32_s8_u8_s32", "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32", (4, 2, 4, 4), ("s8", "u8", "s32"), 32),
    ("m16n8k16_satfinite_s32_s8_s8_s32", "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.s8.s32", (2, 1, 4, 4), ("s8", "s8", "s32"), 32),
    ("m16n8k16_s32_u8_u8_s32", "mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32", (2, 1, 4, 4), ("u8", "u8", "s32"), 32),
    ("m8n8k16_satfinite_s32_s8_s8_s32", "mma.sync.aligned.m8n8k16.row.col.satfinite.s32.s8.s8.s32", (1, 1, 2, 2), ("s8", "s8", "s32"), 32),
    ("m16n8k32_f32_e4m3_e4m3_f32", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", (4, 2, 4, 4), ("e4m3", "e4m3", "f32"), 32),
    ("m16n8k32_f32_e5m2_e4m3_f32", "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", (4, 2, 4, 4), ("e5m2", "e4m3", "f32"), 32),
    ("m16n8k32_f32_e5m2_e5m2_f32", "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", (4, 2, 4, 4), ("e5m2", "e5m2", "f32"), 32),
    ("m16n8k32_f16_e4m3_e4m3_f16", "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16", (4, 2, 2, 2), ("e4m3", "e4m3", "f16"), 32),
    ("m16n8k16_f32_e4m3_e5m2_f32", "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e5m2.f32", (2, 1, 4, 4), ("e4m3", "e5m2", "f32"), 32),
    ("m8n8k4_f64_f64_f64_f64", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", (1, 1, 2, 2), ("f64", "f64", "f64"), 64),
    ("m16n8k4_f64_f64_f64_f64", "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64", (2, 1, 4, 4), ("f64", "f64", "f64"), 64),
    ("m16n8k8_f64_f64_f64_f64", "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64", (4, 2, 4, 4), ("f64", "f64", "f64"), 64),
    ("m16n8k16_f64_f64_f64_f64", "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64", (8, 4, 4, 4), ("f64", "f64", "f64"), 64),
    ("m8n8k32_s32_s4_s4_s32", "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32", (1, 1, 2, 2), ("s4", "s4", "s32"), 32),
    ("m16n8k64_satfinite_s32_u4_s4_s32", "mma.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.s4.s32", (4, 2, 4, 4), ("u4", "s4", "s32"), 32),
    ("m16n8k256_and_popc_b1", "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc", (4, 2, 4, 4), ("b1", "b1", "s32"), 32),
    ("m16n8k128_xor_popc_b1", "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc", (2, 1, 4, 4), ("b1", "b1", "s32"), 32),
    ("m8n8k128_xor_popc_b1", "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc", (1, 1, 2, 2), ("b1", "b1", "s32"), 32),
]

PER_REG = {"f16": 2, "bf16": 2, "tf32": 1, "f32": 1, "f64": 1, "s8": 4, "u8": 4, "e4m3": 4,
           "e5m2": 4, "s4": 8, "u4": 8, "b1": 32, "s32": 1}
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "s8": 8, "u8": 8, "e4m3": 8,
        "e5m2": 8, "s4": 4, "u4": 4, "b1": 1, "s32": 32}
# (exponent bits, mantissa bits) of the float formats
FLOAT = {"f16": (5, 10), "bf16": (8, 7), "tf32": (8, 23), "f32": (8, 23), "f64": (11, 52),
         "e4m3": (4, 3), "e5m2": (5, 2)}


def float_bits(fmt, sign, exp_field, mant):
    e, m = FLOAT[fmt]
    return (sign.astype(np.uint64) << np.uint64(e + m)) | (exp_field.astype(np.uint64) << np.uint64(m)) | mant.astype(np.uint64)


def from_values(fmt, x):
    """Round f64 values to the format's bits (RNE through numpy where numpy has the type)."""
    x = np.asarray(x, dtype=np.float64)
    if fmt == "f16":
        return x.astype(np.float16).view(np.uint16).astype(np.uint64)
    if fmt in ("f32", "tf32"):
        return x.astype(np.float32).view(np.uint32).astype(np.uint64)
    if fmt == "f64":
        return x.view(np.uint64)
    if fmt == "bf16":
        u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
        return ((u + 0x7FFF + ((u >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)) & np.uint64(0xFFFF)
    if fmt in ("e4m3", "e5m2"):
        table = fp8_table(fmt)
        ok = ~np.isnan(table)
        idx = np.flatnonzero(ok)
        # nearest representable value (ties: either; inputs only need to be valid patterns)
        d = np.abs(x.reshape(-1, 1) - table[idx].reshape(1, -1))
        return idx[np.argmin(d, axis=1)].reshape(x.shape).astype(np.uint64)
    raise ValueError(fmt)


def fp8_table(fmt):
    e, m = FLOAT[fmt]
    bias = (1 << (e - 1)) - 1
    vals = np.zeros(256)
    for b in range(256):
        s, ef, mf = b >> 7, (b >> m) & ((1 << e) - 1), b & ((1 << m) - 1)
        if fmt == "e4m3" and ef == 15 and mf == 7:
            v = np.nan
        elif fmt == "e5m2" and ef == 31:
            v = np.inf if mf == 0 else np.nan
        elif ef == 0:
            v = mf / (1 << m) * 2.0 ** (1 - bias)
        else:
            v = (1 + mf / (1 << m)) * 2.0 ** (ef - bias)
        vals[b] = -v if s else v
    return vals


def elements(rng, fmt, kind, shape, role):
    """Element bit patterns (uint64) of `fmt` for one trial kind."""
    nbits = BITS[fmt]
    if fmt in ("s8", "u8", "s4", "u4", "b1", "s32"):
        if fmt == "s32":
            if kind == 3:  # near the saturation bounds
                v = rng.choice(np.array([2**31 - 1, -2**31, 2**31 - 1000, -2**31 + 1000, 0]), size=shape)
                v = v + rng.integers(-300, 300, size=shape) * (rng.random(shape) < 0.5)
                v = np.clip(v, -2**31, 2**31 - 1)
            elif kind == 4:
                v = rng.integers(-100, 100, size=shape)
            else:
                v = rng.integers(-2**31, 2**31, size=shape)
            return (v.astype(np.int64) & 0xFFFFFFFF).astype(np.uint64)
        if kind == 6:
            return np.zeros(shape, dtype=np.uint64)
        if kind == 4:
            lo, hi = (0, 3) if fmt.startswith("u") or fmt == "b1" else (-2, 3)
            v = rng.integers(lo, hi, size=shape)
            return (v.astype(np.int64) & ((1 << nbits) - 1)).astype(np.uint64)
        if kind == 3 and fmt != "b1":  # extremes: products of -128 / 255 pile up
            ext = {"s8": [-128, 127], "u8": [255, 254], "s4": [-8, 7], "u4": [15, 14]}[fmt]
            v = rng.choice(np.array(ext), size=shape)
            return (v.astype(np.int64) & ((1 << nbits) - 1)).astype(np.uint64)
        return rng.integers(0, 1 << nbits, size=shape, dtype=np.uint64)
    e, m = FLOAT[fmt]
    bias = (1 << (e - 1)) - 1
    emax_field = (1 << e) - 1 if fmt != "e4m3" else (1 << e)  # e4m3 has no Inf: top field usable
    sign = rng.integers(0, 2, size=shape, dtype=np.uint64)
    mant = rng.integers(0, 1 << m, size=shape, dtype=np.uint64)
    if kind == 0:
        return from_values(fmt, rng.uniform(-1, 1, size=shape))
    if kind == 1:
        top = emax_field - 1 if fmt != "e4m3" else 15
        ef = rng.integers(0, top, size=shape, dtype=np.uint64)
        if fmt in ("f32", "f64", "tf32", "bf16"):  # keep products and sums finite
            ef = rng.integers(bias - 40, bias + 40, size=shape, dtype=np.uint64)
            ef[rng.random(shape) < 0.1] = 0  # some subnormals
        out = float_bits(fmt, sign, ef, mant)
        if fmt == "e4m3":
            out[(out & 0x7F) == 0x7F] ^= 1  # not NaN
        return out
    if kind == 2:
        return rng.integers(0, 1 << nbits, size=shape, dtype=np.uint64) if nbits < 64 else \
            rng.integers(0, 2**63, size=shape, dtype=np.uint64) * 2 + rng.integers(0, 2, size=shape, dtype=np.uint64)
    if kind == 3:
        if role == "c":
            span = {"f16": 10, "bf16": 20, "tf32": 20, "f32": 20, "f64": 40, "e4m3": 6, "e5m2": 12}
            x = rng.choice([-1, 1], size=shape) * 2.0 ** rng.integers(0, span.get(fmt, 10), size=shape) * rng.uniform(1, 2, size=shape)
        else:
            x = rng.choice([-1, 1], size=shape) * 2.0 ** rng.integers(-6, 3, size=shape) * rng.uniform(1, 2, size=shape)
        out = from_values(fmt, x)
        if fmt == "tf32":  # tf32 operands: random low 13 bits (does the tensor core truncate?)
            out = out ^ rng.integers(0, 1 << 13, size=shape, dtype=np.uint64)
        return out
    if kind == 4:
        return from_values(fmt, rng.integers(-3, 4, size=shape).astype(np.float64))
    if kind == 6:
        out = np.where(rng.random(shape) < 0.5, np.uint64(1) << np.uint64(e + m), np.uint64(0)).astype(np.uint64)
        few = rng.random(shape) < 0.02
        out[few] = from_values(fmt, rng.integers(-2, 3, size=int(few.sum())).astype(np.float64))
        return out
    # kind 5: specials sprinkled
    out = from_values(fmt, rng.uniform(-2, 2, size=shape))
    inf = float_bits(fmt, np.zeros(1, np.uint64), np.array([(1 << e) - 1], np.uint64), np.zeros(1, np.uint64))[0]
    specials = [inf, inf | (1 << (e + m)), 1 << (e + m), 1, (1 << (e + m)) | 3, (1 << m) - 1]
    if fmt == "e4m3":
        specials = [0x7F, 0xFF, 0x80, 1, 0x83, 7]  # NaN, -NaN, -0, subnormals
    else:
        specials.append(inf | 1)  # NaN
    pick = rng.random(shape) < 0.06
    out[pick] = rng.choice(np.array(specials, dtype=np.uint64), size=int(pick.sum()))
    return out


def pack(fmt, elems, width):
    """(..., per_reg) elements → register words; element 0 in the lowest bits."""
    n, b = PER_REG[fmt], BITS[fmt]
    words = np.zeros(elems.shape[:-1], dtype=np.uint64)
    for i in range(n):
        words |= (elems[..., i] & np.uint64((1 << b) - 1 if b < 64 else 2**64 - 1)) << np.uint64(i * b)
    return words if width == 64 else words.astype(np.uint32)


def make_inputs(rng, form):
    name, _op, (na, nb, nc, _nd), (fa, fb, fc), width = form
    trials = []
    for t in range(TRIALS):
        kind = t % KINDS
        ops = []
        for n, fmt, role in ((na, fa, "a"), (nb, fb, "b"), (nc, fc, "c")):
            el = elements(rng, fmt, kind, (n, 32, PER_REG[fmt]), role)
            ops.append(pack(fmt, el, width).reshape(-1))
        trials.append(np.concatenate(ops))
    return np.stack(trials)  # (TRIALS, (na+nb+nc)*32)


def kernel_source(form):
    name, op, (na, nb, nc, nd), _fmts, width = form
    ty = "unsigned long long" if width == 64 else "unsigned"
    cons_in = "l" if width == 64 else "r"
    # f64 operands go through .f64 registers in PTX: pass doubles with "d"
    if width == 64:
        cons_in = "d"
    nin = na + nb + nc
    lines = [f"extern \"C\" __global__ void k_{name}(const {ty}* __restrict__ in, {ty}* __restrict__ out) {{",
             f"  const {ty}* p = in + blockIdx.x * {nin * 32} + threadIdx.x;",
             f"  {ty}* q = out + blockIdx.x * {nd * 32} + threadIdx.x;"]
    if width == 64:
        lines.append("  double " + ", ".join(f"x{i} = __longlong_as_double(p[{32 * i}])" for i in range(nin)) + ";")
        lines.append("  double " + ", ".join(f"d{i}" for i in range(nd)) + ";")
    else:
        lines.append("  unsigned " + ", ".join(f"x{i} = p[{32 * i}]" for i in range(nin)) + ";")
        lines.append("  unsigned " + ", ".join(f"d{i}" for i in range(nd)) + ";")
    k = 0
    def group(n):
        nonlocal k
        g = "{" + ", ".join(f"%{k + i}" for i in range(n)) + "}"
        k += n
        return g
    dg = group(nd)
    ag, bg, cg = group(na), group(nb), group(nc)
    out_c = "=d" if width == 64 else "=r"
    lines.append(f'  asm volatile("{op} {dg}, {ag}, {bg}, {cg};"')
    lines.append("    : " + ", ".join(f'"{out_c}"(d{i})' for i in range(nd)))
    lines.append("    : " + ", ".join(f'"{cons_in}"(x{i})' for i in range(nin)) + ");")
    for i in range(nd):
        v = f"__double_as_longlong(d{i})" if width == 64 else f"d{i}"
        lines.append(f"  q[{32 * i}] = {v};")
    lines.append("}")
    return "\n".join(lines)


HOST = r'''
// ---- host ----------------------------------------------------------------------------------
// Usage: harness INPUTS OUTPUTS. Reads the inputs written by gen.py (form by form, in FORMS
// order), runs each form's kernel with one warp per trial, writes the D words in the same
// order. A form whose launch fails is written as all 0xFF bytes and reported on stderr.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

struct Form { const char* name; void* fn; int nin, nd, width; };
static const Form kForms[] = {
%FORMS%
};

int main(int argc, char** argv) {
  if (argc != 3) { fprintf(stderr, "usage: %s INPUTS OUTPUTS\n", argv[0]); return 2; }
  FILE* f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 1; }
  FILE* g = fopen(argv[2], "wb");
  if (!g) { perror(argv[2]); return 1; }
  const int trials = %TRIALS%;
  int bad = 0;
  for (const Form& fm : kForms) {
    size_t w = fm.width / 8;
    size_t nin = (size_t)trials * fm.nin * 32, nout = (size_t)trials * fm.nd * 32;
    std::vector<unsigned char> hin(nin * w), hout(nout * w, 0xFF);
    if (fread(hin.data(), 1, hin.size(), f) != hin.size()) { fprintf(stderr, "short input\n"); return 1; }
    void *din = nullptr, *dout = nullptr;
    cudaMalloc(&din, hin.size());
    cudaMalloc(&dout, hout.size());
    cudaMemcpy(din, hin.data(), hin.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(dout, hout.data(), hout.size(), cudaMemcpyHostToDevice);
    void* args[] = {&din, &dout};
    cudaError_t e = cudaLaunchKernel(fm.fn, dim3(trials), dim3(32), args, 0, 0);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaMemcpy(hout.data(), dout, hout.size(), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", fm.name, cudaGetErrorString(e)); bad++; }
    fwrite(hout.data(), 1, hout.size(), g);
    cudaFree(din); cudaFree(dout);
    printf("%s %s\n", fm.name, e == cudaSuccess ? "ok" : "FAILED");
  }
  fclose(f); fclose(g);
  return bad ? 1 : 0;
}
'''


def main():
    rng = np.random.default_rng(20261123)
    forms = FORMS
    src = ["// Generated by kernels/mma_sync_h100/gen.py: do not edit. One kernel per mma.sync form.",
           "// Build: nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o harness harness.cu", ""]
    src += [kernel_source(f) + "\n" for f in forms]
    entries = ",\n".join(f'  {{"{f[0]}", (void*)k_{f[0]}, {sum(f[2][:3])}, {f[2][3]}, {f[4]}}}' for f in forms)
    src.append(HOST.replace("%FORMS%", entries).replace("%TRIALS%", str(TRIALS)))
    (HERE / "harness.cu").write_text("\n".join(src))
    CORPUS.mkdir(parents=True, exist_ok=True)
    blob = bytearray()
    man = ["# tmemu mma.sync H100 recording (kernels/mma_sync_h100/gen.py): one form per line.",
           f"# trials={TRIALS}; inputs.bin / outputs.bin hold the forms in this order: for each trial the",
           "# A, B, C register words ([reg][lane]), then (outputs) the D words; little-endian, 4 or 8 bytes a word."]
    out_at = 0
    for f in forms:
        name, op, (na, nb, nc, nd), fmts, width = f
        words = make_inputs(rng, f)
        data = words.astype(np.uint64 if width == 64 else np.uint32).tobytes()
        man.append(f"name={name} op={op} a={na} b={nb} c={nc} d={nd} width={width} "
                   f"in_at={len(blob)} in_len={len(data)} out_at={out_at} "
                   f"out_len={TRIALS * nd * 32 * width // 8}")
        blob += data
        out_at += TRIALS * nd * 32 * width // 8
    (CORPUS / "manifest.txt").write_text("\n".join(man) + "\n")
    (CORPUS / "inputs.bin").write_bytes(bytes(blob))
    print(f"{len(forms)} forms, inputs {len(blob)} bytes, outputs {out_at} bytes")


if __name__ == "__main__":
    main()
