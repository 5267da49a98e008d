//! Static checks of tcgen05 PTX, the rules ptxas enforces before anything runs (TM04xx and the
//! immediate halves of TM0001–TM0003), plus the rule-corpus annotation reader
//! ([`annotations`]) shared by the ui-test runners.
//!
//! Entry point: [`static_check`]. It never panics on any parsed module and allocates only
//! for the findings and the per-function call graph.

pub mod annotations;
mod cta_group;
pub mod dynamic;
mod finding;
mod instr;
mod regs;
mod static_forms;
pub mod targets;

pub use finding::StaticFinding;

use tmemu_ptx::ast::{Module, Statement};

/// Every static finding of `module`, in source order of their primary span (`file` is only
/// used for the rendered messages' `file:line:col`).
pub fn static_check(module: &Module<'_>, file: &str) -> Vec<StaticFinding> {
    let mut out = Vec::new();
    let target = targets::TargetCheck::new(module);
    let mut target_state = targets::Reported::default();
    for f in module.functions() {
        let Some(body) = &f.body else { continue };
        let regs = regs::RegTypes::of(&body.statements);
        visit(&body.statements, &mut |s| {
            if let Statement::Instruction(i) = s {
                if i.name == "tcgen05" {
                    instr::check(i, &regs, &mut out);
                    static_forms::check_mma(i, &mut out);
                    target.check(i, &mut target_state, &mut out);
                } else if i.name == "atom"
                    || i.name == "red"
                    || i.name == "wmma"
                    || (i.name == "st" && i.modifiers.contains("async"))
                    || (i.name == "st" && i.modifiers.contains("bulk"))
                {
                    target.check_atomic(i, &mut out);
                } else if matches!(
                    i.name,
                    "movmatrix"
                        | "redux"
                        | "cvt"
                        | "isspacep"
                        | "mov"
                        | "alloca"
                        | "stacksave"
                        | "stackrestore"
                        | "ldmatrix"
                        | "stmatrix"
                ) {
                    target.check_form(i, &mut out);
                } else if i.name == "clusterlaunchcontrol" {
                    target.check_clc(i, &mut out);
                } else if i.name == "mbarrier" {
                    static_forms::check_mbarrier(i, &mut out);
                }
            }
        });
    }
    cta_group::check(module, &mut out);
    out.sort_by_key(|f| (f.span.start, f.rule.id));
    for f in &mut out {
        f.file = file.to_string();
    }
    out
}

/// Calls `f` on every statement, nested blocks included, in source order.
pub(crate) fn visit<'a, 'src>(
    stmts: &'a [Statement<'src>],
    f: &mut impl FnMut(&'a Statement<'src>),
) {
    for s in stmts {
        if let Statement::Block(b) = s {
            visit(&b.statements, f);
        } else {
            f(s);
        }
    }
}
