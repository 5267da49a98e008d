//! tmemu-sim
