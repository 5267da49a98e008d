//! Owned by tmem-maps.
