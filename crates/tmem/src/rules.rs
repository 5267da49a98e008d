//! The rule catalogue: every diagnostic tmemu can emit, with a stable ID.
//!
//! This is the single source of rule IDs. `docs/rules.md` lists the same entries for people;
//! a test (`tests/alloc_rules_doc.rs`) checks that both agree.
//!
//! ID ranges: TM00xx allocation / permits / CTA pairs, TM01xx data movement (ld/st/cp/shift,
//! lane quarters, column ownership), TM02xx synchronisation (mbarrier, commit, fences, races),
//! TM03xx mma and descriptors, TM04xx static / target rules, TM05xx engine-level (out of bounds,
//! misaligned, barriers).
//!
//! Section numbers are PTX ISA 9.1 numbering (tcgen05 chapter = §9.7.16). "tmem.md rule N"
//! refers to the numbered list in `shared/spec/tmem.md` §7.
//!
//! `checked_by` says which module enforces the rule today; `None` means the ID is reserved
//! (planned) and nothing reports it yet. Never set it before the check exists and is tested.
//!
//! To add a rule: add a `pub const` below in its ID range, append it to `RULES` (keep IDs
//! sorted), then regenerate the table of `docs/rules.md` with
//! `UPDATE_RULES_DOC=1 cargo test -p tmemu-tmem --test alloc_rules_doc` (that test fails
//! while the doc and the catalogue disagree).

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Information only (e.g. a recommended instruction is missing); never fails a check.
    Note,
    /// Legal by the letter of the ISA but suspicious or stricter-reading violations.
    Warning,
    /// A rule of the PTX ISA is broken: undefined behaviour, a hang, or a program ptxas rejects.
    Error,
}

impl Severity {
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// When the rule can be decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Detection {
    /// From the PTX text alone.
    Static,
    /// Needs execution state (register values, timing, which CTAs are live).
    Dynamic,
    /// Static when the operand is an immediate, dynamic otherwise.
    StaticOrDynamic,
}

impl Detection {
    pub const fn as_str(self) -> &'static str {
        match self {
            Detection::Static => "static",
            Detection::Dynamic => "dynamic",
            Detection::StaticOrDynamic => "static/dynamic",
        }
    }
}

/// One catalogued rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// Stable ID, `TMdddd`.
    pub id: &'static str,
    /// Stable kebab-case name.
    pub name: &'static str,
    /// PTX ISA 9.1 section(s) the rule comes from, e.g. "§9.7.16.7.1".
    pub section: &'static str,
    pub severity: Severity,
    pub detection: Detection,
    /// One sentence: what the rule requires.
    pub summary: &'static str,
    /// One sentence: what the hardware (or ptxas) does when the rule is broken.
    pub hardware: &'static str,
    /// Module that enforces it today (e.g. "tmemu_tmem::alloc"); `None` = reserved, not checked.
    pub checked_by: Option<&'static str>,
}

impl Rule {
    /// True when some module reports this rule today.
    /// True when the rule marks a limit of tmemu rather than (only) a PTX ISA rule: its
    /// section is [`TMEMU_LIMIT`] or ends with it (an ISA-legal form tmemu cannot run, cited
    /// with its section). A run reporting it is `incomplete`, never clean.
    pub fn is_tmemu_limit(&self) -> bool {
        self.section.ends_with(TMEMU_LIMIT)
    }

    /// True when some module reports this rule today.
    pub const fn is_checked(&self) -> bool {
        self.checked_by.is_some()
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.id, self.name)
    }
}

const ALLOC: Option<&str> = Some("tmemu_tmem::alloc");
/// nCols rules: the allocator checks register values, the static checker immediates.
const ALLOC_DYNAMIC_ONLY: Option<&str> =
    Some("tmemu_tmem::alloc (registers), tmemu_check (immediates)");

// ----------------------------------------------------------------------------------------
// TM00xx — allocation, permits, CTA pairs (tmem.md §7 rules 1–12, 14, 15)

pub const NCOLS_NOT_POWER_OF_TWO: Rule = Rule {
    id: "TM0001",
    name: "ncols-not-power-of-two",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::StaticOrDynamic,
    summary: "nCols of tcgen05.alloc/dealloc must be a power of two (tmem.md rule 1).",
    hardware: "ptxas rejects an immediate (\"value must be power of 2\"); a register value is undefined behaviour.",
    checked_by: ALLOC_DYNAMIC_ONLY,
};

pub const NCOLS_NOT_MULTIPLE_OF_32: Rule = Rule {
    id: "TM0002",
    name: "ncols-not-multiple-of-32",
    section: "§9.7.16.1.2",
    severity: Severity::Error,
    detection: Detection::StaticOrDynamic,
    summary: "nCols must be a multiple of the 32-column allocation unit (tmem.md rule 2).",
    hardware: "ptxas rejects an immediate (\"expected to be multiple of 32\"); a register value is undefined behaviour.",
    checked_by: ALLOC_DYNAMIC_ONLY,
};

pub const NCOLS_OUT_OF_RANGE: Rule = Rule {
    id: "TM0003",
    name: "ncols-out-of-range",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::StaticOrDynamic,
    summary: "nCols must lie in [32, 512] (tmem.md rule 3).",
    hardware: "ptxas rejects an immediate (\"out of range, expected to be in range [32..512]\"); a register value is undefined behaviour.",
    checked_by: ALLOC_DYNAMIC_ONLY,
};

pub const NCOLS_NOT_UNIFORM: Rule = Rule {
    id: "TM0004",
    name: "ncols-not-uniform",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "All threads of the warp must pass the same nCols to alloc/dealloc (tmem.md rule 4).",
    hardware: "Undefined behaviour per the ISA.",
    checked_by: ALLOC,
};

pub const ALLOC_WARP_NOT_CONVERGED: Rule = Rule {
    id: "TM0005",
    name: "alloc-warp-not-converged",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "alloc/dealloc/relinquish (.sync.aligned) must be executed by every thread of the warp together (tmem.md rule 5).",
    hardware: "Undefined behaviour per the ISA (.aligned in divergent code); in practice the warp may hang in .sync.",
    checked_by: ALLOC,
};

pub const ALLOC_WARP_LANE_EXITED: Rule = Rule {
    id: "TM0006",
    name: "alloc-warp-lane-exited",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "No thread of the warp may have exited when alloc/dealloc/relinquish executes (tmem.md rule 6).",
    hardware: "Undefined behaviour per the ISA.",
    checked_by: ALLOC,
};

pub const ALLOC_DST_NOT_SHARED_CTA: Rule = Rule {
    id: "TM0007",
    name: "alloc-dst-not-shared-cta",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "The dst operand of tcgen05.alloc must lie in the CTA's .shared::cta window (tmem.md rule 7).",
    hardware: "Undefined behaviour per the ISA: the address write goes to an unspecified location.",
    checked_by: None,
};

pub const NCOLS_GROWS: Rule = Rule {
    id: "TM0008",
    name: "ncols-grows",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "nCols must not increase from one tcgen05.alloc to the next in execution order within a CTA (tmem.md rule 8).",
    hardware: "Not specified by the ISA (\"should not increase\"); the allocator's behaviour is unknown.",
    checked_by: ALLOC,
};

pub const ALLOC_AFTER_RELINQUISH: Rule = Rule {
    id: "TM0009",
    name: "alloc-after-relinquish",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A CTA must not execute tcgen05.alloc after any of its threads executed relinquish_alloc_permit (tmem.md rule 9).",
    hardware: "Undefined behaviour per the ISA (the CTA no longer holds an allocation permit).",
    checked_by: ALLOC,
};

pub const DEALLOC_NOT_LIVE: Rule = Rule {
    id: "TM0010",
    name: "dealloc-not-live",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "dealloc's taddr must be the address of a live allocation of the issuing CTA (tmem.md rule 10).",
    hardware: "Undefined behaviour per the ISA (double free, or freeing another CTA's columns).",
    checked_by: ALLOC,
};

pub const DEALLOC_NCOLS_MISMATCH: Rule = Rule {
    id: "TM0011",
    name: "dealloc-ncols-mismatch",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "dealloc's nCols must equal the nCols of the allocation at taddr (stricter reading of tmem.md rule 10, UNCONFIRMED).",
    hardware: "Not specified by the ISA; partial frees would leak or free columns of other allocations.",
    checked_by: ALLOC,
};

pub const ALLOC_LEAK: Rule = Rule {
    id: "TM0012",
    name: "alloc-leak",
    section: "§9.7.16.1.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "All TMEM a CTA allocated must be deallocated before the CTA exits (tmem.md rule 11).",
    hardware: "Undefined behaviour per the ISA; leaked columns may stay unavailable, so later CTAs on the SM can block in alloc forever.",
    checked_by: ALLOC,
};

pub const ALLOC_CONCURRENT_WARPS: Rule = Rule {
    id: "TM0013",
    name: "alloc-concurrent-warps",
    section: "§9.7.16.1.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Only a single warp of a CTA may allocate: a second warp must not allocate while another warp's alloc is in flight (tmem.md rule 12).",
    hardware: "Not specified by the ISA (\"a single warp\"); CUTLASS forbids it.",
    checked_by: ALLOC,
};

pub const ALLOC_MULTIPLE_WARPS: Rule = Rule {
    id: "TM0014",
    name: "alloc-multiple-warps",
    section: "§9.7.16.1.2",
    severity: Severity::Warning,
    detection: Detection::Dynamic,
    summary: "Allocations of one CTA should all come from the same warp (stricter reading of tmem.md rule 12, UNCONFIRMED).",
    hardware: "Not specified by the ISA; CUTLASS documents that one warp performs all allocations.",
    checked_by: ALLOC,
};

pub const PAIR_NO_PEER: Rule = Rule {
    id: "TM0015",
    name: "pair-no-peer",
    section: "§9.7.16.5",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A .cta_group::2 operation needs a launched peer CTA (%cluster_ctarank ^ 1 in the cluster) (tmem.md rule 14).",
    hardware: "Undefined behaviour per the ISA; a collective alloc/dealloc waits for a peer that never comes (hang).",
    checked_by: ALLOC,
};

pub const PAIR_PEER_EXITED: Rule = Rule {
    id: "TM0016",
    name: "pair-peer-exited",
    section: "§9.7.16.5",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Both CTAs of a pair must take part in each .cta_group::2 alloc/dealloc/relinquish; the peer must not exit without joining (tmem.md rule 15).",
    hardware: "The warp that arrived first can block forever waiting for its peer (hang).",
    checked_by: ALLOC,
};

pub const PAIR_COLLECTIVE_MISMATCH: Rule = Rule {
    id: "TM0017",
    name: "pair-collective-mismatch",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "The two warps of a .cta_group::2 collective must perform the same operation with the same nCols and taddr (DERIVED).",
    hardware: "Not specified by the ISA; the collective is expected to hang or allocate inconsistently.",
    checked_by: ALLOC,
};

pub const TADDR_NOT_UNIFORM: Rule = Rule {
    id: "TM0018",
    name: "taddr-not-uniform",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "All threads of the warp must pass the same taddr to tcgen05.dealloc (DERIVED from .sync.aligned warp-level semantics).",
    hardware: "Undefined behaviour per the ISA.",
    checked_by: ALLOC,
};

pub const MISSING_RELINQUISH: Rule = Rule {
    id: "TM0019",
    name: "missing-relinquish",
    section: "§9.7.16.7.1",
    severity: Severity::Note,
    detection: Detection::Dynamic,
    summary: "A CTA that allocated TMEM exited without relinquish_alloc_permit (not required; recommended so the hardware knows it will not allocate again).",
    hardware: "Nothing: relinquishing is optional.",
    checked_by: ALLOC,
};

pub const TMEM_ALLOC_HANG: Rule = Rule {
    id: "TM0020",
    name: "tmem-alloc-hang",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A warp waits forever in tcgen05.alloc, or in a .cta_group::2 alloc/dealloc/relinquish: the columns it asks for are held by allocations that no live warp will free (the hang report names each holder CTA and where it allocated), or its peer CTA waits elsewhere and never joins the collective (DERIVED: \"tcgen05.alloc is a potentially blocking instruction\" that waits until the columns are available).",
    hardware: "The kernel hangs: the blocked warp retries the allocation forever.",
    checked_by: Some("tmemu_sim (the wait explained by tmemu_tmem::alloc)"),
};

// ----------------------------------------------------------------------------------------
// TM01xx — data movement (tmem.md §7 rules 18–20, 27; data-movement.md §2.6, §3)

pub const LDST_WARP_NOT_CONVERGED: Rule = Rule {
    id: "TM0101",
    name: "ldst-warp-not-converged",
    section: "§9.7.16.8.3",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "tcgen05.ld/st/wait (.sync.aligned) must be executed by every thread of the warp together, none exited (tmem.md rule 18).",
    hardware: "Undefined behaviour per the ISA.",
    checked_by: None,
};

pub const LDST_TADDR_NOT_UNIFORM: Rule = Rule {
    id: "TM0102",
    name: "ldst-taddr-not-uniform",
    section: "§9.7.16.8.3",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary:
        "taddr of tcgen05.ld/st must be the same in all threads of the warp (tmem.md rule 19).",
    hardware: "Undefined behaviour per the ISA.",
    checked_by: None,
};

pub const LANE_QUARTER_VIOLATION: Rule = Rule {
    id: "TM0103",
    name: "lane-quarter-violation",
    section: "§9.7.16.8.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "tcgen05.ld/st may touch only lanes 32*(warp%4) .. 32*(warp%4)+31 (tmem.md rule 20).",
    hardware: "Undefined behaviour per the ISA (access outside the warp's lane quarter).",
    checked_by: Some("tmemu_tmem::layout"),
};

pub const SHIFT_LANE_NOT_MULTIPLE_OF_32: Rule = Rule {
    id: "TM0104",
    name: "shift-lane-not-multiple-of-32",
    section: "§9.7.16.9.3",
    severity: Severity::Error,
    detection: Detection::StaticOrDynamic,
    summary: "The lane field of tcgen05.shift's taddr must be a multiple of 32 (tmem.md rule 27).",
    hardware: "Undefined behaviour per the ISA.",
    checked_by: Some("tmemu_tmem::layout"),
};

pub const ACCESS_UNALLOCATED_COLUMNS: Rule = Rule {
    id: "TM0105",
    name: "access-unallocated-columns",
    section: "§9.7.16.1.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "ld/st/cp/shift/mma must touch only columns of a live allocation of the issuing CTA (UNCONFIRMED, follows from the allocation model).",
    hardware: "Not specified by the ISA; may read or corrupt another CTA's accumulators.",
    checked_by: None,
};

// ----------------------------------------------------------------------------------------
// TM012x — tensor copies (TMA: cp.async.bulk.tensor, cp.reduce.async.bulk.tensor;
// bulk-copies.md; checked by the tmemu_tma library)

pub const TMA_COORDS_RANK: Rule = Rule {
    id: "TM0120",
    name: "tma-coords-rank",
    section: "§9.7.9.27.1.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A .Nd tensor copy must give N coordinates, and N must be the rank of the tensor map it uses.",
    hardware: "Undefined behaviour per the ISA: the map is read with the wrong shape.",
    checked_by: Some("tmemu_tma; reported at the instruction by tmemu_sim (exec/tma.rs)"),
};

pub const TMA_SMEM_MISALIGNED: Rule = Rule {
    id: "TM0121",
    name: "tma-smem-misaligned",
    section: "§5.5.7, §9.7.9.27.1.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "The shared-memory address of a tensor copy (load destination, store/reduce source) must be 128-byte aligned; the swizzle phase comes from address bits 7 and up, so 1024-byte alignment is not required.",
    hardware: "Undefined behaviour per the ISA and the CUDA programming guide's TMA rules.",
    checked_by: Some("tmemu_tma; reported at the instruction by tmemu_sim (exec/tma.rs)"),
};

pub const TMA_BOX_EXCEEDS_SWIZZLE: Rule = Rule {
    id: "TM0122",
    name: "tma-box-exceeds-swizzle",
    section: "§5.5.7",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Without interleave, a swizzled tensor map's box inner dimension (boxDim[0] x element size) must span at most the swizzle width (32, 64 or 128 bytes).",
    hardware: "cuTensorMapEncodeTiled rejects such a map; one made by tensormap.replace is undefined behaviour.",
    checked_by: Some("tmemu_tma; reported at the instruction by tmemu_sim (exec/tma.rs)"),
};

pub const TMA_MAP_INVALID: Rule = Rule {
    id: "TM0123",
    name: "tma-map-invalid",
    section: "§5.5, §9.7.9.28",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A tensor map used by a tensor copy must be a bound tmemu map that satisfies the cuTensorMapEncodeTiled rules (rank, dims, strides, box and element strides, type/fill/swizzle/interleave combinations), or for an im2col map cuTensorMapEncodeIm2col's (rank 3-5, corner ranges, channels, pixels), in the mode the instruction uses (tile/gather4 or im2col; a gather4 map's box is one row high).",
    hardware: "The driver rejects such a map at encode time; one produced by tensormap.replace or stray stores is undefined behaviour.",
    checked_by: Some("tmemu_tma; reported at the instruction by tmemu_sim (exec/tma.rs)"),
};

pub const TMA_MBARRIER_MISALIGNED: Rule = Rule {
    id: "TM0124",
    name: "tma-mbarrier-misaligned",
    section: "§9.7.13.15.1, §9.7.9.27.1.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "The mbarrier operand of a tensor copy must be an 8-byte aligned mbarrier object.",
    hardware: "Undefined behaviour per the ISA: the complete-tx lands on an unspecified object.",
    checked_by: Some("tmemu_tma; reported at the instruction by tmemu_sim (exec/tma.rs)"),
};

pub const TMA_REDUCE_TYPE: Rule = Rule {
    id: "TM0125",
    name: "tma-reduce-type",
    section: "§9.7.9.27.1.3",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "cp.reduce.async.bulk.tensor's operation must be defined for the map's element type (add: u32 s32 u64 f32 f32.ftz tf32 f64 f16 bf16; min/max: u32 s32 u64 s64 f16 bf16; inc/dec: u32; and/or/xor: u32 s32 u64).",
    hardware: "An H100 faults (illegal instruction) on every pair outside the table that was tried: add.s64, add.u16, min.f32, max.f64, inc.s32, dec.u64, and.f32, and/or/xor on s64 maps (tests/corpus/tma_h100, red_* cases).",
    checked_by: Some("tmemu_tma; reported at the instruction by tmemu_sim (exec/tma.rs)"),
};

pub const TMA_SMEM_OUT_OF_BOUNDS: Rule = Rule {
    id: "TM0126",
    name: "tma-smem-out-of-bounds",
    section: "§9.7.9.27.1.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "The box a tensor copy writes or reads in shared memory must lie inside the CTA's shared memory window.",
    hardware: "Undefined behaviour: the copy corrupts other data or faults.",
    checked_by: Some("tmemu_tma; reported at the instruction by tmemu_sim (exec/tma.rs)"),
};

pub const TMA_GLOBAL_FAULT: Rule = Rule {
    id: "TM0127",
    name: "tma-global-fault",
    section: "§5.5.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Every in-bounds element of a tensor copy (inside the map's dims) must lie in allocated global memory; elements outside the dims are legal and filled or skipped.",
    hardware: "An illegal-address fault that kills the context.",
    checked_by: Some("tmemu_tma; reported at the instruction by tmemu_sim (exec/tma.rs)"),
};

pub const TMA_MULTICAST_MASK: Rule = Rule {
    id: "TM0128",
    name: "tma-multicast-mask",
    section: "§9.7.9.27.1.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "The ctaMask of .multicast::cluster must select only CTAs of the cluster (bit i = %cluster_ctarank i, DERIVED).",
    hardware: "Undefined behaviour per the ISA.",
    checked_by: Some("tmemu_tma; reported at the instruction by tmemu_sim (exec/tma.rs)"),
};

pub const TMA_BOX_START_MISALIGNED: Rule = Rule {
    id: "TM0129",
    name: "tma-box-start-misaligned",
    section: "§5.5.3.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A tensor copy's box must start on a 16-byte boundary of the tensor's rows: the inner coordinate times the element size must be a multiple of 16 (not interleaved).",
    hardware: "Recorded on an H100: an illegal-instruction error that kills the context (tests/corpus/tma_h100, f16 coordinate 90).",
    checked_by: Some("tmemu_tma (TileBox::check_start_alignment); reported at the instruction by tmemu_sim (exec/tma.rs)"),
};

pub const TMA_STORE_OUTSIDE_TENSOR: Rule = Rule {
    id: "TM0130",
    name: "tma-store-outside-tensor",
    section: "§9.7.9.27.1.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A tensor store or reduction (.global.shared::cta) must use non-negative coordinates, and an .im2col_no_offs store's pixel box must lie inside the tensor (lower corners >= 0, upper corners <= 0); boxes past the far edges are legal and clipped.",
    hardware: "Recorded on an H100: an illegal-instruction error that kills the context (tests/corpus/tma_h100: a store at row -3, an im2col_no_offs store with lower corners -1).",
    checked_by: Some("tmemu_tma (TileBox::check_store); reported at the instruction by tmemu_sim (exec/tma.rs)"),
};

pub const BULK_SHARED_CLUSTER_WITHOUT_CLUSTER: Rule = Rule {
    id: "TM0131",
    name: "bulk-shared-cluster-without-cluster",
    section: "§9.7.9.25.4.1, §9.7.9.25.4.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A shared-to-shared bulk copy or reduction (cp.async.bulk / cp.reduce.async.bulk .shared::cluster.shared::cta) needs a launch with an explicit cluster (cluster dimensions, .explicitcluster or .reqnctapercluster), even a cluster of one CTA.",
    hardware: "Recorded on an H100: in a launch without a cluster both forms raise an illegal-instruction error, into the CTA's own shared memory with or without mapa; with a cluster of 1 or 2 CTAs they run (tests/corpus/tma_h100, red_probe and cluster_* cases). The ISA calls such a CTA an implicit 1-CTA cluster: this is the hardware's behaviour, not the ISA's text.",
    checked_by: Some("tmemu_sim (exec/tma.rs) for cp.reduce.async.bulk; the cp.async.bulk copy is not checked yet"),
};

// ----------------------------------------------------------------------------------------
// TM02xx — synchronisation (tmem.md §7 rules 16, 17, 28)

pub const PAIR_DEALLOC_UNSYNCHRONISED: Rule = Rule {
    id: "TM0201",
    name: "pair-dealloc-unsynchronised",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Before a .cta_group::2 dealloc both CTAs must have synchronised their TMEM accesses (no peer access in flight) (tmem.md rule 16); each dealloc half must also happen after both CTAs' collective alloc (the rendezvous orders nothing; NVIDIA/cutlass#3435).",
    hardware: "A TMEM access of the peer races the deallocation (undefined behaviour); a dealloc before the peer's alloc completed fails the launch (cutlass#3435, sm_103a).",
    checked_by: Some("tmemu_check::dynamic::RaceObserver (tmemu_race)"),
};

pub const PAIR_PEER_INACTIVE: Rule = Rule {
    id: "TM0202",
    name: "pair-peer-inactive",
    section: "§9.7.16.5",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A .cta_group::2 mma/cp/shift/commit needs the peer CTA to be active (not exited) when issued (tmem.md rule 17).",
    hardware: "Undefined behaviour per the ISA (the operation touches an exited CTA's TMEM).",
    checked_by: None,
};

pub const COMMIT_MBAR_NOT_SHARED_CLUSTER: Rule = Rule {
    id: "TM0203",
    name: "commit-mbar-not-shared-cluster",
    section: "§9.7.16.12.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "tcgen05.commit's mbar must lie in the .shared::cluster window (tmem.md rule 28).",
    hardware: "Undefined behaviour per the ISA: the arrive goes to an unspecified location.",
    checked_by: None,
};

pub const TMEM_ACCESS_RACE: Rule = Rule {
    id: "TM0204",
    name: "tmem-access-race",
    section: "§9.7.16.6",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Two TMEM accesses, at least one a write, not ordered by the tcgen05 memory consistency model (sync.md TC-RACE).",
    hardware: "The read sees old, new or mixed data depending on timing.",
    checked_by: Some("tmemu_check::dynamic::RaceObserver (tmemu_race)"),
};

pub const TMEM_OVERWRITE_BEFORE_WAIT_LD: Rule = Rule {
    id: "TM0205",
    name: "tmem-overwrite-before-wait-ld",
    section: "§9.7.16.6.4.4, §9.7.16.8.5",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A write to TMEM cells (mma, cp, shift, st) must be ordered after the completion of an earlier tcgen05.ld of those cells: tcgen05.wait::ld, then across threads fence::before_thread_sync + sync + fence::after_thread_sync.",
    hardware: "The load may read the new data instead of the old (anti-dependency hazard); a register dependency on the load orders nothing in TMEM.",
    checked_by: Some("tmemu_check::dynamic::RaceObserver (tmemu_race)"),
};

pub const TMEM_UNFINISHED_WRITE: Rule = Rule {
    id: "TM0206",
    name: "tmem-unfinished-write",
    section: "§9.7.16.6.2, §9.7.16.6.4.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "An access of TMEM cells that an asynchronous tcgen05 op (mma, cp, shift, st) writes must follow its completion (commit + mbarrier wait, or wait::st) unless the pair is pipelined.",
    hardware: "The access sees old, new or partially written data depending on timing.",
    checked_by: Some("tmemu_check::dynamic::RaceObserver (tmemu_race)"),
};

pub const TMEM_TCGEN05_FENCE_MISSING: Rule = Rule {
    id: "TM0207",
    name: "tmem-tcgen05-fence-missing",
    section: "§9.7.16.6.3, §9.7.16.6.4.3, §9.7.16.11.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A pipelined pair of tcgen05 ops (mma->mma on one accumulator, cp->mma, shift->mma, shift->cp.4x256b, mma->shift) split across threads is ordered only with tcgen05.fence::before_thread_sync before the thread synchronisation and tcgen05.fence::after_thread_sync after it. (A completion already observed through commit + mbarrier wait or tcgen05.wait::ld/st and handed over by a synchronisation needs no fence: Triton, Gluon and CuTe DSL rely on that.)",
    hardware: "The second op may start before the first one in the tensor core's pipeline and read or overwrite the cells too early.",
    checked_by: Some("tmemu_check::dynamic::RaceObserver (tmemu_race)"),
};

pub const PROXY_FENCE_MISSING: Rule = Rule {
    id: "TM0208",
    name: "proxy-fence-missing",
    section: "§9.7.9.25.2, §9.7.16.6.5",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Memory written through one proxy (generic st.shared or non-bulk cp.async, or async TMA/mma/cp) and then read or written through the other needs fence.proxy.async between the write and the synchronisation that orders them.",
    hardware: "The async-proxy access (e.g. an mma reading its smem operand) may see stale data.",
    checked_by: Some("tmemu_check::dynamic::RaceObserver (tmemu_race)"),
};

pub const ASYNC_READ_OVERWRITTEN: Rule = Rule {
    id: "TM0209",
    name: "async-read-overwritten",
    section: "§9.7.16.6.4.4, §9.7.9.25.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Memory an asynchronous op (mma/cp smem operand, bulk-copy or cp.async source) reads must not be overwritten before the op's completion is observed (commit + mbarrier wait, bulk or cp.async async-group wait).",
    hardware: "The op reads the new data (a pipeline stage reused before its release).",
    checked_by: Some("tmemu_check::dynamic::RaceObserver (tmemu_race)"),
};

pub const ALLOC_ADDRESS_UNSYNCHRONISED: Rule = Rule {
    id: "TM0210",
    name: "alloc-address-unsynchronised",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "The TMEM address tcgen05.alloc stores to shared memory is a weak write: other warps may read it only after a synchronisation that orders it (e.g. bar.sync).",
    hardware: "A reader may see the old contents and use a wrong TMEM address.",
    checked_by: Some("tmemu_check::dynamic::RaceObserver (tmemu_race)"),
};

pub const SHARED_DATA_RACE: Rule = Rule {
    id: "TM0211",
    name: "shared-data-race",
    section: "§8 (memory consistency model)",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Two shared-memory accesses of different threads, at least one a write and not both morally strong, must be ordered by happens-before.",
    hardware: "Data race: the read sees an unspecified value.",
    checked_by: Some("tmemu_check::dynamic::RaceObserver (tmemu_race)"),
};

pub const GLOBAL_DATA_RACE: Rule = Rule {
    id: "TM0212",
    name: "global-data-race",
    section: "§8 (memory consistency model)",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Two global-memory accesses of different threads, at least one a write and not both morally strong, must be ordered by happens-before.",
    hardware: "Data race: the read sees an unspecified value.",
    checked_by: Some("tmemu_check::dynamic::RaceObserver (tmemu_race)"),
};

pub const ASYNC_WRITE_IN_FLIGHT: Rule = Rule {
    id: "TM0213",
    name: "async-write-in-flight",
    section: "§9.7.9.25.2, §9.7.13.15.16",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Memory an asynchronous op writes (a TMA/bulk copy into shared or global memory, a non-bulk cp.async into shared memory) may be accessed only after its completion is observed (mbarrier wait, bulk async-group wait, the issuing thread's cp.async.wait_group/wait_all or cp.async.mbarrier.arrive, then a synchronisation for other threads).",
    hardware: "The access sees old, new or partially copied data.",
    checked_by: Some("tmemu_check::dynamic::RaceObserver (tmemu_race)"),
};

pub const MBARRIER_INIT_RACE: Rule = Rule {
    id: "TM0214",
    name: "mbarrier-init-race",
    section: "§9.7.13.15.9, §9.7.13.4 (fence.mbarrier_init), §8",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Every operation on an mbarrier other than its init (arrive, expect_tx, complete_tx by a thread, st.async, a TMA/bulk copy or tcgen05.commit, cp.async.mbarrier.arrive, test/try_wait, inval) must happen after its mbarrier.init. A CTA-local bar.sync orders the init only for its own CTA: another CTA of the cluster needs fence.mbarrier_init.release.cluster (or a release) then barrier.cluster.arrive + wait between the init and its first remote operation (CUTLASS's cluster_sync after the pipeline init). Found by happens-before ordering, in every schedule; TM0220 reports the schedules where the operation actually ran first.",
    hardware: "In a schedule where the remote operation arrives first it acts on uninitialised bytes and the init then erases it: a lost arrival or lost transaction bytes, a hang or a phase that completes early.",
    checked_by: Some("tmemu_check::dynamic::RaceObserver (tmemu_race)"),
};

// mbarrier and cluster-barrier rules reported by the engine (tmemu_sim), sync.md §7–§8.

pub const MBARRIER_UNINITIALIZED: Rule = Rule {
    id: "TM0220",
    name: "mbarrier-uninitialized",
    section: "§9.7.13.15",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "An mbarrier operation other than init (arrive, expect_tx, complete_tx, test/try_wait) on shared memory that holds no initialised mbarrier.",
    hardware: "Undefined behaviour: the operation acts on whatever bytes are there.",
    checked_by: Some("tmemu_sim"),
};

pub const MBARRIER_REINIT: Rule = Rule {
    id: "TM0221",
    name: "mbarrier-reinit",
    section: "§9.7.13.15.9",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "mbarrier.init on an mbarrier that is still valid (initialised and not invalidated with mbarrier.inval).",
    hardware: "Undefined behaviour: waiters and in-flight arrivals see a reset phase.",
    checked_by: Some("tmemu_sim"),
};

pub const MBARRIER_COUNT_RANGE: Rule = Rule {
    id: "TM0222",
    name: "mbarrier-count-range",
    section: "§9.7.13.15.2, §9.7.13.15.9, §9.7.13.15.13",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "An mbarrier init count or arrive count outside [1, 2^20-1].",
    hardware: "Undefined behaviour.",
    checked_by: Some("tmemu_sim"),
};

pub const MBARRIER_OVERARRIVE: Rule = Rule {
    id: "TM0223",
    name: "mbarrier-overarrive",
    section: "§9.7.13.15.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "An arrive makes the pending count of the current phase negative: more arrivals than the barrier expects in one phase (DERIVED from the count's range, minimum 0).",
    hardware: "Undefined behaviour: the extra arrival may complete a later phase early.",
    checked_by: Some("tmemu_sim"),
};

pub const MBARRIER_TX_RANGE: Rule = Rule {
    id: "TM0224",
    name: "mbarrier-tx-range",
    section: "§9.7.13.15.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "The mbarrier tx-count leaves its range [-(2^20-1), 2^20-1] (expect_tx overflow, far more bytes completed than expected).",
    hardware: "Undefined behaviour.",
    checked_by: Some("tmemu_sim"),
};

pub const MBARRIER_HANG: Rule = Rule {
    id: "TM0225",
    name: "mbarrier-hang",
    section: "§9.7.13.15.16",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A thread waits on an mbarrier phase that can never complete: pending arrivals or transaction bytes that no live thread or in-flight asynchronous operation can deliver (DERIVED, sync.md §7.5).",
    hardware: "The waiting warps spin forever: the kernel hangs.",
    checked_by: Some("tmemu_sim"),
};

pub const MBARRIER_MISALIGNED: Rule = Rule {
    id: "TM0226",
    name: "mbarrier-misaligned",
    section: "§9.7.13.15.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "An mbarrier object must be 8-byte aligned in shared memory.",
    hardware: "Undefined behaviour.",
    checked_by: Some("tmemu_sim"),
};

pub const MBARRIER_REMOTE_WAIT: Rule = Rule {
    id: "TM0227",
    name: "mbarrier-remote-wait",
    section: "§9.7.13.15.8",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "test_wait/try_wait, init, inval and pending_count may only target an mbarrier in the executing CTA's own shared memory, not a peer CTA's.",
    hardware: "Undefined behaviour.",
    checked_by: Some("tmemu_sim"),
};

pub const MBARRIER_NOCOMPLETE_COMPLETES: Rule = Rule {
    id: "TM0228",
    name: "mbarrier-nocomplete-completes",
    section: "§9.7.13.15.13",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "An mbarrier.arrive.noComplete must not be the arrival that completes the phase.",
    hardware: "Undefined behaviour.",
    checked_by: Some("tmemu_sim"),
};

pub const CLUSTER_BARRIER_DOUBLE_ARRIVE: Rule = Rule {
    id: "TM0229",
    name: "cluster-barrier-double-arrive",
    section: "§9.7.13.3",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A thread arrives on barrier.cluster a second time before the barrier it arrived on has completed (each thread arrives at most once per barrier instance).",
    hardware: "Undefined behaviour: the arrival may be counted towards the wrong barrier instance.",
    checked_by: Some("tmemu_sim"),
};

pub const CLC_TRY_CANCEL_AFTER_FAILURE: Rule = Rule {
    id: "TM0230",
    name: "clc-try-cancel-after-failure",
    section: "§9.7.13.17",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A CTA must not issue clusterlaunchcontrol.try_cancel after it has observed the completion of an earlier try_cancel as failed (tmemu: a thread of the CTA read a failed response with query_cancel.is_canceled).",
    hardware: "Undefined behaviour per the ISA (\"the behavior of issuing a subsequent clusterlaunchcontrol.try_cancel instruction is undefined\").",
    checked_by: Some("tmemu_sim (exec/clc.rs)"),
};

pub const SHARED_CLUSTER_PEER_EXITED: Rule = Rule {
    id: "TM0231",
    name: "shared-cluster-peer-exited",
    section: "§5.1.5, §9.7.9.8 (ld/st .shared::cluster)",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A .shared::cluster access (ld/st/atom, mbarrier arrive, bulk or TMA copy, st.async) must not target the shared memory of a CTA of the cluster that has already exited: shared memory is owned by an executing CTA, so a CTA whose memory peers still use must wait for them (a cluster barrier before exit).",
    hardware: "The peer's shared memory no longer exists: the access faults (\"unspecified launch failure\", triton-lang/triton#11730) or reaches a CTA launched in its place.",
    checked_by: Some("tmemu_sim (exec/memory.rs resolve)"),
};

pub const MBARRIER_PHASE_SKIPPED: Rule = Rule {
    id: "TM0232",
    name: "mbarrier-phase-skipped",
    section: "§9.7.13.15.4",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "An arrive-on operation (mbarrier.arrive, its expect_tx form, a tcgen05.commit arrive) lands in phase p+1 of an mbarrier before any test_wait/try_wait returned true for phase p (\"for each phase of the mbarrier object, at least one test_wait or try_wait operation must be performed which returns True for waitComplete before an arrive-on operation in the subsequent phase\"; sync.md MB-PHASE-SKIP).",
    hardware: "Undefined behaviour per the ISA. In practice more arrivals per round than the count expects complete several phases at once: a waiter's parity then names a phase that has already passed or not yet begun, so it hangs or proceeds early.",
    checked_by: Some("tmemu_sim (exec/sync.rs, exec/tcgen05/commit.rs)"),
};

pub const MBARRIER_MEMORY_REUSED: Rule = Rule {
    id: "TM0233",
    name: "mbarrier-memory-reused",
    section: "§9.7.13.15.10",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A write into shared memory overlaps the 8 bytes of an mbarrier object that is still valid: initialised and not invalidated since (\"An mbarrier object must be invalidated before using its memory location for any other purpose\", mbarrier.inval; sync.md MB-NONMBAR-ACCESS). After mbarrier.inval the bytes are free; a later mbarrier.init makes them a barrier again. Checked for st in every form (.shared{::cta}, generic, .shared::cluster into a peer CTA's barrier), st.bulk, st.async and red.async, wmma.store, scalar atom/red on shared memory, cp.async, cp.async.bulk into shared memory and cp.async.bulk.tensor loads (multicast included; only the bytes the box writes). Not checked: reads of a barrier's bytes, stmatrix, 128-bit and vector atomics, cp.reduce.async.bulk{.tensor} into shared memory.",
    hardware: "Undefined behaviour per the ISA. Triton added mbarrier.inval after each barrier's last use because reuse of the barrier's shared bytes without it was \"suspected to be causing sporadic memory corruptions\" (triton-lang/triton PR #3858).",
    checked_by: Some("tmemu_sim (exec/sync.rs mbar_overwritten, called from exec/memory.rs, exec/tma.rs)"),
};

pub const ASYNC_SMEM_READ_AT_EXIT: Rule = Rule {
    id: "TM0234",
    name: "async-smem-read-at-exit",
    section: "§9.7.16.12.1 (tcgen05.commit), §9.7.9.27 (cp.async.bulk), §5.1.5 (shared memory: the CTA's lifetime)",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "An asynchronous operation that reads the CTA's shared memory and completes through an mbarrier (a tcgen05.mma or tcgen05.cp operand, observed by tcgen05.commit + mbarrier wait; the source of a bulk copy with mbarrier completion) must have finished reading before the CTA exits: a thread of the CTA observes its completion, or a synchronisation hands such an observation to the CTA, before the CTA's last thread exits. Found by happens-before ordering against the exit of the CTA's last warp, in every schedule (DERIVED from the shared memory's lifetime: docs/arch/race.md). .bulk_group copies (TMA stores): TM0235.",
    hardware: "The CTA's shared memory is released at its exit and may be handed to the next CTA scheduled on the SM, which overwrites it while the operation still reads it.",
    checked_by: Some("tmemu_check::dynamic::RaceObserver (tmemu_race exit_watch.rs)"),
};

pub const ASYNC_SMEM_UNWAITED_AT_EXIT: Rule = Rule {
    id: "TM0235",
    name: "async-smem-unwaited-at-exit",
    section: "§9.7.9.27.2.2 (cp.async.bulk.wait_group{.read}), §9.7.9.25.3 (cp.async), §9.7.9.27 (cp.async.bulk), §5.1.5 (shared memory: the CTA's lifetime)",
    severity: Severity::Warning,
    detection: Detection::Dynamic,
    summary: "An asynchronous operation that writes the CTA's shared memory (a TMA load or bulk copy into it, multicast included, st.async, a CLC response, cp.async) should be observed before the CTA exits: the mbarrier wait of its complete_tx, the issuing thread's cp.async.wait_group/wait_all, or a synchronisation that hands such an observation to the CTA, before its last thread exits (CUTLASS's producer tail waits for every stage it filled). Also the source read of a .bulk_group copy (TMA store, bulk copy or reduction to global memory) whose issuing thread never executes cp.async.bulk.wait_group{.read} after it (Triton's and the CUDA Programming Guide's TMA stores wait with 0 before the kernel ends). A warning: the ISA does not say what happens to such an access once the CTA has exited, and NVIDIA's CUTLASS sm100 epilogues leave their last TMA store group in flight at exit after wait_group.read 1, which tmemu accepts (DERIVED: docs/arch/race.md).",
    hardware: "The access may reach shared memory the SM has already given to the next CTA: a load corrupts that CTA's data or barriers (a pipelined loop that prefetches one stage too many), a store may send that CTA's data to global memory.",
    checked_by: Some("tmemu_check::dynamic::RaceObserver (tmemu_race exit_watch.rs)"),
};

// ----------------------------------------------------------------------------------------
// TM03xx — mma and descriptors (descriptors.md, mma.md; checked by tmemu_tmem::desc)

pub const SMEM_DESC_VERSION: Rule = Rule {
    id: "TM0301",
    name: "smem-desc-version",
    section: "§9.7.16.4.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Bits 46-48 of a shared memory matrix descriptor must be the fixed value 0b001 (descriptors.md §1).",
    hardware: "Not specified; a Hopper-style (wgmma) descriptor is misread by tcgen05 (undefined behaviour).",
    checked_by: Some("tmemu_tmem::desc"),
};

pub const SMEM_DESC_RESERVED_BITS: Rule = Rule {
    id: "TM0302",
    name: "smem-desc-reserved-bits",
    section: "§9.7.16.4.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Unused shared memory descriptor bits (14-15, 30-31, 53-60) must be zero.",
    hardware: "Not specified by the ISA (reserved encodings).",
    checked_by: Some("tmemu_tmem::desc"),
};

pub const SMEM_DESC_LAYOUT: Rule = Rule {
    id: "TM0303",
    name: "smem-desc-layout",
    section: "§9.7.16.4.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "The descriptor's layout type (bits 61-63) must be 0, 1, 2, 4 or 6.",
    hardware: "Not specified by the ISA (invalid swizzle encoding).",
    checked_by: Some("tmemu_tmem::desc"),
};

pub const SMEM_DESC_LBO_MODE: Rule = Rule {
    id: "TM0304",
    name: "smem-desc-lbo-mode",
    section: "§9.7.16.4.1.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Absolute leading-dimension offset mode (bit 52) is supported on sm_103a only; on sm_100a it must be 0.",
    hardware: "Not specified for sm_100a.",
    checked_by: Some("tmemu_tmem::desc"),
};

pub const SMEM_DESC_BASE_OFFSET: Rule = Rule {
    id: "TM0305",
    name: "smem-desc-base-offset",
    section: "§9.7.16.4.1 (tmemu limit, not a PTX ISA rule)",
    severity: Severity::Warning,
    detection: Detection::Dynamic,
    summary: "A non-zero matrix base offset (bits 49-51) is not modelled by tmemu (its address arithmetic is UNCONFIRMED); the MMA is not executed and the run is incomplete.",
    hardware: "Legal: the swizzle pattern phase is shifted; tmemu cannot say how.",
    checked_by: Some("tmemu_tmem::desc"),
};

pub const IDESC_RESERVED_BITS: Rule = Rule {
    id: "TM0306",
    name: "idesc-reserved-bits",
    section: "§9.7.16.4.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Reserved instruction-descriptor bits must be zero (bit 6, 23, 29; block-scaled: 0-1, 3, 6, and 31 for mxf8f6f4 or 12 for mxf4*).",
    hardware: "Not specified by the ISA (reserved encodings).",
    checked_by: Some("tmemu_tmem::desc"),
};

pub const IDESC_TYPE: Rule = Rule {
    id: "TM0307",
    name: "idesc-type",
    section: "§9.7.16.4.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "The A, B and D type codes of the instruction descriptor must be legal for the .kind (f16 accumulator needs f16 A and B).",
    hardware: "Not specified by the ISA (invalid type encoding).",
    checked_by: Some("tmemu_tmem::desc"),
};

pub const MMA_SHAPE: Rule = Rule {
    id: "TM0308",
    name: "mma-shape",
    section: "§9.7.16.2.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "M and N of the instruction descriptor must be legal for the .kind, .cta_group, sparsity and .ws variant (Table 39; 8-bit MN-major B restricts N, Table 52).",
    hardware: "Not specified by the ISA (unsupported shape).",
    checked_by: Some("tmemu_tmem::desc"),
};

pub const IDESC_NEGATE_I8: Rule = Rule {
    id: "TM0309",
    name: "idesc-negate-i8",
    section: "§9.7.16.10.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "The negate bits must be 0 with .kind::i8.",
    hardware: "Not specified by the ISA.",
    checked_by: Some("tmemu_tmem::desc"),
};

pub const MMA_TRANSPOSE: Rule = Rule {
    id: "TM0310",
    name: "mma-transpose",
    section: "§9.7.16.10.1",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "MN-major (transposed) operands are illegal for mxf4/mxf4nvf4 and 4/6-bit types; MN-major tf32 needs 128B swizzle with 32B atoms, MN-major 8/16-bit types must not use it (Table 54).",
    hardware: "Not specified by the ISA.",
    checked_by: Some("tmemu_tmem::desc"),
};

pub const IDESC_FIELD: Rule = Rule {
    id: "TM0311",
    name: "idesc-field",
    section: "§9.7.16.4.2",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Instruction-descriptor fields must be used only where they exist: sparsity selector only when sparse, saturate only for i8, max-shift only for .ws, K=96 only for mxf4/mxf4nvf4 M=256 on sm_103a; the sparsity flag set exactly for tcgen05.mma.sp.",
    hardware: "Not specified by the ISA.",
    checked_by: Some("tmemu_tmem::desc"),
};

pub const IDESC_SCALE: Rule = Rule {
    id: "TM0312",
    name: "idesc-scale",
    section: "§9.7.16.10.7",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Block-scaled kinds: the scale type must be ue8m0 (ue4m3 only with mxf4nvf4) and scale-factor IDs must be 0 or 2 for mxf4/mxf4nvf4.",
    hardware: "Not specified by the ISA.",
    checked_by: Some("tmemu_tmem::desc"),
};

pub const MMA_LANE_ALIGN: Rule = Rule {
    id: "TM0314",
    name: "mma-lane-align",
    section: "§9.7.16.10.5",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "The lane field of tcgen05.mma's D address must be 0, or 0 or 16 for the half-lane layouts F (M=64) and C (cta_group::2 sparse M=128).",
    hardware: "Not specified by the ISA (misaligned datapath).",
    checked_by: Some("tmemu_tmem::mma"),
};

// ----------------------------------------------------------------------------------------
// TM04xx — static and target rules (tmem.md §7 rules 13, 21–26, 29–32)

pub const MIXED_CTA_GROUP: Rule = Rule {
    id: "TM0401",
    name: "mixed-cta-group",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Static,
    summary: "All tcgen05 instructions of a kernel (and the functions it calls) must use the same .cta_group (tmem.md rule 13).",
    hardware: "ptxas rejects the kernel (\"uses single CTA(.cta_group::1) and CTA pair granularity(.cta_group::2)\").",
    checked_by: Some("tmemu_check"),
};

pub const LDST_VECTOR_LENGTH: Rule = Rule {
    id: "TM0402",
    name: "ldst-vector-length",
    section: "§9.7.16.8.3",
    severity: Severity::Error,
    detection: Detection::Static,
    summary: "tcgen05.ld/st register vector length must match shape × num, and the shape/num combination must exist (tmem.md rule 21).",
    hardware: "ptxas rejects it (\"Argument vector size mismatch\", \"Modifier .xN not allowed\").",
    checked_by: Some("tmemu_check, tmemu_tmem::layout"),
};

pub const HALF_SPLITOFF_NOT_IMMEDIATE: Rule = Rule {
    id: "TM0403",
    name: "half-splitoff-not-immediate",
    section: "§9.7.16.8.3",
    severity: Severity::Error,
    detection: Detection::Static,
    summary: ".16x32bx2 ld/st must carry an immediate immHalfSplitoff (tmem.md rule 22).",
    hardware: "ptxas rejects it.",
    checked_by: Some("tmemu_check"),
};

pub const PACK_UNPACK_MISPLACED: Rule = Rule {
    id: "TM0404",
    name: "pack-unpack-misplaced",
    section: "§9.7.16.8.3",
    severity: Severity::Error,
    detection: Detection::Static,
    summary: ".pack::16b only on tcgen05.ld, .unpack::16b only on tcgen05.st (tmem.md rule 23).",
    hardware: "ptxas rejects it.",
    checked_by: Some("tmemu_check"),
};

pub const LD_RED_INVALID: Rule = Rule {
    id: "TM0405",
    name: "ld-red-invalid",
    section: "§9.7.16.8.3",
    severity: Severity::Error,
    detection: Detection::Static,
    summary: "tcgen05.ld.red needs shape .32x32b or .16x32bx2, num ≥ .x2, no .pack::16b, .abs/.NaN only with .f32, and a supporting target (tmem.md rule 24).",
    hardware: "ptxas rejects each broken form.",
    checked_by: Some("tmemu_check"),
};

pub const CP_SHAPE_MULTICAST: Rule = Rule {
    id: "TM0406",
    name: "cp-shape-multicast",
    section: "§9.7.16.9.2",
    severity: Severity::Error,
    detection: Detection::Static,
    summary: "tcgen05.cp .64x128b needs .warpx2::02_13/01_23, .32x128b needs .warpx4, other shapes take no multicast (tmem.md rule 25).",
    hardware: "ptxas rejects it.",
    checked_by: Some("tmemu_check, tmemu_tmem::layout"),
};

pub const CP_FORMAT_PAIR: Rule = Rule {
    id: "TM0407",
    name: "cp-format-pair",
    section: "§9.7.16.9.2",
    severity: Severity::Error,
    detection: Detection::Static,
    summary: "tcgen05.cp decompression qualifiers come as the pair .b8x16.<src> in that order (tmem.md rule 26).",
    hardware: "ptxas rejects it.",
    checked_by: Some("tmemu_check"),
};

pub const COMMIT_MULTICAST_MASK: Rule = Rule {
    id: "TM0408",
    name: "commit-multicast-mask",
    section: "§9.7.16.12.1",
    severity: Severity::Error,
    detection: Detection::Static,
    summary: "tcgen05.commit has .multicast::cluster exactly when it has a 16-bit ctaMask operand (tmem.md rule 29).",
    hardware: "ptxas rejects it.",
    checked_by: Some("tmemu_check"),
};

pub const TARGET_UNSUPPORTED: Rule = Rule {
    id: "TM0409",
    name: "target-unsupported",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Static,
    summary: "tcgen05 instructions need a supporting .target and .version (targets.md) (tmem.md rule 30); so do atom/red with a vector type .v2/.v4/.v8 (sm_90, PTX ISA 8.1) and atom/red .noftz.f32 (sm_90, PTX ISA 9.4) (§9.7.13.5-6 target notes).",
    hardware: "ptxas rejects it (\"not supported on .target\", \"requires PTX ISA .version 8.6 or later\", \"Feature 'red instruction with vector types' requires .target sm_90 or higher\", \"Feature 'red with .noftz and .f32' requires PTX ISA .version 9.4 or later\").",
    checked_by: Some("tmemu_check"),
};

pub const MISSING_QUALIFIER: Rule = Rule {
    id: "TM0410",
    name: "missing-qualifier",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Static,
    summary: "Mandatory qualifiers (.sync.aligned, .cta_group::N, .b32) must be present (tmem.md rule 31).",
    hardware: "ptxas rejects it.",
    checked_by: Some("tmemu_check"),
};

pub const ALLOC_STATE_SPACE: Rule = Rule {
    id: "TM0411",
    name: "alloc-state-space",
    section: "§9.7.16.7.1",
    severity: Severity::Error,
    detection: Detection::Static,
    summary: "tcgen05.alloc with an explicit state space must use .shared::cta (tmem.md rule 32).",
    hardware: "ptxas rejects it (\"State space incorrect ..., expected '.shared::cta'\").",
    checked_by: Some("tmemu_check"),
};

pub const MBARRIER_CLUSTER_ARRIVE_STATE: Rule = Rule {
    id: "TM0412",
    name: "mbarrier-cluster-arrive-state",
    section: "§9.7.13.15.13",
    severity: Severity::Error,
    detection: Detection::Static,
    summary: "mbarrier.arrive / arrive_drop on a .shared::cluster mbarrier must use the sink `_` as its state destination (a remote barrier's state cannot be returned; sync.md MB-REMOTE-STATE).",
    hardware: "ptxas rejects it (\"Sink '_' is expected as a destination operand for instruction 'mbarrier.arrive' with '.shared::cluster'\").",
    checked_by: Some("tmemu_check (static_forms)"),
};

pub const MMA_QUALIFIER_COMBINATION: Rule = Rule {
    id: "TM0413",
    name: "mma-qualifier-combination",
    section: "§9.7.16.10.9.1, §9.7.16.10.7.1",
    severity: Severity::Error,
    detection: Detection::Static,
    summary: "tcgen05.mma qualifiers must combine as the ISA allows: .ashift only with A in TMEM, not on .ws, not with .collector::a::fill/use; the scale vector size must suit the block-scaled kind (mxf8f6f4: 1X/block32, mxf4: 2X/block32, mxf4nvf4: required, 2X/4X/block16/block32); an immediate scale-input-d lies in 0..15 and is refused with .kind::f8f6f4 (mma.md MMA-ASHIFT, MMA-SV, MMA-SID).",
    hardware: "ptxas rejects it (\"Illegal modifier '.ashift' ...\", \"Modifier '.kind::mxf4' cannot be combined with modifier '.scale_vec::1X'\", \"value '16' out of range, expected to be in range [0..15]\").",
    checked_by: Some("tmemu_check (static_forms)"),
};

// ----------------------------------------------------------------------------------------
// TM05xx — engine-level rules (reported by tmemu_sim)

pub const OUT_OF_BOUNDS_ACCESS: Rule = Rule {
    id: "TM0501",
    name: "out-of-bounds-access",
    section: "§5 (state spaces)",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A load, store or atomic touches memory outside every buffer or variable of its state space (global buffers, the CTA's shared memory, local, param, const).",
    hardware: "An illegal-address fault, or silent corruption of a neighbouring allocation.",
    checked_by: Some("tmemu_sim"),
};

pub const MISALIGNED_ACCESS: Rule = Rule {
    id: "TM0502",
    name: "misaligned-access",
    section: "§5.4.4 (alignment)",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A memory access whose address is not a multiple of its access size (vector width × element size).",
    hardware: "A misaligned-address fault.",
    checked_by: Some("tmemu_sim"),
};

pub const ADDRESS_OUTSIDE_SPACE: Rule = Rule {
    id: "TM0503",
    name: "address-outside-space",
    section: "§5.1 (state spaces), §9.7.9.20 (cvta)",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A generic or state-space address that does not fall in the window of the state space the instruction names, or a store to a read-only space.",
    hardware: "A fault, or an access to an unrelated location.",
    checked_by: Some("tmemu_sim"),
};

pub const BARRIER_DEADLOCK: Rule = Rule {
    id: "TM0504",
    name: "barrier-deadlock",
    section: "§9.7.13.1 (bar/barrier), §9.7.13.3 (barrier.cluster)",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Every live warp waits at a barrier (bar.sync/barrier.sync, barrier.cluster.wait) that can never complete, because the threads it expects have exited or wait elsewhere.",
    hardware: "The kernel hangs.",
    checked_by: Some("tmemu_sim"),
};

pub const TRAP: Rule = Rule {
    id: "TM0505",
    name: "trap",
    section: "§9.7.19.1 (trap)",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "The kernel executed trap.",
    hardware: "The launch is aborted with an error.",
    checked_by: Some("tmemu_sim"),
};

pub const STEP_BUDGET_EXHAUSTED: Rule = Rule {
    id: "TM0506",
    name: "step-budget-exhausted",
    section: TMEMU_LIMIT,
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "The run exceeded tmemu's step budget (--max-steps): a livelock or a very long run. The verdict is incomplete, never clean.",
    hardware: "A livelocked kernel runs forever.",
    checked_by: Some("tmemu_sim"),
};

pub const DIVERGENT_ALIGNED_INSTRUCTION: Rule = Rule {
    id: "TM0507",
    name: "divergent-aligned-instruction",
    section: "§9.7.13.1 (bar.sync .aligned), §9.7.13.3",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "An .aligned instruction (bar.sync, barrier.cluster, warp-synchronous collectives) executed by a divergent subset of the warp; or one instance of a named barrier completed by aligned blocking participants (bar.sync, bar.red, barrier.sync.aligned) at two different instructions (.aligned: all participating threads execute the same barrier instruction; role branches that meet at one barrier use the unaligned barrier.sync).",
    hardware: "Undefined behaviour: hangs or wrong synchronisation (compute-sanitizer synccheck reports a divergent barrier; mlc-ai/TIRx-kernels PR #21).",
    checked_by: Some("tmemu_sim"),
};

pub const INVALID_BARRIER_OPERAND: Rule = Rule {
    id: "TM0508",
    name: "invalid-barrier-operand",
    section: "§9.7.13.1 (bar/barrier)",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A named barrier id outside 0..15, or a thread count that is not a multiple of the warp size or smaller than the arriving threads.",
    hardware: "Undefined behaviour.",
    checked_by: Some("tmemu_sim"),
};

pub const SYNC_MEMBERMASK_MISMATCH: Rule = Rule {
    id: "TM0509",
    name: "sync-membermask-mismatch",
    section: "§9.7.9.6 (shfl.sync), §9.7.13.2 (bar.warp.sync)",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A .sync warp instruction executed by a lane that its membermask does not name, or whose membermask differs between the executing lanes.",
    hardware: "Undefined behaviour.",
    checked_by: Some("tmemu_sim"),
};

pub const CALL_DEPTH_EXCEEDED: Rule = Rule {
    id: "TM0510",
    name: "call-depth-exceeded",
    section: TMEMU_LIMIT,
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Calls nested deeper than tmemu's call-depth limit. The verdict is incomplete.",
    hardware: "A deep call chain may overflow the hardware call stack.",
    checked_by: Some("tmemu_sim"),
};

pub const UNMODELLED_FORM: Rule = Rule {
    id: "TM0511",
    name: "unmodelled-form",
    section: TMEMU_LIMIT,
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "An instruction whose operand values (a descriptor, a tensor map, an instruction descriptor) select a form tmemu does not model, e.g. a 96B-swizzle tensor map: tmemu cannot run it, so the verdict is incomplete.",
    hardware: "Depends on the form; tmemu cannot say.",
    checked_by: Some("tmemu_sim"),
};

pub const BARRIER_REARRIVE: Rule = Rule {
    id: "TM0512",
    name: "barrier-rearrive",
    section: "§9.7.13.1 (bar/barrier)",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "Threads of a warp that executed barrier{.cta}.arrive (bar.arrive) on a named barrier execute another barrier{.cta} instruction (arrive, sync or red) on the same barrier before that barrier instance completed (tmemu compares the lanes of each warp, so lanes of one warp arriving separately from divergent branches are not reported) (\"Care must be taken to keep a warp from executing more barrier{.cta} instructions than intended (barrier{.cta}.arrive followed by any other barrier{.cta} instruction to the same barrier) prior to the reset of the barrier\"). Typical cause: a producer that signals each tile with bar.arrive runs a tile ahead of the consumer's bar.sync.",
    hardware: "Unpredictable per the ISA. The surplus arrival is counted toward the current instance, which completes without the threads it was meant to wait for; a later instance starves and its waiters hang (flashinfer-ai/flashinfer PR #4732: IO warps parked on BAR.SYNC after the math warps exited).",
    checked_by: Some("tmemu_sim (exec/sync.rs)"),
};

pub const SETMAXNREG_HANG: Rule = Rule {
    id: "TM0513",
    name: "setmaxnreg-hang",
    section: "§9.7.19.5 (setmaxnreg)",
    severity: Severity::Error,
    detection: Detection::Dynamic,
    summary: "A warp waits in setmaxnreg.inc for registers its CTA's register pool can never supply (\"A pool of available registers is maintained per-CTA ... The setmaxnreg.inc instruction blocks the execution until enough registers are available in the CTA's register pool\"): the pool starts empty, setmaxnreg.dec releases a warp's registers above its new count into it, and the increases ask for more than the decreases (and exited warps, DERIVED) returned. tmemu counts each warp at the largest entry register count ptxas can have chosen (the .maxnreg directive, or 65536 / (the .maxntid/.reqntid threads x .minnctapersm), and 65536 / the launch's threads; a multiple of 8, at most 256), so a wait it reports hangs whatever count ptxas chose; without either directive ptxas ignores setmaxnreg (C7508) and so does tmemu. Typical cause: the consumer warpgroups increase and no other warpgroup decreases, or the producer's decrease is too small for the layout (e.g. a 24/240 split on a 512-thread CTA).",
    hardware: "The kernel hangs in setmaxnreg.inc (USETMAXREG.TRY_ALLOC spins forever; pytorch/helion PR #3620, tile-ai/tilelang PR #2406).",
    checked_by: Some("tmemu_sim (exec/sync.rs)"),
};

/// The `section` of a rule that is a limit of tmemu itself, not of the PTX ISA.
pub const TMEMU_LIMIT: &str = "(tmemu limit, not a PTX ISA rule)";

/// Every rule, sorted by ID.
pub static RULES: &[Rule] = &[
    NCOLS_NOT_POWER_OF_TWO,
    NCOLS_NOT_MULTIPLE_OF_32,
    NCOLS_OUT_OF_RANGE,
    NCOLS_NOT_UNIFORM,
    ALLOC_WARP_NOT_CONVERGED,
    ALLOC_WARP_LANE_EXITED,
    ALLOC_DST_NOT_SHARED_CTA,
    NCOLS_GROWS,
    ALLOC_AFTER_RELINQUISH,
    DEALLOC_NOT_LIVE,
    DEALLOC_NCOLS_MISMATCH,
    ALLOC_LEAK,
    ALLOC_CONCURRENT_WARPS,
    ALLOC_MULTIPLE_WARPS,
    PAIR_NO_PEER,
    PAIR_PEER_EXITED,
    PAIR_COLLECTIVE_MISMATCH,
    TADDR_NOT_UNIFORM,
    MISSING_RELINQUISH,
    TMEM_ALLOC_HANG,
    LDST_WARP_NOT_CONVERGED,
    LDST_TADDR_NOT_UNIFORM,
    LANE_QUARTER_VIOLATION,
    SHIFT_LANE_NOT_MULTIPLE_OF_32,
    ACCESS_UNALLOCATED_COLUMNS,
    TMA_COORDS_RANK,
    TMA_SMEM_MISALIGNED,
    TMA_BOX_EXCEEDS_SWIZZLE,
    TMA_MAP_INVALID,
    TMA_MBARRIER_MISALIGNED,
    TMA_REDUCE_TYPE,
    TMA_SMEM_OUT_OF_BOUNDS,
    TMA_GLOBAL_FAULT,
    TMA_MULTICAST_MASK,
    TMA_BOX_START_MISALIGNED,
    TMA_STORE_OUTSIDE_TENSOR,
    BULK_SHARED_CLUSTER_WITHOUT_CLUSTER,
    PAIR_DEALLOC_UNSYNCHRONISED,
    PAIR_PEER_INACTIVE,
    COMMIT_MBAR_NOT_SHARED_CLUSTER,
    TMEM_ACCESS_RACE,
    TMEM_OVERWRITE_BEFORE_WAIT_LD,
    TMEM_UNFINISHED_WRITE,
    TMEM_TCGEN05_FENCE_MISSING,
    PROXY_FENCE_MISSING,
    ASYNC_READ_OVERWRITTEN,
    ALLOC_ADDRESS_UNSYNCHRONISED,
    SHARED_DATA_RACE,
    GLOBAL_DATA_RACE,
    ASYNC_WRITE_IN_FLIGHT,
    MBARRIER_INIT_RACE,
    MBARRIER_UNINITIALIZED,
    MBARRIER_REINIT,
    MBARRIER_COUNT_RANGE,
    MBARRIER_OVERARRIVE,
    MBARRIER_TX_RANGE,
    MBARRIER_HANG,
    MBARRIER_MISALIGNED,
    MBARRIER_REMOTE_WAIT,
    MBARRIER_NOCOMPLETE_COMPLETES,
    CLUSTER_BARRIER_DOUBLE_ARRIVE,
    CLC_TRY_CANCEL_AFTER_FAILURE,
    SHARED_CLUSTER_PEER_EXITED,
    MBARRIER_PHASE_SKIPPED,
    MBARRIER_MEMORY_REUSED,
    ASYNC_SMEM_READ_AT_EXIT,
    ASYNC_SMEM_UNWAITED_AT_EXIT,
    SMEM_DESC_VERSION,
    SMEM_DESC_RESERVED_BITS,
    SMEM_DESC_LAYOUT,
    SMEM_DESC_LBO_MODE,
    SMEM_DESC_BASE_OFFSET,
    IDESC_RESERVED_BITS,
    IDESC_TYPE,
    MMA_SHAPE,
    IDESC_NEGATE_I8,
    MMA_TRANSPOSE,
    IDESC_FIELD,
    IDESC_SCALE,
    MMA_LANE_ALIGN,
    MIXED_CTA_GROUP,
    LDST_VECTOR_LENGTH,
    HALF_SPLITOFF_NOT_IMMEDIATE,
    PACK_UNPACK_MISPLACED,
    LD_RED_INVALID,
    CP_SHAPE_MULTICAST,
    CP_FORMAT_PAIR,
    COMMIT_MULTICAST_MASK,
    TARGET_UNSUPPORTED,
    MISSING_QUALIFIER,
    ALLOC_STATE_SPACE,
    MBARRIER_CLUSTER_ARRIVE_STATE,
    MMA_QUALIFIER_COMBINATION,
    OUT_OF_BOUNDS_ACCESS,
    MISALIGNED_ACCESS,
    ADDRESS_OUTSIDE_SPACE,
    BARRIER_DEADLOCK,
    TRAP,
    STEP_BUDGET_EXHAUSTED,
    DIVERGENT_ALIGNED_INSTRUCTION,
    INVALID_BARRIER_OPERAND,
    SYNC_MEMBERMASK_MISMATCH,
    CALL_DEPTH_EXCEEDED,
    UNMODELLED_FORM,
    BARRIER_REARRIVE,
    SETMAXNREG_HANG,
];

/// The rule with this ID (exact, case-sensitive), if catalogued.
pub fn lookup(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// The rule with this name (e.g. "alloc-leak"), if catalogued.
pub fn lookup_name(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_well_formed_unique_and_sorted() {
        for w in RULES.windows(2) {
            assert!(
                w[0].id < w[1].id,
                "{} must sort before {}",
                w[0].id,
                w[1].id
            );
        }
        for r in RULES {
            assert_eq!(r.id.len(), 6, "{}", r.id);
            assert!(r.id.starts_with("TM"), "{}", r.id);
            assert!(r.id[2..].bytes().all(|b| b.is_ascii_digit()), "{}", r.id);
            // Every rule cites its PTX ISA section, except tmemu's own resource limits (step
            // budget, call depth), which end a run `incomplete` and say so.
            assert!(
                r.section.starts_with('§') || r.section == TMEMU_LIMIT,
                "{}: section {}",
                r.id,
                r.section
            );
            assert!(
                r.name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{}: name {}",
                r.id,
                r.name
            );
            assert!(!r.summary.is_empty() && !r.hardware.is_empty(), "{}", r.id);
        }
        let mut names: Vec<_> = RULES.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RULES.len(), "rule names must be unique");
    }

    #[test]
    fn lookup_finds_by_id_and_name() {
        assert_eq!(lookup("TM0009").unwrap().name, "alloc-after-relinquish");
        assert_eq!(lookup_name("alloc-leak").unwrap().id, "TM0012");
        assert!(lookup("TM9999").is_none());
        assert!(lookup("tm0009").is_none());
    }
}
