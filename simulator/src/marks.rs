//! What a table marks, and where its money goes, in a pool of the market's rulebooks
//! (docs/readings.md, "Levels"): in a link across games (`mercado-gran-sala`,
//! config/mercado.toml) each game has its own paytable into the shared levels (`games` on each
//! prize), its own bet (`game_bets`), and a banked level keeps a meter per flor, fed and won
//! by that flor's tables only.

use std::sync::Arc;

use pozo_engine::{Bank, Game, PoolRules};
use pozo_server::config::{Config, TableConfig};

/// A table's place in its pool: the codes it may mark, its bet, its bank.
#[derive(Clone, Debug)]
pub struct Marks {
    pub rules: Arc<PoolRules>,
    pub game: Game,
    pub bank: Bank,
}

impl Marks {
    /// The table's, as the layout places it (its flor and salon: the server's `bank_of`).
    pub fn of(config: &Config, table: &TableConfig) -> Marks {
        let rules = config.rulebooks.pool(&table.pool).expect("a validated layout names configured pools").clone();
        Marks { rules: Arc::new(rules), game: table.game, bank: bank_of(config, table) }
    }

    /// True when the table may mark `code`: a prize of its pool, limited to other games or not
    /// (`games`; envy awards are never marked, they follow).
    pub fn pays(&self, code: &str) -> bool {
        self.rules.game_marks(self.game, code)
    }

    /// Of a hand's codes, highest first, the one the table marks: the first its pool pays.
    pub fn first<'a>(&self, codes: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
        codes.into_iter().find(|code| self.pays(code))
    }

    /// The side bet at the table: its game's own in a link across games (`game_bets`).
    pub fn side_bet(&self) -> pozo_engine::Money {
        self.rules.side_bet_for(self.game)
    }

    /// The level an award of `code` at the table is paid from, as the reports name it: "Grand",
    /// a banked level with the table's bank ("Major · F4"), the pool's own name where it has one
    /// level; the envy awards from the house's level.
    pub fn level_name(&self, code: &str) -> String {
        let level = self.rules.level_of(code);
        let name = self.rules.level_name(level).unwrap_or(self.rules.id.as_str());
        match self.rules.levels.get(level).and_then(|rules| rules.bank) {
            Some(by) => format!("{name} · {}", self.bank.key(by)),
            None => name.to_owned(),
        }
    }

    /// The bank a banked level's share and prizes go to at the table; `None` in a pool without
    /// banked levels (the engine ignores it there).
    pub fn bank(&self) -> Option<&Bank> {
        self.rules.has_banks().then_some(&self.bank)
    }
}

/// Every code a hand the evaluators call `code` also is, highest first: three sevens of hearts
/// are three sevens of one suit, and three sevens; the Mini Royal of spades is a Mini Royal, and
/// a Mini Royal a straight flush. A table marks the first its pool pays at its game
/// ([`Marks::first`]): the market's own paytables tell them all apart, the cross-game link
/// (config/mercado.toml, `mercado-gran-sala`) pays three sevens of spades as "Tres sietes" and a
/// Mini Royal of hearts as "Escalera de color".
pub fn also(code: &str) -> Vec<&str> {
    use crate::blackjack::{TRES_SIETES, TRES_SIETES_CORAZONES, TRES_SIETES_MISMO_PALO};
    use crate::three_card::{ESCALERA_COLOR, MINI_ROYAL, MINI_ROYAL_PICAS};
    match code {
        TRES_SIETES_CORAZONES => vec![TRES_SIETES_CORAZONES, TRES_SIETES_MISMO_PALO, TRES_SIETES],
        TRES_SIETES_MISMO_PALO => vec![TRES_SIETES_MISMO_PALO, TRES_SIETES],
        MINI_ROYAL_PICAS => vec![MINI_ROYAL_PICAS, MINI_ROYAL, ESCALERA_COLOR],
        MINI_ROYAL => vec![MINI_ROYAL, ESCALERA_COLOR],
        code => vec![code],
    }
}

/// Where a table is, for a pool with banked levels: its flor and salon.
pub fn bank_of(config: &Config, table: &TableConfig) -> Bank {
    Bank { flor: table.flor.clone(), salon: config.salon_of(table).to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_table_marks_only_its_games_codes_at_its_bet_in_its_flor() {
        let config = crate::casino::generated_of(crate::casino::Rulebooks::Market, 12, 7).expect("valid");
        let of = |id: &str| Marks::of(&config, config.layout.tables.iter().find(|table| table.id.as_str() == id).expect(id));
        let (roulette, blackjack, three_card) = (of("LR1"), of("LB1"), of("LCP1"));
        assert!(roulette.pays("GRILLO_BRONCE") && !roulette.pays("TRES_SIETES") && !roulette.pays("PIERNA"));
        assert!(blackjack.pays("TRES_SIETES") && !blackjack.pays("TRES_SIETES_MISMO_PALO") && !blackjack.pays("GRILLO_ORO"));
        assert_eq!(blackjack.first(["TRES_SIETES_MISMO_PALO", "TRES_SIETES"]), Some("TRES_SIETES"));
        assert_eq!(three_card.first(["MINI_ROYAL", "ESCALERA_COLOR"]), Some("ESCALERA_COLOR"));
        // config/mercado.toml: 1,000 at Black Jack, 500 at Three Card Poker, 3,000 at roulette.
        let bets = [&roulette, &blackjack, &three_card].map(|marks| marks.side_bet());
        assert_eq!(bets, [3000, 1000, 500].map(pozo_engine::Money::from));
        assert!(blackjack.bank().is_some());
        assert_eq!(
            ["TRES_SIETES_CORAZONES", "CUATRO_ASES", "TRES_SIETES"].map(|code| blackjack.level_name(code)),
            ["Grand", "Major · F2", "Mini · F2"]
        );
        // The market's own Black Jack link has no banks and marks every one of its codes.
        let link = of("B1");
        assert!(link.bank().is_none() && link.pays("TRES_SIETES_MISMO_PALO"));
    }
}
