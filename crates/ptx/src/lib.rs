//! tmemu-ptx: PTX text → typed syntax tree with spans.
//!
//! ```
//! let src = ".version 9.0\n.target sm_100a\n.address_size 64\n.visible .entry k() { ret; }";
//! let m = tmemu_ptx::parse(src).unwrap();
//! assert_eq!(m.entries().count(), 1);
//! assert_eq!(m.instruction_count(), 1);
//! ```
//!
//! The crate knows PTX syntax only, never semantics: names are not resolved and an unknown
//! opcode is a valid generic [`ast::Instruction`]. [`decode`] turns modifier lists into
//! typed values so the loader never re-parses strings. [`printer`] prints a tree back as PTX.

pub mod ast;
pub mod decode;
pub mod error;
pub mod lexer;
mod parser;
pub mod printer;
pub mod span;
pub mod spanless;

pub use ast::Module;
pub use error::{ParseError, ParseErrorKind};
pub use parser::{parse, MAX_DEPTH};
pub use span::{SourceMap, Span};

#[cfg(test)]
mod tests {
    use crate::ast::{ScalarType, StateSpace};

    /// The spelling tables (`as_str` in ast.rs, `from_name`) are each other's inverse.
    #[test]
    fn type_and_space_names_round_trip() {
        for t in ScalarType::ALL {
            assert_eq!(ScalarType::from_name(&t.as_str()[1..]), Some(t));
        }
        for s in StateSpace::ALL {
            assert_eq!(StateSpace::from_name(&s.as_str()[1..]), Some(s));
        }
        assert_eq!(ScalarType::from_name("b33"), None);
        assert_eq!(StateSpace::from_name("shared::gpu"), None);
    }
}
