//! Output options shared by the commands that report findings (`run`, `check`, `explore`):
//! `--format human|json|sarif`, `--color auto|always|never`, `--quiet`.
//!
//! Rendering itself is `tmemu_diag`; this module only picks the renderer, decides colour for
//! stdout, and keeps the exit code the report's.

use std::io::Write;

use clap::ValueEnum;
use tmemu_diag::{
    render_human_body, render_json, render_sarif, summary_line, ColorChoice, HumanOptions, Report,
    SarifOptions, Sources,
};

/// How findings are printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// rustc-style text with the PTX line, carets, context and help (default).
    #[default]
    Human,
    /// JSON Lines: one object per finding / hang / incomplete item / expect, then a summary
    /// (fields: docs/cli.md).
    Json,
    /// One SARIF 2.1.0 log (for GitHub code scanning and other CI viewers).
    Sarif,
}

/// When to colour the human format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// Colour when stdout is a terminal and NO_COLOR is unset.
    #[default]
    Auto,
    Always,
    Never,
}

impl From<Color> for ColorChoice {
    fn from(c: Color) -> ColorChoice {
        match c {
            Color::Auto => ColorChoice::Auto,
            Color::Always => ColorChoice::Always,
            Color::Never => ColorChoice::Never,
        }
    }
}

/// `--format`, `--color`, `--quiet`.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Colour the human format.
    #[arg(long, value_enum, default_value_t = Color::Auto, value_name = "WHEN")]
    pub color: Color,
    /// Print only findings and the verdict (no statistics, no progress bar).
    #[arg(long, short)]
    pub quiet: bool,
}

impl OutputArgs {
    pub fn human_options(&self) -> HumanOptions {
        HumanOptions {
            color: ColorChoice::from(self.color).use_color(&std::io::stdout()),
        }
    }
}

/// The report in the chosen format. `stats` (human only, left out with `--quiet`) is a line
/// printed before the verdict line.
pub fn render(report: &Report, out: &OutputArgs, stats: Option<&str>) -> String {
    match out.format {
        Format::Human => {
            let sources = Sources::load_with(report, |p| tmemu_host::read_ptx_file(p).ok());
            let mut s = render_human_body(report, &sources, out.human_options());
            if let (Some(line), false) = (stats, out.quiet) {
                s.push_str(line);
                s.push('\n');
            }
            s.push_str(&summary_line(report));
            s.push('\n');
            s
        }
        Format::Json => render_json(report),
        Format::Sarif => render_sarif(report, &sarif_options()),
    }
}

pub fn sarif_options() -> SarifOptions {
    SarifOptions {
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        ..SarifOptions::default()
    }
}

/// Writes to stdout, ignoring a closed pipe (`tmemu run ... | head`).
pub fn print(s: &str) {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    let _ = lock.write_all(s.as_bytes());
    let _ = lock.flush();
}
