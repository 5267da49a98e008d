//! The contract example of the launch spec, resolved against a kernel's parameters, and every
//! TOML example of docs/launch-spec.md parsed and resolved as written.

use std::path::{Path, PathBuf};
use tmemu_spec::tensormap::{SwizzleAtomicity, SwizzleMode, TmElemType};
use tmemu_spec::*;

/// The example of the launch-spec contract, verbatim.
const CONTRACT_EXAMPLE: &str = r#"ptx = "matmul.ptx"            # path, relative to this spec file
kernel = "matmul_kernel"      # .entry name (optional when the module has exactly one entry)
grid = [4, 2, 1]              # CTAs, x y z (1 to 3 elements; missing ones are 1)
block = [128, 1, 1]           # threads per CTA
cluster = [2, 1, 1]           # optional: CTAs per cluster; grid must be a multiple of it
shared_bytes = 65552          # optional: dynamic shared memory per CTA

[buffers.a]                   # named buffers: global memory that is not itself a parameter
dtype = "f16"
shape = [256, 192]
from = "a.npy"                # or fill = "zeros" | "ones" | "iota", or random = { seed = 1, low = -1, high = 1 }

[[arg]]                       # one table per .param of the entry, in declaration order
value = 256                   # a scalar (integer or float, converted to the parameter's type);
                              # a pointer parameter may take value = 0 (null)
[[arg]]
buffer = "a"                  # the device address of a named buffer (optional offset_bytes = N)
[[arg]]                       # an inline buffer: the parameter receives its device address
dtype = "f32"
shape = [256, 128]
fill = "zeros"
save = "c.npy"                # optional: written after the run (any buffer may say save)
[[arg]]                       # a .param .b8 array filled field by field (CuTe DSL passes
packed = [ { buffer = "a" }, { u32 = 256 }, { u32 = 192 }, { i64 = 192 } ]
                              # layouts and tensors this way): each field is one typed value
                              # (u8..u64, i8..i64, f16, bf16, f32, f64, or buffer = name for a
                              # device address) at its natural alignment; must fit the array
[[arg]]                       # a 128-byte .param .b8 array holding a TMA tensor map
tensormap = { buffer = "a", box = [64, 128], swizzle = "128B" }
                              # dims and strides come from the buffer's shape (row-major,
                              # innermost dimension first as CUDA counts); optional keys:
                              # elem_strides, interleave, oob_fill = "zero" | "nan", l2_promotion
"#;

fn param(name: &str, kind: ParamKind) -> ParamInfo {
    ParamInfo {
        name: name.to_string(),
        kind,
    }
}

fn f16_bytes(values: impl Iterator<Item = f64>) -> Vec<u8> {
    values
        .flat_map(|v| {
            let mut b = [0u8; 2];
            DType::F16.encode_f64(v, &mut b);
            b
        })
        .collect()
}

#[test]
fn contract_example_resolves() {
    let dir = tempfile::tempdir().unwrap();
    let a_bytes = f16_bytes((0..256 * 192).map(|i| (i % 97) as f64 / 8.0));
    std::fs::write(
        dir.path().join("a.npy"),
        NpyArray::encode(DType::F16, &[256, 192], &a_bytes),
    )
    .unwrap();
    std::fs::write(dir.path().join("matmul.ptx"), "// ptx").unwrap();
    let spec_path = dir.path().join("matmul.toml");
    std::fs::write(&spec_path, CONTRACT_EXAMPLE).unwrap();

    let spec = Spec::load(&spec_path).unwrap();
    assert_eq!(spec.ptx.value, dir.path().join("matmul.ptx"));
    assert_eq!(spec.kernel.as_ref().unwrap().value, "matmul_kernel");
    assert_eq!(spec.grid.value, [4, 2, 1]);
    assert_eq!(spec.cluster.value, [2, 1, 1]);
    assert!(spec.cluster_given);
    assert_eq!(spec.args.len(), 5);

    let params = [
        param(
            "n",
            ParamKind::Scalar {
                bits: 32,
                is_float: false,
            },
        ),
        param("a_ptr", ParamKind::Pointer),
        param(
            "c_ptr",
            ParamKind::Scalar {
                bits: 64,
                is_float: false,
            },
        ),
        param("layout", ParamKind::ByteArray { len: 24, align: 8 }),
        param(
            "tmap",
            ParamKind::ByteArray {
                len: 128,
                align: 64,
            },
        ),
    ];
    let r = resolve(&spec, &params).unwrap();
    assert_eq!(
        (r.grid, r.block, r.cluster),
        ([4, 2, 1], [128, 1, 1], [2, 1, 1])
    );
    assert_eq!(r.shared_bytes, 65552);

    // Buffers: the named one, then the inline one.
    assert_eq!(r.buffers.len(), 2);
    assert_eq!(r.buffers[0].name, "a");
    assert_eq!(r.buffers[0].bytes, a_bytes);
    assert_eq!(r.buffers[1].name, "arg2");
    assert_eq!(r.buffers[1].dtype, DType::F32);
    assert_eq!(r.buffers[1].shape, [256, 128]);
    assert!(r.buffers[1].bytes.iter().all(|&b| b == 0));
    assert_eq!(r.buffers[1].bytes.len(), 256 * 128 * 4);
    assert_eq!(r.buffers[1].save, Some(dir.path().join("c.npy")));

    // Parameter block: u32 at 0, pointers at 8 and 16, the 24-byte array at 24, the map at 64.
    assert_eq!(r.param_offsets, [0, 8, 16, 24, 64]);
    assert_eq!(r.param_bytes.len(), 192);
    assert_eq!(&r.param_bytes[0..4], &256u32.to_le_bytes());
    // packed: buffer address at 24 (relocated), u32 256 at 32, u32 192 at 36, i64 192 at 40
    assert_eq!(&r.param_bytes[32..36], &256u32.to_le_bytes());
    assert_eq!(&r.param_bytes[36..40], &192u32.to_le_bytes());
    assert_eq!(&r.param_bytes[40..48], &192i64.to_le_bytes());
    let reloc: Vec<(usize, usize, u64)> = r
        .relocations
        .iter()
        .map(|x| (x.param_offset, x.buffer, x.addend))
        .collect();
    assert_eq!(reloc, [(8, 0, 0), (16, 1, 0), (24, 0, 0), (64 + 16, 0, 0)]);

    // Tensor map: dims innermost first from shape [256, 192] of f16.
    assert_eq!(r.tensor_maps.len(), 1);
    let tm = &r.tensor_maps[0];
    assert_eq!((tm.param_index, tm.param_offset, tm.buffer), (4, 64, 0));
    assert_eq!(tm.desc.elem_type, TmElemType::F16);
    assert_eq!(tm.desc.rank, 2);
    assert_eq!(tm.desc.global_dims[..2], [192, 256]);
    assert_eq!(tm.desc.global_strides[0], 192 * 2);
    assert_eq!(tm.desc.box_dims[..2], [64, 128]);
    assert_eq!(tm.desc.elem_strides[..2], [1, 1]);
    assert_eq!(tm.desc.swizzle, SwizzleMode::B128);
    assert_eq!(tm.desc.swizzle_atomicity, SwizzleAtomicity::B16);

    // Applying relocations: the map decodes with the buffer's address in it.
    let block = r.param_block(&[0x1000_0000, 0x2000_0000]);
    assert_eq!(&block[8..16], &0x1000_0000u64.to_le_bytes());
    assert_eq!(&block[16..24], &0x2000_0000u64.to_le_bytes());
    assert_eq!(&block[24..32], &0x1000_0000u64.to_le_bytes());
    let map: [u8; 128] = block[64..192].try_into().unwrap();
    let desc = TensorMapDesc::decode(&map).unwrap();
    assert_eq!(desc.global_address, 0x1000_0000);
    assert_eq!(
        TensorMapDesc {
            global_address: 0,
            ..desc
        },
        tm.desc
    );
}

#[test]
fn overrides_by_position_and_name() {
    let dir = tempfile::tempdir().unwrap();
    let text = "ptx = \"k.ptx\"\ngrid = [1]\nblock = [32]\n[[arg]]\nvalue = 1\n[[arg]]\nvalue = 2.5\n[[arg]]\ndtype = \"u8\"\nshape = [4]\n";
    let mut spec = Spec::parse(text, "k.toml", dir.path()).unwrap();
    let params = [
        param(
            "n",
            ParamKind::Scalar {
                bits: 32,
                is_float: false,
            },
        ),
        param(
            "alpha",
            ParamKind::Scalar {
                bits: 32,
                is_float: true,
            },
        ),
        param("p", ParamKind::Pointer),
    ];
    let sets = [
        SetOverride::parse("0=0x200").unwrap(),
        SetOverride::parse("alpha=-0.5").unwrap(),
    ];
    spec.apply_overrides(&sets, &params).unwrap();
    let r = resolve(&spec, &params).unwrap();
    assert_eq!(&r.param_bytes[0..4], &512u32.to_le_bytes());
    assert_eq!(&r.param_bytes[4..8], &(-0.5f32).to_le_bytes());
    let e = spec
        .apply_overrides(&[SetOverride::parse("p=3").unwrap()], &params)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "k.toml:8:1: error: key '--set p': argument 2 ('p') of the kernel is not a scalar (value = ...) in the spec; --set overrides scalars only"
    );
    let e = spec
        .apply_overrides(&[SetOverride::parse("beta=3").unwrap()], &params)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "--set: error: key 'beta': the kernel has no parameter named \"beta\"; its parameters are 0 'n' (b32), 1 'alpha' (f32), 2 'p' (pointer): give one of these names or an index below 3"
    );
    let e = SetOverride::parse("n=abc").unwrap_err();
    assert_eq!(
        e.to_string(),
        "--set: error: key 'n': expected an integer or a float, found \"abc\""
    );
    assert!(SetOverride::parse("novalue").is_err());
}

#[test]
fn expect_loads_reference_and_compares() {
    let dir = tempfile::tempdir().unwrap();
    // A bf16 output compared with a reference saved as u16 bit patterns.
    let reference: Vec<u8> = [0x3F80u16, 0x4000, 0x4040, 0x4080]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    std::fs::write(
        dir.path().join("ref.npy"),
        NpyArray::encode(DType::U16, &[2, 2], &reference),
    )
    .unwrap();
    let text = r#"ptx = "k.ptx"
grid = [1]
block = [32]
[[arg]]
dtype = "bf16"
shape = [2, 2]
fill = "zeros"
[[expect]]
arg = 0
npy = "ref.npy"
rtol = 1e-2
atol = 1e-3
"#;
    let spec = Spec::parse(text, "k.toml", dir.path()).unwrap();
    let r = resolve(&spec, &[param("out", ParamKind::Pointer)]).unwrap();
    assert_eq!(r.expects.len(), 1);
    let e = &r.expects[0];
    assert_eq!((e.buffer, e.rtol, e.atol), (0, 1e-2, 1e-3));
    // The zero-filled buffer mismatches everywhere; the right bits match.
    let c = e.check(&r.buffers[0], &r.buffers[0].bytes).unwrap();
    assert_eq!((c.mismatches, c.first_mismatch_index), (4, Some(0)));
    assert_eq!(c.max_abs_err, 4.0);
    let c = e.check(&r.buffers[0], &reference).unwrap();
    assert!(c.passed());
}

/// Parameters that fit a spec's args, for resolving documentation examples.
fn params_for(spec: &Spec) -> Vec<ParamInfo> {
    spec.args
        .iter()
        .map(|a| {
            let kind = match &a.kind {
                ArgKind::Scalar(Scalar::Int(_)) => ParamKind::Scalar {
                    bits: 64,
                    is_float: false,
                },
                ArgKind::Scalar(Scalar::Float(_)) => ParamKind::Scalar {
                    bits: 32,
                    is_float: true,
                },
                ArgKind::Buffer { .. } | ArgKind::Inline(_) => ParamKind::Pointer,
                ArgKind::Packed(fields) => ParamKind::ByteArray {
                    len: fields.iter().fold(0, |at, f| {
                        at.next_multiple_of(f.value.size()) + f.value.size()
                    }),
                    align: 8,
                },
                ArgKind::TensorMap(_) => ParamKind::ByteArray {
                    len: 128,
                    align: 64,
                },
            };
            param(&format!("p{}", a.index), kind)
        })
        .collect()
}

/// Writes an `.npy` of the right dtype and shape for every file a spec reads.
fn provide_files(spec: &Spec) {
    let inline = spec.args.iter().filter_map(|a| match &a.kind {
        ArgKind::Inline(b) => Some(b),
        _ => None,
    });
    let all: Vec<&BufferSpec> = spec.buffers.iter().chain(inline).collect();
    for b in &all {
        if let BufferInit::Npy(path) = &b.init {
            let bytes = Fill::Iota.generate(b.dtype, b.elements());
            std::fs::write(path, NpyArray::encode(b.dtype, &b.shape, &bytes)).unwrap();
        }
    }
    for e in &spec.expects {
        let b = match &e.target {
            ExpectTarget::Buffer(name) => all.iter().find(|b| &b.name == name).unwrap(),
            ExpectTarget::Arg(i) => match &spec.args[*i].kind {
                ArgKind::Inline(b) => b,
                ArgKind::Buffer { name, .. } => all.iter().find(|b| &b.name == name).unwrap(),
                _ => unreachable!(),
            },
        };
        let bytes = Fill::Zeros.generate(b.dtype, b.elements());
        std::fs::write(&e.npy.value, NpyArray::encode(b.dtype, &b.shape, &bytes)).unwrap();
    }
    std::fs::write(&spec.ptx.value, "// ptx").unwrap();
}

fn toml_blocks(markdown: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in markdown.lines().enumerate() {
        match (&mut current, line.trim_end()) {
            (None, "```toml") => current = Some((i + 2, String::new())),
            (Some(_), "```") => blocks.push(current.take().unwrap()),
            (Some((_, text)), l) => {
                text.push_str(l);
                text.push('\n');
            }
            _ => {}
        }
    }
    blocks
}

fn parse_and_resolve_examples(doc: &str, name: &str) {
    for (line, text) in toml_blocks(doc) {
        let dir = tempfile::tempdir().unwrap();
        let spec = Spec::parse(&text, &format!("{name} example at line {line}"), dir.path())
            .unwrap_or_else(|e| panic!("{e}"));
        provide_files(&spec);
        let params = params_for(&spec);
        resolve(&spec, &params).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn every_example_of_the_user_docs_parses_and_resolves() {
    let doc_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/launch-spec.md");
    let doc = std::fs::read_to_string(&doc_path).unwrap();
    let blocks = toml_blocks(&doc);
    assert!(blocks.len() >= 4, "docs/launch-spec.md lost its examples");
    assert!(
        blocks.iter().any(|(_, b)| b == CONTRACT_EXAMPLE),
        "docs/launch-spec.md must keep the contract example verbatim"
    );
    parse_and_resolve_examples(&doc, "docs/launch-spec.md");
}

#[test]
fn the_contract_document_examples_parse_when_present() {
    // The contract lives in shared/ beside the repository (not part of it); when it is there,
    // its examples must parse and resolve too, and still match our verbatim copy.
    let contract = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/launch-spec.md");
    let Ok(doc) = std::fs::read_to_string(&contract) else {
        return;
    };
    assert_eq!(
        toml_blocks(&doc).first().map(|b| b.1.as_str()),
        Some(CONTRACT_EXAMPLE)
    );
    parse_and_resolve_examples(&doc, "shared/launch-spec.md");
}

#[test]
fn an_explicit_one_cta_cluster_is_a_cluster_launch() {
    // `cluster = [1, 1, 1]` is what CuTe DSL launches with (a cluster attribute of one CTA);
    // forms that fault without a cluster launch (TM0131) must accept it.
    let spec = Spec::parse(
        "ptx = \"k.ptx\"\ngrid = [8]\nblock = [64]\ncluster = [1, 1, 1]\n",
        "k.toml",
        &PathBuf::from("/specs"),
    )
    .unwrap();
    assert!(spec.cluster_given);
    let r = resolve(&spec, &[]).unwrap();
    assert_eq!((r.cluster, r.cluster_given), ([1, 1, 1], true));
}

#[test]
fn dims_default_to_one_and_kernel_is_optional() {
    let spec = Spec::parse(
        "ptx = \"k.ptx\"\ngrid = [8]\nblock = [64, 2]\n",
        "k.toml",
        &PathBuf::from("/specs"),
    )
    .unwrap();
    assert_eq!(spec.grid.value, [8, 1, 1]);
    assert_eq!(spec.block.value, [64, 2, 1]);
    assert_eq!(spec.cluster.value, [1, 1, 1]);
    assert!(
        !spec.cluster_given,
        "no cluster key is a launch without a cluster"
    );
    assert_eq!(spec.shared_bytes.value, 0);
    assert!(spec.kernel.is_none());
    assert_eq!(spec.ptx.value, PathBuf::from("/specs/k.ptx"));
    let r = resolve(&spec, &[]).unwrap();
    assert!(r.param_bytes.is_empty() && r.buffers.is_empty());
}

#[test]
fn mutated_specs_never_panic() {
    // Truncations at every character and random byte substitutions of the contract example:
    // every outcome must be Ok or an error with a position, never a panic.
    let text = CONTRACT_EXAMPLE;
    let dir = PathBuf::from("/nonexistent");
    let mut outcomes = (0, 0);
    let mut record = |r: Result<Spec, SpecError>| match r {
        Ok(_) => outcomes.0 += 1,
        Err(e) => {
            assert!(e.site.line >= 1, "error without a line: {e}");
            outcomes.1 += 1;
        }
    };
    for (i, _) in text.char_indices() {
        record(Spec::parse(&text[..i], "m.toml", &dir));
    }
    let mut rng = SplitMix64::new(11);
    let alphabet = b"[]{}=,\"'#.0123456789-abcxyz_ \n";
    for _ in 0..3000 {
        let mut bytes = text.as_bytes().to_vec();
        for _ in 0..1 + rng.next() % 3 {
            let at = (rng.next() % bytes.len() as u64) as usize;
            bytes[at] = alphabet[(rng.next() % alphabet.len() as u64) as usize];
        }
        if let Ok(t) = String::from_utf8(bytes) {
            record(Spec::parse(&t, "m.toml", &dir));
        }
    }
    assert!(outcomes.0 > 10 && outcomes.1 > 1000, "{outcomes:?}");
}

#[test]
fn in_memory_buffers_for_other_front_ends() {
    let mut spec = Spec::parse(
        "ptx = \"k.ptx\"\ngrid = [1]\nblock = [32]\n[buffers.x]\ndtype = \"u16\"\nshape = [2]\n[[arg]]\nbuffer = \"x\"\n",
        "k.toml",
        Path::new("."),
    )
    .unwrap();
    spec.buffers[0].init = BufferInit::Bytes(vec![1, 2, 3, 4]);
    let params = [param("x", ParamKind::Pointer)];
    assert_eq!(
        resolve(&spec, &params).unwrap().buffers[0].bytes,
        [1, 2, 3, 4]
    );
    spec.buffers[0].init = BufferInit::Bytes(vec![1, 2, 3]);
    assert_eq!(
        resolve(&spec, &params).unwrap_err().to_string(),
        "k.toml:4:1: error: key 'buffers.x': expected 4 bytes for buffer 'x' (shape [2] of u16), found 3"
    );
}

#[test]
fn full_width_integers_and_float_specials() {
    let text = "ptx = \"k.ptx\"\ngrid = [1]\nblock = [1]\n[[arg]]\npacked = [ { u64 = 0xFFFF_FFFF_FFFF_FFFF }, { i64 = -9223372036854775808 }, { f32 = inf }, { f16 = -0.0 }, { bf16 = 1e40 } ]\n[[arg]]\nvalue = 0x8000_0000\n[[arg]]\nvalue = -1\n";
    let spec = Spec::parse(text, "k.toml", Path::new(".")).unwrap();
    let params = [
        param("p", ParamKind::ByteArray { len: 24, align: 8 }),
        param(
            "u",
            ParamKind::Scalar {
                bits: 32,
                is_float: false,
            },
        ),
        param(
            "s",
            ParamKind::Scalar {
                bits: 64,
                is_float: false,
            },
        ),
    ];
    let r = resolve(&spec, &params).unwrap();
    let b = &r.param_bytes;
    assert_eq!(&b[0..8], &u64::MAX.to_le_bytes());
    assert_eq!(&b[8..16], &i64::MIN.to_le_bytes());
    assert_eq!(&b[16..20], &f32::INFINITY.to_le_bytes());
    assert_eq!(&b[20..22], &0x8000u16.to_le_bytes());
    // 1e40 overflows bf16 (max ~3.39e38) to +inf
    assert_eq!(&b[22..24], &0x7F80u16.to_le_bytes());
    assert_eq!(&b[24..28], &0x8000_0000u32.to_le_bytes());
    assert_eq!(&b[32..40], &(-1i64).to_le_bytes());
}

/// A tensor map inside a packed struct (CUTLASS's `Params` by value): 64-byte aligned, 128
/// bytes, its global address relocated, listed with the other tensor maps.
#[test]
fn packed_struct_with_tensor_map_fields() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"ptx = "k.ptx"
grid = [1]
block = [32]
[buffers.a]
dtype = "bf16"
shape = [1, 64, 32]
fill = "zeros"
[[arg]]
packed = [
  { u32 = 7 },
  { buffer = "a" },
  { tensormap = { buffer = "a", box = [32, 16, 1], swizzle = "64B" } },
  { u32 = 9 },
]
"#;
    let spec = Spec::parse(text, "k.toml", dir.path()).unwrap();
    let params = [param(
        "p",
        ParamKind::ByteArray {
            len: 256,
            align: 64,
        },
    )];
    let r = resolve(&spec, &params).unwrap();
    assert_eq!(&r.param_bytes[0..4], &7u32.to_le_bytes());
    // the map at the next multiple of 64 after the pointer at 8, the u32 right after it
    assert_eq!(&r.param_bytes[192..196], &9u32.to_le_bytes());
    let reloc: Vec<(usize, usize)> = r
        .relocations
        .iter()
        .map(|x| (x.param_offset, x.buffer))
        .collect();
    assert_eq!(reloc, [(8, 0), (64 + 16, 0)]);
    assert_eq!(r.tensor_maps.len(), 1);
    let tm = &r.tensor_maps[0];
    assert_eq!((tm.param_index, tm.param_offset), (0, 64));
    assert_eq!(tm.desc.rank, 3);
    assert_eq!(tm.desc.global_dims[..3], [32, 64, 1]);
    assert_eq!(tm.desc.box_dims[..3], [32, 16, 1]);
    assert_eq!(tm.desc.swizzle, SwizzleMode::B64);
    let block = r.param_block(&[0x4000_0000]);
    let map: [u8; 128] = block[64..192].try_into().unwrap();
    assert_eq!(
        TensorMapDesc::decode(&map).unwrap().global_address,
        0x4000_0000
    );
    // a map field that does not fit: an error naming the field
    let small = [param(
        "p",
        ParamKind::ByteArray {
            len: 128,
            align: 64,
        },
    )];
    let e = resolve(&spec, &small).unwrap_err().to_string();
    assert!(
        e.contains("packed[2]") && e.contains("128-byte field"),
        "{e}"
    );
}

/// The corpus commits large arrays as NAME.npy.gz while its specs name NAME.npy
/// (kernels/regen.py): an input (`from`) and a reference (`npy`) are read from the compressed
/// file when the plain one is absent, byte for byte; the plain file wins when both exist; a
/// missing file is reported under the name the spec gives, and a corrupt `.gz` is an error,
/// not a panic.
#[test]
fn arrays_committed_gzip_compressed_are_read_where_the_spec_names_the_npy() {
    let dir = tempfile::tempdir().unwrap();
    let input: Vec<u8> = (0u32..6).flat_map(|x| (x * 7 + 1).to_le_bytes()).collect();
    let npy = NpyArray::encode(DType::U32, &[2, 3], &input);
    let packed = {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(&npy).unwrap();
        e.finish().unwrap()
    };
    std::fs::write(dir.path().join("in.npy.gz"), &packed).unwrap();
    std::fs::write(dir.path().join("ref.npy.gz"), &packed).unwrap();
    let text = r#"ptx = "k.ptx"
grid = [1]
block = [32]
[[arg]]
dtype = "u32"
shape = [2, 3]
from = "in.npy"
[[expect]]
arg = 0
npy = "ref.npy"
rtol = 0
atol = 0
"#;
    let spec = Spec::parse(text, "k.toml", dir.path()).unwrap();
    let r = resolve(&spec, &[param("inp", ParamKind::Pointer)]).unwrap();
    assert_eq!(r.buffers[0].bytes, input);
    assert!(r.expects[0].check(&r.buffers[0], &input).unwrap().passed());

    // A plain file beside the compressed one is the one read.
    let other: Vec<u8> = (0u32..6).flat_map(|x| (100 + x).to_le_bytes()).collect();
    std::fs::write(
        dir.path().join("in.npy"),
        NpyArray::encode(DType::U32, &[2, 3], &other),
    )
    .unwrap();
    let r = resolve(&spec, &[param("inp", ParamKind::Pointer)]).unwrap();
    assert_eq!(r.buffers[0].bytes, other);

    // Neither file: the error names the plain file; a corrupt .gz: an error naming it.
    std::fs::remove_file(dir.path().join("ref.npy.gz")).unwrap();
    let e = resolve(&spec, &[param("inp", ParamKind::Pointer)]).unwrap_err();
    assert!(e.to_string().contains("ref.npy"), "{e}");
    std::fs::write(dir.path().join("ref.npy.gz"), &packed[..packed.len() / 2]).unwrap();
    let e = resolve(&spec, &[param("inp", ParamKind::Pointer)]).unwrap_err();
    assert!(e.to_string().contains("ref.npy.gz"), "{e}");
}
