//! The configuration a server runs, read from its files: the layout, the rulebooks and
//! the keys. The types and their validation are the pure core's (`pozo_core::config`,
//! re-exported here); this room adds only the reading of files, each bounded in size.

pub(crate) mod rulebooks;

use std::path::{Path, PathBuf};

pub use pozo_core::config::*;
use pozo_engine::rulebook::EMBEDDED;

use rulebooks::read_bounded;

/// Reads a layout, rulebooks and keys; the embedded ones where none is given.
pub fn load(layout: Option<&Path>, rulebooks: &[PathBuf], keys: Option<&Path>) -> anyhow::Result<Config> {
    let config = load_settings(layout, rulebooks)?;
    let config = match keys {
        Some(path) => config.with_keys(&path.display().to_string(), &read_bounded(path, CONFIG_FILE_BYTES_MAX)?)?,
        None => config.with_keys(KEYS_EMBEDDED.0, KEYS_EMBEDDED.1)?,
    };
    Ok(config)
}

/// Reads a layout file and rulebook files (no keys); the embedded ones where none is given.
fn load_settings(layout: Option<&Path>, rulebooks: &[PathBuf]) -> anyhow::Result<Config> {
    let mut texts = Vec::new();
    match layout {
        Some(path) => texts.push((path.display().to_string(), read_bounded(path, CONFIG_FILE_BYTES_MAX)?)),
        None => texts.push((LAYOUT_EMBEDDED.0.to_owned(), LAYOUT_EMBEDDED.1.to_owned())),
    }
    if rulebooks.is_empty() {
        texts.extend(EMBEDDED.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())));
    } else {
        for path in rulebooks {
            texts.push((path.display().to_string(), read_bounded(path, CONFIG_FILE_BYTES_MAX)?));
        }
    }
    Ok(Config::from_texts(texts)?)
}

/// The journal key of a keys file (or of the embedded example keys), without the
/// layout the other keys are checked against: what `verify` needs.
pub(crate) fn journal_key(keys: Option<&Path>) -> anyhow::Result<JournalKey> {
    match keys {
        Some(path) => Config::journal_key(&path.display().to_string(), &read_bounded(path, CONFIG_FILE_BYTES_MAX)?),
        None => Config::journal_key(KEYS_EMBEDDED.0, KEYS_EMBEDDED.1),
    }
}

#[cfg(test)]
mod tests {
    /// The core checks a page password's algorithm without argon2 (which would bring an RNG
    /// into it); the name it checks is the one the pages hash and verify with.
    #[test]
    fn the_core_checks_the_algorithm_the_pages_use() {
        assert_eq!(super::ARGON2ID, argon2::ARGON2ID_IDENT);
        assert_eq!(super::ARGON2ID, argon2::Algorithm::default().ident());
    }
}
