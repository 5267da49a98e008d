"""numpy/python references for calls_switch.cu's `misc` kernel (n = 300), computed from the
CUDA source's meaning, independently of tmemu. y[0] races (thread 0's plain store against
every thread's atomicAdd): the reference takes tmemu's default schedule, where warp 0 stores
first, so y[0] = 1 + 300; a seeded schedule may legally give less.
Run: python3 gen_expected.py"""
import math
import numpy as np

n = 300
x = np.linspace(-3, 3, n).astype(np.float32)
np.save("calls_switch.x.npy", x)


def fib(m):
    a, b = 0, 1
    for _ in range(m):
        a, b = b, a + b
    return a


y = np.zeros(n, np.float32)
out = np.zeros(2 * n, np.int64)
o64 = np.zeros(n, np.int64)
od = np.zeros(n, np.float64)
for i in range(n):
    local = [x[(i + k) % n] for k in range(8)]
    s = np.float32(0)
    for k in range(8):
        s = np.float32(s + local[(k * i) & 7])
    y[i] = np.float32(float(s) * (i & 3) + 1.0)  # fma: x*k exact in f64, one rounding
    out[i] = [fib(i & 15), -i, i * i, 7][i & 3]
    v = i * 1234567891
    o64[i] = v // 97 + v % 13
    od[i] = math.sqrt(i) + 1.0 / (i + 1)
    warp = i // 32
    ballot = sum(1 << l for l in range(32) if (warp * 32 + l) % 2 == 1 and warp * 32 + l < n)
    ffs = (i & -i).bit_length()
    brev = int("{:064b}".format(i)[::-1], 2)
    out[n + i] = (bin(ballot).count("1") + ffs + brev % 3) & 0xFFFFFFFF
np.save("calls_switch.expected.out.npy", out.astype(np.uint32).astype(np.int32))
np.save("calls_switch.expected.o64.npy", o64)
np.save("calls_switch.expected.od.npy", od)
y[0] = np.float32(n + 1)  # thread 0 stores helper(...)=1 for i=0 (s*0+1), then 300 atomic +1.0
np.save("calls_switch.expected.y.npy", y)
