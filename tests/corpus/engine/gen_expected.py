"""Writes the numpy references of the engine's hand-written PTX programs.

The formulas are the programs' specifications (see the comment at the top of each .ptx),
computed here independently of tmemu. Run: python3 gen_expected.py
"""
import numpy as np

# divergence.ptx on 2 CTAs x 64 threads, n = 64: out[t] for t < 64, then one count per warp
t = np.arange(64, dtype=np.uint32)
body = np.where(t % 2 == 1, t * (t - 1) // 2, 3 * t) + 1000
np.save("divergence.expected.out.npy", np.concatenate([body, np.full(2, 32, np.uint32)]).astype(np.uint32))

# mbarrier_phases.ptx: out[r*64 + t] = 7r + 1
np.save("mbarrier_phases.expected.out.npy", np.repeat(np.arange(3, dtype=np.uint32) * 7 + 1, 64).astype(np.uint32))
