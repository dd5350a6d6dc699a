//! The controller's side of the mystery level (docs/journal.md, "draw" and "reveal";
//! docs/security.md, "Who can learn a trigger"): drawing each trigger from the CSPRNG at a
//! reset, sealing it under a key derived from the journal key, keeping it in memory only, and
//! journaling the reveal the moment a contribution reaches it.
//!
//! The state never holds a trigger: it checks each reveal against the journaled commitment
//! (`pozo_core::state::draw`). Recovery, a restore and a standby's takeover unseal the open
//! draws from the journal with the journal key — the same trigger stands; a draw that cannot be
//! unsealed holds its pool (its tables' commands refused) rather than draw again.

use std::collections::BTreeMap;

use pozo_core::state::draw::{self, DrawHead};
use pozo_core::state::{
    Command, DrawCommand, Refusal, RefusalKind, RevealCommand, SeatCommitCommand, State, TournamentCommand, TournamentOp,
};
use pozo_core::tournament::seats::{self, SeatDrawHead, SeatDrawReason};
use pozo_engine::PoolId;
use pozo_engine::money::Money;
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, Nonce, UnboundKey};
use rust_decimal::Decimal;
use sha2::{Digest, Sha256};

use crate::cards::CardSource;
use crate::journal::Sealer;

/// A drawn trigger and its nonce: in the writer's memory only (never logged, never shown).
struct Secret {
    trigger: Money,
    nonce: [u8; 32],
}

/// The open draws' secrets and the pools held for want of one.
pub(super) struct Draws {
    key: LessSafeKey,
    source: CardSource,
    /// By pool, level and cycle.
    secrets: BTreeMap<(PoolId, String, u64), Secret>,
    /// Pools whose open draw this controller could not unseal, with why.
    held: BTreeMap<PoolId, String>,
    /// Tournaments whose seat commitment could not be drawn or was refused, with why.
    held_seats: BTreeMap<String, String>,
}

impl std::fmt::Debug for Draws {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Draws").field("open", &self.secrets.len()).field("held", &self.held).finish_non_exhaustive()
    }
}

impl Draws {
    pub(super) fn new(sealer: &Sealer, source: CardSource) -> Draws {
        let key = UnboundKey::new(&CHACHA20_POLY1305, &sealer.draw_key()).expect("a 32-byte key");
        Draws { key: LessSafeKey::new(key), source, secrets: BTreeMap::new(), held: BTreeMap::new(), held_seats: BTreeMap::new() }
    }

    /// Unseals every open draw of `state` (at a start, a restore, a takeover). One that does not
    /// unseal, or does not open its own commitment, holds its pool: never drawn again.
    pub(super) fn recover(&mut self, state: &State) {
        self.secrets.clear();
        self.held.clear();
        self.held_seats.clear();
        for cycle in state.mysteries() {
            let (Some(head), Some(open)) = (cycle.head(), cycle.open.as_ref()) else { continue };
            let mut unsealed = self.unseal(&head, &open.commitment, &open.sealed);
            // Planted (`planted-bugs` builds only): the sealed value ignored, drawn again (a
            // seeded source's words for another cycle, so that a seeded run redraws too).
            if unsealed.is_some() && pozo_core::planted::on(pozo_core::planted::Bug::RedrawOnRestart) {
                unsealed = self.draw(&DrawHead { cycle: head.cycle | 1 << 63, ..head.clone() }).ok();
            }
            match unsealed {
                Some(secret) => {
                    self.secrets.insert((head.pool.clone(), head.level.clone(), head.cycle), secret);
                }
                None => {
                    tracing::error!(
                        pool = %head.pool,
                        level = %head.level,
                        cycle = head.cycle,
                        entry = open.drawn_at,
                        "the committed draw of a mystery level cannot be unsealed with this journal key: the pool is held, \
                         never drawn again (docs/security.md)"
                    );
                    self.held.insert(
                        head.pool.clone(),
                        format!(
                            "the draw of entry {} (level {}) cannot be recovered with this journal key",
                            open.drawn_at, head.level
                        ),
                    );
                }
            }
        }
    }

    /// The refusal of a table command at a held pool's table.
    pub(super) fn refusal(&self, state: &State, command: &Command) -> Option<Refusal> {
        // Nothing held (every night but a broken one): no table's configuration looked up per command.
        if self.held.is_empty() {
            return None;
        }
        let Command::Table(table) = command else { return None };
        let pool = &state.config().table(&table.table_id)?.pool;
        let why = self.held.get(pool)?;
        Some(
            Refusal::new(
                RefusalKind::FailedPrecondition,
                format!("pool `{pool}` is held: {why}; it serves again once the key that sealed it is given (docs/security.md)"),
            )
            .castellano(format!(
                "Pozo {pool} SUSPENDIDO: el sorteo comprometido de su nivel misterioso no se puede recuperar; no se sortea de nuevo. Avise al jefe de sala."
            )),
        )
    }

    /// The next command the controller journals of its own, if any: a reveal for an open draw
    /// whose trigger the meter reached (first), else a draw for a level awaiting one.
    pub(super) fn next(&mut self, state: &State) -> Option<Command> {
        for cycle in state.mysteries() {
            let Some(head) = cycle.head() else { continue };
            let key = (head.pool.clone(), head.level.clone(), head.cycle);
            let Some(secret) = self.secrets.get(&key) else { continue };
            let meter = state.level_meter(&head.pool, &head.level).unwrap_or_default();
            let Some(last) = cycle.last.as_ref().filter(|_| meter >= secret.trigger) else { continue };
            let hot_seat =
                state.pool(&head.pool).rules().levels.iter().any(|level| level.name == head.level && level.hot_seat.is_some());
            let eligible = if hot_seat { state.hot_seat_candidates(&head.pool) } else { Vec::new() };
            let reveal = RevealCommand {
                pool: head.pool.clone(),
                level: head.level.clone(),
                cycle: head.cycle,
                trigger: secret.trigger,
                nonce: hex::encode(secret.nonce),
                after: last.sequence,
                eligible,
            };
            self.secrets.remove(&key);
            return Some(Command::Reveal(reveal));
        }
        if let Some(command) = self.seat_commit(state) {
            return Some(command);
        }
        let head = state.draws_due().into_iter().find(|head| !self.held.contains_key(&head.pool))?;
        let secret = match self.draw(&head) {
            Ok(secret) => secret,
            Err(error) => {
                tracing::error!(pool = %head.pool, level = %head.level, %error, "no randomness for a mystery draw: the pool is held");
                self.held.insert(head.pool.clone(), format!("no randomness to draw level {}: {error}", head.level));
                return None;
            }
        };
        let commitment = draw::commitment(&head, secret.trigger, &secret.nonce);
        let sealed = self.seal(&commitment, &secret);
        self.secrets.insert((head.pool.clone(), head.level.clone(), head.cycle), secret);
        Some(Command::Draw(DrawCommand { head, commitment: hex::encode(commitment), sealed: hex::encode(sealed) }))
    }

    /// A tournament's next seat draw committed to (Res. 123/2013 art. 11, 15, 88; Anexo IV 8.1):
    /// a fresh nonce from the CSPRNG, sealed in the journal like a mystery trigger. Nothing is
    /// kept in memory: the draw that reveals it unseals it from the state ([`Draws::fill_seats`]).
    fn seat_commit(&mut self, state: &State) -> Option<Command> {
        // Allocates only when a commitment is due (after a setup or a draw), not per command.
        let (tournament, draw) = state
            .seat_commits_due()
            .find(|(tournament, _)| !self.held_seats.contains_key(*tournament))
            .map(|(tournament, draw)| (tournament.to_owned(), draw))?;
        let mut random = Random { source: self.source, label: format!("seats\0{tournament}\0{draw}").into_bytes(), counter: 0 };
        let mut nonce = [0u8; 32];
        if let Err(error) = random.fill(&mut nonce) {
            tracing::error!(%tournament, %error, "no randomness for a seat draw: its seats are not drawn");
            self.held_seats.insert(tournament, format!("no randomness for seat draw {draw}: {error}"));
            return None;
        }
        // The reason is the reveal's to say (`seats::SeatDrawHead`): the commitment binds the
        // tournament, the draw's number and the nonce.
        let head = SeatDrawHead { tournament: tournament.clone(), draw, reason: SeatDrawReason::Inicio };
        let commitment = seats::commitment(&head, &nonce);
        let mut sealed = nonce.to_vec();
        let seal_nonce = Nonce::assume_unique_for_key(commitment[..12].try_into().expect("12 bytes"));
        self.key.seal_in_place_append_tag(seal_nonce, Aad::from(commitment), &mut sealed).expect("sealing 32 bytes");
        Some(Command::SeatCommit(SeatCommitCommand {
            tournament,
            draw,
            commitment: hex::encode(commitment),
            sealed: hex::encode(sealed),
        }))
    }

    /// A director's seat draw, its nonce filled in from the commitment journaled before; a
    /// refusal when it cannot be unsealed (the draw is never made with another nonce).
    pub(super) fn fill_seats(&self, state: &State, command: &mut Command) -> Result<(), Refusal> {
        let Command::Tournament(TournamentCommand { op: TournamentOp::DrawSeats { tournament, nonce, .. }, .. }) = command else {
            return Ok(());
        };
        // Whatever a caller put there is not the controller's nonce.
        nonce.clear();
        let Some(open) = state.tournaments().get(tournament.as_str()).and_then(|t| t.seat_commitment.as_ref()) else {
            return Ok(()); // the state says why there is nothing to open
        };
        let opened = draw::nonce_of(&open.commitment).and_then(|commitment| {
            let mut sealed = hex::decode(&open.sealed).ok()?;
            let seal_nonce = Nonce::assume_unique_for_key(commitment[..12].try_into().ok()?);
            let plain = self.key.open_in_place(seal_nonce, Aad::from(commitment), &mut sealed).ok()?;
            <[u8; 32]>::try_from(&plain[..]).ok()
        });
        match opened {
            Some(opened) => {
                *nonce = hex::encode(opened);
                Ok(())
            }
            None => {
                tracing::error!(%tournament, draw = open.draw, "a seat draw's committed nonce cannot be unsealed with this journal key");
                Err(Refusal::new(
                    RefusalKind::FailedPrecondition,
                    format!(
                        "tournament `{tournament}`: seat draw {}'s committed nonce cannot be unsealed with this journal key; it is never drawn with another (docs/security.md)",
                        open.draw
                    ),
                )
                .castellano("El sorteo comprometido de ubicaciones no se puede recuperar con esta clave: no se sortea de nuevo. Avise al jefe de sala."))
            }
        }
    }

    /// An internal command the state refused: a defect. The pool is held rather than looped on.
    pub(super) fn refused(&mut self, command: &Command, refusal: &Refusal) {
        if let Command::SeatCommit(commit) = command {
            tracing::error!(tournament = %commit.tournament, %refusal, "the state refused the controller's own seat commitment");
            self.held_seats
                .insert(commit.tournament.clone(), format!("the controller's own seat commitment was refused: {refusal}"));
            return;
        }
        let pool = match command {
            Command::Draw(draw) => draw.head.pool.clone(),
            Command::Reveal(reveal) => reveal.pool.clone(),
            _ => return,
        };
        tracing::error!(%pool, %refusal, "the state refused the controller's own draw or reveal: the pool is held");
        self.held.insert(pool, format!("the controller's own {} was refused: {refusal}", command.kind()));
    }

    /// A trigger uniform to the centavo in (from, ceiling] and a fresh nonce.
    fn draw(&self, head: &DrawHead) -> Result<Secret, String> {
        let mut random = Random::new(self.source, head);
        let mut failed = None;
        let trigger = draw::trigger_from(head.from, head.ceiling, || {
            random.word().unwrap_or_else(|error| {
                failed = Some(error);
                0
            })
        });
        let mut nonce = [0u8; 32];
        random.fill(&mut nonce)?;
        match failed {
            Some(error) => Err(error),
            None => Ok(Secret { trigger, nonce }),
        }
    }

    fn seal(&self, commitment: &[u8; 32], secret: &Secret) -> Vec<u8> {
        let mut plain = Vec::with_capacity(48 + 16);
        plain.extend_from_slice(&draw::centavos(secret.trigger).to_be_bytes());
        plain.extend_from_slice(&secret.nonce);
        let nonce = Nonce::assume_unique_for_key(commitment[..12].try_into().expect("12 bytes"));
        self.key.seal_in_place_append_tag(nonce, Aad::from(commitment), &mut plain).expect("sealing 48 bytes");
        plain
    }

    fn unseal(&self, head: &DrawHead, commitment_hex: &str, sealed_hex: &str) -> Option<Secret> {
        let commitment: [u8; 32] = draw::nonce_of(commitment_hex)?;
        let mut sealed = hex::decode(sealed_hex).ok()?;
        let nonce = Nonce::assume_unique_for_key(commitment[..12].try_into().ok()?);
        let plain = self.key.open_in_place(nonce, Aad::from(commitment), &mut sealed).ok()?;
        let (trigger, nonce) = plain.split_at_checked(16)?;
        let trigger = Money::new(Decimal::from_i128_with_scale(i128::from_be_bytes(trigger.try_into().ok()?), 2));
        let secret = Secret { trigger, nonce: nonce.try_into().ok()? };
        // What was sealed is what was committed to: else it is not this draw's.
        (draw::commitment(head, secret.trigger, &secret.nonce) == commitment).then_some(secret)
    }
}

/// Where a draw's words come from: the operating system's CSPRNG in `serve`; in the
/// simulator's embedded server, SHA-256 of its seed and the draw's head, so a night replays.
struct Random {
    source: CardSource,
    label: Vec<u8>,
    counter: u64,
}

impl Random {
    fn new(source: CardSource, head: &DrawHead) -> Random {
        let label = format!("{}\0{}\0{}", head.pool, head.level, head.cycle).into_bytes();
        Random { source, label, counter: 0 }
    }

    fn fill(&mut self, bytes: &mut [u8]) -> Result<(), String> {
        match self.source {
            CardSource::Os => getrandom::fill(bytes).map_err(|error| error.to_string()),
            CardSource::Seeded(seed) => {
                for chunk in bytes.chunks_mut(32) {
                    let mut hash = Sha256::new();
                    hash.update(b"pozo.sim.draw\0");
                    hash.update(seed.to_be_bytes());
                    hash.update(&self.label);
                    hash.update(self.counter.to_be_bytes());
                    self.counter += 1;
                    let digest = hash.finalize();
                    chunk.copy_from_slice(&digest[..chunk.len()]);
                }
                Ok(())
            }
        }
    }

    fn word(&mut self) -> Result<u64, String> {
        let mut bytes = [0u8; 8];
        self.fill(&mut bytes)?;
        Ok(u64::from_be_bytes(bytes))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use pozo_core::config::{Config, JournalKey};
    use pozo_core::state::{Context, TableCommand, TableOp};

    use super::*;
    use crate::journal::Identity;

    fn sealer(key: &[u8]) -> Sealer {
        let identity = Identity { installation: "00112233445566778899aabbccddeeff".into(), epoch: 1 };
        Sealer::new(&JournalKey(key.to_vec()), &identity).expect("a sealer")
    }

    /// The market's cross-game link with its mystery level (config/mercado.toml).
    fn link() -> Arc<Config> {
        let texts = [
            ("config/examples/mercado-enlace.toml", include_str!("../../../config/examples/mercado-enlace.toml")),
            ("config/iplyc.toml", include_str!("../../../config/iplyc.toml")),
            ("config/mercado.toml", include_str!("../../../config/mercado.toml")),
        ];
        let texts = texts.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())).collect();
        Arc::new(Config::from_texts(texts).expect("the market's example"))
    }

    /// A state whose mystery level has the draw `draws` journaled (entry 1).
    fn drawn(draws: &mut Draws) -> State {
        let mut state = State::new(link());
        let Some(Command::Draw(draw)) = draws.next(&state) else { panic!("a draw is due at the start") };
        state.apply(&Command::Draw(draw), Context { sequence: 1, time_ms: 1 }).expect("the draw applies");
        state
    }

    #[test]
    fn a_draw_sealed_under_the_journal_key_is_recovered_and_nothing_is_drawn_again() {
        let mut writer = Draws::new(&sealer(b"the journal key"), CardSource::Seeded(7));
        let state = drawn(&mut writer);
        let mut restarted = Draws::new(&sealer(b"the journal key"), CardSource::Seeded(8));
        restarted.recover(&state);
        assert!(restarted.held.is_empty());
        let key = state.mysteries().iter().map(|cycle| (cycle.pool.clone(), cycle.level.clone(), cycle.cycle)).next().unwrap();
        assert_eq!(restarted.secrets[&key].trigger, writer.secrets[&key].trigger, "the same trigger stands");
        assert!(restarted.next(&state).is_none(), "no second draw of the cycle, and no reveal before the meter reaches it");
    }

    #[test]
    fn a_draw_that_cannot_be_unsealed_holds_its_pool_and_is_never_drawn_again() {
        let mut writer = Draws::new(&sealer(b"the journal key"), CardSource::Os);
        let state = drawn(&mut writer);
        let mut other = Draws::new(&sealer(b"another key"), CardSource::Os);
        other.recover(&state);
        assert!(other.held.contains_key("mercado-gran-sala"), "{other:?}");
        assert!(other.next(&state).is_none(), "nothing is drawn for a held pool");
        let press = Command::Table(TableCommand {
            table_id: "B1".into(),
            sequence: 1,
            payload_sha256: String::new(),
            op: TableOp::OpenTable,
            card: None,
            inspector: None,
        });
        let refusal = other.refusal(&state, &press).expect("a table of the held pool is refused");
        assert_eq!(refusal.kind, RefusalKind::FailedPrecondition);
        assert!(refusal.for_people().contains("SUSPENDIDO"), "{}", refusal.for_people());
        let roulette = Command::Table(TableCommand {
            table_id: "R1".into(),
            ..match press {
                Command::Table(table) => table,
                _ => unreachable!(),
            }
        });
        assert!(other.refusal(&state, &roulette).is_some(), "R1 feeds the same link");
    }

    #[test]
    fn a_sealed_draw_read_under_its_own_key_must_open_its_commitment() {
        let draws = Draws::new(&sealer(b"the journal key"), CardSource::Seeded(1));
        let head =
            DrawHead { pool: "p".into(), level: "M".into(), cycle: 1, from: Money::ZERO, ceiling: Money::new(Decimal::ONE) };
        let secret = draws.draw(&head).expect("a draw");
        let commitment = draw::commitment(&head, secret.trigger, &secret.nonce);
        let sealed = hex::encode(draws.seal(&commitment, &secret));
        let opened = draws.unseal(&head, &hex::encode(commitment), &sealed).expect("opens");
        assert_eq!((opened.trigger, opened.nonce), (secret.trigger, secret.nonce));
        // The same sealed value under another cycle's head: not this draw's.
        assert!(draws.unseal(&DrawHead { cycle: 2, ..head.clone() }, &hex::encode(commitment), &sealed).is_none());
        let mut flipped = hex::decode(&sealed).unwrap();
        flipped[0] ^= 1;
        assert!(draws.unseal(&head, &hex::encode(commitment), &hex::encode(flipped)).is_none());
    }
}
