//! The host API end to end on a hand-written PTX program whose outputs follow from a formula
//! (tests/corpus/engine/divergence.ptx): results are checked against that formula computed
//! here, not against anything tmemu produced.

use std::path::{Path, PathBuf};

use tmemu_host::{
    check_expects, load_ptx_file, load_ptx_source, resolve_spec, save_outputs, ErrorClass,
    RunOptions, Session,
};
use tmemu_spec::Spec;

fn engine_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/engine")
}

/// divergence.ptx with n = 64, 64 threads: out[t] for t < 64, then the active-lane count
/// seen after reconvergence by each of the 2 warps.
fn divergence_formula() -> Vec<u32> {
    let mut v: Vec<u32> = (0..64u32)
        .map(|t| if t % 2 == 1 { t * (t - 1) / 2 } else { 3 * t } + 1000)
        .collect();
    v.extend([32, 32]);
    v
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tmemu-host-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn divergence_spec(dir: &Path, expect_npy: Option<&Path>) -> Spec {
    let ptx = engine_dir().join("divergence.ptx");
    let mut text = format!(
        "ptx = {:?}\ngrid = [1, 1, 1]\nblock = [64, 1, 1]\n\n[buffers.out]\ndtype = \"u32\"\nshape = [66]\nfill = \"zeros\"\nsave = \"out.npy\"\n\n[[arg]]\nbuffer = \"out\"\n\n[[arg]]\nvalue = 7\n",
        ptx.display().to_string()
    );
    if let Some(npy) = expect_npy {
        text += &format!(
            "\n[[expect]]\nbuffer = \"out\"\nnpy = {:?}\nrtol = 0\natol = 0\n",
            npy.display().to_string()
        );
    }
    let file = dir.join("spec.toml");
    std::fs::write(&file, &text).unwrap();
    Spec::load(&file).unwrap()
}

fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn a_run_reads_back_the_formula_saves_npy_and_applies_set_overrides() {
    let dir = scratch("run");
    let mut spec = divergence_spec(&dir, None);
    let (src, kernel) = load_ptx_file(&spec.ptx.value, None).unwrap();
    assert!(src.contains(".entry divergence"));
    // the spec says n = 7; the override puts the per-warp counts at out[64..66]
    let resolved = resolve_spec(&mut spec, &["n=64".to_string()], &kernel).unwrap();
    let session = Session::new(&kernel, &resolved).unwrap();
    assert_eq!(session.launch().cluster, None);
    assert_eq!(session.launch().block, [64, 1, 1]);
    let out = session.run(&RunOptions::default()).unwrap();
    assert!(out.result.diagnostics.is_empty() && out.result.hangs.is_empty());
    assert_eq!(out.buffers.len(), 1);
    assert_eq!(u32s(&out.buffers[0]), divergence_formula());

    save_outputs(&resolved, &out.buffers).unwrap();
    let saved = std::fs::read(dir.join("out.npy")).unwrap();
    assert!(saved.starts_with(b"\x93NUMPY"));
    assert!(saved.ends_with(&out.buffers[0]));
    assert_eq!(
        saved.len() % 64,
        (66 * 4) % 64,
        "npy header is padded to 64 bytes"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn expects_report_pass_and_the_first_mismatch() {
    let dir = scratch("expect");
    // references written as .npy from the formula: one exact, one with element 5 wrong
    let probe = divergence_spec(&dir, None);
    let (_, kernel) = load_ptx_file(&probe.ptx.value, None).unwrap();
    let buffer = resolve_spec(&mut probe.clone(), &[], &kernel)
        .unwrap()
        .buffers[0]
        .clone();
    let good: Vec<u8> = divergence_formula()
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let mut bad = good.clone();
    bad[5 * 4] ^= 1;
    std::fs::write(dir.join("good.npy"), buffer.to_npy(&good)).unwrap();
    std::fs::write(dir.join("bad.npy"), buffer.to_npy(&bad)).unwrap();

    for (npy, passes) in [("good.npy", true), ("bad.npy", false)] {
        let mut spec = divergence_spec(&dir, Some(&dir.join(npy)));
        let resolved = resolve_spec(&mut spec, &["1=64".to_string()], &kernel).unwrap();
        let out = Session::new(&kernel, &resolved)
            .unwrap()
            .run(&RunOptions::default())
            .unwrap();
        let reports = check_expects(&resolved, &out.buffers);
        assert_eq!(reports.len(), 1);
        assert_eq!(reports[0].name, "out");
        assert_eq!(reports[0].passed(), passes, "{npy}");
        let c = reports[0].comparison.as_ref().unwrap();
        assert_eq!(c.elements, 66);
        if !passes {
            assert_eq!(c.mismatches, 1);
            assert_eq!(c.first_mismatch_index, Some(5));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn load_errors_carry_positions_and_exit_classes() {
    let missing = engine_dir().join("no_such_file.ptx");
    let e = load_ptx_file(&missing, None).unwrap_err();
    assert_eq!((e.class, e.exit_code()), (ErrorClass::BadInput, 2));
    assert!(
        e.message
            .starts_with(&format!("{}: cannot read: ", missing.display())),
        "{e}"
    );

    let e = load_ptx_source(
        ".version 8.7\n.target sm_100a\n.entry k( {\n",
        "bad.ptx",
        None,
    )
    .unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(e.message.starts_with("bad.ptx:3:"), "{e}");
    assert!(e.message.contains(": error: "), "{e}");

    // a form the engine does not model (tcgen05.mma .ashift: which rows it reads is not
    // settled): that is `incomplete`, not bad input
    let e = load_ptx_source(
        ".version 8.8\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<2>;\n    .reg .pred %p<2>;\n    tcgen05.mma.cta_group::1.kind::f16.ashift [%r0], [%r1], %rd0, %r2, %p0;\n    ret;\n}\n",
        "ashift.ptx",
        None,
    )
    .unwrap_err();
    assert_eq!(
        (e.class, e.exit_code()),
        (ErrorClass::Unsupported, 4),
        "{e}"
    );
    assert!(e.message.contains(": unsupported: "), "{e}");

    let dir = scratch("set");
    let mut spec = divergence_spec(&dir, None);
    let (_, kernel) = load_ptx_file(&spec.ptx.value, None).unwrap();
    let e = resolve_spec(&mut spec, &["no_such_param=1".to_string()], &kernel).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(e.message.contains("no_such_param"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
