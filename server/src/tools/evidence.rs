//! `pozo-server evidence --jornada DATE --out FILE`: a jornada's evidence, signed with the
//! casino's Ed25519 key, that anyone verifies offline with `pozo-verifier` (docs/journal.md,
//! "A jornada's evidence"); and `pozo-server evidence-key`, which makes that key.
//!
//! The journal is read as `verify` reads it (a copy of the data directory, or a read-only
//! session on PostgreSQL): from entry 1, the chain checked through every entry to the tip and
//! the tip record's seal under the journal key, the entries before the jornada applied to reach
//! the state it opened with. The file itself is made by `pozo_verifier::make`, which replays
//! the jornada's entries with the pure core as the verifier will.

use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use pozo_core::state::State;
use pozo_verifier::SigningKey;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::config::JournalKey;
use crate::journal::recovery::{apply_entry, check_tip, genesis_config};
use crate::journal::{Journal, JournalTip, Sealer};

/// Where the journal is read from.
pub enum Source<'a> {
    Data(&'a Path),
    Store(&'a str),
}

/// What `evidence` wrote.
#[derive(Debug, Serialize)]
pub struct Made {
    pub out: String,
    pub jornada: String,
    pub journal_id: String,
    pub first_entry: u64,
    pub last_entry: u64,
    pub entries: u64,
    /// The journal already held an entry of a later jornada: the jornada is over.
    pub complete: bool,
    pub bytes: u64,
    /// The mystery levels' draws its entries hold, every one checked as `pozo-verifier` checks
    /// them: "sorteos: 3 compromisos, 2 revelados, todos conformes".
    pub draws: String,
    /// The tournaments' seat draws its entries reveal, every one checked as `pozo-verifier`
    /// checks them (Res. 123/2013 art. 11, 15, 88; Anexo IV 8.1): "ubicaciones: 2 sorteos de
    /// ubicaciones revelados, todos conformes"; empty when none.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub seat_draws: String,
    /// Each tournament's books at the close, as the file lists them (Res. 123/2013 art. 62, 63,
    /// 66): "multimesa-semanal: vendido $ 270.000,00 (…): cuadra"; empty when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tournaments: Vec<String>,
    /// SHA-256 of the file, hex: how the casino and the inspector name the same file.
    pub sha256: String,
    /// The signing key's public half (hex) and its fingerprint: the key the regulator registered.
    pub public_key: String,
    pub fingerprint: String,
}

/// Writes the evidence of `jornada` from the journal at `source` into `out` (a new file).
pub fn evidence(
    source: &Source<'_>,
    journal_key: &JournalKey,
    jornada: &str,
    key: &SigningKey,
    out: &Path,
    made_ms: u64,
) -> anyhow::Result<Made> {
    // The canonical form only (`2026-11-05`, not `2026-11-5`): jornadas are compared as text.
    if jiff::civil::Date::strptime("%Y-%m-%d", jornada).map(|date| date.to_string()).ok().as_deref() != Some(jornada) {
        anyhow::bail!("--jornada: `{jornada}` is not a date YYYY-MM-DD");
    }
    if out.exists() {
        anyhow::bail!("--out {}: already exists: evidence is never written over", out.display());
    }
    let (_copy, journal, name) = match source {
        Source::Data(directory) => {
            let (copy, journal) = super::verify::open_copy(directory)?;
            (Some(copy), journal, directory.display().to_string())
        }
        Source::Store(url) => {
            let store = crate::journal::postgres::PgStore::open_reader(url)?;
            let name = store.database().to_owned();
            (None, Journal::on(store), name)
        }
    };
    let config = genesis_config(&journal)?.ok_or_else(|| anyhow::anyhow!("{name}: the journal is empty"))?;
    let identity =
        journal.identity()?.ok_or_else(|| anyhow::anyhow!("{name}: the journal has no identity record: the data is damaged"))?;
    let sealer = Sealer::new(journal_key, &identity).map_err(anyhow::Error::msg)?;
    let mut state = State::new(Arc::new(config));
    let mut tip = JournalTip { entries: 0, hash: identity.genesis_previous() };
    // The state and the anchor before the jornada's first entry; its entries; a later one seen.
    let mut opening: Option<(Option<State>, [u8; 32])> = None;
    let mut records: Vec<Vec<u8>> = Vec::new();
    let mut complete = false;
    let mut draws = pozo_verifier::draws::Draws::new();
    for entry in journal.read_after(0) {
        let entry = entry?;
        let (day, _) = pozo_core::jornada::jornada_and_hour(state.config(), entry.record.time_ms);
        match day.as_str().cmp(jornada) {
            std::cmp::Ordering::Less => {
                apply_entry(&mut state, &tip, &entry).with_context(|| name.clone())?;
            }
            std::cmp::Ordering::Equal if !complete => {
                if opening.is_none() {
                    opening = Some(((tip.entries > 0).then(|| state.clone()), tip.hash));
                }
                // The draws' rules, before the entry is applied: a journal whose draws do not
                // conform is named, entry and rule, and no evidence is signed for it.
                let (sequence, command) = (entry.record.sequence, &entry.record.command);
                if let Err(problem) = draws.before(&state, sequence, command) {
                    anyhow::bail!(
                        "{name}: the jornada's draws do not conform: NO CONFORME: sorteo: asiento {}: {problem}",
                        pozo_verifier::entries(sequence)
                    );
                }
                let cycles = pozo_verifier::draws::Draws::wants_before(command).then(|| state.mysteries().to_vec());
                apply_entry(&mut state, &tip, &entry).with_context(|| name.clone())?;
                draws.after(cycles.as_deref(), &state, sequence, command);
                records.push(entry.json);
            }
            _ => {
                // After the jornada only the chain is checked, up to the tip and its seal.
                complete = true;
                if entry.record.sequence != tip.entries + 1 || entry.previous != tip.hash {
                    anyhow::bail!("{name}: journal entry {}: the chain is broken", entry.record.sequence);
                }
            }
        }
        tip = JournalTip { entries: entry.record.sequence, hash: entry.hash };
    }
    check_tip(&journal, &tip, &sealer).with_context(|| name.clone())?;
    let Some((opening, previous)) = opening else {
        anyhow::bail!("--jornada {jornada}: the journal holds no entry of that jornada (entries 1 to {})", tip.entries);
    };
    let journal_ref = pozo_verifier::make::Journal { installation: &identity.installation, epoch: identity.epoch };
    let (made, checked) =
        pozo_verifier::make::make_checked(journal_ref, jornada, made_ms, complete, opening.as_ref(), previous, &records)
            .map_err(|problem| match problem.check {
                // docs/journal.md, "draw" and "reveal": the entry and the rule it breaks.
                pozo_verifier::Check::Draw => anyhow::anyhow!("the jornada's draws do not conform: NO CONFORME: {problem}"),
                // Res. 123/2013 Anexo IV 1.2: a document in clear is never signed away.
                pozo_verifier::Check::Document => {
                    anyhow::anyhow!("the jornada's tournament documents are not masked: NO CONFORME: {problem}")
                }
                pozo_verifier::Check::Books => anyhow::anyhow!("the jornada's books do not tie: NO CONFORME: {problem}"),
                _ => anyhow::anyhow!("the jornada's entries do not replay: {problem}"),
            })?;
    let bytes = pozo_verifier::make::seal(&made, key);
    let mut file =
        std::fs::OpenOptions::new().write(true).create_new(true).open(out).with_context(|| format!("--out {}", out.display()))?;
    file.write_all(&bytes).and_then(|()| file.sync_all()).with_context(|| format!("--out {}", out.display()))?;
    Ok(Made {
        out: out.display().to_string(),
        jornada: jornada.to_owned(),
        journal_id: identity.journal_id(),
        first_entry: made.first_entry,
        last_entry: made.last_entry,
        entries: made.entries.len() as u64,
        complete,
        draws: format!("sorteos: {}", checked.summary()),
        seat_draws: match made.closing.seat_draws.len() as u64 {
            0 => String::new(),
            revealed => format!("ubicaciones: {}", pozo_verifier::tournaments::summary(revealed)),
        },
        tournaments: made
            .closing
            .tournaments
            .values()
            .map(|books| format!("{}: {}: cuadra", books.tournament, pozo_verifier::tournaments::libros(books)))
            .collect(),
        bytes: bytes.len() as u64,
        sha256: hex::encode(Sha256::digest(&bytes)),
        public_key: key.public().hex(),
        fingerprint: key.public().fingerprint(),
    })
}

/// Reads the casino's signing key (PKCS#8 PEM).
pub fn signing_key(path: &Path) -> anyhow::Result<SigningKey> {
    let text = std::fs::read_to_string(path).with_context(|| format!("--signing-key {}", path.display()))?;
    SigningKey::from_pem(&text).map_err(|error| anyhow::anyhow!("--signing-key {}: {error}", path.display()))
}

/// What `evidence-key` made.
#[derive(Debug, Serialize)]
pub struct KeyMade {
    pub private_key: String,
    pub public_key_file: String,
    pub public_key: String,
    pub fingerprint: String,
}

/// Makes a new signing key: its private half in `out` (PKCS#8 PEM, readable by its owner only),
/// its public half beside it in `out.pub` (PEM), for the regulator. Never writes over a file.
pub fn new_key(out: &Path) -> anyhow::Result<KeyMade> {
    let public_path = out.with_extension(match out.extension() {
        Some(extension) => format!("{}.pub", extension.to_string_lossy()),
        None => "pub".to_owned(),
    });
    for path in [out, public_path.as_path()] {
        if path.exists() {
            anyhow::bail!("{}: already exists: a key is never written over", path.display());
        }
    }
    let (key, pem) = SigningKey::generate().map_err(anyhow::Error::msg)?;
    // A small-order public half would let anyone sign as the casino, and the casino disown what
    // it signed: never written (a key from a random seed is never one; `generate` refuses it too).
    if let Some(why) = key.public().weakness() {
        anyhow::bail!("the generated key {} {why}: not written", key.public().hex());
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(out).with_context(|| out.display().to_string())?;
    file.write_all(pem.as_bytes()).and_then(|()| file.sync_all()).with_context(|| out.display().to_string())?;
    std::fs::write(&public_path, key.public().to_pem()).with_context(|| public_path.display().to_string())?;
    Ok(KeyMade {
        private_key: out.display().to_string(),
        public_key_file: public_path.display().to_string(),
        public_key: key.public().hex(),
        fingerprint: key.public().fingerprint(),
    })
}
