//! tmemu-ptx
