//! The registry: every [`Importer`], in the order a file's format is detected, and what picks
//! one for a file.

use std::path::Path;

use crate::format::ProfileFormat;
use crate::importer::Importer;

/// Every format with its importer, in the order a file's format is detected: binary magic
/// first, then JSON by its keys, folded stacks (plain text) last.
static IMPORTERS: [(ProfileFormat, &dyn Importer); 6] = [
    (ProfileFormat::Jfr, &crate::loader_jfr::Jfr),
    (ProfileFormat::Pprof, &crate::loader_pprof::Pprof),
    (ProfileFormat::CpuProfile, &crate::loader_v8::CpuProfile),
    (
        ProfileFormat::ChromeTrace,
        &crate::loader_chrome::ChromeTrace,
    ),
    (
        ProfileFormat::Speedscope,
        &crate::loader_speedscope::Speedscope,
    ),
    (ProfileFormat::Folded, &crate::loader_folded::Folded),
];

impl ProfileFormat {
    /// What the file is, from its first bytes, or `None` if it is none of these.
    pub fn detect(start: &[u8]) -> Option<ProfileFormat> {
        IMPORTERS
            .iter()
            .find(|(_, importer)| importer.detects(start))
            .map(|&(format, _)| format)
    }

    /// What the file at `path` is, from its first bytes: `None` for a recording (or a file
    /// none of these formats) — what [`crate::open`] would convert.
    pub fn of_file(path: &Path) -> std::io::Result<Option<ProfileFormat>> {
        let mut start = Vec::with_capacity(4096);
        std::io::Read::read_to_end(
            &mut std::io::Read::take(std::fs::File::open(path)?, 4096),
            &mut start,
        )?;
        let magic = highrise_record::MAGIC;
        if start.starts_with(&magic[..start.len().min(magic.len())]) {
            return Ok(None);
        }
        Ok(ProfileFormat::detect(&start))
    }

    /// The importer that reads this format.
    pub(crate) fn importer(self) -> &'static dyn Importer {
        IMPORTERS
            .iter()
            .find(|&&(format, _)| format == self)
            .map(|&(_, importer)| importer)
            .expect("every format has its importer in IMPORTERS")
    }
}
