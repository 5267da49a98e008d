//! TMEM geometry.
