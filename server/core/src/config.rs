//! The configuration a server runs: the casino layout (flores, tables, the pool
//! each table feeds) and the rulebooks, validated together at start-up; and the
//! keys, read from their own file and checked against the layout.
//!
//! The texts themselves are kept: the journal's first entry records them, so the
//! journal always says which rules its pools were kept under, `verify` needs no
//! other file, and a server restarted with different settings refuses to start
//! ("settings do not change while a pool is live", docs/operations.md §8). The keys are
//! neither hashed nor journaled: a key is rotated by a restart.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use jiff::tz::{TimeZone, TimeZoneDatabase};
use pozo_engine::Game;
use pozo_engine::Rulebooks;
use pozo_engine::rulebook::EMBEDDED;
use pozo_engine::settle::SEAT_MAX;
use pozo_engine::{PoolId, TableId};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The default casino layout, compiled in.
pub const LAYOUT_EMBEDDED: (&str, &str) = ("config/casino.toml", include_str!("../../../config/casino.toml"));

/// The example keys, compiled in: they protect nothing (see the file).
pub const KEYS_EMBEDDED: (&str, &str) = ("config/keys.toml", include_str!("../../../config/keys.toml"));

/// The most tables one server keeps; every per-table structure is bounded by it.
pub const TABLES_MAX: usize = 4096;

/// A flor is a module of four tables (glossary of Res. 1452/12).
pub(crate) const FLOR_TABLES_MAX: usize = 4;

/// The most salons one layout declares (`[[salon]]`); every per-salon structure is bounded by it.
pub(crate) const SALONS_MAX: usize = 32;

/// The id of the one salon every table belongs to when the layout declares none; it is
/// named after the layout's `casino`.
pub(crate) const IMPLICIT_SALON: &str = "principal";

/// The longest salon name, in characters (it is shown on the signs).
pub(crate) const SALON_NAME_MAX: usize = 64;

/// The largest layout or rulebook file read.
pub const CONFIG_FILE_BYTES_MAX: u64 = 4 * 1024 * 1024;

/// The shortest key accepted, in bytes: HMAC-SHA256 keys of 128 bits at least.
pub(crate) const KEY_BYTES_MIN: usize = 16;

/// The algorithm of a page password's hash: Argon2id, the one `pozo-server password` makes
/// and the pages verify (argon2's `ARGON2ID_IDENT`; the server's tests check they agree).
pub const ARGON2ID: phc::Ident = phc::Ident::new_unwrap("argon2id");

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    pub casino: String,
    /// The casino's time zone, an IANA name ("America/Argentina/Buenos_Aires",
    /// "Europe/Madrid"): jornadas, hourly statistics and report dates are civil
    /// time there, daylight saving included (see [`crate::jornada`]).
    pub time_zone: String,
    /// The casino day starts at this local civil hour (0–23).
    pub jornada_starts_hour: u32,
    /// The salons (rooms of the casino, each with its own flores and tables), when there are
    /// several: a pool whose tables are in more than one is a wide-area pool. None declared:
    /// every table is in one salon, [`IMPLICIT_SALON`] (docs/operations.md §17).
    #[serde(rename = "salon", default, skip_serializing_if = "Vec::is_empty")]
    pub salons: Vec<SalonConfig>,
    #[serde(rename = "table")]
    pub tables: Vec<TableConfig>,
}

/// A `[[salon]]` of the layout.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SalonConfig {
    /// What tables, the display feed and the signs' URLs name it by: 1–32 letters, digits or '-'.
    pub id: String,
    /// What the signs and reports show: "Salón Central".
    pub name: String,
}

/// The keys file: not part of the journaled settings, so a key can be rotated.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeysFile {
    #[serde(rename = "key")]
    pub keys: Vec<KeyConfig>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TableConfig {
    pub id: TableId,
    pub flor: String,
    pub pool: PoolId,
    pub game: Game,
    pub seats: u32,
    /// The salon the table is in: required when the layout declares salons, refused when it
    /// declares none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub salon: Option<String>,
}

/// A salon as the configuration resolved it: the declared ones, or the one implicit salon.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Salon {
    pub id: String,
    pub name: String,
    /// Its tables, in the layout's order.
    pub tables: Vec<TableId>,
    /// The pools its tables feed, in the rulebooks' order: what its signs show. A wide-area
    /// pool is in the list of every salon that feeds it.
    pub pools: Vec<PoolId>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// A table agent: may submit commands and watch its own table only.
    Table,
    /// A cartel luminoso: the display feed and the pools' amounts.
    Display,
    /// A Venta-Pagos operator (one key each, 3.5.2): lists, confirms and rejects payout
    /// orders; reads the pools. `venta-pagos` is the older name of this role.
    #[serde(alias = "venta-pagos")]
    Office,
    /// The jefe de sala: reports, journal pages, pools and the display feed.
    Supervisor,
    /// Not a client's: the key that seals the journal (exactly one in a keys file).
    Journal,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Table => "table",
            Role::Display => "display",
            Role::Office => "office",
            Role::Supervisor => "supervisor",
            Role::Journal => "journal",
        }
    }
}

#[derive(Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct KeyConfig {
    pub id: String,
    pub role: Role,
    /// The table a table key belongs to.
    #[serde(default)]
    pub table: Option<String>,
    /// The person who holds an office or supervisor key, as receipts print it.
    #[serde(default)]
    pub name: Option<String>,
    /// The HMAC-SHA256 key, hex.
    pub secret: String,
    /// The holder's password for the pages (office and supervisor keys): an Argon2id
    /// hash in PHC form, as `pozo-server password` prints it; never the password.
    #[serde(default)]
    pub password: Option<String>,
}

/// How the journal key appears among the journaled key records.
pub const JOURNAL_KEY_RECORD: &str = "(journal)";

/// A secret's fingerprint: HMAC-SHA256 of a fixed text under it, the first 8 bytes in hex.
/// It tells keys apart and shows a rotation without revealing anything of the secret.
pub fn fingerprint(secret: &[u8]) -> String {
    use hmac::{KeyInit as _, Mac as _};
    let mut mac = hmac::Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(b"pozo.v1.key-fingerprint");
    hex::encode(&mac.finalize().into_bytes()[..8])
}

/// The journal's sealing key: never printed.
#[derive(Clone)]
pub struct JournalKey(pub Vec<u8>);

impl std::fmt::Debug for JournalKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JournalKey(..)")
    }
}

/// A key ready to check MACs with.
#[derive(Clone)]
pub struct Key {
    pub id: String,
    pub role: Role,
    pub table: Option<String>,
    /// The holder's name (office and supervisor keys); the id otherwise.
    pub name: String,
    pub secret: Vec<u8>,
    /// The Argon2id hash of the holder's password for the pages (PHC form), checked at load.
    pub password: Option<String>,
}

// Never print a secret: a `Debug` of the configuration (a log line, a panic) shows
// every key's id, role and table, and no secret.
impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Key").field("id", &self.id).field("role", &self.role).field("table", &self.table).finish_non_exhaustive()
    }
}

impl std::fmt::Debug for KeyConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyConfig")
            .field("id", &self.id)
            .field("role", &self.role)
            .field("table", &self.table)
            .finish_non_exhaustive()
    }
}

/// A key as the journal records it: its id, role, table and holder, and a
/// fingerprint of its secret (HMAC-SHA256 of a fixed text under it, 8 bytes hex),
/// never the secret itself.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct KeyRecord {
    pub id: String,
    pub role: Role,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    pub name: String,
    pub fingerprint: String,
}

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

/// The configuration refused, naming the file and the field.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{file}: not a valid configuration file: {message}")]
    Syntax { file: String, message: String },
    #[error("{file}: {field}: {problem}")]
    Field { file: String, field: String, problem: String },
    #[error(transparent)]
    Rulebook(#[from] pozo_engine::RulebookError),
}

impl ConfigError {
    /// A file TOML or its schema refused, with the line it refused (`line 12: unknown game …`).
    fn syntax(file: &str, text: &str, error: &toml::de::Error) -> ConfigError {
        let line = error.span().map(|span| pozo_engine::suggest::line_at(text, span.start));
        let mut message = error.message().to_owned();
        // serde's "unknown field `tabels`, expected one of `casino`, `tables`, …": name the likeliest.
        if let Some((unknown, expected)) = pozo_engine::suggest::unknown_field(error.message())
            && let Some(known) = pozo_engine::nearest(unknown, expected.iter().copied())
        {
            message = format!("unknown field `{unknown}` (did you mean `{known}`?); known fields: {}", expected.join(", "));
        }
        let message = match line {
            Some(line) => format!("line {line}: {message}"),
            None => message,
        };
        ConfigError::Syntax { file: file.to_owned(), message }
    }
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

/// The salons of a validated layout: each with its tables and the pools they feed.
fn resolve_salons(layout: &Layout, rulebooks: &Rulebooks) -> Vec<Salon> {
    let declared: Vec<(String, String)> = if layout.salons.is_empty() {
        vec![(IMPLICIT_SALON.to_owned(), layout.casino.clone())]
    } else {
        layout.salons.iter().map(|salon| (salon.id.clone(), salon.name.trim().to_owned())).collect()
    };
    declared
        .into_iter()
        .map(|(id, name)| {
            let tables: Vec<&TableConfig> =
                layout.tables.iter().filter(|table| table.salon.as_deref().unwrap_or(IMPLICIT_SALON) == id).collect();
            let pools = rulebooks
                .pools()
                .filter(|rules| tables.iter().any(|table| table.pool == rules.id))
                .map(|rules| rules.id.clone())
                .collect();
            Salon { id, name, tables: tables.iter().map(|table| table.id.clone()).collect(), pools }
        })
        .collect()
}

/// The `[[salon]]` entries: how many, their ids and names. Returns the declared ids.
fn validate_salons(layout: &Layout, error: impl Fn(String, String) -> ConfigError) -> Result<BTreeSet<&str>, ConfigError> {
    if layout.salons.len() > SALONS_MAX {
        return Err(error("salon".into(), format!("{} salons; a layout has at most {SALONS_MAX}", layout.salons.len())));
    }
    let mut ids = BTreeSet::new();
    for (index, salon) in layout.salons.iter().enumerate() {
        let field = |name: &str| format!("salon[{index}].{name}");
        if salon.id.is_empty() || salon.id.len() > 32 || !salon.id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(error(field("id"), format!("`{}` must be 1–32 letters, digits or '-'", salon.id)));
        }
        if !ids.insert(salon.id.as_str()) {
            return Err(error(field("id"), format!("salon `{}` is defined twice", salon.id)));
        }
        let name = salon.name.trim();
        if name.is_empty() || name.chars().count() > SALON_NAME_MAX || name.chars().any(char::is_control) {
            return Err(error(
                field("name"),
                format!("salon `{}`: a name of 1–{SALON_NAME_MAX} characters, as the signs show it", salon.id),
            ));
        }
    }
    Ok(ids)
}

/// A table's `salon`, checked against the declared salons; the salon it is in.
fn table_salon<'a>(
    table: &'a TableConfig,
    field: &str,
    salons: &BTreeSet<&str>,
    error: impl Fn(String, String) -> ConfigError,
) -> Result<&'a str, ConfigError> {
    let known = || salons.iter().copied().collect::<Vec<_>>().join(", ");
    match table.salon.as_deref() {
        None if salons.is_empty() => Ok(IMPLICIT_SALON),
        None => Err(error(
            field.to_owned(),
            format!(
                "table `{}` names no salon; the layout declares salons ({}), so every table names its own",
                table.id,
                known()
            ),
        )),
        Some(salon) if salons.is_empty() => Err(error(
            field.to_owned(),
            format!(
                "salon `{salon}` at table `{}`, but the layout declares no [[salon]]: declare it, or remove the field",
                table.id
            ),
        )),
        Some(salon) if salons.contains(salon) => Ok(salon),
        Some(salon) => {
            let guess = pozo_engine::nearest(salon, salons.iter().copied())
                .map(|nearest| format!(" (did you mean `{nearest}`?)"))
                .unwrap_or_default();
            Err(error(field.to_owned(), format!("unknown salon `{salon}`{guess}; known: {}", known())))
        }
    }
}

fn validate(file: &str, layout: &Layout, rulebooks: &Rulebooks) -> Result<TimeZone, ConfigError> {
    let error = |field: String, problem: String| ConfigError::Field { file: file.to_owned(), field, problem };
    let time_zone = validate_clock(layout, error)?;
    if layout.tables.is_empty() || layout.tables.len() > TABLES_MAX {
        return Err(error("table".into(), format!("{} tables; a layout has 1 to {TABLES_MAX}", layout.tables.len())));
    }
    let salons = validate_salons(layout, error)?;
    let mut ids = BTreeSet::new();
    let mut flores = Flores::default();
    for (index, table) in layout.tables.iter().enumerate() {
        check_table_id(index, table, &mut ids, error)?;
        check_table_pool(index, table, rulebooks, error)?;
        flores.place(index, table, &salons, error)?;
    }
    if let Some((index, salon)) = layout
        .salons
        .iter()
        .enumerate()
        .find(|(_, salon)| !layout.tables.iter().any(|table| table.salon.as_ref() == Some(&salon.id)))
    {
        return Err(error(format!("salon[{index}].id"), format!("salon `{}` has no table", salon.id)));
    }
    Ok(time_zone)
}

/// The layout's clock: the hour a jornada starts and the casino's time zone.
fn validate_clock(layout: &Layout, error: impl Fn(String, String) -> ConfigError) -> Result<TimeZone, ConfigError> {
    if layout.jornada_starts_hour > 23 {
        return Err(error("jornada_starts_hour".into(), format!("{} is not an hour 0–23", layout.jornada_starts_hour)));
    }
    // The bundled copy, not the machine's /usr/share/zoneinfo: every machine that
    // serves or verifies a journal applies the same rules.
    TimeZoneDatabase::bundled().get(&layout.time_zone).map_err(|_| {
        error(
            "time_zone".into(),
            format!(
                "unknown time zone `{}` (an IANA name, such as `America/Argentina/Buenos_Aires` or `Europe/Madrid`)",
                layout.time_zone
            ),
        )
    })
}

/// A table's id: well formed, and defined once.
fn check_table_id<'a>(
    index: usize,
    table: &'a TableConfig,
    ids: &mut BTreeSet<&'a str>,
    error: impl Fn(String, String) -> ConfigError,
) -> Result<(), ConfigError> {
    let field = |name: &str| format!("table[{index}].{name}");
    if table.id.is_empty() || table.id.len() > 32 || !table.id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err(error(field("id"), format!("`{}` must be 1–32 letters, digits or '-'", table.id)));
    }
    if !ids.insert(table.id.as_str()) {
        return Err(error(field("id"), format!("table `{}` is defined twice", table.id)));
    }
    Ok(())
}

/// A table against its pool's rulebook: a known pool that links its game, and its seats.
fn check_table_pool(
    index: usize,
    table: &TableConfig,
    rulebooks: &Rulebooks,
    error: impl Fn(String, String) -> ConfigError,
) -> Result<(), ConfigError> {
    let field = |name: &str| format!("table[{index}].{name}");
    let Some(rules) = rulebooks.pool(&table.pool) else {
        let known: Vec<&str> = rulebooks.pools().map(|rules| rules.id.as_str()).collect();
        return Err(error(field("pool"), format!("unknown pool `{}` (known: {})", table.pool, known.join(", "))));
    };
    if !rules.games.contains(&table.game) {
        return Err(error(
            field("game"),
            format!(
                "pool `{}` links {} tables, not `{}` ({})",
                rules.id,
                rules.games.iter().map(|game| game.name()).collect::<Vec<_>>().join(", "),
                table.game,
                rules.articles
            ),
        ));
    }
    if table.seats == 0 || table.seats > SEAT_MAX {
        return Err(error(field("seats"), format!("{} seats; a table has 1 to {SEAT_MAX}", table.seats)));
    }
    // 16.3.1: a Central Póker table seats five; the rulebook says how many at most.
    if let Some(most) = &rules.seats_max
        && table.seats > most.seats
    {
        return Err(error(
            field("seats"),
            format!(
                "{} seats at table `{}`; pool `{}` allows at most {} ({}; `seats_max` in {})",
                table.seats, table.id, rules.id, most.seats, most.article, rules.file
            ),
        ));
    }
    Ok(())
}

/// The flores met so far in a layout: how many tables each has, and the salon each lies in
/// with the table that put it there.
#[derive(Default)]
struct Flores<'a> {
    tables: BTreeMap<&'a str, usize>,
    salons: BTreeMap<&'a str, (&'a str, &'a str)>,
}

impl<'a> Flores<'a> {
    /// A table in its flor: at most four tables to a flor, and a flor in one salon.
    fn place(
        &mut self,
        index: usize,
        table: &'a TableConfig,
        salons: &BTreeSet<&str>,
        error: impl Fn(String, String) -> ConfigError + Copy,
    ) -> Result<(), ConfigError> {
        let field = |name: &str| format!("table[{index}].{name}");
        let count = self.tables.entry(table.flor.as_str()).or_default();
        *count += 1;
        if *count > FLOR_TABLES_MAX {
            return Err(error(field("flor"), format!("flor `{}` has more than {FLOR_TABLES_MAX} tables", table.flor)));
        }
        let salon = table_salon(table, &field("salon"), salons, error)?;
        // A flor is a module of four tables: one place on one floor, so in one salon.
        let (flor_salon, first) = *self.salons.entry(table.flor.as_str()).or_insert((salon, table.id.as_str()));
        if flor_salon != salon {
            return Err(error(
                field("salon"),
                format!(
                    "table `{}` of flor `{}` is in salon `{salon}`, but table `{first}` of that flor is in salon `{flor_salon}`: a flor (a module of four tables) lies in one salon",
                    table.id, table.flor
                ),
            ));
        }
        Ok(())
    }
}

fn validate_keys(
    file: &str,
    layout: &Layout,
    configured: &[KeyConfig],
) -> Result<(BTreeMap<String, Key>, JournalKey), ConfigError> {
    let error = |field: String, problem: String| ConfigError::Field { file: file.to_owned(), field, problem };
    let ids: BTreeSet<&str> = layout.tables.iter().map(|table| table.id.as_str()).collect();
    let mut keys = BTreeMap::new();
    let mut journal_key = None;
    for (index, key) in configured.iter().enumerate() {
        let field = |name: &str| format!("key[{index}].{name}");
        let (secret, name) = key_holder(key, &keys, &ids, field, error)?;
        if key.role == Role::Journal {
            if journal_key.replace(JournalKey(secret)).is_some() {
                return Err(error(field("role"), "a second journal key: a keys file has exactly one".into()));
            }
            continue;
        }
        let password = key_password(key, field, error)?;
        keys.insert(key.id.clone(), Key { id: key.id.clone(), role: key.role, table: key.table.clone(), name, secret, password });
    }
    if let Some(table) = layout.tables.iter().find(|table| !keys.values().any(|key| key.table.as_deref() == Some(&table.id))) {
        return Err(error("key".into(), format!("table `{}` has no key", table.id)));
    }
    let journal_key = journal_key.ok_or_else(|| {
        error(
            "key".into(),
            "no journal key (role = \"journal\"): it seals the journal's tip and the acknowledgement mark (docs/security.md)"
                .into(),
        )
    })?;
    Ok((keys, journal_key))
}

/// One key and its holder: an id defined once, a secret long enough, a table only for a
/// table key (and a known one), and a name for a key a person holds (3.5.2). The secret's
/// bytes and the holder's name.
fn key_holder(
    key: &KeyConfig,
    keys: &BTreeMap<String, Key>,
    ids: &BTreeSet<&str>,
    field: impl Fn(&str) -> String,
    error: impl Fn(String, String) -> ConfigError,
) -> Result<(Vec<u8>, String), ConfigError> {
    if key.id.is_empty() || keys.contains_key(&key.id) {
        return Err(error(field("id"), format!("key id `{}` is empty or defined twice", key.id)));
    }
    if key.id.len() > 64 || !key.id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')) {
        return Err(error(field("id"), format!("`{}` must be 1–64 letters, digits, '-', '_' or '.'", key.id)));
    }
    let secret = hex::decode(key.secret.trim()).map_err(|_| error(field("secret"), "must be hex".into()))?;
    if secret.len() < KEY_BYTES_MIN {
        return Err(error(field("secret"), format!("{} bytes; a key has at least {KEY_BYTES_MIN}", secret.len())));
    }
    match (key.role, &key.table) {
        (Role::Table, Some(table)) if ids.contains(table.as_str()) => {}
        (Role::Table, Some(table)) => return Err(error(field("table"), format!("unknown table `{table}`"))),
        (Role::Table, None) => return Err(error(field("table"), "a table key names its table".into())),
        (role, Some(_)) => return Err(error(field("table"), format!("a {} key belongs to no table", role.name()))),
        (_, None) => {}
    }
    let name = match (key.role, key.name.as_deref().map(str::trim)) {
        (Role::Office | Role::Supervisor, None | Some("")) => {
            return Err(error(
                field("name"),
                format!("a {} key names the person who holds it: one key per person (3.5.2)", key.role.name()),
            ));
        }
        (_, Some(name)) if name.chars().count() > 64 => {
            return Err(error(field("name"), "at most 64 characters".into()));
        }
        (_, Some(name)) if !name.is_empty() => name.to_owned(),
        _ => key.id.clone(),
    };
    Ok((secret, name))
}

/// A key's password for the pages: only office and supervisor keys have one, an Argon2id
/// hash in PHC form.
fn key_password(
    key: &KeyConfig,
    field: impl Fn(&str) -> String,
    error: impl Fn(String, String) -> ConfigError,
) -> Result<Option<String>, ConfigError> {
    match (&key.password, key.role) {
        (None, _) => Ok(None),
        (Some(hash), Role::Office | Role::Supervisor) => {
            let parsed = phc::PasswordHash::new(hash.trim()).map_err(|problem| {
                error(field("password"), format!("not a PHC password hash ({problem}): make one with `pozo-server password`"))
            })?;
            if parsed.algorithm != ARGON2ID {
                return Err(error(
                    field("password"),
                    format!("`{}` hash; the pages take Argon2id (`pozo-server password`)", parsed.algorithm),
                ));
            }
            Ok(Some(hash.trim().to_owned()))
        }
        (Some(_), role) => Err(error(
            field("password"),
            format!("a {} key signs in to no page; only office and supervisor keys have passwords", role.name()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_layout_is_valid() {
        let config = Config::embedded();
        assert_eq!(config.layout.tables.len(), 17);
        assert_eq!(config.hash.len(), 64);
        assert!(config.keys.values().any(|key| key.role == Role::Office));
    }

    #[test]
    fn a_layout_without_salons_is_one_salon_named_after_the_casino() {
        let config = Config::embedded();
        let [salon] = config.salons() else { panic!("one implicit salon: {:?}", config.salons()) };
        assert_eq!((salon.id.as_str(), salon.name.as_str()), (IMPLICIT_SALON, "Casino de ejemplo"));
        assert_eq!(salon.tables.len(), config.layout.tables.len());
        let every: Vec<PoolId> = config.rulebooks.pools().map(|rules| rules.id.clone()).collect();
        assert_eq!(salon.pools, every, "every pool of the embedded layout has a table");
        assert!(config.layout.tables.iter().all(|table| config.salon_of(table) == IMPLICIT_SALON));
    }

    #[test]
    fn a_table_on_a_pool_that_does_not_link_its_game_is_refused() {
        let (name, text) = LAYOUT_EMBEDDED;
        let text = text.replacen("game = \"ruleta-americana\"", "game = \"blackjack\"", 1);
        let mut texts = vec![(name.to_owned(), text)];
        texts.extend(EMBEDDED.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())));
        let error = Config::from_texts(texts).expect_err("refused");
        assert!(error.to_string().contains("table[0].game: pool `iplyc-ruleta` links ruleta-americana tables"), "{error}");
    }

    #[test]
    fn an_unknown_game_is_refused_with_its_line_and_the_known_ones() {
        let (name, text) = LAYOUT_EMBEDDED;
        let line = text.lines().position(|line| line.trim() == "game = \"ruleta-americana\"").expect("a roulette table") + 1;
        let text = text.replacen("game = \"ruleta-americana\"", "game = \"baccarat\"", 1);
        let mut texts = vec![(name.to_owned(), text)];
        texts.extend(EMBEDDED.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())));
        let error = Config::from_texts(texts).expect_err("refused").to_string();
        assert!(error.starts_with(&format!("{name}: not a valid configuration file: line {line}: ")), "{error}");
        assert!(error.contains("unknown game `baccarat` (known: ruleta-americana, blackjack, central-poker,"), "{error}");
    }

    #[test]
    fn an_unknown_time_zone_is_refused() {
        let (name, text) = LAYOUT_EMBEDDED;
        let text = text.replacen("time_zone = \"America/Argentina/Buenos_Aires\"", "time_zone = \"America/Atlantis\"", 1);
        let mut texts = vec![(name.to_owned(), text)];
        texts.extend(EMBEDDED.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())));
        let error = Config::from_texts(texts).expect_err("refused");
        assert_eq!(
            error.to_string(),
            "config/casino.toml: time_zone: unknown time zone `America/Atlantis` \
             (an IANA name, such as `America/Argentina/Buenos_Aires` or `Europe/Madrid`)"
        );
    }

    /// A page password must be an Argon2id hash in PHC form: anything else is refused at load,
    /// naming the key's field.
    #[test]
    fn a_page_password_that_is_not_an_argon2id_phc_hash_is_refused() {
        let good = "$argon2id$v=19$m=19456,t=2,p=1$+U6Vp1t+lj/XZNerJfYPcg$NXV+e9nCapnIeHkxaT+DgCFRdJpN/WgdoVd8mtQdoDE";
        let (name, text) = KEYS_EMBEDDED;
        assert!(text.contains(good));
        let refusal = |password: &str| {
            let text = text.replace(good, password);
            let refused = Config::embedded().with_keys(name, &text).expect_err("refused");
            refused.to_string()
        };
        let not_phc = refusal("ana-ejemplo");
        assert!(not_phc.contains("].password") && not_phc.contains("not a PHC password hash ("), "{not_phc}");
        let argon2i = refusal("$argon2i$v=19$m=19456,t=2,p=1$+U6Vp1t+lj/XZNerJfYPcg$NXV+e9nCapnIeHkxaT+DgCFRdJpN/WgdoVd8mtQdoDE");
        assert!(argon2i.contains("`argon2i` hash; the pages take Argon2id"), "{argon2i}");
        assert!(Config::embedded().with_keys(name, text).is_ok());
    }

    #[test]
    fn no_secret_appears_in_the_debug_of_the_configuration() {
        let (name, text) = KEYS_EMBEDDED;
        let config = Config::embedded();
        let printed = format!("{config:?}");
        let parsed: KeysFile = toml::from_str(text).expect("the embedded keys");
        assert!(!parsed.keys.is_empty(), "{name}");
        for key in &parsed.keys {
            assert!(printed.contains(&key.id), "the key ids are shown");
            let bytes = hex::decode(&key.secret).expect("hex");
            assert!(!printed.contains(&key.secret), "the secret of `{}` is printed", key.id);
            assert!(!printed.contains(&format!("{bytes:?}")), "the secret bytes of `{}` are printed", key.id);
            assert!(!format!("{key:?}").contains(&key.secret));
        }
    }
}
