//! The validated configuration: the layout, the rulebooks and the keys read together, the
//! texts kept for the journal's first entry, and the look-ups every command makes.

use super::error::ConfigError;
use super::keys::{
    JOURNAL_KEY_RECORD, JournalKey, KEY_BYTES_MIN, KEYS_EMBEDDED, Key, KeyRecord, KeysFile, Role, fingerprint, validate_keys,
};
use super::layout::{IMPLICIT_SALON, LAYOUT_EMBEDDED, Layout, Salon, TableConfig};
use super::validate::{resolve_salons, validate};
use jiff::tz::TimeZone;
use pozo_engine::Rulebooks;
use pozo_engine::TableId;
use pozo_engine::rulebook::EMBEDDED;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The validated configuration.
#[derive(Clone, Debug)]
pub struct Config {
    pub layout: Layout,
    pub rulebooks: Rulebooks,
    /// The layout's `time_zone`, resolved once at load from the tz database
    /// bundled into the binary.
    pub time_zone: TimeZone,
    /// The keys that sign commands; empty for a configuration read back from a
    /// journal (keys are never journaled).
    pub keys: BTreeMap<String, Key>,
    /// The key that seals the journal's tip and the acknowledgement mark (role
    /// `journal` in the keys file): whoever can write the data directory but lacks it
    /// cannot rewrite history unnoticed. `None` for a configuration read back from a journal.
    pub journal_key: Option<JournalKey>,
    /// The texts it was read from, `(name, text)`: layout first, then rulebooks.
    pub texts: Vec<(String, String)>,
    /// SHA-256 over the texts, hex: what the journal's first entry records.
    pub hash: String,
    /// Table id → its place in `layout.tables`: every command looks its table up (a scan
    /// of 1,000 tables was 2 % of the controller's CPU under load: docs/benchmarks.md).
    table_index: HashMap<TableId, usize>,
    /// The salons, in the layout's order (one, [`IMPLICIT_SALON`], when it declares none).
    salons: Vec<Salon>,
}

impl Config {
    /// The embedded layout, rulebooks and example keys.
    pub fn embedded() -> Config {
        let texts: Vec<(String, String)> =
            std::iter::once(LAYOUT_EMBEDDED).chain(EMBEDDED).map(|(name, text)| (name.to_owned(), text.to_owned())).collect();
        Config::from_texts(texts)
            .and_then(|config| config.with_keys(KEYS_EMBEDDED.0, KEYS_EMBEDDED.1))
            .expect("the embedded configuration is validated by the test suite")
    }

    /// Validates a configuration given as texts: the first is the layout.
    pub fn from_texts(texts: Vec<(String, String)>) -> Result<Config, ConfigError> {
        // Files in force are named by their own name (docs/operations.md §8): two of one name
        // could not be told apart by a change, nor across close → open.
        for (index, (name, _)) in texts.iter().enumerate() {
            let stable = stable_name(name);
            if let Some((other, _)) = texts[..index].iter().find(|(other, _)| stable_name(other) == stable) {
                return Err(ConfigError::Field {
                    file: name.clone(),
                    field: "file name".to_owned(),
                    problem: format!(
                        "`{other}` has the same name, `{stable}`: files in force are named by their own name (docs/operations.md §8); rename one"
                    ),
                });
            }
        }
        let (layout_name, layout_text) = texts.first().cloned().unwrap_or_default();
        let rulebooks = Rulebooks::parse_all(texts.iter().skip(1).map(|(name, text)| (name.as_str(), text.as_str())))?;
        let layout: Layout =
            toml::from_str(&layout_text).map_err(|error| ConfigError::syntax(&layout_name, &layout_text, &error))?;
        let time_zone = validate(&layout_name, &layout, &rulebooks)?;
        // The hash is of the contents only, rulebooks in a fixed order: the same
        // settings read from another path or named in another order are the same.
        let mut rulebook_texts: Vec<&str> = texts.iter().skip(1).map(|(_, text)| text.as_str()).collect();
        rulebook_texts.sort_unstable();
        let mut hasher = Sha256::new();
        for text in std::iter::once(layout_text.as_str()).chain(rulebook_texts) {
            hasher.update((text.len() as u64).to_be_bytes());
            hasher.update(text.as_bytes());
        }
        let hash = hex::encode(hasher.finalize());
        let table_index = layout.tables.iter().enumerate().map(|(index, table)| (table.id.clone(), index)).collect();
        let salons = resolve_salons(&layout, &rulebooks);
        Ok(Config { layout, rulebooks, time_zone, keys: BTreeMap::new(), journal_key: None, texts, hash, table_index, salons })
    }

    /// Adds the keys of a keys file, checked against the layout: every table has one.
    pub fn with_keys(mut self, file: &str, text: &str) -> Result<Config, ConfigError> {
        let parsed: KeysFile = toml::from_str(text).map_err(|error| ConfigError::syntax(file, text, &error))?;
        let (keys, journal_key) = validate_keys(file, &self.layout, &parsed.keys)?;
        self.keys = keys;
        self.journal_key = Some(journal_key);
        Ok(self)
    }

    /// The journal key of a keys file's text, without the layout the other keys are
    /// checked against: what `verify` needs.
    pub fn journal_key(file: &str, text: &str) -> anyhow::Result<JournalKey> {
        let parsed: KeysFile = toml::from_str(text).map_err(|error| ConfigError::syntax(file, text, &error))?;
        let mut found = parsed.keys.iter().filter(|key| key.role == Role::Journal);
        match (found.next(), found.next()) {
            (Some(key), None) => {
                hex::decode(key.secret.trim()).ok().filter(|secret| secret.len() >= KEY_BYTES_MIN).map(JournalKey).ok_or_else(
                    || anyhow::anyhow!("{file}: the journal key's secret is not hex of {KEY_BYTES_MIN} bytes or more"),
                )
            }
            (None, _) => anyhow::bail!("{file}: no journal key (role = \"journal\")"),
            (Some(_), Some(_)) => anyhow::bail!("{file}: more than one journal key"),
        }
    }

    /// The id of a key whose secret is one of the published example keys (`config/keys.toml`),
    /// if any: such a key protects nothing.
    pub fn example_key_in_use(&self) -> Option<String> {
        let parsed: KeysFile = toml::from_str(KEYS_EMBEDDED.1).ok()?;
        let examples: BTreeSet<Vec<u8>> = parsed.keys.iter().filter_map(|key| hex::decode(key.secret.trim()).ok()).collect();
        if let Some(journal) = &self.journal_key
            && examples.contains(&journal.0)
        {
            return Some(JOURNAL_KEY_RECORD.to_owned());
        }
        self.keys.values().find(|key| examples.contains(&key.secret)).map(|key| key.id.clone())
    }

    /// The key set as the journal records it: ids, roles, tables, holders and a
    /// fingerprint of each secret, never a secret; sorted by id. The journal key is in it.
    pub fn key_records(&self) -> Vec<KeyRecord> {
        let mut records: Vec<KeyRecord> = self
            .keys
            .values()
            .map(|key| KeyRecord {
                id: key.id.clone(),
                role: key.role,
                table: key.table.clone(),
                name: key.name.clone(),
                fingerprint: fingerprint(&key.secret),
            })
            .collect();
        if let Some(journal) = &self.journal_key {
            records.push(KeyRecord {
                id: JOURNAL_KEY_RECORD.to_owned(),
                role: Role::Journal,
                table: None,
                name: String::new(),
                fingerprint: fingerprint(&journal.0),
            });
        }
        records.sort();
        records
    }

    /// The salons, in the layout's order: the declared ones, or the one implicit salon
    /// ([`IMPLICIT_SALON`], named after the casino) when the layout declares none.
    pub fn salons(&self) -> &[Salon] {
        &self.salons
    }

    /// The salon `id`, if the layout has it.
    pub fn salon(&self, id: &str) -> Option<&Salon> {
        self.salons.iter().find(|salon| salon.id == id)
    }

    /// The id of the salon a table of the layout is in.
    pub fn salon_of<'a>(&self, table: &'a TableConfig) -> &'a str {
        table.salon.as_deref().unwrap_or(IMPLICIT_SALON)
    }

    /// The salons' ids, for a refusal: `central, norte`.
    pub fn salon_ids(&self) -> String {
        self.salons.iter().map(|salon| salon.id.as_str()).collect::<Vec<_>>().join(", ")
    }

    /// The chance of a premio instantáneo card at each INICIAR JUEGO of a table (15.11.2):
    /// its pool's rulebook's, when the table's game plays the instant prize.
    pub fn instant_card_chance(&self, table_id: &str) -> Option<rust_decimal::Decimal> {
        self.table(table_id)
            .filter(|table| table.game.plays_instant_prize())
            .and_then(|table| self.rulebooks.pool(&table.pool))
            .and_then(|rules| rules.instant_card_chance)
    }

    pub fn table(&self, id: &str) -> Option<&TableConfig> {
        // The layout is public (the simulator plays the first N tables of one): an index that
        // no longer names the table is not trusted.
        match self.table_index.get(id).and_then(|&index| self.layout.tables.get(index)) {
            Some(table) if table.id == id => Some(table),
            _ => self.layout.tables.iter().find(|table| table.id == id),
        }
    }
}

/// A file's stable name: its own name without the directories it was read from. The files
/// in force keep it across a restart, a close and the opening of a new journal from the
/// statement (`close` writes them under it): `config/iplyc.toml` is `iplyc.toml`.
pub fn stable_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().filter(|base| !base.is_empty()).unwrap_or(name)
}

#[cfg(test)]
mod stable_name_tests {
    use super::*;

    /// Two files in force of one own name could not be told apart by `--file NAME=PATH` nor
    /// across close → open: refused at load, naming both.
    #[test]
    fn two_files_of_one_name_are_refused() {
        let mut texts = Config::embedded().texts.clone();
        let (name, text) = texts[1].clone();
        texts.push((format!("otra/{}", stable_name(&name)), text));
        let error = Config::from_texts(texts).expect_err("refused").to_string();
        assert!(error.contains(&name) && error.contains("same name"), "{error}");
    }
}
