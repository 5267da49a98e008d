#!/usr/bin/env python3
"""Mutation fuzzing of the whole pipeline: corpus PTX + launch spec -> mutated PTX -> `tmemu run`
/ `tmemu check` with small step budgets.

    python fuzz/mutate_run.py --tmemu target/release/tmemu --seconds 600 --seed 1

Each mutant is one corpus program (a launch spec under tests/corpus whose PTX is small) with 1-3
text mutations: a deleted, duplicated or swapped line, a changed immediate (boundary values),
a changed type or state-space suffix, swapped operands, a register renamed to another of the
file, a tcgen05 qualifier changed (shape, .num, cta_group, multicast), a token copied from
another line, a truncated file. The mutant runs under `tmemu run` or `tmemu check` (alternating)
with `--max-steps` small and a wall-clock limit. A bug is

  * a panic (exit status 101, "panicked at" in the output) or a signal, or
  * a run that exceeds its CPU-time limit (every run must end: with its verdict, with the
    step budget's `incomplete`, or with an error; CPU time, not wall time, because the
    machine may be loaded: the child gets RLIMIT_CPU and is killed by SIGXCPU), or
  * an exit status outside docs/cli.md's 0-4.

Bugs are written to fuzz/findings/<n>/ (mutant.ptx, spec.toml, output.txt, cmd.txt; the
folder is git-ignored) and summarised at the end; the exit status is 1 when any was found.
Deterministic for a seed (the mutants; the timing-based hang verdict is not).
"""
from __future__ import annotations

import argparse
import hashlib
import lzma
import os
import pathlib
import random
import re
import resource
import signal
import shutil
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "corpus"
FINDINGS = REPO / "fuzz" / "findings"
# the bad inputs the CLI tests pin (crates/cli/tests/inputs.rs): fuzzer findings land there
REGRESSIONS = REPO / "crates" / "cli" / "tests" / "data" / "inputs"

INT_RE = re.compile(r"(?<![\w%.$])(-?(?:0[xX][0-9a-fA-F]+|\d+))(?![\w.])")
TYPE_RE = re.compile(r"\.(u8|u16|u32|u64|s8|s16|s32|s64|b8|b16|b32|b64|f16|f16x2|bf16|bf16x2|f32|f64|pred)\b")
SPACE_RE = re.compile(r"\.(global|shared::cta|shared::cluster|shared|local|param|const)\b")
REG_RE = re.compile(r"%[a-z]+\d+")
TC_QUALS = [
    (re.compile(r"\.x(1|2|4|8|16|32|64|128)\b"), [".x1", ".x2", ".x4", ".x128", ".x3"]),
    (re.compile(r"\.(32x32b|16x64b|16x128b|16x256b|16x32bx2)\b"),
     [".32x32b", ".16x64b", ".16x256b", ".16x32bx2"]),
    (re.compile(r"\.cta_group::[12]"), [".cta_group::1", ".cta_group::2"]),
    (re.compile(r"\.(128x256b|4x256b|128x128b|64x128b|32x128b)\b"),
     [".128x256b", ".4x256b", ".128x128b"]),
    (re.compile(r"\.kind::\w+"), [".kind::f16", ".kind::tf32", ".kind::f8f6f4", ".kind::i8"]),
    (re.compile(r"\.(v2|v4|v8)\b"), [".v2", ".v4", ".v8"]),
]
BOUNDARY = ["0", "1", "-1", "2", "3", "31", "32", "33", "48", "64", "96", "127", "128", "255",
            "256", "511", "512", "513", "1024", "4096", "65535", "65536", "2147483647",
            "2147483648", "4294967295", "4294967296", "0x7fffffffffffffff",
            "0xffffffffffffffff", "-2147483648"]


def specs(max_ptx_bytes: int) -> list[tuple[pathlib.Path, pathlib.Path]]:
    """(spec, ptx) pairs of the corpus whose PTX is at most max_ptx_bytes."""
    out = []
    for spec in sorted(CORPUS.rglob("*.toml")) + sorted(REGRESSIONS.glob("*.toml")):
        text = spec.read_text(errors="replace")
        m = re.search(r'^ptx\s*=\s*"([^"]+)"', text, re.M)
        if not m or "expected" in spec.name:
            continue
        ptx = (spec.parent / m.group(1)).resolve()
        if ptx.is_file() and ptx.stat().st_size <= max_ptx_bytes:
            out.append((spec, ptx))
    return out


def body_lines(lines: list[str]) -> list[int]:
    """Indices of instruction-like lines (inside a function, not comments or directives)."""
    return [i for i, l in enumerate(lines)
            if l.strip().endswith(";") and not l.strip().startswith(("//", ".file", ".loc"))]


def mutate_once(rng: random.Random, lines: list[str]) -> str:
    body = body_lines(lines) or list(range(len(lines)))
    if not body:
        return "noop"
    i = rng.choice(body)
    line = lines[i]
    kind = rng.randrange(11)
    if kind == 0:
        del lines[i]
        return f"delete line {i + 1}"
    if kind == 1:
        lines.insert(i, line)
        return f"duplicate line {i + 1}"
    if kind == 2:
        j = rng.choice(body)
        lines[i], lines[j] = lines[j], lines[i]
        return f"swap lines {i + 1} and {j + 1}"
    if kind == 3:
        ints = list(INT_RE.finditer(line))
        if ints:
            m = rng.choice(ints)
            v = rng.choice(BOUNDARY) if rng.random() < 0.7 else str(rng.randrange(-5, 1 << 20))
            lines[i] = line[:m.start(1)] + v + line[m.end(1):]
            return f"immediate {m.group(1)} -> {v} on line {i + 1}"
    if kind == 4:
        ts = list(TYPE_RE.finditer(line))
        if ts:
            m = rng.choice(ts)
            v = rng.choice(["u32", "u64", "s32", "b16", "b64", "f32", "f16", "bf16x2", "pred", "b8"])
            lines[i] = line[:m.start(1)] + v + line[m.end(1):]
            return f"type .{m.group(1)} -> .{v} on line {i + 1}"
    if kind == 5:
        ss = list(SPACE_RE.finditer(line))
        if ss:
            m = rng.choice(ss)
            v = rng.choice(["global", "shared", "shared::cta", "shared::cluster", "local", "param",
                            "const"])
            lines[i] = line[:m.start(1)] + v + line[m.end(1):]
            return f"space .{m.group(1)} -> .{v} on line {i + 1}"
    if kind == 6:
        m = re.match(r"^(\s*(?:@!?%\w+\s+)?[\w.:]+\s+)(.*);(.*)$", line)
        if m:
            ops = [o.strip() for o in m.group(2).split(",")]
            if len(ops) >= 2:
                a, b = rng.sample(range(len(ops)), 2)
                ops[a], ops[b] = ops[b], ops[a]
                lines[i] = m.group(1) + ", ".join(ops) + ";" + m.group(3)
                return f"swap operands on line {i + 1}"
    if kind == 7:
        regs = REG_RE.findall(line)
        every = sorted(set(REG_RE.findall("\n".join(lines))))
        if regs and every:
            r, v = rng.choice(regs), rng.choice(every)
            lines[i] = line.replace(r, v, 1)
            return f"register {r} -> {v} on line {i + 1}"
    if kind == 8:
        for rx, choices in rng.sample(TC_QUALS, len(TC_QUALS)):
            m = rx.search(line)
            if m:
                v = rng.choice(choices)
                lines[i] = line[:m.start()] + v + line[m.end():]
                return f"qualifier {m.group(0)} -> {v} on line {i + 1}"
    if kind == 9:
        j = rng.choice(body)
        toks = re.findall(r"[^\s,;{}\[\]]+", lines[j])
        mine = list(re.finditer(r"[^\s,;{}\[\]]+", line))
        if toks and mine:
            m, t = rng.choice(mine), rng.choice(toks)
            lines[i] = line[:m.start()] + t + line[m.end():]
            return f"token {m.group(0)} -> {t} (from line {j + 1}) on line {i + 1}"
    if kind == 10 and rng.random() < 0.3:
        del lines[i:]
        return f"truncate at line {i + 1}"
    return "noop"


SPEC_TEXT: dict[pathlib.Path, str] = {}
SPEC_NUM_RE = re.compile(r"^(\s*(?:grid|block|cluster|shape|value|shared_bytes|dyn_shared)\s*=.*?)(\d+)",
                         re.M)


def mutate_spec(rng: random.Random, text: str) -> tuple[str, str]:
    """One number of a grid/block/cluster/shape/value line changed to a boundary value."""
    ms = list(SPEC_NUM_RE.finditer(text))
    if not ms:
        return text, "spec noop"
    m = rng.choice(ms)
    v = rng.choice(["0", "1", "2", "3", "7", "33", "1024", "1025", "65536", "4294967295"])
    return text[:m.start(2)] + v + text[m.end(2):], f"spec {m.group(0).strip()} -> {v}"


# Values of the wrong kind or at the edge of what the hardware allows: negative, 2^31, 2^32,
# 2^63, 2^64 (past i64), floats, strings, booleans, arrays, inline tables.
SPEC_VALUES = ["0", "-1", "1", "3", "17", "1025", "65536", "2147483648", "4294967296",
               "9223372036854775807", "18446744073709551616", "-9223372036854775808", "1.5",
               "nan", "inf", "-0.0", "1e300", '"x"', '""', "true", "[]", "[0]", "[-1, 1, 1]",
               "[1, 1, 1, 1]", "[2147483647, 2, 1]", "[65536, 65536, 65536]", "[1024, 2, 1]",
               "[16, 1, 1]", "[3, 1, 1]", "[1.5]", '["a"]', "{}", "{ seed = -1 }"]
SPEC_KEYS = ["ptx", "kernel", "grid", "block", "cluster", "shared_bytes", "dtype", "shape",
             "from", "fill", "random", "value", "buffer", "offset_bytes", "save", "packed",
             "tensormap", "box", "swizzle", "elem_strides", "interleave", "oob_fill",
             "l2_promotion", "npy", "rtol", "atol", "bogus_key"]
DTYPES = ["f64", "f32", "f16", "bf16", "fp8e4m3", "fp8e5m2", "i8", "u8", "i16", "u16", "i32",
          "u32", "i64", "u64", "f17", "b32", ""]
LINE_KV = re.compile(r"^(\s*)([A-Za-z_][\w]*)(\s*=\s*)(.*)$")


def corrupt_file(rng: random.Random, src: pathlib.Path, dst: pathlib.Path) -> str:
    """A corrupted copy of a spec's data file (.npy, .npy.gz, .ptx.xz): truncated, bytes
    flipped in the header, the header's shape or dtype text changed, empty, or garbage."""
    data = src.read_bytes() if src.exists() else b""
    k = rng.randrange(7)
    if k == 0:
        cut = rng.randrange(len(data) + 1)
        dst.write_bytes(data[:cut])
        return f"{src.name} truncated to {cut} of {len(data)} bytes"
    if k == 1:
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            if b:
                i = rng.randrange(min(len(b), 160))
                b[i] = rng.randrange(256)
        dst.write_bytes(bytes(b))
        return f"{src.name} header bytes flipped"
    if k == 2 and data.startswith(b"\x93NUMPY"):
        hdr = data[:200]
        for pat, rep in [(rb"\(\d+,?", rng.choice([b"(99999999999,", b"(-1,", b"(0,", b"(", b"(1, 1, 1, 1, 1, 1, 1, 1, 1,"])),
                         (rb"'descr': '[^']*'", rng.choice([b"'descr': '<f2'", b"'descr': '>f4'", b"'descr': 'O'", b"'descr': '<U4'", b"'descr': '|b1'", b"'descr': 'zz'"])),
                         (rb"'fortran_order': False", b"'fortran_order': True")]:
            if rng.random() < 0.5 and re.search(pat, hdr):
                hdr = re.sub(pat, rep, hdr, count=1)
                dst.write_bytes(hdr + data[200:])
                return f"{src.name} header edited"
        dst.write_bytes(data[:8] + b"\xff\xff" + data[10:])
        return f"{src.name} header length 65535"
    if k == 3:
        dst.write_bytes(b"")
        return f"{src.name} empty"
    if k == 4:
        dst.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randint(1, 300))))
        return f"{src.name} garbage"
    if k == 5:
        dst.write_bytes(data + data[-rng.randint(1, 64):] if data else b"\0")
        return f"{src.name} trailing bytes"
    dst.write_bytes(data[:len(data) // 2] + bytes(len(data) - len(data) // 2))
    return f"{src.name} second half zeroed"


def mutate_spec_rich(rng: random.Random, text: str, tmpd: pathlib.Path, serial: int) -> tuple[str, str]:
    """One launch-spec mutation: a key's value replaced (wrong type, out of range), a key
    deleted, duplicated or renamed, a table header broken, a dtype changed, a data file (.npy,
    .npy.gz, the PTX as .ptx.xz) replaced by a corrupted copy, or a TOML syntax error."""
    lines = text.split("\n")
    kv = [i for i, l in enumerate(lines) if LINE_KV.match(l)]
    k = rng.randrange(10)
    if k == 0 and kv:  # a value of the wrong kind or at an edge
        i = rng.choice(kv)
        m = LINE_KV.match(lines[i])
        v = rng.choice(SPEC_VALUES)
        lines[i] = m.group(1) + m.group(2) + m.group(3) + v
        return "\n".join(lines), f"spec line {i + 1} {m.group(2)} = {v}"
    if k == 1 and kv:  # a key deleted
        i = rng.choice(kv)
        gone = lines[i].strip()
        del lines[i]
        return "\n".join(lines), f"spec line {i + 1} deleted ({gone})"
    if k == 2 and kv:  # a key renamed (unknown key or one that belongs elsewhere)
        i = rng.choice(kv)
        m = LINE_KV.match(lines[i])
        key = rng.choice(SPEC_KEYS)
        lines[i] = m.group(1) + key + m.group(3) + m.group(4)
        return "\n".join(lines), f"spec line {i + 1} key {m.group(2)} -> {key}"
    if k == 3 and kv:  # a line duplicated (duplicate key) or moved to another table
        i, j = rng.choice(kv), rng.randrange(len(lines) + 1)
        lines.insert(j, lines[i])
        return "\n".join(lines), f"spec line {i + 1} copied to {j + 1}"
    if k == 4:  # dtype
        ds = [i for i, l in enumerate(lines) if re.match(r"\s*dtype\s*=", l)]
        if ds:
            i, d = rng.choice(ds), rng.choice(DTYPES)
            lines[i] = f'dtype = "{d}"'
            return "\n".join(lines), f"spec line {i + 1} dtype {d}"
    if k == 5:  # a number inside an array or inline table at an edge
        nums = [(i, m) for i, l in enumerate(lines) for m in re.finditer(r"(?<![\w.])-?\d+(?![\w.])", l)
                if not l.lstrip().startswith("#")]
        if nums:
            i, m = rng.choice(nums)
            v = rng.choice(["0", "-1", "1", "3", "255", "256", "257", "1025", "65536", "2147483648",
                            "4294967296", "9223372036854775808", "232449", "1e9"])
            lines[i] = lines[i][:m.start()] + v + lines[i][m.end():]
            return "\n".join(lines), f"spec line {i + 1} number {m.group(0)} -> {v}"
    if k == 6:  # a data file corrupted
        fs = [(i, m) for i, l in enumerate(lines) for m in re.finditer(r'"(/[^"]+\.(?:npy|ptx))"', l)]
        if fs:
            i, m = rng.choice(fs)
            src = pathlib.Path(m.group(1))
            if not src.exists() and src.with_name(src.name + ".gz").exists():
                src = src.with_name(src.name + ".gz")
            if not src.exists() and src.with_name(src.name + ".xz").exists():
                src = src.with_name(src.name + ".xz")
            suffix = "".join(src.suffixes[-2:]) if src.suffix in (".gz", ".xz") else src.suffix
            dst = tmpd / f"data{serial}_{i}{suffix}"
            if src.suffix == ".ptx" and rng.random() < 0.5:  # the PTX as NAME.ptx.xz
                packed = tmpd / f"packed{serial}.ptx.xz"
                packed.write_bytes(lzma.compress(src.read_bytes(), format=lzma.FORMAT_XZ))
                src, dst = packed, tmpd / f"data{serial}_{i}.ptx.xz"
            how = corrupt_file(rng, src, dst)
            target = dst.with_suffix("") if src.suffix in (".gz", ".xz") else dst
            if src.suffix in (".gz", ".xz") and target.exists():
                target.unlink()
            lines[i] = lines[i][:m.start(1)] + str(target) + lines[i][m.end(1):]
            return "\n".join(lines), f"spec line {i + 1} file: {how}"
    if k == 7:  # a table header broken or changed
        hs = [i for i, l in enumerate(lines) if l.startswith("[")]
        if hs:
            i = rng.choice(hs)
            h = rng.choice(["[[arg]]", "[buffers]", "[buffers.a.b]", "[[buffers]]", "[arg]",
                            "[[expect]]", "[buffers.", "[[arg]", "[buffers.\"\"]", "[tensormap]"])
            old, lines[i] = lines[i], h
            return "\n".join(lines), f"spec line {i + 1} header {old} -> {h}"
    if k == 8:  # syntax: a stray character, an unterminated string or array
        i = rng.randrange(len(lines))
        junk = rng.choice(['"', "[", "]", "=", "\\", "\x00", "\u00e9", "{", ",", "#"])
        p = rng.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:p] + junk + lines[i][p:]
        return "\n".join(lines), f"spec line {i + 1} col {p + 1} inserted {junk!r}"
    # top-level keys the hardware limits: cluster shapes, dynamic shared memory, a kernel name
    extra = rng.choice(["cluster = [16, 1, 1]", "cluster = [3, 1, 1]", "cluster = [2, 2, 2]",
                        "cluster = [0, 1, 1]", "cluster = [1, 1, 9]", "shared_bytes = 232449",
                        "shared_bytes = 4294967296", "shared_bytes = -1",
                        'kernel = "no_such_kernel"', 'kernel = ""', "grid = [0, 1, 1]",
                        "grid = [2147483648, 1, 1]", "grid = [65536, 65536, 65536]",
                        "block = [1024, 1, 2]", "block = [1, 1, 65]", "block = []"])
    key = extra.split()[0]
    first = next((i for i, l in enumerate(lines) if l.startswith("[")), len(lines))
    lines = [l for j, l in enumerate(lines) if j >= first or not re.match(rf"{key}\s*=", l)]
    first = next((i for i, l in enumerate(lines) if l.startswith("[")), len(lines))
    lines.insert(first, extra)
    return "\n".join(lines), f"spec top-level {extra}"


def spec_for(spec: pathlib.Path, mutant: pathlib.Path) -> str:
    """The spec's text with its PTX pointing at the mutant and every other relative file path
    made absolute (so the spec can live in the temporary folder)."""
    text = SPEC_TEXT.get(spec) or spec.read_text()
    text = re.sub(r'^ptx\s*=\s*"[^"]+"', f'ptx = "{mutant}"', text, count=1, flags=re.M)

    def absolute(m: re.Match) -> str:
        p = spec.parent / m.group(1)
        there = p.exists() or p.with_name(p.name + ".gz").exists() \
            or p.with_name(p.name + ".xz").exists()
        return f'"{p.resolve()}"' if m.group(1) and there and not m.group(1).startswith("/") \
            else m.group(0)
    head, sep, rest = text.partition("\n")
    return head + sep + re.sub(r'"([^"\n]+\.(?:npy|bin|ptx|toml))"', absolute, rest)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tmemu", default=str(REPO / "target" / "release" / "tmemu"))
    ap.add_argument("--seconds", type=float, default=300, help="total wall-clock budget")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-steps", type=int, default=200_000)
    ap.add_argument("--mem-limit", type=float, default=4,
                    help="GiB of address space one run may take (RLIMIT_AS): a run that needs "
                         "more aborts (signal 6, a bug) instead of taking the shared machine's memory")
    ap.add_argument("--sms", type=int, default=16,
                    help="SMs of the simulated GPU: --max-steps counts per SM group, so a wide "
                         "grid on 148 SMs may run 148 x the budget (past the CPU limit, no hang)")
    ap.add_argument("--cpu-limit", type=int, default=20,
                    help="CPU seconds one run may use (RLIMIT_CPU)")
    ap.add_argument("--timeout", type=float, default=900,
                    help="wall-clock limit of one run, a backstop for a run that sleeps")
    ap.add_argument("--max-ptx-bytes", type=int, default=40_000)
    ap.add_argument("--only", default="", help="substring a spec path must contain")
    ap.add_argument("--spec-only", action="store_true",
                    help="leave the PTX alone and apply 1-3 launch-spec mutations instead")
    ap.add_argument("--spec-rate", type=float, default=0.2,
                    help="with PTX mutations, the share of mutants whose spec is mutated too")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    # read every program once: the corpus may be regenerated while this runs
    pairs = []
    for spec, ptx in specs(args.max_ptx_bytes):
        if args.only in str(spec):
            try:
                pairs.append((spec, ptx.read_text(errors="replace")))
                SPEC_TEXT[spec] = spec.read_text(errors="replace")
            except OSError:
                continue
    if not pairs:
        sys.exit("mutate_run: no corpus specs")
    bugs, n, t0 = [], 0, time.monotonic()
    counts: dict[int, int] = {}
    unplaced: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="tmemu-mutate-") as tmp:
        tmpd = pathlib.Path(tmp)
        while time.monotonic() - t0 < args.seconds:
            spec, text = rng.choice(pairs)
            lines = text.splitlines()
            what = [] if args.spec_only else \
                [mutate_once(rng, lines) for _ in range(rng.randint(1, 3))]
            mutant = tmpd / "mutant.ptx"
            mutant.write_text("\n".join(lines) + "\n")
            mspec = tmpd / "spec.toml"
            spec_text = spec_for(spec, mutant)
            if args.spec_only:
                for _ in range(rng.randint(1, 3)):
                    spec_text, how = mutate_spec_rich(rng, spec_text, tmpd, n)
                    what.append(how)
            elif rng.random() < args.spec_rate:  # the launch too
                spec_text, how = (mutate_spec(rng, spec_text) if rng.random() < 0.5
                                  else mutate_spec_rich(rng, spec_text, tmpd, n))
                what.append(how)
            mspec.write_text(spec_text)
            sub = "check" if n % 2 else "run"
            cmd = [args.tmemu, sub, str(mspec), "--max-steps", str(args.max_steps), "--threads", "1",
                   "--sms", str(args.sms)]
            if sub == "check":
                cmd += ["--jobs", "1"]
            n += 1
            started = time.monotonic()
            limit = args.cpu_limit

            def cpu_limit() -> None:
                resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))
                mem = int(args.mem_limit * (1 << 30))
                resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                                   errors="replace", preexec_fn=cpu_limit)
                rc, out = r.returncode, r.stdout + r.stderr
            except subprocess.TimeoutExpired as e:
                rc = None
                out = f"TIMEOUT after {args.timeout} s\n" + str(e.stdout or "") + str(e.stderr or "")
            counts[rc if rc is not None else -999] = counts.get(rc if rc is not None else -999, 0) + 1
            if rc == -signal.SIGXCPU or rc == -signal.SIGKILL:
                out = f"CPU limit of {limit} s exceeded\n" + out
            bad = (rc is None or rc not in (0, 1, 2, 3, 4) or "panicked at" in out)
            # bad input names its place (docs/cli.md); a message without file:line:col is
            # listed once per distinct text (digits and paths blurred) for a person to judge
            if rc == 2 and not re.search(r":\d+:\d+", out):
                shape = re.sub(r"\d+", "N", re.sub(r"/\S+", "PATH", out.strip().split("\n")[0]))
                if shape not in unplaced:
                    unplaced[shape] = f"{spec.relative_to(REPO)}: {'; '.join(what)}"
                    print(f"UNPLACED: {shape}\n    {unplaced[shape]}", flush=True)
            if bad:
                key = hashlib.sha1(out.split("\n")[0].encode() + str(rc).encode()).hexdigest()[:8]
                d = FINDINGS / f"{len(bugs):03d}-{key}"
                d.mkdir(parents=True, exist_ok=True)
                shutil.copy(mutant, d / "mutant.ptx")
                (d / "spec.toml").write_text(spec_text.replace(str(mutant), str(d / "mutant.ptx")))
                (d / "output.txt").write_text(out)
                (d / "cmd.txt").write_text(
                    f"{' '.join(cmd)}\n# from {spec.relative_to(REPO)}: {'; '.join(what)}\n"
                    f"# rc {rc}, {time.monotonic() - started:.1f} s\n")
                bugs.append((d, rc, what))
                print(f"BUG {d.name}: rc {rc} {spec.relative_to(REPO)}: {'; '.join(what)}",
                      flush=True)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"mutate_run: {n} mutants from {len(pairs)} specs in {time.monotonic() - t0:.0f} s "
          f"({ru.ru_utime + ru.ru_stime:.0f} s CPU in tmemu); "
          f"exit codes {dict(sorted(counts.items()))} (-24: CPU limit, -999: wall-clock limit); "
          f"{len(bugs)} bug(s), {len(unplaced)} distinct bad-input message(s) without a place")
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
