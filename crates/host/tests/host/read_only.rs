//! Read-only buffers (docs/arch/race.md, "Read-only buffers"): the race observer skips the
//! weak reads of the buffers no global write of the kernel's code reaches, and verifies that
//! none does: a write that lands in one anyway makes the check `incomplete`, never `clean`.

use std::path::Path;

use tmemu_host::{check, load_ptx_source, resolve_spec, CheckOptions, Session, Verdict};
use tmemu_spec::Spec;

/// Thread 0 reads `x[0]` and stores it to `out + delta`: the analysis sees a store through
/// `out` (and `delta`), never through `x`.
const PTX: &str = ".version 8.8
.target sm_100a
.address_size 64

.visible .entry k(.param .u64 x, .param .u64 out, .param .u64 delta)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [out];
    ld.param.u64 %rd3, [delta];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.global.u32 %r2, [%rd1];
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r2;
DONE:
    ret;
}
";

const SPEC: &str = "ptx = \"k.ptx\"
kernel = \"k\"
grid = [1, 1, 1]
block = [32, 1, 1]

[buffers.x]
dtype = \"u32\"
shape = [64]
fill = \"zeros\"

[buffers.out]
dtype = \"u32\"
shape = [64]
fill = \"zeros\"

[[arg]]
buffer = \"x\"

[[arg]]
buffer = \"out\"

[[arg]]
value = 0
";

fn outcome(delta_to_x: bool) -> tmemu_host::CheckOutcome {
    let kernel = load_ptx_source(PTX, "k.ptx", None).unwrap();
    assert_eq!(kernel.written_params, Some(vec![false, true, true]));
    let mut spec = Spec::parse(SPEC, "k.toml", Path::new(".")).unwrap();
    let mut launch = resolve_spec(&mut spec, &[], &kernel).unwrap();
    let session = Session::new(&kernel, &launch).unwrap();
    let (x, out) = (session.buffer_addresses()[0], session.buffer_addresses()[1]);
    assert_eq!(session.read_only_ranges(&launch), vec![(x, x + 256)]);
    if delta_to_x {
        let off = launch.param_offsets[2];
        launch.param_bytes[off..off + 8].copy_from_slice(&x.wrapping_sub(out).to_le_bytes());
    }
    check(&kernel, &launch, &CheckOptions::default()).unwrap()
}

#[test]
fn a_store_that_stays_out_of_the_read_only_buffer_is_checked_clean() {
    let o = outcome(false);
    assert_eq!(o.verdict, Verdict::Clean, "{:?}", o.incomplete);
    assert!(o.incomplete.is_empty());
}

#[test]
fn a_store_that_lands_in_a_read_only_buffer_makes_the_check_incomplete() {
    let o = outcome(true);
    assert_eq!(o.verdict, Verdict::Incomplete, "{o:?}");
    let reason = &o.incomplete[0].reason;
    assert!(
        reason.contains("landed in a buffer that no global write of the kernel's code")
            && reason.contains("at line 18"),
        "{reason}"
    );
}
