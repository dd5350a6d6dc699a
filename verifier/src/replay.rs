//! The jornada replayed by the pure core, entry by entry, from the state it opened with: what
//! the evidence is made with and what the verifier recomputes it with.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use pozo_core::config::Config;
use pozo_core::state::books::figures;
use pozo_core::state::{Command, Context, Snapshot, State};
use pozo_engine::{Pool, PoolFigures, PoolId, Reconciliation, format_ars};

use crate::draws::Draws;
use crate::format::{
    Balances, Closing, Evidence, Hash, LevelBalances, LevelClosing, Record, entry_hash, genesis_previous, snapshot_sha256,
};
use crate::tournaments::Seats;
use crate::{Check, Problem, conservation_difference};

/// Each pool with levels (a snapshot's `PoolState.levels`), its levels' names and figures, first
/// level first (docs/readings.md, "Levels"). A pool of one level is not in it: its figures are
/// the pool's.
pub(crate) type Levels = BTreeMap<PoolId, Vec<(String, PoolFigures)>>;

/// Every pool with levels' levels now.
pub(crate) fn level_figures<'a>(pools: impl Iterator<Item = &'a Pool>) -> Levels {
    pools
        .filter(|pool| pool.rules().levels.len() > 1)
        .map(|pool| {
            let levels = pool
                .levels()
                .into_iter()
                .map(|level| {
                    let figures =
                        PoolFigures { balance: level.balance, reserve: level.reserve, meters: level.meters, levels: Vec::new() };
                    (level.name.unwrap_or_default(), figures)
                })
                .collect();
            (pool.rules().id.clone(), levels)
        })
        .collect()
}

/// What one entry did: its hash, each pool it changed (balance and reserve after it), and each
/// pool with levels whose levels it changed (every level's balance and reserve after it).
pub(crate) struct Stepped {
    pub(crate) hash: Hash,
    pub(crate) pools: BTreeMap<PoolId, Balances>,
    pub(crate) levels: BTreeMap<PoolId, Vec<LevelBalances>>,
}

pub(crate) struct Replay {
    state: State,
    /// The hash of the last entry applied (the anchor before the first).
    hash: Hash,
    jornada: String,
    next: u64,
    /// The time of the last entry applied: entries never go back in time.
    last_time_ms: u64,
    opening: BTreeMap<PoolId, PoolFigures>,
    /// Every level's figures as the jornada opened, of each pool with levels.
    opening_levels: Levels,
    /// The mystery levels' draws and reveals, each checked before it is applied.
    draws: Draws,
    /// The tournaments' seat draws and documents, each checked before it is applied.
    seats: Seats,
}

/// A hex hash of the file, or what is wrong with it.
pub(crate) fn hash_of(field: &str, text: &str) -> Result<Hash, Problem> {
    hex::decode(text)
        .ok()
        .and_then(|bytes| Hash::try_from(bytes.as_slice()).ok())
        .ok_or_else(|| Problem::new(Check::Format, None, format!("{field}: «{text}» no es un hash SHA-256 en hexadecimal")))
}

/// Every level of every pool with levels in the opening state conserves on its own
/// (docs/readings.md, "Levels"; docs/rules.md, "Money and conservation"): a level that does not is
/// named, pool and level, before the core refuses the state as a whole.
fn opening_conserves(config: &Config, snapshot: &Snapshot) -> Result<(), Problem> {
    for (pool, state) in &snapshot.pools {
        if state.levels.is_empty() {
            continue;
        }
        let rules = config.rulebooks.pool(pool);
        for (index, level) in std::iter::once(state).chain(&state.levels).enumerate() {
            let difference = conservation_difference(level.balance, level.reserve, &level.meters);
            if !difference.is_zero() {
                let name = rules.and_then(|rules| rules.level_name(index)).map_or_else(|| (index + 1).to_string(), str::to_owned);
                return Err(Problem::new(
                    Check::Format,
                    None,
                    format!(
                        "opening: pozo {pool}, nivel {name}: el estado de apertura no se conserva (diferencia {}): no es un \
                         estado que el controlador escriba",
                        format_ars(difference)
                    ),
                ));
            }
        }
    }
    Ok(())
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
                opening_conserves(&config, snapshot)?;
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
        // Every document the opening state holds is masked (Res. 123/2013 Anexo IV 1.2).
        crate::tournaments::opening_documents(&state).map_err(|message| Problem::new(Check::Document, None, message))?;
        let opening = figures(state.pools());
        let opening_levels = level_figures(state.pools());
        Ok(Replay {
            state,
            hash: previous,
            jornada: evidence.jornada.clone(),
            next: evidence.first_entry,
            last_time_ms: 0,
            opening,
            opening_levels,
            draws: Draws::new(),
            seats: Seats::new(),
        })
    }

    /// Applies the next entry, `record` its bytes: its hash, each pool and each level it changed.
    /// `claimed_hash`: the entry's hash as the file gives it, checked first (`None` while making one).
    pub(crate) fn step(&mut self, record: &str, claimed_hash: Option<&str>) -> Result<Stepped, Problem> {
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
        // The draws' rules, before the core applies the entry (docs/journal.md, "draw", "reveal").
        self.draws.before(&self.state, sequence, &parsed.command).map_err(|message| problem(Check::Draw, message))?;
        // A tournament's seat draw opens its commitment, a purchase's document is masked
        // (Res. 123/2013 art. 11, 15, 88; Anexo IV 1.2, 8.1).
        self.seats
            .before(&self.state, &parsed.command)
            .map_err(|(draw, message)| problem(if draw { Check::Draw } else { Check::Document }, message))?;
        let cycles_before = Draws::wants_before(&parsed.command).then(|| self.state.mysteries().to_vec());
        let before = figures(self.state.pools());
        let levels_before = level_figures(self.state.pools());
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
        // Every level conserves on its own (docs/readings.md, "Levels"): a pool's sum could hide
        // one level's money made and another's lost.
        let levels = level_figures(self.state.pools());
        for (pool, levels) in &levels {
            for (level, figures) in levels {
                let difference = conservation_difference(figures.balance, figures.reserve, &figures.meters);
                if !difference.is_zero() {
                    return Err(problem(
                        Check::Books,
                        format!(
                            "recalculado, el pozo {pool}, nivel {level}, no se conserva: diferencia {}",
                            format_ars(difference)
                        ),
                    ));
                }
            }
        }
        self.draws.after(cycles_before.as_deref(), &self.state, sequence, &parsed.command);
        self.seats.after(&self.state, sequence, &parsed.command);
        let after = figures(self.state.pools());
        let pools = after
            .iter()
            .filter(|(pool, figures)| before.get(*pool) != Some(*figures))
            .map(|(pool, figures)| (pool.clone(), Balances { balance: figures.balance, reserve: figures.reserve }))
            .collect();
        let levels = levels
            .into_iter()
            .filter(|(pool, levels)| levels_before.get(pool) != Some(levels))
            .map(|(pool, levels)| {
                let balances = levels
                    .into_iter()
                    .map(|(level, figures)| LevelBalances { level, balance: figures.balance, reserve: figures.reserve })
                    .collect();
                (pool, balances)
            })
            .collect();
        self.hash = hash;
        self.next = self.next.saturating_add(1);
        Ok(Stepped { hash, pools, levels })
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

    /// The draws and reveals checked so far.
    pub(crate) fn draws(&self) -> &Draws {
        &self.draws
    }

    /// Every pool's figures now, each level's of a pool with levels, each pool's and each
    /// level's books since the opening, and the state's SHA-256. A level the jornada added (a
    /// pool added, or given a level, by an approved change) opens from nothing.
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
        let levels = level_figures(self.state.pools())
            .into_iter()
            .map(|(id, levels)| {
                let opened = self.opening_levels.get(&id);
                let levels = levels
                    .into_iter()
                    .enumerate()
                    .map(|(index, (level, figures))| {
                        let opening = opened.and_then(|levels| levels.get(index)).map_or(&nothing, |(_, figures)| figures);
                        LevelClosing {
                            level,
                            balance: figures.balance,
                            reserve: figures.reserve,
                            reconciliation: Reconciliation::between(opening, &figures),
                            meters: figures.meters,
                        }
                    })
                    .collect();
                (id, levels)
            })
            .collect();
        let tournaments = self.state.tournament_books().into_iter().map(|books| (books.tournament.clone(), books)).collect();
        Closing {
            reconciliation,
            levels,
            tournaments,
            seat_draws: self.seats.revealed().to_vec(),
            snapshot_sha256: snapshot_sha256(&self.state.snapshot()),
            pools,
        }
    }
}
