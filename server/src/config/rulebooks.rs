//! Which rulebooks the server runs: the ones compiled in, or files named on the
//! command line, read here (the engine does no I/O) and validated whole.

use std::path::PathBuf;

use pozo_engine::Rulebooks;

/// The largest rulebook file read; the real ones are a few kilobytes.
const RULEBOOK_FILE_BYTES_MAX: u64 = 1024 * 1024;

/// Loads the named rulebook files, or the embedded default when none is named.
pub fn load(files: &[PathBuf]) -> anyhow::Result<Rulebooks> {
    if files.is_empty() {
        return Ok(Rulebooks::embedded());
    }
    let mut texts = Vec::with_capacity(files.len());
    for path in files {
        let text = read_bounded(path, RULEBOOK_FILE_BYTES_MAX)?;
        texts.push((path.display().to_string(), text));
    }
    let rulebooks = Rulebooks::parse_all(texts.iter().map(|(name, text)| (name.as_str(), text.as_str())))?;
    Ok(rulebooks)
}

/// Reads a whole text file, refusing one over `limit` bytes.
pub fn read_bounded(path: &std::path::Path, limit: u64) -> anyhow::Result<String> {
    use anyhow::Context as _;
    let size = std::fs::metadata(path).with_context(|| format!("{}: cannot read", path.display()))?.len();
    if size > limit {
        anyhow::bail!("{}: {size} bytes, over the {limit}-byte limit", path.display());
    }
    std::fs::read_to_string(path).with_context(|| format!("{}: cannot read as UTF-8 text", path.display()))
}
