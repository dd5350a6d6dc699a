//! Where the controller's randomness comes from: the instant-prize card of Central Póker
//! (15.11.2), drawn outside the deterministic state machine and carried in the journal
//! entry, so replay needs no randomness. The operating system's CSPRNG in `serve`; a
//! seeded function for the simulator, so a simulated night replays to the same books.

use pozo_core::state::Card;
use rust_decimal::Decimal;
use sha2::{Digest, Sha256};

/// The operating system gave no randomness: the command is refused, nothing journaled.
#[derive(Debug, thiserror::Error)]
#[error("no randomness for the instant prize: {0}")]
pub struct NoRandomness(String);

/// Where the instant-prize cards come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CardSource {
    /// The operating system's CSPRNG (15.11.2: "en forma aleatoria"). `pozo-server serve` has only this.
    #[default]
    Os,
    /// A function of (seed, table, sequence): a simulated night replays to the same
    /// books. Only the simulator's embedded server uses it; the binary has no flag for it.
    Seeded(u64),
}

impl CardSource {
    /// Whether a premio instantáneo card appears at this INICIAR JUEGO, with the
    /// rulebook's chance, and which (15.11.2: "en forma aleatoria y sorpresiva").
    pub fn draw(self, table_id: &str, sequence: u64, chance: Decimal) -> Result<Option<Card>, NoRandomness> {
        let (roll, card) = match self {
            CardSource::Os => {
                let mut bytes = [0u8; 4];
                getrandom::fill(&mut bytes).map_err(|error| NoRandomness(error.to_string()))?;
                (u32::from_be_bytes(bytes), draw_card()?)
            }
            CardSource::Seeded(seed) => {
                let digest = |counter: u64| {
                    let mut hasher = Sha256::new();
                    hasher.update(seed.to_be_bytes());
                    hasher.update(table_id.as_bytes());
                    hasher.update(sequence.to_be_bytes());
                    hasher.update(counter.to_be_bytes());
                    hasher.finalize()
                };
                let roll = u32::from_be_bytes(digest(u64::MAX)[..4].try_into().expect("4 bytes"));
                let mut counter = 0u64;
                let card = loop {
                    if let Some(byte) = digest(counter).iter().find(|byte| **byte < 208) {
                        break Card::from_index(byte % 52);
                    }
                    counter += 1;
                };
                (roll, card)
            }
        };
        // roll / 2^32 < chance, exactly.
        let appears = Decimal::from(roll) < chance * Decimal::from(1_u64 << 32);
        Ok(appears.then_some(card))
    }
}

/// A card from the operating system's CSPRNG (15.11.2: "en forma aleatoria").
fn draw_card() -> Result<Card, NoRandomness> {
    loop {
        let mut byte = [0u8; 1];
        getrandom::fill(&mut byte).map_err(|error| NoRandomness(error.to_string()))?;
        // Rejection sampling: 0–207 maps evenly onto 52 cards.
        if byte[0] < 208 {
            return Ok(Card::from_index(byte[0] % 52));
        }
    }
}
