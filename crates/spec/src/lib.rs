//! tmemu-spec
