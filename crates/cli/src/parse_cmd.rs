//! `tmemu parse FILE...`: one line per file, `path: N entries, M instructions, PTX X.Y,
//! target T` or `path:line:col: error: ...` with the source line and a caret (on stderr).
//! `--print` prints each module back as normalised PTX instead of the summary.
//! Exit 0 when every file parses, 2 otherwise.

use std::io::Write;
use std::path::PathBuf;

/// Arguments of `tmemu parse`.
#[derive(clap::Args)]
pub struct Args {
    /// PTX files to parse.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print each parsed module back as PTX (comments dropped, constants folded) instead of
    /// the summary line.
    #[arg(long)]
    pub print: bool,
}

/// Runs the subcommand; returns the process exit code.
pub fn run(args: &Args) -> u8 {
    let mut ok = true;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for path in &args.files {
        let shown = path.display().to_string();
        match summarize(path, &shown, args.print) {
            Ok(line) => {
                let _ = writeln!(out, "{line}");
            }
            Err(msg) => {
                ok = false;
                let _ = out.flush();
                eprintln!("{msg}");
            }
        }
    }
    if ok {
        0
    } else {
        2
    }
}

fn summarize(path: &std::path::Path, shown: &str, print: bool) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: error: cannot read: {e}"))?;
    let src = match std::str::from_utf8(&bytes) {
        Ok(s) => s,
        Err(e) => {
            // Report the first invalid byte with its line and column.
            let at = e.valid_up_to();
            let map = tmemu_ptx::SourceMap::new(std::str::from_utf8(&bytes[..at]).unwrap_or(""));
            let (line, col) = map.line_col(at as u32);
            return Err(format!("{shown}:{line}:{col}: error: invalid UTF-8"));
        }
    };
    let module = tmemu_ptx::parse(src).map_err(|e| e.render_with_source(shown, src))?;
    if print {
        return Ok(module.to_string());
    }
    let version = module
        .version()
        .map_or("?".to_string(), |v| format!("{}.{}", v.major, v.minor));
    let target = module
        .target()
        .map_or("?".to_string(), |t| t.names.join(","));
    Ok(format!(
        "{shown}: {} entries, {} instructions, PTX {version}, target {target}",
        module.entries().count(),
        module.instruction_count()
    ))
}
