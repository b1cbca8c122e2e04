//! Compact logs: JSON Lines text compressed as independent gzip members or
//! zstd frames, on every worker thread.
//!
//! A self-play run's log is megabytes of text per thousand hands, and one
//! compressor fed it in order keeps one core busy while the play waits
//! for it. Cut into frames of [`FRAME_BYTES`] of text, each compressed on
//! its own, the log compresses on all the run's threads; the frames,
//! written one after another, are one valid stream (gzip members and
//! zstd frames concatenate: `gzip -d`, `zstd -d`, Python's `gzip` and
//! `zstandard` with `read_across_frames` read them as one text). The
//! frames are cut at fixed offsets of the text, so that the bytes never
//! depend on the thread count. Both at level 1, the fastest: zstd's is
//! within a few percent of its default level's size on these repetitive
//! lines; gzip's (zlib-rs's "quick" deflate, static Huffman codes) is
//! about half as large again as zlib's level 1, at a fraction of its CPU,
//! which is why zstd is the compact choice.
//!
//! ```
//! use koudian_core::log_compress::LogCompression;
//! use std::io::Read;
//! let text = b"{\"type\":\"draw\"}\n".repeat(100_000);
//! let packed = LogCompression::Gzip.compress(text.clone(), 2).unwrap();
//! assert!(packed.len() < text.len() / 20);
//! let mut back = Vec::new();
//! flate2::read::MultiGzDecoder::new(&packed[..]).read_to_end(&mut back).unwrap();
//! assert_eq!(back, text);
//! ```

use crate::error::Error;
use crate::parallel::Workers;
use rayon::prelude::*;

/// Bytes of text per frame: large enough that a frame's header and its
/// compressor's cold start are noise and the ratio is within a few percent
/// of one stream's, small enough that a chunk of hands makes dozens of
/// frames to share among the threads.
pub const FRAME_BYTES: usize = 256 << 10;

/// The compression level of both formats: their fastest.
const LEVEL: i32 = 1;

/// How a log's text is compressed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LogCompression {
    /// Plain text.
    #[default]
    None,
    /// gzip members (RFC 1952), level 1.
    Gzip,
    /// zstd frames (RFC 8878), level 1.
    Zstd,
}

impl LogCompression {
    /// Every compression, in the order of their names' list.
    pub const ALL: [LogCompression; 3] = [
        LogCompression::None,
        LogCompression::Gzip,
        LogCompression::Zstd,
    ];

    /// Its name: `none`, `gzip` or `zstd`.
    pub fn name(self) -> &'static str {
        match self {
            LogCompression::None => "none",
            LogCompression::Gzip => "gzip",
            LogCompression::Zstd => "zstd",
        }
    }

    /// The compression named `name` ([`LogCompression::name`]).
    ///
    /// ```
    /// use koudian_core::log_compress::LogCompression;
    /// assert_eq!(LogCompression::from_name("zstd").unwrap(), LogCompression::Zstd);
    /// assert!(LogCompression::from_name("bzip2").is_err());
    /// ```
    pub fn from_name(name: &str) -> Result<LogCompression, Error> {
        Self::ALL
            .into_iter()
            .find(|c| c.name() == name)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "log compression must be one of none, gzip, zstd, got {name:?}"
                ))
            })
    }

    /// `text` compressed: frames of [`FRAME_BYTES`] of it, compressed on
    /// `threads` threads (as [`crate::simulate::simulate`] counts them),
    /// one after another; `text` itself for [`LogCompression::None`].
    pub fn compress(self, text: Vec<u8>, threads: usize) -> Result<Vec<u8>, Error> {
        if self == LogCompression::None {
            return Ok(text);
        }
        self.compress_on(&Workers::new(threads)?, text)
    }

    /// [`LogCompression::compress`] on the run's own `workers`.
    pub(crate) fn compress_on(self, workers: &Workers, text: Vec<u8>) -> Result<Vec<u8>, Error> {
        if self == LogCompression::None {
            return Ok(text);
        }
        let frames: Vec<&[u8]> = text.chunks(FRAME_BYTES).collect();
        let packed: Vec<Vec<u8>> = match workers {
            Workers::Caller => {
                let mut f = Framer::new(self)?;
                frames
                    .iter()
                    .map(|t| f.frame(t))
                    .collect::<Result<_, _>>()?
            }
            _ => workers.install(|| {
                frames
                    .par_iter()
                    .map_init(
                        || Framer::new(self),
                        |f, t| f.as_mut().map_err(|e| e.clone())?.frame(t),
                    )
                    .collect::<Result<_, Error>>()
            })?,
        };
        Ok(packed.concat())
    }
}

/// One thread's compressor, reused from frame to frame (a zstd context
/// or a deflate state is hundreds of KiB to set up).
enum Framer {
    Gzip(flate2::Compress),
    Zstd(zstd::bulk::Compressor<'static>),
}

fn io_error(e: impl std::fmt::Display) -> Error {
    Error::InvalidArgument(format!("log compression failed: {e}"))
}

/// A gzip member's header (RFC 1952): deflate, no name, mtime 0 (the
/// same text gives the same bytes), "fastest" (XFL 4), unknown OS.
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255];

impl Framer {
    fn new(c: LogCompression) -> Result<Framer, Error> {
        Ok(match c {
            LogCompression::Zstd => {
                Framer::Zstd(zstd::bulk::Compressor::new(LEVEL).map_err(io_error)?)
            }
            _ => Framer::Gzip(flate2::Compress::new(
                flate2::Compression::new(LEVEL as u32),
                false,
            )),
        })
    }

    /// `text` as one gzip member or zstd frame.
    fn frame(&mut self, text: &[u8]) -> Result<Vec<u8>, Error> {
        match self {
            Framer::Zstd(z) => z.compress(text).map_err(io_error),
            Framer::Gzip(z) => {
                // A raw deflate stream between the header and the trailer
                // (CRC-32 and length of the text), deflated straight into
                // the member: a deflate stream outgrows its input by a few
                // bytes per 16 KiB block at worst.
                let mut out = Vec::with_capacity(text.len() / 4 + 64);
                out.extend_from_slice(&GZIP_HEADER);
                z.reset();
                loop {
                    let read = z.total_in() as usize;
                    let status = z
                        .compress_vec(&text[read..], &mut out, flate2::FlushCompress::Finish)
                        .map_err(io_error)?;
                    if status == flate2::Status::StreamEnd {
                        break;
                    }
                    out.reserve(text.len() / 4 + 64);
                }
                let mut crc = flate2::Crc::new();
                crc.update(text);
                out.extend_from_slice(&crc.sum().to_le_bytes());
                // ISIZE is the length modulo 2^32 (frames are far shorter).
                out.extend_from_slice(&(text.len() as u32).to_le_bytes());
                Ok(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn gunzip(b: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        if b.is_empty() {
            // No text, no member (the decoder wants at least one).
            return out;
        }
        flate2::read::MultiGzDecoder::new(b)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    fn unzstd(b: &[u8]) -> Vec<u8> {
        // The stream decoder reads frame after frame (and wants one).
        if b.is_empty() {
            return Vec::new();
        }
        zstd::stream::decode_all(b).unwrap()
    }

    /// Text of `n` bytes of varied log-like lines.
    fn text(n: usize, seed: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(n + 64);
        let mut x = seed | 1;
        while out.len() < n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.extend_from_slice(
                format!("{{\"type\":\"draw\",\"seat\":{}}}\n", x % 97).as_bytes(),
            );
        }
        out.truncate(n);
        out
    }

    #[test]
    fn every_compression_round_trips_at_every_size_around_a_frame() {
        for n in [
            0,
            1,
            100,
            FRAME_BYTES - 1,
            FRAME_BYTES,
            FRAME_BYTES + 1,
            3 * FRAME_BYTES + 7,
        ] {
            let t = text(n, n as u64);
            assert_eq!(LogCompression::None.compress(t.clone(), 1).unwrap(), t);
            let gz = LogCompression::Gzip.compress(t.clone(), 2).unwrap();
            assert_eq!(gunzip(&gz), t, "gzip, {n} bytes");
            let zs = LogCompression::Zstd.compress(t.clone(), 2).unwrap();
            assert_eq!(unzstd(&zs), t, "zstd, {n} bytes");
        }
    }

    #[test]
    fn the_bytes_do_not_depend_on_the_thread_count() {
        let t = text(5 * FRAME_BYTES + 123, 9);
        for c in [LogCompression::Gzip, LogCompression::Zstd] {
            let one = c.compress(t.clone(), 1).unwrap();
            for threads in [2, 3, 0] {
                assert_eq!(
                    c.compress(t.clone(), threads).unwrap(),
                    one,
                    "{c:?} {threads}"
                );
            }
        }
    }

    #[test]
    fn frames_are_independent_members() {
        // Each frame alone decompresses to its slice of the text.
        let t = text(2 * FRAME_BYTES + 10, 4);
        let one = LogCompression::Zstd
            .compress(t[..FRAME_BYTES].to_vec(), 1)
            .unwrap();
        let all = LogCompression::Zstd.compress(t.clone(), 1).unwrap();
        assert!(all.starts_with(&one));
        let gz = LogCompression::Gzip
            .compress(t[..FRAME_BYTES].to_vec(), 1)
            .unwrap();
        assert!(LogCompression::Gzip
            .compress(t, 1)
            .unwrap()
            .starts_with(&gz));
    }

    #[test]
    fn names_round_trip_and_bad_ones_are_refused() {
        for c in LogCompression::ALL {
            assert_eq!(LogCompression::from_name(c.name()).unwrap(), c);
        }
        let e = LogCompression::from_name("gz").unwrap_err();
        assert!(e.to_string().contains("none, gzip, zstd"), "{e}");
        assert!(LogCompression::Zstd.compress(vec![1], MAX).is_err());
    }

    const MAX: usize = crate::parallel::MAX_THREADS + 1;
}
