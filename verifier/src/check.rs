//! Checking evidence files: each alone (signature, format, chain, every entry recomputed, the
//! books tied to zero), then each one against the next (the same journal, no entry missing or
//! repeated, the chain and the state carried over).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::Once;

use pozo_core::state::Snapshot;
use pozo_engine::{PoolId, Reconciliation, format_ars};
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
        return problem(format!("las jornadas {a} y {b} no se enlazan: {b} abre con un estado que no es el que dejó {a}"));
    }
    None
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
        problem: None,
        installation: String::new(),
        previous_hash: String::new(),
        last_hash: String::new(),
        opening_state: None,
        closing: None,
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
        let (_, pools) = replay.step(&entry.record, Some(&entry.hash))?;
        let said = |figures: &crate::format::Balances| balances(figures.balance, figures.reserve);
        if let Some((pool, claimed, recomputed)) = first_difference(&entry.pools, &pools, said, "sin cambios") {
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
    let said = |figures: &pozo_engine::PoolFigures| {
        let meters = &figures.meters;
        format!("{}, {} apuestas y {} aciertos", balances(figures.balance, figures.reserve), meters.net_bets(), meters.hits)
    };
    if let Some((pool, claimed, recomputed)) = first_difference(&evidence.closing.pools, &closing.pools, said, "ningún pozo") {
        return Err(books(format!("closing.pools: pozo {pool}: el archivo dice {claimed}, recalculado da {recomputed}")));
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
    checked.reconciliation = closing.reconciliation;
    checked.closing = Some(replay.state().snapshot());
    Ok(())
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
