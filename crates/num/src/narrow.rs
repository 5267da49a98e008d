//! Narrow float formats (owned by the tmem/MMA work).
