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

mod compact;
mod decode;
mod provenance;
mod reset;

use std::cell::Cell;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
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
    globals_by_name: NameMap<String>,
    static_shared: u32,
    /// The largest static `.shared` variable: (bytes, its declaration), for a launch whose
    /// static shared memory is too large to name the place.
    largest_shared: Option<(u64, Span)>,
    dyn_shared_offset: u32,
    const_image: Vec<u8>,
    globals: Vec<GlobalVar>,
}

impl ModuleLayout {
    /// Places a static `.shared` variable of `size` bytes; returns its offset. Sizes past the
    /// 32-bit shared window are refused here (they used to wrap silently).
    fn place_shared(&mut self, size: u64, align: u32, span: Span) -> Result<u32, LoadError> {
        let off = self.static_shared.next_multiple_of(align.max(1));
        let end = (off as u64).saturating_add(size);
        if end > u32::MAX as u64 / 2 {
            return invalid(
                format!("{end} bytes of static shared memory: far past any GPU's shared memory"),
                span,
            );
        }
        self.static_shared = end as u32;
        if self.largest_shared.is_none_or(|(s, _)| size > s) {
            self.largest_shared = Some((size, span));
        }
        Ok(off)
    }
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
        globals_by_name: NameMap::default(),
        static_shared: 0,
        largest_shared: None,
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
                let off = lay.place_shared(size, align, v.span)?;
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
                    let off = lay.place_shared(size, align, v.span)?;
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
    pub module_syms: &'m NameMap<String>,
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
    pub named: reset::Named,
    /// The current instruction's modifiers (decode.rs), kept to reuse the allocation.
    pub mods: Vec<&'src str>,
    /// The first r64 of each `.b128` register (compact.rs keeps pairs where they are).
    pub pairs: Vec<u16>,
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
                self.pairs.push(lo);
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

/// A slot of [`Scopes`]' memo: (the name's bytes and length, generation, result).
type MemoSlot = Cell<(u64, u64, Option<Sym>)>;

/// Scopes of one function being decoded: the block scopes, innermost last, then the
/// function's own names, then the module's.
pub(crate) struct Scopes<'m, 'src> {
    pub module: &'m NameMap<String>,
    /// Changed only through [`Scopes::push`], [`Scopes::pop`] and [`Scopes::scope_mut`],
    /// which start a new generation of `memo`.
    stack: Vec<Scope<'src>>,
    /// The source text's addresses: a name inside them is a token of the module being loaded.
    src: std::ops::Range<usize>,
    /// Recent lookups of tokens, by the token's address and length. Every operand is resolved
    /// twice, by `reset::Named` and then by the decoder, with the same scopes on the stack
    /// (an instruction's tokens are looked up only while its own block is decoded), so the
    /// decoder's lookups are hits. Names outside `src` (none today) are never cached: their
    /// memory may be reused by another name.
    cache: [Cell<(usize, usize, Option<Sym>)>; 32],
    /// Lookups by the name's text (names of 1 to 7 bytes: registers), valid while the stack
    /// is unchanged: (the name's bytes with its length in the top byte, generation, result).
    /// A register is named 2-3 times (written, then read): the token cache above answers
    /// only a token's second lookup, this one a name's later tokens, where a search of the
    /// scopes costs ~280 instructions.
    memo: Box<[MemoSlot; 256]>,
    generation: u64,
}

impl<'m, 'src> Scopes<'m, 'src> {
    pub fn new(module: &'m NameMap<String>, stack: Vec<Scope<'src>>, src: &'src str) -> Self {
        let start = src.as_ptr() as usize;
        Scopes {
            module,
            stack,
            src: start..start + src.len(),
            cache: std::array::from_fn(|_| Cell::new((0, 0, None))),
            // generation 0 marks an empty slot
            memo: Box::new(std::array::from_fn(|_| Cell::new((0, 0, None)))),
            generation: 1,
        }
    }

    pub fn push(&mut self, scope: Scope<'src>) {
        self.stack.push(scope);
        self.generation += 1;
    }

    pub fn pop(&mut self) {
        self.stack.pop();
        self.generation += 1;
    }

    /// The `i`th scope from the outermost, to declare in.
    #[cfg(test)]
    pub fn scope_mut(&mut self, i: usize) -> &mut Scope<'src> {
        self.generation += 1;
        &mut self.stack[i]
    }

    #[inline]
    pub fn lookup(&self, name: &str) -> Option<Sym> {
        let at = name.as_ptr() as usize;
        let token = self.src.contains(&at) && !name.is_empty();
        if token {
            let (a, len, sym) = self.slot(at).get();
            if a == at && len == name.len() {
                return sym;
            }
        }
        self.lookup_uncached(name, at, token)
    }

    fn slot(&self, at: usize) -> &Cell<(usize, usize, Option<Sym>)> {
        &self.cache[(at.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 59) & 31]
    }

    /// The scopes searched: kept out of line so that a cache hit (half of all lookups) is a
    /// few instructions in its caller, without this search's register saves.
    #[inline(never)]
    fn lookup_uncached(&self, name: &str, at: usize, token: bool) -> Option<Sym> {
        let b = name.as_bytes();
        let key = match b.len() {
            1..=7 => b.iter().rev().fold(0u64, |w, &c| w << 8 | c as u64) | (b.len() as u64) << 56,
            _ => 0,
        };
        let memo = &self.memo[(key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as usize];
        let sym = match memo.get() {
            (k, g, sym) if key != 0 && k == key && g == self.generation => sym,
            _ => {
                let sym = self.search(name);
                if key != 0 {
                    memo.set((key, self.generation, sym));
                }
                sym
            }
        };
        if token {
            self.slot(at).set((at, name.len(), sym));
        }
        sym
    }

    /// `name` in the scopes, innermost first, then in the module.
    fn search(&self, name: &str) -> Option<Sym> {
        self.stack
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .or_else(|| self.module.get(name).copied())
    }
}

/// A `HashMap` keyed by names, with [`NameHasher`].
pub(crate) type NameMap<K> = HashMap<K, Sym, BuildHasherDefault<NameHasher>>;

/// FxHash-style word-at-a-time hashing: the loader hashes every operand name (about 4 000 for
/// a 1 000-instruction Triton kernel), and SipHash's DoS resistance buys nothing for names
/// read from the file being loaded; it was a fifth of the load's instructions.
#[derive(Default)]
pub(crate) struct NameHasher(u64);

impl std::hash::Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0xf135_7aea_2e62_a9c5;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            h = (h.rotate_left(26) ^ w).wrapping_mul(K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // byte by byte: a `copy_from_slice` of 1 to 7 bytes is a call to memcpy
            let w = rest.iter().rev().fold(0u64, |w, &b| (w << 8) | b as u64);
            h = (h.rotate_left(26) ^ w ^ (rest.len() as u64) << 59).wrapping_mul(K);
        }
        self.0 = h;
    }
    fn write_u8(&mut self, b: u8) {
        self.0 = (self.0.rotate_left(26) ^ b as u64).wrapping_mul(0xf135_7aea_2e62_a9c5);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The names one block (or a function's top level) declares. A `.reg .b32 %r<813>` range is
/// kept as its prefix and count, not as 813 strings: a name is matched against it by its
/// decimal suffix. As in PTX (and as a map overwritten in declaration order would), a later
/// declaration of a name hides an earlier one in the same scope: every entry carries its
/// declaration's sequence number and the latest wins.
#[derive(Default)]
pub(crate) struct Scope<'src> {
    names: HashMap<&'src str, (Sym, u32), BuildHasherDefault<NameHasher>>,
    /// (prefix, count, first index in `regs`, sequence number)
    ranges: Vec<(&'src str, u32, u32, u32)>,
    regs: Vec<Sym>,
    seq: u32,
    /// Bit `min(len, 63)` set for the length of each name in `names`: most lookups are of
    /// register names in scopes that hold only labels (or an inline-asm block's one
    /// predicate), and a length not among them needs no hashing.
    lens: u64,
}

impl<'src> Scope<'src> {
    pub fn insert(&mut self, name: &'src str, sym: Sym) {
        self.seq += 1;
        self.names.insert(name, (sym, self.seq));
        self.lens |= 1 << name.len().min(63);
    }

    /// `%r<n>`: the n registers `%r0` .. `%r{n-1}`, each made by `next`, in order.
    fn insert_range(
        &mut self,
        prefix: &'src str,
        n: u32,
        mut next: impl FnMut() -> Result<Sym, LoadError>,
    ) -> Result<(), LoadError> {
        self.seq += 1;
        let first = self.regs.len() as u32;
        for _ in 0..n {
            self.regs.push(next()?);
        }
        self.ranges.push((prefix, n, first, self.seq));
        Ok(())
    }

    fn get(&self, name: &str) -> Option<Sym> {
        let b = name.as_bytes();
        let mut best = match self.lens & 1 << b.len().min(63) {
            0 => None,
            _ => self.names.get(name).copied(),
        };
        // most scopes on the stack (the function's names, inline-asm blocks) declare no
        // range: no digits to count
        if self.ranges.is_empty() {
            return best.map(|(s, _)| s);
        }
        let mut shortest = b.len();
        while shortest > 0 && b[shortest - 1].is_ascii_digit() {
            shortest -= 1;
        }
        if shortest < b.len() {
            // a range's prefix ends inside the name's final run of digits
            for &(prefix, count, first, seq) in &self.ranges {
                let p = prefix.as_bytes();
                if p.len() < shortest
                    || p.len() >= b.len()
                    || best.is_some_and(|(_, s)| s > seq)
                    // byte by byte: these are a few bytes, and `==` would call memcmp
                    || (0..p.len()).any(|k| p[k] != b[k])
                {
                    continue;
                }
                match decimal(&name[p.len()..]) {
                    Some(i) if i < count => best = Some((self.regs[(first + i) as usize], seq)),
                    _ => {}
                }
            }
        }
        best.map(|(s, _)| s)
    }
}

/// `digits` as `format!("{i}")` writes a `u32` `i` (no sign, no leading zero), else `None`.
fn decimal(digits: &str) -> Option<u32> {
    let b = digits.as_bytes();
    if b.is_empty() || b.len() > 10 || (b[0] == b'0' && b.len() > 1) {
        return None;
    }
    let mut v = 0u64;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as u64;
    }
    u32::try_from(v).ok()
}

fn declare<'src>(
    g: &mut Gen<'_, 'src>,
    scope: &mut Scope<'src>,
    v: &VarDecl<'src>,
) -> Result<(), LoadError> {
    match v.space {
        StateSpace::Reg => {
            if v.vector.is_some() || !v.dims.is_empty() {
                return unsupported("vector or array registers", v.span);
            }
            match v.range {
                Some(n) => scope.insert_range(v.name.name, n, || g.new_reg(v.ty, v.span))?,
                None => {
                    let s = g.new_reg(v.ty, v.span)?;
                    scope.insert(v.name.name, s);
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
            scope.insert(v.name.name, Sym::Var(VarSpace::Local, off as u64));
        }
        StateSpace::Shared | StateSpace::SharedCta => {
            let key = format!("{}::{}", g.cur_func, v.name.name);
            match g.module_syms.get(&key) {
                Some(s) => {
                    scope.insert(v.name.name, *s);
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
fn assign_labels<'src>(b: &Block<'src>, mut pc: u32, labels: &mut Scope<'src>) -> u32 {
    for s in &b.statements {
        match s {
            Statement::Label(id) => labels.insert(id.name, Sym::Label(pc)),
            Statement::Instruction(_) => pc += 1,
            Statement::Block(inner) => pc = assign_labels(inner, pc, labels),
            _ => {}
        }
    }
    pc
}

/// The instructions in a block tree.
fn count_instructions(b: &Block<'_>) -> u32 {
    b.statements
        .iter()
        .map(|s| match s {
            Statement::Instruction(_) => 1,
            Statement::Block(inner) => count_instructions(inner),
            _ => 0,
        })
        .sum()
}

fn gen_block<'src>(
    g: &mut Gen<'_, 'src>,
    sc: &mut Scopes<'_, 'src>,
    b: &Block<'src>,
) -> Result<(), LoadError> {
    // declarations first (PTX allows use before a later declaration in the same scope)
    let mut scope = Scope::default();
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
            Statement::Label(id) => scope.insert(id.name, Sym::Label(pc)),
            Statement::Instruction(_) => pc += 1,
            Statement::Block(inner) => pc += count_instructions(inner),
            _ => {}
        }
    }
    sc.push(scope);
    for s in &b.statements {
        match s {
            Statement::Instruction(i) => {
                g.named.push_instruction(sc, i);
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
    sc.pop();
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

/// How [`load_with`] builds a kernel. Every choice gives the same results and reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadOptions {
    /// Registers whose live ranges never meet share a slot (`compact.rs`): smaller register
    /// files per warp. Off only to compare against (differential tests, debugging).
    pub compact_registers: bool,
}

impl Default for LoadOptions {
    /// Compaction on, unless the environment sets `TMEMU_REG_COMPACT=0` (for debugging a
    /// suspected difference from the command line).
    fn default() -> Self {
        LoadOptions {
            compact_registers: std::env::var_os("TMEMU_REG_COMPACT").is_none_or(|v| v != "0"),
        }
    }
}

/// Loads kernel `entry` (or the module's only kernel) of a parsed module.
pub fn load(
    m: &Module<'_>,
    src: &str,
    file: &str,
    entry: Option<&str>,
) -> Result<Kernel, LoadError> {
    load_with(m, src, file, entry, &LoadOptions::default())
}

/// [`load`] with explicit [`LoadOptions`].
pub fn load_with(
    m: &Module<'_>,
    src: &str,
    file: &str,
    entry: Option<&str>,
    opts: &LoadOptions,
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

    // The code generation and the parameter-provenance analysis both read only the parsed
    // functions: on a pool thread (`tmemu run` loads the PTX on one while the fills run) an
    // idle worker takes the analysis (~20 % of the load, issue 7's benchmark), which
    // otherwise came after the code on the path to the first CTA.
    let build = || -> Result<_, LoadError> {
        let (params, param_bytes) = param_layout(f.params.as_deref().unwrap_or(&[]))?;
        // every instruction of the bodies plus each function's closing `ret`: the per-pc
        // vectors are made once (doubling re-copied them 27 times, ~90 000 instructions)
        let n_pc = (funcs.iter())
            .map(|f| f.body.as_ref().map_or(0, count_instructions) as usize + 1)
            .sum();
        let mut g = Gen {
            src,
            code: Vec::with_capacity(n_pc),
            guards: Vec::with_capacity(n_pc),
            info: Vec::with_capacity(n_pc),
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
            named: reset::Named::default(),
            mods: Vec::new(),
            pairs: Vec::new(),
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
        for (i, fun) in funcs.iter().enumerate() {
            let body = fun.body.as_ref().expect("bodies checked");
            let start = g.code.len() as u32;
            g.func_pc[i] = start;
            g.cur_func = fun.name.name.to_string();
            // the function's names in the order a map overwritten in turn would keep: functions,
            // then parameters, then labels
            let mut fsyms = Scope::default();
            for (j, fun2) in funcs.iter().enumerate() {
                fsyms.insert(fun2.name.name, Sym::Func(j));
            }
            if i == 0 {
                for (p, info) in f.params.as_deref().unwrap_or(&[]).iter().zip(&params) {
                    fsyms.insert(p.name.name, Sym::Var(VarSpace::KParam, info.offset as u64));
                }
            } else {
                let (ps, rs) = &g.func_slots[i];
                for (p, (off, _)) in fun.params.as_deref().unwrap_or(&[]).iter().zip(ps) {
                    fsyms.insert(p.name.name, Sym::Var(VarSpace::Local, *off as u64));
                }
                for (p, (off, _)) in fun.returns.iter().zip(rs) {
                    fsyms.insert(p.name.name, Sym::Var(VarSpace::Local, *off as u64));
                }
            }
            assign_labels(body, start, &mut fsyms);
            let mut sc = Scopes::new(&lay.globals_by_name, vec![fsyms], src);
            gen_block(&mut g, &mut sc, body)?;
            // falling off the end of a function returns
            g.code.push(Inst::Ret);
            g.guards.push(None);
            g.named.push_none();
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
        let (mut reset_r32, mut reset_r64, facts) =
            reset::registers_to_zero(&g.code, &g.guards, &g.named, &roots, g.n_r32, g.n_r64);
        // every kernel the unit tests load checks the analysis by blocks against the one pc
        // by pc (`every_corpus_kernel_zeroes_what_the_per_pc_analysis_did`)
        #[cfg(test)]
        assert_eq!(
            reset::registers_to_zero_per_pc(&g.code, &g.guards, &g.named, &roots, g.n_r32, g.n_r64),
            (reset_r32.clone(), reset_r64.clone()),
            "registers to zero, per pc and by blocks"
        );
        #[cfg(test)]
        compact::assert_visit_finds_named(&g.code, &g.named);
        // a callee's registers are written while the caller's are live across the call, which
        // the pcs do not show: kernels with a `.func` keep their numbering
        let plan = match facts {
            Some((f, need)) if opts.compact_registers && funcs.len() == 1 => {
                compact::plan(&f, &need, &g.named, &roots, g.n_r32, g.n_r64, &g.pairs)
            }
            _ => None,
        };
        if let Some(p) = plan {
            if compact::apply(&p, &mut g.code, &mut reset_r32, &mut reset_r64) {
                g.n_r32 = p.n_r32;
                g.n_r64 = p.n_r64;
            }
        }
        Ok((params, param_bytes, g, reset_r32, reset_r64))
    };
    let provenance = || provenance::written_params(&funcs);
    let (built, written_params) = if rayon::current_thread_index().is_some() {
        rayon::join(build, provenance)
    } else {
        (build(), provenance())
    };
    let (params, param_bytes, g, reset_r32, reset_r64) = built?;

    let mut reqntid = None;
    let mut maxntid = None;
    let mut maxnreg = None;
    let mut minncta = None;
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
            PerfDirective::Minnctapersm(n, _) => minncta = Some(*n),
            PerfDirective::Reqnctapercluster(v, _) => reqncta = Some(dims3(v)),
            PerfDirective::ExplicitCluster(_) => explicit = true,
            _ => {}
        }
    }
    // ptxas 13.5 honours setmaxnreg only when it knows the entry register count: `.maxnreg`
    // (that count), or a thread bound with `.minnctapersm` (at most 65536 over the CTAs' threads,
    // a multiple of 8); without either it warns (C7508) and drops every setmaxnreg
    let setmaxnreg_entry = match (maxnreg, reqntid.or(maxntid), minncta) {
        (Some(n), _, _) => Some(n.next_multiple_of(8).min(256)),
        (None, Some(t), Some(m)) => {
            let threads = (t[0] * t[1] * t[2]).div_ceil(32).max(1) * 32;
            Some((65536 / (threads * m.max(1)) / 8 * 8).min(256))
        }
        _ => None,
    };
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
        static_shared_span: lay.largest_shared.map(|(_, s)| s),
        dyn_shared_offset: lay.dyn_shared_offset,
        local_bytes: g.local_bytes,
        const_image: lay.const_image,
        globals: lay.globals,
        reqntid,
        maxntid,
        maxnreg,
        setmaxnreg_entry,
        reqnctapercluster: reqncta,
        explicit_cluster: explicit,
        uses_global_atomics: g.uses_global_atomics,
        written_params,
        source: Arc::from(src),
        reset_r32,
        reset_r64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tests/corpus.
    fn corpus_root() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus")
    }

    /// Every `.ptx` file under [`corpus_root`], sorted.
    fn corpus_ptx_files() -> Vec<std::path::PathBuf> {
        fn ptx_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    ptx_files(&p, out);
                } else if p.extension().is_some_and(|x| x == "ptx") {
                    out.push(p);
                }
            }
        }
        let mut files = Vec::new();
        ptx_files(&corpus_root(), &mut files);
        files.sort();
        files
    }

    /// `load` compares `reset::registers_to_zero` with the per-pc analysis it replaced (under
    /// `cfg(test)`); here for every kernel of the corpus (Triton, Gluon, CuTe DSL, nvcc, the
    /// hold-out sets and the bug corpus), each entry of each module.
    #[test]
    fn every_corpus_kernel_zeroes_what_the_per_pc_analysis_did() {
        let files = corpus_ptx_files();
        let mut loaded = 0;
        for path in &files {
            let src = std::fs::read_to_string(path).unwrap();
            let Ok(m) = tmemu_ptx::parse(&src) else {
                continue;
            };
            for f in m.entries() {
                if load(&m, &src, "k.ptx", Some(f.name.name)).is_ok() {
                    loaded += 1;
                }
            }
        }
        assert!(loaded > 100, "{loaded} kernels of {} files", files.len());
    }

    /// Register counts with and without compaction for every corpus kernel (perf.md session
    /// 15's table): `cargo test --release -p tmemu-sim --lib register_counts -- --ignored
    /// --nocapture`.
    #[test]
    #[ignore]
    fn register_counts() {
        let files = corpus_ptx_files();
        let off = LoadOptions {
            compact_registers: false,
        };
        let on = LoadOptions {
            compact_registers: true,
        };
        for path in &files {
            let src = std::fs::read_to_string(path).unwrap();
            let Ok(m) = tmemu_ptx::parse(&src) else {
                continue;
            };
            for f in m.entries() {
                let e = Some(f.name.name);
                if let (Ok(a), Ok(b)) = (
                    load_with(&m, &src, "k.ptx", e, &off),
                    load_with(&m, &src, "k.ptx", e, &on),
                ) {
                    println!(
                        "{} {} r32 {} -> {} r64 {} -> {} reset {} {}",
                        path.strip_prefix(corpus_root()).unwrap().display(),
                        f.name.name,
                        a.n_r32,
                        b.n_r32,
                        a.n_r64,
                        b.n_r64,
                        a.reset_r32.len(),
                        a.reset_r64.len()
                    );
                    // the table is also a check: compaction never grows a register file
                    assert!(
                        b.n_r32 <= a.n_r32 && b.n_r64 <= a.n_r64,
                        "{}: compaction grew the register file",
                        path.display()
                    );
                }
            }
        }
    }

    /// A guarded branch in the middle of straight-line code ends a block: the code after it
    /// is a block of its own, and the branch's target sees only what was written before the
    /// branch (%r1 is written on the fall-through path alone, so it must be zeroed). Code
    /// after a `ret` that no branch reaches starts a block that is never reached: its read
    /// of %r4 zeroes nothing.
    #[test]
    fn a_guarded_branch_ends_its_block() {
        let src = "
.version 8.7
.target sm_100a
.address_size 64
.visible .entry k()
{
    .reg .b32 %r<5>;
    .reg .pred %p<2>;
    mov.u32 %r0, %tid.x;
    setp.eq.u32 %p0, %r0, 0;
    @%p0 bra L1;
    mov.u32 %r1, 5;
    mov.u32 %r2, %r1;
    ret;
L1:
    add.u32 %r3, %r1, 1;
    ret;
    add.u32 %r2, %r4, 1;
}
";
        let m = tmemu_ptx::parse(src).unwrap();
        // the declared numbering: compaction would renumber %r1
        let off = LoadOptions {
            compact_registers: false,
        };
        let k = load_with(&m, src, "k.ptx", None, &off).unwrap();
        assert_eq!(k.reset_r32, vec![1]);
    }

    /// What `Scope` replaces: a map of whole names, a range expanded to `prefix{i}` for each
    /// `i`, every declaration overwriting the entries of the names it declares.
    #[test]
    fn a_scope_resolves_names_as_the_expanded_map_did() {
        // a C++ mangled name runs past the 63 lengths `Scope::lens` tells apart
        let long = "_ZN7cutlass4gemm6kernel13GemmUniversalINS_5tupleIJiiiiEEENS1_10collective1";
        let prefixes = ["%r", "%r1", "%rd", "%p", "x", "%r12", long, &long[..62]];
        let mut rng = crate::xorshift64(0x2545_f491_4f6c_dd1d);
        let mut next = |n: u64| rng() % n;
        for case in 0..300 {
            let mut scope = Scope::default();
            let mut reference: HashMap<String, Sym> = HashMap::new();
            let mut names: Vec<String> = Vec::new();
            let mut reg = 0u16;
            for _ in 0..1 + next(8) {
                let prefix = prefixes[next(prefixes.len() as u64) as usize];
                if next(2) == 0 {
                    let n = next(30) as u32;
                    scope
                        .insert_range(prefix, n, || {
                            reg += 1;
                            Ok(Sym::R32(reg))
                        })
                        .unwrap();
                    for (i, r) in (0..n).zip(reg + 1 - n as u16..) {
                        reference.insert(format!("{prefix}{i}"), Sym::R32(r));
                    }
                } else {
                    // a whole name, sometimes one a range also makes (`%r12`, `%r1` + `2`)
                    let name: &'static str =
                        Box::leak(format!("{prefix}{}", next(25)).into_boxed_str());
                    let name = if next(4) == 0 { prefix } else { name };
                    reg += 1;
                    scope.insert(name, Sym::Pred(reg));
                    reference.insert(name.to_string(), Sym::Pred(reg));
                }
            }
            for p in prefixes {
                names.push(p.to_string());
                for i in 0..40 {
                    names.extend([format!("{p}{i}"), format!("{p}0{i}")]);
                }
                names.push(format!("{p}4294967296"));
                names.push(format!("{p}99999999999"));
            }
            for name in &names {
                assert_eq!(
                    scope.get(name),
                    reference.get(name).copied(),
                    "case {case}: `{name}`"
                );
            }
        }
    }

    /// The lookup cache holds tokens of the source only, each by address and length.
    #[test]
    fn scopes_cache_only_tokens_of_the_source() {
        let src: &'static str = "%a %b";
        let module = NameMap::default();
        let mut sc = Scopes::new(&module, vec![Scope::default()], src);
        let owned = String::from("%a");
        assert_eq!(sc.lookup(&owned), None);
        sc.scope_mut(0).insert(&src[0..2], Sym::R32(1));
        // not a token: looked up again, so the new declaration shows
        assert_eq!(sc.lookup(&owned), Some(Sym::R32(1)));
        assert_eq!(sc.lookup(&src[0..2]), Some(Sym::R32(1)));
        assert_eq!(sc.lookup(&src[0..2]), Some(Sym::R32(1)));
        // the same address with another length is another name
        assert_eq!(sc.lookup(&src[0..1]), None);
        assert_eq!(sc.lookup(&src[3..5]), None);
        assert_eq!(sc.lookup(&src[0..2]), Some(Sym::R32(1)));
    }

    /// `Scopes::lookup`'s memo by text against a plain search of the stack, over random
    /// pushes of scopes that shadow names (whole names and ranges), pops, and lookups of
    /// names of up to 8 bytes. The names looked up are copies, not tokens of the source: the
    /// token cache holds a token's answer for as long as its block is decoded, not across
    /// pushes and pops (`scopes_cache_only_tokens_of_the_source`).
    #[test]
    fn scopes_answer_as_a_search_of_the_stack() {
        let src = "%r1 %r12 %rd1 %p1 x %r1 L1 %r12 abcdefg abcdefgh %rd1 %r %rd";
        let mut tokens = Vec::new();
        let mut at = 0;
        for t in src.split(' ') {
            tokens.push(&src[at..at + t.len()]);
            at += t.len() + 1;
        }
        let module: NameMap<String> = [("x".to_string(), Sym::Func(7))].into_iter().collect();
        let mut rng = crate::xorshift64(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: u64| (rng() % n) as usize;
        let mut sc = Scopes::new(&module, vec![Scope::default()], src);
        let mut depth = 1;
        let mut reg = 0u16;
        for _ in 0..20_000 {
            match next(8) {
                0 => {
                    let mut scope = Scope::default();
                    for _ in 0..next(3) {
                        reg += 1;
                        let t = tokens[next(tokens.len() as u64)];
                        if next(3) == 0 {
                            let prefix = ["%r", "%rd", "%r1"][next(3)];
                            let mut r = reg;
                            scope
                                .insert_range(prefix, next(20) as u32, || {
                                    r += 1;
                                    Ok(Sym::R32(r))
                                })
                                .unwrap();
                            reg = r;
                        } else {
                            scope.insert(t, Sym::R32(reg));
                        }
                    }
                    sc.push(scope);
                    depth += 1;
                }
                1 if depth > 1 => {
                    sc.pop();
                    depth -= 1;
                }
                _ => {
                    let name = tokens[next(tokens.len() as u64)].to_string();
                    assert_eq!(sc.lookup(&name), sc.search(&name), "{name}");
                }
            }
        }
    }

    #[test]
    fn decimal_suffixes_are_those_format_writes() {
        for (s, v) in [
            ("0", Some(0)),
            ("7", Some(7)),
            ("812", Some(812)),
            ("4294967295", Some(u32::MAX)),
            ("4294967296", None),
            ("00", None),
            ("012", None),
            ("", None),
            ("1a", None),
            ("+1", None),
            ("99999999999", None),
        ] {
            assert_eq!(decimal(s), v, "{s:?}");
        }
    }

    #[test]
    fn the_name_hasher_separates_names_of_any_length() {
        use std::hash::{BuildHasher, BuildHasherDefault};
        let b = BuildHasherDefault::<NameHasher>::default();
        let mut seen = std::collections::HashSet::new();
        for n in 0..5000u32 {
            assert!(seen.insert(b.hash_one(format!("%r{n}"))));
        }
        // a short name and its zero-padded form differ
        assert_ne!(b.hash_one("%r"), b.hash_one("%r\0"));
    }
}
