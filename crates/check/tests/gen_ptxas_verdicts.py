"""Writes data/ptxas_verdicts.tsv: tcgen05 forms and whether ptxas 13.5 accepts them.

Each row is one instruction in a one-instruction kernel (the same frame as tests/forms.rs),
assembled with `ptxas -arch <target>` (sm_101* targets with -arch sm_110*, targets.md §2).
tests/ptxas_agreement.rs then requires static_check to be silent exactly on accepted rows.
Run: /work/kvenv/bin/python crates/check/tests/gen_ptxas_verdicts.py
"""
import pathlib, subprocess, tempfile, os

PTXAS = "/work/kvenv/lib/python3.11/site-packages/nvidia/cu13/bin/ptxas"
OUT = pathlib.Path(__file__).parent / "data" / "ptxas_verdicts.tsv"

def frame(version, target, line):
    return (f".version {version}\n.target {target}\n.address_size 64\n.entry k()\n{{\n"
            f"    .reg .b32 %r<200>;\n    .reg .b64 %rd<4>;\n    .reg .b16 %rs<4>;\n"
            f"    .reg .pred %p<4>;\n    .reg .u16 %u<4>;\n    .reg .f16 %h<4>;\n    {line}\n    ret;\n}}\n")

def regs(n):
    return "{" + ", ".join(f"%r{i}" for i in range(n)) + "}"

SHAPES = {"16x64b": 1, "16x128b": 2, "16x256b": 4, "32x32b": 1, "16x32bx2": 1}
NUMS = [1, 2, 4, 8, 16, 32, 64, 128]

def forms():
    v, t = "8.8", "sm_100a"
    for shape, k in SHAPES.items():
        imm = ", 16" if shape == "16x32bx2" else ""
        for num in NUMS:
            n = num * k
            for pack in ["", ".pack::16b"]:
                for length in sorted({n, max(n - 1, 1)}):
                    if length > 128:
                        continue
                    yield v, t, f"tcgen05.ld.sync.aligned.{shape}.x{num}{pack}.b32 {regs(length)}, [%r199]{imm};"
            for unpack in ["", ".unpack::16b"]:
                if n <= 128:
                    yield v, t, f"tcgen05.st.sync.aligned.{shape}.x{num}{unpack}.b32 [%r199]{imm}, {regs(n)};"
    yield v, t, "tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r1}, [%r3], %r4;"
    yield v, t, "tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%r3], {%r1};"
    yield v, t, "tcgen05.ld.sync.aligned.32x32b.x1.unpack::16b.b32 {%r1}, [%r3];"
    yield v, t, "tcgen05.st.sync.aligned.32x32b.x1.pack::16b.b32 [%r3], {%r1};"
    for shape in ["128x256b", "4x256b", "128x128b", "64x128b", "32x128b"]:
        for mc in ["", ".warpx2::02_13", ".warpx2::01_23", ".warpx4"]:
            for fmt in ["", ".b8x16.b6x16_p32", ".b8x16.b4x16_p64", ".b6x16_p32", ".b8x16",
                        ".b6x16_p32.b8x16"]:
                for g in ["1", "2"]:
                    yield v, t, f"tcgen05.cp.cta_group::{g}.{shape}{mc}{fmt} [%r1], %rd1;"
    for mc, mask in [("", ""), ("", ", %rs1"), (".multicast::cluster", ", %rs1"),
                     (".multicast::cluster", ""), (".multicast::cluster", ", %r1"),
                     (".multicast::cluster", ", %rd1"), (".multicast::cluster", ", 3"),
                     (".multicast::cluster", ", %u1"), (".multicast::cluster", ", %h1")]:
        yield v, t, f"tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster{mc}.b64 [%rd1]{mask};"
    for n in [0, 8, 16, 24, 32, 48, 64, 96, 128, 160, 256, 384, 512, 513, 600, 1024, 2048]:
        yield v, t, f"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], {n};"
        yield v, t, f"tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, {n};"
    for sp in ["", ".shared::cta", ".shared::cluster", ".shared"]:
        yield v, t, f"tcgen05.alloc.cta_group::1.sync.aligned{sp}.b32 [%r1], 32;"
    for q in ["", ".sync", ".aligned", ".sync.aligned"]:
        yield v, t, f"tcgen05.relinquish_alloc_permit.cta_group::1{q};"
        yield v, t, f"tcgen05.wait::ld{q};"
        yield v, t, f"tcgen05.ld{q}.32x32b.x1.b32 {{%r1}}, [%r2];"
    # ld.red (sm_103a has it)
    for shape, k in SHAPES.items():
        imm = ", 8" if shape == "16x32bx2" else ""
        for num in [1, 2, 4]:
            for op, ty in [(".min", ".u32"), (".max", ".s32"), (".min", ".f32"),
                           (".min.abs", ".f32"), (".max.NaN", ".f32"), (".min.abs", ".u32"),
                           (".min.NaN", ".s32"), ("", ".u32"), (".min", "")]:
                n = num * k
                yield "8.8", "sm_103a", f"tcgen05.ld.red.sync.aligned.{shape}.x{num}{op}{ty} {regs(n)}, %r199, [%r198]{imm};"
    yield "8.8", "sm_103a", "tcgen05.ld.red.sync.aligned.32x32b.x2.pack::16b.min.u32 {%r1, %r2}, %r3, [%r4];"
    # targets and versions
    instrs = ["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;",
              "tcgen05.shift.cta_group::1.down [%r1];",
              "tcgen05.ld.red.sync.aligned.32x32b.x2.min.u32 {%r1, %r2}, %r3, [%r4];",
              "tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd1, %rd2, %r2, %p1;",
              "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;",
              "tcgen05.fence::after_thread_sync;"]
    mma = ["mxf8f6f4.block_scale", "mxf8f6f4.block_scale.scale_vec::1X",
           "mxf8f6f4.block_scale.block32", "mxf4nvf4.block_scale.block16",
           "mxf4nvf4.block_scale.scale_vec::4X", "mxf4.block_scale.scale_vec::2X",
           "mxf4.block_scale.block32", "mxf4nvf4.block_scale.scale_vec::2X"]
    for tgt, ver in [("sm_100a", "8.8"), ("sm_100f", "8.8"), ("sm_103a", "8.8"),
                     ("sm_110a", "9.0"), ("sm_110f", "9.0"), ("sm_100a", "8.6"),
                     ("sm_100a", "8.7"), ("sm_103f", "8.8")]:
        for kind in mma:
            yield ver, tgt, f"tcgen05.mma.cta_group::1.kind::{kind} [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;"
        for kind in ["tf32", "f8f6f4", "f16"]:
            yield ver, tgt, f"tcgen05.mma.cta_group::1.kind::{kind} [%r1], %rd1, %rd2, %r2, %p1;"
    for tgt in ["sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_101a", "sm_101f", "sm_103a",
                "sm_103f", "sm_110", "sm_110a", "sm_110f", "sm_120a", "sm_120f"]:
        for ver in ["8.5", "8.6", "8.7", "8.8", "9.0"]:
            for ins in instrs:
                yield ver, tgt, ins

def arch(target):
    return target.replace("sm_101", "sm_110")

def main():
    rows = []
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "p.ptx")
        for ver, tgt, line in forms():
            if tgt.startswith("sm_101") and ver == "9.0":
                continue  # renamed: sm_101* spelled sm_110* from 9.0
            open(p, "w").write(frame(ver, tgt, line))
            r = subprocess.run([PTXAS, "-arch", arch(tgt), p, "-o", os.path.join(d, "p.cubin")],
                               capture_output=True, text=True)
            msgs = [l.split(": ", 1)[-1] for l in (r.stdout + r.stderr).splitlines()
                    if "error" in l and "aborted" not in l]
            if r.returncode != 0 and not msgs:
                continue  # ptxas gave no reason (e.g. cannot assemble for this -arch): no evidence
            verdict = "accept" if r.returncode == 0 else "reject"
            rows.append(f"{ver}\t{tgt}\t{verdict}\t{line}\t{' | '.join(msgs)}")
    OUT.write_text("# version\ttarget\tptxas 13.5\tinstruction\tmessages (generated by gen_ptxas_verdicts.py)\n" + "\n".join(rows) + "\n")
    print(len(rows), "rows")

main()
