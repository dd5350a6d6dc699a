//! The mystery level's draws checked on their own (docs/journal.md, "draw" and "reveal";
//! docs/readings.md, "The mystery level"): what `pozo-server verify`, `pozo-server evidence` and
//! `pozo-verifier` run beside the replay of every entry, offline and without the casino's keys.
//!
//! The pure core already refuses a bad draw or reveal when it replays one
//! (`pozo_core::state::cmd::mystery`); this audit checks each rule itself, *before* the entry is
//! applied, so that the verdict names the entry and the rule in the inspector's words, and adds
//! the two rules that only the journal's order shows:
//! - a reveal follows at once the command whose contribution reached its trigger: between the
//!   two there is nothing but other reveals (docs/journal.md, "reveal");
//! - a level whose meter reached its ceiling has reached its trigger (the trigger is at most the
//!   ceiling): the next entry must be a reveal. A reveal deleted from the journal, and the hit
//!   with it, is found here when the meter passes the ceiling, at the next draw (the cycle is
//!   still open: a second draw is refused) or at the next reveal (the meter stood at the trigger
//!   before: the hit came late).

use std::collections::BTreeMap;

use pozo_core::state::draw::{self, DrawHead, Mystery, SeatAt};
use pozo_core::state::{Command, State};
use pozo_engine::{Money, format_ars};
use serde::Serialize;

/// A mystery level's hit as its reveal proves it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Hit {
    /// The reveal's entry.
    pub entry: u64,
    pub pool: String,
    pub level: String,
    pub cycle: u64,
    pub trigger: Money,
    /// The entry whose contribution reached the trigger.
    pub after: u64,
    /// The seat whose share reached it: the level's winner.
    pub winner: SeatAt,
    /// The hot seat the nonce picks among the candidates listed (none for a level without one,
    /// or when no seat had a bet in force).
    pub hot_seat: Option<SeatAt>,
}

/// The draws seen so far and what the rules need of the entries before.
#[derive(Clone, Debug, Default)]
pub struct Draws {
    /// Draws (commitments) seen.
    pub committed: u64,
    /// Reveals seen, each checked.
    pub revealed: u64,
    /// Every hit, in the journal's order.
    pub hits: Vec<Hit>,
    /// The latest entry that was not a reveal (`None` before the first one seen): a reveal
    /// follows the contribution that reached its trigger with nothing but reveals between.
    last_other: Option<u64>,
    /// Of each open cycle (pool, level): every command that fed it, and the meter after it.
    fed: BTreeMap<(String, String), Vec<(u64, Money)>>,
    /// Of each cycle revealed here (pool, level, cycle): its reveal's entry.
    revealed_at: BTreeMap<(String, String, u64), u64>,
}

/// `$ 20.057,31`.
fn ars(amount: Money) -> String {
    format_ars(amount)
}

fn seat(at: &SeatAt) -> String {
    format!("{} asiento {}", at.table, at.seat)
}

impl Draws {
    pub fn new() -> Draws {
        Draws::default()
    }

    /// Checks entry `sequence` (its `command`) against the draws, on the `state` before it is
    /// applied: `Err` says which rule it breaks, in Spanish.
    pub fn before(&self, state: &State, sequence: u64, command: &Command) -> Result<(), String> {
        // A meter at its ceiling has reached its trigger: only its reveal may follow (or another
        // level's, when one command reached both).
        let revealing = |cycle: &Mystery| match command {
            Command::Reveal(reveal) => reveal.pool != cycle.pool || reveal.level != cycle.level || reveal.cycle == cycle.cycle,
            _ => false,
        };
        if let Some((cycle, last)) = state.mysteries().iter().find_map(|cycle| {
            let open = cycle.open.as_ref()?;
            let last = cycle.last.as_ref()?;
            (last.sequence < sequence && last.end >= open.ceiling && !revealing(cycle)).then_some((cycle, last))
        }) {
            let ceiling = cycle.open.as_ref().map_or(Money::ZERO, |open| open.ceiling);
            return Err(format!(
                "falta la revelación: el asiento {} llevó el nivel {} del pozo {} a {}, a su techo de {} (ciclo {}), y el \
                 disparador no lo supera: un acierto sin revelar (la revelación sigue de inmediato al aporte que lo alcanza)",
                crate::entries(last.sequence),
                cycle.level,
                cycle.pool,
                ars(last.end),
                ars(ceiling),
                cycle.cycle
            ));
        }
        match command {
            Command::Draw(command) => self.check_draw(state, &command.head, &command.commitment),
            Command::Reveal(reveal) => self.check_reveal(state, sequence, reveal),
            _ => Ok(()),
        }
    }

    fn check_draw(&self, state: &State, head: &DrawHead, commitment: &str) -> Result<(), String> {
        let what = format!("sorteo del ciclo {} del nivel {} del pozo {}", head.cycle, head.level, head.pool);
        if let Some(cycle) = find(state, head.pool.as_str(), &head.level)
            && let Some(open) = &cycle.open
        {
            return Err(format!(
                "{what}: el ciclo {} ya tiene su compromiso en el asiento {} y no se reveló: o falta su revelación, o es un \
                 segundo sorteo (un valor comprometido no se sortea de nuevo)",
                cycle.cycle,
                crate::entries(open.drawn_at)
            ));
        }
        match state.draws_due().into_iter().find(|due| due.pool == head.pool && due.level == head.level) {
            None => {
                return Err(format!("{what}: ese nivel no es un nivel misterioso que espere un sorteo"));
            }
            Some(due) if due != *head => {
                return Err(format!(
                    "{what}: no es el sorteo que corresponde (ciclo {}, de {} a {}): dice ciclo {}, de {} a {}",
                    due.cycle,
                    ars(due.from),
                    ars(due.ceiling),
                    head.cycle,
                    ars(head.from),
                    ars(head.ceiling)
                ));
            }
            Some(_) => {}
        }
        if draw::nonce_of(commitment).is_none() {
            return Err(format!("{what}: el compromiso no son 64 dígitos hexadecimales"));
        }
        Ok(())
    }

    fn check_reveal(&self, state: &State, sequence: u64, reveal: &pozo_core::state::RevealCommand) -> Result<(), String> {
        let what = format!("revelación del ciclo {} del nivel {} del pozo {}", reveal.cycle, reveal.level, reveal.pool);
        if let Some(at) = self.revealed_at.get(&(reveal.pool.to_string(), reveal.level.clone(), reveal.cycle)) {
            return Err(format!("{what}: ese ciclo ya se reveló en el asiento {}", crate::entries(*at)));
        }
        let Some(cycle) = find(state, reveal.pool.as_str(), &reveal.level).filter(|cycle| cycle.cycle == reveal.cycle) else {
            return Err(match find(state, reveal.pool.as_str(), &reveal.level) {
                Some(cycle) if cycle.cycle < reveal.cycle && cycle.open.is_some() => format!(
                    "{what}: no hay sorteo de ese ciclo: el ciclo {}, comprometido en el asiento {}, sigue sin revelar: falta \
                     su revelación",
                    cycle.cycle,
                    crate::entries(cycle.open.as_ref().map_or(0, |open| open.drawn_at))
                ),
                _ => format!("{what}: no hay sorteo de ese ciclo que revelar"),
            });
        };
        let (Some(head), Some(open)) = (cycle.head(), cycle.open.as_ref()) else {
            return Err(format!("{what}: ese ciclo ya se reveló"));
        };
        let trigger = reveal.trigger;
        let Some(nonce) = draw::nonce_of(&reveal.nonce) else {
            return Err(format!("{what}: el nonce no son 64 dígitos hexadecimales"));
        };
        if hex::encode(draw::commitment(&head, trigger, &nonce)) != open.commitment {
            return Err(format!(
                "{what}: el disparador {} y su nonce no abren el compromiso del asiento {}: la revelación no es lo que se \
                 comprometió",
                ars(trigger),
                crate::entries(open.drawn_at)
            ));
        }
        if trigger <= head.from || trigger > head.ceiling {
            return Err(format!(
                "{what}: el disparador {} está fuera de ({}, {}], el rango que sorteó el asiento {}",
                ars(trigger),
                ars(head.from),
                ars(head.ceiling),
                crate::entries(open.drawn_at)
            ));
        }
        if reveal.after >= sequence {
            return Err(format!("{what}: nombra el asiento {}, que no es anterior a ella", crate::entries(reveal.after)));
        }
        // The first contribution that reached the trigger: none before `after` did.
        let key = (reveal.pool.to_string(), reveal.level.clone());
        let earlier = self.fed.get(&key).and_then(|fed| fed.iter().find(|(at, end)| *at < reveal.after && *end >= trigger));
        if let Some((at, end)) = earlier {
            return Err(format!(
                "{what}: el acierto llegó tarde: el asiento {} ya había llevado el nivel a {}, al disparador {} o más, antes \
                 del asiento {} que la revelación nombra",
                crate::entries(*at),
                ars(*end),
                ars(trigger),
                crate::entries(reveal.after)
            ));
        }
        let Some(last) = cycle.last.as_ref() else {
            return Err(format!("{what}: ningún asiento aportó al nivel desde su sorteo: nada alcanzó el disparador"));
        };
        if last.sequence > reveal.after {
            return Err(format!(
                "{what}: no sigue de inmediato al asiento {} que nombra: después de él aportó al nivel el asiento {}",
                crate::entries(reveal.after),
                crate::entries(last.sequence)
            ));
        }
        if cycle.peak >= trigger {
            return Err(format!(
                "{what}: el acierto llegó tarde: el nivel ya estaba en {} antes del asiento {}, al disparador {} o más",
                ars(cycle.peak),
                crate::entries(reveal.after),
                ars(trigger)
            ));
        }
        if last.sequence < reveal.after {
            return Err(format!(
                "{what}: el asiento {} que nombra no aportó al nivel (el último que aportó es el {})",
                crate::entries(reveal.after),
                crate::entries(last.sequence)
            ));
        }
        if last.end < trigger {
            return Err(format!(
                "{what}: el acierto se adelantó: el asiento {} llevó el nivel a {}, debajo del disparador {}",
                crate::entries(reveal.after),
                ars(last.end),
                ars(trigger)
            ));
        }
        // At once: nothing but reveals between the contribution and its reveal.
        if let Some(other) = self.last_other
            && other != reveal.after
        {
            return Err(format!(
                "{what}: no sigue de inmediato al asiento {} que alcanzó el disparador: antes de ella está el asiento {}",
                crate::entries(reveal.after),
                crate::entries(other)
            ));
        }
        // The hot seat: drawn among exactly the seats with a bet in force, as the nonce picks.
        let Some(pool) = state.pools().find(|pool| pool.rules().id == reveal.pool) else {
            return Err(format!("{what}: no hay tal pozo"));
        };
        let has_hot_seat = pool.rules().levels.iter().any(|level| level.name == reveal.level && level.hot_seat.is_some());
        let candidates = if has_hot_seat { state.hot_seat_candidates(&reveal.pool) } else { Vec::new() };
        if reveal.eligible != candidates {
            let listed = reveal.eligible.iter().map(seat).collect::<Vec<_>>().join(", ");
            let in_force = candidates.iter().map(seat).collect::<Vec<_>>().join(", ");
            return Err(format!(
                "{what}: los candidatos al asiento caliente que lista ({}) no son los asientos con apuesta en vigor ({}): \
                 el asiento caliente no se sorteó entre ellos",
                if listed.is_empty() { "ninguno".to_owned() } else { listed },
                if in_force.is_empty() { "ninguno".to_owned() } else { in_force }
            ));
        }
        Ok(())
    }

    /// Notes entry `sequence`, applied: `before` is the mystery cycles before it (the winner of
    /// a reveal is told by the contributions before it), `state` the state after it.
    pub fn after(&mut self, before: Option<&[Mystery]>, state: &State, sequence: u64, command: &Command) {
        match command {
            Command::Draw(draw) => {
                self.committed += 1;
                self.fed.insert((draw.head.pool.to_string(), draw.head.level.clone()), Vec::new());
                self.last_other = Some(sequence);
            }
            Command::Reveal(reveal) => {
                self.revealed += 1;
                self.revealed_at.insert((reveal.pool.to_string(), reveal.level.clone(), reveal.cycle), sequence);
                self.fed.remove(&(reveal.pool.to_string(), reveal.level.clone()));
                let cycle = before
                    .and_then(|cycles| cycles.iter().find(|cycle| cycle.pool == reveal.pool && cycle.level == reveal.level));
                let winner = cycle.and_then(|cycle| cycle.crossing(reveal.trigger)).cloned();
                let hot_seat = draw::nonce_of(&reveal.nonce)
                    .filter(|_| !reveal.eligible.is_empty())
                    .map(|nonce| reveal.eligible[draw::hot_seat_index(&nonce, reveal.eligible.len())].clone());
                if let Some(winner) = winner {
                    self.hits.push(Hit {
                        entry: sequence,
                        pool: reveal.pool.to_string(),
                        level: reveal.level.clone(),
                        cycle: reveal.cycle,
                        trigger: reveal.trigger,
                        after: reveal.after,
                        winner,
                        hot_seat,
                    });
                }
            }
            _ => self.last_other = Some(sequence),
        }
        for cycle in state.mysteries() {
            if let Some(last) = cycle.last.as_ref().filter(|last| last.sequence == sequence && cycle.open.is_some()) {
                self.fed.entry((cycle.pool.to_string(), cycle.level.clone())).or_default().push((sequence, last.end));
            }
        }
    }

    /// Whether the audit needs the cycles as they stood before `command` ([`Draws::after`]).
    pub fn wants_before(command: &Command) -> bool {
        matches!(command, Command::Reveal(_))
    }

    /// What was checked, as the tools write it: `3 compromisos, 2 revelados, todos conformes`.
    pub fn summary(&self) -> String {
        summary(self.committed, self.revealed)
    }
}

/// `3 compromisos, 2 revelados, todos conformes`: the draws a tool checked, all conforming.
pub fn summary(committed: u64, revealed: u64) -> String {
    format!(
        "{}, {}, todos conformes",
        crate::plural(committed, "compromiso", "compromisos"),
        crate::plural(revealed, "revelado", "revelados")
    )
}

fn find<'a>(state: &'a State, pool: &str, level: &str) -> Option<&'a Mystery> {
    state.mysteries().iter().find(|cycle| cycle.pool.as_str() == pool && cycle.level == level)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_summary_counts_in_spanish() {
        assert_eq!(super::summary(1, 0), "1 compromiso, 0 revelados, todos conformes");
        assert_eq!(super::summary(1_203, 1), "1.203 compromisos, 1 revelado, todos conformes");
    }
}
