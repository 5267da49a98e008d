"""Inputs and numpy references for features.cu (independent of tmemu). Run: python3 gen_features.py"""
import numpy as np

rng = np.random.default_rng(3)
x = rng.normal(0, 1, 32)
a = rng.uniform(-2, 2, 64).astype(np.float16)
b = rng.uniform(-2, 2, 64).astype(np.float16)
g = np.arange(128, dtype=np.float32) * 0.5
for name, arr in [("sd.x", x), ("h.a", a), ("h.b", b), ("p.g", g)]:
    np.save(f"features.{name}.npy", arr)

tab = [11, 23, 5, 77, 1, 90, 3, 8, -1]
np.save("features.expected.bs.npy", np.array([tab[i % 9] for i in range(250)], np.int32))
v = x.copy()  # butterfly order of the shuffles, each add rounded in f64 as the GPU does
for o in [16, 8, 4, 2, 1]:
    v = np.array([v[l] + v[l ^ o] for l in range(32)])
np.save("features.expected.sd.npy", v)
qa = (a.astype(np.float64) ** 2).astype(np.float16)  # f16 products, one rounding each
qb = (b.astype(np.float64) ** 2).astype(np.float16)
np.save("features.expected.h.npy", (qa.astype(np.float64) + qb.astype(np.float64)).astype(np.float16))
np.save("features.expected.m.npy", np.array([max(0.0, float(b.astype(np.float32).max()))], np.float32))
f = (a.astype(np.float32) * np.float32(3.0)).view(np.uint32).astype(np.uint64)
np.save("features.expected.ob.npy", ((f + 0x7FFF + ((f >> 16) & 1)) >> 16).astype(np.uint16))  # bf16 RN-even
np.save("features.expected.p.npy", g[::-1] + np.float32(1))
