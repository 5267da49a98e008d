//! The typed PTX syntax tree.
//!
//! Every node borrows its names from the source text (`&'src str`), so parsing allocates only
//! the `Vec`s that hold lists (items, statements, operands); no per-token `String`s.
//! Every directive, statement and operand carries a [`Span`].
//!
//! The tree is syntactic: names are not resolved (an [`Ident`] operand may be a register, a
//! variable, a label or a function), and instruction modifiers are kept as written
//! ([`Modifiers`]); `crate::decode` turns them into typed values for a loader.

use crate::span::Span;

/// A parsed `.ptx` file: its top-level items in source order.
#[derive(Clone, Debug, PartialEq)]
pub struct Module<'src> {
    pub items: Vec<ModuleItem<'src>>,
}

impl<'src> Module<'src> {
    /// The `.version` directive, if present.
    pub fn version(&self) -> Option<&Version> {
        self.items.iter().find_map(|i| match i {
            ModuleItem::Version(v) => Some(v),
            _ => None,
        })
    }

    /// The `.target` directive, if present.
    pub fn target(&self) -> Option<&Target<'src>> {
        self.items.iter().find_map(|i| match i {
            ModuleItem::Target(t) => Some(t),
            _ => None,
        })
    }

    /// The `.address_size` value, if given.
    pub fn address_size(&self) -> Option<u32> {
        self.items.iter().find_map(|i| match i {
            ModuleItem::AddressSize(a) => Some(a.bits),
            _ => None,
        })
    }

    /// All `.entry` and `.func` declarations and definitions, in order.
    pub fn functions(&self) -> impl Iterator<Item = &Function<'src>> {
        self.items.iter().filter_map(|i| match i {
            ModuleItem::Function(f) => Some(f),
            _ => None,
        })
    }

    /// The first function (declaration or definition) named `name`; a definition wins over
    /// an earlier declaration.
    pub fn function(&self, name: &str) -> Option<&Function<'src>> {
        let mut found = None;
        for f in self.functions().filter(|f| f.name.name == name) {
            if f.body.is_some() {
                return Some(f);
            }
            found = found.or(Some(f));
        }
        found
    }

    /// Kernels (`.entry`) only.
    pub fn entries(&self) -> impl Iterator<Item = &Function<'src>> {
        self.functions().filter(|f| f.kind == FunctionKind::Entry)
    }

    /// Module-scope variables (`.global`, `.shared`, `.const`, ...).
    pub fn variables(&self) -> impl Iterator<Item = &VarDecl<'src>> {
        self.items.iter().filter_map(|i| match i {
            ModuleItem::Variable(v) => Some(v),
            _ => None,
        })
    }

    /// The `.file` table.
    pub fn files(&self) -> impl Iterator<Item = &FileDirective<'src>> {
        self.items.iter().filter_map(|i| match i {
            ModuleItem::File(f) => Some(f),
            _ => None,
        })
    }

    /// Number of instructions in all function bodies (nested blocks included).
    pub fn instruction_count(&self) -> usize {
        self.functions()
            .filter_map(|f| f.body.as_ref())
            .map(Block::instruction_count)
            .sum()
    }
}

/// One top-level item.
#[derive(Clone, Debug, PartialEq)]
pub enum ModuleItem<'src> {
    Version(Version),
    Target(Target<'src>),
    AddressSize(AddressSize),
    File(FileDirective<'src>),
    Loc(Loc<'src>),
    Pragma(Pragma<'src>),
    Section(Section<'src>),
    Variable(VarDecl<'src>),
    Function(Function<'src>),
    /// `.alias fAlias, fOriginal;`
    Alias(Alias<'src>),
}

/// `.alias alias, target;` — a second name for a function (PTX ISA 6.3+).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Alias<'src> {
    pub alias: Ident<'src>,
    pub target: Ident<'src>,
    pub span: Span,
}

/// `.version 9.0`
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub span: Span,
}

/// `.target sm_100a, debug` — the target names as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Target<'src> {
    pub names: Vec<&'src str>,
    pub span: Span,
}

impl Target<'_> {
    /// The `sm_*` name (first entry that starts with `sm_` or `compute_`).
    pub fn sm(&self) -> Option<&str> {
        self.names
            .iter()
            .copied()
            .find(|n| n.starts_with("sm_") || n.starts_with("compute_"))
    }
}

/// `.address_size 64`
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddressSize {
    pub bits: u32,
    pub span: Span,
}

/// `.file 1 "path" [, timestamp, size]`
#[derive(Clone, Debug, PartialEq)]
pub struct FileDirective<'src> {
    pub index: u32,
    /// The path between the quotes, escapes left as written.
    pub path: &'src str,
    pub timestamp: Option<u64>,
    pub size: Option<u64>,
    pub span: Span,
}

/// `.loc file line col [, function_name label [+ off]] [, inlined_at file line col]`
#[derive(Clone, Debug, PartialEq)]
pub struct Loc<'src> {
    pub file: u32,
    pub line: u32,
    pub col: u32,
    pub function_name: Option<(&'src str, i64)>,
    pub inlined_at: Option<(u32, u32, u32)>,
    pub span: Span,
}

/// `.pragma "a", "b";` — strings as written between the quotes.
#[derive(Clone, Debug, PartialEq)]
pub struct Pragma<'src> {
    pub strings: Vec<&'src str>,
    pub span: Span,
}

/// `.section .debug_info { ... }` — kept as raw text: tmemu never interprets DWARF sections.
#[derive(Clone, Debug, PartialEq)]
pub struct Section<'src> {
    /// Section name with its leading dot, e.g. `.debug_info`.
    pub name: &'src str,
    /// Text between the braces, verbatim.
    pub body: &'src str,
    pub span: Span,
}

/// A name as written, with where it was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ident<'src> {
    pub name: &'src str,
    pub span: Span,
}

/// `.extern`, `.visible`, `.weak`, `.common`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    Extern,
    Visible,
    Weak,
    Common,
}

/// State spaces of declarations and of instruction modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    Shared,
    /// `.shared::cta`
    SharedCta,
    /// `.shared::cluster`
    SharedCluster,
    Tex,
}

impl StateSpace {
    /// Every state space.
    pub const ALL: [StateSpace; 10] = [
        StateSpace::Reg,
        StateSpace::Sreg,
        StateSpace::Const,
        StateSpace::Global,
        StateSpace::Local,
        StateSpace::Param,
        StateSpace::Shared,
        StateSpace::SharedCta,
        StateSpace::SharedCluster,
        StateSpace::Tex,
    ];

    /// The space named `name` (without its dot: `global`, `shared::cta`).
    pub fn from_name(name: &str) -> Option<StateSpace> {
        Some(match name {
            "reg" => StateSpace::Reg,
            "sreg" => StateSpace::Sreg,
            "const" => StateSpace::Const,
            "global" => StateSpace::Global,
            "local" => StateSpace::Local,
            "param" => StateSpace::Param,
            "shared" => StateSpace::Shared,
            "shared::cta" => StateSpace::SharedCta,
            "shared::cluster" => StateSpace::SharedCluster,
            "tex" => StateSpace::Tex,
            _ => return None,
        })
    }

    /// The directive spelling, with its dot.
    pub fn as_str(self) -> &'static str {
        match self {
            StateSpace::Reg => ".reg",
            StateSpace::Sreg => ".sreg",
            StateSpace::Const => ".const",
            StateSpace::Global => ".global",
            StateSpace::Local => ".local",
            StateSpace::Param => ".param",
            StateSpace::Shared => ".shared",
            StateSpace::SharedCta => ".shared::cta",
            StateSpace::SharedCluster => ".shared::cluster",
            StateSpace::Tex => ".tex",
        }
    }
}

/// Fundamental and opaque types that may appear in declarations and type modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    Pred,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    Tf32,
    F32,
    F64,
    E4m3,
    E5m2,
    E4m3x2,
    E5m2x2,
    E2m3,
    E3m2,
    E2m1,
    E2m3x2,
    E3m2x2,
    E2m1x2,
    Ue8m0,
    Ue8m0x2,
    S4,
    U4,
    S2,
    U2,
    TexRef,
    SamplerRef,
    SurfRef,
}

impl ScalarType {
    /// Every type.
    pub const ALL: [ScalarType; 40] = {
        use ScalarType::*;
        [
            Pred, B8, B16, B32, B64, B128, U8, U16, U32, U64, S8, S16, S32, S64, F16, F16x2, Bf16,
            Bf16x2, Tf32, F32, F64, E4m3, E5m2, E4m3x2, E5m2x2, E2m3, E3m2, E2m1, E2m3x2, E3m2x2,
            E2m1x2, Ue8m0, Ue8m0x2, S4, U4, S2, U2, TexRef, SamplerRef, SurfRef,
        ]
    };

    /// The type named `name` (without its dot: `b32`, `e4m3x2`).
    pub fn from_name(name: &str) -> Option<ScalarType> {
        use ScalarType::*;
        Some(match name {
            "pred" => Pred,
            "b8" => B8,
            "b16" => B16,
            "b32" => B32,
            "b64" => B64,
            "b128" => B128,
            "u8" => U8,
            "u16" => U16,
            "u32" => U32,
            "u64" => U64,
            "s8" => S8,
            "s16" => S16,
            "s32" => S32,
            "s64" => S64,
            "f16" => F16,
            "f16x2" => F16x2,
            "bf16" => Bf16,
            "bf16x2" => Bf16x2,
            "tf32" => Tf32,
            "f32" => F32,
            "f64" => F64,
            "e4m3" => E4m3,
            "e5m2" => E5m2,
            "e4m3x2" => E4m3x2,
            "e5m2x2" => E5m2x2,
            "e2m3" => E2m3,
            "e3m2" => E3m2,
            "e2m1" => E2m1,
            "e2m3x2" => E2m3x2,
            "e3m2x2" => E3m2x2,
            "e2m1x2" => E2m1x2,
            "ue8m0" => Ue8m0,
            "ue8m0x2" => Ue8m0x2,
            "s4" => S4,
            "u4" => U4,
            "s2" => S2,
            "u2" => U2,
            "texref" => TexRef,
            "samplerref" => SamplerRef,
            "surfref" => SurfRef,
            _ => return None,
        })
    }

    /// The type spelling, with its dot.
    pub fn as_str(self) -> &'static str {
        use ScalarType::*;
        match self {
            Pred => ".pred",
            B8 => ".b8",
            B16 => ".b16",
            B32 => ".b32",
            B64 => ".b64",
            B128 => ".b128",
            U8 => ".u8",
            U16 => ".u16",
            U32 => ".u32",
            U64 => ".u64",
            S8 => ".s8",
            S16 => ".s16",
            S32 => ".s32",
            S64 => ".s64",
            F16 => ".f16",
            F16x2 => ".f16x2",
            Bf16 => ".bf16",
            Bf16x2 => ".bf16x2",
            Tf32 => ".tf32",
            F32 => ".f32",
            F64 => ".f64",
            E4m3 => ".e4m3",
            E5m2 => ".e5m2",
            E4m3x2 => ".e4m3x2",
            E5m2x2 => ".e5m2x2",
            E2m3 => ".e2m3",
            E3m2 => ".e3m2",
            E2m1 => ".e2m1",
            E2m3x2 => ".e2m3x2",
            E3m2x2 => ".e3m2x2",
            E2m1x2 => ".e2m1x2",
            Ue8m0 => ".ue8m0",
            Ue8m0x2 => ".ue8m0x2",
            S4 => ".s4",
            U4 => ".u4",
            S2 => ".s2",
            U2 => ".u2",
            TexRef => ".texref",
            SamplerRef => ".samplerref",
            SurfRef => ".surfref",
        }
    }
}

/// `.entry` (kernel) or `.func` (device function).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Func,
}

/// A kernel or device function: a declaration (`body == None`, ends in `;`) or definition.
#[derive(Clone, Debug, PartialEq)]
pub struct Function<'src> {
    pub linkage: Option<Linkage>,
    pub kind: FunctionKind,
    /// `.func (.param .b32 r) f(...)`: the return parameters (empty for none).
    pub returns: Vec<Param<'src>>,
    pub name: Ident<'src>,
    /// `None` when the parameter list is absent (`.func f;` or `.entry k`), `Some(vec![])` for `()`.
    pub params: Option<Vec<Param<'src>>>,
    pub noreturn: bool,
    pub perf: Vec<PerfDirective<'src>>,
    pub body: Option<Block<'src>>,
    pub span: Span,
}

/// A kernel/function parameter (or `.callprototype` parameter, whose name may be `_`).
#[derive(Clone, Debug, PartialEq)]
pub struct Param<'src> {
    /// `.param` or `.reg` (device-function parameters may be registers).
    pub space: StateSpace,
    pub align: Option<u32>,
    /// `.v2` / `.v4` / `.v8`
    pub vector: Option<u8>,
    pub ty: ScalarType,
    /// `.ptr[.space][.align N]` attribute of a kernel pointer parameter.
    pub ptr: Option<PtrAttr>,
    pub name: Ident<'src>,
    /// `[N]` dimensions; `None` for `[]`.
    pub dims: Vec<Option<u64>>,
    pub span: Span,
}

/// `.ptr.global.align 16` (space and align both optional).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtrAttr {
    pub space: Option<StateSpace>,
    pub align: Option<u32>,
}

/// Performance-tuning directives between a function's header and body.
#[derive(Clone, Debug, PartialEq)]
pub enum PerfDirective<'src> {
    Reqntid(Vec<u32>, Span),
    Maxntid(Vec<u32>, Span),
    Maxnreg(u32, Span),
    Minnctapersm(u32, Span),
    Maxnctapersm(u32, Span),
    ExplicitCluster(Span),
    Reqnctapercluster(Vec<u32>, Span),
    Maxclusterrank(u32, Span),
    /// `.blocksareclusters`
    BlocksAreClusters(Span),
    /// `.abi_preserve N` (PTX 9.0: registers a callee preserves across calls).
    AbiPreserve(u32, Span),
    /// `.abi_preserve_control N`
    AbiPreserveControl(u32, Span),
    /// `.pragma "...";` placed in a function header.
    Pragma(Pragma<'src>),
}

/// A variable, register or parameter declaration with exactly one declarator.
/// `.reg .b32 %r<5>, %x;` parses to two `VarDecl`s that share the statement's span start.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl<'src> {
    pub linkage: Option<Linkage>,
    pub space: StateSpace,
    pub align: Option<u32>,
    pub vector: Option<u8>,
    pub ty: ScalarType,
    /// `.ptr` attribute (only in `.param` declarations).
    pub ptr: Option<PtrAttr>,
    pub name: Ident<'src>,
    /// `%r<5>` declares `%r0` .. `%r4`.
    pub range: Option<u32>,
    /// Array dimensions; `None` for `[]` (size from initializer or `.extern`).
    pub dims: Vec<Option<u64>>,
    pub init: Option<Initializer<'src>>,
    pub span: Span,
}

/// A variable initializer: a constant expression or a `{ ... }` list (nested for multi-dim).
#[derive(Clone, Debug, PartialEq)]
pub enum Initializer<'src> {
    Expr(Expr<'src>),
    List(Vec<Initializer<'src>>, Span),
}

/// Constant and address expressions of initializers.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr<'src> {
    Int(i64, Span),
    Float(FloatLit, Span),
    Symbol(Ident<'src>),
    /// `generic(var)`
    Generic(Ident<'src>),
    Unary(UnaryOp, Box<Expr<'src>>, Span),
    Binary(BinaryOp, Box<Expr<'src>>, Box<Expr<'src>>, Span),
}

/// The value of a constant expression (see [`Expr::fold`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Constant {
    /// 64-bit two's complement.
    Int(i64),
    Float(FloatLit),
}

impl Expr<'_> {
    /// Folds a constant expression (no symbols) exactly as the parser folds operand
    /// immediates: PTX `.s64`/`.u64` typing, `%` unsigned as in ptxas 13.5. `src` is the text
    /// the tree was parsed from (a literal's `U` suffix is read from it). For loaders that
    /// evaluate initializers; an expression naming a symbol is an error.
    pub fn fold(&self, src: &str) -> Result<Constant, crate::ParseError> {
        Ok(match crate::parser::eval(self, src)? {
            crate::parser::Const::Int(v) => Constant::Int(v as i64),
            crate::parser::Const::Float(f) => Constant::Float(f),
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Not,
    LogicalNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    And,
    Xor,
    Or,
    LogicalAnd,
    LogicalOr,
}

/// A floating-point literal, kept bit-exact in the form written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FloatLit {
    /// `0fXXXXXXXX`: IEEE single bits.
    F32Bits(u32),
    /// `0dXXXXXXXXXXXXXXXX`: IEEE double bits.
    F64Bits(u64),
    /// `1.5`, `2e-3`: a decimal literal (PTX reads it as double).
    Decimal(f64),
}

impl FloatLit {
    pub fn as_f64(self) -> f64 {
        match self {
            FloatLit::F32Bits(b) => f32::from_bits(b) as f64,
            FloatLit::F64Bits(b) => f64::from_bits(b),
            FloatLit::Decimal(v) => v,
        }
    }
}

/// `{ ... }`: a function body or a nested scope.
#[derive(Clone, Debug, PartialEq)]
pub struct Block<'src> {
    pub statements: Vec<Statement<'src>>,
    pub span: Span,
}

impl Block<'_> {
    /// Instructions in this block and its nested blocks.
    pub fn instruction_count(&self) -> usize {
        self.statements
            .iter()
            .map(|s| match s {
                Statement::Instruction(_) => 1,
                Statement::Block(b) => b.instruction_count(),
                _ => 0,
            })
            .sum()
    }
}

/// One statement of a body.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement<'src> {
    Label(Ident<'src>),
    Instruction(Instruction<'src>),
    Variable(VarDecl<'src>),
    Block(Block<'src>),
    Loc(Loc<'src>),
    Pragma(Pragma<'src>),
    /// `.branchtargets L1, L2;` (its name is the preceding label).
    BranchTargets(Vec<Ident<'src>>, Span),
    /// `.calltargets f1, f2;` (its name is the preceding label).
    CallTargets(Vec<Ident<'src>>, Span),
    /// `.callprototype (.param .b32 _) _ (.param .b32 _);` (its name is the preceding label).
    CallPrototype(CallPrototype<'src>),
}

/// A `.callprototype` signature.
#[derive(Clone, Debug, PartialEq)]
pub struct CallPrototype<'src> {
    pub returns: Vec<Param<'src>>,
    pub params: Vec<Param<'src>>,
    pub noreturn: bool,
    pub span: Span,
}

/// `@p` / `@!p`
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard<'src> {
    pub negated: bool,
    pub pred: Ident<'src>,
    pub span: Span,
}

/// The dot-separated modifiers of an opcode, as written (`.global.nc.v4.b32`).
///
/// Stored as one borrowed slice so parsing does not allocate per instruction; iterate with
/// [`Modifiers::iter`] (each item without its leading dot, e.g. `cta_group::2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Modifiers<'src>(pub &'src str);

impl<'src> Modifiers<'src> {
    /// Each modifier without its leading dot: the pieces `split('.').skip(1)` gives.
    pub fn iter(&self) -> impl Iterator<Item = &'src str> + Clone {
        // a byte scan, not `str::split`: the loader and the checkers split every
        // instruction's modifiers, and `Split` + `Skip` cost ~170 instructions per opcode
        ModIter {
            rest: self.0.find('.').map(|i| &self.0[i + 1..]),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn len(&self) -> usize {
        self.iter().count()
    }
    /// Whether modifier `m` (without dot) is present.
    pub fn contains(&self, m: &str) -> bool {
        self.iter().any(|x| x == m)
    }
    /// The text as written, leading dot included (empty when there are none).
    pub fn as_str(&self) -> &'src str {
        self.0
    }
}

/// [`Modifiers::iter`]: `rest` is the text after the last dot consumed, `None` once the
/// piece after the last dot has been given.
#[derive(Clone)]
struct ModIter<'src> {
    rest: Option<&'src str>,
}

impl<'src> Iterator for ModIter<'src> {
    type Item = &'src str;

    #[inline]
    fn next(&mut self) -> Option<&'src str> {
        let rest = self.rest?;
        match rest.bytes().position(|b| b == b'.') {
            Some(i) => {
                self.rest = Some(&rest[i + 1..]);
                Some(&rest[..i])
            }
            None => {
                self.rest = None;
                Some(rest)
            }
        }
    }
}

/// An instruction in generic form: guard, opcode name, modifiers, operands.
/// An opcode the tools do not know is still an `Instruction`; later stages say "unsupported".
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction<'src> {
    pub guard: Option<Guard<'src>>,
    /// `ld` in `ld.global.nc.v4.b32`.
    pub name: &'src str,
    pub modifiers: Modifiers<'src>,
    pub operands: Vec<Operand<'src>>,
    /// From the guard (or opcode) to the `;` inclusive.
    pub span: Span,
    /// Span of the opcode with its modifiers.
    pub opcode_span: Span,
}

impl<'src> Instruction<'src> {
    /// `ld.global.nc.v4.b32` as written.
    pub fn opcode(&self, src: &'src str) -> &'src str {
        self.opcode_span.text(src)
    }

    /// The opcode with its modifiers for messages (`unsupported: ld.global.nc.v4.b32`),
    /// without needing the source text.
    pub fn opcode_display(&self) -> impl std::fmt::Display + '_ {
        struct Opcode<'a, 'src>(&'a Instruction<'src>);
        impl std::fmt::Display for Opcode<'_, '_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}{}", self.0.name, self.0.modifiers.as_str())
            }
        }
        Opcode(self)
    }
}

/// An operand with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand<'src> {
    pub kind: OperandKind<'src>,
    pub span: Span,
}

/// Operand forms.
#[derive(Clone, Debug, PartialEq)]
pub enum OperandKind<'src> {
    /// A register, special register (`%tid.x`), variable, label or function name: resolved later.
    Ident(Ident<'src>),
    /// `!%p` (negated predicate source).
    Not(Ident<'src>),
    /// `sym+4`, `sym-4` (address of a variable plus offset).
    SymbolOffset(Ident<'src>, i64),
    /// Integer immediate (constant expressions are folded; 64-bit two's complement).
    Int(i64),
    Float(FloatLit),
    /// `{a, b, _, {c, d}}`
    Vector(Vec<Operand<'src>>),
    /// `[...]` memory operand.
    Address(Address<'src>),
    /// `%p|%q` (setp's two destination predicates); a sink side (`_|%p`) is an Ident named `_`.
    PredPair(Ident<'src>, Ident<'src>),
    /// `_`
    Sink,
    /// `(a, b)` argument/return lists of `call`.
    List(Vec<Operand<'src>>),
}

/// `[base+offset]`, `[imm]`, or a list `[tmap, {x, y}]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Address<'src> {
    /// `None` for an absolute address `[imm]`.
    pub base: Option<Ident<'src>>,
    pub offset: i64,
    /// Further comma-separated items after the first (`[tmap, {c0, c1}]`, `tex` forms).
    pub rest: Vec<Operand<'src>>,
}

#[cfg(test)]
mod tests {
    use super::Modifiers;
    use proptest::prelude::*;

    proptest! {
        /// The byte scan of `Modifiers::iter` gives what `split('.').skip(1)` gave: empty
        /// pieces (`..`, a trailing dot), text before the first dot, no dot at all, and
        /// multi-byte characters next to dots.
        #[test]
        fn modifiers_split_as_str_split_did(s in "[.ab:é]{0,12}") {
            let m = Modifiers(&s);
            let old: Vec<&str> = s.split('.').skip(1).collect();
            prop_assert_eq!(m.iter().collect::<Vec<_>>(), old.clone());
            prop_assert_eq!(m.iter().clone().count(), old.len());
            for x in ["a", "b", "", "ab", "é"] {
                prop_assert_eq!(m.contains(x), old.contains(&x));
            }
        }
    }
}
