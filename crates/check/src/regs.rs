//! Declared types of a function's registers (`.reg .b16 %rs<4>;` declares %rs0..%rs3), for
//! the few static rules that depend on an operand's width.

use std::collections::HashMap;

use tmemu_ptx::ast::{ScalarType, StateSpace, Statement};

pub(crate) struct RegTypes<'src> {
    /// name → (type, `<N>` range if a parameterised declaration)
    decls: HashMap<&'src str, (ScalarType, Option<u32>)>,
}

impl<'src> RegTypes<'src> {
    /// Every `.reg` declaration of a body, nested blocks included (the first declaration of
    /// a name wins; shadowing in inner blocks is not modelled).
    pub(crate) fn of(stmts: &[Statement<'src>]) -> Self {
        let mut decls = HashMap::new();
        crate::visit(stmts, &mut |s| {
            if let Statement::Variable(v) = s {
                if v.space == StateSpace::Reg {
                    decls.entry(v.name.name).or_insert((v.ty, v.range));
                }
            }
        });
        RegTypes { decls }
    }

    pub(crate) fn type_of(&self, name: &str) -> Option<ScalarType> {
        if let Some(&(ty, None)) = self.decls.get(name) {
            return Some(ty);
        }
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let index: u32 = name[stem.len()..].parse().ok()?;
        match self.decls.get(stem) {
            Some(&(ty, Some(n))) if index < n => Some(ty),
            _ => None,
        }
    }
}
