#!/usr/bin/env python3
"""Validate the rule corpus (tests/corpus/rules) and the bug reproductions (tests/corpus/bugs).

    /work/kvenv/bin/python tests/corpus/rules/check_corpus.py            # check everything
    /work/kvenv/bin/python tests/corpus/rules/check_corpus.py --record   # rewrite ptxas_messages.py
    /work/kvenv/bin/python tests/corpus/rules/check_corpus.py --no-ptxas # skip the assembler

Checks (format: tests/corpus/rules/README.md):
  * every catalogued rule TM00xx-TM04xx (crates/tmem/src/rules.rs) has a directory
    <ID>-<name>/ with break.ptx, keep.ptx and a launch spec for each, or an entry in EXEMPT;
    no directory names an unknown or renamed rule;
  * every mark parses, names a catalogued rule, uses the rule's catalogued severity, and every
    ~RELATED has a primary mark of the same rule in the same file;
  * headers: one `//@ verdict`, consistent with the marks; keep programs are clean and unmarked
    (notes allowed); a break has a finding of its own rule; one `ret;` per program (the CTA's
    exit, where exit-time findings are marked);
  * ptxas -arch=sm_100a (or `//@ arch`) accepts every PTX except the TM04xx breaks, which it
    must reject with the message recorded in ptxas_messages.py (and quoted in the file);
  * every launch spec parses as TOML, uses only launch-spec keys, names an existing PTX and
    entry, and has one [[arg]] per .param;
  * bugs: buggy/fixed PTX and specs as above, expected.toml findings name catalogued rules
    (or are hangs) at lines that hold that instruction; fixed variants expect nothing;
    kernels/gen_bugs.py output is up to date;
  * make_rules.py output is up to date.
Exit status 0 when everything holds; every problem is printed as path:line: message.
`--selftest` plants one defect per check in small in-memory programs/specs and requires each
to be caught (and clean controls to pass).
"""
from __future__ import annotations

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
BUGS = REPO / "tests" / "corpus" / "bugs"
CATALOGUE = REPO / "crates" / "tmem" / "src" / "rules.rs"
PTXAS = pathlib.Path(os.environ.get(
    "TMEMU_PTXAS", "/work/kvenv/lib/python3.11/site-packages/nvidia/cu13/bin/ptxas"))

RANGES = ("TM00", "TM01", "TM02", "TM03", "TM04", "TM05")

# Rules without a break/keep pair, and why: by ID, or by rule-name prefix for a family.
EXEMPT: dict[str, str] = {}  # none today (TM0122/TM0127 build their maps in the kernel)
EXEMPT_FAMILIES: dict[str, str] = {}  # rule-name prefix -> reason (none today)


def exemption(rid: str, name: str) -> str | None:
    if rid in EXEMPT:
        return EXEMPT[rid]
    return next((why for pre, why in EXEMPT_FAMILIES.items() if name.startswith(pre)), None)

VERDICTS = {"clean", "violation", "hang", "incomplete"}
SEVERITY_KIND = {"Error": "ERROR", "Warning": "WARNING", "Note": "NOTE"}
# `// ~ERROR TM0001 ~RELATED TM0002` (this line) or `//~^^ ERROR TM0001` (two lines up).
MARK_RE = re.compile(r"//\s*~(\^*)\s*(.*)$")
ONE_MARK_RE = re.compile(r"~?(ERROR|WARNING|NOTE|RELATED|HANG)\b(?:\s+(TM\d{4}))?")
SPEC_KEYS = {"ptx", "kernel", "grid", "block", "cluster", "shared_bytes", "buffers", "arg",
             "expect"}
ARG_KEYS = {"value", "buffer", "offset_bytes", "dtype", "shape", "fill", "from", "random", "save",
            "packed", "tensormap"}


class Problems:
    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, path: pathlib.Path, line: int, msg: str) -> None:
        shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
        self.items.append(f"{shown}:{line}: {msg}")


def catalogue() -> dict[str, tuple[str, str]]:
    """ID -> (name, severity) from the Rust catalogue."""
    text = CATALOGUE.read_text()
    out = {}
    for m in re.finditer(r'id: "(TM\d{4})",\s*name: "([a-z0-9-]+)",.*?severity: Severity::(\w+)',
                         text, re.S):
        out[m.group(1)] = (m.group(2), m.group(3))
    return out


def parse_marks(path: pathlib.Path, text: str, rules, probs: Problems):
    """[(kind, rule or None, target line)] and the header dict."""
    marks, header = [], {}
    for no, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith("//@"):
            key, eq, val = s[3:].partition("=")
            if not eq:
                probs.add(path, no, f"header without '=': {s}")
                continue
            key = key.strip()
            if key in header:
                probs.add(path, no, f"header `{key}` given twice")
            header[key] = val.strip()
            continue
        m = MARK_RE.search(line)
        if not m:
            continue
        target = no - len(m.group(1))
        rest = m.group(2)
        found = ONE_MARK_RE.findall(rest)
        leftover = ONE_MARK_RE.sub("", rest).strip()
        if not found or leftover:
            probs.add(path, no, f"unparsable mark: {rest!r}")
            continue
        for kind, rule in found:
            rule = rule or None
            if kind != "HANG" and rule is None:
                probs.add(path, no, f"~{kind} needs a rule ID")
                continue
            if rule is not None and rule not in rules:
                probs.add(path, no, f"~{kind} names {rule}, which is not in the catalogue")
                continue
            if kind in ("ERROR", "WARNING", "NOTE") and SEVERITY_KIND[rules[rule][1]] != kind:
                probs.add(path, no, f"~{kind} {rule}: the catalogue's severity is "
                                    f"{rules[rule][1]}")
            marks.append((kind, rule, target))
    return marks, header


def check_ptx_marks(path, text, rules, probs, own_rule=None, which=None):
    marks, header = parse_marks(path, text, rules, probs)
    verdict = header.get("verdict")
    if verdict not in VERDICTS:
        probs.add(path, 1, f"`//@ verdict` missing or not one of {sorted(VERDICTS)}: {verdict!r}")
    unknown = set(header) - {"verdict", "arch", "pair_collective", "ptxas"}
    if header.get("ptxas", "reject") != "reject":
        probs.add(path, 1, "the only `//@ ptxas` value is reject")
    if header.get("pair_collective", "blocking") not in ("blocking", "eager"):
        probs.add(path, 1, "pair_collective must be blocking or eager")
    if unknown:
        probs.add(path, 1, f"unknown header keys {sorted(unknown)}")
    primaries = {(k, r) for k, r, _ in marks if k in ("ERROR", "WARNING", "NOTE")}
    for kind, rule, line in marks:
        if kind == "RELATED" and not any(r == rule for _, r in primaries):
            probs.add(path, line, f"~RELATED {rule} without a primary mark of {rule}")
    # Only errors fail a run; warnings and notes are reported with verdict clean (as rustc
    # treats warnings; tmemu_diag::Verdict does the same).
    failing = [m for m in marks if m[0] == "ERROR"]
    hangs = [m for m in marks if m[0] == "HANG"]
    if verdict == "clean" and failing:
        probs.add(path, failing[0][2], "verdict clean but the file expects errors")
    if verdict == "violation" and not failing:
        probs.add(path, 1, "verdict violation but no ~ERROR mark")
    if verdict == "hang" and not hangs:
        probs.add(path, 1, "verdict hang but no ~HANG mark")
    if verdict != "hang" and hangs:
        probs.add(path, hangs[0][2], "~HANG mark but the verdict is not hang")
    if which == "keep":
        if verdict != "clean":
            probs.add(path, 1, "a keep program must have verdict clean")
    # a hang report names its rule on the ~HANG marks (TM0225, TM0504)
    if which == "break" and own_rule and not any(r == own_rule for _, r in primaries) \
            and not any(m[1] == own_rule for m in hangs):
        probs.add(path, 1, f"the break program has no finding of its own rule {own_rule}")
    return marks, header


PTXAS_LINE = re.compile(r"^ptxas (?:\S+, line \d+; )?(error|warning)\s*: (.*)$")


def ptxas_messages(out: str) -> list[str]:
    msgs = []
    for line in out.splitlines():
        m = PTXAS_LINE.match(line.strip())
        if m and m.group(1) == "error" and m.group(2) not in msgs:
            msgs.append(m.group(2))
    return msgs


def run_ptxas(path: pathlib.Path, arch: str) -> tuple[int, str]:
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([str(PTXAS), f"-arch={arch}", str(path), "-o", f"{tmp}/o.cubin"],
                           capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def entry_params(text: str) -> dict[str, int]:
    out = {}
    for m in re.finditer(r"\.entry\s+(\w+)\s*\((.*?)\)", text, re.S):
        out[m.group(1)] = len(re.findall(r"\.param\b", m.group(2)))
    for m in re.finditer(r"\.entry\s+(\w+)\s*\(\s*\)", text):
        out[m.group(1)] = 0
    for m in re.finditer(r"\.entry\s+(\w+)\s*(?:\{|$)", text, re.M):
        out.setdefault(m.group(1), 0)
    return out


def check_spec(path: pathlib.Path, probs: Problems) -> None:
    try:
        spec = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        probs.add(path, getattr(e, "lineno", 1) or 1, f"TOML: {e}")
        return
    for k in set(spec) - SPEC_KEYS:
        probs.add(path, 1, f"unknown launch-spec key `{k}`")
    ptx = path.parent / str(spec.get("ptx", ""))
    if not ptx.is_file():
        probs.add(path, 1, f"ptx = {spec.get('ptx')!r} does not exist")
        return
    entries = entry_params(ptx.read_text())
    kernel = spec.get("kernel")
    if kernel is None and len(entries) != 1:
        probs.add(path, 1, "kernel missing and the module has several entries")
        return
    kernel = kernel or next(iter(entries))
    if kernel not in entries:
        probs.add(path, 1, f"kernel {kernel!r} is not an .entry of {ptx.name}")
        return
    args = spec.get("arg", [])
    if len(args) != entries[kernel]:
        probs.add(path, 1, f"{len(args)} [[arg]] for {entries[kernel]} .param of {kernel}")
    for a in args:
        for k in set(a) - ARG_KEYS:
            probs.add(path, 1, f"unknown [[arg]] key `{k}`")
    for key in ("grid", "block", "cluster"):
        v = spec.get(key)
        if v is not None and not (isinstance(v, list) and 1 <= len(v) <= 3
                                  and all(isinstance(x, int) and x > 0 for x in v)):
            probs.add(path, 1, f"{key} must be 1-3 positive integers")
    if "cluster" in spec:
        g = (spec.get("grid", []) + [1, 1, 1])[:3]
        c = (spec["cluster"] + [1, 1, 1])[:3]
        if any(gi % ci for gi, ci in zip(g, c)):
            probs.add(path, 1, "grid is not a multiple of cluster")


def check_rules(rules, probs: Problems, use_ptxas: bool, record: dict | None) -> int:
    in_range = {i: v for i, v in rules.items() if i.startswith(RANGES)}
    dirs = {d.name: d for d in HERE.iterdir() if d.is_dir() and not d.name.startswith("__")}
    n_ptx = 0
    for rid, (name, _) in sorted(in_range.items()):
        want = f"{rid}-{name}"
        if exemption(rid, name) is not None:
            if rid in EXEMPT and want in dirs:
                probs.add(HERE / want, 1, f"{rid} is exempt but has a directory")
            continue
        if want not in dirs:
            probs.add(HERE / "README.md", 1, f"no directory {want}/ for {rid} (nor an exemption)")
    for dname, d in sorted(dirs.items()):
        m = re.match(r"(TM\d{4})-([a-z0-9-]+)$", dname)
        if m:
            rid = m.group(1)
            if rid not in rules or rules[rid][0] != m.group(2):
                probs.add(d, 1, f"directory names {dname}, catalogue says "
                                f"{rid}-{rules.get(rid, ('?',))[0]}")
                continue
        elif not dname.startswith(("legal-", "hang-")):
            probs.add(d, 1, "directory is neither <ID>-<name>, legal-<pattern> nor hang-<pattern>")
            continue
        stems = sorted(p.stem for p in d.glob("*.ptx"))
        required = ["keep"] if dname.startswith("legal-") else ["break", "keep"]
        for stem in set(required) - set(stems):
            probs.add(d, 1, f"missing {stem}.ptx")
        for stem in stems:
            if stem not in required and not (stem.startswith("break-") and "break" in required):
                probs.add(d / f"{stem}.ptx", 1, "file stem must be break, keep or break-<variant>")
                continue
            ptx, spec = d / f"{stem}.ptx", d / f"{stem}.toml"
            if not ptx.is_file() or not spec.is_file():
                probs.add(d, 1, f"missing {stem}.ptx or {stem}.toml")
                continue
            n_ptx += 1
            text = ptx.read_text()
            _, header = check_ptx_marks(ptx, text, rules, probs,
                                        own_rule=m.group(1) if m else None,
                                        which="break" if stem.startswith("break") else stem)
            if dname.startswith("hang-") and stem == "break" and header.get("verdict") != "hang":
                probs.add(ptx, 1, "a hang-* break must have verdict hang")
            check_spec(spec, probs)
            n_ret = sum(l.split("//")[0].strip() == "ret;" for l in text.splitlines())
            if n_ret != 1:
                # exit-time findings (TM0012, TM0016, TM0019) are marked on the single `ret`
                probs.add(ptx, 1, f"want exactly one `ret;`, found {n_ret}")
            first = next((l for l in text.splitlines() if l.startswith(".version")), "")
            ver = tuple(int(x) for x in first.split()[1].split(".")) if first else (0, 0)
            if ver < (8, 8) and not (m and m.group(1) == "TM0409"):
                probs.add(ptx, 1, f".version {first} is older than 8.8")
            static_break = header.get("ptxas") == "reject"
            if static_break and not stem.startswith("break"):
                probs.add(ptx, 1, "only a break program may expect ptxas to reject it")
            if m and m.group(1).startswith("TM04") and stem == "break" and not static_break:
                probs.add(ptx, 1, "a TM04xx break must say `//@ ptxas = reject`")
            key = f"{dname}/{stem}"
            if not use_ptxas:
                continue
            rc, out = run_ptxas(ptx, header.get("arch", "sm_100a"))
            if static_break:
                msgs = ptxas_messages(out)
                if rc == 0:
                    probs.add(ptx, 1, "ptxas accepts this static-rule break")
                elif record is not None:
                    record[key] = "\n".join(msgs)
                else:
                    from ptxas_messages import PTXAS_MESSAGES
                    want_msgs = PTXAS_MESSAGES.get(key)
                    if want_msgs is None or want_msgs.splitlines() != msgs:
                        probs.add(ptx, 1, f"ptxas says {msgs}, recorded {want_msgs!r}")
                    for msg in msgs:
                        if msg not in text:
                            probs.add(ptx, 1, f"ptxas message not quoted in the file: {msg}")
            elif rc != 0:
                probs.add(ptx, 1, "ptxas rejects it: " + "; ".join(ptxas_messages(out)))
    return n_ptx


def check_bugs(rules, probs: Problems, use_ptxas: bool) -> int:
    if not BUGS.is_dir():
        probs.add(BUGS.parent, 1, "tests/corpus/bugs is missing")
        return 0
    n = 0
    for d in sorted(p for p in BUGS.iterdir() if p.is_dir()):
        exp_path = d / "expected.toml"
        if not exp_path.is_file():
            probs.add(d, 1, "missing expected.toml")
            continue
        try:
            exp = tomllib.loads(exp_path.read_text())
        except tomllib.TOMLDecodeError as e:
            probs.add(exp_path, 1, f"TOML: {e}")
            continue
        for k in set(exp) - {"bug", "source", "mechanism", "buggy", "fixed", "finding"}:
            probs.add(exp_path, 1, f"unknown key `{k}`")
        for key in ("bug", "source", "mechanism"):
            if not isinstance(exp.get(key), str) or not exp.get(key):
                probs.add(exp_path, 1, f"`{key}` missing")
        findings = exp.get("finding", [])
        known = {exp.get(v, {}).get("ptx") for v in ("buggy", "fixed") if isinstance(exp.get(v), dict)}
        for f in findings:
            if f.get("file") not in known:
                probs.add(exp_path, 1, f"finding file {f.get('file')!r} is neither variant's ptx")
        for vname in ("buggy", "fixed"):
            v = exp.get(vname)
            if not isinstance(v, dict):
                probs.add(exp_path, 1, f"[{vname}] missing")
                continue
            ptx = d / str(v.get("ptx", ""))
            spec = d / str(v.get("spec", ""))
            if not ptx.is_file() or not spec.is_file():
                probs.add(exp_path, 1, f"[{vname}]: ptx/spec missing")
                continue
            n += 1
            check_spec(spec, probs)
            if v.get("verdict") not in VERDICTS:
                probs.add(exp_path, 1, f"[{vname}]: bad verdict {v.get('verdict')!r}")
            mine = [f for f in findings if f.get("file") == v.get("ptx")]
            if vname == "fixed" and (mine or v.get("verdict") != "clean"):
                probs.add(exp_path, 1, "the fixed variant must be silent (no findings, clean)")
            if vname == "buggy" and not findings:
                probs.add(exp_path, 1, "the buggy variant expects no finding")
            lines = ptx.read_text().splitlines()
            for f in mine:
                for k in set(f) - {"rule", "severity", "file", "line", "instruction",
                                   "related_line"}:
                    probs.add(exp_path, 1, f"unknown finding key `{k}`")
                rule, line = f.get("rule"), f.get("line")
                sev = f.get("severity")
                if rule is None:
                    if sev != "hang":
                        probs.add(exp_path, 1, "a finding without a rule must be severity hang")
                elif rule not in rules:
                    probs.add(exp_path, 1, f"finding names {rule}, not in the catalogue")
                elif SEVERITY_KIND[rules[rule][1]].lower() != sev and sev != "hang":
                    # a hang finding names the rule of its hang report (TM0020, TM0225, TM0504)
                    probs.add(exp_path, 1, f"{rule} severity {sev}, catalogue says {rules[rule][1]}")
                if sev == "hang" and v.get("verdict") != "hang":
                    probs.add(exp_path, 1, "a hang finding in a variant whose verdict is not hang")
                for key in ("line", "related_line"):
                    at = f.get(key)
                    if key == "related_line" and at is None:
                        continue
                    if not isinstance(at, int) or not 1 <= at <= len(lines):
                        probs.add(exp_path, 1, f"finding {key} {at!r} outside {ptx.name}")
                if isinstance(line, int) and 1 <= line <= len(lines):
                    op = f.get("instruction")
                    if not op or op not in lines[line - 1]:
                        probs.add(exp_path, 1, f"{ptx.name}:{line} does not hold `{op}`")
            if use_ptxas:
                rc, out = run_ptxas(ptx, "sm_100a")
                if rc != 0:
                    probs.add(ptx, 1, "ptxas rejects it: " + "; ".join(ptxas_messages(out)))
            if "/work/" in ptx.read_text():
                probs.add(ptx, 1, "absolute path left in the PTX")
    return n


def selftest() -> int:
    """Plants one defect per check in small in-memory programs and specs and requires each to
    be reported (and the clean control to pass). Returns the number of failures."""
    rules = catalogue()
    fails = []
    head = ".version 8.8\n.target sm_100a\n.address_size 64\n"

    def marks(text, which="break", own="TM0009"):
        probs = Problems()
        check_ptx_marks(HERE / "selftest.ptx", text, rules, probs, own_rule=own, which=which)
        return probs.items

    def expect(name, got, needle):
        if needle is None and got:
            fails.append(f"{name}: expected no problem, got {got}")
        if needle is not None and not any(needle in g for g in got):
            fails.append(f"{name}: expected a problem containing {needle!r}, got {got}")

    ok_break = head + "//@ verdict = violation\n  alloc;  // ~ERROR TM0009 ~RELATED TM0009\n"
    expect("control break", marks(ok_break), None)
    expect("control keep", marks(head + "//@ verdict = clean\n  ret;  // ~NOTE TM0019\n",
                                 "keep", None), None)
    expect("caret form", marks(head + "//@ verdict = violation\n  alloc;\n//~^ ERROR TM0009\n"),
           None)
    expect("unknown id", marks(ok_break.replace("~RELATED TM0009", "~ERROR TM9999")),
           "not in the catalogue")
    expect("wrong severity", marks(ok_break.replace("~ERROR TM0009", "~WARNING TM0009")),
           "catalogue's severity")
    expect("related alone", marks(head + "//@ verdict = violation\n  a;  // ~ERROR TM0009\n"
                                  "  b;  // ~RELATED TM0012\n"), "without a primary")
    expect("no verdict", marks(head + "  a;  // ~ERROR TM0009\n"), "verdict")
    expect("clean with error", marks(ok_break.replace("violation", "clean")), "verdict clean")
    expect("violation unmarked", marks(head + "//@ verdict = violation\n  a;\n"), "no ~ERROR")
    expect("hang unmarked", marks(head + "//@ verdict = hang\n  a;  // ~ERROR TM0009\n"),
           "no ~HANG")
    expect("hang mark, no hang", marks(ok_break.replace("~RELATED TM0009", "~HANG")),
           "not hang")
    expect("keep not clean", marks(ok_break, "keep", None), "keep program")
    expect("break of other rule", marks(ok_break, "break", "TM0010"), "its own rule")
    expect("garbage mark", marks(ok_break.replace("~RELATED TM0009", "~BOGUS TM0009")),
           "unparsable")
    expect("unknown header", marks(ok_break + "//@ colour = red\n"), "unknown header")
    if ptxas_messages("ptxas x.ptx, line 3; error   : boom\nptxas fatal   : aborted\n"
                      "ptxas error   : Function 'k' uses ...") != ["boom", "Function 'k' uses ..."]:
        fails.append("ptxas_messages does not strip the location prefix")

    with tempfile.TemporaryDirectory() as tmp:
        t = pathlib.Path(tmp)
        (t / "k.ptx").write_text(head + ".visible .entry k(\n .param .u64 a\n)\n{\n ret;\n}\n")
        good = 'ptx = "k.ptx"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\n\n[[arg]]\nvalue = 0\n'
        for name, text, needle in [
            ("spec control", good, None),
            ("spec unknown key", good.replace("grid", "gird"), "unknown launch-spec key"),
            ("spec arity", good + "\n[[arg]]\nvalue = 1\n", "2 [[arg]] for 1 .param"),
            ("spec missing ptx", good.replace("k.ptx", "nope.ptx"), "does not exist"),
            ("spec cluster", good.replace("grid = [1, 1, 1]", "grid = [3, 1, 1]\ncluster = [2]"),
             "multiple of cluster"),
            ("spec toml", good + "x = [", "TOML"),
        ]:
            (t / "s.toml").write_text(text)
            probs = Problems()
            check_spec(t / "s.toml", probs)
            expect(name, [i.split(": ", 1)[-1] for i in
                          (p.replace(str(t), "") for p in probs.items)], needle)
    for f in fails:
        print("selftest FAIL:", f)
    print(f"selftest: {len(fails)} failure(s)")
    return len(fails)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--selftest", action="store_true", help="check the checker, then exit")
    ap.add_argument("--record", action="store_true", help="rewrite ptxas_messages.py")
    ap.add_argument("--no-ptxas", action="store_true")
    args = ap.parse_args()
    if args.selftest:
        return 1 if selftest() else 0
    sys.path.insert(0, str(HERE))
    rules = catalogue()
    probs = Problems()
    record: dict | None = {} if args.record else None
    if not args.record:
        r = subprocess.run([sys.executable, str(HERE / "make_rules.py"), "--check"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            probs.add(HERE / "make_rules.py", 1, "generated files are stale:\n" + r.stdout)
        if not args.no_ptxas:  # gen_bugs needs nvcc, like ptxas
            r = subprocess.run([sys.executable, str(REPO / "kernels" / "gen_bugs.py"), "--check"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                probs.add(REPO / "kernels" / "gen_bugs.py", 1,
                          "tests/corpus/bugs is stale:\n" + r.stdout + r.stderr)
    n_rules = check_rules(rules, probs, not args.no_ptxas, record)
    n_bugs = 0 if args.record else check_bugs(rules, probs, not args.no_ptxas)
    if record is not None:
        body = "".join(f"    {k!r}: {v!r},\n" for k, v in sorted(record.items()))
        (HERE / "ptxas_messages.py").write_text(
            '"""ptxas 13.5 error messages for the static-rule breaks (written by check_corpus.py '
            '--record)."""\n\nPTXAS_MESSAGES = {\n' + body + "}\n")
        print(f"recorded {len(record)} ptxas messages")
    in_range = sorted(i for i in rules if i.startswith(RANGES))
    exempt = [i for i in in_range if exemption(i, rules[i][0]) is not None
              and not (HERE / f"{i}-{rules[i][0]}").is_dir()]
    for p in probs.items:
        print(p)
    print(f"catalogue: {len(rules)} rules, {len(in_range)} in TM00xx-TM04xx, "
          f"{len(exempt)} exempt ({' '.join(exempt) or 'none'}); rule corpus: {n_rules} programs; bugs: {n_bugs} programs; "
          f"ptxas: {'skipped' if args.no_ptxas else PTXAS}")
    print("OK" if not probs.items else f"{len(probs.items)} problem(s)")
    return 0 if not probs.items else 1


if __name__ == "__main__":
    sys.exit(main())
