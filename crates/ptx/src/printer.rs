//! Prints a syntax tree back as PTX (`Display`). The output parses to the same tree (spans
//! aside): comments and layout are not kept, folded constant expressions print as values.

use std::fmt::{self, Display, Formatter, Write};

use crate::ast::*;

impl Display for Module<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for item in &self.items {
            writeln!(f, "{item}")?;
        }
        Ok(())
    }
}

impl Display for ModuleItem<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ModuleItem::Version(v) => write!(f, ".version {}.{}", v.major, v.minor),
            ModuleItem::Target(t) => write!(f, ".target {}", t.names.join(", ")),
            ModuleItem::AddressSize(a) => write!(f, ".address_size {}", a.bits),
            ModuleItem::File(d) => {
                write!(f, ".file {} \"{}\"", d.index, d.path)?;
                if let Some(t) = d.timestamp {
                    write!(f, ", {t}")?;
                    if let Some(s) = d.size {
                        write!(f, ", {s}")?;
                    }
                }
                Ok(())
            }
            ModuleItem::Loc(l) => write!(f, "{l}"),
            ModuleItem::Pragma(p) => write!(f, "{p}"),
            ModuleItem::Section(s) => write!(f, ".section {} {{{}}}", s.name, s.body),
            ModuleItem::Variable(v) => write!(f, "{v}"),
            ModuleItem::Function(func) => write!(f, "{func}"),
            ModuleItem::Alias(a) => write!(f, ".alias {}, {};", a.alias.name, a.target.name),
        }
    }
}

impl Display for Loc<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, ".loc {} {} {}", self.file, self.line, self.col)?;
        if let Some((name, off)) = self.function_name {
            write!(f, ", function_name {name}")?;
            if off != 0 {
                write!(f, "{off:+}")?;
            }
        }
        if let Some((a, b, c)) = self.inlined_at {
            write!(f, ", inlined_at {a} {b} {c}")?;
        }
        Ok(())
    }
}

impl Display for Pragma<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(".pragma ")?;
        for (i, s) in self.strings.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "\"{s}\"")?;
        }
        f.write_str(";")
    }
}

impl Display for Linkage {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Linkage::Extern => ".extern",
            Linkage::Visible => ".visible",
            Linkage::Weak => ".weak",
            Linkage::Common => ".common",
        })
    }
}

impl Display for StateSpace {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Display for ScalarType {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

fn write_dims(f: &mut Formatter<'_>, dims: &[Option<u64>]) -> fmt::Result {
    for d in dims {
        match d {
            Some(n) => write!(f, "[{n}]")?,
            None => f.write_str("[]")?,
        }
    }
    Ok(())
}

fn write_ptr(f: &mut Formatter<'_>, p: &PtrAttr) -> fmt::Result {
    f.write_str(" .ptr")?;
    if let Some(s) = p.space {
        f.write_str(s.as_str())?;
    }
    if let Some(a) = p.align {
        write!(f, ".align {a}")?;
    }
    Ok(())
}

impl Display for VarDecl<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(l) = self.linkage {
            write!(f, "{l} ")?;
        }
        write!(f, "{}", self.space)?;
        if let Some(a) = self.align {
            write!(f, " .align {a}")?;
        }
        if let Some(v) = self.vector {
            write!(f, " .v{v}")?;
        }
        write!(f, " {}", self.ty)?;
        if let Some(p) = &self.ptr {
            write_ptr(f, p)?;
        }
        write!(f, " {}", self.name.name)?;
        if let Some(r) = self.range {
            write!(f, "<{r}>")?;
        }
        write_dims(f, &self.dims)?;
        if let Some(init) = &self.init {
            write!(f, " = {init}")?;
        }
        f.write_str(";")
    }
}

impl Display for Initializer<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Initializer::Expr(e) => write!(f, "{e}"),
            Initializer::List(items, _) => {
                f.write_char('{')?;
                for (i, it) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{it}")?;
                }
                f.write_char('}')
            }
        }
    }
}

impl Display for FloatLit {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            FloatLit::F32Bits(b) => write!(f, "0f{b:08X}"),
            FloatLit::F64Bits(b) => write!(f, "0d{b:016X}"),
            // Non-finite decimals cannot be written in decimal; print their exact bits.
            FloatLit::Decimal(v) if !v.is_finite() => write!(f, "0d{:016X}", v.to_bits()),
            // `{:?}` prints the shortest text that reads back to the same f64, always with a
            // `.` or an exponent, so it lexes as a float.
            FloatLit::Decimal(v) => write!(f, "{v:?}"),
        }
    }
}

impl Display for Expr<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            // Literals are non-negative (negation is `Unary`): print the u64 they were read as.
            Expr::Int(v, _) => write!(f, "{}", *v as u64),
            Expr::Float(v, _) => write!(f, "{v}"),
            Expr::Symbol(i) => f.write_str(i.name),
            Expr::Generic(i) => write!(f, "generic({})", i.name),
            Expr::Unary(op, e, _) => {
                let o = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Not => "~",
                    UnaryOp::LogicalNot => "!",
                };
                write!(f, "{o}({e})")
            }
            Expr::Binary(op, l, r, _) => {
                use BinaryOp::*;
                let o = match op {
                    Mul => "*",
                    Div => "/",
                    Rem => "%",
                    Add => "+",
                    Sub => "-",
                    Shl => "<<",
                    Shr => ">>",
                    Lt => "<",
                    Gt => ">",
                    Le => "<=",
                    Ge => ">=",
                    Eq => "==",
                    Ne => "!=",
                    And => "&",
                    Xor => "^",
                    Or => "|",
                    LogicalAnd => "&&",
                    LogicalOr => "||",
                };
                write!(f, "({l} {o} {r})")
            }
        }
    }
}

/// Integers print in decimal; `i64::MIN` has no positive literal, so it prints in hex.
fn write_int(f: &mut Formatter<'_>, v: i64) -> fmt::Result {
    if v == i64::MIN {
        write!(f, "0x{:X}", v as u64)
    } else {
        write!(f, "{v}")
    }
}

impl Display for Param<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.space)?;
        if let Some(a) = self.align {
            write!(f, " .align {a}")?;
        }
        if let Some(v) = self.vector {
            write!(f, " .v{v}")?;
        }
        write!(f, " {}", self.ty)?;
        if let Some(p) = &self.ptr {
            write_ptr(f, p)?;
        }
        write!(f, " {}", self.name.name)?;
        write_dims(f, &self.dims)
    }
}

fn write_params(f: &mut Formatter<'_>, params: &[Param<'_>]) -> fmt::Result {
    f.write_char('(')?;
    for (i, p) in params.iter().enumerate() {
        f.write_str(if i > 0 { ",\n\t" } else { "\n\t" })?;
        write!(f, "{p}")?;
    }
    if !params.is_empty() {
        f.write_char('\n')?;
    }
    f.write_char(')')
}

fn write_u32s(f: &mut Formatter<'_>, v: &[u32]) -> fmt::Result {
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{x}")?;
    }
    Ok(())
}

impl Display for PerfDirective<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            PerfDirective::Reqntid(v, _) => {
                f.write_str(".reqntid ")?;
                write_u32s(f, v)
            }
            PerfDirective::Maxntid(v, _) => {
                f.write_str(".maxntid ")?;
                write_u32s(f, v)
            }
            PerfDirective::Reqnctapercluster(v, _) => {
                f.write_str(".reqnctapercluster ")?;
                write_u32s(f, v)
            }
            PerfDirective::Maxnreg(n, _) => write!(f, ".maxnreg {n}"),
            PerfDirective::Minnctapersm(n, _) => write!(f, ".minnctapersm {n}"),
            PerfDirective::Maxnctapersm(n, _) => write!(f, ".maxnctapersm {n}"),
            PerfDirective::Maxclusterrank(n, _) => write!(f, ".maxclusterrank {n}"),
            PerfDirective::AbiPreserve(n, _) => write!(f, ".abi_preserve {n}"),
            PerfDirective::AbiPreserveControl(n, _) => write!(f, ".abi_preserve_control {n}"),
            PerfDirective::ExplicitCluster(_) => f.write_str(".explicitcluster"),
            PerfDirective::BlocksAreClusters(_) => f.write_str(".blocksareclusters"),
            PerfDirective::Pragma(p) => write!(f, "{p}"),
        }
    }
}

impl Display for Function<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(l) = self.linkage {
            write!(f, "{l} ")?;
        }
        f.write_str(match self.kind {
            FunctionKind::Entry => ".entry ",
            FunctionKind::Func => ".func ",
        })?;
        if !self.returns.is_empty() {
            write_params(f, &self.returns)?;
            f.write_char(' ')?;
        }
        f.write_str(self.name.name)?;
        if let Some(p) = &self.params {
            write_params(f, p)?;
        }
        if self.noreturn {
            f.write_str(" .noreturn")?;
        }
        for d in &self.perf {
            write!(f, "\n{d}")?;
        }
        match &self.body {
            None => f.write_str(";"),
            Some(b) => {
                f.write_char('\n')?;
                write_block(f, b, 0)
            }
        }
    }
}

fn indent(f: &mut Formatter<'_>, depth: usize) -> fmt::Result {
    for _ in 0..depth {
        f.write_char('\t')?;
    }
    Ok(())
}

fn write_block(f: &mut Formatter<'_>, b: &Block<'_>, depth: usize) -> fmt::Result {
    f.write_str("{\n")?;
    for s in &b.statements {
        match s {
            Statement::Label(l) => writeln!(f, "{}:", l.name)?,
            Statement::Block(inner) => {
                indent(f, depth + 1)?;
                write_block(f, inner, depth + 1)?;
                f.write_char('\n')?;
            }
            other => {
                indent(f, depth + 1)?;
                writeln!(f, "{other}")?;
            }
        }
    }
    indent(f, depth)?;
    f.write_char('}')
}

impl Display for Block<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_block(f, self, 0)
    }
}

fn write_idents(f: &mut Formatter<'_>, v: &[Ident<'_>]) -> fmt::Result {
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        f.write_str(x.name)?;
    }
    Ok(())
}

impl Display for Statement<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Statement::Label(l) => write!(f, "{}:", l.name),
            Statement::Instruction(i) => write!(f, "{i}"),
            Statement::Variable(v) => write!(f, "{v}"),
            Statement::Block(b) => write!(f, "{b}"),
            Statement::Loc(l) => write!(f, "{l}"),
            Statement::Pragma(p) => write!(f, "{p}"),
            Statement::BranchTargets(v, _) => {
                f.write_str(".branchtargets ")?;
                write_idents(f, v)?;
                f.write_char(';')
            }
            Statement::CallTargets(v, _) => {
                f.write_str(".calltargets ")?;
                write_idents(f, v)?;
                f.write_char(';')
            }
            Statement::CallPrototype(p) => {
                f.write_str(".callprototype ")?;
                if !p.returns.is_empty() {
                    write_params(f, &p.returns)?;
                    f.write_char(' ')?;
                }
                f.write_str("_ ")?;
                write_params(f, &p.params)?;
                if p.noreturn {
                    f.write_str(" .noreturn")?;
                }
                f.write_char(';')
            }
        }
    }
}

impl Display for Instruction<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(g) = &self.guard {
            write!(f, "@{}{} ", if g.negated { "!" } else { "" }, g.pred.name)?;
        }
        write!(f, "{}{}", self.name, self.modifiers.as_str())?;
        for (i, op) in self.operands.iter().enumerate() {
            f.write_str(if i == 0 { " " } else { ", " })?;
            write!(f, "{op}")?;
        }
        f.write_char(';')
    }
}

fn write_operands(f: &mut Formatter<'_>, ops: &[Operand<'_>]) -> fmt::Result {
    for (i, op) in ops.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{op}")?;
    }
    Ok(())
}

impl Display for Operand<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)
    }
}

impl Display for OperandKind<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            OperandKind::Ident(i) => f.write_str(i.name),
            OperandKind::Not(i) => write!(f, "!{}", i.name),
            OperandKind::SymbolOffset(i, off) => write_offset(f, i.name, *off, true),
            OperandKind::Int(v) => write_int(f, *v),
            OperandKind::Float(v) => write!(f, "{v}"),
            OperandKind::Vector(items) => {
                f.write_char('{')?;
                write_operands(f, items)?;
                f.write_char('}')
            }
            OperandKind::Address(a) => write!(f, "{a}"),
            OperandKind::PredPair(a, b) => write!(f, "{}|{}", a.name, b.name),
            OperandKind::Sink => f.write_char('_'),
            OperandKind::List(items) => {
                f.write_char('(')?;
                write_operands(f, items)?;
                f.write_char(')')
            }
        }
    }
}

/// `name+off` / `name-off` (an `i64::MIN` offset prints as `+0x8000000000000000`, which wraps back).
fn write_offset(f: &mut Formatter<'_>, name: &str, off: i64, always: bool) -> fmt::Result {
    f.write_str(name)?;
    if off == i64::MIN {
        write!(f, "+0x{:X}", off as u64)
    } else if off < 0 {
        write!(f, "-{}", -off)
    } else if off > 0 || always {
        write!(f, "+{off}")
    } else {
        Ok(())
    }
}

impl Display for Address<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('[')?;
        match &self.base {
            Some(b) => write_offset(f, b.name, self.offset, false)?,
            None => write_int(f, self.offset)?,
        }
        for op in &self.rest {
            write!(f, ", {op}")?;
        }
        f.write_char(']')
    }
}
