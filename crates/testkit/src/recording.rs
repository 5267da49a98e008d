//! Committed files stored compressed: hardware recordings (`.xz`), corpus PTX and arrays
//! (`.gz`). The one reader the tests share.
//!
//! The H100 dumps are a few MB each and mostly incompressible-looking bytes that xz still
//! shrinks 2-8×; stored raw they pushed the repository past the 64 MiB the device machine
//! carries. A recording `name.bin` is committed as `name.bin.xz`; a raw `name.bin` (a fresh
//! recording not yet compressed) is read as is and wins.

use std::path::Path;

/// The bytes of `path`, or of `path` + `.gz` or `path` + `.xz` decompressed (recordings are
/// `.xz`; corpus PTX over 64 KiB is `.gz`). Panics (the test fails) with the path when none
/// exists or the archive is corrupt.
pub fn read(path: &Path) -> Vec<u8> {
    if path.exists() {
        return std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let mut gz = path.as_os_str().to_owned();
    gz.push(".gz");
    let gz = Path::new(&gz);
    if let Ok(packed) = std::fs::read(gz) {
        use std::io::Read;
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(packed.as_slice())
            .read_to_end(&mut out)
            .unwrap_or_else(|e| panic!("{}: not a valid gzip file: {e}", gz.display()));
        return out;
    }
    let mut xz = path.as_os_str().to_owned();
    xz.push(".xz");
    let xz = Path::new(&xz);
    let packed = std::fs::read(xz)
        .unwrap_or_else(|e| panic!("{} (nor {}): {e}", path.display(), xz.display()));
    let mut out = Vec::new();
    lzma_rs::xz_decompress(&mut &packed[..], &mut out)
        .unwrap_or_else(|e| panic!("{}: not a valid xz archive: {e:?}", xz.display()));
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_raw_gz_and_xz_alike() {
        let dir = std::env::temp_dir().join(format!("tmemu-recording-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bytes: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut packed = Vec::new();
        lzma_rs::xz_compress(&mut &bytes[..], &mut packed).unwrap();
        std::fs::write(dir.join("a.bin.xz"), &packed).unwrap();
        assert_eq!(super::read(&dir.join("a.bin")), bytes);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut gz, &bytes[..4000]).unwrap();
        std::fs::write(dir.join("b.ptx.gz"), gz.finish().unwrap()).unwrap();
        assert_eq!(super::read(&dir.join("b.ptx")), &bytes[..4000]);
        std::fs::write(dir.join("a.bin"), b"raw").unwrap();
        assert_eq!(super::read(&dir.join("a.bin")), b"raw");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
