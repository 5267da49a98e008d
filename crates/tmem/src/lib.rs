//! tmemu-tmem
