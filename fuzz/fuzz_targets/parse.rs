//! Parser fuzz target: any bytes → `parse` must return (never panic, never hang), and a
//! successful parse must print to text that parses back to the same tree.
//! Run: `cargo +nightly fuzz run parse` (seed corpus: `tests/corpus/**/*.ptx`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tmemu_ptx::spanless::ClearSpans;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let Ok(module) = tmemu_ptx::parse(src) else { return };
    let printed = module.to_string();
    let mut again = tmemu_ptx::parse(&printed).expect("printed PTX must parse");
    let mut first = module.clone();
    first.clear_spans();
    again.clear_spans();
    assert!(first == again, "round trip changed the tree");
});
