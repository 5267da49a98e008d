//! PTX scalar arithmetic semantics (owned by the numerics work).
