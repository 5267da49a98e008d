//! Decoding of the tensor-copy family (a child module of `decode`, whose context `D` it uses):
//! `cp.async.bulk.tensor` loads and stores, `cp.reduce.async.bulk.tensor`,
//! `cp.async.bulk.prefetch{.tensor}`, `tensormap.replace`, `tensormap.cp_fenceproxy`.
//! Syntax: PTX ISA 9.1 §9.7.9.25.5 (bulk tensor copies), §9.7.9.28 (tensormap.replace),
//! §9.7.13.4 (tensormap.cp_fenceproxy); `shared/spec/bulk-copies.md`.

use tmemu_ptx::ast::OperandKind;
use tmemu_tma::{CtaGroup, ReduceOp, ReplaceField};

use super::{invalid, Sym, VarSpace, D, R};
use crate::exec::tma::{BulkReduceInst, TensormapInst, TmaInst, TmaOp};
use crate::program::{Addr, Any, Inst, Space, S32};

/// Dimension count from the `.1d`..`.5d` modifier.
fn dims(d: &D<'_, '_, '_, '_>) -> Option<usize> {
    d.mods.iter().find_map(|m| match *m {
        "1d" => Some(1),
        "2d" => Some(2),
        "3d" => Some(3),
        "4d" => Some(4),
        "5d" => Some(5),
        _ => None,
    })
}

/// `[tensorMap, {c0, ..}]`: the map's address (with the space a directly named variable lives
/// in; a register holds a generic address) and the coordinate registers.
fn map_and_coords(d: &D<'_, '_, '_, '_>, n: usize, rank: usize) -> R<(Addr, Space, Vec<S32>)> {
    let o = d.op(n)?;
    let OperandKind::Address(a) = &o.kind else {
        return invalid("expected `[tensorMap, {coordinates}]`", o.span);
    };
    let Some(base) = a.base else {
        return invalid("the tensor map operand needs a name or register", o.span);
    };
    let (addr, space) = match d.lookup(base.name, base.span)? {
        Sym::R64(r) => (Any::R64(r), Space::Generic),
        Sym::R32(r) => (Any::R32(r), Space::Generic),
        // A `.param` grid constant, a `.const` or a `.global` variable named directly.
        Sym::Var(VarSpace::KParam, v) => (Any::Imm(v), Space::Param),
        Sym::Var(VarSpace::Const, v) => (Any::Imm(v), Space::Const),
        Sym::Var(VarSpace::Global, v) => (Any::Imm(v), Space::Global),
        _ => {
            return invalid(
                format!(
                    "`{}` cannot hold a tensor map (param, const or global)",
                    base.name
                ),
                base.span,
            )
        }
    };
    let coords = match a.rest.as_slice() {
        [c] => match &c.kind {
            OperandKind::Vector(v) => v,
            _ => return invalid("tensor coordinates must be a vector `{..}`", c.span),
        },
        _ => return invalid("expected `[tensorMap, {coordinates}]`", o.span),
    };
    if coords.len() != rank {
        return invalid(
            format!(
                "expected {rank} tensor coordinates (one per dimension of the .Nd modifier; 5 for gather4/scatter4), found {}",
                coords.len()
            ),
            o.span,
        );
    }
    let mut cs = Vec::with_capacity(rank);
    for c in coords {
        cs.push(match d.any(c)? {
            Any::R32(r) => S32::R(r),
            Any::Imm(v) => S32::I(v as u32),
            _ => return invalid("a tensor coordinate is a 32-bit value", c.span),
        });
    }
    Ok((
        Addr {
            base: addr,
            offset: a.offset,
        },
        space,
        cs,
    ))
}

/// The copy's mode: `.tile` (default), `.im2col` (loads, prefetch), `.im2col_no_offs`
/// (stores, reductions), `.tile::gather4` (loads) or `.tile::scatter4` (stores). The wide
/// im2col modes are a load-time `unsupported`, never a silent tile copy.
fn mode(d: &D<'_, '_, '_, '_>) -> R<Mode> {
    let mut mode = Mode::Tile;
    for m in &d.mods {
        match *m {
            "im2col" => mode = Mode::Im2col,
            "im2col_no_offs" => mode = Mode::Im2colNoOffs,
            "tile::gather4" => mode = Mode::Gather4,
            "tile::scatter4" => mode = Mode::Scatter4,
            m if m.starts_with("im2col") || m.starts_with("tile::") => {
                return d.unsup_why("the .im2col::w and .im2col::w::128 modes are not modelled");
            }
            _ => {}
        }
    }
    Ok(mode)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Tile,
    Im2col,
    Im2colNoOffs,
    Gather4,
    Scatter4,
}

/// `{offW, offH, offD}`: the im2colInfo operand of an `.im2col` load or prefetch, one 16-bit
/// offset per spatial dimension (rank − 2; PTX 9.1 §9.7.9.27.1.2).
fn im2col_offsets(d: &D<'_, '_, '_, '_>, n: usize, rank: usize) -> R<Vec<S32>> {
    let o = d.op(n)?;
    let OperandKind::Vector(v) = &o.kind else {
        return invalid(
            "expected the im2col offsets `{..}` (one per spatial dimension)",
            o.span,
        );
    };
    if rank < 3 || v.len() != rank - 2 {
        return invalid(
            format!(
                "a .{rank}d .im2col copy takes {} im2col offsets, not {}",
                rank.saturating_sub(2),
                v.len()
            ),
            o.span,
        );
    }
    let mut out = Vec::with_capacity(v.len());
    for c in v {
        out.push(match d.any(c)? {
            Any::R32(r) => S32::R(r),
            Any::Imm(x) => S32::I(x as u32),
            _ => return invalid("an im2col offset is a 16-bit value", c.span),
        });
    }
    Ok(out)
}

/// `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor`, `cp.async.bulk.prefetch{.tensor}`.
pub(super) fn cp_tensor(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if !d.has("async") || !d.has("bulk") {
        return d.unsup();
    }
    if d.has("prefetch") && !d.has("tensor") {
        // cp.async.bulk.prefetch.L2.global [a], size: a cache hint with no visible effect.
        return Ok(Inst::Nop);
    }
    let mode = mode(d)?;
    let Some(rank) = dims(d) else {
        return invalid(
            "cp.async.bulk.tensor needs a .1d-.5d modifier",
            d.i.opcode_span,
        );
    };
    let rows4 = matches!(mode, Mode::Gather4 | Mode::Scatter4);
    if rows4 && rank != 2 {
        return invalid(
            ".tile::gather4 and .tile::scatter4 copies are .2d",
            d.i.opcode_span,
        );
    }
    // {col, row0, row1, row2, row3} for gather4/scatter4.
    let ncoords = if rows4 { 5 } else { rank };
    let group = if d.has("cta_group::2") {
        CtaGroup::Two
    } else {
        CtaGroup::One
    };
    // Stores and reductions read an im2col box with zero offsets (`.im2col_no_offs`).
    let no_offs = || (mode == Mode::Im2colNoOffs).then(Vec::new);
    if d.has("prefetch") {
        let (map, map_space, coords) = map_and_coords(d, 0, ncoords)?;
        // cp.async.bulk.prefetch.tensor [map, coords] {, im2colInfo} {, cache-policy}
        let im2col = match mode {
            Mode::Im2col => Some(im2col_offsets(d, 1, rank)?),
            _ => None,
        };
        return Ok(Inst::Tma(Box::new(TmaInst {
            op: TmaOp::Prefetch,
            map,
            map_space,
            coords,
            group,
            im2col,
            rows4,
        })));
    }
    if mode == Mode::Im2col
        && (d.has("reduce")
            || !d
                .mods
                .iter()
                .any(|m| m.starts_with("mbarrier::complete_tx")))
    {
        return invalid(
            ".im2col is a load mode (stores and reductions use .im2col_no_offs)",
            d.i.opcode_span,
        );
    }
    // `.dst.src`: the first state-space modifier is the destination.
    let first = d
        .mods
        .iter()
        .find(|m| m.starts_with("shared") || **m == "global")
        .copied()
        .unwrap_or("");
    if d.i.name == "cp" && d.has("reduce") {
        let Some(op) = d.mods.iter().find_map(|m| ReduceOp::from_name(m)) else {
            return d.unsup_why("unknown reduction");
        };
        let (map, map_space, coords) = map_and_coords(d, 0, ncoords)?;
        return Ok(Inst::Tma(Box::new(TmaInst {
            op: TmaOp::Reduce {
                op,
                src: d.addr(1)?,
            },
            map,
            map_space,
            coords,
            group,
            im2col: no_offs(),
            rows4,
        })));
    }
    if rows4 && (first == "global") != (mode == Mode::Scatter4) {
        return invalid(
            ".tile::gather4 is a load mode and .tile::scatter4 a store mode",
            d.i.opcode_span,
        );
    }
    if first == "global" {
        let (map, map_space, coords) = map_and_coords(d, 0, ncoords)?;
        return Ok(Inst::Tma(Box::new(TmaInst {
            op: TmaOp::Store { src: d.addr(1)? },
            map,
            map_space,
            coords,
            group,
            im2col: no_offs(),
            rows4,
        })));
    }
    if !d
        .mods
        .iter()
        .any(|m| m.starts_with("mbarrier::complete_tx"))
    {
        return d.unsup_why("a tensor load completes through an mbarrier");
    }
    if mode == Mode::Im2colNoOffs {
        return invalid(
            ".im2col_no_offs is a store/reduction mode (loads use .im2col)",
            d.i.opcode_span,
        );
    }
    let dst_space = if first == "shared::cluster" {
        Space::SharedCluster
    } else {
        Space::Shared
    };
    let (map, map_space, coords) = map_and_coords(d, 1, ncoords)?;
    // [dst], [map, coords], [mbar] {, im2colInfo} {, ctaMask} {, cache-policy}
    let (im2col, next) = match mode {
        Mode::Im2col => (Some(im2col_offsets(d, 3, rank)?), 4),
        _ => (None, 3),
    };
    let multicast = if d.has("multicast::cluster") {
        Some(d.s32(next)?)
    } else {
        None
    };
    Ok(Inst::Tma(Box::new(TmaInst {
        op: TmaOp::Load {
            dst: d.addr(0)?,
            dst_space,
            mbar: d.addr(2)?,
            multicast,
        },
        map,
        map_space,
        coords,
        group,
        im2col,
        rows4,
    })))
}

/// `cp.reduce.async.bulk.dst.src.completion{.L2::cache_hint}.redOp{.noftz}.type [dst], [src],
/// size {, [mbar] | , policy}` (non-tensor, PTX ISA 9.1 §9.7.9.25.4.2). The (op, type) pairs
/// are those ptxas 13.5 accepts for sm_90a (the `.global` form's are also recorded on an H100);
/// any other pair is refused here as ptxas refuses it.
pub(super) fn cp_reduce_bulk(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    use tmemu_spec::tensormap::TmElemType as T;
    if !d.has("async") || !d.has("bulk") {
        return d.unsup();
    }
    let Some(op) = d.mods.iter().find_map(|m| ReduceOp::from_name(m)) else {
        return d.unsup_why("unknown reduction");
    };
    let ty = d.mods.iter().find_map(|m| match *m {
        "b32" | "u32" => Some((*m, T::U32)),
        "s32" => Some((*m, T::S32)),
        "b64" | "u64" => Some((*m, T::U64)),
        "s64" => Some((*m, T::S64)),
        "f32" => Some((*m, T::F32)),
        "f64" => Some((*m, T::F64)),
        "f16" => Some((*m, T::F16)),
        "bf16" => Some((*m, T::BF16)),
        _ => None,
    });
    let Some((ty_name, elem)) = ty else {
        return invalid(
            "cp.reduce.async.bulk needs a type (.b32 .u32 .s32 .b64 .u64 .s64 .f32 .f64 .f16 .bf16)",
            d.i.opcode_span,
        );
    };
    // `.dst.src`: the first state-space modifier is the destination.
    let first = d
        .mods
        .iter()
        .find(|m| m.starts_with("shared") || **m == "global")
        .copied()
        .unwrap_or("");
    let to_cluster = first.starts_with("shared");
    let noftz = d.has("noftz");
    let name = op.name();
    let legal = if to_cluster {
        matches!(
            (name, ty_name),
            ("add", "u32" | "s32" | "u64")
                | ("min" | "max", "u32" | "s32")
                | ("inc" | "dec", "u32")
                | ("and" | "or" | "xor", "b32")
        ) && !noftz
    } else {
        match (name, ty_name) {
            ("add", "f16" | "bf16") => noftz,
            _ => {
                !noftz
                    && matches!(
                        (name, ty_name),
                        ("add", "u32" | "s32" | "u64" | "f32" | "f64")
                            | (
                                "min" | "max",
                                "u32" | "s32" | "u64" | "s64" | "f16" | "bf16"
                            )
                            | ("inc" | "dec", "u32")
                            | ("and" | "or" | "xor", "b32" | "b64")
                    )
            }
        }
    };
    if !legal {
        return invalid(
            format!(
                "cp.reduce.async.bulk{}.{name}{}.{ty_name} is not a legal form (to global: add \
                 .u32/.s32/.u64/.f32/.f64 and .noftz.f16/.noftz.bf16, min/max .u32/.s32/.u64/.s64/.f16/.bf16, \
                 inc/dec .u32, and/or/xor .b32/.b64; to shared::cluster: add .u32/.s32/.u64, \
                 min/max .u32/.s32, inc/dec .u32, and/or/xor .b32)",
                if to_cluster { ".shared::cluster" } else { ".global" },
                if noftz { ".noftz" } else { "" },
            ),
            d.i.opcode_span,
        );
    }
    let (dst_space, mbar) = if to_cluster {
        if !d
            .mods
            .iter()
            .any(|m| m.starts_with("mbarrier::complete_tx"))
        {
            return d
                .unsup_why("a bulk reduction into shared::cluster completes through an mbarrier");
        }
        (Space::SharedCluster, Some(d.addr(3)?))
    } else if first == "global" {
        (Space::Global, None)
    } else {
        return invalid(
            "cp.reduce.async.bulk needs a .global or .shared::cluster destination",
            d.i.opcode_span,
        );
    };
    Ok(Inst::BulkReduce(Box::new(BulkReduceInst {
        op,
        elem,
        dst: d.addr(0)?,
        dst_space,
        src: d.addr(1)?,
        size: d.any(d.op(2)?)?,
        mbar,
    })))
}

/// `tensormap.replace.tile.FIELD{.ss}.b1024.{b32|b64} [addr], {ord,} value` and
/// `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.SCOPE.sync.aligned
/// [dst], [src], size`.
pub(super) fn tensormap(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if d.has("cp_fenceproxy") {
        let size = match &d.op(2)?.kind {
            OperandKind::Int(v) if *v == 128 => 128u32,
            _ => {
                return invalid(
                    "tensormap.cp_fenceproxy copies 128 bytes (size must be 128)",
                    d.op(2)?.span,
                )
            }
        };
        return Ok(Inst::Tensormap(Box::new(TensormapInst::CpFence {
            dst: d.addr(0)?,
            src: d.addr(1)?,
            size,
        })));
    }
    if !d.has("replace") {
        return d.unsup();
    }
    if !d.has("tile") {
        return d.unsup_why("only .tile mode is modelled");
    }
    let space = if d.has("shared::cta") || d.has("shared") {
        Space::Shared
    } else if d.has("global") {
        Space::Global
    } else {
        Space::Generic
    };
    const FIELDS: [&str; 11] = [
        "global_address",
        "rank",
        "box_dim",
        "global_dim",
        "global_stride",
        "element_stride",
        "elemtype",
        "interleave_layout",
        "swizzle_mode",
        "swizzle_atomicity",
        "fill_mode",
    ];
    let Some(name) = d.mods.iter().find(|m| FIELDS.contains(m)).copied() else {
        return d.unsup_why("unknown tensormap.replace field");
    };
    let (ord, value_at) = if d.nops() == 3 {
        match &d.op(1)?.kind {
            OperandKind::Int(v) => (Some(*v as u32), 2),
            _ => {
                return invalid(
                    "the tensormap.replace ordinal is an immediate",
                    d.op(1)?.span,
                )
            }
        }
    } else {
        (None, 1)
    };
    let field = match ReplaceField::parse(name, ord) {
        Ok(f) => f,
        Err(e) => return invalid(e.to_string(), d.i.span),
    };
    Ok(Inst::Tensormap(Box::new(TensormapInst::Replace {
        field,
        addr: d.addr(0)?,
        space,
        value: d.any_w(d.op(value_at)?, 64)?,
    })))
}
