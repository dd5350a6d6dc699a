//! Rulebooks: every pool of the regulations as data (TOML in `config/`).
//!
//! A rulebook is parsed from text the caller read (the engine does no I/O) and
//! validated completely before any pool is built from it: a broken rulebook is
//! refused at start-up with an error naming the file, the pool and the field.
//! Rates and money are written as decimal strings (`"0.65"`), never as TOML
//! floats, so that no binary fraction ever reaches a pool.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use toml::{Table, Value};

use crate::ids::{PoolId, PrizeCode};
use crate::money::{CENT, Money, is_multiple_of};

/// The rulebooks compiled into the binary: the default when no `--rulebook` is given.
pub const EMBEDDED: [(&str, &str); 3] = [
    ("config/iplyc.toml", include_str!("../../../config/iplyc.toml")),
    ("config/aj-bolivia.toml", include_str!("../../../config/aj-bolivia.toml")),
    ("config/andalucia.toml", include_str!("../../../config/andalucia.toml")),
];

/// How the winners of one round at one table share a pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// IPLyC 3.6 / 11.7 / 15.9: when the prizes of one round add up to more than
    /// the displayed amount, every award is multiplied by FACTOR = MONTO TOTAL ÷
    /// TOTAL A PAGAR.
    IplycFactor,
    /// IPLyC roulette: the factor of 3.6, except that a Grillo de Oro and a Grillo
    /// de Plata in the same ball are paid gold first (100%), then the silver from
    /// the replenished pool (3.4.2; docs/readings.md, "Gold before silver").
    IplycGoldFirst,
    /// AJ Bolivia 2.5.6.2: smallest prizes first (×bet, then 10%, then 100% of what
    /// remains); equal split of a shared percentage, the indivisible unit to the
    /// winner nearest the croupier's right (position 1).
    AjOrdered,
    /// Andalucía, Póquer sin descarte rule 6.4: ×bet prizes, then straight flushes
    /// highest first, each taking 10% of what the display shows after the previous
    /// one; equal values share equally; royal flushes share what remains.
    AndaluciaOrdered,
}

impl Policy {
    const NAMES: [(&'static str, Policy); 4] = [
        ("iplyc-factor", Policy::IplycFactor),
        ("iplyc-gold-first", Policy::IplycGoldFirst),
        ("aj-ordered", Policy::AjOrdered),
        ("andalucia-ordered", Policy::AndaluciaOrdered),
    ];

    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, policy)| *policy == self).map(|(name, _)| *name).unwrap_or("?")
    }

    fn parse(name: &str) -> Option<Policy> {
        Self::NAMES.iter().find(|(known, _)| *known == name).map(|(_, policy)| *policy)
    }
}

/// The most seats a table may have, and the article that says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatsMax {
    pub seats: u32,
    pub article: String,
}

/// Who puts in what a pool lacks to pay its awards, and to reset after a 100% prize
/// (3.2.2, 11.2.2, 15.2.2; AJ 2.5.6.3; docs/readings.md, "×bet prizes over the pool").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shortfall {
    /// The house (the Instituto, the casino).
    House,
    /// The reserve pool as far as it goes, then the house (AJ 2.5.6.3: reserve pools
    /// "con el fin de acumular fondos para su uso futuro").
    ReserveThenHouse,
}

impl Shortfall {
    const NAMES: [(&'static str, Shortfall); 2] =
        [("house", Shortfall::House), ("reserve-then-house", Shortfall::ReserveThenHouse)];
}

/// What a pool's `minimum` means: the rulebook says it (`minimum_kind`), because the
/// regulations differ (docs/readings.md, "Displayed amount = max(balance, minimum)" and
/// "The AJ base value after ×bet prizes").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MinimumKind {
    /// The displayed amount is never under the minimum: "se completará esta cifra para el
    /// pago del primer premio" (IPLyC 3.2.2, 11.2.2, 15.2.3).
    Floor,
    /// Only the amount the pool opens at and is brought back to after a 100% prize; the
    /// sign shows the balance, which goes down with every payment (Andalucía, Póquer sin
    /// descarte 6.2–6.3: "sus pagos serán descontados de la suma acumulada en el visor";
    /// AJ 2.5.6.3: "valor inicial o base").
    Start,
}

impl MinimumKind {
    const NAMES: [(&'static str, MinimumKind); 2] = [("floor", MinimumKind::Floor), ("start", MinimumKind::Start)];

    /// The kind's name in the rulebook files.
    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, kind)| *kind == self).map(|(name, _)| *name).unwrap_or("?")
    }
}

/// The premio code of Central Póker's instant prize (15.11), paid at once and alone
/// when it is entered (16.4.2.5.1), only in a pool whose games play it
/// ([`Game::plays_instant_prize`]).
pub const INSTANT_PRIZE: &str = "PREMIO_INSTANTANEO";

/// The game a table plays: a closed list, named in the files as in the regulations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum Game {
    RuletaAmericana,
    Blackjack,
    CentralPoker,
    CaribbeanPoker,
    GoPoker,
    DrawPoker,
    PokerSinDescarte,
    Tripoker,
    Veintiuno,
}

impl Game {
    /// Every game, in the order the files list them.
    pub const ALL: [Game; 9] = [
        Game::RuletaAmericana,
        Game::Blackjack,
        Game::CentralPoker,
        Game::CaribbeanPoker,
        Game::GoPoker,
        Game::DrawPoker,
        Game::PokerSinDescarte,
        Game::Tripoker,
        Game::Veintiuno,
    ];

    /// The game's name in the layout and rulebook files.
    pub const fn name(self) -> &'static str {
        match self {
            Game::RuletaAmericana => "ruleta-americana",
            Game::Blackjack => "blackjack",
            Game::CentralPoker => "central-poker",
            Game::CaribbeanPoker => "caribbean-poker",
            Game::GoPoker => "go-poker",
            Game::DrawPoker => "draw-poker",
            Game::PokerSinDescarte => "poker-sin-descarte",
            Game::Tripoker => "tripoker",
            Game::Veintiuno => "veintiuno",
        }
    }

    /// The game named `name`, or a message naming the known ones.
    pub fn parse(name: &str) -> Result<Game, String> {
        Game::ALL.into_iter().find(|game| game.name() == name).ok_or_else(|| {
            let known: Vec<&str> = Game::ALL.iter().map(|game| game.name()).collect();
            format!("unknown game `{name}` (known: {})", known.join(", "))
        })
    }

    /// Roulette poceada: grillos, never a burnt ball (3.1, 11.8.1.1 is Black Jack's).
    pub const fn is_roulette(self) -> bool {
        matches!(self, Game::RuletaAmericana)
    }

    /// Central Póker shows a premio instantáneo (15.11).
    pub const fn plays_instant_prize(self) -> bool {
        matches!(self, Game::CentralPoker)
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl TryFrom<String> for Game {
    type Error = String;
    fn try_from(name: String) -> Result<Game, String> {
        Game::parse(&name)
    }
}

impl From<Game> for &'static str {
    fn from(game: Game) -> &'static str {
        game.name()
    }
}

/// The three grillos of roulette poceada (3.1.3): a seat holds them, and a hit of one
/// exchanges it for the next metal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Grillo {
    Bronce,
    Plata,
    Oro,
}

impl Grillo {
    pub const ALL: [Grillo; 3] = [Grillo::Bronce, Grillo::Plata, Grillo::Oro];

    /// The premio code the rulebook gives it.
    pub const fn code(self) -> &'static str {
        match self {
            Grillo::Bronce => "GRILLO_BRONCE",
            Grillo::Plata => "GRILLO_PLATA",
            Grillo::Oro => "GRILLO_ORO",
        }
    }

    /// Its name as the regulation writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Grillo::Bronce => "Grillo de Bronce",
            Grillo::Plata => "Grillo de Plata",
            Grillo::Oro => "Grillo de Oro",
        }
    }

    /// The grillo a premio code names, if it names one.
    pub fn of_code(code: &str) -> Option<Grillo> {
        Grillo::ALL.into_iter().find(|grillo| grillo.code() == code)
    }

    /// The metal a hit of this one is exchanged for (3.1.3): bronze for silver, silver for gold.
    pub const fn next(self) -> Option<Grillo> {
        match self {
            Grillo::Bronce => Some(Grillo::Plata),
            Grillo::Plata => Some(Grillo::Oro),
            Grillo::Oro => None,
        }
    }

    /// The most one player may have in play (3.7.2: "más de tres Grillos de Bronce, más de
    /// dos Grillos de Plata o más de un Grillo de Oro la jugada al Pozo Acumulado no será válida").
    pub const fn most_in_play(self) -> u32 {
        match self {
            Grillo::Bronce => 3,
            Grillo::Plata => 2,
            Grillo::Oro => 1,
        }
    }
}

/// What a premio code is worth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrizeValue {
    /// No money: the winner receives other chips (a Grillo de Bronce turns into
    /// two Grillos de Plata, 3.4.1.1).
    Grant,
    /// A fixed amount paid from the pool (11.5.3: four aces, $500).
    Fixed { amount: Money },
    /// A multiple of the winner's own side bet (AJ 2.5.6.2: flush, 50×).
    BetMultiple { multiple: Decimal },
    /// A percentage of the displayed amount, optionally capped at a multiple of the
    /// bet (AJ straight flush: at most 5,000×) or never under one (Andalucía bolsa:
    /// never under 3,000×).
    Percent { percent: Decimal, cap_bet_multiple: Option<Decimal>, floor_bet_multiple: Option<Decimal> },
}

impl PrizeValue {
    /// True for the prize that takes the whole pool (100%).
    pub fn is_full_pool(&self) -> bool {
        matches!(self, PrizeValue::Percent { percent, .. } if *percent == Decimal::ONE_HUNDRED)
    }

    /// True when the award depends on the winner's own side bet.
    pub fn needs_bet(&self) -> bool {
        match self {
            PrizeValue::BetMultiple { .. } => true,
            PrizeValue::Percent { cap_bet_multiple, floor_bet_multiple, .. } => {
                cap_bet_multiple.is_some() || floor_bet_multiple.is_some()
            }
            PrizeValue::Grant | PrizeValue::Fixed { .. } => false,
        }
    }
}

/// Chips a prize hands over instead of (or besides) money.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    pub code: PrizeCode,
    pub count: u32,
}

/// One line of a pool's paytable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prize {
    /// Premio code, Spanish upper snake case (`TRES_SIETES_CORAZONES`).
    pub code: PrizeCode,
    /// How the regulation names it, for screens and reports.
    pub name: String,
    /// The article that sets it.
    pub article: String,
    pub value: PrizeValue,
    pub grants: Option<Grant>,
}

/// Everything the articles and the operator fix about one pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolRules {
    pub id: PoolId,
    pub name: String,
    /// The rulebook file this pool came from.
    pub file: String,
    pub articles: String,
    pub games: Vec<Game>,
    pub policy: Policy,
    /// The amount the pool opens at and is brought back to after a 100% prize (11.2.1,
    /// 15.2.2, AJ 2.5.6.3, Póquer sin descarte 6.2); whether the sign is ever under it is
    /// `minimum_kind`'s to say.
    pub minimum: Money,
    /// What the minimum means: a floor of the displayed amount (IPLyC) or only the
    /// starting amount (Andalucía, AJ).
    pub minimum_kind: MinimumKind,
    /// The price of one side bet (fixed in IPLyC 3.3.1 / 11.4.1; the stipulated
    /// amount of the bolsa; the credit value in AJ).
    pub side_bet: Money,
    /// Awards are rounded down to a multiple of this (0.01 IPLyC, 1 AJ).
    pub payout_unit: Money,
    /// Share of each registered bet added to the main pool (65% in IPLyC 3.2.1).
    pub contribution_rate: Decimal,
    /// Share of each bet set aside in the reserve pool (AJ 2.5.6.3).
    pub reserve_rate: Decimal,
    /// Share of each bet kept by the house as commission (AJ 2.5.6.3).
    pub commission_rate: Decimal,
    /// Only the highest combination of a seat is paid (Andalucía, Veintiuno rule e).
    pub highest_only: bool,
    /// Who puts in what the pool lacks (`shortfall_from`).
    pub shortfall_from: Shortfall,
    /// The smallest and largest side bet the pool takes. Both are `side_bet` where
    /// the rulebook says `fixed_bet = true` (Veintiuno e: "una cantidad única
    /// estipulada"); AJ 2.5.5.1 has a minimum and a maximum.
    pub bet_min: Money,
    pub bet_max: Money,
    /// The article that fixes the side bet (`bet_article`; the pool's `articles` when the
    /// rulebook names none): a refused bet names it (IPLyC 11.4.1, AJ 2.5.5.1, Veintiuno e).
    pub bet_article: String,
    /// Codes that cannot occur together in one hand: one seat, one round, at most one
    /// code of each group (11.3: each combination is a different hand).
    pub exclusive: Vec<Vec<PrizeCode>>,
    /// Besides every percentage prize, any award over this amount is paid through
    /// Venta-Pagos (3.5.2, 11.6.1.2, 15.8.2): the jurisdiction's own threshold.
    pub venta_pagos_over: Money,
    /// The most seats a table of this pool may have (16.3.1: five at Central Póker).
    pub seats_max: Option<SeatsMax>,
    /// The chance, at each INICIAR JUEGO with no card in play, that a premio
    /// instantáneo card appears (15.11.2: "en forma aleatoria y sorpresiva").
    pub instant_card_chance: Option<Decimal>,
    /// Paytable, highest prize first: the order decides "the highest combination".
    pub prizes: Vec<Prize>,
}

impl PoolRules {
    pub fn prize(&self, code: &str) -> Option<&Prize> {
        self.prizes.iter().find(|prize| prize.code == code)
    }

    /// Position of a code in the paytable: 0 is the highest prize.
    pub fn rank(&self, code: &str) -> Option<usize> {
        self.prizes.iter().position(|prize| prize.code == code)
    }

    pub fn has_reserve(&self) -> bool {
        self.reserve_rate > Decimal::ZERO
    }

    /// The group of codes `code` excludes in the same hand, if it belongs to one.
    pub fn exclusive_group(&self, code: &str) -> Option<&[PrizeCode]> {
        self.exclusive.iter().find(|group| group.iter().any(|member| member == code)).map(Vec::as_slice)
    }

    /// True when `a` and `b` cannot occur together in one hand.
    pub fn excludes(&self, a: &str, b: &str) -> bool {
        a != b && self.exclusive_group(a).is_some_and(|group| group.iter().any(|member| member == b))
    }

    /// The bet a stake of `credits` credits makes (AJ 2.5.4.1: "el monto de su apuesta,
    /// expresado en créditos"): each credit is worth `side_bet`.
    pub fn bet_of(&self, credits: u32) -> Money {
        self.side_bet * Decimal::from(credits)
    }

    /// True where the rulebook fixes one side-bet amount.
    pub fn fixed_bet(&self) -> bool {
        self.bet_min == self.bet_max
    }

    /// The amount the sign shows for a main pool holding `balance`: the most any award
    /// can be (3.5.1). The one definition, for the engine and for whoever checks it.
    pub fn displayed_for(&self, balance: Money) -> Money {
        match self.minimum_kind {
            // 3.2.2, 11.2.2, 15.2.3: "se completará esta cifra para el pago del primer
            // premio": never under the minimum (docs/readings.md, "Displayed amount = max(balance, minimum)").
            MinimumKind::Floor => balance.max(self.minimum),
            // Póquer sin descarte 6.3: "sus pagos serán descontados de la suma acumulada en
            // el visor"; AJ 2.5.6.3 "valor inicial o base": the sign shows the balance.
            MinimumKind::Start => balance,
        }
    }

    /// True when a game of this pool plays the premio instantáneo (15.11).
    pub fn plays_instant_prize(&self) -> bool {
        self.games.iter().any(|game| game.plays_instant_prize())
    }
}

/// A validated set of rulebooks, pools keyed by id.
#[derive(Clone, Debug, Default)]
pub struct Rulebooks {
    pools: BTreeMap<PoolId, PoolRules>,
}

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

    pub fn pool(&self, id: &str) -> Option<&PoolRules> {
        self.pools.get(id)
    }

    pub fn pools(&self) -> impl Iterator<Item = &PoolRules> {
        self.pools.values()
    }
}

/// A rulebook refused at load.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulebookError {
    #[error("{file}: not valid TOML: {message}")]
    Syntax { file: String, message: String },
    #[error("{file}: {}field `{field}`: {problem}", pool.as_ref().map(|id| format!("pool `{id}`: ")).unwrap_or_default())]
    Field { file: String, pool: Option<String>, field: String, problem: String },
}

impl RulebookError {
    fn field(file: &str, pool: Option<&str>, field: &str, problem: impl fmt::Display) -> RulebookError {
        RulebookError::Field {
            file: file.to_owned(),
            pool: pool.map(str::to_owned),
            field: field.to_owned(),
            problem: problem.to_string(),
        }
    }
}

// --- The files as written ---------------------------------------------------------------
//
// serde derives the shape of a rulebook file (`deny_unknown_fields`: a misspelt key is
// refused, never ignored); `serde_path_to_error` says where in the file a refusal is, and
// TOML's span which line. What the articles require of the values is checked afterwards,
// in `pool_rules` and `prize`, with the article that requires it.

/// A rate or an amount as written: a decimal string (`"0.65"`) or a whole number. A TOML
/// float is refused: it would carry a binary fraction into a pool.
#[derive(Clone, Copy, Debug)]
struct Exact(Decimal);

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
                    "write {number} as a string (\"{number}\"): money and rates are exact decimals, never floats"
                )))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// A name, article or code: a string with something in it.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "String")]
struct Text(String);

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
    minimum: Exact,
    minimum_kind: Option<String>,
    side_bet: Exact,
    payout_unit: Exact,
    contribution_rate: Exact,
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
    prize: Vec<PrizeDoc>,
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
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GrantDoc {
    code: Text,
    count: u32,
}

/// Parses one rulebook file into its validated pools.
pub fn parse_file(file: &str, text: &str) -> Result<Vec<PoolRules>, RulebookError> {
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
    use serde_path_to_error::Segment;
    let segments: Vec<&Segment> = error.path().iter().collect();
    // `pool[i]` names the pool by its id, when it has one.
    let (pool, rest) = match segments.as_slice() {
        [Segment::Map { key }, Segment::Seq { index }, rest @ ..] if key == "pool" => {
            let id = table
                .get("pool")
                .and_then(|pools| pools.get(*index))
                .and_then(|pool| pool.get("id"))
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty());
            match id {
                Some(id) => (Some(id.to_owned()), rest),
                None => (None, &segments[..]),
            }
        }
        _ => (None, &segments[..]),
    };
    let mut field = String::new();
    for segment in rest {
        match segment {
            Segment::Seq { index } => field.push_str(&format!("[{index}]")),
            Segment::Map { key } => {
                if !field.is_empty() {
                    field.push('.');
                }
                field.push_str(key);
            }
            Segment::Enum { variant } => field.push_str(&format!("::{variant}")),
            Segment::Unknown => field.push_str(".?"),
        }
    }
    let inner = error.inner();
    let message = inner.message();
    let line = inner.span().map(|span| crate::suggest::line_at(text, span.start));
    let problem = if let Some(rest) = message.strip_prefix("missing field `") {
        // The path names the table that lacks it; the field is the one it lacks.
        let missing = rest.split('`').next().unwrap_or_default();
        if !field.is_empty() {
            field.push('.');
        }
        field.push_str(missing);
        "missing field".to_owned()
    } else if let Some((unknown, known)) = crate::suggest::unknown_field(message) {
        if !field.ends_with(unknown) {
            if !field.is_empty() {
                field.push('.');
            }
            field.push_str(unknown);
        }
        let at = line.map(|line| format!(" at line {line}")).unwrap_or_default();
        match crate::suggest::nearest(unknown, known.iter().copied()) {
            Some(nearest) => format!("unknown field{at} (did you mean `{nearest}`?)"),
            None => format!("unknown field{at} (known here: {})", known.join(", ")),
        }
    } else {
        match line {
            Some(line) => format!("{message} (line {line})"),
            None => message.to_owned(),
        }
    };
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

/// What the articles require of one pool's values.
fn pool_rules(file: &str, pool: PoolDoc, venta_pagos_over: Money) -> Result<PoolRules, RulebookError> {
    let id = pool.id.0.as_str();
    let at = Place { file, pool: Some(id), prefix: String::new() };
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

    let minimum = Money::new(pool.minimum.0);
    if minimum < Money::ZERO {
        return Err(at.error("minimum", format!("must not be negative, found {minimum}")));
    }
    // What the minimum means differs between the regulations (IPLyC 3.2.2 / 11.2.2 /
    // 15.2.3 a floor of the sign; Póquer sin descarte 6.2–6.3 and AJ 2.5.6.3 only the
    // starting amount): the rulebook must say it, never a default.
    let kinds = "`floor` (the sign never shows less: IPLyC 3.2.2, 11.2.2, 15.2.3) or `start` (only the amount the \
                 pool starts and restarts at; the sign shows the balance: Póquer sin descarte 6.3, AJ 2.5.6.3)";
    let minimum_kind = match pool.minimum_kind.as_deref() {
        None => return Err(at.error("minimum_kind", format!("missing field: say what the minimum means, {kinds}"))),
        Some(name) => MinimumKind::NAMES
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, kind)| *kind)
            .ok_or_else(|| at.error("minimum_kind", format!("unknown kind `{name}`: the minimum is {kinds}")))?,
    };
    let side_bet = Money::new(at.positive("side_bet", pool.side_bet.0)?);
    if !is_multiple_of(side_bet, CENT) {
        return Err(at.error("side_bet", format!("{side_bet} is finer than one centavo")));
    }
    let payout_unit = Money::new(at.positive("payout_unit", pool.payout_unit.0)?);
    if !is_multiple_of(payout_unit, CENT) {
        return Err(at.error("payout_unit", format!("{payout_unit} is finer than one centavo")));
    }

    let contribution_rate = at.rate("contribution_rate", pool.contribution_rate.0)?;
    if contribution_rate.is_zero() {
        return Err(at.error("contribution_rate", "a pool that receives nothing cannot grow"));
    }
    let reserve_rate = at.rate("reserve_rate", pool.reserve_rate.map(|rate| rate.0).unwrap_or_default())?;
    let commission_rate = at.rate("commission_rate", pool.commission_rate.map(|rate| rate.0).unwrap_or_default())?;
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
    let seats_max = match pool.seats_max {
        None => None,
        Some(SeatsMaxDoc { seats, article }) => {
            if !(1..=16).contains(&seats) {
                return Err(at.error("seats_max.seats", "must be a whole number from 1 to 16"));
            }
            Some(SeatsMax { seats, article: article.0 })
        }
    };
    let mut exclusive: Vec<Vec<PrizeCode>> = Vec::with_capacity(pool.exclusive.len());
    for group in pool.exclusive {
        if group.len() < 2 {
            return Err(at.error("exclusive", "each group is an array of two or more premio codes"));
        }
        exclusive.push(group.into_iter().map(PrizeCode::from).collect());
    }

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

    let mut prizes: Vec<Prize> = Vec::with_capacity(pool.prize.len());
    for (index, written) in pool.prize.into_iter().enumerate() {
        let prize = prize(&Place { file, pool: Some(id), prefix: format!("prize[{index}].") }, written)?;
        if prizes.iter().any(|earlier| earlier.code == prize.code) {
            return Err(at.error(&format!("prize[{index}].code"), format!("duplicate code `{}`", prize.code)));
        }
        prizes.push(prize);
    }
    if prizes.is_empty() {
        return Err(at.error("prize", "a pool needs at least one prize"));
    }

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
    })
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
    Ok(Prize { code: PrizeCode::from(code), name: written.name.0, article: written.article.0, value, grants })
}
