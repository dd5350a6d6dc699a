//! The dealers: each table's cards or wheel from its seed, the seats' credits and grillos.

use super::*;

// ----------------------------------------------------------------------------- the dealers

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Metal {
    Bronze,
    Silver,
    Gold,
}

/// One table's dealer: the cards or the wheel, and the seats' credits and grillos.
pub(super) struct Dealer {
    pub(super) table: String,
    pub(super) game: Game,
    pub(super) pool: String,
    pub(super) seats: u32,
    pub(super) rng: ChaCha8Rng,
    pub(super) credits: Vec<u32>,
    /// Roulette: each seat's grillos of the next ball, on their plenos (3.1.3).
    pub(super) grillos: Vec<Option<(Metal, Vec<u8>)>>,
    pub(super) shoe: Option<blackjack::Table>,
    /// The seats whose press was acknowledged this round.
    pub(super) betting: Vec<u32>,
    /// Central Póker: the instant-prize card on the monitor (15.11.2).
    pub(super) instant_card: Option<Card>,
    /// Phase 3 plays this table's whole ball: it holds a gold (4.3.5).
    pub(super) gold_round: bool,
    /// The codes the table's pool pays at its game: a hand marks the highest of them it is.
    pub(super) marks: crate::marks::Marks,
}

pub(super) fn table_seed(seed: u64, table: &str) -> u64 {
    let digest = Sha256::new().chain_update(seed.to_be_bytes()).chain_update(table.as_bytes()).finalize();
    u64::from_be_bytes(digest[..8].try_into().expect("8 bytes"))
}

pub(super) fn card_of(value: &serde_json::Value) -> Option<Card> {
    let rank_text = value["rank"].as_str()?;
    let suit = value["suit"].as_str()?;
    let rank = (2..=14).find(|rank| Card::new(*rank, 0).rank_text() == rank_text)?;
    let suit = cards::SUITS.iter().position(|name| *name == suit)? as u8;
    Some(Card::new(rank, suit))
}

impl Dealer {
    pub(super) fn new(config: &Config, table: &pozo_server::config::TableConfig, seed: u64) -> Dealer {
        let table_seed = table_seed(seed, &table.id);
        let shoe = blackjack::Table::for_game(table.game.name(), table_seed ^ 0x5EED);
        Dealer {
            table: table.id.to_string(),
            game: table.game,
            pool: table.pool.to_string(),
            seats: table.seats,
            rng: cards::rng(table_seed),
            credits: vec![0; table.seats as usize],
            grillos: vec![None; table.seats as usize],
            shoe,
            betting: Vec::new(),
            instant_card: None,
            gold_round: false,
            marks: crate::marks::Marks::of(config, table),
        }
    }

    pub(super) fn roulette(&self) -> bool {
        self.game.is_roulette()
    }

    pub(super) fn holds_grillos(&self) -> bool {
        self.grillos.iter().any(Option::is_some)
    }

    /// Phase 1: who buys credits and who presses.
    pub(super) fn bets(&mut self, bet_percent: u32) -> Vec<String> {
        self.gold_round = self.grillos.iter().flatten().any(|(metal, _)| *metal == Metal::Gold);
        let mut lines = Vec::new();
        for seat in 1..=self.seats {
            let index = seat as usize - 1;
            // 3.7.3: a seat in a series buys no new bronze.
            if self.roulette() && self.grillos[index].is_some() {
                continue;
            }
            if self.rng.random_range(0..100) >= bet_percent {
                continue;
            }
            if self.credits[index] == 0 {
                lines.push(format!("credits {seat} {CREDITS_BOUGHT}"));
            }
            lines.push(format!("press {seat}"));
        }
        lines
    }

    /// Takes the answers of phase 1.
    pub(super) fn take_bets(&mut self, lines: &[String], answers: &[Answer]) {
        self.betting.clear();
        for (line, answer) in lines.iter().zip(answers) {
            let Answer::Ack(_) = answer else { continue };
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["credits", seat, credits] => {
                    let seat: usize = seat.parse().unwrap_or(1);
                    self.credits[seat - 1] += credits.parse::<u32>().unwrap_or(0);
                }
                ["press", seat] => {
                    let seat: u32 = seat.parse().unwrap_or(1);
                    self.credits[seat as usize - 1] = self.credits[seat as usize - 1].saturating_sub(1);
                    self.betting.push(seat);
                    if self.roulette() {
                        // 3.1.3: three Grillos de Bronce on three plenos.
                        self.grillos[seat as usize - 1] = Some((Metal::Bronze, roulette::plenos(&mut self.rng, 3)));
                    }
                }
                _ => {}
            }
        }
    }

    /// Phase 3: deals the round and returns the prize lines (without ACEPTAR).
    pub(super) fn prizes(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        if self.roulette() {
            // One ball for every grillo at the table (3.1.3).
            let pocket = roulette::spin(&mut self.rng);
            for seat in 1..=self.seats {
                let index = seat as usize - 1;
                let Some((metal, plenos)) = self.grillos[index].take() else { continue };
                if !plenos.contains(&pocket) {
                    continue;
                }
                let (code, next) = match metal {
                    // 3.4.1.1: two Grillos de Plata; 3.4.1.2: the Grillo de Oro; 3.4.1.3: 100%.
                    Metal::Bronze => ("GRILLO_BRONCE", Some((Metal::Silver, roulette::plenos(&mut self.rng, 2)))),
                    Metal::Silver => ("GRILLO_PLATA", Some((Metal::Gold, roulette::plenos(&mut self.rng, 1)))),
                    Metal::Gold => ("GRILLO_ORO", None),
                };
                self.grillos[index] = next;
                lines.push(format!("prize {seat} {code}"));
            }
            return lines;
        }
        if let Some(shoe) = &mut self.shoe {
            let marks = &self.marks;
            for (seat, code) in shoe.play_round_marking(&self.betting, &|code| marks.pays(code)) {
                lines.push(format!("prize {seat} {code}"));
            }
            return lines;
        }
        // Three Card Poker (seed 003): one deck a round (3.1.9), each seat with the side bet its
        // own three cards (3.5.6–3.5.8); the progressive's code of each hand is entered, the envy
        // bonus follows at ACEPTAR on its own (docs/readings.md, "The envy bonus"). At a table of
        // the cross-game link, the highest code of the hand the link pays at Three Card Poker.
        if self.game == Game::ThreeCardPoker {
            let mut deck = cards::deck();
            deck.shuffle(&mut self.rng);
            let round = three_card::deal(self.betting.len(), &deck);
            for (seat, hand) in self.betting.iter().zip(&round.seats) {
                if let Some(code) = self.marks.first(three_card::premios(hand)) {
                    lines.push(format!("prize {seat} {code}"));
                }
            }
            return lines;
        }
        // Poker: one deck a round; the player's first five, or 3 own + 2 community (Go, AJ 2.3.5.3).
        let mut deck = cards::deck();
        deck.shuffle(&mut self.rng);
        let mut deck = deck.into_iter();
        let community: Vec<Card> = if self.game == Game::GoPoker { deck.by_ref().take(2).collect() } else { Vec::new() };
        let mut instant_won = false;
        let mut instant_line = None;
        for seat in self.betting.clone() {
            let own = 5 - community.len();
            let mut hand: Vec<Card> = deck.by_ref().take(own).collect();
            hand.extend(&community);
            let hand: [Card; 5] = hand.try_into().expect("five cards");
            let value = poker::evaluate(&hand);
            if let Some(code) = poker::premio(&self.pool, value.category) {
                let high = Card::new(value.high().clamp(2, 14), 0).rank_text();
                lines.push(format!("prize {seat} {code} {high}"));
            }
            // 15.11.2: the instant card among the seat's five cards.
            if let Some(card) = self.instant_card
                && !instant_won
                && hand[..own].contains(&card)
            {
                instant_won = true;
                instant_line = Some(format!("prize {seat} {}", pozo_server::state::INSTANT_PRIZE));
            }
        }
        // 16.4.2.5.1: identified, the instant prize is paid first, before the hand's prizes.
        lines.splice(0..0, instant_line);
        lines
    }

    /// The grillos the dealer believes each seat holds, as the panel counts them.
    pub(super) fn grillo_counts(&self) -> Vec<(u32, u32, u32)> {
        self.grillos
            .iter()
            .map(|grillos| match grillos {
                Some((Metal::Bronze, plenos)) => (plenos.len() as u32, 0, 0),
                Some((Metal::Silver, plenos)) => (0, plenos.len() as u32, 0),
                Some((Metal::Gold, plenos)) => (0, 0, plenos.len() as u32),
                None => (0, 0, 0),
            })
            .collect()
    }
}
