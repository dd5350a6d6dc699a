//! Checking evidence files: each alone (signature, format, chain, every entry recomputed, the
//! books tied to zero), then each one against the next (the same journal, no entry missing or
//! repeated, the chain and the state carried over).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::Once;

use pozo_core::state::Snapshot;
use pozo_engine::{Money, PoolId, PoolState, Reconciliation, format_ars};
use serde::Serialize;

use serde_json::Value;

use crate::format::{CONTEXT, Evidence, FILE_BYTES_MAX, FORMAT, Signature, SignedFile};
use crate::keys::PublicKey;
use crate::replay::{Replay, hash_of};
use crate::strict;
use crate::{Check, Problem, entries, fecha};

/// What one file is and what its check found.
#[derive(Clone, Debug, Serialize)]
pub struct Checked {
    pub file: String,
    pub jornada: String,
    pub journal_id: String,
    pub first_entry: u64,
    pub last_entry: u64,
    pub complete: bool,
    /// The fingerprint of the key that signed it.
    pub signed_by: String,
    /// What proves the state it opened with.
    pub opening: Opening,
    /// Each pool's books over the jornada, as recomputed (empty when the check stopped before).
    pub reconciliation: BTreeMap<PoolId, Reconciliation>,
    /// Each pool with levels: every level's books over the jornada, first level first, as
    /// recomputed (docs/readings.md, "Levels"); absent when no pool has levels.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub levels: BTreeMap<PoolId, Vec<LevelBooks>>,
    /// The mystery levels' draws and reveals the jornada holds, every one checked
    /// (docs/journal.md, "draw" and "reveal"); absent when the check stopped before the close.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draws: Option<DrawsChecked>,
    /// Every tournament seat draw the jornada revealed, each checked (Res. 123/2013 art. 11, 15,
    /// 88; Anexo IV 8.1); absent when none, or when the check stopped before the close.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub seat_draws: Vec<crate::format::SeatDrawn>,
    /// Every tournament's books at the close, each tied (Res. 123/2013 art. 62, 63, 66); absent
    /// when none, or when the check stopped before the close.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tournaments: Vec<pozo_core::state::tournament::TournamentBooks>,
    /// The first thing wrong, if any.
    pub problem: Option<Problem>,
    #[serde(skip)]
    pub(crate) installation: String,
    #[serde(skip)]
    pub(crate) previous_hash: String,
    #[serde(skip)]
    pub(crate) last_hash: String,
    /// The state it opened with, as the file says (kept only until it is linked).
    #[serde(skip)]
    pub(crate) opening_state: Option<Snapshot>,
    /// The state recomputed after the last entry: what the next jornada must open with (kept
    /// only until the next file is linked).
    #[serde(skip)]
    pub(crate) closing: Option<Snapshot>,
    /// The levels' names of each pool with levels at the close: what a link names.
    #[serde(skip)]
    pub(crate) level_names: BTreeMap<PoolId, Vec<String>>,
}

/// The draws a file holds, every one checked: commitments, reveals, and each hit they prove.
#[derive(Clone, Debug, Serialize)]
pub struct DrawsChecked {
    pub committed: u64,
    pub revealed: u64,
    pub hits: Vec<crate::draws::Hit>,
}

impl DrawsChecked {
    /// `3 compromisos, 2 revelados, todos conformes`.
    pub fn summary(&self) -> String {
        crate::draws::summary(self.committed, self.revealed)
    }
}

/// One level's books over a jornada: the lines of a pool's, over the level's own meters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LevelBooks {
    pub level: String,
    pub books: Reconciliation,
}

/// What proves the state a jornada opened with. A file proves its entries from that state, not
/// the state itself: the jornada before's file does, closing with it (or the journal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Opening {
    /// It begins with the genesis entry: there is no state before.
    Genesis,
    /// The file of the jornada before, given with it, closes with that state.
    PreviousFile,
    /// Nothing given proves it: it is believed on the signature.
    NotProven,
}

/// Two consecutive jornadas, and whether they link.
#[derive(Clone, Debug, Serialize)]
pub struct Link {
    pub from: String,
    pub to: String,
    pub problem: Option<Problem>,
}

/// The verdict over every file given.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    /// Every file verified and every two consecutive ones linked.
    pub conforme: bool,
    pub files: Vec<Checked>,
    pub links: Vec<Link>,
    /// The first thing wrong, and in which file.
    pub problem: Option<(String, Problem)>,
}

/// Checks `files` (name, bytes) against the casino's `registered` public key, in the journal's
/// order whatever their order here.
pub fn verify(files: &[(String, Vec<u8>)], registered: &PublicKey) -> Verdict {
    let mut order: Vec<(u64, &String, &Vec<u8>)> = files.iter().map(|(name, bytes)| (first_entry(bytes), name, bytes)).collect();
    order.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let mut verifier = Verifier::new(registered);
    for (_, name, bytes) in order {
        verifier.add(name, bytes);
    }
    verifier.finish()
}

/// Checks the files at `paths` as `pozo-verifier` does: each read (a regular file, within the
/// limit, [`crate::format::read`]) once to put them in the journal's order, then again, one at a
/// time, to be checked and linked to the one before. The memory is that of the largest file,
/// not of them all. `Err` names a file that cannot be read.
pub fn verify_paths(paths: &[std::path::PathBuf], registered: &PublicKey) -> Result<Verdict, String> {
    let mut order = Vec::with_capacity(paths.len());
    for path in paths {
        let bytes = crate::format::read(path)?;
        order.push((first_entry(&bytes), path.display().to_string(), path));
    }
    order.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    let mut verifier = Verifier::new(registered);
    for (_, name, path) in order {
        verifier.add(&name, &crate::format::read(path)?);
    }
    Ok(verifier.finish())
}

/// Where a file goes among others: the `evidence.first_entry` it says (0 when it says none).
/// Only an order: what the file says is checked when it is [`Verifier::add`]ed.
pub fn first_entry(bytes: &[u8]) -> u64 {
    #[derive(serde::Deserialize)]
    struct File {
        evidence: Head,
    }
    #[derive(serde::Deserialize)]
    struct Head {
        first_entry: u64,
    }
    serde_json::from_slice::<File>(bytes).map_or(0, |file| file.evidence.first_entry)
}

/// Files checked one after another in the journal's order (by [`first_entry`], then name),
/// keeping of each only its verdict, and of the last one what the next must continue (its
/// journal, last entry and hash, and closing state): a year of jornadas is checked in the memory
/// of its largest file, not of all of them.
pub struct Verifier<'a> {
    registered: &'a PublicKey,
    files: Vec<Checked>,
    links: Vec<Link>,
    /// The last file added, when it verified.
    previous: Option<Checked>,
}

impl<'a> Verifier<'a> {
    pub fn new(registered: &'a PublicKey) -> Verifier<'a> {
        Verifier { registered, files: Vec::new(), links: Vec::new(), previous: None }
    }

    /// Checks the next file alone, then against the one before when both verified.
    pub fn add(&mut self, name: &str, bytes: &[u8]) {
        let mut checked = check_file(name, bytes, self.registered);
        let previous = self.previous.take();
        checked.opening = if checked.first_entry == 1 { Opening::Genesis } else { Opening::NotProven };
        if checked.problem.is_none()
            && let Some(previous) = previous
        {
            let problem = link(&previous, &checked);
            if problem.is_none() && checked.first_entry > 1 {
                checked.opening = Opening::PreviousFile;
            }
            self.links.push(Link { from: previous.jornada, to: checked.jornada.clone(), problem });
        }
        checked.opening_state = None;
        if checked.problem.is_none() {
            let mut kept = checked.clone();
            kept.reconciliation.clear();
            kept.levels.clear();
            kept.draws = None;
            kept.seat_draws.clear();
            kept.tournaments.clear();
            self.previous = Some(kept);
        }
        checked.closing = None;
        self.files.push(checked);
    }

    /// The verdict over every file added.
    pub fn finish(self) -> Verdict {
        let Verifier { files, links, .. } = self;
        let problem =
            files.iter().find_map(|file| file.problem.clone().map(|problem| (file.file.clone(), problem))).or_else(|| {
                links
                    .iter()
                    .find_map(|link| link.problem.clone().map(|problem| (format!("{} → {}", link.from, link.to), problem)))
            });
        Verdict { conforme: problem.is_none() && !files.is_empty(), files, links, problem }
    }
}

/// Whether `next` continues `earlier`: the same journal, the entry after its last, chained to
/// its last hash, from the state it closed with.
fn link(earlier: &Checked, next: &Checked) -> Option<Problem> {
    let (a, b) = (fecha(&earlier.jornada), fecha(&next.jornada));
    let problem = |message: String| Some(Problem::new(Check::Link, Some(next.first_entry), message));
    if earlier.installation != next.installation {
        return problem(format!(
            "las jornadas {a} y {b} son de diarios distintos ({} y {})",
            earlier.journal_id, next.journal_id
        ));
    }
    let after = earlier.last_entry.saturating_add(1);
    if next.first_entry != after {
        return match next.first_entry > after {
            true => problem(format!(
                "las jornadas {a} y {b} no se enlazan: {a} termina en el asiento {} y {b} empieza en el {}: faltan los \
                 asientos {} a {}",
                entries(earlier.last_entry),
                entries(next.first_entry),
                entries(after),
                entries(next.first_entry - 1)
            )),
            false => problem(format!(
                "las jornadas {a} y {b} no se enlazan: se superponen (la primera termina en el asiento {}, la segunda \
                 empieza en el {})",
                entries(earlier.last_entry),
                entries(next.first_entry)
            )),
        };
    }
    if earlier.jornada >= next.jornada {
        return problem(format!("la jornada {b} sigue a la jornada {a} en el diario, y no es posterior"));
    }
    if next.previous_hash != earlier.last_hash {
        return problem(format!(
            "las jornadas {a} y {b} no se enlazan: {b} dice seguir al hash {}, y el último asiento de {a} tiene el hash {}",
            short(&next.previous_hash),
            short(&earlier.last_hash)
        ));
    }
    if next.opening_state.as_ref() != earlier.closing.as_ref() {
        let which = match (&next.opening_state, &earlier.closing) {
            (Some(opened), Some(left)) => pool_state_difference(&opened.pools, &left.pools, &earlier.level_names),
            _ => None,
        };
        let which = which.map_or_else(String::new, |(pool, what)| {
            format!(
                ": pozo {pool}{}",
                what.map_or_else(String::new, |(level, field, opened, left)| {
                    let level = level.map_or_else(String::new, |level| format!(", nivel {level}"));
                    format!("{level}: {field}: {b} abre con {opened}, {a} dejó {left}")
                })
            )
        });
        return problem(format!("las jornadas {a} y {b} no se enlazan: {b} abre con un estado que no es el que dejó {a}{which}"));
    }
    None
}

/// A level's name (its position when it has none known), and its field that differs.
type LevelField = (Option<String>, String, String, String);

/// The first pool whose state differs between `opened` (what a jornada opens with) and `left`
/// (what the one before left), and in it the first level and field that differ, named with
/// `names` (the levels of each pool with levels): a level's balance, reserve or meter.
fn pool_state_difference(
    opened: &BTreeMap<PoolId, PoolState>,
    left: &BTreeMap<PoolId, PoolState>,
    names: &BTreeMap<PoolId, Vec<String>>,
) -> Option<(String, Option<LevelField>)> {
    let pool = opened.keys().chain(left.keys()).find(|pool| opened.get(*pool) != left.get(*pool))?;
    let (Some(opened), Some(left)) = (opened.get(pool), left.get(pool)) else {
        return Some((pool.to_string(), None));
    };
    let figures =
        |state: &PoolState| serde_json::json!({"balance": state.balance, "reserve": state.reserve, "meters": state.meters});
    let opened_levels: Vec<&PoolState> = std::iter::once(opened).chain(&opened.levels).collect();
    let left_levels: Vec<&PoolState> = std::iter::once(left).chain(&left.levels).collect();
    let field = opened_levels.iter().zip(&left_levels).enumerate().find_map(|(index, (opened, left))| {
        let (field, opened, left) = first_field(&figures(opened), &figures(left), "")?;
        let level = match opened_levels.len().max(left_levels.len()) > 1 {
            true => Some(names.get(pool).and_then(|names| names.get(index)).cloned().unwrap_or_else(|| (index + 1).to_string())),
            false => None,
        };
        Some((level, field, opened, left))
    });
    Some((pool.to_string(), field))
}

/// The first leaf, as a path (`meters.awards`), where `claimed` and `recomputed` differ, and each
/// side's value as the verdict says it (an amount the Argentine way, a count grouped, a name
/// quoted); `path` is where both are.
fn first_field(claimed: &Value, recomputed: &Value, path: &str) -> Option<(String, String, String)> {
    let under = |key: &str| if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") };
    match (claimed, recomputed) {
        (Value::Object(claimed), Value::Object(recomputed)) => {
            claimed.keys().chain(recomputed.keys()).find_map(|key| match (claimed.get(key), recomputed.get(key)) {
                (Some(a), Some(b)) => first_field(a, b, &under(key)),
                (a, b) => Some((under(key), said(a), said(b))),
            })
        }
        (Value::Array(claimed), Value::Array(recomputed)) => {
            (0..claimed.len().max(recomputed.len())).find_map(|index| match (claimed.get(index), recomputed.get(index)) {
                (Some(a), Some(b)) => first_field(a, b, &format!("{path}[{index}]")),
                (a, b) => Some((format!("{path}[{index}]"), said(a), said(b))),
            })
        }
        (a, b) if a == b => None,
        (a, b) => Some((path.to_owned(), said(Some(a)), said(Some(b)))),
    }
}

/// A value of the file as the verdict says it.
fn said(value: Option<&Value>) -> String {
    match value {
        None => "nada".to_owned(),
        Some(Value::String(text)) => match text.parse::<Money>() {
            Ok(amount) => format_ars(amount),
            Err(_) => format!("«{text}»"),
        },
        Some(Value::Number(number)) => number.as_u64().map_or_else(|| number.to_string(), entries),
        Some(other) => other.to_string(),
    }
}

/// A level of a pool with levels in the file: its name.
trait Named {
    fn level(&self) -> &str;
}

impl Named for crate::format::LevelBalances {
    fn level(&self) -> &str {
        &self.level
    }
}

impl Named for crate::format::LevelClosing {
    fn level(&self) -> &str {
        &self.level
    }
}

/// The first level whose figures differ between what the file claims and what was recomputed,
/// pool by pool, first level first: the pool, the level's name (the recomputed one's, the file's
/// when there is none), and each side's level (`None` when that side lacks it; `Some(None)`
/// when it lacks the whole pool).
#[allow(clippy::type_complexity, reason = "a private helper's one answer")]
fn first_level_difference<'a, T: PartialEq + Named>(
    claimed: &'a BTreeMap<PoolId, Vec<T>>,
    recomputed: &'a BTreeMap<PoolId, Vec<T>>,
) -> Option<(String, String, Option<Option<&'a T>>, Option<Option<&'a T>>)> {
    let pool = claimed.keys().chain(recomputed.keys()).find(|pool| claimed.get(*pool) != recomputed.get(*pool))?;
    let (a, b) = (claimed.get(pool), recomputed.get(pool));
    let count = a.map_or(0, Vec::len).max(b.map_or(0, Vec::len));
    let index = (0..count).find(|index| a.and_then(|a| a.get(*index)) != b.and_then(|b| b.get(*index))).unwrap_or(0);
    let (a, b) = (a.map(|a| a.get(index)), b.map(|b| b.get(index)));
    let level = b.flatten().or(a.flatten()).map_or_else(|| (index + 1).to_string(), |level| level.level().to_owned());
    Some((pool.to_string(), level, a, b))
}

/// One side of a level difference as the verdict says it: the level, or why there is none.
fn level_said<T>(level: Option<Option<&T>>, say: impl Fn(&T) -> String, no_pool: &str) -> String {
    match level {
        None => no_pool.to_owned(),
        Some(None) => "ningún nivel así".to_owned(),
        Some(Some(level)) => say(level),
    }
}

fn short(hash: &str) -> &str {
    hash.get(..16).unwrap_or(hash)
}

thread_local! {
    /// Set while a file is replayed: a panic then is the file's, and becomes its verdict.
    static REPLAYING: Cell<bool> = const { Cell::new(false) };
}

/// Panics inside a replay say nothing on standard error (the verdict says it); any other
/// panic is reported as before.
fn quiet_replays() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !REPLAYING.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Checks one file alone.
pub fn check_file(name: &str, bytes: &[u8], registered: &PublicKey) -> Checked {
    let checked = Checked {
        file: name.to_owned(),
        jornada: String::new(),
        journal_id: String::new(),
        first_entry: 0,
        last_entry: 0,
        complete: false,
        signed_by: String::new(),
        opening: Opening::NotProven,
        reconciliation: BTreeMap::new(),
        levels: BTreeMap::new(),
        draws: None,
        seat_draws: Vec::new(),
        tournaments: Vec::new(),
        problem: None,
        installation: String::new(),
        previous_hash: String::new(),
        last_hash: String::new(),
        opening_state: None,
        closing: None,
        level_names: BTreeMap::new(),
    };
    // A file the pure core cannot replay without failing (a state no controller could have
    // written) is a verdict, not a crash, and prints nothing but the verdict: the replay runs
    // on a copy of what was found so far, with its panics kept quiet.
    quiet_replays();
    let mut working = checked.clone();
    REPLAYING.with(|replaying| replaying.set(true));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_into(&mut working, bytes, registered)));
    REPLAYING.with(|replaying| replaying.set(false));
    match outcome {
        Ok(Ok(())) => working,
        Ok(Err(problem)) => Checked { problem: Some(problem), ..working },
        Err(_) => Checked {
            problem: Some(Problem::new(
                Check::Format,
                None,
                "el estado o los asientos no se pueden recalcular: no es un estado que el controlador escriba".to_owned(),
            )),
            ..checked
        },
    }
}

fn check_into(checked: &mut Checked, bytes: &[u8], registered: &PublicKey) -> Result<(), Problem> {
    let file = |message: String| Problem::new(Check::File, None, message);
    if bytes.len() as u64 > FILE_BYTES_MAX {
        return Err(file(format!("tiene {} bytes: más que los {FILE_BYTES_MAX} que se leen", bytes.len())));
    }
    // One reading only: no key twice anywhere (the signed evidence included), and the
    // documented object `{"evidence": {…}, "signature": {…}}`, nothing else.
    let value = strict::parse(bytes).map_err(|error| file(format!("no es un archivo de evidencia: {error}")))?;
    let shape = "no es un archivo de evidencia: debe ser un objeto {\"evidence\": {…}, \"signature\": {…}} (docs/journal.md)";
    let Some(top) = value.as_object() else {
        return Err(file(shape.to_owned()));
    };
    if top.len() != 2 || !top.get("evidence").is_some_and(Value::is_object) || !top.get("signature").is_some_and(Value::is_object)
    {
        return Err(file(shape.to_owned()));
    }
    let signed: SignedFile<'_> =
        serde_json::from_slice(bytes).map_err(|error| file(format!("no es un archivo de evidencia: {error}")))?;
    // The signature first: nothing of an unsigned file is believed, not even its jornada.
    let signature: Signature =
        strict::read(&top["signature"], "signature").map_err(|error| Problem::new(Check::Signature, None, error))?;
    let signer = PublicKey::parse(&signature.public_key)
        .map_err(|error| Problem::new(Check::Signature, None, format!("signature.public_key: {error}")))?;
    if signature.algorithm != crate::format::ALGORITHM {
        return Err(Problem::new(
            Check::Signature,
            None,
            format!("signature.algorithm: «{}», no «ed25519»", signature.algorithm),
        ));
    }
    if let Some(why) = registered.weakness() {
        return Err(Problem::new(Check::Signature, None, format!("la clave registrada {} {why}", registered.hex())));
    }
    if signer != *registered {
        return Err(Problem::new(
            Check::Signature,
            None,
            format!(
                "firmada con la clave {}, no con la clave registrada del casino ({})",
                signer.fingerprint(),
                registered.fingerprint()
            ),
        ));
    }
    let signature_bytes = hex::decode(&signature.value).unwrap_or_default();
    let mut message = CONTEXT.to_vec();
    message.extend_from_slice(signed.evidence.get().as_bytes());
    if !registered.verifies(&message, &signature_bytes) {
        return Err(Problem::new(
            Check::Signature,
            None,
            "la firma no corresponde al contenido: el archivo fue cambiado después de firmado".to_owned(),
        ));
    }
    checked.signed_by = signer.fingerprint();
    let evidence: Evidence =
        strict::read(&top["evidence"], "evidence").map_err(|error| Problem::new(Check::Format, None, error))?;
    drop(message);
    checked.jornada = evidence.jornada.clone();
    checked.journal_id = format!("{}-{}", evidence.installation, evidence.epoch);
    checked.installation = evidence.installation.clone();
    checked.first_entry = evidence.first_entry;
    checked.last_entry = evidence.last_entry;
    checked.complete = evidence.complete;
    checked.previous_hash = evidence.previous_hash.clone();
    checked.last_hash = evidence.last_hash.clone();
    checked.opening_state = evidence.opening.clone();
    recompute(checked, &evidence)
}

/// The chain and every entry recomputed, then the close and its books.
fn recompute(checked: &mut Checked, evidence: &Evidence) -> Result<(), Problem> {
    let format = |message: String| Problem::new(Check::Format, None, message);
    if evidence.format != FORMAT {
        return Err(format(format!("format: «{}», no «{FORMAT}»", evidence.format)));
    }
    let count = evidence.last_entry.checked_sub(evidence.first_entry).and_then(|span| span.checked_add(1));
    if evidence.entries.is_empty() || count != Some(evidence.entries.len() as u64) {
        return Err(format(format!(
            "entries: {} asientos, y del asiento {} al {} van {}",
            evidence.entries.len(),
            evidence.first_entry,
            evidence.last_entry,
            count.map_or_else(|| "ninguno".to_owned(), |count| count.to_string())
        )));
    }
    let mut replay = Replay::open(evidence, evidence.entries.first().map(|entry| entry.record.as_str()))?;
    for entry in &evidence.entries {
        let sequence = replay.last() + 1;
        let stepped = replay.step(&entry.record, Some(&entry.hash))?;
        // Each level first (docs/readings.md, "Levels"): a bet's split between levels changed,
        // the pool's sum kept, is a level's figures wrong, not the pool's.
        if let Some((pool, level, claimed, recomputed)) = first_level_difference(&entry.levels, &stepped.levels) {
            let say = |level: &crate::format::LevelBalances| match (claimed.flatten(), recomputed.flatten()) {
                (Some(a), Some(b)) if a.level != b.level => format!("el nivel «{}»", level.level),
                _ => balances(level.balance, level.reserve),
            };
            return Err(Problem::new(
                Check::Recomputation,
                Some(sequence),
                format!(
                    "pozo {pool}, nivel {level}: el archivo dice {}, recalculado da {}",
                    level_said(claimed, say, "sin cambios"),
                    level_said(recomputed, say, "sin cambios")
                ),
            ));
        }
        let said = |figures: &crate::format::Balances| balances(figures.balance, figures.reserve);
        if let Some((pool, claimed, recomputed)) = first_difference(&entry.pools, &stepped.pools, said, "sin cambios") {
            return Err(Problem::new(
                Check::Recomputation,
                Some(sequence),
                format!("pozo {pool}: el archivo dice {claimed}, recalculado da {recomputed}"),
            ));
        }
    }
    if hex::encode(replay.hash()) != evidence.last_hash {
        return Err(Problem::new(
            Check::Chain,
            Some(evidence.last_entry),
            format!("last_hash: la cadena termina en {}, no en {}", hex::encode(replay.hash()), evidence.last_hash),
        ));
    }
    hash_of("last_hash", &evidence.last_hash)?;
    let closing = replay.closing();
    let books = |message: String| Problem::new(Check::Books, None, message);
    // Every level of every pool with levels, first: its figures, its meters and its books, each
    // tied to zero on its own (docs/readings.md, "Levels").
    if let Some((pool, level, claimed, recomputed)) = first_level_difference(&evidence.closing.levels, &closing.levels) {
        let what = match (claimed.flatten(), recomputed.flatten()) {
            (Some(a), Some(b)) => {
                let (a, b) = (serde_json::to_value(a).unwrap_or_default(), serde_json::to_value(b).unwrap_or_default());
                first_field(&a, &b, "").map_or_else(
                    || "no es el recalculado".to_owned(),
                    |(field, a, b)| format!("{field}: el archivo dice {a}, recalculado da {b}"),
                )
            }
            _ => {
                let say = |level: &crate::format::LevelClosing| format!("el nivel {}", level.level);
                format!(
                    "el archivo dice {}, recalculado da {}",
                    level_said(claimed, say, "ningún nivel de este pozo"),
                    level_said(recomputed, say, "ningún nivel de este pozo")
                )
            }
        };
        return Err(books(format!("closing.levels: pozo {pool}, nivel {level}: {what}")));
    }
    for (pool, levels) in &closing.levels {
        if let Some(level) = levels.iter().find(|level| !level.reconciliation.ties()) {
            return Err(books(format!(
                "los libros del pozo {pool}, nivel {}, no cuadran en cero: diferencia {}",
                level.level,
                format_ars(level.reconciliation.difference)
            )));
        }
    }
    let said = |figures: &pozo_engine::PoolFigures| {
        let meters = &figures.meters;
        format!("{}, {} apuestas y {} aciertos", balances(figures.balance, figures.reserve), meters.net_bets(), meters.hits)
    };
    if let Some((pool, claimed, recomputed)) = first_difference(&evidence.closing.pools, &closing.pools, said, "ningún pozo") {
        // The same balances, bets and hits: another meter differs, and is named.
        let field = (claimed == recomputed)
            .then(|| {
                let figures = |pools: &BTreeMap<PoolId, pozo_engine::PoolFigures>| {
                    pools
                        .iter()
                        .find(|(id, _)| id.to_string() == pool)
                        .map(|(_, figures)| serde_json::to_value(figures).unwrap_or_default())
                };
                first_field(&figures(&evidence.closing.pools)?, &figures(&closing.pools)?, "")
            })
            .flatten();
        return Err(books(match field {
            Some((field, claimed, recomputed)) => {
                format!("closing.pools: pozo {pool}: {field}: el archivo dice {claimed}, recalculado da {recomputed}")
            }
            None => format!("closing.pools: pozo {pool}: el archivo dice {claimed}, recalculado da {recomputed}"),
        }));
    }
    if evidence.closing.reconciliation != closing.reconciliation {
        let pool = closing
            .reconciliation
            .iter()
            .find(|(pool, books)| evidence.closing.reconciliation.get(*pool) != Some(*books))
            .map(|(pool, _)| pool.to_string())
            .or_else(|| {
                evidence
                    .closing
                    .reconciliation
                    .keys()
                    .find(|pool| !closing.reconciliation.contains_key(*pool))
                    .map(ToString::to_string)
            })
            .unwrap_or_default();
        return Err(books(format!("closing.reconciliation: la conciliación del pozo {pool} no es la recalculada")));
    }
    if let Some((pool, books_of)) = closing.reconciliation.iter().find(|(_, books)| !books.ties()) {
        return Err(books(format!(
            "los libros del pozo {pool} no cuadran en cero: diferencia {}",
            format_ars(books_of.difference)
        )));
    }
    tournaments_at_close(evidence, &closing)?;
    // A file a release before the roulette series were numbered wrote (3.7.3) closed on a state
    // without them: its hash is checked against the recomputed state without them.
    let earlier_release = || {
        let mut snapshot = replay.state().snapshot();
        snapshot.data.as_an_earlier_release_kept();
        crate::format::snapshot_sha256(&snapshot) == evidence.closing.snapshot_sha256
    };
    if closing.snapshot_sha256 != evidence.closing.snapshot_sha256 && !earlier_release() {
        return Err(books("closing.snapshot_sha256: el estado de cierre no es el recalculado".to_owned()));
    }
    checked.level_names = closing
        .levels
        .iter()
        .map(|(pool, levels)| (pool.clone(), levels.iter().map(|level| level.level.clone()).collect()))
        .collect();
    checked.levels = closing
        .levels
        .into_iter()
        .map(|(pool, levels)| {
            let books = levels.into_iter().map(|level| LevelBooks { level: level.level, books: level.reconciliation }).collect();
            (pool, books)
        })
        .collect();
    checked.reconciliation = closing.reconciliation;
    checked.tournaments = closing.tournaments.into_values().collect();
    checked.seat_draws = closing.seat_draws;
    let draws = replay.draws();
    checked.draws = Some(DrawsChecked { committed: draws.committed, revealed: draws.revealed, hits: draws.hits.clone() });
    checked.closing = Some(replay.state().snapshot());
    Ok(())
}

/// The close's tournaments (Res. 123/2013): every seat draw the file claims is one the entries
/// revealed, its nonce opening the commitment and its seating the one the nonce draws
/// (`seats::check`), none missing; every tournament's books the recomputed ones, each tied.
fn tournaments_at_close(evidence: &Evidence, closing: &crate::format::Closing) -> Result<(), Problem> {
    for claimed in &evidence.closing.seat_draws {
        let recomputed = closing.seat_draws.iter().find(|draw| draw.entry == claimed.entry);
        crate::tournaments::check_claimed(claimed, recomputed)
            .map_err(|message| Problem::new(Check::Draw, Some(claimed.entry), message))?;
    }
    if let Some(missing) =
        closing.seat_draws.iter().find(|draw| !evidence.closing.seat_draws.iter().any(|claimed| claimed.entry == draw.entry))
    {
        return Err(Problem::new(
            Check::Draw,
            Some(missing.entry),
            format!(
                "closing.seat_draws: falta el sorteo de ubicaciones {} ({}) del torneo {}, que el asiento revela: su \
                 ubicación no se publica",
                missing.draw, missing.reason, missing.tournament
            ),
        ));
    }
    let books = |message: String| Problem::new(Check::Books, None, message);
    let ids = evidence.closing.tournaments.keys().chain(closing.tournaments.keys());
    for id in ids {
        match (evidence.closing.tournaments.get(id), closing.tournaments.get(id)) {
            (Some(claimed), Some(recomputed)) if claimed == recomputed => {}
            (Some(claimed), Some(recomputed)) => {
                let (a, b) =
                    (serde_json::to_value(claimed).unwrap_or_default(), serde_json::to_value(recomputed).unwrap_or_default());
                let field = first_difference_of(&a, &b).unwrap_or_default();
                return Err(books(format!("closing.tournaments: los libros del torneo {id} no son los recalculados: {field}")));
            }
            (None, _) => {
                return Err(books(format!("closing.tournaments: faltan los libros del torneo {id}")));
            }
            (_, None) => {
                return Err(books(format!("closing.tournaments: no hay torneo {id} en el diario")));
            }
        }
    }
    for (id, recomputed) in &closing.tournaments {
        if let Some(why) = crate::tournaments::descuadre(recomputed) {
            return Err(books(format!("los libros del torneo {id} no cuadran: {why}")));
        }
    }
    Ok(())
}

/// The first leaf where the file's `claimed` and the `recomputed` differ, as a verdict says it:
/// `sold: el archivo dice $ 1,00, recalculado da $ 2,00`.
pub(crate) fn first_difference_of(claimed: &Value, recomputed: &Value) -> Option<String> {
    first_field(claimed, recomputed, "")
        .map(|(field, claimed, recomputed)| format!("{field}: el archivo dice {claimed}, recalculado da {recomputed}"))
}

/// The first pool whose figures differ between what the file claims and what was recomputed:
/// its id and what each side says (`absent` for a pool one side lacks).
fn first_difference<T: PartialEq>(
    claimed: &BTreeMap<PoolId, T>,
    recomputed: &BTreeMap<PoolId, T>,
    say: impl Fn(&T) -> String,
    absent: &str,
) -> Option<(String, String, String)> {
    let said = |figures: Option<&T>| figures.map_or_else(|| absent.to_owned(), &say);
    claimed
        .keys()
        .chain(recomputed.keys())
        .find(|pool| claimed.get(*pool) != recomputed.get(*pool))
        .map(|pool| (pool.to_string(), said(claimed.get(pool)), said(recomputed.get(pool))))
}

/// A pool's balance and reserve as the verdict says them.
fn balances(balance: pozo_engine::Money, reserve: pozo_engine::Money) -> String {
    format!("saldo {} y reserva {}", format_ars(balance), format_ars(reserve))
}
