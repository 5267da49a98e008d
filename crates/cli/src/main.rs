//! The `tmemu` binary: a thin layer that parses the command line and hands each subcommand
//! to its own module (`<name>_cmd`). Exit codes: docs/cli.md.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod alloc;
mod bad_input;
mod check_cmd;
mod explain_cmd;
mod explore_cmd;
mod observe;
mod output;
mod parse_cmd;
mod phases;
mod prepare;
mod progress;
mod run_cmd;
mod trace_out;

#[derive(Parser)]
#[command(
    name = "tmemu",
    version,
    about = "Blackwell (sm_100a) PTX / TMEM / tcgen05 emulator and checker",
    long_about = "tmemu runs unmodified Blackwell (sm_100a) PTX — from nvcc, Triton, Gluon or CuTe DSL — on \
the CPU, computes what the GPU would, and reports every violation of the PTX ISA's rules for \
Tensor Memory and tcgen05 with the instruction, the kernel's source line, the CTA/warp/lanes \
and the rule ID.

A launch spec (TOML, docs/launch-spec.md) names the PTX, the grid, the arguments and the \
references to compare with.",
    after_help = "Exit codes: 0 clean, 1 violation (or a failed [[expect]]), 2 bad input or usage, \
3 hang, 4 incomplete (something tmemu does not model, or the step budget ran out).

Examples:
  tmemu run tests/corpus/kernels/triton/softmax.toml
  tmemu run tests/corpus/bugs/tmem_without_alloc/buggy.toml
  tmemu check tests/corpus/kernels/triton/*.toml --format sarif > tmemu.sarif
  tmemu explore kernel.toml --runs 64 --stop-on-hang
  tmemu run kernel.toml --trace trace.json --tmem-map tmem.svg
  tmemu explain TM0003"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// One variant per subcommand; each delegates to `<name>_cmd::run`.
#[derive(Subcommand)]
enum Command {
    /// Run a kernel from a launch spec: findings, expects, summary (and optionally a trace
    /// and a TMEM map).
    Run(run_cmd::Args),
    /// Check many specs in parallel, each under several schedules and async policies.
    Check(check_cmd::Args),
    /// Run one spec under many seeded schedules; print the seeds that produce findings.
    Explore(explore_cmd::Args),
    /// Print a rule's documentation (`tmemu explain TM0009`); `--list` lists every rule.
    #[command(after_help = "Examples:
  tmemu explain TM0003
  tmemu explain alloc-after-relinquish
  tmemu explain --list")]
    Explain(explain_cmd::Args),
    /// Parse PTX files and print one summary line per file.
    #[command(after_help = "Examples:
  tmemu parse tests/corpus/kernels/triton/*.ptx
  tmemu parse --print kernel.ptx   # normalised PTX")]
    Parse(parse_cmd::Args),
}

#[global_allocator]
static ALLOCATOR: alloc::Allocator = alloc::Allocator;

fn main() -> ExitCode {
    phases::init();
    pad_malloc_growth();
    // large zeroed blocks are untouched fresh mappings (alloc.rs)
    tmemu_pages::declare_lazy_zeroed_blocks();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap's own exit code for usage errors is 2 already; help/version are 0.
            let _ = e.print();
            return ExitCode::from(e.exit_code() as u8);
        }
    };
    phases::mark("arguments parsed");
    let code = match cli.command {
        Command::Run(args) => run_cmd::run(&args),
        Command::Check(args) => check_cmd::run(&args),
        Command::Explore(args) => explore_cmd::run(&args),
        Command::Explain(args) => explain_cmd::run(&args),
        Command::Parse(args) => parse_cmd::run(&args),
    };
    phases::mark("exit");
    ExitCode::from(code)
}

/// glibc grows a thread's malloc arena a few pages at a time, each step an `mprotect` that
/// takes the address-space lock for writing and so stalls the page faults of every other
/// thread: `tmemu run` of issue 7's benchmark at 16 threads made ≈ 470 of them (`strace -f
/// -c`), 53 with a 16 MiB pad. The pad is address space: a page still costs memory only once
/// touched. Any `GLIBC_TUNABLES` in the environment, even empty, leaves glibc's settings alone
/// (`GLIBC_TUNABLES= tmemu run ...` compares the two).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn pad_malloc_growth() {
    extern "C" {
        fn mallopt(param: i32, value: i32) -> i32;
    }
    const M_TOP_PAD: i32 = -2;
    if std::env::var_os("GLIBC_TUNABLES").is_none() {
        // SAFETY: glibc's mallopt sets one allocator parameter; called before any thread starts.
        unsafe {
            mallopt(M_TOP_PAD, 16 << 20);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn pad_malloc_growth() {}
