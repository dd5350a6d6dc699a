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

/// The key of `table` in the keys file text, and a warning when the file holds other keys.
fn parse(file: &str, text: &str, table: &str) -> anyhow::Result<(Key, Option<String>)> {
    let parsed: KeysFile =
        toml::from_str(text).map_err(|error| anyhow::anyhow!("{file}: not a keys file: {}", error.message()))?;
    let ours = |entry: &Entry| entry.table.as_deref() == Some(table) && entry.role.as_deref().is_none_or(|role| role == "table");
    let others: Vec<&Entry> = parsed.keys.iter().filter(|entry| !ours(entry)).collect();
    let warning = (!others.is_empty()).then(|| {
        let journal = others.iter().find(|entry| entry.role.as_deref() == Some("journal"));
        let people = others
            .iter()
            .filter(|entry| matches!(entry.role.as_deref(), Some("office" | "supervisor" | "inspector" | "floor-inspector")));
        let mut warning =
            format!("{file} holds {} keys besides table {table}'s: whoever reads this file can sign as them", others.len());
        if let Some(journal) = journal {
            warning.push_str(&format!(", the journal key `{}` among them (it seals the journal)", journal.id));
        }
        let people = people.count();
        if people > 0 {
            warning.push_str(&format!(", and {people} people's keys (Venta-Pagos, supervisors, inspectors)"));
        }
        warning.push_str("; a table's computer should hold only its own table's key (docs/agent.md §1)");
        warning
    });
    let entry = parsed.keys.into_iter().find(ours).ok_or_else(|| anyhow::anyhow!("{file}: no table key for table `{table}`"))?;
    let secret =
        hex::decode(entry.secret.trim()).map_err(|_| anyhow::anyhow!("{file}: key `{}`: secret is not hex", entry.id))?;
    if secret.len() < 16 {
        anyhow::bail!("{file}: key `{}`: {} bytes; a key has at least 16", entry.id, secret.len());
    }
    Ok((Key { id: entry.id, secret }, warning))
}

/// Reads the key of `table` from a keys file.
pub fn load(path: &Path, table: &str) -> anyhow::Result<Key> {
    load_warning(path, table).map(|(key, _)| key)
}

/// Reads the key of `table` from a keys file, with a warning when the file holds other keys
/// (another table's, a person's, the journal key): a table's computer should hold only its own.
pub fn load_warning(path: &Path, table: &str) -> anyhow::Result<(Key, Option<String>)> {
    let text = std::fs::read_to_string(path).map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
    parse(&path.display().to_string(), &text, table)
}

#[cfg(test)]
mod tests {
    use super::*;

    const B1: &str =
        "[[key]]\nid = \"mesa-B1\"\nrole = \"table\"\ntable = \"B1\"\nsecret = \"00112233445566778899aabbccddeeff\"\n";

    #[test]
    fn a_file_with_only_the_tables_key_gives_no_warning_and_one_with_the_journal_key_does() {
        let (key, warning) = parse("b1.toml", B1, "B1").expect("B1's key");
        assert_eq!((key.id.as_str(), warning), ("mesa-B1", None));
        let journal = "[[key]]\nid = \"journal\"\nrole = \"journal\"\nsecret = \"ffeeddccbbaa99887766554433221100\"\n";
        let (_, warning) = parse("keys.toml", &format!("{B1}{journal}"), "B1").expect("B1's key");
        let warning = warning.expect("a warning");
        assert!(warning.contains("1 keys besides table B1's") && warning.contains("the journal key `journal`"), "{warning}");
    }
}
