//! Rulebooks: every pool of the regulations as data (TOML in `config/`).
//!
//! A rulebook is parsed from text the caller read (the engine does no I/O) and
//! validated completely before any pool is built from it: a broken rulebook is
//! refused at start-up with an error naming the file, the pool and the field.
//! Rates and money are written as decimal strings (`"0.65"`), never as TOML
//! floats, so that no binary fraction ever reaches a pool.
//!
//! # Layout
//! - this file: the rules as data ([`PoolRules`], [`Rulebooks`], games, grillos, prizes) and
//!   why a rulebook is refused ([`RulebookError`]).
//! - `file`: a rulebook file as written (TOML), parsed and checked against the articles
//!   into those types; it imports from this file, never the other way.

use std::collections::BTreeMap;
use std::fmt;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::ids::{PoolId, PrizeCode};
use crate::money::Money;

mod file;
pub(crate) use file::{Exact, Text};

/// The rulebooks compiled into the binary: the default when no `--rulebook` is given.
pub const EMBEDDED: [(&str, &str); 3] = [
    ("config/iplyc.toml", include_str!("../../../../config/iplyc.toml")),
    ("config/aj-bolivia.toml", include_str!("../../../../config/aj-bolivia.toml")),
    ("config/andalucia.toml", include_str!("../../../../config/andalucia.toml")),
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
    /// Three Card Poker of the Uruguay procedures (seed 003; docs/odds.md): three cards each, the
    /// dealer qualifies with a queen or better; its progressive is a market one (docs/readings.md).
    ThreeCardPoker,
}

impl Game {
    /// Every game, in the order the files list them.
    pub const ALL: [Game; 10] = [
        Game::RuletaAmericana,
        Game::Blackjack,
        Game::CentralPoker,
        Game::CaribbeanPoker,
        Game::GoPoker,
        Game::DrawPoker,
        Game::PokerSinDescarte,
        Game::Tripoker,
        Game::Veintiuno,
        Game::ThreeCardPoker,
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
            Game::ThreeCardPoker => "three-card-poker",
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
    pub(crate) fn needs_bet(&self) -> bool {
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

/// Where a capped level's share goes once its meter reaches the cap (docs/readings.md, "Levels").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overflow {
    /// To another level of the pool, by index.
    Level(usize),
    /// To the capped level's own reserve, which funds its next reset.
    Reserve,
}

/// One level (tier) of a pool with levels: Mini, Minor, Major, Grand … (docs/readings.md,
/// "Levels"). A pool of the regulations has none written: it is a pool of one level, the
/// pool's own `minimum`, `minimum_kind`, `contribution_rate` and `reserve_rate`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelRules {
    /// As the sign and the reports name it ("Grand").
    pub name: String,
    /// Share of each bet added to this level's meter.
    pub share: Decimal,
    /// Share of each bet set aside for this level's next reset.
    pub reserve_share: Decimal,
    /// The amount the level opens at and is brought back to after it is won whole.
    pub reset: Money,
    /// Whether `reset` is also a floor of the meter, as `minimum_kind` says for one level.
    pub minimum_kind: MinimumKind,
    /// Above this the level's share overflows to `overflow`.
    pub cap: Option<(Money, Overflow)>,
    /// The level the house pays envy bonuses from: not written in a rulebook, holds nothing,
    /// every award in it is the house's money (`envy.paid_by = "house"`).
    pub house: bool,
    /// Awards of this level over this go to Venta-Pagos (the file's threshold otherwise).
    pub venta_pagos_over: Option<Money>,
    /// A banked level: one meter per flor or per salon, each fed and won by its own bank's
    /// tables (a banked hybrid: a level per bank, the others shared by every table of the pool).
    pub bank: Option<BankBy>,
    /// A mystery level's advertised ceiling ("debe salir antes de …", docs/readings.md, "The
    /// mystery level"): it hits at a trigger drawn in (reset, ceiling] at each reset, never
    /// by a hand.
    pub must_hit_by: Option<Money>,
    /// A mystery level's hot seat: the premio code of the fixed amount the house pays, at each
    /// hit of the level, to one seat drawn among those with a bet in force in the link.
    pub hot_seat: Option<PrizeCode>,
}

/// What a banked level keeps a meter per.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BankBy {
    Flor,
    Salon,
}

impl BankBy {
    pub fn name(self) -> &'static str {
        match self {
            BankBy::Flor => "flor",
            BankBy::Salon => "salon",
        }
    }
}

/// Where a table is, for a pool with banked levels: its flor and its salon (the layout's).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Bank {
    pub flor: String,
    pub salon: String,
}

impl Bank {
    /// The bank a level of `by` keeps its meter for.
    pub fn key(&self, by: BankBy) -> &str {
        match by {
            BankBy::Flor => &self.flor,
            BankBy::Salon => &self.salon,
        }
    }
}

impl LevelRules {
    /// A mystery ("must hit by") level: won by a drawn trigger, not by a hand.
    pub fn is_mystery(&self) -> bool {
        self.must_hit_by.is_some()
    }

    /// Who completes the level's meter to pay a prize or reset: its own reserve first whenever
    /// it has one (a reserve share, or a cap that overflows into it), then the house.
    pub fn shortfall_from(&self) -> Shortfall {
        // A mystery level's reserve also holds what its hits left beyond their triggers.
        let overflows_to_reserve = matches!(self.cap, Some((_, Overflow::Reserve))) || self.is_mystery();
        if self.reserve_share.is_zero() && !overflows_to_reserve { Shortfall::House } else { Shortfall::ReserveThenHouse }
    }
}

/// Who an envy bonus goes to: the other seats with a bet in force at the hitting table, or
/// at every table of the link (docs/readings.md, "The envy bonus").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnvyScope {
    Table,
    Link,
}

impl EnvyScope {
    pub fn name(self) -> &'static str {
        match self {
            EnvyScope::Table => "table",
            EnvyScope::Link => "link",
        }
    }
}

/// The envy bonus a top hand gives every *other* seat with a bet in force in the same round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Envy {
    /// The envy award's own premio code, in the paytable (`pays` fixed, `envy_of` the hand).
    pub code: PrizeCode,
    pub scope: EnvyScope,
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
    /// The level it is paid from (0 in a pool of one level).
    pub level: usize,
    /// The games whose tables may mark it; empty: every game of the pool (a link across
    /// games, each with its own paytable into the shared levels).
    pub games: Vec<Game>,
    /// The envy bonus this hand gives the other seats, if any.
    pub envy: Option<Envy>,
    /// For an envy award's own line: the hand that gives it.
    pub envy_of: Option<PrizeCode>,
    /// Awards of this prize over this go to Venta-Pagos (its level's, or the file's, otherwise).
    pub venta_pagos_over: Option<Money>,
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
    pub(crate) bet_article: String,
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
    /// The levels, first the one the pool's own fields describe; empty in a pool of one
    /// level (every pool of the regulations).
    pub levels: Vec<LevelRules>,
    /// The rules of the house's level ([`LevelRules::house`]): every award paid in full, by
    /// the house, never prorated (it holds no meter to share).
    pub pays_in_full: bool,
    /// A link across games: the fixed side bet of a game whose bet is not the pool's
    /// (`game_bets = { "three-card-poker" = "500.00" }`); empty otherwise.
    pub game_bets: Vec<(Game, Money)>,
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
    pub(crate) fn exclusive_group(&self, code: &str) -> Option<&[PrizeCode]> {
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

    /// The side bet at a table of `game`: its own where the rulebook sets one (a link across
    /// games, each game its own bet: `game_bets`), else the pool's.
    pub fn side_bet_for(&self, game: Game) -> Money {
        self.game_bets.iter().find(|(of, _)| *of == game).map(|(_, bet)| *bet).unwrap_or(self.side_bet)
    }

    /// The bet a stake of `credits` makes at a table of `game`.
    pub fn bet_for(&self, game: Game, credits: u32) -> Money {
        self.side_bet_for(game) * Decimal::from(credits)
    }

    /// True where the rulebook fixes one side-bet amount (one per game in a link across games).
    pub fn fixed_bet(&self) -> bool {
        self.bet_min == self.bet_max
    }

    /// Whether `bet` is one of the fixed side bets: the pool's, or a game's own.
    pub fn is_a_fixed_bet(&self, bet: Money) -> bool {
        bet == self.side_bet || self.game_bets.iter().any(|(_, own)| *own == bet)
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

    /// The amount over which an award of `code` goes to Venta-Pagos (besides every percentage
    /// prize, 3.5.2): the prize's own threshold, else its level's, else the rulebook file's
    /// (docs/readings.md, "The Venta-Pagos threshold").
    pub fn venta_pagos_over_for(&self, code: &str) -> Money {
        let prize = self.prize(code);
        prize
            .and_then(|prize| prize.venta_pagos_over)
            .or_else(|| prize.and_then(|prize| self.levels.get(prize.level)).and_then(|level| level.venta_pagos_over))
            .unwrap_or(self.venta_pagos_over)
    }

    /// True when some level keeps a meter per bank.
    pub fn has_banks(&self) -> bool {
        self.levels.iter().any(|level| level.bank.is_some())
    }

    /// How many levels the pool has: 1 for a pool of the regulations.
    pub fn level_count(&self) -> usize {
        self.levels.len().max(1)
    }

    /// The name of level `index`, or `None` in a pool of one level.
    pub fn level_name(&self, index: usize) -> Option<&str> {
        self.levels.get(index).map(|level| level.name.as_str())
    }

    /// The level a premio code is paid from (0 for an unknown code).
    pub fn level_of(&self, code: &str) -> usize {
        self.prize(code).map(|prize| prize.level).unwrap_or(0)
    }

    /// True when a table of `game` may mark `code` (a link across games: each game its
    /// own paytable into the shared levels). Envy awards are never marked: they follow.
    pub fn game_marks(&self, game: Game, code: &str) -> bool {
        self.prize(code).is_some_and(|prize| prize.envy_of.is_none() && (prize.games.is_empty() || prize.games.contains(&game)))
    }

    /// The rules of level `index` ≥ 1 as a pool of one level: its share, reserve, reset and
    /// floor; the whole paytable (only that level's winners are settled on it).
    /// The mystery levels ([`LevelRules::must_hit_by`]), by index.
    pub fn mystery_levels(&self) -> impl Iterator<Item = (usize, &LevelRules)> {
        self.levels.iter().enumerate().filter(|(_, level)| level.is_mystery())
    }

    /// The paytable line a mystery level pays its hit by: the one prize paid from it.
    pub fn mystery_prize(&self, level: usize) -> Option<&Prize> {
        self.levels.get(level).filter(|rules| rules.is_mystery())?;
        self.prizes.iter().find(|prize| prize.level == level)
    }

    /// Whether a dealer may enter this code: not a mystery level's hit nor a hot seat, which
    /// the controller's draw decides (docs/readings.md, "The mystery level").
    pub fn is_drawn(&self, code: &str) -> bool {
        self.prize(code).is_some_and(|prize| {
            self.levels.get(prize.level).is_some_and(LevelRules::is_mystery)
                || self.levels.iter().any(|level| level.hot_seat.as_deref() == Some(code))
        })
    }

    pub fn level_rules(&self, index: usize) -> PoolRules {
        let level = &self.levels[index];
        PoolRules {
            minimum: level.reset,
            minimum_kind: level.minimum_kind,
            contribution_rate: level.share,
            reserve_rate: level.reserve_share,
            commission_rate: Decimal::ZERO,
            shortfall_from: level.shortfall_from(),
            levels: Vec::new(),
            pays_in_full: level.house,
            game_bets: self.game_bets.clone(),
            ..self.clone()
        }
    }
}

/// A validated set of rulebooks, pools keyed by id.
#[derive(Clone, Debug, Default)]
pub struct Rulebooks {
    pools: BTreeMap<PoolId, PoolRules>,
}

impl Rulebooks {
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
