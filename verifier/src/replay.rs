//! The jornada replayed by the pure core, entry by entry, from the state it opened with: what
//! the evidence is made with and what the verifier recomputes it with.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use pozo_core::config::Config;
use pozo_core::state::books::figures;
use pozo_core::state::{Command, Context, State};
use pozo_engine::{PoolFigures, PoolId, Reconciliation, format_ars};

use crate::format::{Balances, Closing, Evidence, Hash, Record, entry_hash, genesis_previous, snapshot_sha256};
use crate::{Check, Problem};

pub(crate) struct Replay {
    state: State,
    /// The hash of the last entry applied (the anchor before the first).
    hash: Hash,
    jornada: String,
    next: u64,
    /// The time of the last entry applied: entries never go back in time.
    last_time_ms: u64,
    opening: BTreeMap<PoolId, PoolFigures>,
}

/// A hex hash of the file, or what is wrong with it.
pub(crate) fn hash_of(field: &str, text: &str) -> Result<Hash, Problem> {
    hex::decode(text)
        .ok()
        .and_then(|bytes| Hash::try_from(bytes.as_slice()).ok())
        .ok_or_else(|| Problem::new(Check::Format, None, format!("{field}: «{text}» no es un hash SHA-256 en hexadecimal")))
}

/// A record read one way only: an object, no key twice in it at any depth.
fn parse_record(record: &str) -> Result<Record, String> {
    match crate::strict::parse(record.as_bytes())? {
        serde_json::Value::Object(_) => serde_json::from_str(record).map_err(|error| error.to_string()),
        _ => Err("un registro es un objeto JSON".to_owned()),
    }
}

impl Replay {
    /// The state the evidence opens with: its `opening` under its files, or, when it begins
    /// with the genesis entry (`first_record`), the genesis configuration's new state.
    pub(crate) fn open(evidence: &Evidence, first_record: Option<&str>) -> Result<Replay, Problem> {
        let previous = hash_of("previous_hash", &evidence.previous_hash)?;
        let format = |message: String| Problem::new(Check::Format, None, message);
        if evidence.opening.is_none() != (evidence.first_entry == 1) {
            return Err(format(format!(
                "opening: la jornada empieza en el asiento {} y {}: solo la que empieza en el génesis (asiento 1) \
                 carece de estado de apertura",
                evidence.first_entry,
                if evidence.opening.is_none() { "no trae estado de apertura" } else { "trae un estado de apertura" }
            )));
        }
        let state = match &evidence.opening {
            None => {
                if evidence.first_entry != 1 {
                    return Err(format(format!(
                        "opening: falta el estado de apertura, y la jornada empieza en el asiento {}, no en el génesis",
                        evidence.first_entry
                    )));
                }
                if previous != genesis_previous(&evidence.installation) {
                    return Err(Problem::new(
                        Check::Chain,
                        Some(1),
                        format!(
                            "previous_hash: no es el ancla del asiento 1 de la instalación {}: el diario no es el de \
                             esta instalación",
                            evidence.installation
                        ),
                    ));
                }
                let record = first_record.ok_or_else(|| format("entries: no hay asientos".to_owned()))?;
                let record: Record = parse_record(record)
                    .map_err(|error| Problem::new(Check::Format, Some(1), format!("el asiento 1 no se lee: {error}")))?;
                let Command::Genesis { texts, .. } = record.command else {
                    return Err(Problem::new(Check::Format, Some(1), "el asiento 1 no es el génesis".to_owned()));
                };
                if texts != evidence.files {
                    return Err(format("files: no son los archivos del asiento génesis".to_owned()));
                }
                let config = Config::from_texts(texts).map_err(|error| format(format!("files: {error}")))?;
                if config.hash != evidence.config_hash {
                    return Err(format(format!(
                        "config_hash: {} no es el hash de sus archivos ({})",
                        evidence.config_hash, config.hash
                    )));
                }
                State::new(Arc::new(config))
            }
            Some(snapshot) => {
                let config = Config::from_texts(evidence.files.clone()).map_err(|error| format(format!("files: {error}")))?;
                if config.hash != evidence.config_hash {
                    return Err(format(format!(
                        "config_hash: {} no es el hash de sus archivos ({})",
                        evidence.config_hash, config.hash
                    )));
                }
                let state = State::restore(Arc::new(config), snapshot.clone())
                    .map_err(|problem| format(format!("opening: el estado de apertura no se restaura: {problem}")))?;
                // The configuration the state runs under is the snapshot's in force: the file's must be it.
                if state.config().hash != evidence.config_hash || state.config().texts != evidence.files {
                    return Err(format(format!(
                        "files: no son la configuración en vigor del estado de apertura ({})",
                        state.config().hash
                    )));
                }
                // A jornada's evidence opens before its first entry, not in the middle of it.
                if snapshot.data.openings.contains_key(&evidence.jornada) {
                    return Err(format(format!(
                        "opening: el estado de apertura ya tiene asientos de la jornada {}: la evidencia empieza a mitad de \
                         la jornada",
                        evidence.jornada
                    )));
                }
                if state.journal_sequence().checked_add(1) != Some(evidence.first_entry) {
                    return Err(format(format!(
                        "opening: es el estado después del asiento {}, no antes del asiento {}",
                        state.journal_sequence(),
                        evidence.first_entry
                    )));
                }
                state
            }
        };
        let opening = figures(state.pools());
        Ok(Replay {
            state,
            hash: previous,
            jornada: evidence.jornada.clone(),
            next: evidence.first_entry,
            last_time_ms: 0,
            opening,
        })
    }

    /// Applies the next entry, `record` its bytes: its hash, and each pool it changed.
    /// `claimed_hash`: the entry's hash as the file gives it, checked first (`None` while making one).
    pub(crate) fn step(
        &mut self,
        record: &str,
        claimed_hash: Option<&str>,
    ) -> Result<(Hash, BTreeMap<PoolId, Balances>), Problem> {
        let sequence = self.next;
        let problem = |check: Check, message: String| Problem::new(check, Some(sequence), message);
        let hash = entry_hash(&self.hash, record.as_bytes());
        if let Some(claimed) = claimed_hash
            && hex::encode(hash) != claimed
        {
            return Err(problem(
                Check::Chain,
                "su hash no es el del asiento anterior y su registro: el asiento fue cambiado, o falta uno antes".to_owned(),
            ));
        }
        let parsed: Record =
            parse_record(record).map_err(|error| problem(Check::Format, format!("el asiento no se lee: {error}")))?;
        if parsed.sequence != sequence {
            return Err(problem(
                Check::Chain,
                format!("el registro dice ser el asiento {}: faltan o sobran asientos", parsed.sequence),
            ));
        }
        if parsed.time_ms < self.last_time_ms {
            return Err(problem(
                Check::Format,
                "su hora es anterior a la del asiento previo: el reloj del diario no retrocede".to_owned(),
            ));
        }
        self.last_time_ms = parsed.time_ms;
        let (jornada, _) = pozo_core::jornada::jornada_and_hour(self.state.config(), parsed.time_ms);
        if jornada != self.jornada {
            return Err(problem(Check::Format, format!("es de la jornada {}, no de la jornada {}", jornada, self.jornada)));
        }
        let before = figures(self.state.pools());
        match self.state.apply(&parsed.command, Context { sequence, time_ms: parsed.time_ms }) {
            Ok(applied) if applied.journals() => {}
            Ok(_) => return Err(problem(Check::Recomputation, "recalculado, no cambia nada: no es un asiento".to_owned())),
            Err(refusal) => {
                return Err(problem(Check::Recomputation, format!("recalculado, es rechazado: {}", refusal.for_people())));
            }
        }
        if let Some((pool, difference)) = self.state.conservation().into_iter().find(|(_, difference)| !difference.is_zero()) {
            return Err(problem(
                Check::Books,
                format!("recalculado, el pozo {pool} no se conserva: diferencia {}", format_ars(difference)),
            ));
        }
        let after = figures(self.state.pools());
        let changed = after
            .iter()
            .filter(|(pool, figures)| before.get(*pool) != Some(*figures))
            .map(|(pool, figures)| (pool.clone(), Balances { balance: figures.balance, reserve: figures.reserve }))
            .collect();
        self.hash = hash;
        self.next = self.next.saturating_add(1);
        Ok((hash, changed))
    }

    /// The last entry applied.
    pub(crate) fn last(&self) -> u64 {
        self.next.saturating_sub(1)
    }

    pub(crate) fn hash(&self) -> Hash {
        self.hash
    }

    pub(crate) fn state(&self) -> &State {
        &self.state
    }

    /// Every pool's figures now, each pool's books since the opening, and the state's SHA-256.
    pub(crate) fn closing(&self) -> Closing {
        let pools = figures(self.state.pools());
        let nothing = PoolFigures::default();
        let ids: BTreeSet<&PoolId> = self.opening.keys().chain(pools.keys()).collect();
        let reconciliation = ids
            .into_iter()
            .map(|id| {
                let books = Reconciliation::between(self.opening.get(id).unwrap_or(&nothing), pools.get(id).unwrap_or(&nothing));
                (id.clone(), books)
            })
            .collect();
        Closing { reconciliation, snapshot_sha256: snapshot_sha256(&self.state.snapshot()), pools }
    }
}
