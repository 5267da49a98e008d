//! The grammar features of tests/corpus/parse/ok/grammar_features.ptx (a file ptxas 13.5
//! accepts) parse into the expected tree, and every recorded span agrees with an independent
//! line index.

use crate::common;

use tmemu_ptx::ast::*;
use tmemu_ptx::span::{SourceMap, Span};

fn source() -> String {
    std::fs::read_to_string(common::corpus_root().join("parse/ok/grammar_features.ptx")).unwrap()
}

fn instructions<'a>(stmts: &'a [Statement<'a>], out: &mut Vec<&'a Instruction<'a>>) {
    for s in stmts {
        match s {
            Statement::Instruction(i) => out.push(i),
            Statement::Block(b) => instructions(&b.statements, out),
            _ => {}
        }
    }
}

fn func<'a>(m: &'a Module<'a>, name: &str) -> &'a Function<'a> {
    m.functions().find(|f| f.name.name == name).unwrap()
}

fn var<'a>(m: &'a Module<'a>, name: &str) -> &'a VarDecl<'a> {
    m.variables().find(|v| v.name.name == name).unwrap()
}

/// The instruction whose source text (whitespace-trimmed) is exactly `text`.
fn find<'a>(src: &str, all: &[&'a Instruction<'a>], text: &str) -> &'a Instruction<'a> {
    all.iter()
        .copied()
        .find(|i| i.span.text(src) == text)
        .unwrap_or_else(|| panic!("no instruction `{text}`"))
}

fn kinds<'a>(i: &'a Instruction<'a>) -> Vec<&'a OperandKind<'a>> {
    i.operands.iter().map(|o| &o.kind).collect()
}

#[test]
fn module_directives() {
    let src = source();
    let m = tmemu_ptx::parse(&src).unwrap();
    let v = m.version().unwrap();
    assert_eq!((v.major, v.minor), (8, 7));
    assert_eq!(m.target().unwrap().names, ["sm_100a"]);
    assert_eq!(m.address_size(), Some(64));
    let files: Vec<_> = m.files().collect();
    assert_eq!(files.len(), 2);
    assert_eq!((files[0].index, files[0].path), (1, "/tmp/features.cu"));
    assert_eq!(
        (files[0].timestamp, files[0].size),
        (Some(1700000000), Some(1234))
    );
    assert_eq!((files[1].path, files[1].timestamp), ("inc/header.h", None));
    let section = m
        .items
        .iter()
        .find_map(|i| match i {
            ModuleItem::Section(s) => Some(s),
            _ => None,
        })
        .unwrap();
    assert_eq!(section.name, ".debug_str");
    assert!(section.body.contains("$L__info_string0:"));
}

#[test]
fn functions_and_parameters() {
    let src = source();
    let m = tmemu_ptx::parse(&src).unwrap();
    let ext = func(&m, "ext_fn");
    assert_eq!(
        (ext.linkage, ext.kind),
        (Some(Linkage::Extern), FunctionKind::Func)
    );
    assert!(ext.body.is_none());
    assert_eq!(ext.returns.len(), 1);
    assert_eq!(ext.returns[0].name.name, "retval");
    let ps = ext.params.as_ref().unwrap();
    assert_eq!((ps[0].ty, ps[1].ty), (ScalarType::B32, ScalarType::B64));
    assert_eq!(func(&m, "weak_fn").linkage, Some(Linkage::Weak));
    assert!(m.function("add_one").unwrap().body.is_some());
    assert!(m.function("ext_fn").unwrap().body.is_none());
    assert!(m.function("nope").is_none());
    assert!(func(&m, "stop").noreturn);
    let rp = func(&m, "reg_params");
    assert_eq!(rp.returns[0].space, StateSpace::Reg);
    assert_eq!(rp.params.as_ref().unwrap()[1].space, StateSpace::Reg);

    let k = func(&m, "k_perf");
    assert_eq!(k.kind, FunctionKind::Entry);
    let p = k.params.as_ref().unwrap();
    assert_eq!(
        p[0].ptr,
        Some(PtrAttr {
            space: Some(StateSpace::Global),
            align: Some(16)
        })
    );
    assert_eq!(
        p[1].ptr,
        Some(PtrAttr {
            space: None,
            align: Some(8)
        })
    );
    assert_eq!(
        (p[2].align, p[2].ty, p[2].dims.as_slice()),
        (Some(8), ScalarType::B8, &[Some(16)][..])
    );
    assert!(matches!(&k.perf[0], PerfDirective::Reqntid(v, _) if v == &[128, 1, 1]));
    assert!(matches!(k.perf[1], PerfDirective::Minnctapersm(1, _)));
    assert!(matches!(k.perf[2], PerfDirective::Maxnreg(128, _)));
    let c = func(&m, "k_cluster");
    assert!(matches!(c.perf[0], PerfDirective::ExplicitCluster(_)));
    assert!(matches!(&c.perf[1], PerfDirective::Reqnctapercluster(v, _) if v == &[2, 1, 1]));
    let mc = func(&m, "k_maxcluster");
    assert!(matches!(&mc.perf[0], PerfDirective::Maxntid(v, _) if v == &[256]));
    assert!(matches!(mc.perf[1], PerfDirective::Maxclusterrank(4, _)));
    assert_eq!(m.entries().count(), 4);
}

fn int(e: &Initializer<'_>) -> i64 {
    match e {
        Initializer::Expr(Expr::Int(v, _)) => *v,
        other => panic!("{other:?}"),
    }
}

#[test]
fn variables_and_initializers() {
    let src = source();
    let m = tmemu_ptx::parse(&src).unwrap();
    let g = var(&m, "g_scalar");
    assert_eq!(
        (g.space, g.align, g.ty),
        (StateSpace::Global, Some(4), ScalarType::B32)
    );
    assert_eq!(int(g.init.as_ref().unwrap()), 42);
    let a = var(&m, "g_arr");
    let Some(Initializer::List(items, _)) = &a.init else {
        panic!()
    };
    assert_eq!(items.iter().map(int).collect::<Vec<_>>(), [1, 16, 15, 5]);
    let f = var(&m, "g_floats");
    let Some(Initializer::List(items, _)) = &f.init else {
        panic!()
    };
    let fl: Vec<FloatLit> = items
        .iter()
        .map(|i| match i {
            Initializer::Expr(Expr::Float(f, _)) => *f,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        fl,
        [
            FloatLit::F32Bits(0x3F80_0000),
            FloatLit::Decimal(1.5),
            FloatLit::Decimal(2e-3)
        ]
    );
    let d2 = var(&m, "g_2d");
    assert_eq!(d2.dims, [Some(2), Some(3)]);
    let Some(Initializer::List(rows, _)) = &d2.init else {
        panic!()
    };
    assert!(
        matches!(&rows[1], Initializer::List(r, _) if r.iter().map(int).collect::<Vec<_>>() == [4, 5, 6])
    );
    assert_eq!(var(&m, "g_implicit").dims, [None]);
    let Some(Initializer::List(ptrs, _)) = &var(&m, "g_ptrs").init else {
        panic!()
    };
    assert!(matches!(&ptrs[0], Initializer::Expr(Expr::Generic(i)) if i.name == "g_scalar"));
    assert!(
        matches!(&ptrs[1], Initializer::Expr(Expr::Binary(BinaryOp::Add, l, r, _))
        if matches!(**l, Expr::Symbol(i) if i.name == "g_arr") && matches!(**r, Expr::Int(8, _)))
    );
    let neg = var(&m, "g_neg");
    assert!(matches!(
        neg.init,
        Some(Initializer::Expr(Expr::Binary(BinaryOp::Mul, _, _, _)))
    ));
    let Some(Initializer::Expr(e)) = &neg.init else {
        panic!()
    };
    assert_eq!(e.fold(&src).unwrap(), Constant::Int(-14));
    let Some(Initializer::List(ptrs, _)) = &var(&m, "g_ptrs").init else {
        panic!()
    };
    let Initializer::Expr(sym) = &ptrs[1] else {
        panic!()
    };
    assert!(sym.fold(&src).is_err(), "a symbol is not a constant");
    let dynamic = var(&m, "s_dyn");
    assert_eq!(
        (dynamic.linkage, dynamic.space, dynamic.dims.as_slice()),
        (Some(Linkage::Extern), StateSpace::Shared, &[None][..])
    );
    assert_eq!(var(&m, "c_vec").vector, Some(4));
    let (ga, gb) = (var(&m, "g_a"), var(&m, "g_b"));
    assert_eq!(
        (ga.linkage, gb.linkage),
        (Some(Linkage::Visible), Some(Linkage::Visible))
    );
    assert!(ga.init.is_none());
    assert_eq!(int(gb.init.as_ref().unwrap()), 3);
    // Register ranges and multi-name register declarations inside a body.
    let body = func(&m, "k_main").body.as_ref().unwrap();
    let regs: Vec<(&str, Option<u32>)> = body
        .statements
        .iter()
        .filter_map(|s| match s {
            Statement::Variable(v) if v.space == StateSpace::Reg => Some((v.name.name, v.range)),
            _ => None,
        })
        .collect();
    assert!(regs.contains(&("%r", Some(40))) && regs.contains(&("%extra", None)));
}

#[test]
fn operands_guards_and_calls() {
    let src = source();
    let m = tmemu_ptx::parse(&src).unwrap();
    let k = func(&m, "k_main");
    let mut all = Vec::new();
    instructions(&k.body.as_ref().unwrap().statements, &mut all);
    let id = |o: &OperandKind<'_>| match o {
        OperandKind::Ident(i) => i.name.to_string(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        id(kinds(find(&src, &all, "mov.u32 %r2, %tid.x;"))[1]),
        "%tid.x"
    );
    let imm = |text: &str| kinds(find(&src, &all, text))[1].clone();
    assert_eq!(
        imm("mov.u32 %r7, 0xFFFFFFFF;"),
        OperandKind::Int(0xFFFF_FFFF)
    );
    assert_eq!(imm("mov.u32 %r8, -1;"), OperandKind::Int(-1));
    assert_eq!(imm("mov.u32 %r9, 0777;"), OperandKind::Int(0o777));
    assert_eq!(imm("mov.b32 %r10, 0b1010;"), OperandKind::Int(10));
    assert_eq!(
        imm("mov.u32 %r11, 4294967295U;"),
        OperandKind::Int(4294967295)
    );
    assert_eq!(
        imm("mov.f32 %f2, 0fBF800000;"),
        OperandKind::Float(FloatLit::F32Bits(0xBF80_0000))
    );
    assert_eq!(
        imm("mov.f64 %fd1, 0d3FF0000000000000;"),
        OperandKind::Float(FloatLit::F64Bits(0x3FF0_0000_0000_0000))
    );
    assert_eq!(
        imm("mov.f32 %f3, 1.5;"),
        OperandKind::Float(FloatLit::Decimal(1.5))
    );
    assert!(
        matches!(imm("mov.u64 %rd5, g_arr+8;"), OperandKind::SymbolOffset(i, 8) if i.name == "g_arr")
    );

    let setp = find(&src, &all, "setp.lt.u32 %p2|%p3, %r2, %r1;");
    assert!(
        matches!(kinds(setp)[0], OperandKind::PredPair(a, b) if a.name == "%p2" && b.name == "%p3")
    );
    let and = find(&src, &all, "and.pred %p1, !%p2, %p3;");
    assert!(matches!(kinds(and)[1], OperandKind::Not(i) if i.name == "%p2"));
    let g = find(&src, &all, "@!%p1 bra.uni $L__BB0_2;");
    let guard = g.guard.unwrap();
    assert!(guard.negated);
    assert_eq!(guard.pred.name, "%p1");
    assert_eq!((g.name, g.modifiers.as_str()), ("bra", ".uni"));
    assert_eq!(g.opcode_display().to_string(), "bra.uni");
    assert_eq!(g.opcode(&src), "bra.uni");
    assert!(
        !find(&src, &all, "@%p1 bra $L__BB0_2;")
            .guard
            .unwrap()
            .negated
    );

    let v = find(&src, &all, "ld.global.v2.f32 {%f4, _}, [%rd2+16];");
    assert!(
        matches!(kinds(v)[0], OperandKind::Vector(items) if items[1].kind == OperandKind::Sink)
    );
    assert!(
        matches!(kinds(v)[1], OperandKind::Address(a) if a.base.unwrap().name == "%rd2" && a.offset == 16)
    );
    let neg = find(&src, &all, "ld.global.u32 %r17, [%rd2+-4];");
    assert!(matches!(kinds(neg)[1], OperandKind::Address(a) if a.offset == -4));
    let abs = find(&src, &all, "ld.local.u32 %r21, [4096];");
    assert!(
        matches!(kinds(abs)[1], OperandKind::Address(a) if a.base.is_none() && a.offset == 4096)
    );
    let var = find(&src, &all, "ld.shared.u32 %r20, [s_static+128];");
    assert!(
        matches!(kinds(var)[1], OperandKind::Address(a) if a.base.unwrap().name == "s_static" && a.offset == 128)
    );
    let tma = all.iter().find(|i| i.modifiers.contains("tensor")).unwrap();
    assert!(matches!(kinds(tma)[1], OperandKind::Address(a)
        if a.base.unwrap().name == "%rd1" && matches!(&a.rest[0].kind, OperandKind::Vector(c) if c.len() == 2)));
    assert_eq!(
        tma.modifiers.iter().collect::<Vec<_>>(),
        [
            "async",
            "bulk",
            "tensor",
            "2d",
            "shared::cluster",
            "global",
            "mbarrier::complete_tx::bytes"
        ]
    );
    let ld16 = all
        .iter()
        .find(|i| i.modifiers.contains("16x32bx2"))
        .unwrap();
    assert_eq!(ld16.operands.len(), 3);

    let call = find(&src, &all, "call.uni (retval0), add_one, (param0);");
    assert!(matches!(kinds(call)[0], OperandKind::List(v) if v.len() == 1));
    assert_eq!(id(kinds(call)[1]), "add_one");
    let icall = find(&src, &all, "call (retval0), %rd1, (param0), proto0;");
    assert_eq!(icall.operands.len(), 4);
    assert!(
        matches!(kinds(find(&src, &all, "call.uni stop, ();"))[1], OperandKind::List(v) if v.is_empty())
    );

    // Labels, .branchtargets, .callprototype, nested blocks, .loc, .pragma.
    let body = k.body.as_ref().unwrap();
    let has = |f: &dyn Fn(&Statement<'_>) -> bool| body.statements.iter().any(f);
    assert!(has(
        &|s| matches!(s, Statement::Label(l) if l.name == "$L__BB0_2")
    ));
    assert!(has(
        &|s| matches!(s, Statement::BranchTargets(v, _) if v.len() == 2)
    ));
    assert!(has(
        &|s| matches!(s, Statement::Loc(l) if l.function_name == Some(("$L__info_string0", 0)) && l.inlined_at == Some((1, 10, 5)))
    ));
    assert!(has(
        &|s| matches!(s, Statement::Pragma(p) if p.strings == ["nounroll"])
    ));
    let nested = body.statements.iter().find_map(|s| match s {
        Statement::Block(b)
            if b.statements
                .iter()
                .any(|s| matches!(s, Statement::Block(_))) =>
        {
            Some(b)
        }
        _ => None,
    });
    assert!(nested.is_some(), "a block nested in a block");
    let proto = body.statements.iter().find_map(|s| match s {
        Statement::Block(b) => b.statements.iter().find_map(|s| match s {
            Statement::CallPrototype(p) => Some(p.clone()),
            _ => None,
        }),
        _ => None,
    });
    let proto = proto.unwrap();
    assert_eq!((proto.returns.len(), proto.params.len()), (1, 1));
    assert_eq!(proto.params[0].name.name, "_");
}

/// Exact positions for one instruction and its operands (lines and columns counted in the
/// file by hand: line 95 is `\tmov.u32 %r2, %tid.x;`).
#[test]
fn spans_of_one_instruction() {
    let src = source();
    let m = tmemu_ptx::parse(&src).unwrap();
    let mut all = Vec::new();
    instructions(
        &func(&m, "k_main").body.as_ref().unwrap().statements,
        &mut all,
    );
    let i = find(&src, &all, "mov.u32 %r2, %tid.x;");
    assert_eq!((i.span.line, i.span.col), (95, 2));
    assert_eq!(i.opcode_span.text(&src), "mov.u32");
    assert_eq!((i.operands[0].span.line, i.operands[0].span.col), (95, 10));
    assert_eq!(i.operands[1].span.text(&src), "%tid.x");
    assert_eq!((i.operands[1].span.line, i.operands[1].span.col), (95, 15));
    let c = find(&src, &all, "call (retval0), %rd1, (param0), proto0;");
    assert_eq!((c.span.line, c.span.col), (165, 2));
    assert_eq!(c.operands[0].span.text(&src), "(retval0)");
    assert_eq!(c.operands[3].span.text(&src), "proto0");
}

/// Every span of every corpus file: line:col equals what an independent line index computes
/// from the byte offset, the range lies inside the file, and spans of instructions and
/// operands cover text that starts where a token starts.
#[test]
fn all_spans_agree_with_source_map() {
    let mut checked = 0usize;
    for path in common::good_corpus_files() {
        let src = common::read_text(&path);
        let map = SourceMap::new(&src);
        let m = tmemu_ptx::parse(&src).unwrap();
        let mut check = |s: Span, what: &str| {
            assert!(
                s.start <= s.end && s.end as usize <= src.len(),
                "{}: {what} {s:?}",
                path.display()
            );
            assert_eq!(
                map.line_col(s.start),
                (s.line, s.col),
                "{}: {what} {s:?}",
                path.display()
            );
            checked += 1;
        };
        for f in m.functions() {
            check(f.span, "function");
            check(f.name.span, "function name");
            let Some(body) = &f.body else { continue };
            check(body.span, "body");
            let mut all = Vec::new();
            instructions(&body.statements, &mut all);
            for i in all {
                check(i.span, "instruction");
                check(i.opcode_span, "opcode");
                assert!(i.span.text(&src).ends_with(';'));
                for o in &i.operands {
                    check(o.span, "operand");
                    assert!(!o.span.is_empty());
                    assert!(!o.span.text(&src).starts_with([' ', '\t', ',']));
                }
            }
        }
        for v in m.variables() {
            check(v.span, "variable");
            check(v.name.span, "variable name");
            assert_eq!(v.name.span.text(&src), v.name.name);
        }
    }
    eprintln!("spans checked: {checked}");
}

/// Forms not in the ptxas-checked file: `.alias`, `.calltargets`, `.pragma` in a function
/// header, `.attribute`, nested vectors, expression offsets; each printed and re-parsed.
#[test]
fn less_common_forms() {
    let src = r#".version 9.0
.target sm_100a, debug
.address_size 64
.func f1 () .abi_preserve 8 .abi_preserve_control 2 { ret; }
.func f2 () { ret; }
.alias f3, f1;
.global .attribute(.managed) .u32 managed_x;
.entry k (.param .u64 .ptr .global .align 16 p0, .param .u32 .ptr .align 32 p1) .maxnctapersm 2 .pragma "nounroll"; .blocksareclusters
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<4>;
	Ftgt: .calltargets f1, f2;
	ld.global.u32 %r1, [%rd1+(2*8)];
	ld.global.u32 %r2, [%rd1-0x10];
	mov.b32 %r3, (1 << 4) | 3;
	foo.bar {{%r1, %r2}, {%r3, _}}, _|%p1;
	call %rd1, (), Ftgt;
}
"#;
    let m = tmemu_ptx::parse(src).unwrap();
    assert_eq!(m.target().unwrap().names, ["sm_100a", "debug"]);
    assert!(m.items.iter().any(
        |i| matches!(i, ModuleItem::Alias(a) if a.alias.name == "f3" && a.target.name == "f1")
    ));
    assert_eq!(m.variables().next().unwrap().name.name, "managed_x");
    let f1 = func(&m, "f1");
    assert!(matches!(
        f1.perf[..],
        [
            PerfDirective::AbiPreserve(8, _),
            PerfDirective::AbiPreserveControl(2, _)
        ]
    ));
    let k = func(&m, "k");
    let ps = k.params.as_ref().unwrap();
    assert_eq!(
        (ps[0].space, ps[0].ty),
        (StateSpace::Param, ScalarType::U64)
    );
    assert_eq!(
        ps[0].ptr,
        Some(PtrAttr {
            space: Some(StateSpace::Global),
            align: Some(16)
        })
    );
    assert_eq!(
        ps[1].ptr,
        Some(PtrAttr {
            space: None,
            align: Some(32)
        })
    );
    assert!(matches!(k.perf[0], PerfDirective::Maxnctapersm(2, _)));
    assert!(matches!(&k.perf[1], PerfDirective::Pragma(p) if p.strings == ["nounroll"]));
    assert!(matches!(k.perf[2], PerfDirective::BlocksAreClusters(_)));
    let body = k.body.as_ref().unwrap();
    assert!(body
        .statements
        .iter()
        .any(|s| matches!(s, Statement::CallTargets(v, _) if v.len() == 2)));
    let mut all = Vec::new();
    instructions(&body.statements, &mut all);
    assert!(matches!(&all[0].operands[1].kind, OperandKind::Address(a) if a.offset == 16));
    assert!(matches!(&all[1].operands[1].kind, OperandKind::Address(a) if a.offset == -16));
    assert_eq!(all[2].operands[1].kind, OperandKind::Int(19));
    assert!(
        matches!(&all[3].operands[0].kind, OperandKind::Vector(v) if matches!(&v[1].kind, OperandKind::Vector(w) if w[1].kind == OperandKind::Sink))
    );
    assert!(matches!(&all[3].operands[1].kind, OperandKind::PredPair(a, _) if a.name == "_"));
    // Round trip of these forms too.
    use tmemu_ptx::spanless::ClearSpans;
    let printed = m.to_string();
    let (mut a, mut b) = (m.clone(), tmemu_ptx::parse(&printed).unwrap());
    a.clear_spans();
    b.clear_spans();
    assert_eq!(a, b, "{printed}");
}

/// A single `:` never sticks to a dotted name (found by fuzzing: `bra.uni :L` printed as a
/// label `bra.uni:` lexed back as one token); `::` pairs do.
#[test]
fn colons_in_dotted_names() {
    use tmemu_ptx::lexer::{Lexer, TokKind};
    let kinds = |s: &str| {
        let mut lx = Lexer::new(s);
        let mut out = Vec::new();
        loop {
            let t = lx.next_token().unwrap();
            if t.kind == TokKind::Eof {
                return out;
            }
            out.push((t.kind, t.span.text(s).to_string()));
        }
    };
    assert_eq!(
        kinds("a.b::c:"),
        [
            (TokKind::Ident, "a.b::c".to_string()),
            (TokKind::Colon, ":".to_string())
        ]
    );
    assert_eq!(
        kinds("x.shared::cta: .y:::"),
        [
            (TokKind::Ident, "x.shared::cta".to_string()),
            (TokKind::Colon, ":".to_string()),
            (TokKind::Dot, ".y::".to_string()),
            (TokKind::Colon, ":".to_string()),
        ]
    );
    assert_eq!(
        kinds("1.:"),
        [
            (TokKind::Float, "1.".to_string()),
            (TokKind::Colon, ":".to_string())
        ]
    );
}

/// `.section` bodies are skipped by brace matching that respects strings and both comment
/// forms; the text is kept verbatim.
#[test]
fn section_bodies_with_braces_in_comments_and_strings() {
    let src = ".version 9.0\n.target sm_100a\n.section .debug_info { /* } */ .b8 1 // }\n \"}\" {nested} }\n.global .u32 after;\n";
    let m = tmemu_ptx::parse(src).unwrap();
    let ModuleItem::Section(sec) = &m.items[2] else {
        panic!("{:?}", m.items[2])
    };
    assert_eq!(sec.body, " /* } */ .b8 1 // }\n \"}\" {nested} ");
    assert_eq!(m.variables().next().unwrap().name.name, "after");
    assert_eq!(m.variables().next().unwrap().span.line, 5);
    let e = tmemu_ptx::parse(".version 9.0\n.target sm_100a\n.section .x { /* }\n").unwrap_err();
    assert_eq!(e.kind, tmemu_ptx::ParseErrorKind::UnterminatedComment);
}

/// Folding of operand constants follows PTX's `.s64`/`.u64` typing: `U` suffix or a literal
/// above `i64::MAX` makes the arithmetic unsigned (visible in `/`, `%`, `>>`, comparisons).
/// Every expected value was produced by ptxas 13.5: the same expressions as `.global .u64`
/// initializers, compiled to a cubin, read back from `.nv.global.init` (`%` is unsigned there
/// even for negative operands).
#[test]
fn constant_folding_signedness() {
    let cases: [(&str, i64); 16] = [
        ("0xFFFFFFFFFFFFFFFFU / 2", i64::MAX),
        ("0xFFFFFFFFFFFFFFFF >> 60", 15),
        ("-1 >> 60", -1),
        ("-7 / 2", -3),
        ("-7 % 3", 0),
        ("-7 % 4", 1),
        ("7 % -4", 7),
        ("-7 % -4", -7),
        ("7 % 4", 3),
        ("-8 / 3", -2),
        ("8 / -3", -2),
        ("0 - 7 % 4", -3),
        ("-1 < 1", 1),
        ("1U > -1", 0),
        ("~0U >> 63", 1),
        ("(1 << 4) | 3", 19),
    ];
    for (text, want) in cases {
        let src = format!(".version 9.0\n.target sm_100a\n.entry k() {{ mov.b64 %rd1, {text}; }}");
        let m = tmemu_ptx::parse(&src).unwrap();
        let mut all = Vec::new();
        instructions(
            &m.functions()
                .next()
                .unwrap()
                .body
                .as_ref()
                .unwrap()
                .statements,
            &mut all,
        );
        assert_eq!(all[0].operands[1].kind, OperandKind::Int(want), "{text}");
    }
}
