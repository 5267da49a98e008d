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
