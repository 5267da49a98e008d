"""Generates the numpy-written test data of tmemu-spec (committed next to this script).

Run:  PYTHONPATH=<dir with ml_dtypes> /work/kvenv/bin/python gen.py
(needs numpy and ml_dtypes; e.g. `pip install --target /tmp/mld ml_dtypes`).

Everything here is an independent reference: numpy / ml_dtypes write the files and do the
conversions; the SplitMix64 fill reference is a separate Python implementation of the
generator documented in crates/spec/src/fill.rs.
"""
import os
import numpy as np
import ml_dtypes

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, arr, **kw):
    np.save(os.path.join(HERE, name), arr, **kw)


# --- one small array per plain dtype, values chosen to be exact in each ---
plain = {
    "f64": np.float64, "f32": np.float32, "f16": np.float16,
    "i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16,
    "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64,
}
vals = np.array([[0, 1, 2], [3, 100, 7]], dtype=np.float64)
for name, t in plain.items():
    a = vals.astype(t)
    if np.issubdtype(t, np.signedinteger) or np.issubdtype(t, np.floating):
        a[1, 2] = -7
    save(f"plain_{name}.npy", a)

# --- bf16 / fp8 as ml_dtypes writes them, as raw void, and as unsigned ints ---
narrow_vals = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -0.25]])
save("mld_bf16.npy", narrow_vals.astype(ml_dtypes.bfloat16))        # descr '<V2'
save("mld_fp8e4m3.npy", narrow_vals.astype(ml_dtypes.float8_e4m3fn))  # descr '<V1'
save("mld_fp8e5m2.npy", narrow_vals.astype(ml_dtypes.float8_e5m2))    # descr '<f1'
bf16_bits = narrow_vals.astype(ml_dtypes.bfloat16).view(np.uint16)
save("bits_bf16_u16.npy", bf16_bits)
save("bits_bf16_void.npy", bf16_bits.view("V2"))                      # descr '|V2'
save("bits_fp8e4m3_u8.npy", narrow_vals.astype(ml_dtypes.float8_e4m3fn).view(np.uint8))

# --- layout variants ---
save("fortran_f32.npy", np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
save("bigendian_i32.npy", np.arange(6, dtype=">i4").reshape(2, 3))
with open(os.path.join(HERE, "v2_u8.npy"), "wb") as f:
    np.lib.format.write_array(f, np.arange(5, dtype=np.uint8), version=(2, 0))
save("scalar_f64.npy", np.float64(2.5))

# --- conversion references: f64 values -> each narrow type, by numpy / ml_dtypes ---
rng = np.random.default_rng(2024)
special = [0.0, -0.0, 1.0, -1.0, 0.1, 1 / 3, 65504.0, 65520.0, 65519.99, 1e-8, 6e-8, 3e-8,
           448.0, 464.0, 463.99, 480.0, 500.0, 57344.0, 61440.0, 61439.0, 1e6, -1e6,
           2.0 ** -9, 2.0 ** -10, 2.0 ** -7 * 1.5, 2.0 ** -17, 2.0 ** -16 * 1.5, 1e-30, 3e38,
           1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 1.0 + 2.0 ** -8, 1.0 + 2.0 ** -4,
           1.0 + 3 * 2.0 ** -5, np.inf, -np.inf]
vals = np.concatenate([
    np.array(special),
    rng.uniform(-2, 2, 400),
    rng.uniform(-500, 500, 200),
    np.exp(rng.uniform(-30, 12, 400)) * rng.choice([-1, 1], 400),
    # values that are exactly f32 so that a conversion through f32 cannot double-round
    rng.uniform(-4, 4, 200).astype(np.float32).astype(np.float64),
])
save("conv_values_f64.npy", vals)
save("conv_f16.npy", vals.astype(np.float16).view(np.uint16))
save("conv_bf16.npy", vals.astype(ml_dtypes.bfloat16).view(np.uint16))
save("conv_fp8e4m3.npy", vals.astype(ml_dtypes.float8_e4m3fn).view(np.uint8))
save("conv_fp8e5m2.npy", vals.astype(ml_dtypes.float8_e5m2).view(np.uint8))


# --- fills: iota and ones through numpy's astype; random through SplitMix64 in Python ---
M64 = (1 << 64) - 1


def splitmix64(seed):
    state = seed
    while True:
        state = (state + 0x9E3779B97F4A7C15) & M64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        yield z ^ (z >> 31)


def random_fill(n, seed, low, high, is_int):
    g = splitmix64(seed)
    out = []
    for _ in range(n):
        r = next(g)
        if is_int:
            out.append(low + ((r * (high - low)) >> 64))
        else:
            u = (r >> 11) * 2.0 ** -53
            out.append(low + (high - low) * u)
    return out


save("fill_iota_f16.npy", np.arange(3000, dtype=np.float64).astype(np.float16))
save("fill_iota_i8.npy", (np.arange(300) % 256).astype(np.uint8).view(np.int8))
save("fill_iota_bf16.npy", np.arange(600, dtype=np.float64).astype(ml_dtypes.bfloat16).view(np.uint16))
save("fill_random_f32.npy", np.array(random_fill(1000, 42, -1.0, 1.0, False)).astype(np.float32))
save("fill_random_bf16.npy",
     np.array(random_fill(1000, 7, -3.0, 5.0, False)).astype(ml_dtypes.bfloat16).view(np.uint16))
save("fill_random_fp8e4m3.npy",
     np.array(random_fill(500, 9, -448.0, 448.0, False)).astype(ml_dtypes.float8_e4m3fn).view(np.uint8))
save("fill_random_i32.npy", np.array(random_fill(1000, 3, -1000, 1000, True), dtype=np.int32))
save("fill_random_u64.npy", np.array(random_fill(100, 5, 0, 2 ** 64, True), dtype=np.uint64))
print("ok")
