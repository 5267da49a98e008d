//! TM0401: one `.cta_group` per kernel, including the functions it calls (tmem.md rule 13).
//!
//! Each entry is checked on its own (two entries of one module may differ). The entry's
//! tcgen05 instructions are walked in source order with every direct `call` expanded where
//! it stands (each callee once per entry, so recursion terminates); the first `.cta_group`
//! met fixes the kernel's value. The finding is reported **in the entry**: at the
//! conflicting instruction when it is the entry's own, or at the `call` through which the
//! conflicting instruction is reached — a callee used by entries of both kinds is not wrong
//! in itself, the entry that mixes them is (ptxas also names the kernel). Related spans: the
//! instruction that fixed the value, and the conflicting instruction inside the callee.
//! Indirect calls (`call %r, (..), targets`) are not followed (their targets are a
//! `.calltargets` list or unknown): a documented gap.

use std::collections::{HashMap, HashSet};

use tmemu_ptx::ast::{FunctionKind, Instruction, Module, OperandKind, Statement};
use tmemu_ptx::decode;
use tmemu_ptx::span::Span;
use tmemu_tmem::rules;

use crate::StaticFinding;

enum Event<'src> {
    Group(u8, Span),
    Call(&'src str, Span),
}

type Events<'src> = HashMap<&'src str, Vec<Event<'src>>>;

pub(crate) fn check(module: &Module<'_>, out: &mut Vec<StaticFinding>) {
    let mut events: Events<'_> = HashMap::new();
    for f in module.functions() {
        let mut ev = Vec::new();
        if let Some(body) = &f.body {
            crate::visit(&body.statements, &mut |s| {
                if let Statement::Instruction(i) = s {
                    if let Some(e) = event(i) {
                        ev.push(e);
                    }
                }
            });
        }
        // A declaration and a definition of one function: keep the one with a body.
        let slot = events.entry(f.name.name).or_default();
        if slot.is_empty() {
            *slot = ev;
        }
    }
    for entry in module.entries() {
        if entry.kind != FunctionKind::Entry {
            continue;
        }
        if let Some(f) = check_entry(entry.name.name, &events) {
            out.push(f);
        }
    }
}

fn event<'src>(i: &Instruction<'src>) -> Option<Event<'src>> {
    match i.name {
        "tcgen05" => decode::decode_tcgen05(i)
            .ok()
            .and_then(|t| t.cta_group)
            .map(|g| Event::Group(g, i.span)),
        // `call{.uni} (ret), f, (args);` — the first plain name operand is the callee.
        "call" => i.operands.iter().find_map(|o| match &o.kind {
            OperandKind::Ident(id) => Some(Event::Call(id.name, i.span)),
            _ => None,
        }),
        _ => None,
    }
}

fn check_entry(name: &str, events: &Events<'_>) -> Option<StaticFinding> {
    let mut first: Option<(u8, Span)> = None;
    let mut visited: HashSet<&str> = HashSet::new();
    visited.insert(name);
    for ev in events.get(name)? {
        match *ev {
            Event::Group(g, span) => {
                if let Some(f) = conflict(&mut first, g, span) {
                    return Some(finding(name, f, span, None));
                }
            }
            Event::Call(callee, span) => {
                if let Some((_, at)) = walk(callee, events, &mut visited, &mut first) {
                    let f = first.expect("a conflict implies a first value");
                    return Some(finding(name, f, span, Some(at)));
                }
            }
        }
    }
    None
}

/// `Some(first)` when `g` contradicts the value fixed so far.
fn conflict(first: &mut Option<(u8, Span)>, g: u8, span: Span) -> Option<(u8, Span)> {
    match *first {
        None => {
            *first = Some((g, span));
            None
        }
        Some((f, fs)) if f != g => Some((f, fs)),
        Some(_) => None,
    }
}

/// The first conflicting instruction reached through `name`, as (its group, its span).
fn walk<'src>(
    name: &'src str,
    events: &Events<'src>,
    visited: &mut HashSet<&'src str>,
    first: &mut Option<(u8, Span)>,
) -> Option<(u8, Span)> {
    if !visited.insert(name) {
        return None;
    }
    for ev in events.get(name)? {
        match *ev {
            Event::Group(g, span) => {
                if conflict(first, g, span).is_some() {
                    return Some((g, span));
                }
            }
            Event::Call(callee, _) => {
                if let Some(c) = walk(callee, events, visited, first) {
                    return Some(c);
                }
            }
        }
    }
    None
}

fn finding(entry: &str, first: (u8, Span), at: Span, inner: Option<Span>) -> StaticFinding {
    let (g, first_span) = first;
    let other = if g == 1 { 2 } else { 1 };
    let how = if inner.is_some() {
        " through this call"
    } else {
        ""
    };
    let mut f = StaticFinding::new(
        &rules::MIXED_CTA_GROUP,
        at,
        format!(
            "kernel '{entry}' uses .cta_group::{other}{how} after .cta_group::{g} (line {}); one kernel must use one .cta_group",
            first_span.line
        ),
    )
    .related(first_span);
    if let Some(s) = inner {
        f = f.related(s);
    }
    f
}

#[cfg(test)]
mod tests {
    use crate::static_check;

    const HEAD: &str = ".version 8.8\n.target sm_100a\n.address_size 64\n";

    fn tm0401(src: &str) -> Vec<(u32, Vec<u32>)> {
        let m = tmemu_ptx::parse(src).unwrap();
        static_check(&m, "t.ptx")
            .into_iter()
            .filter(|f| f.rule.id == "TM0401")
            .map(|f| (f.span.line, f.related.iter().map(|s| s.line).collect()))
            .collect()
    }

    const FUNC2: &str = ".func f2()\n{\n    tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%r1];\n    ret;\n}\n";

    #[test]
    fn callee_with_other_group_is_reported_at_the_call() {
        // lines: 1-3 head, 4-8 f2 (commit at 6), 9 entry
        let src = format!(
            "{HEAD}{FUNC2}.entry k()\n{{\n    .reg .b32 %r<4>;\n    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n    call f2, ();\n    ret;\n}}\n"
        );
        assert_eq!(tm0401(&src), vec![(13, vec![12, 6])]);
    }

    #[test]
    fn callee_first_then_entry_is_reported_at_the_entry_instruction() {
        let src = format!(
            "{HEAD}{FUNC2}.entry k()\n{{\n    .reg .b32 %r<4>;\n    call f2, ();\n    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n    ret;\n}}\n"
        );
        assert_eq!(tm0401(&src), vec![(13, vec![6])]);
    }

    #[test]
    fn two_entries_may_differ_and_a_shared_callee_is_judged_per_entry() {
        let src = format!(
            "{HEAD}{FUNC2}.entry a()\n{{\n    call f2, ();\n    ret;\n}}\n.entry b()\n{{\n    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n    ret;\n}}\n.entry c()\n{{\n    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n    call f2, ();\n    ret;\n}}\n"
        );
        // a: only ::2 (clean); b: only ::1 (clean); c: mixed through the call at line 22.
        assert_eq!(tm0401(&src), vec![(22, vec![21, 6])]);
    }

    #[test]
    fn nested_and_recursive_calls_terminate_and_propagate() {
        let src = format!(
            "{HEAD}{FUNC2}.func g()\n{{\n    call g, ();\n    call f2, ();\n    ret;\n}}\n.entry k()\n{{\n    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n    call g, ();\n    ret;\n}}\n"
        );
        assert_eq!(tm0401(&src), vec![(18, vec![17, 6])]);
    }

    #[test]
    fn same_group_through_calls_is_clean() {
        let src = format!(
            "{HEAD}{FUNC2}.entry k()\n{{\n    tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;\n    call f2, ();\n    ret;\n}}\n"
        );
        assert_eq!(tm0401(&src), vec![]);
    }
}
