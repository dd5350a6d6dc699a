//! Randomness that can be audited (docs/journal.md, "draw" and "reveal"; docs/readings.md, "The
//! mystery level"): the arithmetic of a mystery level's trigger and of a hot seat, shared by the
//! controller that draws them, the state that checks each reveal, and the offline verifier.
//!
//! At each reset of a mystery level the controller draws a trigger uniformly, to the centavo,
//! in (from, ceiling] and a fresh 32-byte nonce, and journals only their *commitment*:
//! SHA-256 over a domain tag, the draw's public head and the two secrets. At the hit it journals
//! the *reveal* (trigger and nonce); anyone can then recompute the commitment, check the range,
//! and — the hot seat — recompute the seat the nonce picks among the seats listed.

use pozo_engine::money::Money;
use pozo_engine::{PoolId, TableId};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The public part of a draw: what its commitment binds besides the secrets.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawHead {
    pub pool: PoolId,
    /// The mystery level's name.
    pub level: String,
    /// 1 for the level's first draw, one more at each reset.
    pub cycle: u64,
    /// The trigger lies above this: the level's reset in force at the draw.
    pub from: Money,
    /// The trigger lies at or below this: the level's `must_hit_by` in force at the draw.
    pub ceiling: Money,
}

/// A seat of the link: a hot seat's candidate.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SeatAt {
    pub table: TableId,
    pub seat: u32,
}

/// SHA-256("pozo.v1.mystery" 0, pool, level, cycle, from, ceiling, trigger, nonce), each text
/// length-prefixed, each amount as its centavos (i128, big-endian): the commitment journaled
/// at the draw, before the trigger can matter.
pub fn commitment(head: &DrawHead, trigger: Money, nonce: &[u8; 32]) -> [u8; 32] {
    let mut hash = Sha256::new();
    hash.update(b"pozo.v1.mystery\0");
    for text in [head.pool.as_str(), head.level.as_str()] {
        hash.update((text.len() as u64).to_be_bytes());
        hash.update(text.as_bytes());
    }
    hash.update(head.cycle.to_be_bytes());
    for amount in [head.from, head.ceiling, trigger] {
        hash.update(centavos(amount).to_be_bytes());
    }
    hash.update(nonce);
    hash.finalize().into()
}

/// An amount in whole centavos (amounts of a draw are always whole centavos): as the
/// commitment hashes it and the sealed draw holds it.
pub fn centavos(amount: Money) -> i128 {
    let scaled = (amount.decimal() * Decimal::ONE_HUNDRED).trunc();
    scaled.mantissa() / 10_i128.pow(scaled.scale())
}

/// How many centavos (from, ceiling] holds: the trigger's possible values.
pub fn span(from: Money, ceiling: Money) -> u64 {
    u64::try_from(centavos(ceiling) - centavos(from)).unwrap_or(0)
}

pub use crate::random::uniform_below;

/// A trigger uniform, to the centavo, in (from, ceiling]: from + 1 to from + span centavos.
pub fn trigger_from(from: Money, ceiling: Money, next: impl FnMut() -> u64) -> Money {
    let count = span(from, ceiling);
    let cents = uniform_below(count, next) + 1;
    from + Money::new(Decimal::new(cents as i64, 2))
}

/// The candidate a hot seat's nonce picks among `count` (listed in the reveal, in order):
/// uniform, from the words SHA-256("pozo.v1.hot-seat" 0, nonce, counter) (rejection sampling).
pub fn hot_seat_index(nonce: &[u8; 32], count: usize) -> usize {
    let mut counter = 0u64;
    let words = || {
        let mut hash = Sha256::new();
        hash.update(b"pozo.v1.hot-seat\0");
        hash.update(nonce);
        hash.update(counter.to_be_bytes());
        counter += 1;
        let digest: [u8; 32] = hash.finalize().into();
        u64::from_be_bytes(digest[..8].try_into().expect("8 bytes"))
    };
    uniform_below(count as u64, words) as usize
}

/// A nonce as journaled (64 hex digits), read back.
pub fn nonce_of(hex_text: &str) -> Option<[u8; 32]> {
    hex::decode(hex_text).ok()?.try_into().ok()
}

/// A mystery level's cycle as the state keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mystery {
    pub pool: PoolId,
    pub level: String,
    /// The open draw's cycle, or the last one's while a draw is awaited.
    pub cycle: u64,
    /// The draw in force: committed, its trigger not yet reached. `None` until the controller
    /// draws (at once after a reset, in the same batch).
    pub open: Option<OpenDraw>,
    /// The highest the meter stood at the end of any command of the cycle before `last`: the
    /// trigger must lie above it (the hit is at the *first* contribution that reaches it).
    pub peak: Money,
    /// The latest command that fed the level in this cycle.
    pub last: Option<LastFed>,
    /// Hits so far.
    pub hits: u64,
}

/// An open draw: what the journal's `draw` entry committed to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenDraw {
    pub from: Money,
    pub ceiling: Money,
    pub commitment: String,
    /// The sealed trigger and nonce, for the controller's own recovery (never shown).
    pub sealed: String,
    /// The journal sequence of the draw.
    pub drawn_at: u64,
}

/// The latest command that fed a mystery level: the meter before it, after it, and each
/// seat's share in order, so a reveal names the contribution that reached the trigger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastFed {
    pub sequence: u64,
    pub start: Money,
    pub end: Money,
    pub fed: Vec<(SeatAt, Money)>,
}

impl Mystery {
    /// The head of the open draw.
    pub fn head(&self) -> Option<DrawHead> {
        let open = self.open.as_ref()?;
        Some(DrawHead {
            pool: self.pool.clone(),
            level: self.level.clone(),
            cycle: self.cycle,
            from: open.from,
            ceiling: open.ceiling,
        })
    }

    /// The seat whose share took the meter to or past `trigger` in the latest command.
    pub fn crossing(&self, trigger: Money) -> Option<&SeatAt> {
        let last = self.last.as_ref()?;
        let mut meter = last.start;
        for (seat, share) in &last.fed {
            meter += *share;
            if meter >= trigger {
                return Some(seat);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn money(text: &str) -> Money {
        Money::new(text.parse().unwrap())
    }

    fn head() -> DrawHead {
        DrawHead { pool: PoolId::new("p"), level: "Misterioso".into(), cycle: 1, from: money("100.00"), ceiling: money("100.05") }
    }

    #[test]
    fn a_trigger_is_every_centavo_above_from_up_to_the_ceiling_and_nothing_else() {
        let mut seen = std::collections::BTreeSet::new();
        let mut word = 0u64;
        for _ in 0..200 {
            word = word.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let value = word;
            seen.insert(trigger_from(money("100.00"), money("100.05"), || value).to_string());
        }
        let expected: std::collections::BTreeSet<String> =
            ["100.01", "100.02", "100.03", "100.04", "100.05"].iter().map(|text| money(text).to_string()).collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn rejection_sampling_draws_again_in_the_incomplete_block() {
        // count 3: u64::MAX % 3 == 0, so take 5 (u64::MAX % 5 == 0 too): use 7.
        let zone = u64::MAX - (u64::MAX % 7);
        let mut words = [zone, zone + 1, 15].into_iter();
        assert_eq!(uniform_below(7, || words.next().unwrap()), 1);
    }

    #[test]
    fn the_commitment_binds_every_field_and_both_secrets() {
        let nonce = [7u8; 32];
        let base = commitment(&head(), money("100.03"), &nonce);
        assert_ne!(base, commitment(&head(), money("100.04"), &nonce));
        assert_ne!(base, commitment(&head(), money("100.03"), &[8u8; 32]));
        assert_ne!(base, commitment(&DrawHead { cycle: 2, ..head() }, money("100.03"), &nonce));
        assert_ne!(base, commitment(&DrawHead { ceiling: money("100.06"), ..head() }, money("100.03"), &nonce));
        assert_ne!(base, commitment(&DrawHead { level: "Grand".into(), ..head() }, money("100.03"), &nonce));
        assert_eq!(base, commitment(&head(), money("100.030"), &nonce), "the same centavos, however written");
    }

    #[test]
    fn a_hot_seat_index_is_within_the_list_and_depends_on_the_nonce() {
        let picks: std::collections::BTreeSet<usize> = (0..64u8).map(|byte| hot_seat_index(&[byte; 32], 5)).collect();
        assert!(picks.iter().all(|pick| *pick < 5));
        assert_eq!(picks.len(), 5, "64 nonces reach every one of 5 seats");
        assert_eq!(hot_seat_index(&[1; 32], 1), 0);
    }
}
