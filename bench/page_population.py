# First-touch cost of fresh memory on this machine, and how it scales with threads: the
# question behind issue 7's figure on the 16-core device host, where the input fill of
# 6 MB on 15 threads took as long as on one (docs/arch/perf.md, sessions 16-17).
#
#   python3 bench/page_population.py [TMEMU]     (no dependencies beyond the standard library)
#
# Prints the machine's transparent-huge-page settings and free blocks, then the wall time of
# T threads (T = 1, 2, 4, 8, 15) writing 6 MiB between them (each its own mapping, or one
# mapping split T ways) by MADV_POPULATE_WRITE or memset, with and without MADV_HUGEPAGE; then
# each thread its own 2 MiB (flat times mean page population runs side by side); then the
# cost of starting a process (/bin/true, and `TMEMU --version` when given).
import ctypes, os, statistics, subprocess, sys, threading, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
PAGE = 4096; HUGE = 2 << 20
def sh(f):
    try: return open(f).read().strip()
    except Exception as e: return str(e)
print("nproc", os.cpu_count(), "kernel", os.uname().release)
for f in ["enabled", "defrag", "khugepaged/defrag"]:
    print("thp", f, sh("/sys/kernel/mm/transparent_hugepage/" + f))
print(sh("/proc/buddyinfo"))
def mapr(n, huge):
    p = libc.mmap(None, n + HUGE, 3, 0x22 | 0x4000, -1, 0)
    a = (p + HUGE - 1) // HUGE * HUGE
    if huge: libc.madvise(a, n, 14)
    return p, a
def run(T, total, how, huge, shared):
    maps = []
    if shared:
        p, a = mapr(total, huge); maps.append(p)
        parts = [(a + i * (total // T), total // T) for i in range(T)]
    else:
        parts = []
        for i in range(T):
            p, a = mapr(total // T, huge); maps.append(p); parts.append((a, total // T))
    go = threading.Barrier(T + 1)
    def work(a, n):
        go.wait()
        if how == "populate": libc.madvise(a, n, 23)
        else: libc.memset(a, 1, n)
    ths = [threading.Thread(target=work, args=pa) for pa in parts]
    for t in ths: t.start()
    go.wait(); t0 = time.perf_counter()
    for t in ths: t.join()
    dt = time.perf_counter() - t0
    for p in maps: libc.munmap(p, total + HUGE if shared else total // T + HUGE)
    return dt
total = 6 << 20
for huge in [False, True]:
    for how in ["populate", "memset"]:
        for shared in [False, True]:
            row = []
            for T in [1, 2, 4, 8, 15]:
                ts = [run(T, total, how, huge, shared) for _ in range(5)]
                row.append(f"T{T} {statistics.median(ts)*1e3:6.2f}ms")
            print(f"6MiB huge={int(huge)} {how:8s} {'one-map' if shared else 'own-maps'}: " + "  ".join(row), flush=True)
# weak scaling: each thread its own 2 MiB (1 huge page or 512 small ones)
for huge in [False, True]:
    for how in ["populate", "memset"]:
        row = []
        for T in [1, 2, 4, 8, 15]:
            ts = [run(T, T * HUGE, how, huge, False) for _ in range(5)]
            row.append(f"T{T} {statistics.median(ts)*1e3:6.2f}ms")
        print(f"2MiB/thread huge={int(huge)} {how:8s}: " + "  ".join(row), flush=True)
def spawn(cmd, n=20):
    ts = []
    for _ in range(n):
        t0 = time.perf_counter(); subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); ts.append(time.perf_counter() - t0)
    return f"{statistics.median(ts)*1e3:.2f} ms (min {min(ts)*1e3:.2f})"
print("spawn /bin/true:", spawn(["/bin/true"]))
if len(sys.argv) > 1:
    print("spawn tmemu --version:", spawn([sys.argv[1], "--version"]))
    print("spawn tmemu explain TM0001:", spawn([sys.argv[1], "explain", "TM0001"]))
