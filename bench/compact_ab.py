#!/usr/bin/env python3
"""A/B of register compaction with one binary: TMEMU_REG_COMPACT=0 (off) vs 1 (on), interleaved.
   rc15_measure.py TMEMU SPEC THREADS ROUNDS  -> engine µs (end-start), load µs, CPU ms, faults"""
import os, re, statistics, subprocess, sys, resource
tm, spec, threads, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
res = {"off": [], "on": []}
for i in range(rounds):
    for mode in (("off", "on") if i % 2 == 0 else ("on", "off")):
        env = dict(os.environ, TMEMU_PHASES="1", TMEMU_REG_COMPACT="1" if mode == "on" else "0")
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run([tm, "run", spec, "--threads", threads, "--quiet"], env=env,
                           capture_output=True, text=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        ph = {m.group(2).strip(): int(m.group(1)) for m in
              re.finditer(r"tmemu phase:\s+(\d+) us (.*)", p.stderr)}
        res[mode].append((ph["engine end"] - ph["engine start"],
                          ph["PTX loaded and checked"] - ph["threads started"],
                          (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3,
                          r1.ru_minflt - r0.ru_minflt, ph["exit"]))
for mode, v in res.items():
    cols = list(zip(*v))
    f = lambda c: f"best {min(c):.1f} median {statistics.median(c):.1f}"
    print(f"{mode}: engine µs {f(cols[0])} | load µs {f(cols[1])} | CPU ms {f(cols[2])} | "
          f"faults {f(cols[3])} | exit µs {f(cols[4])}")
