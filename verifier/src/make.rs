//! Making an evidence file: what `pozo-server evidence` calls once it has read the journal
//! (chain and seal checked) up to the jornada. The jornada's entries are replayed here by the
//! same [`Replay`] the verifier uses, so what the file claims each entry did is the pure core's.

use pozo_core::state::State;

use crate::draws::Draws;
use crate::format::{CONTEXT, Entry, Evidence, FORMAT, Hash, Signature};
use crate::keys::SigningKey;
use crate::replay::Replay;
use crate::{Check, Problem};

/// Where the jornada sits in its journal.
pub struct Journal<'a> {
    pub installation: &'a str,
    pub epoch: u32,
}

/// The evidence of `jornada`: its entries' `records` (the bytes the journal stores, in order),
/// the state before the first (`None` when the first is the genesis entry) and the hash of the
/// entry before it; `complete` when the journal already holds an entry of a later jornada.
pub fn make(
    journal: Journal<'_>,
    jornada: &str,
    made_ms: u64,
    complete: bool,
    opening: Option<&State>,
    previous_hash: Hash,
    records: &[Vec<u8>],
) -> Result<Evidence, Problem> {
    make_checked(journal, jornada, made_ms, complete, opening, previous_hash, records).map(|(evidence, _)| evidence)
}

/// [`make`], and the mystery levels' draws and reveals its entries hold, every one checked as
/// the verifier checks them (`crate::draws`): what `pozo-server evidence` says it wrote.
pub fn make_checked(
    journal: Journal<'_>,
    jornada: &str,
    made_ms: u64,
    complete: bool,
    opening: Option<&State>,
    previous_hash: Hash,
    records: &[Vec<u8>],
) -> Result<(Evidence, Draws), Problem> {
    let first = opening.map_or(1, |state| state.journal_sequence() + 1);
    let texts = |bytes: &Vec<u8>| {
        String::from_utf8(bytes.clone()).map_err(|_| Problem::new(Check::Format, None, "un registro no es UTF-8".to_owned()))
    };
    let records = records.iter().map(texts).collect::<Result<Vec<_>, _>>()?;
    let (config_hash, files) = match opening {
        Some(state) => (state.config().hash.clone(), state.config().texts.clone()),
        None => match records.first().map(|record| serde_json::from_str::<crate::format::Record>(record)) {
            Some(Ok(crate::format::Record {
                command: pozo_core::state::Command::Genesis { config_hash, texts, .. }, ..
            })) => (config_hash, texts),
            _ => return Err(Problem::new(Check::Format, Some(1), "el asiento 1 no es el génesis".to_owned())),
        },
    };
    let mut evidence = Evidence {
        format: FORMAT.to_owned(),
        installation: journal.installation.to_owned(),
        epoch: journal.epoch,
        jornada: jornada.to_owned(),
        made_ms,
        complete,
        first_entry: first,
        last_entry: (first + records.len() as u64).saturating_sub(1),
        previous_hash: hex::encode(previous_hash),
        last_hash: String::new(),
        config_hash,
        files,
        opening: opening.map(State::snapshot),
        entries: Vec::with_capacity(records.len()),
        closing: Default::default(),
    };
    if records.is_empty() {
        return Err(Problem::new(Check::Format, None, format!("la jornada {jornada} no tiene asientos")));
    }
    let mut replay = Replay::open(&evidence, records.first().map(String::as_str))?;
    for record in records {
        let stepped = replay.step(&record, None)?;
        evidence.entries.push(Entry { record, hash: hex::encode(stepped.hash), pools: stepped.pools, levels: stepped.levels });
    }
    evidence.last_hash = hex::encode(replay.hash());
    evidence.closing = replay.closing();
    // Every tournament's books tie, as the verifier will check them (Res. 123/2013 art. 62, 63, 66).
    if let Some((id, why)) =
        evidence.closing.tournaments.iter().find_map(|(id, books)| crate::tournaments::descuadre(books).map(|why| (id, why)))
    {
        return Err(Problem::new(Check::Books, None, format!("los libros del torneo {id} no cuadran: {why}")));
    }
    let draws = replay.draws().clone();
    Ok((evidence, draws))
}

/// The file's bytes: the evidence and the signature of [`CONTEXT`] ‖ its bytes.
pub fn seal(evidence: &Evidence, key: &SigningKey) -> Vec<u8> {
    let body = serde_json::to_vec(evidence).expect("evidence serializes");
    let mut message = CONTEXT.to_vec();
    message.extend_from_slice(&body);
    let signature = Signature {
        algorithm: crate::format::ALGORITHM.to_owned(),
        public_key: key.public().hex(),
        value: hex::encode(key.sign(&message)),
    };
    let mut file = b"{\"evidence\":".to_vec();
    file.extend_from_slice(&body);
    file.extend_from_slice(b",\"signature\":");
    file.extend_from_slice(&serde_json::to_vec(&signature).expect("signatures serialize"));
    file.extend_from_slice(b"}\n");
    file
}
