//! Loaded kernels by PTX text, so a loop of launches (a Triton kernel called again and again,
//! a benchmark) parses and loads its PTX once.
//!
//! Keyed by the whole text, the name it is shown under (messages and findings carry it) and
//! the entry; a hit compares the text itself, not only its hash. Errors are not cached: a
//! failing load is re-done and raises again. Small (`CAPACITY` entries, least recently used
//! dropped): a session launches few distinct kernels.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use tmemu_host::{load_ptx_source, HostError, Kernel, LocTable};

/// A kernel ready to launch, the `.loc` table its findings are mapped through, and what the
/// static checker finds in its PTX (every report of a launch starts with those, as the CLI's).
pub struct Loaded {
    pub kernel: Kernel,
    pub locs: LocTable,
    pub statics: Vec<tmemu_check::StaticFinding>,
}

struct Entry {
    hash: u64,
    text: String,
    shown: String,
    entry: Option<String>,
    loaded: Arc<Loaded>,
}

const CAPACITY: usize = 8;

/// Most recently used last.
static CACHE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn hash_of(text: &str) -> u64 {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// The loaded kernel of `text`'s `entry` (None: the only one), from the cache or loaded now.
pub fn load(text: &str, shown: &str, entry: Option<&str>) -> Result<Arc<Loaded>, HostError> {
    let hash = hash_of(text);
    {
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = cache.iter().position(|e| {
            e.hash == hash && e.shown == shown && e.entry.as_deref() == entry && e.text == text
        }) {
            let e = cache.remove(i);
            let loaded = e.loaded.clone();
            cache.push(e);
            return Ok(loaded);
        }
    }
    let kernel = load_ptx_source(text, shown, entry)?;
    let loaded = Arc::new(Loaded {
        kernel,
        locs: LocTable::from_source(text),
        statics: static_findings(text, shown),
    });
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= CAPACITY {
        cache.remove(0);
    }
    cache.push(Entry {
        hash,
        text: text.to_string(),
        shown: shown.to_string(),
        entry: entry.map(str::to_string),
        loaded: loaded.clone(),
    });
    Ok(loaded)
}

/// The static checker's findings for `text` (the rules ptxas enforces), as `tmemu run` finds
/// them before running (crates/cli prepare.rs); none when the text does not parse.
pub fn static_findings(text: &str, shown: &str) -> Vec<tmemu_check::StaticFinding> {
    match tmemu_ptx::parse(text) {
        Ok(module) => tmemu_check::static_check(&module, shown),
        Err(_) => Vec::new(),
    }
}
