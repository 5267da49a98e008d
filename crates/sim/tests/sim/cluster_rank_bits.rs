//! Shared addresses carry the CTA's cluster rank in bits 24 and up (see `mem`), so the
//! CUTLASS "peer bit" idiom (`own_address & 0xFEFFFFFF` names the even CTA of a pair) reaches
//! the leader's shared memory, and `mapa` to the own rank gives back the own address.

use tmemu_sim::{install_globals, run, GlobalMemory, RunOptions, RunResult};

use crate::support::{load_src, param_block, plain_launch, u32_words};

/// Per CTA (2 words): the word `cell` holds after the cluster barrier, and whether
/// `mapa(own, own rank) == own`. Rank 1 stores 77 through the peer-bit address and a generic
/// address built by `cvta` from it stores 5 into `cell[1]` of rank 0.
const PEER_BIT: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.visible .entry peer_bit(.param .u64 out_ptr)
.reqnctapercluster 2, 1, 1
{
    .shared .align 4 .b32 cell[2];
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    .reg .pred %p<4>;
    ld.param.u64 %rd1, [out_ptr];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, cell;
    mov.u32 %r2, %cluster_ctarank;
    mov.u32 %r9, %ctaid.x;
    st.shared.u32 [%r1], 0;
    st.shared.u32 [cell+4], 0;
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    and.b32 %r3, %r1, -16777217;
    setp.eq.u32 %p1, %r2, 1;
    @%p1 st.shared::cluster.u32 [%r3], 77;
    cvta.shared.u64 %rd2, cell;
    cvta.to.shared.u64 %rd3, %rd2;
    cvt.u32.u64 %r10, %rd3;
    and.b32 %r10, %r10, -16777217;
    cvt.u64.u32 %rd4, %r10;
    cvta.shared.u64 %rd5, %rd4;
    @%p1 st.u32 [%rd5+4], 5;
    mapa.shared::cluster.u32 %r4, %r1, %r2;
    setp.eq.u32 %p2, %r4, %r1;
    selp.u32 %r5, 1, 0, %p2;
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    ld.shared.u32 %r6, [%r1];
    ld.shared.u32 %r7, [cell+4];
    add.u32 %r6, %r6, %r7;
    mul.wide.u32 %rd6, %r9, 8;
    add.u64 %rd6, %rd1, %rd6;
    st.global.u32 [%rd6], %r6;
    st.global.u32 [%rd6+4], %r5;
    ret;
}
"#;

/// Rank 0 reads its partner's word through `.shared::cta` with the partner's address (peer bit
/// set): another CTA's address is outside a `.shared::cta` window. (The reverse, rank 1 with
/// rank bits 0, is taken as its own window: rank bits 0 are also the form of the loader's
/// `[sym+off]` immediates, which carry no rank; see `mem`.)
const CTA_SPACE_PEER: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.visible .entry cta_space_peer(.param .u64 out_ptr)
.reqnctapercluster 2, 1, 1
{
    .shared .align 4 .b32 cell;
    .reg .b32 %r<8>;
    .reg .pred %p<2>;
    mov.u32 %r1, cell;
    mov.u32 %r2, %cluster_ctarank;
    or.b32 %r3, %r1, 16777216;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 ld.shared.u32 %r4, [%r3];
    ret;
}
"#;

fn run_src(src: &str, grid: u32, block: u32) -> (RunResult, Vec<u32>) {
    let k = load_src(src, "inline.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &vec![0u8; grid as usize * 8]);
    let launch = plain_launch([grid, 1, 1], [block, 1, 1], param_block(&k, [out]));
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    (r, u32_words(&g.read_buffer(out).unwrap()))
}

#[test]
fn peer_bit_names_the_even_cta_and_mapa_to_own_rank_is_identity() {
    let (r, out) = run_src(PEER_BIT, 4, 32);
    assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
    // even CTAs got 77 + 5 from their odd partner; odd CTAs' cells stay 0
    assert_eq!(out, vec![82, 1, 0, 1, 82, 1, 0, 1]);
}

#[test]
fn shared_cta_access_with_a_peer_address_is_diagnosed() {
    let (r, _) = run_src(CTA_SPACE_PEER, 2, 32);
    assert!(!r.diagnostics.is_empty(), "{r:?}");
    let d = r.diagnostics[0].to_string();
    assert!(
        d.contains("TM0503") && d.contains("shared::cta") && d.contains("rank 1"),
        "{d}"
    );
}
