//! Column allocator.
