//! The engine's side of a copy: global memory as byte ranges.

use crate::GlobalFault;

/// Global memory as the engine sees it. A range that is not entirely inside one of the
/// engine's buffers is a [`GlobalFault`] (an engine-level out-of-bounds access), which is not
/// the same thing as a tensor element outside the tensor map's dimensions: those are never
/// read or written, and loads fill them.
pub trait GlobalMemory {
    fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), GlobalFault>;
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), GlobalFault>;

    /// `global = global op add` over `add.len()` bytes at `addr`, `apply` doing `op` on
    /// little-endian elements of `elem` bytes (1, 2, 4 or 8). A TMA or bulk reduction updates
    /// each element as one atomic operation with `.relaxed.gpu` semantics (PTX ISA
    /// cp.reduce.async.bulk §9.7.9.25.4, cp.reduce.async.bulk.tensor §9.7.9.27.1), so: a
    /// memory that other threads write at the same time must override this so that each
    /// element is one read-modify-write (reductions of two CTAs into one tile never lose an
    /// update). The default reads, applies and writes back, which is enough for one thread.
    fn reduce(
        &mut self,
        addr: u64,
        elem: usize,
        add: &[u8],
        apply: &dyn Fn(&mut [u8], &[u8]),
    ) -> Result<(), GlobalFault> {
        const CHUNK: usize = 256;
        debug_assert!(elem > 0 && CHUNK.is_multiple_of(elem));
        let mut cur = [0u8; CHUNK];
        for (i, src) in add.chunks(CHUNK).enumerate() {
            let a = addr + (i * CHUNK) as u64;
            let c = &mut cur[..src.len()];
            self.read(a, c)?;
            apply(c, src);
            self.write(a, c)?;
        }
        Ok(())
    }
}

/// One contiguous buffer at a base address: the smallest useful [`GlobalMemory`], for tests
/// and single-buffer tools.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlatGlobal {
    pub base: u64,
    pub bytes: Vec<u8>,
}

impl FlatGlobal {
    pub fn new(base: u64, bytes: Vec<u8>) -> Self {
        FlatGlobal { base, bytes }
    }

    fn range(&self, addr: u64, len: usize) -> Result<std::ops::Range<usize>, GlobalFault> {
        let fault = GlobalFault {
            addr,
            len: len as u64,
        };
        let start = addr.checked_sub(self.base).ok_or(fault)?;
        let end = start.checked_add(len as u64).ok_or(fault)?;
        if end > self.bytes.len() as u64 {
            return Err(fault);
        }
        Ok(start as usize..end as usize)
    }
}

impl GlobalMemory for FlatGlobal {
    fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), GlobalFault> {
        let r = self.range(addr, out.len())?;
        out.copy_from_slice(&self.bytes[r]);
        Ok(())
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), GlobalFault> {
        let r = self.range(addr, data.len())?;
        self.bytes[r].copy_from_slice(data);
        Ok(())
    }
}
