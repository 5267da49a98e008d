//! Malformed specs: each error names the file, line, column and key, and what was expected.
//! Messages are compared exactly (the temp directory is written as `$DIR`).

use std::path::Path;
use tmemu_spec::*;

const HEAD: &str = "ptx = \"k.ptx\"\ngrid = [4]\nblock = [32]\n";

struct Case {
    dir: tempfile::TempDir,
}

impl Case {
    fn new() -> Case {
        Case {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn write_npy(&self, name: &str, dtype: DType, shape: &[usize]) {
        let n: usize = shape.iter().product();
        let bytes = Fill::Iota.generate(dtype, n);
        std::fs::write(
            self.dir.path().join(name),
            NpyArray::encode(dtype, shape, &bytes),
        )
        .unwrap();
    }

    fn clean(&self, e: SpecError) -> String {
        e.to_string()
            .replace(&self.dir.path().display().to_string(), "$DIR")
    }

    fn parse(&self, text: &str) -> Result<Spec, String> {
        Spec::parse(text, "k.toml", self.dir.path()).map_err(|e| self.clean(e))
    }

    fn parse_err(&self, text: &str) -> String {
        match self.parse(text) {
            Ok(_) => panic!("spec parsed but should not:\n{text}"),
            Err(e) => e,
        }
    }

    fn resolve_err(&self, text: &str, params: &[ParamInfo]) -> String {
        let spec = self.parse(text).unwrap_or_else(|e| panic!("{e}"));
        match resolve(&spec, params) {
            Ok(_) => panic!("spec resolved but should not:\n{text}"),
            Err(e) => self.clean(e),
        }
    }
}

fn parse_err(text: &str) -> String {
    Case::new().parse_err(text)
}

fn p(name: &str, kind: ParamKind) -> ParamInfo {
    ParamInfo {
        name: name.into(),
        kind,
    }
}

fn int(bits: u32) -> ParamKind {
    ParamKind::Scalar {
        bits,
        is_float: false,
    }
}

#[test]
fn grid_with_four_elements() {
    assert_eq!(
        parse_err("ptx = \"k.ptx\"\nkernel = \"k\"\ngrid = [1, 2, 3, 4]\nblock = [32]\n"),
        "k.toml:3:8: error: key 'grid': expected 1 to 3 positive integers, found 4 elements"
    );
}

#[test]
fn unknown_keys_name_key_and_line() {
    assert_eq!(
        parse_err(&format!("{HEAD}gird = [1]\n")),
        "k.toml:4:1: error: key 'gird': unknown key; expected one of: ptx, kernel, grid, block, cluster, shared_bytes, buffers, arg, expect"
    );
    assert_eq!(
        parse_err(&format!(
            "{HEAD}\n\n\n\n[buffers.a]\ndtype = \"f16\"\nshpe = [2]\n"
        )),
        "k.toml:10:1: error: key 'buffers.a.shpe': unknown key; expected one of: dtype, shape, from, fill, random, save"
    );
    assert_eq!(
        parse_err(&format!("{HEAD}[[arg]]\nvalue = 1\noffset = 2\n")),
        "k.toml:6:1: error: key 'arg[0].offset': unknown key; expected one of: value, buffer, offset_bytes, dtype, shape, from, fill, random, save, packed, tensormap"
    );
    assert_eq!(
        parse_err(&format!("{HEAD}[[arg]]\nvalue = 1\noffset_bytes = 2\n")),
        "k.toml:6:1: error: key 'arg[0].offset_bytes': key not allowed in this form of the table; expected only: value"
    );
    assert_eq!(
        parse_err(&format!("{HEAD}[[arg]]\nvaleu = 1\n")),
        "k.toml:5:1: error: key 'arg[0].valeu': unknown key; expected one of: value, buffer, offset_bytes, dtype, shape, from, fill, random, save, packed, tensormap"
    );
    assert_eq!(
        parse_err(&format!(
            "{HEAD}[buffers.a]\ndtype = \"u8\"\nshape = [4]\n[[arg]]\ntensormap = {{ buffer = \"a\", box = [16], swizle = \"none\" }}\n"
        )),
        "k.toml:8:41: error: key 'arg[0].tensormap.swizle': unknown key; expected one of: buffer, elem_type, box, swizzle, elem_strides, interleave, oob_fill, l2_promotion, mode, lower, upper, channels, pixels, dims, strides"
    );
    assert_eq!(
        parse_err(&format!("{HEAD}[[arg]]\npacked = [ {{ u31 = 1 }} ]\n")),
        "k.toml:5:14: error: key 'arg[0].packed[0].u31': unknown key; expected one of: u8, u16, u32, u64, i8, i16, i32, i64, f16, bf16, f32, f64, buffer, offset_bytes, tensormap"
    );
    assert_eq!(
        parse_err(&format!("{HEAD}[[expect]]\nbuffer = \"a\"\nnpy = \"r.npy\"\nrtoll = 1\n")),
        "k.toml:7:1: error: key 'expect[0].rtoll': unknown key; expected one of: arg, buffer, npy, rtol, atol"
    );
}

#[test]
fn wrong_types() {
    assert_eq!(
        parse_err("ptx = 3\ngrid = [1]\nblock = [1]\n"),
        "k.toml:1:7: error: key 'ptx': expected a string, found integer 3"
    );
    assert_eq!(
        parse_err("ptx = \"k.ptx\"\ngrid = \"big\"\nblock = [1]\n"),
        "k.toml:2:8: error: key 'grid': expected 1 to 3 positive integers, found string \"big\""
    );
    assert_eq!(
        parse_err("ptx = \"k.ptx\"\ngrid = [2, 0]\nblock = [1]\n"),
        "k.toml:2:12: error: key 'grid': expected a positive integer in 1..=4294967295, found 0"
    );
    assert_eq!(
        parse_err(&format!("{HEAD}shared_bytes = 1.5\n")),
        "k.toml:4:16: error: key 'shared_bytes': expected a byte count in 0..=4294967295, found float 1.5"
    );
    assert_eq!(
        parse_err(&format!("{HEAD}[buffers.a]\ndtype = \"f32\"\nshape = 4\n")),
        "k.toml:6:9: error: key 'buffers.a.shape': expected an array of positive integers, found integer 4"
    );
    assert_eq!(
        parse_err(&format!("{HEAD}[[arg]]\nvalue = \"x\"\n")),
        "k.toml:5:9: error: key 'arg[0].value': expected a number, found string \"x\""
    );
    assert_eq!(
        parse_err(&format!("{HEAD}[[arg]]\npacked = [ {{ u8 = 300 }} ]\n")),
        "k.toml:5:19: error: key 'arg[0].packed[0].u8': expected an integer (u8) in 0..=255, found 300"
    );
    assert_eq!(
        parse_err(&format!("{HEAD}[buffers.a]\ndtype = \"f32\"\nshape = [4]\nfill = \"twos\"\n")),
        "k.toml:7:8: error: key 'buffers.a.fill': expected \"zeros\", \"ones\" or \"iota\", found \"twos\""
    );
    assert_eq!(
        parse_err(&format!(
            "{HEAD}[buffers.a]\ndtype = \"f32\"\nshape = [4]\nfill = \"ones\"\nfrom = \"a.npy\"\n"
        )),
        "k.toml:7:8: error: key 'buffers.a.fill': expected only one of 'from', 'fill' and 'random'"
    );
    assert_eq!(
        parse_err(&format!("{HEAD}[buffers.a]\ndtype = \"i8\"\nshape = [4]\nrandom = {{ seed = 1, low = -1, high = 200 }}\n")),
        "k.toml:7:39: error: key 'buffers.a.random.high': expected an integer (i8) in -128..=128, found 200"
    );
    assert_eq!(
        parse_err(&format!("{HEAD}[buffers.a]\ndtype = \"f32\"\nshape = [4]\nrandom = {{ seed = 1, low = 1, high = 1 }}\n")),
        "k.toml:7:38: error: key 'buffers.a.random.high': expected finite bounds with low < high, found low = 1, high = 1"
    );
    assert_eq!(
        parse_err(&format!("{HEAD}[[arg]]\nvalue = 1\nbuffer = \"a\"\n")),
        "k.toml:4:1: error: key 'arg[0]': expected exactly one of 'value', 'buffer', 'dtype' (an inline buffer), 'packed' or 'tensormap' in [[arg]] 0, found value, buffer"
    );
}

#[test]
fn missing_keys() {
    assert_eq!(
        parse_err("grid = [1]\nblock = [1]\n"),
        "k.toml:1:1: error: key 'ptx': missing key: the spec must set 'ptx'"
    );
    assert_eq!(
        parse_err(&format!("{HEAD}\n[buffers.a]\nshape = [4]\n")),
        "k.toml:5:1: error: key 'buffers.a.dtype': missing key: [buffers.a] must set 'dtype'"
    );
}

#[test]
fn invalid_toml_has_a_position() {
    assert_eq!(
        parse_err("ptx = \"k.ptx\"\ngrid = [1\nblock = [1]\n"),
        "k.toml:3:1: error: invalid TOML: missing comma between array elements, expected `,`"
    );
}

#[test]
fn bad_dtype_name() {
    assert_eq!(
        parse_err(&format!("{HEAD}[buffers.a]\ndtype = \"float16\"\nshape = [4]\n")),
        "k.toml:5:9: error: key 'buffers.a.dtype': expected a dtype name (f64 f32 f16 bf16 fp8e4m3 fp8e5m2 i8 u8 i16 u16 i32 u32 i64 u64), found \"float16\""
    );
}

#[test]
fn cluster_must_divide_grid() {
    assert_eq!(
        parse_err("ptx = \"k.ptx\"\ngrid = [3, 2]\nblock = [32]\ncluster = [2]\n"),
        "k.toml:4:11: error: key 'cluster': expected a cluster shape that divides the grid [3, 2, 1], found [2, 1, 1] (2 does not divide 3 in x)"
    );
}

#[test]
fn launch_limits() {
    assert_eq!(
        parse_err("ptx = \"k.ptx\"\ngrid = [1]\nblock = [64, 32]\n"),
        "k.toml:3:9: error: key 'block': expected at most 1024 threads per CTA, found [64, 32, 1] = 2048"
    );
    assert_eq!(
        parse_err("ptx = \"k.ptx\"\ngrid = [1]\nblock = [1, 1, 128]\n"),
        "k.toml:3:9: error: key 'block': expected a block of at most [1024, 1024, 64] (x, y, z), found [1, 1, 128]"
    );
    assert_eq!(
        parse_err("ptx = \"k.ptx\"\ngrid = [1, 65536]\nblock = [32]\n"),
        "k.toml:2:8: error: key 'grid': expected a grid of at most [2147483647, 65535, 65535] (x, y, z), found [1, 65536, 1]"
    );
    assert_eq!(
        parse_err("ptx = \"k.ptx\"\ngrid = [32]\nblock = [32]\ncluster = [32]\n"),
        "k.toml:4:11: error: key 'cluster': expected at most 16 CTAs per cluster, found [32, 1, 1] = 32"
    );
}

/// A buffer past MAX_BUFFER_BYTES (4 GiB) is a spec error at its shape, never minutes spent
/// filling host memory (fuzz/mutate_run.py found `shape = [4294967295]` of u32 taking the CPU
/// limit); 4 GiB itself is accepted.
#[test]
fn buffer_size_limit() {
    assert_eq!(
        parse_err(&format!("{HEAD}[buffers.a]\ndtype = \"u32\"\nshape = [4294967295]\n")),
        "k.toml:6:9: error: key 'buffers.a.shape': expected a buffer of at most 4294967296 bytes, found shape [4294967295] of u32"
    );
    assert_eq!(tmemu_spec::MAX_BUFFER_BYTES, 1 << 32);
}

#[test]
fn bad_swizzle_name() {
    assert_eq!(
        parse_err(&format!(
            "{HEAD}[buffers.a]\ndtype = \"f16\"\nshape = [64, 64]\n[[arg]]\ntensormap = {{ buffer = \"a\", box = [64, 64], swizzle = \"128\" }}\n"
        )),
        "k.toml:8:55: error: key 'arg[0].tensormap.swizzle': expected a swizzle (none, 32B, 64B, 128B, 96B, 128B_atom_32B, 128B_atom_32B_flip_8B, 128B_atom_64B), found \"128\""
    );
}

#[test]
fn tensor_map_rules() {
    let map = |buf: &str, tm: &str| {
        parse_err(&format!(
            "{HEAD}[buffers.a]\n{buf}\n[[arg]]\ntensormap = {{ buffer = \"a\", {tm} }}\n"
        ))
    };
    assert_eq!(
        map("dtype = \"f16\"\nshape = [64, 128]", "box = [128, 64], swizzle = \"128B\""),
        "k.toml:8:13: error: key 'arg[0].tensormap': inner box dim 128 spans 256 bytes, more than the 128-byte swizzle span"
    );
    assert_eq!(
        map("dtype = \"f16\"\nshape = [64, 128]", "box = [64]"),
        "k.toml:8:13: error: key 'arg[0].tensormap': expected 'box' to have 2 elements (the rank of buffer 'a', shape [64, 128]; innermost first), found 1"
    );
    assert_eq!(
        map("dtype = \"f16\"\nshape = [64, 100]", "box = [64, 64]"),
        "k.toml:8:13: error: key 'arg[0].tensormap': global stride of dim 1 = 200 bytes must be a multiple of 16 and below 2^40"
    );
    assert_eq!(
        map("dtype = \"u8\"\nshape = [64, 128]", "box = [64, 8], oob_fill = \"nan\""),
        "k.toml:8:13: error: key 'arg[0].tensormap': OOB-NaN fill needs a floating-point element type"
    );
    assert_eq!(
        map("dtype = \"f32\"\nshape = [64, 128]", "box = [4, 300]"),
        "k.toml:8:39: error: key 'arg[0].tensormap.box': expected box sizes in 1..=256, found 300"
    );
    assert_eq!(
        map("dtype = \"f32\"\nshape = [64, 128]", "box = [2, 8]"),
        "k.toml:8:13: error: key 'arg[0].tensormap': inner box dim 2 spans 8 bytes, which is not a multiple of 16"
    );
}

#[test]
fn tensor_map_elem_type_override() {
    let text = |dtype: &str, elem: &str| {
        format!(
            "{HEAD}[buffers.a]\ndtype = \"{dtype}\"\nshape = [64, 64]\n[[arg]]\ntensormap = {{ buffer = \"a\", box = [32, 8], elem_type = \"{elem}\" }}\n"
        )
    };
    let c = Case::new();
    let spec = c.parse(&text("f32", "tf32")).unwrap();
    let r = resolve(
        &spec,
        &[p(
            "m",
            ParamKind::ByteArray {
                len: 128,
                align: 64,
            },
        )],
    )
    .unwrap();
    assert_eq!(r.tensor_maps[0].desc.elem_type, tensormap::TmElemType::TF32);
    assert_eq!(
        parse_err(&text("f16", "tf32")),
        "k.toml:8:13: error: key 'arg[0].tensormap': expected an elem_type of the width of buffer 'a' (f16, 16 bits), found tf32 (32 bits)"
    );
    assert_eq!(
        parse_err(&text("u8", "b4x16")),
        "k.toml:8:56: error: key 'arg[0].tensormap.elem_type': expected a tensor map element type (u8, u16, u32, s32, u64, s64, f16, f32, f32.ftz, f64, bf16, tf32, tf32.ftz; with explicit dims and strides also b4x16, b4x16_p64, b6x16_p32), found \"b4x16\" without 'dims' and 'strides'"
    );
    assert_eq!(
        parse_err(&text("u8", "b4x32")),
        "k.toml:8:56: error: key 'arg[0].tensormap.elem_type': expected a tensor map element type (u8, u16, u32, s32, u64, s64, f16, f32, f32.ftz, f64, bf16, tf32, tf32.ftz; with explicit dims and strides also b4x16, b4x16_p64, b6x16_p32), found \"b4x32\""
    );
}

/// A 4-bit packed operand (16U4_ALIGN8B, two e2m1 per byte of a u8 buffer): with explicit
/// dims counted in nibbles and byte strides, the map covers the buffer exactly; the 64B swizzle
/// is legal for the packed type (CuTe DSL's NVFP4 GEMM, holdout ho16_cute_nvfp4).
#[test]
fn tensor_map_b4x16_with_explicit_dims() {
    let text = |dims: &str| {
        format!(
            "{HEAD}[buffers.a]\ndtype = \"u8\"\nshape = [256, 128]\n[[arg]]\ntensormap = {{ buffer = \"a\", box = [128, 128], swizzle = \"64B\", elem_type = \"b4x16\", {dims} }}\n"
        )
    };
    let c = Case::new();
    let spec = c
        .parse(&text("dims = [256, 256], strides = [128]"))
        .unwrap();
    let r = resolve(
        &spec,
        &[p(
            "m",
            ParamKind::ByteArray {
                len: 128,
                align: 64,
            },
        )],
    )
    .unwrap();
    let d = &r.tensor_maps[0].desc;
    assert_eq!(d.elem_type, tensormap::TmElemType::B4x16);
    assert_eq!(&d.global_dims[..2], &[256, 256]);
    assert_eq!(d.global_strides[0], 128);
    // 257 rows of 128 bytes do not fit the buffer's 256
    assert_eq!(
        parse_err(&text("dims = [256, 257], strides = [128]")),
        "k.toml:8:13: error: key 'arg[0].tensormap': a tensor map with dims [256, 257] and strides [128] spans 32896 bytes, more than the 32768 bytes of buffer 'a'"
    );
}

#[test]
fn unknown_buffer_names() {
    assert_eq!(
        parse_err(&format!("{HEAD}[[arg]]\nbuffer = \"b\"\n")),
        "k.toml:4:1: error: key 'arg[0]': expected the name of a [buffers.NAME] table (none are declared), found \"b\""
    );
    assert_eq!(
        parse_err(&format!(
            "{HEAD}[buffers.a]\ndtype = \"u8\"\nshape = [4]\n[[expect]]\nbuffer = \"c\"\nnpy = \"r.npy\"\n"
        )),
        "k.toml:7:1: error: key 'expect[0].buffer': expected the name of a [buffers.NAME] table (a), found \"c\""
    );
    assert_eq!(
        parse_err(&format!("{HEAD}[[arg]]\nvalue = 1\n[[expect]]\narg = 0\nnpy = \"r.npy\"\n")),
        "k.toml:6:1: error: key 'expect[0].arg': expected the index of an [[arg]] that is a buffer (0-based; the spec has 1 args), found 0"
    );
}

#[test]
fn offset_beyond_buffer() {
    assert_eq!(
        parse_err(&format!(
            "{HEAD}[buffers.a]\ndtype = \"u16\"\nshape = [4]\n[[arg]]\nbuffer = \"a\"\noffset_bytes = 10\n"
        )),
        "k.toml:7:1: error: key 'arg[0].offset_bytes': expected an offset within buffer 'a' (0..=8 bytes), found 10"
    );
    let c = Case::new();
    let spec = c
        .parse(&format!(
            "{HEAD}[buffers.a]\ndtype = \"u16\"\nshape = [4]\n[[arg]]\nbuffer = \"a\"\noffset_bytes = 8\n"
        ))
        .unwrap();
    let r = resolve(&spec, &[p("a", ParamKind::Pointer)]).unwrap();
    assert_eq!(r.relocations[0].addend, 8);
}

#[test]
fn wrong_argument_count() {
    let c = Case::new();
    let text = format!("{HEAD}[[arg]]\nvalue = 1\n[[arg]]\nvalue = 2\n");
    assert_eq!(
        c.resolve_err(&text, &[p("n", int(32))]),
        "k.toml:6:1: error: key 'arg[1]': expected 1 [[arg]] tables, one per parameter of the entry (0 'n' (.b32)), found 2"
    );
    assert_eq!(
        c.resolve_err(
            &text,
            &[
                p("n", int(32)),
                p("x", ParamKind::Pointer),
                p("m", ParamKind::ByteArray { len: 16, align: 8 })
            ]
        ),
        "k.toml:6:1: error: key 'arg[1]': expected 3 [[arg]] tables, one per parameter of the entry (0 'n' (.b32), 1 'x' (.u64 .ptr), 2 'm' (.align 8 .b8[16])), found 2"
    );
    assert_eq!(
        c.resolve_err(HEAD, &[p("n", int(32))]),
        "k.toml:1:1: error: key 'arg': expected 1 [[arg]] tables, one per parameter of the entry (0 'n' (.b32)), found 0"
    );
}

#[test]
fn scalar_does_not_fit_parameter() {
    let c = Case::new();
    assert_eq!(
        c.resolve_err(&format!("{HEAD}[[arg]]\nvalue = 300\n"), &[p("n", int(8))]),
        "k.toml:4:1: error: key 'arg[0]': expected an argument that fits parameter 0 'n' (.b8), found 300, which does not fit in 8 bits (-128..=255)"
    );
    assert_eq!(
        c.resolve_err(&format!("{HEAD}[[arg]]\nvalue = 1.5\n"), &[p("n", int(32))]),
        "k.toml:4:1: error: key 'arg[0]': expected an argument that fits parameter 0 'n' (.b32), found the float 1.5 (an integer parameter takes an integer)"
    );
    assert_eq!(
        c.resolve_err(&format!("{HEAD}[[arg]]\nvalue = 5\n"), &[p("q", ParamKind::Pointer)]),
        "k.toml:4:1: error: key 'arg[0]': expected an argument that fits parameter 0 'q' (.u64 .ptr), found 5 (a pointer parameter takes a buffer, or value = 0 for null)"
    );
    assert_eq!(
        c.resolve_err(
            &format!("{HEAD}[[arg]]\ndtype = \"f32\"\nshape = [4]\n"),
            &[p("q", int(32))]
        ),
        "k.toml:4:1: error: key 'arg[0]': expected an argument that fits parameter 0 'q' (.b32), found an inline buffer (a device address)"
    );
}

#[test]
fn packed_field_overflow() {
    let c = Case::new();
    let text = format!(
        "{HEAD}[buffers.a]\ndtype = \"u8\"\nshape = [4]\n[[arg]]\npacked = [ {{ u32 = 1 }}, {{ buffer = \"a\" }}, {{ u8 = 3 }} ]\n"
    );
    // u32 at 0, the address at 8 (aligned), u8 at 16: 17 bytes do not fit 16.
    assert_eq!(
        c.resolve_err(&text, &[p("m", ParamKind::ByteArray { len: 16, align: 8 })]),
        "k.toml:8:43: error: key 'arg[0].packed[2]': expected the packed fields to fit parameter 0 'm' (.align 8 .b8[16]) of 16 bytes, but this 1-byte field would end at byte 17"
    );
    let spec = c.parse(&text).unwrap();
    let r = resolve(&spec, &[p("m", ParamKind::ByteArray { len: 17, align: 8 })]).unwrap();
    assert_eq!(
        r.param_bytes,
        [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3]
    );
    assert_eq!(r.relocations[0].param_offset, 8);
}

#[test]
fn tensormap_into_non_128_byte_param() {
    let c = Case::new();
    let text = format!(
        "{HEAD}[buffers.a]\ndtype = \"f16\"\nshape = [64, 64]\n[[arg]]\ntensormap = {{ buffer = \"a\", box = [64, 64], swizzle = \"128B\" }}\n"
    );
    assert_eq!(
        c.resolve_err(&text, &[p("m", ParamKind::ByteArray { len: 64, align: 64 })]),
        "k.toml:7:1: error: key 'arg[0]': expected an argument that fits parameter 0 'm' (.align 64 .b8[64]), found a tensor map (it needs a 128-byte .b8 array, e.g. .param .align 64 .b8 map[128])"
    );
    assert_eq!(
        c.resolve_err(&text, &[p("m", ParamKind::Pointer)]),
        "k.toml:7:1: error: key 'arg[0]': expected an argument that fits parameter 0 'm' (.u64 .ptr), found a tensor map (it needs a 128-byte .b8 array, e.g. .param .align 64 .b8 map[128])"
    );
}

#[test]
fn npy_files_must_exist_and_match() {
    let c = Case::new();
    let buf = |init: &str| {
        format!(
            "{HEAD}[buffers.a]\ndtype = \"f16\"\nshape = [2, 3]\n{init}\n[[arg]]\nbuffer = \"a\"\n"
        )
    };
    let ptr = [p("a", ParamKind::Pointer)];
    assert_eq!(
        c.resolve_err(&buf("from = \"missing.npy\""), &ptr),
        "k.toml:7:8: error: key 'buffers.a.from': cannot read '$DIR/missing.npy': No such file or directory (os error 2)"
    );
    c.write_npy("shape.npy", DType::F16, &[3, 2]);
    assert_eq!(
        c.resolve_err(&buf("from = \"shape.npy\""), &ptr),
        "k.toml:7:8: error: key 'buffers.a.from': expected '$DIR/shape.npy' to have shape [2, 3] (the buffer's shape), found [3, 2]"
    );
    c.write_npy("dtype.npy", DType::F32, &[2, 3]);
    assert_eq!(
        c.resolve_err(&buf("from = \"dtype.npy\""), &ptr),
        "k.toml:7:8: error: key 'buffers.a.from': expected '$DIR/dtype.npy' to hold f16, found f32"
    );
    std::fs::write(c.dir.path().join("junk.npy"), b"not numpy").unwrap();
    assert_eq!(
        c.resolve_err(&buf("from = \"junk.npy\""), &ptr),
        "k.toml:7:8: error: key 'buffers.a.from': '$DIR/junk.npy': not an .npy file (missing the \\x93NUMPY magic)"
    );
    // bf16 accepts u16 bit patterns, but names the accepted forms when given f16.
    let bf = format!("{HEAD}[buffers.a]\ndtype = \"bf16\"\nshape = [2, 3]\nfrom = \"h.npy\"\n[[arg]]\nbuffer = \"a\"\n");
    c.write_npy("h.npy", DType::F16, &[2, 3]);
    assert_eq!(
        c.resolve_err(&bf, &ptr),
        "k.toml:7:8: error: key 'buffers.a.from': expected '$DIR/h.npy' to hold bf16 (or u16 / raw void V2 bit patterns, or ml_dtypes bfloat16), found f16"
    );
    // A Fortran-order file from numpy.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fortran_f32.npy");
    std::fs::copy(data, c.dir.path().join("f.npy")).unwrap();
    let f = format!("{HEAD}[buffers.a]\ndtype = \"f32\"\nshape = [2, 3]\nfrom = \"f.npy\"\n[[arg]]\nbuffer = \"a\"\n");
    assert_eq!(
        c.resolve_err(&f, &ptr),
        "k.toml:7:8: error: key 'buffers.a.from': '$DIR/f.npy': the .npy array is in Fortran order; save it in C order (numpy.ascontiguousarray) first"
    );
    // An expect reference of the wrong shape.
    c.write_npy("r.npy", DType::F32, &[4]);
    let e = format!(
        "{HEAD}[[arg]]\ndtype = \"f32\"\nshape = [2, 2]\n[[expect]]\narg = 0\nnpy = \"r.npy\"\n"
    );
    assert_eq!(
        c.resolve_err(&e, &ptr),
        "k.toml:9:7: error: key 'expect[0].npy': expected '$DIR/r.npy' to have shape [2, 2] (buffer 'arg0'), found [4]"
    );
}

#[test]
fn ptx_file_must_exist() {
    let c = Case::new();
    let path = c.dir.path().join("k.toml");
    std::fs::write(&path, HEAD).unwrap();
    let e = c.clean(Spec::load(&path).unwrap_err());
    assert_eq!(
        e,
        "$DIR/k.toml:1:7: error: key 'ptx': expected a PTX file, but '$DIR/k.ptx' does not exist"
    );
}
