//! The `tmemu` binary: a thin layer that parses the command line and hands each subcommand
//! to its own module (`parse_cmd`, and later `run`, `check`, `explain`, ...).
//!
//! Exit codes (design.md): 0 clean, 1 violations, 2 bad input or usage, 3 hang.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod explain_cmd;
mod parse_cmd;
mod run_cmd;

#[derive(Parser)]
#[command(
    name = "tmemu",
    version,
    about = "Blackwell (sm_100a) PTX / TMEM / tcgen05 emulator and checker"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// One variant per subcommand; each delegates to `<name>_cmd::run`.
#[derive(Subcommand)]
enum Command {
    /// Parse PTX files and print one summary line per file.
    Parse(parse_cmd::Args),
    /// Run a kernel from a launch spec (TOML): outputs, expects, summary.
    Run(run_cmd::Args),
    /// Print a rule's documentation (`tmemu explain TM0009`); `--list` lists every rule.
    Explain(explain_cmd::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap's own exit code for usage errors is 2 already; help/version are 0.
            let _ = e.print();
            return ExitCode::from(e.exit_code() as u8);
        }
    };
    let code = match cli.command {
        Command::Parse(args) => parse_cmd::run(&args),
        Command::Run(args) => run_cmd::run(&args),
        Command::Explain(args) => explain_cmd::run(&args),
    };
    ExitCode::from(code)
}
