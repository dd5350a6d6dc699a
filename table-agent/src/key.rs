//! The table's key: read from a keys file in the server's format (`[[key]]` with
//! `id`, `role`, `table`, `secret`), choosing the table key of this table. A
//! table's computer should hold only its own entry.

use std::path::Path;

use serde::Deserialize;

#[derive(Clone)]
pub struct Key {
    pub id: String,
    pub secret: Vec<u8>,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print a secret.
        f.debug_struct("Key").field("id", &self.id).finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct KeysFile {
    #[serde(rename = "key")]
    keys: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    id: String,
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    table: Option<String>,
    secret: String,
}

/// The key of `table` in the keys file text.
fn parse(file: &str, text: &str, table: &str) -> anyhow::Result<Key> {
    let parsed: KeysFile =
        toml::from_str(text).map_err(|error| anyhow::anyhow!("{file}: not a keys file: {}", error.message()))?;
    let entry = parsed
        .keys
        .into_iter()
        .find(|entry| entry.table.as_deref() == Some(table) && entry.role.as_deref().is_none_or(|role| role == "table"))
        .ok_or_else(|| anyhow::anyhow!("{file}: no table key for table `{table}`"))?;
    let secret =
        hex::decode(entry.secret.trim()).map_err(|_| anyhow::anyhow!("{file}: key `{}`: secret is not hex", entry.id))?;
    if secret.len() < 16 {
        anyhow::bail!("{file}: key `{}`: {} bytes; a key has at least 16", entry.id, secret.len());
    }
    Ok(Key { id: entry.id, secret })
}

/// Reads the key of `table` from a keys file.
pub fn load(path: &Path, table: &str) -> anyhow::Result<Key> {
    let text = std::fs::read_to_string(path).map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
    parse(&path.display().to_string(), &text, table)
}
