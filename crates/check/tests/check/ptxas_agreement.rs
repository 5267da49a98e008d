//! static_check against ptxas 13.5 itself: `data/ptxas_verdicts.tsv` (written by
//! `gen_ptxas_verdicts.py`, which assembles each form with ptxas) lists ~1000 tcgen05 forms
//! over ld/st shape × num × packing × vector length, cp shape × multicast × formats, commit
//! masks, nCols immediates, qualifiers, ld.red variants and target × version × instruction.
//! static_check must be silent exactly on the forms ptxas accepts.

use tmemu_check::static_check;

fn frame(version: &str, target: &str, line: &str) -> String {
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n.entry k()\n{{\n    .reg .b32 %r<200>;\n    .reg .b64 %rd<4>;\n    .reg .b16 %rs<4>;\n    .reg .pred %p<4>;\n    .reg .u16 %u<4>;\n    .reg .f16 %h<4>;\n    {line}\n    ret;\n}}\n"
    )
}

#[test]
fn static_check_agrees_with_ptxas() {
    let data = include_str!("../data/ptxas_verdicts.tsv");
    let (mut rows, mut accepted, mut problems) = (0, 0, Vec::new());
    for row in data.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = row.split('\t').collect();
        let [version, target, verdict, line, msgs] = cols[..] else {
            panic!("bad row {row:?}");
        };
        let src = frame(version, target, line);
        let module = tmemu_ptx::parse(&src).unwrap_or_else(|e| panic!("{}", e.render(line)));
        let found = static_check(&module, "t.ptx");
        rows += 1;
        let ptxas_accepts = verdict == "accept";
        accepted += usize::from(ptxas_accepts);
        if ptxas_accepts != found.is_empty() {
            let ours: Vec<String> = found
                .iter()
                .map(|f| format!("{}: {}", f.rule.id, f.message))
                .collect();
            problems.push(format!(
                "{version} {target} {line}\n    ptxas: {verdict} {msgs}\n    tmemu: {ours:?}"
            ));
        }
    }
    println!(
        "{rows} forms, {accepted} accepted by ptxas, {} disagreements",
        problems.len()
    );
    assert!(rows > 900);
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
