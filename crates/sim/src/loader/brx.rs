//! `brx.idx{.uni} index, tlist` (PTX ISA 9.1 §9.7.8.2): an indirect branch through a
//! `.branchtargets` list, which Triton emits for warp-specialised partitions (a jump table on
//! the warp's role). A child module of `decode`.
//!
//! The AST keeps `.branchtargets` as a statement after its label, which the instruction
//! decoder does not see; the list is read back from the source text after `tlist:` (the label
//! must be unique in the module; otherwise the form is `unsupported`), and each target is
//! resolved like a `bra` label, so the executor gets plain PCs.

use tmemu_ptx::ast::OperandKind;

use super::{invalid, Sym, D, R};
use crate::exec::brx::BrxInst;
use crate::program::{Any, Inst, S32};

/// The label names listed by `.branchtargets` after `name:` in `src`.
fn table<'s>(src: &'s str, name: &str) -> Option<Vec<&'s str>> {
    let key = format!("{name}:");
    let mut found = src.match_indices(&key).filter(|(i, _)| {
        // a whole label: not the tail of a longer name
        *i == 0
            || !src[..*i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '%')
    });
    let (at, _) = found.next()?;
    if found.next().is_some() {
        return None;
    }
    let rest = src[at + key.len()..].trim_start();
    let rest = rest.strip_prefix(".branchtargets")?;
    let end = rest.find(';')?;
    Some(
        rest[..end]
            .split(',')
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .collect(),
    )
}

pub(super) fn brx(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if !d.has("idx") {
        return d.unsup();
    }
    let index = match d.any(d.op(0)?)? {
        Any::R32(r) => S32::R(r),
        Any::Imm(v) => S32::I(v as u32),
        _ => return invalid("brx.idx takes a 32-bit index", d.op(0)?.span),
    };
    let o = d.op(1)?;
    let OperandKind::Ident(id) = &o.kind else {
        return invalid("brx.idx needs the label of a .branchtargets list", o.span);
    };
    let Some(names) = table(d.g.src, id.name) else {
        return d.unsup_why("its .branchtargets list could not be found unambiguously");
    };
    let mut targets = Vec::with_capacity(names.len());
    for n in names {
        match d.lookup(n, o.span)? {
            Sym::Label(pc) => targets.push(pc),
            _ => return invalid(format!("`{n}` in .branchtargets is not a label"), o.span),
        }
    }
    if targets.is_empty() {
        return invalid("empty .branchtargets list", o.span);
    }
    Ok(Inst::Brx(Box::new(BrxInst { index, targets })))
}
