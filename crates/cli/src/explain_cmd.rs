//! `tmemu explain ID`: a rule's documentation from the catalogue; `--list` lists them all.

use clap::Args as ClapArgs;
use tmemu_diag::explain;

#[derive(ClapArgs)]
pub struct Args {
    /// Rule ID (`TM0009`, any case) or name (`alloc-after-relinquish`).
    #[arg(required_unless_present = "list", conflicts_with = "list")]
    rule: Option<String>,
    /// List every rule: ID, severity, name, PTX ISA section.
    #[arg(long)]
    list: bool,
}

/// 0 on success; 2 for an ID the catalogue does not have (with close matches on stderr).
pub fn run(args: &Args) -> u8 {
    if args.list {
        print!("{}", explain::render_list());
        return 0;
    }
    let query = args.rule.as_deref().unwrap_or_default();
    match explain::find(query) {
        Some(rule) => {
            print!("{}", explain::render_rule(rule));
            0
        }
        None => {
            eprintln!("{}", explain::unknown_rule_message(query));
            tmemu_diag::EXIT_BAD_INPUT
        }
    }
}
