"""Plain Triton matmul C = A @ B (A row-major M×K, B row-major K×N) in four input precisions.

On sm_100a Triton lowers `tl.dot` to tcgen05.mma with the accumulator in Tensor Memory
(kind::f16 for fp16/bf16, kind::tf32 for fp32 inputs, kind::f8f6f4 for fp8), so the same source
gives four corpus kernels. Loads are masked, so shapes need not be tile multiples.
"""
import numpy as np
import triton
import triton.language as tl

from regen import (Case, Fill, Input, Output, Ptr, Random, TritonKernel, bf16_bits_to_f64,
                   e4m3_bits_to_f64, f32_to_bf16_bits, random_e4m3_bits, tf32_exact)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :],
                    mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_n[None, :],
                    mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], c,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


# Per input precision: Triton pointer types, spec dtypes, tile shape, input maker, tolerance.
def _fp16_inputs(rng, shape):
    x = rng.uniform(-1, 1, size=shape).astype(np.float16)
    return x, "f16", x.astype(np.float64)


def _bf16_inputs(rng, shape):
    bits = f32_to_bf16_bits(rng.uniform(-1, 1, size=shape).astype(np.float32))
    return bits, "bf16", bf16_bits_to_f64(bits)


def _tf32_inputs(rng, shape):
    x = tf32_exact(rng, shape)
    return x, "f32", x.astype(np.float64)


def _fp8_inputs(rng, shape):
    bits = random_e4m3_bits(rng, shape, max_abs=2.0)
    return bits, "fp8e4m3", e4m3_bits_to_f64(bits)


VARIANTS = {
    # name: (a/b type, c type, c spec dtype, BLOCK_K, inputs, rtol, atol, why)
    "fp16": ("*fp16", "*fp16", "f16", 64, _fp16_inputs, 2e-3, 1e-3,
             "f16 output: 2^-11 relative rounding plus f32 accumulation of K products "
             "(about 2^-24·K·Σ|ab| < 1e-4 here)"),
    "bf16": ("*bf16", "*bf16", "bf16", 64, _bf16_inputs, 8e-3, 1e-3,
             "bf16 output: 2^-8 relative rounding (half an ulp is 2^-9, doubled for margin)"),
    "tf32": ("*fp32", "*fp32", "f32", 32, _tf32_inputs, 1e-4, 1e-4,
             "inputs are exact in tf32; only f32 accumulation error remains: "
             "2^-24·K·Σ|ab| is about 2e-5 for K = 128, |x| <= 1"),
    "fp8": ("*fp8e4nv", "*fp32", "f32", 64, _fp8_inputs, 2e-3, 2e-2,
            "e4m3 products are exact in f32, but tensor cores may add fp8 products with fewer "
            "than f32's bits (an H100 running this kernel via wgmma missed by up to 0.0099 "
            "here); sm_100a's precision is not documented, so allow 2x that"),
}

SHAPES = [("", (256, 128, 128), 1), ("_odd", (200, 136, 72), 2)]


def _cases(variant):
    ab_ty, c_ty, c_dtype, _bk, make, rtol, atol, why = VARIANTS[variant]
    name = f"matmul_{variant}"

    def cases():
        out = []
        for suffix, (M, N, K), seed in SHAPES:
            rng = np.random.default_rng(seed)
            a, a_dtype, a64 = make(rng, (M, K))
            b, b_dtype, b64 = make(rng, (K, N))
            expected = (a64 @ b64).astype(np.float32)
            out.append(Case(
                name=name + suffix, grid=[triton.cdiv(M, 128), triton.cdiv(N, 128)],
                buffers=dict(a=Input(a, a_dtype), b=Input(b, b_dtype),
                             c=Output(c_dtype, [M, N], expected, rtol, atol, why)),
                args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K,
                          stride_am=K, stride_bk=N, stride_cm=N),
                note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}], {variant} inputs, f32 accumulation "
                     "in TMEM"))
        if variant == "fp16":
            M = N = K = 1024
            out.append(Case(
                name=name + "_bench1024", grid=[M // 128, N // 128],
                buffers=dict(a=Random("f16", [M, K], seed=1), b=Random("f16", [K, N], seed=2),
                             c=Fill("f16", [M, N])),
                args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K,
                          stride_am=K, stride_bk=N, stride_cm=N),
                note="Benchmark: 1024^3 fp16 matmul, random inputs, no expected output"))
        return out

    return cases


def _kernel(variant):
    ab_ty, c_ty, _c_dtype, bk, *_ = VARIANTS[variant]
    sig = dict(a_ptr=ab_ty, b_ptr=ab_ty, c_ptr=c_ty, M="i32", N="i32", K="i32", stride_am="i32",
               stride_bk="i32", stride_cm="i32", BLOCK_M="constexpr", BLOCK_N="constexpr",
               BLOCK_K="constexpr")
    return TritonKernel(name=f"matmul_{variant}", fn=matmul_kernel, signature=sig,
                        constexprs=dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=bk),
                        cases=_cases(variant), num_warps=4, num_stages=3,
                        aligned=("a_ptr", "b_ptr", "c_ptr"),
                        # The accumulator must live in TMEM: MMA of the right kind, read back
                        # with tcgen05.ld.
                        must_contain=(MMA_KIND[variant], "tcgen05.alloc", "tcgen05.ld"))


MMA_KIND = {"fp16": "tcgen05.mma.cta_group::1.kind::f16", "bf16": "tcgen05.mma.cta_group::1.kind::f16",
            "tf32": "tcgen05.mma.cta_group::1.kind::tf32", "fp8": "tcgen05.mma.cta_group::1.kind::f8f6f4"}


# ----------------------------------------------------------------------------------------------
# matmul_fp16_div16: the PTX a Triton user gets from the JIT
# ----------------------------------------------------------------------------------------------
#
# `matmul_kernel[grid](a, b, c, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M=128,
# BLOCK_N=128, BLOCK_K=64, num_warps=4, num_stages=3)` with torch tensors does not compile the
# kernel above: Triton 3.9.0's JIT (`JITFunction.run`, triton/runtime/jit.py) binds the arguments
# with `create_function_from_signature`, whose generated binder calls
# `native_specialize_impl(backend, arg, is_const, specialize=True, align=True)` per argument.
# That gives ("*fp16", "D") for a tensor whose data_ptr() % 16 == 0 and ("i32", "D") for an int
# divisible by 16 (`BaseBackend.get_int_specialization` / `get_tensor_specialization`), and
# turns an int equal to 1 into a constexpr; `JITFunction._pack_args` then maps "D" to
# `[["tt.divisibility", 16]]` (`BaseBackend.parse_attr`). At 1024^3 every pointer (torch's CUDA
# allocator returns 512-byte aligned blocks; tmemu places buffers at multiples of 256) and every
# int (1024) is "D", so Triton can prove 16-byte contiguity and vectorises the loads and stores;
# the unspecialised matmul_fp16.ptx stages every element with a scalar ld.global.b16.
#
# Rather than restate those rules, `jit_divisible_args` runs Triton's own binder and `_pack_args`
# on each case's arguments (pointers stand in as objects with `dtype` and `data_ptr()`, which is
# all `native_specialize_impl` reads of a tensor) and the kernel is compiled with exactly the
# attributes it returns; every case must give the same ones (or the PTX would not be the one the
# JIT picks for that launch). Deterministic: the result depends only on the argument values.

DIV16_CONSTEXPRS = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64)
DIV16_OPTIONS = dict(num_warps=4, num_stages=3)


class _DevicePtr:
    """What the JIT's binder reads of a torch tensor: its element type and its address."""

    def __init__(self, dtype, address):
        self.dtype, self._address = dtype, address

    def data_ptr(self):
        return self._address


def jit_specialisation(fn, args: dict, constexprs: dict, options: dict):
    """(signature, attrs) that Triton's JIT derives for `fn[grid](**args, **constexprs,
    **options)`: Triton's own `create_function_from_signature` binder and `_pack_args`."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    from triton.runtime.jit import create_function_from_signature

    from regen import TRITON_TARGET
    backend = make_backend(GPUTarget(*TRITON_TARGET))
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    bound, specialization, opts = binder(**args, **constexprs, **options)
    _, signature, _, attrs = fn._pack_args(backend, dict(options), bound, specialization, opts)
    return signature, attrs


def jit_divisible_args(fn, args: dict, constexprs: dict, options: dict) -> tuple[str, ...]:
    """The argument names the JIT marks `tt.divisibility = 16` for this launch. Refuses a launch
    for which the JIT would specialise anything else (an int equal to 1 becomes a constexpr and
    drops out of the PTX's parameters: not this kernel's signature)."""
    signature, attrs = jit_specialisation(fn, args, constexprs, options)
    names = list(signature)
    want = dict(_div16_signature(), **{k: "constexpr" for k in constexprs})
    if signature != want:
        raise SystemExit(f"matmul_fp16_div16: the JIT's signature {signature} is not {want}")
    out = []
    for (index, ), attr in sorted(attrs.items()):
        if attr == [["tt.divisibility", 16]]:
            out.append(names[index])
        elif attr:
            raise SystemExit(f"matmul_fp16_div16: unexpected JIT attribute {attr} on {names[index]}")
    return tuple(out)


def _div16_signature():
    return dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32", K="i32",
                stride_am="i32", stride_bk="i32", stride_cm="i32")


# Device addresses the launches give the pointers: tmemu's GlobalMemory places buffers at
# multiples of 256 bytes (torch's CUDA caching allocator at multiples of 512); any multiple of 16
# specialises the same way.
_DIV16_ADDRESSES = dict(a_ptr=0x1000, b_ptr=0x101000, c_ptr=0x201000)

# (case suffix, (M, N, K), seed): every int argument (M, N, K and the row strides K, N, N) is a
# multiple of 16, as the specialisation requires, but 336 x 208 x 176 is not a multiple of the
# 128 x 128 x 64 tile, so the M, N and K masks still cut partial tiles.
DIV16_SHAPES = [("", (336, 208, 176), 3)]


def _div16_args(M, N, K):
    ptrs = {k: _DevicePtr(tl.float16, v) for k, v in _DIV16_ADDRESSES.items()}
    return dict(ptrs, M=M, N=N, K=K, stride_am=K, stride_bk=N, stride_cm=N)


def _div16_cases():
    _ab, _c, c_dtype, _bk, make, rtol, atol, _why = VARIANTS["fp16"]
    name = "matmul_fp16_div16"
    out = []
    args = dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"))
    for suffix, (M, N, K), seed in DIV16_SHAPES:
        rng = np.random.default_rng(seed)
        a, a_dtype, a64 = make(rng, (M, K))
        b, b_dtype, b64 = make(rng, (K, N))
        expected = (a64 @ b64).astype(np.float32)
        # fp16 products are exact in f32, so the kernel's error is the f32 accumulation (at most
        # K·2^-24·Σ|ab| per element, the standard bound for K additions) plus the rounding of
        # C to f16 (at most 2^-11·|c|); both are bounded here for these very inputs.
        accumulation = float(K * 2.0**-24 * (np.abs(a64) @ np.abs(b64)).max())
        if accumulation >= atol or 2.0**-11 >= rtol:
            raise SystemExit(f"{name}{suffix}: tolerance too tight ({accumulation:.2e})")
        why = (f"f16 output: rounding C costs at most 2^-11·|c| (< rtol); f32 accumulation of "
               f"K = {K} exact products at most K·2^-24·max Σ|ab| = {accumulation:.1e} for these "
               "inputs (< atol)")
        out.append(Case(
            name=name + suffix, grid=[triton.cdiv(M, 128), triton.cdiv(N, 128)],
            buffers=dict(a=Input(a, a_dtype), b=Input(b, b_dtype),
                         c=Output(c_dtype, [M, N], expected, rtol, atol, why)),
            args=dict(args, M=M, N=N, K=K, stride_am=K, stride_bk=N, stride_cm=N),
            note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}], fp16 inputs, f32 accumulation in TMEM;\n"
                 "PTX specialised as Triton's JIT does (pointers and ints divisible by 16)"))
    M = N = K = 1024
    out.append(Case(
        name=name + "_bench1024", grid=[M // 128, N // 128],
        buffers=dict(a=Random("f16", [M, K], seed=1), b=Random("f16", [K, N], seed=2),
                     c=Fill("f16", [M, N])),
        args=dict(args, M=M, N=N, K=K, stride_am=K, stride_bk=N, stride_cm=N),
        note="Benchmark (issue 7): 1024^3 fp16 matmul, random inputs, no expected output;\n"
             "the PTX Triton's JIT compiles for this launch (pointers and ints divisible by 16)"))
    return out


def _div16_kernel():
    shapes = [s for _, s, _ in DIV16_SHAPES] + [(1024, 1024, 1024)]
    divisible = {jit_divisible_args(matmul_kernel, _div16_args(*s), DIV16_CONSTEXPRS, DIV16_OPTIONS)
                 for s in shapes}
    if len(divisible) != 1:
        raise SystemExit(f"matmul_fp16_div16: the cases specialise differently: {divisible}")
    sig = dict(_div16_signature(), **{k: "constexpr" for k in DIV16_CONSTEXPRS})
    return TritonKernel(name="matmul_fp16_div16", fn=matmul_kernel, signature=sig,
                        constexprs=DIV16_CONSTEXPRS, cases=_div16_cases, **DIV16_OPTIONS,
                        aligned=divisible.pop(),
                        # Vectorised staging is the point of this entry: 16-byte asynchronous
                        # copies (cp.async with a source size: zero fill where masked).
                        must_contain=(MMA_KIND["fp16"], "tcgen05.alloc", "tcgen05.ld",
                                      "cp.async.cg.shared.global"))


KERNELS = [_kernel(v) for v in VARIANTS] + [_div16_kernel()]
