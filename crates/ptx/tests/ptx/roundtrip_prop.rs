//! Property: for random trees built from the whole grammar (not only what the corpus holds),
//! print → parse gives the same tree (spans aside). Names come from fixed pools; modifier
//! lists are random combinations of tcgen05/memory modifiers.

use proptest::collection::vec;
use proptest::prelude::*;
use tmemu_ptx::ast::*;
use tmemu_ptx::span::Span;
use tmemu_ptx::spanless::ClearSpans;

const D: Span = Span::DUMMY;

fn ident(name: &'static str) -> Ident<'static> {
    Ident { name, span: D }
}

fn reg() -> impl Strategy<Value = Ident<'static>> {
    prop::sample::select(vec![
        "%r1",
        "%rd22",
        "%p3",
        "%tid.x",
        "%cluster_ctarank",
        "foo",
        "$L__BB0_1",
        "_Z3k_param_0",
        "%f7",
    ])
    .prop_map(ident)
}

fn label() -> impl Strategy<Value = Ident<'static>> {
    prop::sample::select(vec!["$L__BB0_1", "L2", "$Lloop"]).prop_map(ident)
}

fn scalar_type() -> impl Strategy<Value = ScalarType> {
    use ScalarType::*;
    prop::sample::select(vec![
        Pred, B8, B16, B32, B64, B128, U8, U32, U64, S16, S32, S64, F16, F16x2, Bf16, Bf16x2, Tf32,
        F32, F64, E4m3, E5m2, E2m1x2, Ue8m0, S4, U2, TexRef, SamplerRef, SurfRef,
    ])
}

fn float() -> impl Strategy<Value = FloatLit> {
    prop_oneof![
        any::<u32>().prop_map(FloatLit::F32Bits),
        any::<u64>().prop_map(FloatLit::F64Bits),
        any::<f64>()
            .prop_filter("finite", |v| v.is_finite())
            .prop_map(FloatLit::Decimal),
    ]
}

fn operand(call: bool) -> impl Strategy<Value = Operand<'static>> {
    let leaf = prop_oneof![
        reg().prop_map(OperandKind::Ident),
        reg().prop_map(OperandKind::Not),
        (reg(), any::<i64>()).prop_map(|(i, o)| OperandKind::SymbolOffset(i, o)),
        any::<i64>().prop_map(OperandKind::Int),
        float().prop_map(OperandKind::Float),
        (reg(), reg()).prop_map(|(a, b)| OperandKind::PredPair(a, b)),
        Just(OperandKind::Sink),
        (prop::option::of(reg()), any::<i64>()).prop_map(|(base, offset)| OperandKind::Address(
            Address {
                base,
                offset,
                rest: vec![]
            }
        )),
    ];
    let tree =
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                vec(
                    inner.clone().prop_map(|kind| Operand { kind, span: D }),
                    0..4
                )
                .prop_map(OperandKind::Vector),
                (
                    prop::option::of(reg()),
                    any::<i64>(),
                    vec(inner.prop_map(|kind| Operand { kind, span: D }), 1..3)
                )
                    .prop_map(|(base, offset, rest)| OperandKind::Address(
                        Address { base, offset, rest }
                    )),
            ]
        });
    let kind = if call {
        prop_oneof![
            tree.clone(),
            vec(tree.prop_map(|kind| Operand { kind, span: D }), 0..3).prop_map(OperandKind::List)
        ]
        .boxed()
    } else {
        tree.boxed()
    };
    kind.prop_map(|kind| Operand { kind, span: D })
}

const MODS: &[&str] = &[
    ".global",
    ".shared::cta",
    ".nc",
    ".v4",
    ".b32",
    ".f16x2",
    ".cta_group::2",
    ".16x32bx2",
    ".warpx2::02_13",
    ".kind::f8f6f4",
    ".b8x16",
    ".b6x16_p32",
    ".mbarrier::complete_tx::bytes",
    ".L2::cache_hint",
    ".x128",
    ".sync",
    ".aligned",
    ".128x256b",
    ".2d",
];

fn instruction() -> impl Strategy<Value = Instruction<'static>> {
    let guard = prop::option::of((any::<bool>(), reg()).prop_map(|(negated, pred)| Guard {
        negated,
        pred,
        span: D,
    }));
    let name = prop::sample::select(vec!["add", "ld", "tcgen05", "frobnicate", "call", "mov"]);
    let mods = vec(prop::sample::select(MODS.to_vec()), 0..5)
        .prop_map(|m| -> &'static str { Box::leak(m.concat().into_boxed_str()) });
    (guard, name, mods).prop_flat_map(|(guard, name, mods)| {
        vec(operand(name == "call"), 0..5).prop_map(move |operands| Instruction {
            guard,
            name,
            modifiers: Modifiers(mods),
            operands,
            span: D,
            opcode_span: D,
        })
    })
}

fn expr() -> impl Strategy<Value = Expr<'static>> {
    let leaf = prop_oneof![
        any::<i64>().prop_map(|v| Expr::Int(v, D)),
        // A negative decimal prints as `-x`, which reads back as `Unary(Neg, x)`: not generated.
        (0.0f64..1e300).prop_map(|v| Expr::Float(FloatLit::Decimal(v), D)),
        any::<u32>().prop_map(|b| Expr::Float(FloatLit::F32Bits(b), D)),
        reg()
            .prop_filter("not a register", |i| !i.name.starts_with('%'))
            .prop_map(Expr::Symbol),
        reg().prop_map(Expr::Generic),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        use BinaryOp::*;
        prop_oneof![
            (
                prop::sample::select(vec![UnaryOp::Neg, UnaryOp::Not, UnaryOp::LogicalNot]),
                inner.clone()
            )
                .prop_map(|(op, e)| Expr::Unary(op, Box::new(e), D)),
            (
                prop::sample::select(vec![
                    Mul, Div, Rem, Add, Sub, Shl, Shr, Lt, Gt, Le, Ge, Eq, Ne, And, Xor, Or,
                    LogicalAnd, LogicalOr
                ]),
                inner.clone(),
                inner
            )
                .prop_map(|(op, l, r)| Expr::Binary(op, Box::new(l), Box::new(r), D)),
        ]
    })
}

fn initializer() -> impl Strategy<Value = Initializer<'static>> {
    expr()
        .prop_map(Initializer::Expr)
        .prop_recursive(2, 12, 4, |inner| {
            vec(inner, 0..4).prop_map(|v| Initializer::List(v, D))
        })
}

fn ptr_attr() -> impl Strategy<Value = Option<PtrAttr>> {
    prop::option::of(
        (
            prop::option::of(prop::sample::select(vec![
                StateSpace::Global,
                StateSpace::Shared,
                StateSpace::Const,
                StateSpace::Local,
            ])),
            prop::option::of(1u32..256),
        )
            .prop_map(|(space, align)| PtrAttr { space, align }),
    )
}

fn var_decl(spaces: Vec<StateSpace>, linkage: bool) -> impl Strategy<Value = VarDecl<'static>> {
    let lk = if linkage {
        prop::option::of(prop::sample::select(vec![
            Linkage::Extern,
            Linkage::Visible,
            Linkage::Weak,
            Linkage::Common,
        ]))
        .boxed()
    } else {
        Just(None).boxed()
    };
    (
        lk,
        prop::sample::select(spaces),
        prop::option::of(1u32..1024),
        prop::option::of(prop::sample::select(vec![2u8, 4, 8])),
        scalar_type(),
        ptr_attr(),
        reg(),
        prop::option::of(1u32..100),
        vec(prop::option::of(0u64..1 << 40), 0..3),
        prop::option::of(initializer()),
    )
        .prop_map(
            |(linkage, space, align, vector, ty, ptr, name, range, dims, init)| VarDecl {
                linkage,
                space,
                align,
                vector,
                ty,
                ptr,
                name,
                range,
                dims,
                init,
                span: D,
            },
        )
}

fn param() -> impl Strategy<Value = Param<'static>> {
    (
        prop::sample::select(vec![StateSpace::Param, StateSpace::Reg]),
        prop::option::of(1u32..64),
        prop::option::of(prop::sample::select(vec![2u8, 4])),
        scalar_type(),
        ptr_attr(),
        reg(),
        vec(prop::option::of(0u64..4096), 0..2),
    )
        .prop_map(|(space, align, vector, ty, ptr, name, dims)| Param {
            space,
            align,
            vector,
            ty,
            ptr,
            name,
            dims,
            span: D,
        })
}

fn pragma() -> impl Strategy<Value = Pragma<'static>> {
    vec(
        prop::sample::select(vec![
            "nounroll",
            "enable_smem_spilling",
            "used_bytes_mask 0xff",
        ]),
        1..3,
    )
    .prop_map(|strings| Pragma { strings, span: D })
}

fn loc() -> impl Strategy<Value = Loc<'static>> {
    (
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        prop::option::of((label(), any::<i64>())),
        prop::option::of((any::<u32>(), any::<u32>(), any::<u32>())),
    )
        .prop_map(|(file, line, col, f, inlined_at)| Loc {
            file,
            line,
            col,
            function_name: f.map(|(i, o)| (i.name, o)),
            inlined_at,
            span: D,
        })
}

fn statement() -> impl Strategy<Value = Statement<'static>> {
    let body_spaces = vec![
        StateSpace::Reg,
        StateSpace::Local,
        StateSpace::Shared,
        StateSpace::Param,
    ];
    let leaf = prop_oneof![
        4 => instruction().prop_map(Statement::Instruction),
        1 => label().prop_map(Statement::Label),
        1 => var_decl(body_spaces, false).prop_map(Statement::Variable),
        1 => loc().prop_map(Statement::Loc),
        1 => pragma().prop_map(Statement::Pragma),
        1 => vec(label(), 1..3).prop_map(|v| Statement::BranchTargets(v, D)),
        1 => vec(reg(), 1..3).prop_map(|v| Statement::CallTargets(v, D)),
        1 => (vec(param(), 0..2), vec(param(), 0..3), any::<bool>()).prop_map(|(returns, params, noreturn)| Statement::CallPrototype(CallPrototype { returns, params, noreturn, span: D })),
    ];
    leaf.prop_recursive(3, 40, 6, |inner| {
        vec(inner, 0..6).prop_map(|statements| {
            Statement::Block(Block {
                statements,
                span: D,
            })
        })
    })
}

fn perf() -> impl Strategy<Value = PerfDirective<'static>> {
    let dims = || vec(any::<u32>(), 1..4);
    prop_oneof![
        dims().prop_map(|v| PerfDirective::Reqntid(v, D)),
        dims().prop_map(|v| PerfDirective::Maxntid(v, D)),
        dims().prop_map(|v| PerfDirective::Reqnctapercluster(v, D)),
        any::<u32>().prop_map(|n| PerfDirective::Maxnreg(n, D)),
        any::<u32>().prop_map(|n| PerfDirective::Minnctapersm(n, D)),
        any::<u32>().prop_map(|n| PerfDirective::Maxnctapersm(n, D)),
        any::<u32>().prop_map(|n| PerfDirective::Maxclusterrank(n, D)),
        any::<u32>().prop_map(|n| PerfDirective::AbiPreserve(n, D)),
        any::<u32>().prop_map(|n| PerfDirective::AbiPreserveControl(n, D)),
        Just(PerfDirective::ExplicitCluster(D)),
        Just(PerfDirective::BlocksAreClusters(D)),
        pragma().prop_map(PerfDirective::Pragma),
    ]
}

fn function() -> impl Strategy<Value = Function<'static>> {
    (
        prop::option::of(prop::sample::select(vec![
            Linkage::Extern,
            Linkage::Visible,
            Linkage::Weak,
        ])),
        any::<bool>(),
        vec(param(), 0..2),
        reg(),
        prop::option::of(vec(param(), 0..4)),
        any::<bool>(),
        vec(perf(), 0..3),
        prop::option::weighted(0.8, vec(statement(), 0..12)),
    )
        .prop_map(
            |(linkage, entry, returns, name, params, noreturn, perf, body)| Function {
                linkage,
                kind: if entry {
                    FunctionKind::Entry
                } else {
                    FunctionKind::Func
                },
                returns: if entry { vec![] } else { returns },
                name,
                params,
                noreturn,
                perf,
                body: body.map(|statements| Block {
                    statements,
                    span: D,
                }),
                span: D,
            },
        )
}

fn module() -> impl Strategy<Value = Module<'static>> {
    let item = prop_oneof![
        1 => any::<u32>().prop_map(|bits| ModuleItem::AddressSize(AddressSize { bits, span: D })),
        1 => (any::<u32>(), prop::sample::select(vec!["a.cu", "/x/y z.h", ""]), prop::option::of((any::<u64>(), prop::option::of(any::<u64>()))))
            .prop_map(|(index, path, ts)| ModuleItem::File(FileDirective { index, path, timestamp: ts.map(|t| t.0), size: ts.and_then(|t| t.1), span: D })),
        1 => loc().prop_map(ModuleItem::Loc),
        1 => pragma().prop_map(ModuleItem::Pragma),
        1 => prop::sample::select(vec!["", " .b8 1, 2 ", "\n$L__s:\n.b32 {nested} \"q\" // c\n"])
            .prop_map(|body| ModuleItem::Section(Section { name: ".debug_info", body, span: D })),
        2 => var_decl(vec![StateSpace::Global, StateSpace::Shared, StateSpace::Const], true).prop_map(ModuleItem::Variable),
        1 => (reg(), reg()).prop_map(|(alias, target)| ModuleItem::Alias(Alias { alias, target, span: D })),
        8 => function().prop_map(ModuleItem::Function),
    ];
    (
        0u32..20,
        0u32..10,
        vec(
            prop::sample::select(vec!["sm_100a", "debug", "texmode_independent"]),
            1..3,
        ),
        vec(item, 0..6),
    )
        .prop_map(|(major, minor, names, rest)| {
            let mut items = vec![
                ModuleItem::Version(Version {
                    major,
                    minor,
                    span: D,
                }),
                ModuleItem::Target(Target { names, span: D }),
            ];
            items.extend(rest);
            Module { items }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn print_then_parse_is_identity(m in module()) {
        let printed = m.to_string();
        let mut back = match tmemu_ptx::parse(&printed) {
            Ok(b) => b,
            Err(e) => return Err(TestCaseError::fail(format!("{}\n---\n{printed}", e.render("<printed>")))),
        };
        back.clear_spans();
        prop_assert_eq!(&back, &m, "{}", printed);
    }
}

/// The generator really produces rich trees (guards against a vacuous property).
#[test]
fn generated_modules_are_not_trivial() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut instrs, mut funcs, mut bytes) = (0, 0, 0);
    for _ in 0..200 {
        let m = module().new_tree(&mut runner).unwrap().current();
        instrs += m.instruction_count();
        funcs += m.functions().count();
        bytes += m.to_string().len();
    }
    eprintln!("200 generated modules: {funcs} functions, {instrs} instructions, {bytes} bytes");
    assert!(funcs > 150 && instrs > 1000, "{funcs} {instrs}");
}
