//! A rulebook file as written: the TOML document's shape (serde, `deny_unknown_fields`), and
//! each value checked against the article that requires it (`pool_rules`, `prize`), into
//! the types of [`super`]. The caller reads the files; the engine does no I/O.

use std::collections::BTreeSet;
use std::fmt;

use rust_decimal::Decimal;
use serde::Deserialize;
use toml::Table;

use super::*;
use crate::ids::{PoolId, PrizeCode};
use crate::money::{CENT, Money, is_multiple_of};

mod levels;
use levels::{
    check_mystery, envy_prize, game_bets, hot_seat_prizes, house_level, level_shares, levels, prize_games, prize_level, threshold,
};

impl Rulebooks {
    /// The rulebooks compiled into the binary.
    pub fn embedded() -> Rulebooks {
        Rulebooks::parse_all(EMBEDDED).expect("the embedded rulebooks are validated by the test suite")
    }

    /// Parses and validates several rulebook files given as `(file name, text)`.
    pub fn parse_all<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Rulebooks, RulebookError> {
        let mut rulebooks = Rulebooks::default();
        for (file, text) in files {
            for pool in parse_file(file, text)? {
                if let Some(first) = rulebooks.pools.get(&pool.id) {
                    return Err(RulebookError::field(
                        file,
                        Some(&pool.id),
                        "id",
                        format!("pool id already defined in {}", first.file),
                    ));
                }
                rulebooks.pools.insert(pool.id.clone(), pool);
            }
        }
        Ok(rulebooks)
    }
}

// serde derives the shape of a rulebook file (`deny_unknown_fields`: a misspelt key is
// refused, never ignored); `serde_path_to_error` says where in the file a refusal is, and
// TOML's span which line. What the articles require of the values is checked afterwards,
// in `pool_rules` and `prize`, with the article that requires it.

/// A rate, a share or an amount as written: a decimal string (`"0.65"`) or a whole number. A
/// TOML float is refused: it would carry a binary fraction into a pool or a prize. Shared with
/// the tournaments' structures (`tournament/file.rs`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Exact(pub(crate) Decimal);

impl<'de> Deserialize<'de> for Exact {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Exact, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Exact;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a decimal string such as \"0.65\"")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Exact, E> {
                text.trim().parse::<Decimal>().map(Exact).map_err(|_| E::custom(format!("`{text}` is not a decimal number")))
            }
            fn visit_i64<E: serde::de::Error>(self, number: i64) -> Result<Exact, E> {
                Ok(Exact(Decimal::from(number)))
            }
            fn visit_u64<E: serde::de::Error>(self, number: u64) -> Result<Exact, E> {
                Ok(Exact(Decimal::from(number)))
            }
            fn visit_f64<E: serde::de::Error>(self, number: f64) -> Result<Exact, E> {
                Err(E::custom(format!(
                    "write {number} as a string (\"{number}\"): money, rates and shares are exact decimals, never floats"
                )))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// A name, an id, an article or a code: a string with something in it.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "String")]
pub(crate) struct Text(pub(crate) String);

impl TryFrom<String> for Text {
    type Error = &'static str;
    fn try_from(text: String) -> Result<Text, &'static str> {
        if text.trim().is_empty() { Err("must not be empty") } else { Ok(Text(text)) }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    #[expect(dead_code, reason = "required in every rulebook, for the reader; the engine does not use it")]
    regulation: Text,
    #[expect(dead_code, reason = "required in every rulebook, for the reader; the engine does not use it")]
    source: Text,
    venta_pagos_over: Exact,
    pool: Vec<PoolDoc>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PoolDoc {
    id: Text,
    name: Text,
    articles: Text,
    games: Vec<String>,
    policy: String,
    minimum: Option<Exact>,
    minimum_kind: Option<String>,
    side_bet: Exact,
    payout_unit: Exact,
    contribution_rate: Option<Exact>,
    reserve_rate: Option<Exact>,
    commission_rate: Option<Exact>,
    shortfall_from: String,
    #[serde(default)]
    fixed_bet: bool,
    bet_min: Option<Exact>,
    bet_max: Option<Exact>,
    bet_article: Option<Text>,
    instant_card_chance: Option<Exact>,
    seats_max: Option<SeatsMaxDoc>,
    #[serde(default)]
    exclusive: Vec<Vec<String>>,
    minimum_at_least_side_bets: Option<Exact>,
    #[serde(default)]
    highest_only: bool,
    /// The levels of a pool with levels (docs/readings.md, "Levels"); none in a pool of one level.
    #[serde(default)]
    level: Vec<LevelDoc>,
    /// A link across games: a game's own fixed side bet (`{ "three-card-poker" = "500.00" }`).
    #[serde(default)]
    game_bets: std::collections::BTreeMap<String, Exact>,
    prize: Vec<PrizeDoc>,
}

/// `[[pool.level]]`: one level of a pool with levels.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LevelDoc {
    name: Text,
    share: Exact,
    reserve_share: Option<Exact>,
    reset: Exact,
    minimum_kind: Option<String>,
    cap: Option<Exact>,
    overflow_to: Option<String>,
    venta_pagos_over: Option<Exact>,
    bank: Option<String>,
    must_hit_by: Option<Exact>,
    hot_seat: Option<HotSeatDoc>,
}

/// `hot_seat = { code, name, amount }` on a mystery level: at each hit, the house pays `amount`
/// to one seat drawn among those with a bet in force in the link.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HotSeatDoc {
    code: Text,
    name: Text,
    amount: Exact,
}

/// `envy = { code, name, amount, scope, paid_by }` on a prize: the bonus every other seat
/// with a bet in force wins when this hand is hit.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EnvyDoc {
    code: Text,
    name: Text,
    amount: Exact,
    scope: String,
    paid_by: String,
}

/// `seats_max = { seats = 5, article = "16.3.1" }`: the article is named when a layout breaks it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeatsMaxDoc {
    seats: u32,
    article: Text,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PrizeDoc {
    code: Text,
    name: Text,
    article: Text,
    pays: String,
    amount: Option<Exact>,
    multiple: Option<Exact>,
    percent: Option<Exact>,
    cap_bet_multiple: Option<Exact>,
    floor_bet_multiple: Option<Exact>,
    grants: Option<GrantDoc>,
    level: Option<Text>,
    games: Option<Vec<String>>,
    envy: Option<EnvyDoc>,
    venta_pagos_over: Option<Exact>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GrantDoc {
    code: Text,
    count: u32,
}

/// Parses one rulebook file into its validated pools.
pub(crate) fn parse_file(file: &str, text: &str) -> Result<Vec<PoolRules>, RulebookError> {
    // Read once without a schema: TOML's own errors, and each pool's id for the errors after.
    let table: Table = text
        .parse()
        .map_err(|error: toml::de::Error| RulebookError::Syntax { file: file.to_owned(), message: error.message().to_owned() })?;
    let syntax = |error: toml::de::Error| RulebookError::Syntax { file: file.to_owned(), message: error.message().to_owned() };
    let document: FileDoc = serde_path_to_error::deserialize(toml::Deserializer::parse(text).map_err(syntax)?)
        .map_err(|error| refusal_of(file, text, &table, &error))?;
    let top = Place { file, pool: None, prefix: String::new() };
    let venta_pagos_over = Money::new(document.venta_pagos_over.0);
    if venta_pagos_over < Money::ZERO || !is_multiple_of(venta_pagos_over, CENT) {
        return Err(top.error("venta_pagos_over", format!("{venta_pagos_over} is not an amount in whole centavos ≥ 0 (3.5.2)")));
    }
    if document.pool.is_empty() {
        return Err(top.error("pool", "a rulebook needs at least one pool"));
    }
    document.pool.into_iter().map(|pool| pool_rules(file, pool, venta_pagos_over)).collect()
}

/// serde's refusal as a rulebook's: the pool (by its id), the field's path in it
/// (`prize[2].amount`), and for a key nobody knows its line and the nearest known key.
fn refusal_of(file: &str, text: &str, table: &Table, error: &serde_path_to_error::Error<toml::de::Error>) -> RulebookError {
    let crate::suggest::Located { id: pool, field, problem } = crate::suggest::located(text, table, "pool", error);
    RulebookError::Field { file: file.to_owned(), pool, field, problem }
}

/// Where a value is, for its refusal: the file, the pool and the path to the table it is in.
struct Place<'a> {
    file: &'a str,
    pool: Option<&'a str>,
    prefix: String,
}

impl Place<'_> {
    fn error(&self, key: &str, problem: impl fmt::Display) -> RulebookError {
        RulebookError::field(self.file, self.pool, &format!("{}{key}", self.prefix), problem)
    }

    fn rate(&self, key: &str, rate: Decimal) -> Result<Decimal, RulebookError> {
        if rate < Decimal::ZERO || rate > Decimal::ONE {
            return Err(self.error(key, format!("rate {rate} is outside 0–1")));
        }
        Ok(rate)
    }

    fn positive(&self, key: &str, amount: Decimal) -> Result<Decimal, RulebookError> {
        if amount <= Decimal::ZERO {
            return Err(self.error(key, format!("must be greater than zero, found {amount}")));
        }
        Ok(amount)
    }
}

fn is_code(text: &str) -> bool {
    !text.is_empty()
        && text.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && text.starts_with(|c: char| c.is_ascii_uppercase())
}

/// What the articles require of one pool's values: each group of values checked in turn,
/// in the order a reader meets them in the file, then the paytable against them.
fn pool_rules(file: &str, pool: PoolDoc, venta_pagos_over: Money) -> Result<PoolRules, RulebookError> {
    let id = pool.id.0.as_str();
    let at = Place { file, pool: Some(id), prefix: String::new() };
    let (games, policy) = games_and_policy(&at, &pool)?;
    let mut levels = levels(&at, &pool)?;
    let hot_seats = hot_seat_prizes(&at, &pool, &mut levels)?;
    let amounts = amounts(&at, &pool, levels.first())?;
    let Amounts { minimum, minimum_kind, side_bet, payout_unit } = amounts;
    let Shares { contribution_rate, reserve_rate, commission_rate, shortfall_from } = shares(&at, &pool, &games, &levels)?;
    let (bet_min, bet_max) = bet_range(&at, &pool, side_bet)?;
    let game_bets = game_bets(&at, &pool, &games)?;
    let instant_card_chance = instant_card_chance(&at, &pool, &games)?;
    let seats_max = seats_max(&at, pool.seats_max)?;
    let exclusive = exclusive_groups(&at, pool.exclusive)?;
    // Andalucía, Póquer sin descarte rule 6.2: the carrusel starts at no less than
    // 5,000 times the side bet; the rulebook states such a floor and we check it.
    if let Some(Exact(side_bets)) = pool.minimum_at_least_side_bets {
        let floor = side_bets * side_bet;
        if minimum < floor {
            return Err(
                at.error("minimum", format!("{minimum} is under {side_bets} × side_bet = {floor} (minimum_at_least_side_bets)"))
            );
        }
    }
    let mut prizes = paytable(&at, pool.prize, &games, &mut levels)?;
    for hot_seat in hot_seats {
        if prizes.iter().any(|prize| prize.code == hot_seat.code) {
            return Err(at.error("level", format!("hot seat code `{}` is also a code of the paytable", hot_seat.code)));
        }
        prizes.push(hot_seat);
    }
    check_mystery(&at, &levels, &prizes)?;
    check_exclusive(&at, &exclusive, &prizes)?;
    check_prizes(&at, &prizes, &amounts, bet_min)?;

    // The article a refused bet names: the rulebook's `bet_article`, else the pool's articles.
    let bet_article = pool.bet_article.map(|article| article.0).unwrap_or_else(|| pool.articles.0.clone());
    Ok(PoolRules {
        id: PoolId::new(id),
        name: pool.name.0,
        file: file.to_owned(),
        articles: pool.articles.0,
        games,
        policy,
        minimum,
        minimum_kind,
        side_bet,
        payout_unit,
        contribution_rate,
        reserve_rate,
        commission_rate,
        highest_only: pool.highest_only,
        shortfall_from,
        bet_min,
        bet_max,
        bet_article,
        exclusive,
        venta_pagos_over,
        seats_max,
        instant_card_chance,
        prizes,
        levels,
        pays_in_full: false,
        game_bets,
    })
}

/// The games a pool's tables play (at least one, each known) and its payout policy.
fn games_and_policy(at: &Place<'_>, pool: &PoolDoc) -> Result<(Vec<Game>, Policy), RulebookError> {
    if pool.games.is_empty() {
        return Err(at.error("games", "a pool needs at least one game type"));
    }
    let games = pool
        .games
        .iter()
        .map(|name| Game::parse(name))
        .collect::<Result<Vec<Game>, String>>()
        .map_err(|unknown| at.error("games", unknown))?;
    let policy = Policy::parse(&pool.policy).ok_or_else(|| {
        let known: Vec<&str> = Policy::NAMES.iter().map(|(name, _)| *name).collect();
        at.error("policy", format!("unknown policy `{}` (known: {})", pool.policy, known.join(", ")))
    })?;
    Ok((games, policy))
}

/// A pool's amounts: its minimum and what the minimum means, the side bet and the payout unit.
#[derive(Clone, Copy)]
struct Amounts {
    minimum: Money,
    minimum_kind: MinimumKind,
    side_bet: Money,
    payout_unit: Money,
}

/// The minimum (never negative, its meaning said), the side bet and the payout unit (each
/// positive, in whole centavos).
fn amounts(at: &Place<'_>, pool: &PoolDoc, first_level: Option<&LevelRules>) -> Result<Amounts, RulebookError> {
    let side_bet = Money::new(at.positive("side_bet", pool.side_bet.0)?);
    if !is_multiple_of(side_bet, CENT) {
        return Err(at.error("side_bet", format!("{side_bet} is finer than one centavo")));
    }
    let payout_unit = Money::new(at.positive("payout_unit", pool.payout_unit.0)?);
    if !is_multiple_of(payout_unit, CENT) {
        return Err(at.error("payout_unit", format!("{payout_unit} is finer than one centavo")));
    }
    // A pool with levels: each level says its reset and what it means; the pool's own
    // fields describe the first level and are not written twice.
    if let Some(first) = first_level {
        for (key, given) in [("minimum", pool.minimum.is_some()), ("minimum_kind", pool.minimum_kind.is_some())] {
            if given {
                return Err(
                    at.error(key, "a pool with levels says it per level (`reset`, `minimum_kind` of each [[pool.level]])")
                );
            }
        }
        return Ok(Amounts { minimum: first.reset, minimum_kind: first.minimum_kind, side_bet, payout_unit });
    }
    let minimum = Money::new(pool.minimum.ok_or_else(|| at.error("minimum", "missing field"))?.0);
    if minimum < Money::ZERO {
        return Err(at.error("minimum", format!("must not be negative, found {minimum}")));
    }
    // What the minimum means differs between the regulations (IPLyC 3.2.2 / 11.2.2 /
    // 15.2.3 a floor of the sign; Póquer sin descarte 6.2–6.3 and AJ 2.5.6.3 only the
    // starting amount): the rulebook must say it, never a default.
    let kinds = "`floor` (the sign never shows less: IPLyC 3.2.2, 11.2.2, 15.2.3) or `start` (only the amount the \
                 pool starts and restarts at; the sign shows the balance: Póquer sin descarte 6.3, AJ 2.5.6.3)";
    let minimum_kind = minimum_kind(at, "minimum_kind", pool.minimum_kind.as_deref(), kinds)?;
    Ok(Amounts { minimum, minimum_kind, side_bet, payout_unit })
}

/// What a minimum (or a level's reset) means, which the rulebook must say, never a default.
fn minimum_kind(at: &Place<'_>, key: &str, written: Option<&str>, kinds: &str) -> Result<MinimumKind, RulebookError> {
    match written {
        None => Err(at.error(key, format!("missing field: say what the minimum means, {kinds}"))),
        Some(name) => MinimumKind::NAMES
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, kind)| *kind)
            .ok_or_else(|| at.error(key, format!("unknown kind `{name}`: the minimum is {kinds}"))),
    }
}

/// Where each centavo of a side bet goes, and what pays a shortfall.
struct Shares {
    contribution_rate: Decimal,
    reserve_rate: Decimal,
    commission_rate: Decimal,
    shortfall_from: Shortfall,
}

/// The shares of a side bet (the pool's, the reserve's, the house's commission) and who
/// pays a shortfall, as the articles require them.
fn shares(at: &Place<'_>, pool: &PoolDoc, games: &[Game], levels: &[LevelRules]) -> Result<Shares, RulebookError> {
    let commission_rate = at.rate("commission_rate", pool.commission_rate.map(|rate| rate.0).unwrap_or_default())?;
    if let Some(first) = levels.first() {
        return level_shares(at, pool, levels, first, commission_rate);
    }
    let contribution_rate =
        at.rate("contribution_rate", pool.contribution_rate.ok_or_else(|| at.error("contribution_rate", "missing field"))?.0)?;
    if contribution_rate.is_zero() {
        return Err(at.error("contribution_rate", "a pool that receives nothing cannot grow"));
    }
    let reserve_rate = at.rate("reserve_rate", pool.reserve_rate.map(|rate| rate.0).unwrap_or_default())?;
    // Every centavo of a side bet goes somewhere: the pool (65% in IPLyC 3.2.1), the
    // reserve and the house's commission (AJ 2.5.6.3). Rates that do not add up to the
    // whole bet would create or lose money with every bet.
    let rates_sum = contribution_rate + reserve_rate + commission_rate;
    if rates_sum != Decimal::ONE {
        return Err(at.error(
            "commission_rate",
            format!(
                "contribution_rate + reserve_rate + commission_rate = {rates_sum}, not 1: the whole side bet must be \
                 shared (3.2.1, AJ 2.5.6.3)"
            ),
        ));
    }
    // Tripóquer IX.2: "debiendo garantizarse a las personas jugadoras un retorno o
    // porcentaje mínimo de devolución en premios del 70 por 100". Every centavo fed to the
    // carrusel is paid to players sooner or later, the ×bet prizes alone return less
    // (docs/readings.md, "How the carrusel's return is computed"; docs/odds.md): the
    // share fed to the pool is what guarantees the 70%.
    let tripoquer_return = Decimal::new(70, 2);
    if games.contains(&Game::Tripoker) && contribution_rate + reserve_rate < tripoquer_return {
        return Err(at.error(
            "contribution_rate",
            format!(
                "contribution_rate + reserve_rate = {}, under 0.70: a pool of `tripoker` tables must feed the pool at \
                 least 70% of each bet, the minimum return guaranteed to players (Tripóquer IX.2)",
                contribution_rate + reserve_rate
            ),
        ));
    }
    let shortfall_from = shortfall_from(at, pool, reserve_rate)?;
    Ok(Shares { contribution_rate, reserve_rate, commission_rate, shortfall_from })
}

/// Who pays what a pool lacks: the reserve first whenever there is one (AJ 2.5.6.3).
fn shortfall_from(at: &Place<'_>, pool: &PoolDoc, reserve_rate: Decimal) -> Result<Shortfall, RulebookError> {
    let shortfall_from =
        Shortfall::NAMES.iter().find(|(name, _)| *name == pool.shortfall_from).map(|(_, value)| *value).ok_or_else(|| {
            at.error("shortfall_from", format!("`{}` is not `house` or `reserve-then-house`", pool.shortfall_from))
        })?;
    if shortfall_from == Shortfall::ReserveThenHouse && reserve_rate.is_zero() {
        return Err(at.error("shortfall_from", "`reserve-then-house` needs a reserve pool: reserve_rate is 0 (AJ 2.5.6.3)"));
    }
    if shortfall_from == Shortfall::House && !reserve_rate.is_zero() {
        return Err(at.error(
            "shortfall_from",
            "a pool with a reserve (reserve_rate > 0) uses it first: `reserve-then-house` (AJ 2.5.6.3)",
        ));
    }
    Ok(shortfall_from)
}

/// The bets a pool takes, from `bet_min` to `bet_max`, with the side bet among them.
fn bet_range(at: &Place<'_>, pool: &PoolDoc, side_bet: Money) -> Result<(Money, Money), RulebookError> {
    // Veintiuno e: "una cantidad única estipulada": `fixed_bet` takes that one amount
    // only; otherwise any bet from `bet_min` to `bet_max` (AJ 2.5.5.1).
    let (bet_min, bet_max) = if pool.fixed_bet {
        for (key, given) in [("bet_min", pool.bet_min), ("bet_max", pool.bet_max)] {
            if given.is_some() {
                return Err(at.error(key, "a pool with fixed_bet = true takes only side_bet"));
            }
        }
        (side_bet, side_bet)
    } else {
        (
            pool.bet_min.map(|bet| Money::new(bet.0)).unwrap_or(CENT),
            pool.bet_max.map(|bet| Money::new(bet.0)).unwrap_or(crate::money::BET_MAX),
        )
    };
    for (key, bet) in [("bet_min", bet_min), ("bet_max", bet_max)] {
        at.positive(key, bet.decimal())?;
        if !is_multiple_of(bet, CENT) || bet > crate::money::BET_MAX {
            return Err(at.error(key, format!("{bet} is not a bet in whole centavos up to {}", crate::money::BET_MAX)));
        }
    }
    if !(bet_min <= side_bet && side_bet <= bet_max) {
        return Err(at.error("side_bet", format!("{side_bet} is outside bet_min {bet_min} – bet_max {bet_max}")));
    }
    Ok((bet_min, bet_max))
}

/// The chance of a premio instantáneo card, which Central Póker requires (15.11.2).
fn instant_card_chance(at: &Place<'_>, pool: &PoolDoc, games: &[Game]) -> Result<Option<Decimal>, RulebookError> {
    let instant_card_chance = pool.instant_card_chance.map(|chance| chance.0);
    if let Some(chance) = instant_card_chance
        && (chance <= Decimal::ZERO || chance > Decimal::ONE)
    {
        return Err(at.error("instant_card_chance", format!("{chance} is not a chance in (0, 1] (15.11.2)")));
    }
    if games.contains(&Game::CentralPoker) && instant_card_chance.is_none() {
        return Err(at.error(
            "instant_card_chance",
            "missing field: Central Póker shows a premio instantáneo card \"en forma aleatoria y sorpresiva\" (15.11.2)",
        ));
    }
    Ok(instant_card_chance)
}

/// The most seats a pool's tables have, with the article that says so.
fn seats_max(at: &Place<'_>, written: Option<SeatsMaxDoc>) -> Result<Option<SeatsMax>, RulebookError> {
    match written {
        None => Ok(None),
        Some(SeatsMaxDoc { seats, article }) => {
            if !(1..=16).contains(&seats) {
                return Err(at.error("seats_max.seats", "must be a whole number from 1 to 16"));
            }
            Ok(Some(SeatsMax { seats, article: article.0 }))
        }
    }
}

/// The groups of premios of which a round pays one, each of two codes or more.
fn exclusive_groups(at: &Place<'_>, written: Vec<Vec<String>>) -> Result<Vec<Vec<PrizeCode>>, RulebookError> {
    let mut exclusive: Vec<Vec<PrizeCode>> = Vec::with_capacity(written.len());
    for group in written {
        if group.len() < 2 {
            return Err(at.error("exclusive", "each group is an array of two or more premio codes"));
        }
        exclusive.push(group.into_iter().map(PrizeCode::from).collect());
    }
    Ok(exclusive)
}

/// The paytable: at least one prize, each code once.
fn paytable(
    at: &Place<'_>,
    written: Vec<PrizeDoc>,
    games: &[Game],
    levels: &mut Vec<LevelRules>,
) -> Result<Vec<Prize>, RulebookError> {
    let mut prizes: Vec<Prize> = Vec::with_capacity(written.len());
    let mut envies: Vec<Prize> = Vec::new();
    for (index, mut written) in written.into_iter().enumerate() {
        let place = Place { file: at.file, pool: at.pool, prefix: format!("prize[{index}].") };
        let level = written.level.take();
        let only = written.games.take();
        let envy = written.envy.take();
        let venta_pagos_over = threshold(&place, written.venta_pagos_over.take())?;
        let mut prize = prize(&place, written)?;
        prize.venta_pagos_over = venta_pagos_over;
        prize.level = match level.as_ref().map(|level| level.0.as_str()) {
            // Paid by the house, not from a meter (a fixed prize of a market paytable).
            Some("house") if !levels.is_empty() => house_level(levels),
            written => prize_level(&place, "level", written, levels)?,
        };
        prize.games = prize_games(&place, only, games)?;
        if levels.get(prize.level).is_some_and(|level| level.house)
            && matches!(prize.value, PrizeValue::Percent { .. } | PrizeValue::Grant)
        {
            return Err(place.error("level", "the house pays an amount (`fixed`, `bet-multiple`), never a share of a meter"));
        }
        if let Some(envy) = envy {
            let (paid, scope) = envy_prize(&place, envy, &prize, levels)?;
            prize.envy = Some(Envy { code: paid.code.clone(), scope });
            envies.push(paid);
        }
        if prizes.iter().chain(&envies).filter(|earlier| earlier.code == prize.code).count() > 0 {
            return Err(at.error(&format!("prize[{index}].code"), format!("duplicate code `{}`", prize.code)));
        }
        prizes.push(prize);
    }
    if prizes.is_empty() {
        return Err(at.error("prize", "a pool needs at least one prize"));
    }
    // Envy awards follow the paytable: never the highest combination of a hand, never marked.
    for envy in envies {
        if prizes.iter().any(|earlier| earlier.code == envy.code) {
            return Err(at.error("prize", format!("envy code `{}` is also a code of the paytable", envy.code)));
        }
        prizes.push(envy);
    }
    Ok(prizes)
}

/// Each exclusive group names codes of this pool, and no code is in two groups.
fn check_exclusive(at: &Place<'_>, exclusive: &[Vec<PrizeCode>], prizes: &[Prize]) -> Result<(), RulebookError> {
    let mut grouped = BTreeSet::new();
    for (group_index, group) in exclusive.iter().enumerate() {
        for code in group {
            let field = format!("exclusive[{group_index}]");
            if !prizes.iter().any(|prize| &prize.code == code) {
                return Err(at.error(&field, format!("`{code}` is not a code of this pool")));
            }
            if !grouped.insert(code.as_str()) {
                return Err(at.error(&field, format!("`{code}` is in more than one group")));
            }
        }
    }
    Ok(())
}

/// Each prize against the pool's amounts: it pays something at the smallest bet, grants a
/// premio of this pool, and its floor is within the minimum.
fn check_prizes(at: &Place<'_>, prizes: &[Prize], amounts: &Amounts, bet_min: Money) -> Result<(), RulebookError> {
    let Amounts { minimum, side_bet, payout_unit, .. } = *amounts;
    for (index, prize) in prizes.iter().enumerate() {
        if let PrizeValue::BetMultiple { multiple } = prize.value
            && crate::money::floor_to_unit(multiple * bet_min, payout_unit).is_zero()
        {
            return Err(at.error(
                &format!("prize[{index}].multiple"),
                format!(
                    "`{}` pays {multiple} × the bet ({}): at the smallest bet, {bet_min}, that rounds down to 0 at the \
                     payout unit {payout_unit}; raise bet_min",
                    prize.code, prize.article
                ),
            ));
        }
        if let Some(grant) = &prize.grants
            && !prizes.iter().any(|other| other.code == grant.code)
        {
            return Err(at.error(&format!("prize[{index}].grants.code"), format!("`{}` is not a code of this pool", grant.code)));
        }
        if let PrizeValue::Percent { floor_bet_multiple: Some(multiple), .. } = prize.value {
            // Veintiuno rule e: the whole bolsa is never less than 3,000 times the bet;
            // the minimum must honour that floor for the stipulated bet.
            if minimum < multiple * side_bet {
                return Err(at.error(
                    "minimum",
                    format!("{minimum} is under the floor of `{}`: {multiple} × side_bet = {}", prize.code, multiple * side_bet),
                ));
            }
        }
    }
    Ok(())
}

/// One line of a paytable: what `pays` names, with exactly the values that kind takes.
fn prize(at: &Place<'_>, written: PrizeDoc) -> Result<Prize, RulebookError> {
    let code = written.code.0;
    if !is_code(&code) {
        return Err(at.error("code", format!("`{code}` is not an upper snake case premio code")));
    }
    // Each kind reads its own values; a value another kind takes is refused, as a typo would be.
    let takes: &[&str] = match written.pays.as_str() {
        "grant" => &[],
        "fixed" => &["amount"],
        "bet-multiple" => &["multiple"],
        "percent" => &["percent", "cap_bet_multiple", "floor_bet_multiple"],
        other => {
            return Err(at.error("pays", format!("unknown kind `{other}` (known: grant, fixed, bet-multiple, percent)")));
        }
    };
    let given = [
        ("amount", written.amount),
        ("multiple", written.multiple),
        ("percent", written.percent),
        ("cap_bet_multiple", written.cap_bet_multiple),
        ("floor_bet_multiple", written.floor_bet_multiple),
    ];
    if let Some((key, _)) = given.iter().find(|(key, value)| value.is_some() && !takes.contains(key)) {
        return Err(at.error(key, format!("a prize that pays `{}` takes no `{key}`", written.pays)));
    }
    let required = |key: &str, value: Option<Exact>| value.map(|value| value.0).ok_or_else(|| at.error(key, "missing field"));
    let value = match written.pays.as_str() {
        "grant" => PrizeValue::Grant,
        "fixed" => PrizeValue::Fixed { amount: Money::new(at.positive("amount", required("amount", written.amount)?)?) },
        "bet-multiple" => PrizeValue::BetMultiple { multiple: at.positive("multiple", required("multiple", written.multiple)?)? },
        _ => {
            let percent = required("percent", written.percent)?;
            if percent <= Decimal::ZERO || percent > Decimal::ONE_HUNDRED {
                return Err(at.error("percent", format!("percent {percent} is outside (0, 100]")));
            }
            let cap_bet_multiple = written.cap_bet_multiple.map(|cap| at.positive("cap_bet_multiple", cap.0)).transpose()?;
            let floor_bet_multiple =
                written.floor_bet_multiple.map(|floor| at.positive("floor_bet_multiple", floor.0)).transpose()?;
            if floor_bet_multiple.is_some() && percent != Decimal::ONE_HUNDRED {
                return Err(at.error("floor_bet_multiple", "a floor is only defined for the whole pool (100%)"));
            }
            PrizeValue::Percent { percent, cap_bet_multiple, floor_bet_multiple }
        }
    };
    let grants = match written.grants {
        None => None,
        Some(GrantDoc { code, count }) => {
            if !(1..=10).contains(&count) {
                return Err(at.error("grants.count", "must be a whole number from 1 to 10"));
            }
            Some(Grant { code: PrizeCode::from(code.0), count })
        }
    };
    if value == PrizeValue::Grant && grants.is_none() {
        return Err(at.error("grants", "a prize that pays `grant` must say what it grants"));
    }
    Ok(Prize {
        code: PrizeCode::from(code),
        name: written.name.0,
        article: written.article.0,
        value,
        grants,
        level: 0,
        games: Vec::new(),
        envy: None,
        envy_of: None,
        venta_pagos_over: None,
    })
}
