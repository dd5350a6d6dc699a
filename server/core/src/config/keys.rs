//! Who may sign: the keys file, each key's role, table and holder, the journal key, and their
//! checks against the layout (one key per person, 3.5.2).

use super::error::ConfigError;
use super::layout::Layout;
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use std::collections::BTreeMap;

/// The example keys, compiled in: they protect nothing (see the file).
pub const KEYS_EMBEDDED: (&str, &str) = ("config/keys.toml", include_str!("../../../../config/keys.toml"));

/// The shortest key accepted, in bytes: HMAC-SHA256 keys of 128 bits at least.
pub(crate) const KEY_BYTES_MIN: usize = 16;

/// The algorithm of a page password's hash: Argon2id, the one `pozo-server password` makes
/// and the pages verify (argon2's `ARGON2ID_IDENT`; the server's tests check they agree).
pub const ARGON2ID: phc::Ident = phc::Ident::new_unwrap("argon2id");

/// The keys file: not part of the journaled settings, so a key can be rotated.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeysFile {
    #[serde(rename = "key")]
    pub keys: Vec<KeyConfig>,
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
    /// The jefe de sala: reports, journal pages, pools and the display feed; proposes and
    /// approves changes and money movements (docs/operations.md §8), never their own.
    Supervisor,
    /// The regulator's inspector (the Instituto's, 3.5.2's "funcionario"): reads what a
    /// supervisor reads and approves or refuses a supervisor's proposal; proposes nothing.
    Inspector,
    /// The casino's inspector on the floor, between the tables of a flor (4.6, 4.7, 4.3.1): acts
    /// at a table's monitor with a PIN (`pin`), and the table command names them; signs nothing.
    FloorInspector,
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
            Role::Inspector => "inspector",
            Role::FloorInspector => "floor-inspector",
            Role::Journal => "journal",
        }
    }

    /// The role's name after its English indefinite article: "an inspector", "an office",
    /// "a supervisor": what a refusal says of a key ("an office key may not …").
    pub fn with_article(self) -> String {
        let name = self.name();
        let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
        format!("{article} {name}")
    }

    /// Who holds such a key, in the operators' words ("una clave de jefe de sala").
    pub fn spanish(self) -> &'static str {
        match self {
            Role::Table => "mesa",
            Role::Display => "cartel",
            Role::Office => "Venta-Pagos",
            Role::Supervisor => "jefe de sala",
            Role::Inspector => "inspector",
            Role::FloorInspector => "inspector de mesa",
            Role::Journal => "registro",
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
    /// A floor inspector's PIN for the tables' monitors: the Argon2id hash (PHC form) of 4–8
    /// digits, as `pozo-server password --pin` prints it; never the PIN.
    #[serde(default)]
    pub pin: Option<String>,
}

/// The digits of an inspector's PIN, fewest and most.
pub const PIN_DIGITS: std::ops::RangeInclusive<usize> = 4..=8;

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
    /// The Argon2id hash of a floor inspector's PIN (PHC form), checked at load.
    pub pin: Option<String>,
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

pub(super) fn validate_keys(
    file: &str,
    layout: &Layout,
    configured: &[KeyConfig],
) -> Result<(BTreeMap<String, Key>, JournalKey), ConfigError> {
    let error = |field: String, problem: String| ConfigError::Field { file: file.to_owned(), field, problem };
    let mut keys = BTreeMap::new();
    let mut journal_key = None;
    for (index, key) in configured.iter().enumerate() {
        let field = |name: &str| format!("key[{index}].{name}");
        let (secret, name) = key_holder(key, &keys, field, error)?;
        if key.role == Role::Journal {
            if journal_key.replace(JournalKey(secret)).is_some() {
                return Err(error(field("role"), "a second journal key: a keys file has exactly one".into()));
            }
            continue;
        }
        let password = key_password(key, field, error)?;
        let pin = key_pin(key, field, error)?;
        keys.insert(
            key.id.clone(),
            Key { id: key.id.clone(), role: key.role, table: key.table.clone(), name, secret, password, pin },
        );
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

/// A table id as the layout takes them (1–32 letters, digits or '-').
fn valid_table_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 32 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// One key and its holder: an id defined once, a secret long enough, a table only for a
/// table key, and a name for a key a person holds (3.5.2). The secret's
/// bytes and the holder's name.
fn key_holder(
    key: &KeyConfig,
    keys: &BTreeMap<String, Key>,
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
        // A key may name a table the layout does not have yet: it is installed before the
        // change that adds the table is approved (docs/operations.md §8), and signs nothing until then.
        (Role::Table, Some(table)) if valid_table_id(table) => {}
        (Role::Table, Some(table)) => return Err(error(field("table"), format!("`{table}` is not a table id"))),
        (Role::Table, None) => return Err(error(field("table"), "a table key names its table".into())),
        (role, Some(_)) => return Err(error(field("table"), format!("{} key belongs to no table", role.with_article()))),
        (_, None) => {}
    }
    let name = match (key.role, key.name.as_deref().map(str::trim)) {
        (Role::Office | Role::Supervisor | Role::Inspector | Role::FloorInspector, None | Some("")) => {
            return Err(error(
                field("name"),
                format!("{} key names the person who holds it: one key per person (3.5.2)", key.role.with_article()),
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

/// A key's password for the pages: only office, supervisor and inspector keys have one, an Argon2id
/// hash in PHC form.
fn key_password(
    key: &KeyConfig,
    field: impl Fn(&str) -> String,
    error: impl Fn(String, String) -> ConfigError,
) -> Result<Option<String>, ConfigError> {
    match (&key.password, key.role) {
        (None, _) => Ok(None),
        (Some(hash), Role::Office | Role::Supervisor | Role::Inspector | Role::FloorInspector) => {
            argon2id_hash(hash, "password", "`pozo-server password`", &field, &error).map(Some)
        }
        (Some(_), role) => Err(error(
            field("password"),
            format!("a {} key signs in to no page; only office and supervisor keys have passwords", role.name()),
        )),
    }
}

/// A floor inspector's PIN: every floor-inspector key has one, no other key does.
fn key_pin(
    key: &KeyConfig,
    field: impl Fn(&str) -> String,
    error: impl Fn(String, String) -> ConfigError,
) -> Result<Option<String>, ConfigError> {
    match (&key.pin, key.role) {
        (Some(hash), Role::FloorInspector) => {
            argon2id_hash(hash, "pin", "`pozo-server password --pin`", &field, &error).map(Some)
        }
        (None, Role::FloorInspector) => Err(error(
            field("pin"),
            "a floor-inspector key carries its holder's PIN (`pozo-server password --pin`): without it they can do nothing at a monitor"
                .into(),
        )),
        (None, _) => Ok(None),
        (Some(_), role) => {
            Err(error(field("pin"), format!("a {} key has no PIN; only floor-inspector keys do", role.name())))
        }
    }
}

/// An Argon2id hash in PHC form, as `tool` makes it, for the key's field `name`.
fn argon2id_hash(
    hash: &str,
    name: &str,
    tool: &str,
    field: impl Fn(&str) -> String,
    error: impl Fn(String, String) -> ConfigError,
) -> Result<String, ConfigError> {
    let parsed = phc::PasswordHash::new(hash.trim())
        .map_err(|problem| error(field(name), format!("not a PHC password hash ({problem}): make one with {tool}")))?;
    if parsed.algorithm != ARGON2ID {
        return Err(error(field(name), format!("`{}` hash; Pozo takes Argon2id ({tool})", parsed.algorithm)));
    }
    Ok(hash.trim().to_owned())
}
