//! Links the `tmemu` binary as a position-dependent executable on x86-64 Linux (glibc).
//!
//! A PIE binary has every absolute pointer of its read-only data (clap's tables, vtables,
//! string slices in statics: ~7 700 `R_X86_64_RELATIVE` entries) patched by the dynamic loader
//! at start, which writes, and so privately copies, each page holding one. Linked at a fixed
//! address those are resolved at link time: `tmemu --version` makes ~30 fewer page faults and
//! takes ~0.1 ms less (median 1.23 → 1.13 ms over 400 interleaved runs on the 2-core machine),
//! time that every run pays before its first useful instruction (issue 7's benchmark is a
//! whole process; docs/arch/perf.md, session 14). The cost is ASLR of the executable's own
//! image (libraries, heap and stacks stay randomised); tmemu is a developer tool, not a
//! network service.
fn main() {
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        && var("CARGO_CFG_TARGET_ARCH") == "x86_64"
    {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
