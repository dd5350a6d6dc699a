//! Cards, decks and shoes, shuffled from a seed: the same seed deals the same night.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// The four suits, in the regulations' words.
pub const SUITS: [&str; 4] = ["corazones", "diamantes", "tréboles", "picas"];

/// A card: rank 2–14 (11 J, 12 Q, 13 K, 14 A) and suit 0–3 (index into [`SUITS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card {
    pub rank: u8,
    pub suit: u8,
}

impl Card {
    pub fn new(rank: u8, suit: u8) -> Card {
        assert!((2..=14).contains(&rank) && suit < 4, "a card of rank 2–14 and suit 0–3");
        Card { rank, suit }
    }

    /// The rank as the server writes it ("2"…"10", "J", "Q", "K", "A").
    pub fn rank_text(self) -> &'static str {
        ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"][usize::from(self.rank - 2)]
    }
}

/// One deck of 52 cards, in order.
pub fn deck() -> Vec<Card> {
    (0..4).flat_map(|suit| (2..=14).map(move |rank| Card::new(rank, suit))).collect()
}

/// The seeded random source of a simulation.
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A shoe of `decks` decks, shuffled by `rng`, dealt from the top.
#[derive(Clone, Debug)]
pub struct Shoe {
    cards: Vec<Card>,
}

impl Shoe {
    pub fn new(decks: usize, rng: &mut ChaCha8Rng) -> Shoe {
        let mut cards: Vec<Card> = (0..decks).flat_map(|_| deck()).collect();
        cards.shuffle(rng);
        Shoe { cards }
    }

    pub fn deal(&mut self) -> Option<Card> {
        self.cards.pop()
    }

    pub fn remaining(&self) -> usize {
        self.cards.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_deals_the_same_cards() {
        let mut first = Shoe::new(6, &mut rng(7));
        let mut second = Shoe::new(6, &mut rng(7));
        let mut third = Shoe::new(6, &mut rng(8));
        let a: Vec<Card> = (0..20).filter_map(|_| first.deal()).collect();
        let b: Vec<Card> = (0..20).filter_map(|_| second.deal()).collect();
        let c: Vec<Card> = (0..20).filter_map(|_| third.deal()).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(first.remaining(), 6 * 52 - 20);
    }
}
