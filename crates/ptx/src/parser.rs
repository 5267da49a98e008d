//! Recursive-descent parser: tokens → [`Module`].
//!
//! Decisions (documented in `docs/arch/ptx.md`):
//! - The first error ends the parse; the error carries the span of the offending token.
//! - An unknown *opcode* is not an error: any `name.mods operands;` in a body is an
//!   [`Instruction`]. An unknown *directive* (a `.word` where the grammar expects a directive,
//!   a state space, or a type) is an error, because PTX has a closed set of them.
//! - Nesting (blocks, vectors, address operands, initializer lists, parenthesised/unary
//!   expressions, operator chains) is limited to [`MAX_DEPTH`] so hostile input cannot
//!   overflow the stack.

use crate::ast::*;
use crate::error::{ParseError, ParseErrorKind};
use crate::lexer::{Lexer, TokKind, Token};
use crate::span::Span;

/// Maximum nesting of blocks, vectors, addresses, initializers and expressions.
pub const MAX_DEPTH: u32 = 256;

/// Parses a whole PTX module.
pub fn parse(src: &str) -> Result<Module<'_>, ParseError> {
    if src.len() >= u32::MAX as usize {
        return Err(ParseError::new(ParseErrorKind::TooLarge, Span::DUMMY));
    }
    let mut p = Parser::new(src)?;
    p.module()
}

struct Parser<'src> {
    src: &'src str,
    lex: Lexer<'src>,
    tok: Token,
    next: Token,
    prev_end: u32,
    depth: u32,
    /// Statement vectors of nested blocks, reused: a nested block's statements are
    /// collected in one and copied into a vector of their exact length.
    spare: Vec<Vec<Statement<'src>>>,
}

type PResult<T> = Result<T, ParseError>;

/// A type directive (`.b32`) → its type.
fn parse_type(s: &str) -> Option<ScalarType> {
    ScalarType::from_name(s.strip_prefix('.')?)
}

/// A state-space directive (`.shared::cta`) → its space.
fn parse_space(s: &str) -> Option<StateSpace> {
    StateSpace::from_name(s.strip_prefix('.')?)
}

/// The state spaces a `.ptr` attribute may name.
fn ptr_space(word: &str) -> Option<StateSpace> {
    StateSpace::from_name(word).filter(|s| {
        matches!(
            s,
            StateSpace::Global | StateSpace::Shared | StateSpace::Const | StateSpace::Local
        )
    })
}

fn parse_linkage(s: &str) -> Option<Linkage> {
    Some(match s {
        ".extern" => Linkage::Extern,
        ".visible" => Linkage::Visible,
        ".weak" => Linkage::Weak,
        ".common" => Linkage::Common,
        _ => return None,
    })
}

fn parse_vector(s: &str) -> Option<u8> {
    Some(match s {
        ".v2" => 2,
        ".v4" => 4,
        ".v8" => 8,
        _ => return None,
    })
}

/// Value of an integer literal token (`U` suffix, radix prefixes); `None` on overflow.
fn int_value(text: &str) -> Option<(u64, bool)> {
    let (body, unsigned) = match text.strip_suffix(['U', 'u']) {
        Some(b) => (b, true),
        None => (text, false),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(b) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        u64::from_str_radix(b, 2).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        u64::from_str_radix(&body[1..], 8).ok()?
    } else {
        body.parse::<u64>().ok()?
    };
    Some((v, unsigned))
}

fn float_value(text: &str) -> Option<FloatLit> {
    let b = text.as_bytes();
    if b.len() > 2 && b[0] == b'0' && matches!(b[1], b'f' | b'F') {
        if text.len() != 10 {
            return None;
        }
        u32::from_str_radix(&text[2..], 16)
            .ok()
            .map(FloatLit::F32Bits)
    } else if b.len() > 2 && b[0] == b'0' && matches!(b[1], b'd' | b'D') {
        if text.len() != 18 {
            return None;
        }
        u64::from_str_radix(&text[2..], 16)
            .ok()
            .map(FloatLit::F64Bits)
    } else {
        // A decimal too large for f64 becomes infinity; keep it as bits so it prints exactly.
        text.parse::<f64>().ok().map(|v| {
            if v.is_finite() {
                FloatLit::Decimal(v)
            } else {
                FloatLit::F64Bits(v.to_bits())
            }
        })
    }
}

/// A folded constant: a 64-bit integer (two's complement) or a float.
#[derive(Clone, Copy)]
pub(crate) enum Const {
    Int(u64),
    Float(FloatLit),
}

impl<'src> Parser<'src> {
    fn new(src: &'src str) -> PResult<Parser<'src>> {
        let mut lex = Lexer::new(src);
        let tok = lex.next_token()?;
        let next = lex.next_token()?;
        Ok(Parser {
            src,
            lex,
            tok,
            next,
            prev_end: 0,
            depth: 0,
            spare: Vec::new(),
        })
    }

    fn text(&self, t: Token) -> &'src str {
        let s: &'src str = self.src;
        &s[t.span.start as usize..t.span.end as usize]
    }

    fn bump(&mut self) -> PResult<Token> {
        let t = self.tok;
        self.prev_end = t.span.end;
        self.tok = self.next;
        self.next = if self.next.kind == TokKind::Eof {
            self.next
        } else {
            self.lex.next_token()?
        };
        Ok(t)
    }

    fn at(&self, k: TokKind) -> bool {
        self.tok.kind == k
    }

    fn at_dot(&self, s: &str) -> bool {
        self.tok.kind == TokKind::Dot && self.text(self.tok) == s
    }

    fn eat(&mut self, k: TokKind) -> PResult<bool> {
        if self.at(k) {
            self.bump()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn found(&self) -> String {
        match self.tok.kind {
            TokKind::Eof => "end of file".to_string(),
            _ => {
                let t = self.text(self.tok);
                // Keep error messages short even for giant tokens.
                let cut = t.char_indices().nth(40).map_or(t.len(), |(i, _)| i);
                format!("`{}`", &t[..cut])
            }
        }
    }

    fn err_expected<T>(&self, expected: &'static str) -> PResult<T> {
        let kind = if self.at(TokKind::Eof) && expected == "`}`" {
            ParseErrorKind::UnbalancedBrace
        } else {
            ParseErrorKind::Expected {
                expected,
                found: self.found(),
            }
        };
        Err(ParseError::new(kind, self.tok.span))
    }

    fn expect(&mut self, k: TokKind, what: &'static str) -> PResult<Token> {
        if self.at(k) {
            self.bump()
        } else {
            self.err_expected(what)
        }
    }

    /// Span from `start` to the end of the last consumed token.
    fn span_from(&self, start: Span) -> Span {
        Span {
            end: self.prev_end.max(start.start),
            ..start
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::new(ParseErrorKind::TooDeep, self.tok.span));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn ident(&mut self) -> PResult<Ident<'src>> {
        let t = self.expect(TokKind::Ident, "a name")?;
        Ok(Ident {
            name: self.text(t),
            span: t.span,
        })
    }

    fn u32_lit(&mut self) -> PResult<u32> {
        let v = self.u64_lit()?;
        u32::try_from(v).map_err(|_| {
            ParseError::new(ParseErrorKind::InvalidNumber(v.to_string()), self.tok.span)
        })
    }

    fn u64_lit(&mut self) -> PResult<u64> {
        let t = self.expect(TokKind::Int, "an integer")?;
        let text = self.text(t);
        int_value(text)
            .map(|(v, _)| v)
            .ok_or_else(|| ParseError::new(ParseErrorKind::InvalidNumber(text.to_string()), t.span))
    }

    fn string(&mut self) -> PResult<&'src str> {
        let t = self.expect(TokKind::Str, "a string")?;
        let s = self.text(t);
        Ok(&s[1..s.len() - 1])
    }

    // ---------------------------------------------------------------- module level

    fn module(&mut self) -> PResult<Module<'src>> {
        // A module begins with `.version`, immediately followed by `.target`, and neither
        // appears again (ptxas 13.5 probe: "Missing .target directive at start of file" when
        // `.address_size` comes between, "Missing .version directive" when `.target` is first,
        // a syntax error for a second `.version`). Checking it here makes empty and non-PTX
        // input an error at its first token rather than an empty module.
        if !self.at_dot(".version") {
            return self.err_expected("`.version` (a PTX module starts with it)");
        }
        let mut items = Vec::new();
        self.module_item(&mut items)?;
        if !self.at_dot(".target") {
            return self.err_expected("`.target` after `.version`");
        }
        while !self.at(TokKind::Eof) {
            self.module_item(&mut items)?;
        }
        Ok(Module { items })
    }

    fn module_item(&mut self, items: &mut Vec<ModuleItem<'src>>) -> PResult<()> {
        let start = self.tok.span;
        if self.tok.kind != TokKind::Dot {
            if self.at(TokKind::RBrace) {
                return Err(ParseError::new(ParseErrorKind::UnbalancedBrace, start));
            }
            return self.err_expected("a directive");
        }
        let header = items.len() < 2;
        match self.text(self.tok) {
            d @ (".version" | ".target") if !header => {
                return Err(ParseError::new(
                    ParseErrorKind::UnknownDirective(d.into()),
                    start,
                ));
            }
            ".version" => {
                self.bump()?;
                let t = self.expect(TokKind::Float, "a version number like 9.0")?;
                let text = self.text(t);
                let bad = || ParseError::new(ParseErrorKind::InvalidNumber(text.into()), t.span);
                let (ma, mi) = text.split_once('.').ok_or_else(bad)?;
                let major = ma.parse().map_err(|_| bad())?;
                let minor = mi.parse().map_err(|_| bad())?;
                items.push(ModuleItem::Version(Version {
                    major,
                    minor,
                    span: self.span_from(start),
                }));
            }
            ".target" => {
                self.bump()?;
                let mut names = vec![self.ident()?.name];
                while self.eat(TokKind::Comma)? {
                    names.push(self.ident()?.name);
                }
                items.push(ModuleItem::Target(Target {
                    names,
                    span: self.span_from(start),
                }));
            }
            ".address_size" => {
                self.bump()?;
                let bits = self.u32_lit()?;
                items.push(ModuleItem::AddressSize(AddressSize {
                    bits,
                    span: self.span_from(start),
                }));
            }
            ".file" => {
                self.bump()?;
                let index = self.u32_lit()?;
                let path = self.string()?;
                let (mut timestamp, mut size) = (None, None);
                if self.eat(TokKind::Comma)? {
                    timestamp = Some(self.u64_lit()?);
                    if self.eat(TokKind::Comma)? {
                        size = Some(self.u64_lit()?);
                    }
                }
                let span = self.span_from(start);
                items.push(ModuleItem::File(FileDirective {
                    index,
                    path,
                    timestamp,
                    size,
                    span,
                }));
            }
            ".loc" => items.push(ModuleItem::Loc(self.loc()?)),
            ".pragma" => items.push(ModuleItem::Pragma(self.pragma()?)),
            ".section" => items.push(ModuleItem::Section(self.section()?)),
            ".alias" => {
                self.bump()?;
                let alias = self.ident()?;
                self.expect(TokKind::Comma, "`,`")?;
                let target = self.ident()?;
                self.expect(TokKind::Semi, "`;`")?;
                items.push(ModuleItem::Alias(Alias {
                    alias,
                    target,
                    span: self.span_from(start),
                }));
            }
            _ => self.declaration(items)?,
        }
        Ok(())
    }

    fn loc(&mut self) -> PResult<Loc<'src>> {
        let start = self.bump()?.span;
        let file = self.u32_lit()?;
        let line = self.u32_lit()?;
        let col = self.u32_lit()?;
        let (mut function_name, mut inlined_at) = (None, None);
        while self.at(TokKind::Comma) {
            self.bump()?;
            let key = self.ident()?;
            match key.name {
                "function_name" => {
                    let name = self.ident()?.name;
                    let off = if self.at(TokKind::Plus) || self.at(TokKind::Minus) {
                        let neg = self.bump()?.kind == TokKind::Minus;
                        let v = self.u64_lit()? as i64;
                        if neg {
                            v.wrapping_neg()
                        } else {
                            v
                        }
                    } else {
                        0
                    };
                    function_name = Some((name, off));
                }
                "inlined_at" => {
                    inlined_at = Some((self.u32_lit()?, self.u32_lit()?, self.u32_lit()?));
                }
                _ => {
                    let kind = ParseErrorKind::Expected {
                        expected: "`function_name` or `inlined_at`",
                        found: format!("`{}`", key.name),
                    };
                    return Err(ParseError::new(kind, key.span));
                }
            }
        }
        Ok(Loc {
            file,
            line,
            col,
            function_name,
            inlined_at,
            span: self.span_from(start),
        })
    }

    fn pragma(&mut self) -> PResult<Pragma<'src>> {
        let start = self.bump()?.span;
        self.pragma_rest(start)
    }

    /// The strings and `;` of a `.pragma` whose keyword (at `start`) was consumed.
    fn pragma_rest(&mut self, start: Span) -> PResult<Pragma<'src>> {
        let mut strings = vec![self.string()?];
        while self.eat(TokKind::Comma)? {
            strings.push(self.string()?);
        }
        self.expect(TokKind::Semi, "`;`")?;
        Ok(Pragma {
            strings,
            span: self.span_from(start),
        })
    }

    /// `.section .name { raw }` — the body is skipped by brace matching on raw bytes
    /// (strings and comments respected), so unusual DWARF directives never fail the parse.
    fn section(&mut self) -> PResult<Section<'src>> {
        let start = self.bump()?.span;
        let name_tok = self.expect(TokKind::Dot, "a section name")?;
        let name = self.text(name_tok);
        if !self.at(TokKind::LBrace) {
            return self.err_expected("`{`");
        }
        let open = self.tok;
        // Raw scan from just after `{`; then restart the lexer after the matching `}`.
        let bytes = self.src.as_bytes();
        let mut i = open.span.end as usize;
        let mut depth = 1u32;
        while depth > 0 {
            match bytes.get(i) {
                None => return Err(ParseError::new(ParseErrorKind::UnbalancedBrace, open.span)),
                Some(b'{') => depth += 1,
                Some(b'}') => depth -= 1,
                Some(b'"') => {
                    i += 1;
                    while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                }
                Some(b'/') if bytes.get(i + 1) == Some(&b'/') => {
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                Some(b'/') if bytes.get(i + 1) == Some(&b'*') => {
                    match bytes[i + 2..].windows(2).position(|w| w == b"*/") {
                        Some(k) => i += 2 + k + 2,
                        None => {
                            return Err(ParseError::new(
                                ParseErrorKind::UnterminatedComment,
                                open.span,
                            ))
                        }
                    }
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        let body = &self.src[open.span.end as usize..i - 1];
        let close_pos = i - 1;
        // Re-seat the lexer at the closing brace, so the token stream resumes there.
        self.lex = Lexer::resume(self.src, close_pos, &open.span);
        self.tok = self.lex.next_token()?;
        self.next = self.lex.next_token()?;
        self.bump()?; // `}`
        Ok(Section {
            name,
            body,
            span: self.span_from(start),
        })
    }

    /// Leading `.extern`/`.visible`/`.weak` and then a function or a variable.
    fn declaration(&mut self, items: &mut Vec<ModuleItem<'src>>) -> PResult<()> {
        let start = self.tok.span;
        let mut linkage = None;
        if self.at(TokKind::Dot) {
            if let Some(l) = parse_linkage(self.text(self.tok)) {
                linkage = Some(l);
                self.bump()?;
            }
        }
        if self.at_dot(".entry") || self.at_dot(".func") {
            let f = self.function(linkage, start)?;
            items.push(ModuleItem::Function(f));
            return Ok(());
        }
        let mut vars = Vec::new();
        self.var_decl(linkage, start, &mut vars)?;
        items.extend(vars.into_iter().map(ModuleItem::Variable));
        Ok(())
    }

    fn function(&mut self, linkage: Option<Linkage>, start: Span) -> PResult<Function<'src>> {
        let kw = self.bump()?;
        let kind = if self.text(kw) == ".entry" {
            FunctionKind::Entry
        } else {
            FunctionKind::Func
        };
        let mut returns = Vec::new();
        if kind == FunctionKind::Func && self.at(TokKind::LParen) {
            returns = self.param_list()?;
        }
        let name = self.ident()?;
        let params = if self.at(TokKind::LParen) {
            Some(self.param_list()?)
        } else {
            None
        };
        let mut noreturn = false;
        let mut perf = Vec::new();
        while self.at(TokKind::Dot) {
            let t = self.tok;
            let d = self.text(t);
            self.bump()?;
            let dir = match d {
                ".noreturn" => {
                    noreturn = true;
                    continue;
                }
                ".reqntid" => PerfDirective::Reqntid(self.u32_list()?, self.span_from(t.span)),
                ".maxntid" => PerfDirective::Maxntid(self.u32_list()?, self.span_from(t.span)),
                ".reqnctapercluster" => {
                    PerfDirective::Reqnctapercluster(self.u32_list()?, self.span_from(t.span))
                }
                ".maxnreg" => PerfDirective::Maxnreg(self.u32_lit()?, self.span_from(t.span)),
                ".minnctapersm" => {
                    PerfDirective::Minnctapersm(self.u32_lit()?, self.span_from(t.span))
                }
                ".maxnctapersm" => {
                    PerfDirective::Maxnctapersm(self.u32_lit()?, self.span_from(t.span))
                }
                ".maxclusterrank" => {
                    PerfDirective::Maxclusterrank(self.u32_lit()?, self.span_from(t.span))
                }
                ".abi_preserve" => {
                    PerfDirective::AbiPreserve(self.u32_lit()?, self.span_from(t.span))
                }
                ".abi_preserve_control" => {
                    PerfDirective::AbiPreserveControl(self.u32_lit()?, self.span_from(t.span))
                }
                ".explicitcluster" => PerfDirective::ExplicitCluster(t.span),
                ".blocksareclusters" => PerfDirective::BlocksAreClusters(t.span),
                ".pragma" => PerfDirective::Pragma(self.pragma_rest(t.span)?),
                _ => {
                    return Err(ParseError::new(
                        ParseErrorKind::UnknownDirective(d.into()),
                        t.span,
                    ))
                }
            };
            perf.push(dir);
        }
        let body = if self.eat(TokKind::Semi)? {
            None
        } else if self.at(TokKind::LBrace) {
            Some(self.block()?)
        } else {
            return self.err_expected("`{` or `;`");
        };
        Ok(Function {
            linkage,
            kind,
            returns,
            name,
            params,
            noreturn,
            perf,
            body,
            span: self.span_from(start),
        })
    }

    fn u32_list(&mut self) -> PResult<Vec<u32>> {
        let mut v = vec![self.u32_lit()?];
        while self.at(TokKind::Comma) && self.next.kind == TokKind::Int {
            self.bump()?;
            v.push(self.u32_lit()?);
        }
        Ok(v)
    }

    fn param_list(&mut self) -> PResult<Vec<Param<'src>>> {
        self.expect(TokKind::LParen, "`(`")?;
        self.comma_list(TokKind::RParen, "`)` or `,`", Self::param)
    }

    /// `item, item, ...` (possibly empty) up to and including `close`.
    fn comma_list<T>(
        &mut self,
        close: TokKind,
        what: &'static str,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut items = Vec::new();
        if !self.at(close) {
            loop {
                items.push(item(self)?);
                if !self.eat(TokKind::Comma)? {
                    break;
                }
            }
        }
        self.expect(close, what)?;
        Ok(items)
    }

    fn param(&mut self) -> PResult<Param<'src>> {
        let start = self.tok.span;
        let a = self.decl_attrs()?;
        let Some(space) = a.space else {
            return self.err_expected("`.param` or `.reg`");
        };
        let Some(ty) = a.ty else {
            return self.err_expected("a type");
        };
        let name = self.ident()?;
        let dims = self.dims()?;
        Ok(Param {
            space,
            align: a.align,
            vector: a.vector,
            ty,
            ptr: a.ptr,
            name,
            dims,
            span: self.span_from(start),
        })
    }

    /// The directive words of a declaration before its first name, in any order.
    fn decl_attrs(&mut self) -> PResult<DeclAttrs> {
        let mut a = DeclAttrs::default();
        while self.at(TokKind::Dot) {
            let t = self.tok;
            let d = self.text(t);
            if let Some(s) = parse_space(d) {
                a.space = Some(s);
                self.bump()?;
            } else if let Some(ty) = parse_type(d) {
                a.ty = Some(ty);
                self.bump()?;
            } else if let Some(v) = parse_vector(d) {
                a.vector = Some(v);
                self.bump()?;
            } else if d == ".align" {
                self.bump()?;
                a.align = Some(self.u32_lit()?);
            } else if let Some(rest) = d.strip_prefix(".ptr") {
                self.bump()?;
                let mut ptr = PtrAttr {
                    space: None,
                    align: None,
                };
                let bad = || ParseError::new(ParseErrorKind::UnknownDirective(d.into()), t.span);
                if !rest.is_empty() && !rest.starts_with('.') {
                    return Err(bad());
                }
                // `.ptr.global.align 16` is one token, `.ptr .global .align 16` several (LLVM
                // emits `.ptr .align 32`): the same words either way.
                for seg in rest.split('.').skip(1) {
                    if !self.ptr_word(seg, &mut ptr)? {
                        return Err(bad());
                    }
                }
                while self.at(TokKind::Dot) {
                    let word = &self.text(self.tok)[1..];
                    if word != "align" && ptr_space(word).is_none() {
                        break;
                    }
                    self.bump()?;
                    self.ptr_word(word, &mut ptr)?;
                }
                a.ptr = Some(ptr);
            } else if d == ".attribute" {
                // `.attribute(.managed)` / `.attribute(.unified(...))`: accepted, not modelled.
                self.bump()?;
                self.skip_parens()?;
            } else if a.ty.is_none() && a.space.is_some() {
                return Err(ParseError::new(
                    ParseErrorKind::UnknownType(d.into()),
                    t.span,
                ));
            } else {
                return Err(ParseError::new(
                    ParseErrorKind::UnknownDirective(d.into()),
                    t.span,
                ));
            }
        }
        Ok(a)
    }

    /// One word of a `.ptr` attribute (`global`, `align N`); `false` when it is not one.
    fn ptr_word(&mut self, word: &str, ptr: &mut PtrAttr) -> PResult<bool> {
        if word == "align" {
            ptr.align = Some(self.u32_lit()?);
            return Ok(true);
        }
        Ok(ptr_space(word).map(|s| ptr.space = Some(s)).is_some())
    }

    fn skip_parens(&mut self) -> PResult<()> {
        self.expect(TokKind::LParen, "`(`")?;
        let mut depth = 1u32;
        while depth > 0 {
            match self.bump()?.kind {
                TokKind::LParen => depth += 1,
                TokKind::RParen => depth -= 1,
                TokKind::Eof => return self.err_expected("`)`"),
                _ => {}
            }
        }
        Ok(())
    }

    fn dims(&mut self) -> PResult<Vec<Option<u64>>> {
        let mut dims = Vec::new();
        while self.eat(TokKind::LBracket)? {
            if self.eat(TokKind::RBracket)? {
                dims.push(None);
            } else {
                let c = self.const_expr()?;
                let Const::Int(v) = c else {
                    return Err(ParseError::new(
                        ParseErrorKind::BadConstant("array size must be an integer"),
                        self.tok.span,
                    ));
                };
                dims.push(Some(v));
                self.expect(TokKind::RBracket, "`]`")?;
            }
        }
        Ok(dims)
    }

    /// A variable declaration statement, split into one [`VarDecl`] per declarator.
    fn var_decl(
        &mut self,
        linkage: Option<Linkage>,
        start: Span,
        out: &mut Vec<VarDecl<'src>>,
    ) -> PResult<()> {
        let mut linkage = linkage;
        if linkage.is_none() && self.at(TokKind::Dot) {
            if let Some(l) = parse_linkage(self.text(self.tok)) {
                linkage = Some(l);
                self.bump()?;
            }
        }
        let first = self.tok;
        let a = self.decl_attrs()?;
        let Some(space) = a.space else {
            if first.kind == TokKind::Dot {
                let d = self.text(first);
                return Err(ParseError::new(
                    ParseErrorKind::UnknownDirective(d.into()),
                    first.span,
                ));
            }
            return self.err_expected("a directive");
        };
        let Some(ty) = a.ty else {
            return self.err_expected("a type");
        };
        loop {
            let name = self.ident()?;
            let mut range = None;
            if self.eat(TokKind::Lt)? {
                range = Some(self.u32_lit()?);
                self.expect(TokKind::Gt, "`>`")?;
            }
            let dims = self.dims()?;
            let init = if self.eat(TokKind::Assign)? {
                Some(self.initializer()?)
            } else {
                None
            };
            out.push(VarDecl {
                linkage,
                space,
                align: a.align,
                vector: a.vector,
                ty,
                ptr: a.ptr,
                name,
                range,
                dims,
                init,
                span: self.span_from(start),
            });
            if !self.eat(TokKind::Comma)? {
                break;
            }
        }
        self.expect(TokKind::Semi, "`;`")?;
        let end = self.prev_end;
        for v in out.iter_mut() {
            v.span.end = end;
        }
        Ok(())
    }

    fn initializer(&mut self) -> PResult<Initializer<'src>> {
        if self.at(TokKind::LBrace) {
            self.enter()?;
            let start = self.bump()?.span;
            let items = self.comma_list(TokKind::RBrace, "`}` or `,`", Self::initializer)?;
            self.leave();
            Ok(Initializer::List(items, self.span_from(start)))
        } else {
            Ok(Initializer::Expr(self.expr(0)?))
        }
    }

    // ------------------------------------------------------------ expressions

    /// Precedence-climbing expression parser (C precedence, as PTX specifies).
    fn expr(&mut self, min_prec: u8) -> PResult<Expr<'src>> {
        self.enter()?;
        let mut lhs = self.unary_expr()?;
        // Each operator of a left-associative chain (`1+1+1+...`) deepens the tree by one,
        // and evaluating, printing and dropping the tree recurse over it: count it as nesting.
        let mut chain = 0;
        while let Some((op, prec)) = binop(self.tok.kind) {
            if prec < min_prec {
                break;
            }
            self.enter()?;
            chain += 1;
            self.bump()?;
            let rhs = self.expr(prec + 1)?;
            let span = expr_span(&lhs).to(self.span_from(expr_span(&rhs)));
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs), span);
        }
        self.depth -= chain;
        self.leave();
        Ok(lhs)
    }

    fn unary_expr(&mut self) -> PResult<Expr<'src>> {
        let t = self.tok;
        match t.kind {
            TokKind::Minus | TokKind::Tilde | TokKind::Bang => {
                self.bump()?;
                let op = match t.kind {
                    TokKind::Minus => UnaryOp::Neg,
                    TokKind::Tilde => UnaryOp::Not,
                    _ => UnaryOp::LogicalNot,
                };
                self.enter()?;
                let e = self.unary_expr()?;
                self.leave();
                Ok(Expr::Unary(op, Box::new(e), self.span_from(t.span)))
            }
            TokKind::Plus => {
                self.bump()?;
                self.enter()?;
                let e = self.unary_expr();
                self.leave();
                e
            }
            TokKind::LParen => {
                self.bump()?;
                let e = self.expr(0)?;
                self.expect(TokKind::RParen, "`)`")?;
                Ok(e)
            }
            TokKind::Int => {
                self.bump()?;
                let text = self.text(t);
                let (v, _) = int_value(text).ok_or_else(|| {
                    ParseError::new(ParseErrorKind::InvalidNumber(text.into()), t.span)
                })?;
                Ok(Expr::Int(v as i64, t.span))
            }
            TokKind::Float => {
                self.bump()?;
                let text = self.text(t);
                let f = float_value(text).ok_or_else(|| {
                    ParseError::new(ParseErrorKind::InvalidNumber(text.into()), t.span)
                })?;
                Ok(Expr::Float(f, t.span))
            }
            TokKind::Ident => {
                let id = self.ident()?;
                if id.name == "generic" && self.at(TokKind::LParen) {
                    self.bump()?;
                    let inner = self.ident()?;
                    self.expect(TokKind::RParen, "`)`")?;
                    return Ok(Expr::Generic(Ident {
                        name: inner.name,
                        span: self.span_from(id.span),
                    }));
                }
                Ok(Expr::Symbol(id))
            }
            _ => self.err_expected("an expression"),
        }
    }

    /// Parses and folds a constant expression (no symbols).
    fn const_expr(&mut self) -> PResult<Const> {
        if let Some((c, _)) = self.lone_literal(0)? {
            return Ok(c);
        }
        let e = self.expr(0)?;
        eval(&e, self.src)
    }

    /// `self.expr(min_prec)` folded, when it is one literal (most operands and offsets are):
    /// the value and the literal's span, without building and folding a tree (~400
    /// instructions each). `None`, consuming nothing, when [`Parser::expr`] must decide:
    /// an operator that continues the expression follows, or the nesting limit is reached
    /// (`expr` reports it).
    fn lone_literal(&mut self, min_prec: u8) -> PResult<Option<(Const, Span)>> {
        let t = self.tok;
        if !matches!(t.kind, TokKind::Int | TokKind::Float)
            || self.depth >= MAX_DEPTH
            || binop(self.next.kind).is_some_and(|(_, prec)| prec >= min_prec)
        {
            return Ok(None);
        }
        self.bump()?;
        let text = self.text(t);
        let bad = || ParseError::new(ParseErrorKind::InvalidNumber(text.into()), t.span);
        // the values `eval` gives `Expr::Int(v as i64)` and `Expr::Float(f)`
        let c = match t.kind {
            TokKind::Int => Const::Int(int_value(text).ok_or_else(bad)?.0),
            _ => Const::Float(float_value(text).ok_or_else(bad)?),
        };
        Ok(Some((c, t.span)))
    }

    // ------------------------------------------------------------ bodies

    fn block(&mut self) -> PResult<Block<'src>> {
        self.enter()?;
        let start = self.expect(TokKind::LBrace, "`{`")?.span;
        // Pushing into a fresh vector re-copied a 1 700-statement body at every doubling (a
        // sixth of the parse).
        let statements = if self.depth == 1 {
            // A function's body: room for a body as long as the rest of the file (a
            // statement takes ~38 bytes of PTX from Triton, nvcc or the CuTe DSL; at most 24
            // in the 10 MB test of `malformed.rs`), then shrunk in place: pages never
            // touched cost nothing, and no statement is copied.
            let mut v = Vec::with_capacity((self.src.len() - start.start as usize) / 24);
            self.statements(&mut v, start)?;
            v.shrink_to_fit();
            v
        } else {
            // an inline-asm block of a few statements: a vector reused from the last one
            let mut scratch = self.spare.pop().unwrap_or_default();
            let parsed = self.statements(&mut scratch, start);
            // moved out, exactly sized; the scratch keeps its capacity for the next block
            let mut statements = Vec::with_capacity(scratch.len());
            statements.append(&mut scratch);
            self.spare.push(scratch);
            parsed?;
            statements
        };
        self.bump()?;
        self.leave();
        Ok(Block {
            statements,
            span: self.span_from(start),
        })
    }

    /// The statements of a block up to its `}`, into `out`.
    fn statements(&mut self, out: &mut Vec<Statement<'src>>, start: Span) -> PResult<()> {
        loop {
            match self.tok.kind {
                TokKind::RBrace => return Ok(()),
                TokKind::Eof => {
                    return Err(ParseError::new(ParseErrorKind::UnbalancedBrace, start));
                }
                _ => self.statement(out)?,
            }
        }
    }

    fn statement(&mut self, out: &mut Vec<Statement<'src>>) -> PResult<()> {
        let t = self.tok;
        match t.kind {
            TokKind::LBrace => out.push(Statement::Block(self.block()?)),
            TokKind::Ident if self.next.kind == TokKind::Colon => {
                let id = self.ident()?;
                // A label is a plain identifier; `bra.uni :L` is a typo, not a label.
                if id.name.contains('.') {
                    let kind = ParseErrorKind::Expected {
                        expected: "a label name (no `.`) before `:`",
                        found: format!("`{}`", id.name),
                    };
                    return Err(ParseError::new(kind, id.span));
                }
                self.bump()?;
                out.push(Statement::Label(id));
            }
            TokKind::Ident | TokKind::At => out.push(Statement::Instruction(self.instruction()?)),
            TokKind::Dot => match self.text(t) {
                ".loc" => out.push(Statement::Loc(self.loc()?)),
                ".pragma" => out.push(Statement::Pragma(self.pragma()?)),
                ".branchtargets" | ".calltargets" => {
                    let is_branch = self.text(t) == ".branchtargets";
                    self.bump()?;
                    let mut names = vec![self.ident()?];
                    while self.eat(TokKind::Comma)? {
                        names.push(self.ident()?);
                    }
                    self.expect(TokKind::Semi, "`;`")?;
                    let span = self.span_from(t.span);
                    out.push(if is_branch {
                        Statement::BranchTargets(names, span)
                    } else {
                        Statement::CallTargets(names, span)
                    });
                }
                ".callprototype" => {
                    self.bump()?;
                    let returns = if self.at(TokKind::LParen) {
                        self.param_list()?
                    } else {
                        Vec::new()
                    };
                    let sink = self.ident()?;
                    if sink.name != "_" {
                        let kind = ParseErrorKind::Expected {
                            expected: "`_`",
                            found: format!("`{}`", sink.name),
                        };
                        return Err(ParseError::new(kind, sink.span));
                    }
                    let params = if self.at(TokKind::LParen) {
                        self.param_list()?
                    } else {
                        Vec::new()
                    };
                    let noreturn = self.at_dot(".noreturn");
                    if noreturn {
                        self.bump()?;
                    }
                    self.expect(TokKind::Semi, "`;`")?;
                    out.push(Statement::CallPrototype(CallPrototype {
                        returns,
                        params,
                        noreturn,
                        span: self.span_from(t.span),
                    }));
                }
                _ => {
                    let mut vars = Vec::new();
                    self.var_decl(None, t.span, &mut vars)?;
                    out.extend(vars.into_iter().map(Statement::Variable));
                }
            },
            TokKind::Semi => {
                // A stray `;` is an empty statement; accepted and dropped.
                self.bump()?;
            }
            _ => return self.err_expected("an instruction, label, directive or `}`"),
        }
        Ok(())
    }

    fn instruction(&mut self) -> PResult<Instruction<'src>> {
        let start = self.tok.span;
        let guard = if self.at(TokKind::At) {
            self.bump()?;
            let negated = self.eat(TokKind::Bang)?;
            let pred = self.ident()?;
            Some(Guard {
                negated,
                pred,
                span: self.span_from(start),
            })
        } else {
            None
        };
        let op = self.expect(TokKind::Ident, "an opcode")?;
        let text = self.text(op);
        let (name, modifiers) = match text.bytes().position(|b| b == b'.') {
            Some(i) => (&text[..i], Modifiers(&text[i..])),
            None => (text, Modifiers("")),
        };
        let is_call = name == "call";
        let mut operands = Vec::new();
        if !self.at(TokKind::Semi) {
            loop {
                operands.push(self.operand(is_call)?);
                if !self.eat(TokKind::Comma)? {
                    break;
                }
            }
        }
        self.expect(TokKind::Semi, "`;` or `,`")?;
        Ok(Instruction {
            guard,
            name,
            modifiers,
            operands,
            span: self.span_from(start),
            opcode_span: op.span,
        })
    }

    fn operand(&mut self, is_call: bool) -> PResult<Operand<'src>> {
        let start = self.tok.span;
        let kind = match self.tok.kind {
            TokKind::Ident => {
                let id = self.ident()?;
                if self.at(TokKind::Pipe) {
                    // `p|q`, also `_|p` (elect.sync): a `_` side stays an Ident named `_`.
                    self.bump()?;
                    OperandKind::PredPair(id, self.ident()?)
                } else if id.name == "_" {
                    OperandKind::Sink
                } else if (self.at(TokKind::Plus) || self.at(TokKind::Minus))
                    && matches!(
                        self.next.kind,
                        TokKind::Int | TokKind::LParen | TokKind::Minus
                    )
                {
                    let neg = self.bump()?.kind == TokKind::Minus;
                    let v = self.int_const()?;
                    OperandKind::SymbolOffset(id, if neg { v.wrapping_neg() } else { v })
                } else {
                    OperandKind::Ident(id)
                }
            }
            TokKind::Bang if self.next.kind == TokKind::Ident => {
                self.bump()?;
                OperandKind::Not(self.ident()?)
            }
            TokKind::LBrace => {
                self.enter()?;
                self.bump()?;
                let items = self.comma_list(TokKind::RBrace, "`}` or `,`", |p| p.operand(false))?;
                self.leave();
                OperandKind::Vector(items)
            }
            TokKind::LParen if is_call => {
                self.bump()?;
                OperandKind::List(
                    self.comma_list(TokKind::RParen, "`)` or `,`", |p| p.operand(false))?,
                )
            }
            TokKind::LBracket => OperandKind::Address(self.address()?),
            _ => match self.const_expr()? {
                Const::Int(v) => OperandKind::Int(v as i64),
                Const::Float(f) => OperandKind::Float(f),
            },
        };
        Ok(Operand {
            kind,
            span: self.span_from(start),
        })
    }

    fn int_const(&mut self) -> PResult<i64> {
        let span = self.tok.span;
        match self.unary_const()? {
            Const::Int(v) => Ok(v as i64),
            Const::Float(_) => Err(ParseError::new(
                ParseErrorKind::BadConstant("expected an integer offset"),
                span,
            )),
        }
    }

    /// An offset term: a literal, a negated literal, or a parenthesised expression.
    fn unary_const(&mut self) -> PResult<Const> {
        let e = self.unary_expr()?;
        eval(&e, self.src)
    }

    fn address(&mut self) -> PResult<Address<'src>> {
        self.enter()?;
        let a = self.address_inner();
        self.leave();
        a
    }

    fn address_inner(&mut self) -> PResult<Address<'src>> {
        self.expect(TokKind::LBracket, "`[`")?;
        let mut base = None;
        let mut offset = 0i64;
        if self.at(TokKind::Ident) {
            base = Some(self.ident()?);
            if self.at(TokKind::Plus) || self.at(TokKind::Minus) {
                let neg = self.bump()?.kind == TokKind::Minus;
                let (c, span) = match self.lone_literal(ADD_PREC + 1)? {
                    Some(lit) => lit,
                    None => {
                        let e = self.expr(ADD_PREC + 1)?;
                        (eval(&e, self.src)?, expr_span(&e))
                    }
                };
                let v = match c {
                    Const::Int(v) => v as i64,
                    Const::Float(_) => {
                        return Err(ParseError::new(
                            ParseErrorKind::BadConstant("address offset must be an integer"),
                            span,
                        ))
                    }
                };
                offset = if neg { v.wrapping_neg() } else { v };
                // Further `+ k` terms (`[%r1+4+8]`).
                while self.at(TokKind::Plus) || self.at(TokKind::Minus) {
                    let neg = self.bump()?.kind == TokKind::Minus;
                    let v = self.int_const()?;
                    offset = if neg {
                        offset.wrapping_sub(v)
                    } else {
                        offset.wrapping_add(v)
                    };
                }
            }
        } else if !self.at(TokKind::RBracket) {
            match self.const_expr()? {
                Const::Int(v) => offset = v as i64,
                Const::Float(_) => {
                    return Err(ParseError::new(
                        ParseErrorKind::BadConstant("address must be an integer"),
                        self.tok.span,
                    ))
                }
            }
        } else {
            return self.err_expected("an address");
        }
        let mut rest = Vec::new();
        while self.eat(TokKind::Comma)? {
            rest.push(self.operand(false)?);
        }
        self.expect(TokKind::RBracket, "`]`")?;
        Ok(Address { base, offset, rest })
    }
}

#[derive(Default)]
struct DeclAttrs {
    space: Option<StateSpace>,
    ty: Option<ScalarType>,
    vector: Option<u8>,
    align: Option<u32>,
    ptr: Option<PtrAttr>,
}

/// Precedence of binary `+`/`-` (see [`binop`]).
const ADD_PREC: u8 = 9;

/// C operator precedence (higher binds tighter).
fn binop(k: TokKind) -> Option<(BinaryOp, u8)> {
    use BinaryOp::*;
    Some(match k {
        TokKind::Star => (Mul, 10),
        TokKind::Slash => (Div, 10),
        TokKind::Percent => (Rem, 10),
        TokKind::Plus => (Add, ADD_PREC),
        TokKind::Minus => (Sub, ADD_PREC),
        TokKind::Shl => (Shl, 8),
        TokKind::Shr => (Shr, 8),
        TokKind::Lt => (Lt, 7),
        TokKind::Gt => (Gt, 7),
        TokKind::Le => (Le, 7),
        TokKind::Ge => (Ge, 7),
        TokKind::EqEq => (Eq, 6),
        TokKind::Ne => (Ne, 6),
        TokKind::Amp => (And, 5),
        TokKind::Caret => (Xor, 4),
        TokKind::Pipe => (Or, 3),
        TokKind::AmpAmp => (LogicalAnd, 2),
        TokKind::PipePipe => (LogicalOr, 1),
        _ => return None,
    })
}

pub(crate) fn expr_span(e: &Expr<'_>) -> Span {
    match e {
        Expr::Int(_, s) | Expr::Float(_, s) | Expr::Unary(_, _, s) | Expr::Binary(_, _, _, s) => *s,
        Expr::Symbol(i) | Expr::Generic(i) => i.span,
    }
}

/// Folds a constant expression with PTX's typing of integer constants (PTX ISA "Integer
/// Constants" and "Constant Expressions"): a literal is `.s64` unless it has a `U` suffix or
/// does not fit `.s64`, then `.u64`; a binary arithmetic/bitwise operator with a `.u64`
/// operand works in `.u64`; comparisons and `!`, `&&`, `||` give `.s64`; unary `-` and `~`
/// keep the type. Only `/`, `%`, `>>` and comparisons depend on the type. Checked against a
/// ptxas 13.5 probe (initializers compiled to a cubin, `.nv.global.init` read back), which
/// also showed `%` is always unsigned. `src` is needed to see a literal's `U` suffix, which
/// the tree does not keep.
pub(crate) fn eval(e: &Expr<'_>, src: &str) -> PResult<Const> {
    Ok(match eval_typed(e, src)? {
        Typed::Int(v, _) => Const::Int(v),
        Typed::Float(f) => Const::Float(f),
    })
}

#[derive(Clone, Copy)]
enum Typed {
    /// Value and whether it is `.u64`.
    Int(u64, bool),
    Float(FloatLit),
}

fn eval_typed(e: &Expr<'_>, src: &str) -> PResult<Typed> {
    let bad = |why| {
        Err(ParseError::new(
            ParseErrorKind::BadConstant(why),
            expr_span(e),
        ))
    };
    match e {
        Expr::Int(v, span) => {
            let suffix_u = span.text(src).ends_with(['U', 'u']);
            Ok(Typed::Int(*v as u64, suffix_u || *v < 0))
        }
        Expr::Float(f, _) => Ok(Typed::Float(*f)),
        Expr::Symbol(_) | Expr::Generic(_) => bad("a name is not a constant here"),
        Expr::Unary(op, inner, _) => match (op, eval_typed(inner, src)?) {
            (UnaryOp::Neg, Typed::Int(v, u)) => Ok(Typed::Int(v.wrapping_neg(), u)),
            (UnaryOp::Not, Typed::Int(v, u)) => Ok(Typed::Int(!v, u)),
            (UnaryOp::LogicalNot, Typed::Int(v, _)) => Ok(Typed::Int((v == 0) as u64, false)),
            (UnaryOp::Neg, Typed::Float(f)) => Ok(Typed::Float(match f {
                FloatLit::F32Bits(b) => FloatLit::F32Bits(b ^ 0x8000_0000),
                FloatLit::F64Bits(b) => FloatLit::F64Bits(b ^ (1 << 63)),
                FloatLit::Decimal(v) => FloatLit::Decimal(-v),
            })),
            _ => bad("operator not defined on floats"),
        },
        Expr::Binary(op, l, r, _) => {
            let (Typed::Int(a, ua), Typed::Int(b, ub)) = (eval_typed(l, src)?, eval_typed(r, src)?)
            else {
                return bad("float arithmetic in constant expression");
            };
            let unsigned = ua || ub;
            let (sa, sb) = (a as i64, b as i64);
            let cmp = |s: bool, u: bool| Typed::Int(if unsigned { u } else { s } as u64, false);
            use BinaryOp::*;
            Ok(match op {
                Div | Rem if b == 0 => return bad("division by zero"),
                Div if unsigned => Typed::Int(a / b, true),
                Div => Typed::Int(sa.wrapping_div(sb) as u64, false),
                // ptxas 13.5 computes `%` on the 64-bit patterns as unsigned even for signed
                // operands (probe: `-7 % 4` = 1, `7 % -4` = 7), unlike `/` (`-8 / 3` = -2).
                Rem => Typed::Int(a % b, unsigned),
                Shr if unsigned => Typed::Int(a.wrapping_shr(b as u32), true),
                Shr => Typed::Int(sa.wrapping_shr(b as u32) as u64, false),
                Mul => Typed::Int(a.wrapping_mul(b), unsigned),
                Add => Typed::Int(a.wrapping_add(b), unsigned),
                Sub => Typed::Int(a.wrapping_sub(b), unsigned),
                Shl => Typed::Int(a.wrapping_shl(b as u32), unsigned),
                And => Typed::Int(a & b, unsigned),
                Xor => Typed::Int(a ^ b, unsigned),
                Or => Typed::Int(a | b, unsigned),
                Lt => cmp(sa < sb, a < b),
                Gt => cmp(sa > sb, a > b),
                Le => cmp(sa <= sb, a <= b),
                Ge => cmp(sa >= sb, a >= b),
                Eq => Typed::Int((a == b) as u64, false),
                Ne => Typed::Int((a != b) as u64, false),
                LogicalAnd => Typed::Int((a != 0 && b != 0) as u64, false),
                LogicalOr => Typed::Int((a != 0 || b != 0) as u64, false),
            })
        }
    }
}
