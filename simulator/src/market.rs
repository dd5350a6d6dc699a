//! The market's progressives (`config/mercado.toml`; docs/readings.md, "Levels") measured:
//! each level's hit frequency against its exact odds, and what each example paytable returns to
//! the player per unit of side bet — in the long run, from the rulebook's shares, resets and caps,
//! and as the dealt hands played through the engine's own pool return it (docs/odds.md, "The
//! market's paytables").
//!
//! # The long-run return of a level
//!
//! A level paid whole (100%) by its codes, hit with probability p per bet, holds its reset R
//! after each hit and gains its share s of every bet B until the next. Over a cycle of N bets
//! (N geometric from 1, mean 1/p; the hitting bet is registered at INICIAR JUEGO, before its
//! prize) it pays R + s·B·min(N, K*), K* = (cap − R) ÷ (s·B) bets to the cap (∞ without one),
//! and `E[min(N, K*)] = (1 − (1 − p)^K) / p + f·(1 − p)^K` (K the whole part of K*, f the rest).
//! Per bet (the renewal theorem), the level pays
//!
//! ```text
//! p·R + s·B·(1 − (1 − p)^K + f·p·(1 − p)^K)
//! ```
//!
//! and sends `s·B − that share` over the cap to where the rulebook says: another level, which
//! pays it in turn (the Grand, which has no cap), or the level's reserve, which only ever funds
//! the level's next reset — already counted in `p·R`, whoever pays it. So the reserve shares and
//! an overflow to a reserve decide who puts the resets in (the reserve or the house), never what
//! the player receives. The house's fixed prizes return `p × amount` (or `p × multiple × B`), and
//! each envy bonus `(k − 1) × p × amount` to a seat among k seats in force at the table. Two hits
//! of one level in one round share it by the factor; that and a round's bets registered together
//! move the figures by far less than the measurement can show.

use std::collections::BTreeMap;
use std::sync::Arc;

use pozo_engine::{Money, Pool, PoolRules, PrizeValue, Winner};
use serde::Serialize;

/// One level's hits: its codes, how often the dealt hands made one, and how often they should.
#[derive(Clone, Debug, Serialize)]
pub struct LevelHits {
    pub level: String,
    pub codes: Vec<String>,
    /// The chance that one bet's hand makes a code of the level.
    pub probability: f64,
    pub observed: u64,
    pub expected: f64,
    pub standard_error: f64,
    pub deviation_se: f64,
}

/// One part of a paytable's return, per unit of side bet.
#[derive(Clone, Debug, Serialize)]
pub struct ReturnLine {
    pub what: String,
    pub per_unit: f64,
}

/// What a paytable returns the player per unit of side bet.
#[derive(Clone, Debug, Serialize)]
pub struct PaytableReturn {
    pub pool: String,
    pub side_bet: Money,
    /// Seats with the side bet in force at the table each round (the envy bonus goes to the others).
    pub seats_in_force: u32,
    /// The long-run return, part by part, from the rulebook's amounts and the exact odds.
    pub exact: Vec<ReturnLine>,
    pub exact_total: f64,
    /// Per unit of side bet: what the levels' reserves take in and no reset ever draws (a reserve
    /// the rules never draw on, or one fed faster than its resets use it): never returned.
    pub never_drawn: f64,
    /// Per unit of side bet: what the house puts in for the resets its reserves do not cover.
    pub house_resets: f64,
    /// The house's commission, per unit.
    pub commission: f64,
    /// The dealt hands played through the engine: bets, awards, what the meters gained.
    pub bets: u64,
    pub bets_amount: Money,
    pub awards: Money,
    pub meters_gained: Money,
    /// (awards + what the meters gained, the players' money not yet won) ÷ bets.
    pub measured: f64,
    /// Each level's balance and reserve when the hands were played.
    pub levels_after: Vec<(String, Money, Money)>,
}

/// A pool's levels measured over dealt hands: its hits per level, and its return.
#[derive(Clone, Debug, Serialize)]
pub struct Measured {
    pub levels: Vec<LevelHits>,
    pub paytable: PaytableReturn,
}

/// The market's rules of `pool`, as `config/mercado.toml` writes them.
pub fn rules(pool: &str) -> Result<PoolRules, String> {
    let config = crate::casino::market_example().map_err(|error| format!("{error:#}"))?;
    config.rulebooks.pool(pool).cloned().ok_or_else(|| format!("pool {pool} is not in config/mercado.toml"))
}

/// The long-run return of `rules` per unit of side bet (module docs), each code's chance from
/// `probability`, `seats` seats in force for the envy bonus: the parts, the total, what no reset
/// draws, and what the house puts in for resets. Refused for a paytable the module's reading does
/// not cover (a level prize under 100%, an overflow into a capped level).
// Statistics, not money: the figures are expectations.
#[allow(clippy::float_arithmetic)]
pub fn exact_return(
    rules: &PoolRules,
    probability: &dyn Fn(&str) -> f64,
    seats: u32,
) -> Result<(Vec<ReturnLine>, f64, f64, f64), String> {
    let unit = rules.side_bet.decimal();
    let ratio = |amount: Money| (amount.decimal() / unit).to_string().parse::<f64>().unwrap_or(f64::NAN);
    let rate = |rate: rust_decimal::Decimal| rate.to_string().parse::<f64>().unwrap_or(f64::NAN);
    let count = rules.levels.len();
    // Each level's chance of a hit per bet, and what of its share stays in its meter.
    let mut chance = vec![0.0; count];
    for prize in rules.prizes.iter().filter(|prize| prize.envy_of.is_none()) {
        let level = &rules.levels[prize.level];
        if level.house {
            continue;
        }
        if !prize.value.is_full_pool() {
            return Err(format!("{}: a level prize under 100% of its level is not read here", prize.code));
        }
        chance[prize.level] += probability(prize.code.as_str());
    }
    // A mystery level is won by no hand: it hits once its meter reaches a trigger uniform, to
    // the centavo, in (reset, ceiling] (docs/readings.md, "The mystery level"), so once per
    // E[trigger − reset] / (share × bet) bets: its chance per bet is 2 × share / ((ceiling −
    // reset + one centavo) / bet).
    for (index, level) in rules.mystery_levels() {
        let ceiling = level.must_hit_by.expect("a mystery level has its ceiling");
        chance[index] = 2.0 * rate(level.share) / ratio(ceiling - level.reset + Money::new(rust_decimal::Decimal::new(1, 2)));
    }
    let mut lines = Vec::new();
    let mut inflow = vec![0.0; count];
    let mut reserve_in = vec![0.0; count];
    let mut kept = vec![0.0; count];
    for (index, level) in rules.levels.iter().enumerate().filter(|(_, level)| !level.house) {
        let (p, share) = (chance[index], rate(level.share));
        reserve_in[index] += rate(level.reserve_share);
        kept[index] = match level.cap {
            None => share,
            Some((cap, to)) => {
                let bets_to_cap = ratio(cap - level.reset) / share;
                let (whole, rest) = (bets_to_cap.floor(), bets_to_cap - bets_to_cap.floor());
                let below = (1.0 - p).powf(whole);
                let stays = share * (1.0 - below + rest * p * below);
                match to {
                    pozo_engine::Overflow::Level(other) if rules.levels[other].cap.is_none() => inflow[other] += share - stays,
                    pozo_engine::Overflow::Level(other) => {
                        return Err(format!(
                            "{} overflows into {}, itself capped: not read here",
                            level.name, rules.levels[other].name
                        ));
                    }
                    pozo_engine::Overflow::Reserve => reserve_in[index] += share - stays,
                }
                stays
            }
        };
    }
    let (mut never_drawn, mut house_resets) = (0.0, 0.0);
    for (index, level) in rules.levels.iter().enumerate().filter(|(_, level)| !level.house) {
        let resets = chance[index] * ratio(level.reset);
        let odds = format!("{}: its reset, won 1 bet in {:.0}", level.name, 1.0 / chance[index]);
        lines.push(ReturnLine { what: odds, per_unit: resets });
        let meter = match (inflow[index] > 0.0, level.cap.is_some()) {
            (true, _) => "its share and the others' overflow",
            (false, true) => "its share, below its cap",
            (false, false) => "its share",
        };
        let meter = format!("{}: {meter}", level.name);
        lines.push(ReturnLine { what: meter, per_unit: kept[index] + inflow[index] });
        // The reserve funds the resets only where the level draws on it (a reserve share of
        // its own); what it takes in beyond them stays.
        let drawn = if level.reserve_share.is_zero() { 0.0 } else { reserve_in[index].min(resets) };
        never_drawn += reserve_in[index] - drawn;
        house_resets += resets - drawn;
    }
    let mut house = 0.0;
    let mut envy = 0.0;
    for prize in &rules.prizes {
        let value = match &prize.value {
            PrizeValue::Fixed { amount } => ratio(*amount),
            PrizeValue::BetMultiple { multiple } => rate(*multiple),
            _ => 0.0,
        };
        match &prize.envy_of {
            Some(hand) => envy += f64::from(seats.saturating_sub(1)) * probability(hand.as_str()) * value,
            // A hot seat: the house's amount at each hit of its mystery level.
            None if rules.levels.iter().any(|level| level.hot_seat.as_ref() == Some(&prize.code)) => {
                let at = rules.levels.iter().position(|level| level.hot_seat.as_ref() == Some(&prize.code));
                house += at.map_or(0.0, |index| chance[index]) * value;
            }
            None if rules.levels[prize.level].house => house += probability(prize.code.as_str()) * value,
            None => {}
        }
    }
    lines.push(ReturnLine { what: "the house's fixed prizes".to_owned(), per_unit: house });
    if rules.prizes.iter().any(|prize| prize.envy_of.is_some()) {
        lines.push(ReturnLine { what: format!("the envy bonus, {seats} seats in force"), per_unit: envy });
    }
    let total = lines.iter().map(|line| line.per_unit).sum();
    Ok((lines, total, never_drawn, house_resets))
}

/// Plays dealt rounds into a pool of the market's rules, as the controller settles them: each
/// seat's bet registered, the round's winners (and their envy awards) settled on the levels.
pub struct Play {
    pool: Pool,
    /// What the levels held when the pool opened (a banked level's meters open later, at their
    /// reset, put in by the house: `opened`).
    start: Money,
    opened: Money,
    hits: BTreeMap<usize, u64>,
    bets: u64,
    awards: Money,
    /// At a table of a link across games: the game, whose own bet and codes it plays, and the
    /// bank (flor) whose meters its banked levels feed.
    at: Option<(pozo_engine::Game, pozo_engine::Bank)>,
}

impl Play {
    pub fn new(rules: PoolRules) -> Play {
        let pool = Pool::open(Arc::new(rules));
        let start = pool.balance();
        Play { pool, start, opened: Money::ZERO, hits: BTreeMap::new(), bets: 0, awards: Money::ZERO, at: None }
    }

    /// The rounds of `game`'s tables of one flor in the cross-game link ([`link_rules`]): its
    /// bet, the codes its hands mark in the link (the highest each is that the link pays at the
    /// game, [`crate::marks::also`]), the flor's banked meters.
    pub fn at_game(game: pozo_engine::Game) -> Result<Play, String> {
        let mut play = Play::new(link_rules(game)?);
        play.at = Some((game, pozo_engine::Bank { flor: "F1".to_owned(), salon: "sala".to_owned() }));
        Ok(play)
    }

    /// The code a hand the evaluators call `code` marks here: itself, or at a table of the link
    /// the highest code it also is that the link pays at the game (`None`: none).
    fn marked(&self, code: &'static str) -> Option<&'static str> {
        match &self.at {
            None => Some(code),
            Some((game, _)) => crate::marks::also(code).into_iter().find(|code| self.pool.rules().game_marks(*game, code)),
        }
    }

    /// One round: `seats` seats with the side bet, `winners` the (seat, code) the hands made.
    pub fn round(&mut self, seats: u32, winners: &[(u32, &'static str)]) {
        let side_bet = self.pool.rules().side_bet;
        let bank = self.at.as_ref().map(|(_, bank)| bank.clone());
        let before = self.pool.meters().replenishments;
        for _ in 0..seats {
            self.pool.register_bet_at(side_bet, bank.as_ref()).expect("the market's side bet is the pool's");
        }
        self.opened += self.pool.meters().replenishments - before;
        self.bets += u64::from(seats);
        let winners: Vec<(u32, &str)> =
            winners.iter().filter_map(|(seat, code)| self.marked(code).map(|code| (*seat, code))).collect();
        if winners.is_empty() {
            return;
        }
        let rules = self.pool.rules().clone();
        let mut winners: Vec<Winner> = winners
            .iter()
            .map(|(seat, code)| Winner { seat: *seat, code: (*code).into(), bet: Some(side_bet), high: None, at: None })
            .collect();
        for winner in &winners {
            *self.hits.entry(rules.level_of(&winner.code)).or_default() += 1;
        }
        let in_force: Vec<(u32, Money)> = (1..=seats).map(|seat| (seat, side_bet)).collect();
        winners.extend(pozo_engine::envy_winners(&rules, &winners, &in_force));
        let settled = self.pool.settle_round_at(&winners, bank.as_ref()).expect("a round the rulebook takes");
        self.awards += settled.total_paid();
    }

    /// What the meters gained over the rounds played (the players' money not yet won): the
    /// levels' balances less what they held at the opening and what the house put in to open
    /// a bank's meters.
    pub fn meters_gained(&self) -> Money {
        self.pool.balance() - self.start - self.opened
    }

    /// The hits per level, against `probability` of each code per bet.
    // Statistics, not money.
    #[allow(clippy::float_arithmetic)]
    pub fn level_hits(&self, probability: &dyn Fn(&str) -> f64) -> Vec<LevelHits> {
        let rules = self.pool.rules();
        let n = self.bets as f64;
        (0..rules.level_count())
            .filter_map(|index| {
                let codes: Vec<String> = rules
                    .prizes
                    .iter()
                    // A mystery level and its hot seat are the controller's draw, no hand's.
                    .filter(|prize| prize.level == index && prize.envy_of.is_none() && !rules.is_drawn(&prize.code))
                    .map(|prize| prize.code.to_string())
                    .collect();
                // A level no code of the game pays (the link's Major at roulette): not the game's.
                if codes.is_empty() {
                    return None;
                }
                let p: f64 = codes.iter().map(|code| probability(code)).sum();
                let observed = self.hits.get(&index).copied().unwrap_or(0);
                let expected = n * p;
                let standard_error = (n * p * (1.0 - p)).sqrt();
                Some(LevelHits {
                    level: rules.level_name(index).unwrap_or("the pool").to_owned(),
                    codes,
                    probability: p,
                    observed,
                    expected,
                    standard_error,
                    deviation_se: (observed as f64 - expected) / standard_error,
                })
            })
            .collect()
    }

    /// The return: the exact one from the rulebook, and the one the rounds played.
    // Statistics, not money.
    #[allow(clippy::float_arithmetic)]
    pub fn paytable(&self, probability: &dyn Fn(&str) -> f64, seats: u32) -> Result<PaytableReturn, String> {
        let rules = self.pool.rules();
        let (exact, exact_total, never_drawn, house_resets) = exact_return(rules, probability, seats)?;
        let levels = self.pool.levels();
        let meters_gained = self.meters_gained();
        let bets_amount = self.pool.meters().bets_amount;
        let ratio = |amount: Money| (amount.decimal() / bets_amount.decimal()).to_string().parse::<f64>().unwrap_or(f64::NAN);
        Ok(PaytableReturn {
            pool: rules.id.to_string(),
            side_bet: rules.side_bet,
            seats_in_force: seats,
            exact,
            exact_total,
            never_drawn,
            house_resets,
            commission: rules.commission_rate.to_string().parse().unwrap_or(f64::NAN),
            bets: self.bets,
            bets_amount,
            awards: self.awards,
            meters_gained,
            measured: ratio(self.awards + meters_gained),
            levels_after: levels
                .iter()
                .map(|level| (level.name.clone().unwrap_or_default(), level.balance, level.reserve))
                .collect(),
        })
    }
}

/// The cross-game link (`mercado-gran-sala`, config/mercado.toml) as the tables of one game
/// play it: the game's own bet (`game_bets`) as the side bet, and only the prizes the game's
/// tables mark (`games`). Its Grand is shared with the other games' tables, its Major and Mini are
/// per flor: these rules are one flor whose tables are all of the game (as
/// config/examples/mercado-enlace.toml lays them out) and a Grand that game alone feeds.
pub fn link_rules(game: pozo_engine::Game) -> Result<PoolRules, String> {
    let mut rules = rules(crate::casino::LINK_POOL)?;
    rules.side_bet = rules.side_bet_for(game);
    rules.prizes.retain(|prize| prize.games.is_empty() || prize.games.contains(&game));
    if rules.prizes.is_empty() {
        return Err(format!("{}: no prize of the link is marked at {}", crate::casino::LINK_POOL, game.name()));
    }
    Ok(rules)
}

/// The cross-game link measured at one game: each level's hits, and its return per unit of the
/// game's bet (exact where [`exact_return`] reads the game's paytable; measured only at roulette,
/// whose Grillo de Plata is a fixed prize from the Mini's meter and no renewal formula here).
#[derive(Clone, Debug, Serialize)]
pub struct LinkOdds {
    pub pool: String,
    pub game: String,
    pub side_bet: Money,
    pub levels: Vec<LevelHits>,
    /// The exact return and the measured one, where the exact one is read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paytable: Option<PaytableReturn>,
    /// Why the return is measured only, where it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_only: Option<String>,
    pub bets: u64,
    pub bets_amount: Money,
    pub awards: Money,
    pub meters_gained: Money,
    /// (awards + what the meters gained) ÷ bets.
    pub measured: f64,
}

impl Play {
    /// The link measured at the game it was played at ([`Play::at_game`]): its levels' hits
    /// against `probability` of each code the game marks, and its return (`seats` in force).
    // Statistics, not money.
    #[allow(clippy::float_arithmetic)]
    pub fn link_odds(&self, probability: &dyn Fn(&str) -> f64, seats: u32) -> LinkOdds {
        let rules = self.pool.rules();
        let bets_amount = self.pool.meters().bets_amount;
        let meters_gained = self.meters_gained();
        let measured = ((self.awards + meters_gained).decimal() / bets_amount.decimal()).to_string().parse().unwrap_or(f64::NAN);
        let (paytable, measured_only) = match self.paytable(probability, seats) {
            Ok(paytable) => (Some(paytable), None),
            Err(why) => (None, Some(why)),
        };
        LinkOdds {
            pool: rules.id.to_string(),
            game: self.at.as_ref().map(|(game, _)| game.name().to_owned()).unwrap_or_default(),
            side_bet: rules.side_bet,
            levels: self.level_hits(probability),
            paytable,
            measured_only,
            bets: self.bets,
            bets_amount,
            awards: self.awards,
            meters_gained,
            measured,
        }
    }
}

#[cfg(test)]
// Probabilities and returns: statistics, not money.
#[allow(clippy::float_arithmetic)]
mod tests {
    use super::*;

    fn blackjack(code: &str) -> f64 {
        crate::blackjack::exact_odds(crate::blackjack::Game::Blackjack).iter().find(|exact| exact.code == code).map_or(
            0.0,
            |exact| {
                let (numerator, denominator) = exact.fraction();
                numerator as f64 / denominator as f64
            },
        )
    }

    fn three_card(code: &str) -> f64 {
        crate::three_card::premio_count(code) as f64 / crate::three_card::HANDS as f64
    }

    /// The link's return, part by part, as docs/odds.md states it (config/mercado.toml's amounts).
    #[test]
    fn the_link_returns_its_shares_resets_and_fixed_prizes() {
        let rules = rules("mercado-blackjack").expect("the link");
        let (lines, total, never_drawn, house_resets) = exact_return(&rules, &blackjack, 1).expect("read");
        let part = |what: &str| lines.iter().find(|line| line.what.starts_with(what)).map(|line| line.per_unit).expect(what);
        assert_eq!(lines[1].what, "Grand: its share and the others' overflow");
        // The Grand: its 8% and whatever the Major and the Minor send over their caps.
        let (major, minor) = (blackjack("TRES_SIETES_MISMO_PALO"), blackjack("CUATRO_ASES"));
        let over = 0.05 * (1.0 - major).powi(36_000) + 0.03 * (1.0 - minor).powi(15_000);
        assert!((part("Grand: its share") - (0.08 + over)).abs() < 1e-12);
        assert!((part("Grand: its reset") - blackjack("TRES_SIETES_CORAZONES") * 2_000.0).abs() < 1e-12);
        // The Mini: 20 a bet to its cap of 100,000 from 10,000, 4,500 bets; beyond, to its reserve.
        let mini = blackjack("TRES_SIETES");
        assert!((part("Mini: its share") - 0.02 * (1.0 - (1.0 - mini).powi(4_500))).abs() < 1e-12);
        // The house: 10× the double, 5× the suited ace-king.
        let house = 10.0 * blackjack("DOBLE_10_11_MISMO_PALO") + 5.0 * blackjack("BJ_AS_REY_MISMO_PALO");
        assert!((part("the house") - house).abs() < 1e-12);
        assert!((0.22..0.23).contains(&total), "{total}: {lines:?}");
        // The Mini draws nothing from its reserve (no reserve share of its own), and the Grand's
        // 2% outruns its resets: both stay.
        assert!(never_drawn > 0.02 * (1.0 - mini).powi(4_500), "{never_drawn}");
        assert!(house_resets > 0.0);
    }

    /// Three Card Poker's: 15% of each bet and the reset of 5,000 units 1 in 22,100, the fixed
    /// prizes 8,500 / 22,100, and the envy 175 / 22,100 from each other seat in force.
    #[test]
    fn three_card_poker_returns_its_meter_its_fixed_prizes_and_the_envy() {
        let rules = rules("mercado-tcp").expect("the progressive");
        let (_, alone, _, _) = exact_return(&rules, &three_card, 1).expect("read");
        assert!((alone - (0.15 + 13_500.0 / 22_100.0)).abs() < 1e-12, "{alone}");
        let (_, full, _, _) = exact_return(&rules, &three_card, 6).expect("read");
        assert!((full - alone - 5.0 * 175.0 / 22_100.0).abs() < 1e-12, "{full}");
    }

    /// Hands played into the pool: every bet registered, the winners settled on their levels,
    /// the house's prizes paid in full.
    #[test]
    fn a_round_played_pays_its_level_and_the_envy_of_the_others() {
        let mut play = Play::new(rules("mercado-tcp").expect("the progressive"));
        play.round(6, &[]);
        play.round(6, &[(2, crate::three_card::MINI_ROYAL_PICAS)]);
        // The meter: its reset and 15% of 12 bets of 500; the envy: 5 × 50,000.
        let meter = Money::from(2_500_000) + Money::from(900);
        assert_eq!(play.awards, meter + Money::from(250_000));
        let hits = play.level_hits(&three_card);
        assert_eq!((hits[0].level.as_str(), hits[0].observed), ("Mini Royal", 1));
        let paytable = play.paytable(&three_card, 6).expect("read");
        assert_eq!(paytable.bets, 12);
        assert_eq!(paytable.meters_gained, Money::ZERO, "back at its reset");
    }
}
