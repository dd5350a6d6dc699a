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
    /// Floor and reset value; the displayed amount is never under it (docs/readings.md, "Displayed amount = max(balance, minimum)").
    pub minimum: Money,
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

    /// True where the rulebook fixes one side-bet amount.
    pub fn fixed_bet(&self) -> bool {
        self.bet_min == self.bet_max
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

/// Reads the fields of one TOML table, remembering which were read so that an
/// unknown (misspelt) field is refused rather than silently ignored.
struct Fields<'a> {
    file: &'a str,
    pool: Option<&'a str>,
    prefix: String,
    table: &'a Table,
    read: BTreeSet<&'a str>,
}

impl<'a> Fields<'a> {
    fn new(file: &'a str, pool: Option<&'a str>, prefix: String, table: &'a Table) -> Fields<'a> {
        Fields { file, pool, prefix, table, read: BTreeSet::new() }
    }

    fn path(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    fn error(&self, key: &str, problem: impl fmt::Display) -> RulebookError {
        RulebookError::field(self.file, self.pool, &self.path(key), problem)
    }

    fn get(&mut self, key: &'a str) -> Option<&'a Value> {
        self.read.insert(key);
        self.table.get(key)
    }

    fn required(&mut self, key: &'a str) -> Result<&'a Value, RulebookError> {
        self.get(key).ok_or_else(|| self.error(key, "missing field"))
    }

    fn string(&mut self, key: &'a str) -> Result<&'a str, RulebookError> {
        match self.required(key)? {
            Value::String(text) if !text.trim().is_empty() => Ok(text),
            Value::String(_) => Err(self.error(key, "must not be empty")),
            other => Err(self.error(key, format!("must be a string, found {}", other.type_str()))),
        }
    }

    fn optional_decimal(&mut self, key: &'a str) -> Result<Option<Decimal>, RulebookError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(text)) => {
                text.trim().parse::<Decimal>().map(Some).map_err(|_| self.error(key, format!("`{text}` is not a decimal number")))
            }
            Some(Value::Integer(number)) => Ok(Some(Decimal::from(*number))),
            Some(Value::Float(number)) => Err(self.error(
                key,
                format!("write {number} as a string (\"{number}\"): money and rates are exact decimals, never floats"),
            )),
            Some(other) => Err(self.error(key, format!("must be a decimal string, found {}", other.type_str()))),
        }
    }

    fn decimal(&mut self, key: &'a str) -> Result<Decimal, RulebookError> {
        self.optional_decimal(key)?.ok_or_else(|| self.error(key, "missing field"))
    }

    fn optional_money(&mut self, key: &'a str) -> Result<Option<Money>, RulebookError> {
        Ok(self.optional_decimal(key)?.map(Money::new))
    }

    fn money(&mut self, key: &'a str) -> Result<Money, RulebookError> {
        Ok(Money::new(self.decimal(key)?))
    }

    fn optional_bool(&mut self, key: &'a str) -> Result<bool, RulebookError> {
        match self.get(key) {
            None => Ok(false),
            Some(Value::Boolean(flag)) => Ok(*flag),
            Some(other) => Err(self.error(key, format!("must be true or false, found {}", other.type_str()))),
        }
    }

    fn tables(&mut self, key: &'a str) -> Result<Vec<&'a Table>, RulebookError> {
        match self.required(key)? {
            Value::Array(items) => {
                items.iter().map(|item| item.as_table().ok_or_else(|| self.error(key, "every entry must be a table"))).collect()
            }
            other => Err(self.error(key, format!("must be an array of tables ([[{key}]]), found {}", other.type_str()))),
        }
    }

    fn strings(&mut self, key: &'a str) -> Result<Vec<String>, RulebookError> {
        match self.required(key)? {
            Value::Array(items) => items
                .iter()
                .map(|item| item.as_str().map(str::to_owned).ok_or_else(|| self.error(key, "every entry must be a string")))
                .collect(),
            other => Err(self.error(key, format!("must be an array of strings, found {}", other.type_str()))),
        }
    }

    /// Refuses any field that was never read: a typo must not pass silently.
    fn finish(self) -> Result<(), RulebookError> {
        match self.table.keys().find(|key| !self.read.contains(key.as_str())) {
            Some(unknown) => {
                let problem = match crate::suggest::nearest(unknown, self.read.iter().copied()) {
                    Some(known) => format!("unknown field (did you mean `{known}`?)"),
                    None => format!("unknown field (known here: {})", self.read.iter().copied().collect::<Vec<_>>().join(", ")),
                };
                Err(self.error(unknown, problem))
            }
            None => Ok(()),
        }
    }
}

fn check_rate(fields: &Fields<'_>, key: &str, rate: Decimal) -> Result<(), RulebookError> {
    if rate < Decimal::ZERO || rate > Decimal::ONE {
        return Err(fields.error(key, format!("rate {rate} is outside 0–1")));
    }
    Ok(())
}

fn check_positive(fields: &Fields<'_>, key: &str, amount: Decimal) -> Result<(), RulebookError> {
    if amount <= Decimal::ZERO {
        return Err(fields.error(key, format!("must be greater than zero, found {amount}")));
    }
    Ok(())
}

fn is_code(text: &str) -> bool {
    !text.is_empty()
        && text.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && text.starts_with(|c: char| c.is_ascii_uppercase())
}

/// Parses one rulebook file into its validated pools.
pub fn parse_file(file: &str, text: &str) -> Result<Vec<PoolRules>, RulebookError> {
    let table: Table = text
        .parse()
        .map_err(|error: toml::de::Error| RulebookError::Syntax { file: file.to_owned(), message: error.message().to_owned() })?;
    let mut top = Fields::new(file, None, String::new(), &table);
    top.string("regulation")?;
    top.string("source")?;
    let venta_pagos_over = top.money("venta_pagos_over")?;
    if venta_pagos_over < Money::ZERO || !is_multiple_of(venta_pagos_over, CENT) {
        return Err(top.error("venta_pagos_over", format!("{venta_pagos_over} is not an amount in whole centavos ≥ 0 (3.5.2)")));
    }
    let pool_tables = top.tables("pool")?;
    top.finish().map_err(|error| with_line(error, text))?;
    if pool_tables.is_empty() {
        return Err(RulebookError::field(file, None, "pool", "a rulebook needs at least one pool"));
    }
    pool_tables
        .into_iter()
        .map(|pool| parse_pool(file, pool, venta_pagos_over))
        .collect::<Result<_, _>>()
        .map_err(|error| with_line(error, text))
}

/// An unknown field's refusal with the line it is on (`unknown field at line 47 …`), found in
/// the text from the line that names its pool: the TOML table the reader walks keeps no places.
fn with_line(error: RulebookError, text: &str) -> RulebookError {
    let RulebookError::Field { file, pool, field, problem } = error else { return error };
    if !problem.starts_with("unknown field") {
        return RulebookError::Field { file, pool, field, problem };
    }
    let key = field.rsplit('.').next().unwrap_or(&field);
    let key = key.split('[').next().unwrap_or(key);
    let lines: Vec<&str> = text.lines().collect();
    let start = pool
        .as_deref()
        .and_then(|pool| {
            lines.iter().position(|line| line.trim_start().starts_with("id") && line.contains(&format!("\"{pool}\"")))
        })
        .unwrap_or(0);
    let names = |line: &str| {
        line.trim_start().strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with('='))
            || line.contains(&format!("{{ {key} ="))
            || line.contains(&format!(", {key} ="))
    };
    let found = lines
        .iter()
        .skip(start)
        .position(|line| names(line))
        .map(|index| index + start)
        .or_else(|| lines.iter().position(|line| names(line)));
    let problem = match found {
        Some(index) => problem.replacen("unknown field", &format!("unknown field at line {}", index + 1), 1),
        None => problem,
    };
    RulebookError::Field { file, pool, field, problem }
}

fn parse_pool(file: &str, table: &Table, venta_pagos_over: Money) -> Result<PoolRules, RulebookError> {
    let id = match table.get("id") {
        Some(Value::String(id)) if !id.is_empty() => id.as_str(),
        _ => return Err(RulebookError::field(file, None, "pool.id", "missing field (every pool needs a string id)")),
    };
    let mut fields = Fields::new(file, Some(id), String::new(), table);
    fields.string("id")?;
    let name = fields.string("name")?.to_owned();
    let articles = fields.string("articles")?.to_owned();

    let names = fields.strings("games")?;
    if names.is_empty() {
        return Err(fields.error("games", "a pool needs at least one game type"));
    }
    let games = names
        .iter()
        .map(|name| Game::parse(name))
        .collect::<Result<Vec<Game>, String>>()
        .map_err(|unknown| fields.error("games", unknown))?;

    let policy_name = fields.string("policy")?;
    let policy = Policy::parse(policy_name).ok_or_else(|| {
        let known: Vec<&str> = Policy::NAMES.iter().map(|(name, _)| *name).collect();
        fields.error("policy", format!("unknown policy `{policy_name}` (known: {})", known.join(", ")))
    })?;

    let minimum = fields.money("minimum")?;
    if minimum < Money::ZERO {
        return Err(fields.error("minimum", format!("must not be negative, found {minimum}")));
    }
    let side_bet = fields.money("side_bet")?;
    check_positive(&fields, "side_bet", side_bet.decimal())?;
    if !is_multiple_of(side_bet, CENT) {
        return Err(fields.error("side_bet", format!("{side_bet} is finer than one centavo")));
    }
    let payout_unit = fields.money("payout_unit")?;
    check_positive(&fields, "payout_unit", payout_unit.decimal())?;
    if !is_multiple_of(payout_unit, CENT) {
        return Err(fields.error("payout_unit", format!("{payout_unit} is finer than one centavo")));
    }

    let contribution_rate = fields.decimal("contribution_rate")?;
    check_rate(&fields, "contribution_rate", contribution_rate)?;
    if contribution_rate.is_zero() {
        return Err(fields.error("contribution_rate", "a pool that receives nothing cannot grow"));
    }
    let reserve_rate = fields.optional_decimal("reserve_rate")?.unwrap_or_default();
    check_rate(&fields, "reserve_rate", reserve_rate)?;
    let commission_rate = fields.optional_decimal("commission_rate")?.unwrap_or_default();
    check_rate(&fields, "commission_rate", commission_rate)?;
    // Every centavo of a side bet goes somewhere: the pool (65% in IPLyC 3.2.1), the
    // reserve and the house's commission (AJ 2.5.6.3). Rates that do not add up to the
    // whole bet would create or lose money with every bet.
    let rates_sum = contribution_rate + reserve_rate + commission_rate;
    if rates_sum != Decimal::ONE {
        return Err(fields.error(
            "commission_rate",
            format!(
                "contribution_rate + reserve_rate + commission_rate = {rates_sum}, not 1: the whole side bet must be \
                 shared (3.2.1, AJ 2.5.6.3)"
            ),
        ));
    }
    let shortfall_name = fields.string("shortfall_from")?;
    let shortfall_from =
        Shortfall::NAMES.iter().find(|(name, _)| *name == shortfall_name).map(|(_, value)| *value).ok_or_else(|| {
            fields.error("shortfall_from", format!("`{shortfall_name}` is not `house` or `reserve-then-house`"))
        })?;
    if shortfall_from == Shortfall::ReserveThenHouse && reserve_rate.is_zero() {
        return Err(fields.error("shortfall_from", "`reserve-then-house` needs a reserve pool: reserve_rate is 0 (AJ 2.5.6.3)"));
    }
    if shortfall_from == Shortfall::House && !reserve_rate.is_zero() {
        return Err(fields.error(
            "shortfall_from",
            "a pool with a reserve (reserve_rate > 0) uses it first: `reserve-then-house` (AJ 2.5.6.3)",
        ));
    }
    // Veintiuno e: "una cantidad única estipulada": `fixed_bet` takes that one amount
    // only; otherwise any bet from `bet_min` to `bet_max` (AJ 2.5.5.1).
    let fixed_bet = fields.optional_bool("fixed_bet")?;
    let (bet_min, bet_max) = if fixed_bet {
        for key in ["bet_min", "bet_max"] {
            if fields.get(key).is_some() {
                return Err(fields.error(key, "a pool with fixed_bet = true takes only side_bet"));
            }
        }
        (side_bet, side_bet)
    } else {
        (fields.optional_money("bet_min")?.unwrap_or(CENT), fields.optional_money("bet_max")?.unwrap_or(crate::money::BET_MAX))
    };
    for (key, bet) in [("bet_min", bet_min), ("bet_max", bet_max)] {
        check_positive(&fields, key, bet.decimal())?;
        if !is_multiple_of(bet, CENT) || bet > crate::money::BET_MAX {
            return Err(fields.error(key, format!("{bet} is not a bet in whole centavos up to {}", crate::money::BET_MAX)));
        }
    }
    if !(bet_min <= side_bet && side_bet <= bet_max) {
        return Err(fields.error("side_bet", format!("{side_bet} is outside bet_min {bet_min} – bet_max {bet_max}")));
    }
    let instant_card_chance = fields.optional_decimal("instant_card_chance")?;
    if let Some(chance) = instant_card_chance
        && (chance <= Decimal::ZERO || chance > Decimal::ONE)
    {
        return Err(fields.error("instant_card_chance", format!("{chance} is not a chance in (0, 1] (15.11.2)")));
    }
    if games.contains(&Game::CentralPoker) && instant_card_chance.is_none() {
        return Err(fields.error(
            "instant_card_chance",
            "missing field: Central Póker shows a premio instantáneo card \"en forma aleatoria y sorpresiva\" (15.11.2)",
        ));
    }
    // `seats_max = { seats = 5, article = "16.3.1" }`: the article is named when a
    // layout breaks it.
    let seats_max = match fields.get("seats_max") {
        None => None,
        Some(Value::Table(limit)) => {
            let mut limit_fields = Fields::new(file, Some(id), "seats_max.".to_owned(), limit);
            let seats = match limit_fields.required("seats")? {
                Value::Integer(seats) if (1..=16).contains(seats) => *seats as u32,
                _ => return Err(limit_fields.error("seats", "must be a whole number from 1 to 16")),
            };
            let article = limit_fields.string("article")?.to_owned();
            limit_fields.finish()?;
            Some(SeatsMax { seats, article })
        }
        Some(_) => return Err(fields.error("seats_max", "must be a table { seats, article }")),
    };
    let exclusive: Vec<Vec<PrizeCode>> = match fields.get("exclusive") {
        None => Vec::new(),
        Some(Value::Array(groups)) => groups
            .iter()
            .map(|group| match group {
                Value::Array(codes) if codes.len() >= 2 => codes
                    .iter()
                    .map(|code| code.as_str().map(PrizeCode::new).ok_or_else(|| fields.error("exclusive", "codes are strings")))
                    .collect(),
                _ => Err(fields.error("exclusive", "each group is an array of two or more premio codes")),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(fields.error("exclusive", "must be an array of arrays of premio codes")),
    };

    // Andalucía, Póquer sin descarte rule 6.2: the carrusel starts at no less than
    // 5,000 times the side bet; the rulebook states such a floor and we check it.
    if let Some(side_bets) = fields.optional_decimal("minimum_at_least_side_bets")? {
        let floor = side_bets * side_bet;
        if minimum < floor {
            return Err(fields
                .error("minimum", format!("{minimum} is under {side_bets} × side_bet = {floor} (minimum_at_least_side_bets)")));
        }
    }
    let highest_only = fields.optional_bool("highest_only")?;

    let mut prizes: Vec<Prize> = Vec::new();
    for (index, prize_table) in fields.tables("prize")?.into_iter().enumerate() {
        let prize = parse_prize(file, id, index, prize_table)?;
        if prizes.iter().any(|earlier| earlier.code == prize.code) {
            return Err(RulebookError::field(
                file,
                Some(id),
                &format!("prize[{index}].code"),
                format!("duplicate code `{}`", prize.code),
            ));
        }
        prizes.push(prize);
    }
    if prizes.is_empty() {
        return Err(fields.error("prize", "a pool needs at least one prize"));
    }
    fields.finish()?;

    let mut grouped = BTreeSet::new();
    for (group_index, group) in exclusive.iter().enumerate() {
        for code in group {
            if !prizes.iter().any(|prize| &prize.code == code) {
                return Err(RulebookError::field(
                    file,
                    Some(id),
                    &format!("exclusive[{group_index}]"),
                    format!("`{code}` is not a code of this pool"),
                ));
            }
            if !grouped.insert(code.as_str()) {
                return Err(RulebookError::field(
                    file,
                    Some(id),
                    &format!("exclusive[{group_index}]"),
                    format!("`{code}` is in more than one group"),
                ));
            }
        }
    }

    for (index, prize) in prizes.iter().enumerate() {
        if let PrizeValue::BetMultiple { multiple } = prize.value
            && crate::money::floor_to_unit(multiple * bet_min, payout_unit).is_zero()
        {
            return Err(RulebookError::field(
                file,
                Some(id),
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
            return Err(RulebookError::field(
                file,
                Some(id),
                &format!("prize[{index}].grants.code"),
                format!("`{}` is not a code of this pool", grant.code),
            ));
        }
        if let PrizeValue::Percent { floor_bet_multiple: Some(multiple), .. } = prize.value {
            // Veintiuno rule e: the whole bolsa is never less than 3,000 times the bet;
            // the minimum must honour that floor for the stipulated bet.
            if minimum < multiple * side_bet {
                return Err(RulebookError::field(
                    file,
                    Some(id),
                    "minimum",
                    format!("{minimum} is under the floor of `{}`: {multiple} × side_bet = {}", prize.code, multiple * side_bet),
                ));
            }
        }
    }

    Ok(PoolRules {
        id: PoolId::new(id),
        name,
        file: file.to_owned(),
        articles,
        games,
        policy,
        minimum,
        side_bet,
        payout_unit,
        contribution_rate,
        reserve_rate,
        commission_rate,
        highest_only,
        shortfall_from,
        bet_min,
        bet_max,
        exclusive,
        venta_pagos_over,
        seats_max,
        instant_card_chance,
        prizes,
    })
}

fn parse_prize(file: &str, pool: &str, index: usize, table: &Table) -> Result<Prize, RulebookError> {
    let mut fields = Fields::new(file, Some(pool), format!("prize[{index}]."), table);
    let code = fields.string("code")?.to_owned();
    if !is_code(&code) {
        return Err(fields.error("code", format!("`{code}` is not an upper snake case premio code")));
    }
    let name = fields.string("name")?.to_owned();
    let article = fields.string("article")?.to_owned();
    let pays = fields.string("pays")?;
    let value = match pays {
        "grant" => PrizeValue::Grant,
        "fixed" => {
            let amount = fields.money("amount")?;
            check_positive(&fields, "amount", amount.decimal())?;
            PrizeValue::Fixed { amount }
        }
        "bet-multiple" => {
            let multiple = fields.decimal("multiple")?;
            check_positive(&fields, "multiple", multiple)?;
            PrizeValue::BetMultiple { multiple }
        }
        "percent" => {
            let percent = fields.decimal("percent")?;
            if percent <= Decimal::ZERO || percent > Decimal::ONE_HUNDRED {
                return Err(fields.error("percent", format!("percent {percent} is outside (0, 100]")));
            }
            let cap_bet_multiple = fields.optional_decimal("cap_bet_multiple")?;
            if let Some(cap) = cap_bet_multiple {
                check_positive(&fields, "cap_bet_multiple", cap)?;
            }
            let floor_bet_multiple = fields.optional_decimal("floor_bet_multiple")?;
            if let Some(floor) = floor_bet_multiple {
                check_positive(&fields, "floor_bet_multiple", floor)?;
                if percent != Decimal::ONE_HUNDRED {
                    return Err(fields.error("floor_bet_multiple", "a floor is only defined for the whole pool (100%)"));
                }
            }
            PrizeValue::Percent { percent, cap_bet_multiple, floor_bet_multiple }
        }
        other => {
            return Err(fields.error("pays", format!("unknown kind `{other}` (known: grant, fixed, bet-multiple, percent)")));
        }
    };
    let grants = match fields.get("grants") {
        None => None,
        Some(Value::Table(grant)) => {
            let mut grant_fields = Fields::new(file, Some(pool), format!("prize[{index}].grants."), grant);
            let code = grant_fields.string("code")?.to_owned();
            let count = match grant_fields.required("count")? {
                Value::Integer(count) if (1..=10).contains(count) => *count as u32,
                _ => return Err(grant_fields.error("count", "must be a whole number from 1 to 10")),
            };
            grant_fields.finish()?;
            Some(Grant { code: PrizeCode::from(code), count })
        }
        Some(_) => return Err(fields.error("grants", "must be a table { code, count }")),
    };
    if value == PrizeValue::Grant && grants.is_none() {
        return Err(fields.error("grants", "a prize that pays `grant` must say what it grants"));
    }
    fields.finish()?;
    Ok(Prize { code: PrizeCode::from(code), name, article, value, grants })
}
