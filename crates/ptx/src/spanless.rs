//! Span erasure, for comparing trees by structure only (round-trip tests, snapshots).

use crate::ast::*;
use crate::span::Span;

/// Sets every span in a tree to [`Span::DUMMY`].
pub trait ClearSpans {
    fn clear_spans(&mut self);
}

impl ClearSpans for Span {
    fn clear_spans(&mut self) {
        *self = Span::DUMMY;
    }
}

impl<T: ClearSpans> ClearSpans for Vec<T> {
    fn clear_spans(&mut self) {
        self.iter_mut().for_each(T::clear_spans);
    }
}

impl<T: ClearSpans> ClearSpans for Option<T> {
    fn clear_spans(&mut self) {
        if let Some(x) = self {
            x.clear_spans();
        }
    }
}

impl<T: ClearSpans> ClearSpans for Box<T> {
    fn clear_spans(&mut self) {
        (**self).clear_spans();
    }
}

impl ClearSpans for Module<'_> {
    fn clear_spans(&mut self) {
        self.items.clear_spans();
    }
}

impl ClearSpans for ModuleItem<'_> {
    fn clear_spans(&mut self) {
        match self {
            ModuleItem::Version(v) => v.span.clear_spans(),
            ModuleItem::Target(t) => t.span.clear_spans(),
            ModuleItem::AddressSize(a) => a.span.clear_spans(),
            ModuleItem::File(d) => d.span.clear_spans(),
            ModuleItem::Loc(l) => l.span.clear_spans(),
            ModuleItem::Pragma(p) => p.span.clear_spans(),
            ModuleItem::Section(s) => s.span.clear_spans(),
            ModuleItem::Variable(v) => v.clear_spans(),
            ModuleItem::Function(f) => f.clear_spans(),
            ModuleItem::Alias(a) => {
                a.alias.clear_spans();
                a.target.clear_spans();
                a.span.clear_spans();
            }
        }
    }
}

impl ClearSpans for Ident<'_> {
    fn clear_spans(&mut self) {
        self.span.clear_spans();
    }
}

impl ClearSpans for Function<'_> {
    fn clear_spans(&mut self) {
        self.returns.clear_spans();
        self.name.clear_spans();
        self.params.clear_spans();
        self.perf.clear_spans();
        self.body.clear_spans();
        self.span.clear_spans();
    }
}

impl ClearSpans for PerfDirective<'_> {
    fn clear_spans(&mut self) {
        match self {
            PerfDirective::Reqntid(_, s)
            | PerfDirective::Maxntid(_, s)
            | PerfDirective::Reqnctapercluster(_, s)
            | PerfDirective::Maxnreg(_, s)
            | PerfDirective::Minnctapersm(_, s)
            | PerfDirective::Maxnctapersm(_, s)
            | PerfDirective::Maxclusterrank(_, s)
            | PerfDirective::AbiPreserve(_, s)
            | PerfDirective::AbiPreserveControl(_, s)
            | PerfDirective::ExplicitCluster(s)
            | PerfDirective::BlocksAreClusters(s) => s.clear_spans(),
            PerfDirective::Pragma(p) => p.span.clear_spans(),
        }
    }
}

impl ClearSpans for Param<'_> {
    fn clear_spans(&mut self) {
        self.name.clear_spans();
        self.span.clear_spans();
    }
}

impl ClearSpans for VarDecl<'_> {
    fn clear_spans(&mut self) {
        self.name.clear_spans();
        self.init.clear_spans();
        self.span.clear_spans();
    }
}

impl ClearSpans for Initializer<'_> {
    fn clear_spans(&mut self) {
        match self {
            Initializer::Expr(e) => e.clear_spans(),
            Initializer::List(v, s) => {
                v.clear_spans();
                s.clear_spans();
            }
        }
    }
}

impl ClearSpans for Expr<'_> {
    fn clear_spans(&mut self) {
        match self {
            Expr::Int(_, s) | Expr::Float(_, s) => s.clear_spans(),
            Expr::Symbol(i) | Expr::Generic(i) => i.clear_spans(),
            Expr::Unary(_, e, s) => {
                e.clear_spans();
                s.clear_spans();
            }
            Expr::Binary(_, l, r, s) => {
                l.clear_spans();
                r.clear_spans();
                s.clear_spans();
            }
        }
    }
}

impl ClearSpans for Block<'_> {
    fn clear_spans(&mut self) {
        self.statements.clear_spans();
        self.span.clear_spans();
    }
}

impl ClearSpans for Statement<'_> {
    fn clear_spans(&mut self) {
        match self {
            Statement::Label(i) => i.clear_spans(),
            Statement::Instruction(i) => i.clear_spans(),
            Statement::Variable(v) => v.clear_spans(),
            Statement::Block(b) => b.clear_spans(),
            Statement::Loc(l) => l.span.clear_spans(),
            Statement::Pragma(p) => p.span.clear_spans(),
            Statement::BranchTargets(v, s) | Statement::CallTargets(v, s) => {
                v.clear_spans();
                s.clear_spans();
            }
            Statement::CallPrototype(p) => {
                p.returns.clear_spans();
                p.params.clear_spans();
                p.span.clear_spans();
            }
        }
    }
}

impl ClearSpans for Instruction<'_> {
    fn clear_spans(&mut self) {
        if let Some(g) = &mut self.guard {
            g.pred.clear_spans();
            g.span.clear_spans();
        }
        self.operands.clear_spans();
        self.span.clear_spans();
        self.opcode_span.clear_spans();
    }
}

impl ClearSpans for Operand<'_> {
    fn clear_spans(&mut self) {
        self.span.clear_spans();
        match &mut self.kind {
            OperandKind::Ident(i) | OperandKind::Not(i) | OperandKind::SymbolOffset(i, _) => {
                i.clear_spans()
            }
            OperandKind::PredPair(a, b) => {
                a.clear_spans();
                b.clear_spans();
            }
            OperandKind::Vector(v) | OperandKind::List(v) => v.clear_spans(),
            OperandKind::Address(a) => {
                a.base.clear_spans();
                a.rest.clear_spans();
            }
            OperandKind::Int(_) | OperandKind::Float(_) | OperandKind::Sink => {}
        }
    }
}
