//! The H100 TMA recording (tests/corpus/tma_h100, made by kernels/tma_h100/harness.cu): one
//! `key=value` line per case in `manifest.txt`, the bytes in `dumps.bin`. Read by
//! crates/sim/tests/tma.rs, which replays the non-tensor bulk reductions through the engine
//! (crates/tma/tests/h100_tma.rs replays the same file through `tmemu_tma`).

use std::collections::HashMap;
use std::path::PathBuf;

/// One recorded case: its manifest fields.
pub struct Case {
    pub kv: HashMap<String, String>,
}

impl Case {
    pub fn get(&self, k: &str) -> &str {
        self.kv
            .get(k)
            .unwrap_or_else(|| panic!("manifest line without '{k}'"))
    }

    pub fn num(&self, k: &str) -> u64 {
        self.get(k).parse().unwrap()
    }

    /// `len_key` bytes of the dumps from offset `at_key` (e.g. `"init_at"`, `"dump_len"`).
    pub fn bytes<'a>(&self, dumps: &'a [u8], at_key: &str, len_key: &str) -> &'a [u8] {
        let at = self.num(at_key) as usize;
        &dumps[at..at + self.num(len_key) as usize]
    }
}

pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/tma_h100")
}

/// Every case of the manifest and the dump bytes.
pub fn read() -> (Vec<Case>, Vec<u8>) {
    let text = std::fs::read_to_string(dir().join("manifest.txt")).unwrap();
    let dumps = crate::recording::read(&dir().join("dumps.bin"));
    let cases = text
        .lines()
        .filter(|l| l.starts_with("name="))
        .map(|l| Case {
            kv: l
                .split_whitespace()
                .filter_map(|f| f.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        })
        .collect();
    (cases, dumps)
}
