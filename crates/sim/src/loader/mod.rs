//! The loader: a parsed module → an executable [`Kernel`].
//!
//! Two passes per function: the first gives every label its PC and lays out variables; the
//! second decodes each instruction (`decode.rs`) into the pre-decoded [`Inst`] form with
//! registers resolved to dense indices. A form the engine does not execute is refused here as
//! `unsupported: <form> at line:col`, never skipped at run time.
//!
//! Layout: the entry's code first, then each `.func` reachable from it. Every function gets
//! its own register range and its own `.local` slots (parameters, call-site `.param`s,
//! `.local` variables), which is why recursion is refused.

mod decode;
mod reset;

use std::collections::HashMap;
use std::sync::Arc;

use tmemu_ptx::ast::{
    Block, Expr, FloatLit, Function, FunctionKind, Initializer, Module, PerfDirective, ScalarType,
    StateSpace, Statement, VarDecl,
};
use tmemu_ptx::span::Span;

use crate::error::LoadError;
use crate::mem;
use crate::program::{GlobalVar, Inst, InstInfo, Kernel, PSrc, ParamInfo};

/// What a name means inside a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sym {
    R32(u16),
    R64(u16),
    /// A `.b128` register: the 64-bit registers `lo` and `lo + 1` (loader/clc.rs).
    R128(u16),
    Pred(u16),
    /// A variable: its space and address in that space.
    Var(VarSpace, u64),
    Label(u32),
    Func(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VarSpace {
    /// Shared: 32-bit shared address (SHARED_BASE + offset).
    Shared,
    Global,
    Const,
    /// Kernel parameter: offset in the param block.
    KParam,
    /// Thread-private: `.local` variables and `.func`/call-site `.param`s (local offsets).
    Local,
}

pub(crate) fn invalid<T>(message: impl Into<String>, span: Span) -> Result<T, LoadError> {
    Err(LoadError::Invalid {
        message: message.into(),
        span,
    })
}

pub(crate) fn unsupported<T>(form: impl Into<String>, span: Span) -> Result<T, LoadError> {
    Err(LoadError::Unsupported {
        form: form.into(),
        span,
    })
}

pub(crate) fn type_size(t: ScalarType) -> Option<u32> {
    use ScalarType::*;
    Some(match t {
        Pred => 1,
        B8 | U8 | S8 | E4m3 | E5m2 | E2m3 | E3m2 | E2m1 | Ue8m0 => 1,
        B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 | E2m3x2 | E3m2x2 | E2m1x2 | Ue8m0x2 => 2,
        B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 => 4,
        B64 | U64 | S64 | F64 => 8,
        B128 => 16,
        _ => return None,
    })
}

/// Module-level layout shared by all functions.
struct ModuleLayout {
    globals_by_name: HashMap<String, Sym>,
    static_shared: u32,
    dyn_shared_offset: u32,
    const_image: Vec<u8>,
    globals: Vec<GlobalVar>,
}

fn var_bytes(v: &VarDecl<'_>) -> Result<(u64, u32), LoadError> {
    let es = type_size(v.ty).ok_or_else(|| LoadError::Unsupported {
        form: format!("variable `{}` of type {:?}", v.name.name, v.ty),
        span: v.span,
    })? as u64
        * v.vector.unwrap_or(1) as u64;
    let mut n = 1u64;
    for d in &v.dims {
        match d {
            Some(d) => n = n.saturating_mul(*d),
            None => {
                // size from the initializer
                n = n.saturating_mul(match &v.init {
                    Some(Initializer::List(items, _)) => items.len() as u64,
                    _ => 0,
                });
            }
        }
    }
    let align = v.align.unwrap_or(es as u32).max(1);
    Ok((es * n, align))
}

fn eval_const(e: &Expr<'_>) -> Option<i64> {
    match e {
        Expr::Int(v, _) => Some(*v),
        Expr::Unary(op, a, _) => {
            let a = eval_const(a)?;
            Some(match op {
                tmemu_ptx::ast::UnaryOp::Neg => a.wrapping_neg(),
                tmemu_ptx::ast::UnaryOp::Not => !a,
                tmemu_ptx::ast::UnaryOp::LogicalNot => (a == 0) as i64,
            })
        }
        _ => None,
    }
}

/// Writes an initializer into `out` (element size `es`); symbol addresses become relocations.
fn write_init(
    init: &Initializer<'_>,
    ty: ScalarType,
    es: usize,
    out: &mut Vec<u8>,
    relocs: &mut Vec<(u64, String, i64)>,
    span: Span,
) -> Result<(), LoadError> {
    match init {
        Initializer::List(items, _) => {
            for i in items {
                write_init(i, ty, es, out, relocs, span)?;
            }
        }
        Initializer::Expr(e) => {
            let bits: u64 = match e {
                Expr::Float(f, _) => match ty {
                    ScalarType::F32 => (f.as_f64() as f32).to_bits() as u64,
                    ScalarType::F64 => match f {
                        FloatLit::F64Bits(b) => *b,
                        _ => f.as_f64().to_bits(),
                    },
                    _ => return unsupported("float initializer of a non-float variable", span),
                },
                Expr::Symbol(id) | Expr::Generic(id) => {
                    relocs.push((out.len() as u64, id.name.to_string(), 0));
                    0
                }
                Expr::Binary(tmemu_ptx::ast::BinaryOp::Add, a, b, _) => match (&**a, eval_const(b))
                {
                    (Expr::Symbol(id) | Expr::Generic(id), Some(off)) => {
                        relocs.push((out.len() as u64, id.name.to_string(), off));
                        0
                    }
                    _ => return unsupported("initializer expression", span),
                },
                other => match eval_const(other) {
                    Some(v) => v as u64,
                    None => return unsupported("initializer expression", span),
                },
            };
            out.extend_from_slice(&bits.to_le_bytes()[..es.min(8)]);
        }
    }
    Ok(())
}

fn layout_module(m: &Module<'_>, funcs: &[&Function<'_>]) -> Result<ModuleLayout, LoadError> {
    let mut lay = ModuleLayout {
        globals_by_name: HashMap::new(),
        static_shared: 0,
        dyn_shared_offset: 0,
        const_image: Vec::new(),
        globals: Vec::new(),
    };
    let mut extern_shared = Vec::new();
    let mut dyn_align = 16u32;
    let mut next_global = mem::GLOBAL_BASE;
    let mut global_relocs: Vec<Vec<(u64, String, i64)>> = Vec::new();
    for v in m.variables() {
        let name = v.name.name.to_string();
        match v.space {
            StateSpace::Shared | StateSpace::SharedCta => {
                if v.dims.first() == Some(&None) && v.init.is_none() {
                    // `.extern .shared .b8 smem[]`: the dynamic area
                    dyn_align = dyn_align.max(v.align.unwrap_or(16));
                    extern_shared.push(name);
                    continue;
                }
                let (size, align) = var_bytes(v)?;
                let off = lay.static_shared.next_multiple_of(align);
                lay.static_shared = off + size as u32;
                lay.globals_by_name.insert(
                    name,
                    Sym::Var(VarSpace::Shared, (mem::SHARED_BASE + off) as u64),
                );
            }
            StateSpace::Const | StateSpace::Global => {
                let (size, align) = var_bytes(v)?;
                let es = type_size(v.ty).unwrap_or(1) as usize;
                let mut bytes = Vec::new();
                let mut relocs = Vec::new();
                if let Some(init) = &v.init {
                    write_init(init, v.ty, es, &mut bytes, &mut relocs, v.span)?;
                }
                if v.space == StateSpace::Const {
                    if !relocs.is_empty() {
                        return unsupported("address initializer in .const", v.span);
                    }
                    let off = (lay.const_image.len() as u64).next_multiple_of(align as u64);
                    lay.const_image.resize((off + size) as usize, 0);
                    bytes.truncate(size as usize);
                    lay.const_image[off as usize..off as usize + bytes.len()]
                        .copy_from_slice(&bytes);
                    lay.globals_by_name
                        .insert(name, Sym::Var(VarSpace::Const, off));
                } else {
                    let addr = next_global;
                    next_global = (addr + size + mem::GUARD_GAP).next_multiple_of(256);
                    bytes.truncate(size as usize);
                    lay.globals_by_name
                        .insert(name.clone(), Sym::Var(VarSpace::Global, addr));
                    lay.globals.push(GlobalVar {
                        name,
                        addr,
                        size,
                        align,
                        init: bytes,
                        relocs: Vec::new(),
                    });
                    global_relocs.push(relocs);
                }
            }
            other => {
                return unsupported(format!("module-scope variable in {other:?} space"), v.span)
            }
        }
    }
    // function-scope .shared variables are static shared memory too; their key is
    // `function::name` so that equal names in two functions stay apart
    fn scan(b: &Block<'_>, fname: &str, lay: &mut ModuleLayout) -> Result<(), LoadError> {
        for s in &b.statements {
            match s {
                Statement::Variable(v)
                    if matches!(v.space, StateSpace::Shared | StateSpace::SharedCta) =>
                {
                    let (size, align) = var_bytes(v)?;
                    let off = lay.static_shared.next_multiple_of(align);
                    lay.static_shared = off + size as u32;
                    lay.globals_by_name.insert(
                        format!("{fname}::{}", v.name.name),
                        Sym::Var(VarSpace::Shared, (mem::SHARED_BASE + off) as u64),
                    );
                }
                Statement::Block(inner) => scan(inner, fname, lay)?,
                _ => {}
            }
        }
        Ok(())
    }
    for f in funcs {
        if let Some(b) = &f.body {
            scan(b, f.name.name, &mut lay)?;
        }
    }
    lay.dyn_shared_offset = lay.static_shared.next_multiple_of(dyn_align);
    for n in extern_shared {
        lay.globals_by_name.insert(
            n,
            Sym::Var(
                VarSpace::Shared,
                (mem::SHARED_BASE + lay.dyn_shared_offset) as u64,
            ),
        );
    }
    let index: HashMap<String, usize> = lay
        .globals
        .iter()
        .enumerate()
        .map(|(i, g)| (g.name.clone(), i))
        .collect();
    for (gi, relocs) in global_relocs.into_iter().enumerate() {
        for (off, sym, add) in relocs {
            let Some(&t) = index.get(&sym) else {
                return unsupported(
                    format!("initializer with the address of `{sym}` (not a .global)"),
                    Span::DUMMY,
                );
            };
            lay.globals[gi].relocs.push((off, t, add));
        }
    }
    Ok(lay)
}

/// `.local` slots (offset, size) of a function's parameters and of its return values.
pub(crate) type FuncSlots = (Vec<(u32, u32)>, Vec<(u32, u32)>);

/// Per-kernel code generation state.
pub(crate) struct Gen<'m, 'src> {
    pub src: &'src str,
    pub code: Vec<Inst>,
    pub guards: Vec<Option<PSrc>>,
    pub info: Vec<InstInfo>,
    pub n_r32: u16,
    pub n_r64: u16,
    pub n_pred: u16,
    pub local_bytes: u32,
    pub module_syms: &'m HashMap<String, Sym>,
    /// Entry PC of each function (filled as laid out).
    pub func_pc: Vec<u32>,
    /// Param slots of each function: (params, returns) as (local offset, size).
    pub func_slots: Vec<FuncSlots>,
    pub uses_global_atomics: bool,
    /// Calls to patch: (pc, callee index).
    pub call_fixups: Vec<(usize, usize)>,
    /// Name of the function being decoded.
    pub cur_func: String,
    /// Registers named by each instruction's operands, parallel to `code` (reset.rs).
    pub named: Vec<reset::Named>,
}

impl Gen<'_, '_> {
    fn new_reg(&mut self, ty: ScalarType, span: Span) -> Result<Sym, LoadError> {
        let size = type_size(ty).ok_or_else(|| LoadError::Unsupported {
            form: format!("register of type {ty:?}"),
            span,
        })?;
        let over = |span| invalid("more than 65535 registers of one class", span);
        Ok(match (ty, size) {
            (ScalarType::Pred, _) => {
                self.n_pred = self.n_pred.checked_add(1).map_or_else(|| over(span), Ok)?;
                Sym::Pred(self.n_pred - 1)
            }
            (_, 1..=4) => {
                self.n_r32 = self.n_r32.checked_add(1).map_or_else(|| over(span), Ok)?;
                Sym::R32(self.n_r32 - 1)
            }
            (_, 8) => {
                self.n_r64 = self.n_r64.checked_add(1).map_or_else(|| over(span), Ok)?;
                Sym::R64(self.n_r64 - 1)
            }
            (_, 16) => {
                let lo = self.n_r64;
                self.n_r64 = self.n_r64.checked_add(2).map_or_else(|| over(span), Ok)?;
                Sym::R128(lo)
            }
            _ => return unsupported(format!("register of type {ty:?}"), span),
        })
    }

    fn alloc_local(&mut self, size: u32, align: u32) -> u32 {
        let off = self.local_bytes.next_multiple_of(align.max(1));
        self.local_bytes = off + size;
        off
    }
}

/// Scopes of one function being decoded.
pub(crate) struct Scopes {
    pub stack: Vec<HashMap<String, Sym>>,
}

impl Scopes {
    pub fn lookup(&self, name: &str) -> Option<Sym> {
        self.stack.iter().rev().find_map(|s| s.get(name).copied())
    }
}

fn declare(
    g: &mut Gen<'_, '_>,
    scope: &mut HashMap<String, Sym>,
    v: &VarDecl<'_>,
) -> Result<(), LoadError> {
    match v.space {
        StateSpace::Reg => {
            if v.vector.is_some() || !v.dims.is_empty() {
                return unsupported("vector or array registers", v.span);
            }
            match v.range {
                Some(n) => {
                    for i in 0..n {
                        let s = g.new_reg(v.ty, v.span)?;
                        scope.insert(format!("{}{}", v.name.name, i), s);
                    }
                }
                None => {
                    let s = g.new_reg(v.ty, v.span)?;
                    scope.insert(v.name.name.to_string(), s);
                }
            }
        }
        StateSpace::Local | StateSpace::Param => {
            let (size, align) = var_bytes(v)?;
            let off = g.alloc_local(size as u32, align);
            if let Some(init) = &v.init {
                let _ = init;
                return unsupported("initialised .local/.param variable", v.span);
            }
            scope.insert(
                v.name.name.to_string(),
                Sym::Var(VarSpace::Local, off as u64),
            );
        }
        StateSpace::Shared | StateSpace::SharedCta => {
            let key = format!("{}::{}", g.cur_func, v.name.name);
            match g.module_syms.get(&key) {
                Some(s) => {
                    scope.insert(v.name.name.to_string(), *s);
                }
                None => {
                    return invalid(
                        "function-scope .shared variable missing from the layout",
                        v.span,
                    )
                }
            }
        }
        other => {
            return unsupported(
                format!("function-scope variable in {other:?} space"),
                v.span,
            )
        }
    }
    Ok(())
}

/// First pass: labels → PCs for one block tree. Returns the PC after the block.
fn assign_labels(b: &Block<'_>, mut pc: u32, labels: &mut HashMap<String, Sym>) -> u32 {
    for s in &b.statements {
        match s {
            Statement::Label(id) => {
                labels.insert(id.name.to_string(), Sym::Label(pc));
            }
            Statement::Instruction(_) => pc += 1,
            Statement::Block(inner) => pc = assign_labels(inner, pc, labels),
            _ => {}
        }
    }
    pc
}

fn gen_block<'src>(
    g: &mut Gen<'_, 'src>,
    sc: &mut Scopes,
    b: &Block<'src>,
) -> Result<(), LoadError> {
    // declarations first (PTX allows use before a later declaration in the same scope)
    let mut scope = HashMap::new();
    for s in &b.statements {
        if let Statement::Variable(v) = s {
            declare(g, &mut scope, v)?;
        }
    }
    // labels are block-scoped: inline-asm `{ }` blocks reuse names such as `DONE`, and a
    // branch must reach its own block's label, not the last one of that name
    let mut pc = g.code.len() as u32;
    for s in &b.statements {
        match s {
            Statement::Label(id) => {
                scope.insert(id.name.to_string(), Sym::Label(pc));
            }
            Statement::Instruction(_) => pc += 1,
            Statement::Block(inner) => pc = assign_labels(inner, pc, &mut HashMap::new()),
            _ => {}
        }
    }
    sc.stack.push(scope);
    for s in &b.statements {
        match s {
            Statement::Instruction(i) => {
                g.named.push(reset::named_registers(sc, i));
                decode::instruction(g, sc, i)?
            }
            Statement::Block(inner) => gen_block(g, sc, inner)?,
            Statement::Label(_)
            | Statement::Variable(_)
            | Statement::Loc(_)
            | Statement::Pragma(_)
            | Statement::BranchTargets(..)
            | Statement::CallTargets(..) => {}
            Statement::CallPrototype(p) => {
                return unsupported("indirect calls (.callprototype)", p.span)
            }
        }
    }
    sc.stack.pop();
    Ok(())
}

/// Functions reachable from `f` through `call`, in first-call order; refuses recursion.
fn call_graph<'m, 'src>(
    f: &'m Function<'src>,
    by_name: &HashMap<&'src str, &'m Function<'src>>,
    path: &mut Vec<&'src str>,
    out: &mut Vec<&'m Function<'src>>,
) -> Result<(), LoadError> {
    fn calls<'src>(b: &Block<'src>, v: &mut Vec<(&'src str, Span)>) {
        for s in &b.statements {
            match s {
                Statement::Instruction(i) if i.name == "call" => {
                    for o in &i.operands {
                        if let tmemu_ptx::ast::OperandKind::Ident(id) = &o.kind {
                            v.push((id.name, i.span));
                            break;
                        }
                    }
                }
                Statement::Block(inner) => calls(inner, v),
                _ => {}
            }
        }
    }
    let Some(body) = &f.body else { return Ok(()) };
    let mut v = Vec::new();
    calls(body, &mut v);
    for (name, span) in v {
        let Some(&callee) = by_name.get(name) else {
            continue;
        };
        if path.contains(&name) || name == f.name.name {
            return unsupported(format!("recursive call of `{name}`"), span);
        }
        if callee.body.is_none() {
            return unsupported(
                format!("call of `{name}`, which has no body in this module"),
                span,
            );
        }
        if !out.iter().any(|g| g.name.name == name) {
            out.push(callee);
            path.push(name);
            call_graph(callee, by_name, path, out)?;
            path.pop();
        }
    }
    Ok(())
}

fn param_layout(ps: &[tmemu_ptx::ast::Param<'_>]) -> Result<(Vec<ParamInfo>, u32), LoadError> {
    let mut off = 0u32;
    let mut out = Vec::new();
    for p in ps {
        let es = type_size(p.ty).ok_or_else(|| LoadError::Unsupported {
            form: format!("parameter type {:?}", p.ty),
            span: p.span,
        })?;
        let n: u64 = p
            .dims
            .iter()
            .map(|d| d.unwrap_or(0))
            .product::<u64>()
            .max(if p.dims.is_empty() { 1 } else { 0 });
        let size = es as u64 * p.vector.unwrap_or(1) as u64 * n;
        let align = p.align.unwrap_or(es * p.vector.unwrap_or(1) as u32).max(1);
        let o = off.next_multiple_of(align);
        off = o + size as u32;
        out.push(ParamInfo {
            name: p.name.name.to_string(),
            offset: o,
            size: size as u32,
            align,
            is_pointer: p.ptr.is_some(),
            elem_bits: es * 8,
            is_float: matches!(
                p.ty,
                ScalarType::F16 | ScalarType::F32 | ScalarType::F64 | ScalarType::Bf16
            ),
            is_array: !p.dims.is_empty() || p.vector.is_some(),
        });
    }
    Ok((out, off))
}

/// Loads kernel `entry` (or the module's only kernel) of a parsed module.
pub fn load(
    m: &Module<'_>,
    src: &str,
    file: &str,
    entry: Option<&str>,
) -> Result<Kernel, LoadError> {
    let entries: Vec<_> = m.entries().filter(|f| f.body.is_some()).collect();
    let f = match entry {
        Some(n) => match entries.iter().find(|f| f.name.name == n) {
            Some(f) => *f,
            None => {
                let names: Vec<_> = entries.iter().map(|f| f.name.name).collect();
                return invalid(
                    format!(
                        "no kernel `{n}` in the module (kernels: {})",
                        names.join(", ")
                    ),
                    Span::DUMMY,
                );
            }
        },
        None => match entries.as_slice() {
            [f] => *f,
            [] => return invalid("the module defines no kernel (.entry)", Span::DUMMY),
            many => {
                let names: Vec<_> = many.iter().map(|f| f.name.name).collect();
                return invalid(
                    format!(
                        "the module has several kernels ({}); name one",
                        names.join(", ")
                    ),
                    Span::DUMMY,
                );
            }
        },
    };
    let by_name: HashMap<&str, &Function<'_>> = m
        .functions()
        .filter(|g| g.kind == FunctionKind::Func && g.body.is_some())
        .map(|g| (g.name.name, g))
        .collect();
    let mut funcs = vec![f];
    let mut path = vec![f.name.name];
    call_graph(f, &by_name, &mut path, &mut funcs)?;
    let lay = layout_module(m, &funcs)?;

    let (params, param_bytes) = param_layout(f.params.as_deref().unwrap_or(&[]))?;
    let mut g = Gen {
        src,
        code: Vec::new(),
        guards: Vec::new(),
        info: Vec::new(),
        n_r32: 0,
        n_r64: 0,
        n_pred: 0,
        local_bytes: 0,
        module_syms: &lay.globals_by_name,
        func_pc: vec![0; funcs.len()],
        func_slots: Vec::new(),
        uses_global_atomics: false,
        call_fixups: Vec::new(),
        cur_func: String::new(),
        named: Vec::new(),
    };
    // param slots of every .func
    for (i, fun) in funcs.iter().enumerate() {
        let mut ps = Vec::new();
        let mut rs = Vec::new();
        if i > 0 {
            for (list, out) in [
                (fun.params.as_deref().unwrap_or(&[]), &mut ps),
                (&fun.returns[..], &mut rs),
            ] {
                for p in list {
                    if p.space == StateSpace::Reg {
                        return unsupported("register (.reg) parameters of a .func", p.span);
                    }
                    let (info, size) = param_layout(std::slice::from_ref(p))?;
                    let off = g.alloc_local(size, info[0].align);
                    out.push((off, size));
                }
            }
        }
        g.func_slots.push((ps, rs));
    }
    let mut kernel_syms: HashMap<String, Sym> = HashMap::new();
    for p in &params {
        kernel_syms.insert(p.name.clone(), Sym::Var(VarSpace::KParam, p.offset as u64));
    }
    for (i, fun) in funcs.iter().enumerate() {
        let body = fun.body.as_ref().expect("bodies checked");
        let start = g.code.len() as u32;
        g.func_pc[i] = start;
        g.cur_func = fun.name.name.to_string();
        let mut labels = HashMap::new();
        assign_labels(body, start, &mut labels);
        let mut fsyms: HashMap<String, Sym> = HashMap::new();
        for (j, fun2) in funcs.iter().enumerate() {
            fsyms.insert(fun2.name.name.to_string(), Sym::Func(j));
        }
        if i == 0 {
            fsyms.extend(kernel_syms.iter().map(|(k, v)| (k.clone(), *v)));
        } else {
            let (ps, rs) = &g.func_slots[i];
            for (p, (off, _)) in fun.params.as_deref().unwrap_or(&[]).iter().zip(ps) {
                fsyms.insert(
                    p.name.name.to_string(),
                    Sym::Var(VarSpace::Local, *off as u64),
                );
            }
            for (p, (off, _)) in fun.returns.iter().zip(rs) {
                fsyms.insert(
                    p.name.name.to_string(),
                    Sym::Var(VarSpace::Local, *off as u64),
                );
            }
        }
        fsyms.extend(labels);
        let mut sc = Scopes {
            stack: vec![lay.globals_by_name.clone(), fsyms],
        };
        gen_block(&mut g, &mut sc, body)?;
        // falling off the end of a function returns
        g.code.push(Inst::Ret);
        g.guards.push(None);
        g.named.push(reset::Named::default());
        g.info.push(InstInfo {
            span: body.span,
            opcode: Span {
                end: body.span.start,
                ..body.span
            },
        });
    }
    for (pc, callee) in std::mem::take(&mut g.call_fixups) {
        if let Inst::Call(c) = &mut g.code[pc] {
            c.target = g.func_pc[callee];
        }
    }

    let roots: Vec<u32> = std::iter::once(0)
        .chain(g.func_pc.iter().copied())
        .collect();
    let (reset_r32, reset_r64) =
        reset::registers_to_zero(&g.code, &g.guards, &g.named, &roots, g.n_r32, g.n_r64);

    let mut reqntid = None;
    let mut maxntid = None;
    let mut maxnreg = None;
    let mut reqncta = None;
    let mut explicit = false;
    let dims3 = |v: &Vec<u32>| {
        [
            v.first().copied().unwrap_or(1),
            v.get(1).copied().unwrap_or(1),
            v.get(2).copied().unwrap_or(1),
        ]
    };
    for d in &f.perf {
        match d {
            PerfDirective::Reqntid(v, _) => reqntid = Some(dims3(v)),
            PerfDirective::Maxntid(v, _) => maxntid = Some(dims3(v)),
            PerfDirective::Maxnreg(n, _) => maxnreg = Some(*n),
            PerfDirective::Reqnctapercluster(v, _) => reqncta = Some(dims3(v)),
            PerfDirective::ExplicitCluster(_) => explicit = true,
            _ => {}
        }
    }
    Ok(Kernel {
        name: f.name.name.to_string(),
        file: file.to_string(),
        code: g.code,
        guards: g.guards,
        info: g.info,
        entry_pc: 0,
        n_r32: g.n_r32,
        n_r64: g.n_r64,
        n_pred: g.n_pred,
        params,
        param_bytes,
        static_shared: lay.static_shared,
        dyn_shared_offset: lay.dyn_shared_offset,
        local_bytes: g.local_bytes,
        const_image: lay.const_image,
        globals: lay.globals,
        reqntid,
        maxntid,
        maxnreg,
        reqnctapercluster: reqncta,
        explicit_cluster: explicit,
        uses_global_atomics: g.uses_global_atomics,
        source: Arc::from(src),
        reset_r32,
        reset_r64,
    })
}
