//! `cargo run -p tmemu-check --example static_check -- FILE.ptx...`: prints the static
//! findings of each file (what `tmemu check` will print before running).
fn main() {
    let mut any = false;
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(2);
            }
        };
        match tmemu_ptx::parse(&text) {
            Ok(m) => {
                for f in tmemu_check::static_check(&m, &path) {
                    any = true;
                    println!("{f}");
                }
            }
            Err(e) => {
                eprintln!("{}", e.render(&path));
                std::process::exit(2);
            }
        }
    }
    std::process::exit(i32::from(any));
}
