//! The prize arithmetic of a poker tournament (Lotería Nacional Res. 123/2013, "Normas generales
//! para torneos de poker en la variante Texas Hold'em"): the structure an event publishes, as
//! validated data (`config/torneos.toml`); what its purchases collected; the prize pool and the
//! house's part of each item; each position's prize; and the equal splits of ties and of a
//! disqualified player's prize. Pure like the rest of the engine: no I/O, no clock, no randomness
//! (the seat draw of art. 11, 15 and 88 is not here).
//!
//! - [`Structure`]: one `[[torneo]]` of a structures file, parsed and checked by
//!   [`Structure::parse`] (`tournament/file.rs`), refusals as [`StructureError`].
//! - [`Collected`]: the purchases of one event by item (IN, RB, AD), less refunds.
//! - [`PrizePool::of`]: the pool and the house's part (art. 62–64).
//! - [`payouts`]: each position's prize (art. 65, 26).
//! - [`split`], [`redistribute`]: equal parts of tied positions (art. 71, 72) and of a
//!   disqualified player's prize (Anexo II).

use std::fmt;

use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde::{Deserialize, Serialize};

use crate::error::EngineError;
use crate::money::{Money, floor_div, floor_to_unit, is_multiple_of};

mod file;

/// The least share of each item that goes to prizes: 70 % (Res. 123/2013 art. 62; Anexo IV 6:
/// the house's share "no podrá exceder el 30 % del total de cada ítem").
pub const TO_PRIZES_MIN: Decimal = Decimal::from_parts(70, 0, 0, false, 2);

/// The most a Sit & Go seats: one table of ten (Res. 123/2013 art. 26).
pub const SIT_AND_GO_MAX: u32 = 10;

/// The most entrants a structure accepts, and so the most players a split or a redistribution
/// shares among.
pub const ENTRANTS_MAX: u32 = 100_000;

/// The largest amount [`payouts`], [`split`] and [`redistribute`] take (10^18): more than any
/// structure can collect (10^5 entrants, 201 purchases each at most, 10^9 each), and far inside
/// `Decimal`'s exact range for every product they make.
pub const AMOUNT_MAX: Money = Money::new(Decimal::from_parts(2_808_348_672, 232_830_643, 0, false, 0));

/// What kind of event a structure describes (Res. 123/2013 Anexo I art. 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A multi-table tournament (`multimesa`).
    Multimesa,
    /// A single-table Sit & Go of up to ten players (`sit_and_go`; art. 26).
    SitAndGo,
}

impl Kind {
    /// The names a structures file writes, with the kind each stands for.
    pub const NAMES: [(&'static str, Kind); 2] = [("multimesa", Kind::Multimesa), ("sit_and_go", Kind::SitAndGo)];

    /// The name a structures file writes.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Multimesa => "multimesa",
            Kind::SitAndGo => "sit_and_go",
        }
    }
}

/// What a purchase buys: an item of Anexo IV 6, booked with its transaction code (Anexo IV 1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Item {
    /// The inscription, `IN` (Anexo I art. 1 item 5).
    #[serde(rename = "IN")]
    BuyIn,
    /// A rebuy, `RB` (Anexo I art. 1 item 6).
    #[serde(rename = "RB")]
    Rebuy,
    /// An add-on, `AD` (Anexo I art. 1 item 7).
    #[serde(rename = "AD")]
    AddOn,
}

impl Item {
    /// The three items, in the order of the articles.
    pub const ALL: [Item; 3] = [Item::BuyIn, Item::Rebuy, Item::AddOn];

    /// The transaction code of Anexo IV 1.3: `IN`, `RB`, `AD`.
    pub fn code(self) -> &'static str {
        match self {
            Item::BuyIn => "IN",
            Item::Rebuy => "RB",
            Item::AddOn => "AD",
        }
    }

    /// The item of a transaction code (`IN`, `RB`, `AD`; Anexo IV 1.3), case as written.
    pub fn parse_code(code: &str) -> Option<Item> {
        Item::ALL.into_iter().find(|item| item.code() == code)
    }

    /// The key a structures file writes: `buy_in`, `rebuy`, `add_on`.
    pub fn key(self) -> &'static str {
        match self {
            Item::BuyIn => "buy_in",
            Item::Rebuy => "rebuy",
            Item::AddOn => "add_on",
        }
    }

    fn index(self) -> usize {
        match self {
            Item::BuyIn => 0,
            Item::Rebuy => 1,
            Item::AddOn => 2,
        }
    }
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// What one item costs and gives, and the share of its price that goes to prizes
/// (Anexo I art. 1 items 5–7 and 9).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Offer {
    /// The price, > 0, a multiple of the payout unit.
    pub price: Money,
    /// The chips it gives, > 0.
    pub chips: u64,
    /// The share of the price that goes to prizes, 0.70–1 (art. 62, Anexo IV 6).
    pub to_prizes: Decimal,
    /// How many one player may buy: 1 for the buy-in, the structure's `per_player` for a rebuy
    /// or an add-on (art. 1 items 6, 7).
    pub per_player: u32,
}

/// One row of the prize table: for a number of entrants at the close of registration, each
/// position's percent of the pool, from first place down (art. 65).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrizeRow {
    /// The fewest entrants the row is for.
    pub min: u32,
    /// The most entrants the row is for.
    pub max: u32,
    /// Each paid position's percent of the pool, first place first: they add to exactly 100, never
    /// increase, and are no more than `min`.
    pub places: Vec<Decimal>,
}

impl PrizeRow {
    /// True when the row is for `entrants`.
    pub fn covers(&self, entrants: u32) -> bool {
        (self.min..=self.max).contains(&entrants)
    }
}

/// The structure an event publishes (Res. 123/2013 Anexo I art. 1), validated: only
/// [`Structure::parse`] makes one, so every structure honours the articles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Structure {
    id: String,
    name: String,
    kind: Kind,
    currency: String,
    payout_unit: Money,
    offers: [Option<Offer>; 3],
    max_entrants: u32,
    premios: Vec<PrizeRow>,
    /// Prizes of this amount or more are paid through the Venta-Pagos office, as a
    /// progressive's large prizes are (docs/readings.md); zero: every prize.
    venta_pagos_from: Money,
    /// How many inscriptions (IN) one player may hold: 1 without re-entry (Anexo I, 32).
    entries_per_player: u32,
}

impl Structure {
    /// A prize of this amount or more is paid through the Venta-Pagos office (zero: every prize).
    pub fn venta_pagos_from(&self) -> Money {
        self.venta_pagos_from
    }

    /// How many inscriptions one player may hold (Res. 123/2013 Anexo I, 32).
    pub fn entries_per_player(&self) -> u32 {
        self.entries_per_player
    }

    /// The structure's id, unique in its file.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The name players and staff read.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Multi-table or Sit & Go (art. 1).
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The currency's ISO 4217 code (`ARS`).
    pub fn currency(&self) -> &str {
        &self.currency
    }

    /// The smallest amount a prize is paid in (whole centavos); prizes are rounded down to it.
    pub fn payout_unit(&self) -> Money {
        self.payout_unit
    }

    /// What `item` costs and gives, or `None` when the event offers none (no rebuys, no add-on).
    pub fn offer(&self, item: Item) -> Option<&Offer> {
        self.offers[item.index()].as_ref()
    }

    /// The buy-in (art. 1 item 5): every event has one.
    pub fn buy_in(&self) -> &Offer {
        self.offers[Item::BuyIn.index()].as_ref().expect("every structure has a buy-in")
    }

    /// The cap on entrants (art. 1 item 8).
    pub fn max_entrants(&self) -> u32 {
        self.max_entrants
    }

    /// The prize table, its rows in order of entrants, covering 2..=`max_entrants` (art. 65).
    pub fn premios(&self) -> &[PrizeRow] {
        &self.premios
    }

    /// The prize table's row for `entrants`, `None` outside 2..=`max_entrants`.
    pub fn row(&self, entrants: u32) -> Option<&PrizeRow> {
        self.premios.iter().find(|row| row.covers(entrants))
    }

    /// Whether a player who already bought `bought` of `item` may buy one more (art. 1 items 6,
    /// 7): refused when the event does not offer the item or the player has bought all he may.
    pub fn may_buy(&self, item: Item, bought: u32) -> Result<(), EngineError> {
        let offer = self.offered(item)?;
        if bought >= offer.per_player {
            return Err(EngineError::not_now(
                item.key(),
                format!(
                    "the player has bought {bought} {} of the {} each player may buy in `{}` (Res. 123/2013 Anexo I art. 1)",
                    item.code(),
                    offer.per_player,
                    self.id
                ),
            ));
        }
        Ok(())
    }

    fn offered(&self, item: Item) -> Result<&Offer, EngineError> {
        self.offer(item).ok_or_else(|| {
            EngineError::invalid(
                item.key(),
                format!(
                    "`{}` offers no {} ({}): its structure does not say one (Res. 123/2013 Anexo I art. 1)",
                    self.id,
                    item.key(),
                    item.code()
                ),
            )
        })
    }
}

/// How many of one item were bought, less refunds, and what they brought in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub count: u32,
    pub amount: Money,
}

/// What one event's purchases collected, item by item (IN, RB, AD), less refunds: each purchase
/// at its structure's price, so `amount == count × price` always.
///
/// The caller books the purchases one by one (Anexo IV 1.3) and says when a refund is allowed
/// (Anexo IV 1.4: only when the player asks before registration closes); this only counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collected {
    structure: String,
    prices: [Option<Money>; 3],
    per_player: [u32; 3],
    max_entrants: u32,
    tallies: [Tally; 3],
}

impl Collected {
    /// Nothing collected yet for `structure`.
    pub fn new(structure: &Structure) -> Collected {
        Collected {
            structure: structure.id.clone(),
            prices: Item::ALL.map(|item| structure.offer(item).map(|offer| offer.price)),
            per_player: Item::ALL.map(|item| structure.offer(item).map(|offer| offer.per_player).unwrap_or_default()),
            max_entrants: structure.max_entrants,
            tallies: [Tally::default(); 3],
        }
    }

    /// The id of the structure the purchases were made under.
    pub fn structure(&self) -> &str {
        &self.structure
    }

    /// What `item` collected.
    pub fn tally(&self, item: Item) -> Tally {
        self.tallies[item.index()]
    }

    /// What every item collected.
    pub fn total(&self) -> Money {
        self.tallies.iter().map(|tally| tally.amount).sum()
    }

    /// Books one purchase of `item` at its price, which it returns. Refused when the event does
    /// not offer the item, when a buy-in would pass the cap on entrants (art. 1 item 8), or when
    /// there would be more rebuys or add-ons than the entrants may buy together (art. 1 items 6, 7).
    pub fn purchase(&mut self, item: Item) -> Result<Money, EngineError> {
        let price = self.price(item)?;
        let entrants = self.tallies[Item::BuyIn.index()].count;
        let count = self.tallies[item.index()].count;
        let limit = match item {
            Item::BuyIn => self.max_entrants,
            Item::Rebuy | Item::AddOn => entrants.saturating_mul(self.per_player[item.index()]),
        };
        if count >= limit {
            let problem = match item {
                Item::BuyIn => format!(
                    "`{}` is full: {entrants} entrants of {} (Res. 123/2013 Anexo I art. 1)",
                    self.structure, self.max_entrants
                ),
                _ => format!(
                    "{count} {} already bought: {entrants} entrants may buy {} each, {limit} in all (Res. 123/2013 Anexo I art. 1)",
                    item.code(),
                    self.per_player[item.index()]
                ),
            };
            return Err(EngineError::not_now(item.key(), problem));
        }
        let tally = &mut self.tallies[item.index()];
        tally.count += 1;
        tally.amount += price;
        Ok(price)
    }

    /// Books the refund of one purchase of `item` at its price, which it returns (Anexo IV 1.4).
    /// Refused when none is left to refund, or when refunding a buy-in would leave more rebuys
    /// or add-ons than the remaining entrants may have bought.
    pub fn refund(&mut self, item: Item) -> Result<Money, EngineError> {
        let price = self.price(item)?;
        let count = self.tallies[item.index()].count;
        if count == 0 {
            return Err(EngineError::not_now(
                item.key(),
                format!("no {} purchase left to refund (Res. 123/2013 Anexo IV 1.4)", item.code()),
            ));
        }
        if item == Item::BuyIn {
            for other in [Item::Rebuy, Item::AddOn] {
                let bought = self.tallies[other.index()].count;
                if bought > (count - 1).saturating_mul(self.per_player[other.index()]) {
                    return Err(EngineError::not_now(
                        item.key(),
                        format!(
                            "{bought} {} were bought: refund them before the buy-in, or {} entrants would have bought more \
                             than they may (Res. 123/2013 Anexo IV 1.4)",
                            other.code(),
                            count - 1
                        ),
                    ));
                }
            }
        }
        let tally = &mut self.tallies[item.index()];
        tally.count -= 1;
        tally.amount -= price;
        Ok(price)
    }

    fn price(&self, item: Item) -> Result<Money, EngineError> {
        self.prices[item.index()].ok_or_else(|| {
            EngineError::invalid(
                item.key(),
                format!("`{}` offers no {} ({}) (Res. 123/2013 Anexo I art. 1)", self.structure, item.key(), item.code()),
            )
        })
    }
}

/// One item's part of the pool: what it collected, the share of it that goes to prizes, and
/// the exact amounts that share makes for the prizes and for the house.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItemPool {
    pub item: Item,
    pub count: u32,
    pub collected: Money,
    pub to_prizes: Decimal,
    /// `collected × to_prizes`, exactly (it may carry fractions of the unit).
    pub prizes: Money,
    /// `collected − prizes`, exactly.
    pub house: Money,
}

/// The prize pool of one event (Res. 123/2013 art. 62–64), fixed from what was collected once
/// the rebuy and add-on period ends (art. 64).
///
/// docs/readings.md, "The tournament's prize pool": each item's part of the prizes is what it
/// collected times its structure's `to_prizes`, exactly (art. 62: at least 70 % of each item;
/// Anexo IV 6: the house's share "no podrá exceder el 30 % del total de cada ítem"); the prizes
/// are the sum of the items' parts rounded *up* to the payout unit, so that they are never under
/// any item's share nor the house over its own (art. 62: "no siendo inferior al 70 %"); the house
/// keeps the rest (art. 63), that is each item's exact part less the fraction of a unit the
/// rounding gave the prizes (`rounding`). Every centavo is accounted for:
/// `prizes + house == collected`. The prizes never pass what was collected: it is a whole number
/// of units and the exact parts are at most all of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrizePool {
    /// Each item the event offers, in the order IN, RB, AD.
    pub items: Vec<ItemPool>,
    /// What every item collected.
    pub collected: Money,
    /// The prizes to share among the positions paid: a multiple of the payout unit.
    pub prizes: Money,
    /// The fraction of a unit the rounding up of the prizes took from the house, < the payout
    /// unit.
    pub rounding: Money,
    /// The house's part: `collected − prizes`, the items' `house` less `rounding`.
    pub house: Money,
}

impl PrizePool {
    /// The prize pool of what `collected` holds under `structure`.
    ///
    /// # Panics
    /// When `collected` was counted under another structure (a caller's bug), or when the
    /// amounts fail to add up (an engine bug).
    pub fn of(structure: &Structure, collected: &Collected) -> PrizePool {
        assert_eq!(
            collected.structure, structure.id,
            "the purchases were counted under `{}`, not `{}`",
            collected.structure, structure.id
        );
        let items: Vec<ItemPool> = Item::ALL
            .into_iter()
            .filter_map(|item| {
                let offer = structure.offer(item)?;
                let Tally { count, amount } = collected.tally(item);
                // Res. 123/2013 art. 62, Anexo IV 6: each item's own share to prizes.
                let prizes = amount * offer.to_prizes;
                Some(ItemPool { item, count, collected: amount, to_prizes: offer.to_prizes, prizes, house: amount - prizes })
            })
            .collect();
        let collected_total: Money = items.iter().map(|item| item.collected).sum();
        let exact: Money = items.iter().map(|item| item.prizes).sum();
        // Res. 123/2013 art. 62 ("no siendo inferior al 70 %"), docs/readings.md, "The
        // tournament's prize pool": the total rounded up to the unit, the players' side.
        let down = floor_to_unit(exact, structure.payout_unit);
        let prizes = if down == exact { down } else { down + structure.payout_unit };
        let rounding = prizes - exact;
        // Res. 123/2013 art. 63: the rest is the house's.
        let house = collected_total - prizes;
        assert_eq!(prizes + house, collected_total, "prizes + house must be what was collected");
        assert_eq!(items.iter().map(|item| item.house).sum::<Money>() - rounding, house, "the house's parts add up");
        assert!(prizes <= collected_total, "the prizes never pass what was collected");
        assert!(rounding >= Money::ZERO && rounding < structure.payout_unit, "rounding is less than one unit");
        PrizePool { items, collected: collected_total, prizes, rounding, house }
    }

    /// One item's part, `None` when the event does not offer it.
    pub fn item(&self, item: Item) -> Option<&ItemPool> {
        self.items.iter().find(|part| part.item == item)
    }
}

/// Each position's prize, first place first, for `entrants` at the close of registration
/// (Res. 123/2013 art. 65; art. 26 for a Sit & Go).
///
/// docs/readings.md, "The tournament's prize pool": each place is `prizes × percent / 100`
/// rounded down to the payout unit, and the units the rounding leaves (`prizes − Σ places`) go
/// to first place, so the places add up to `prizes` exactly and never increase by position.
///
/// Refused when no row of the prize table is for `entrants`, or when `prizes` is negative or not
/// a multiple of the payout unit (a [`PrizePool`]'s `prizes` always is).
pub fn payouts(structure: &Structure, entrants: u32, prizes: Money) -> Result<Vec<Money>, EngineError> {
    let row = structure.row(entrants).ok_or_else(|| {
        EngineError::invalid(
            "entrants",
            format!(
                "{entrants} entrants: the prize table of `{}` is for 2 to {} (Res. 123/2013 art. 65)",
                structure.id, structure.max_entrants
            ),
        )
    })?;
    let unit = structure.payout_unit;
    check_amount("prizes", prizes, unit)?;
    let hundred = Decimal::ONE_HUNDRED;
    let mut places: Vec<Money> = row.places.iter().map(|percent| floor_div(prizes.decimal() * *percent, hundred, unit)).collect();
    let odd = prizes - places.iter().sum::<Money>();
    assert!(odd >= Money::ZERO, "the places never pay more than the prizes");
    // docs/readings.md, "The tournament's prize pool": the odd units go to first place.
    places[0] += odd;
    assert_eq!(places.iter().sum::<Money>(), prizes, "the places add up to the prizes");
    debug_assert!(places.windows(2).all(|pair| pair[0] >= pair[1]), "places never increase by position");
    Ok(places)
}

/// The equal parts of `players` tied for the positions whose prizes are `in_play` (Res. 123/2013
/// art. 71: the order of elimination at different tables cannot be told; art. 72: eliminated in
/// the same hand at different tables): they share the prizes of the positions in play in equal
/// parts. A position in play that pays nothing is written as zero.
///
/// docs/readings.md, "The tournament's prize pool": each part is the sum in play divided by
/// `players`, rounded down to `unit`; the units left go one by one to the players in the order
/// given (the caller passes them in order-number order), so the parts add up to the sum in play.
///
/// Refused when `players` is zero or an amount is negative or not a multiple of `unit`.
pub fn split(in_play: &[Money], players: u32, unit: Money) -> Result<Vec<Money>, EngineError> {
    check_unit(unit)?;
    if in_play.is_empty() {
        return Err(EngineError::invalid("in_play", "no position in play to split (Res. 123/2013 art. 71, 72)"));
    }
    if in_play.len() > ENTRANTS_MAX as usize {
        return Err(EngineError::invalid(
            "in_play",
            format!("{} positions: no tournament has more than {ENTRANTS_MAX}", in_play.len()),
        ));
    }
    for (index, amount) in in_play.iter().enumerate() {
        check_amount(&format!("in_play[{index}]"), *amount, unit)?;
    }
    equal_parts(in_play.iter().sum(), players, unit, "players", "Res. 123/2013 art. 71, 72")
}

/// A disqualified player's prize shared among the `active` players still in play at that moment
/// (Res. 123/2013 Anexo II: a player disqualified "en zona de premios" loses his prize to the
/// players still active), the same way as [`split`]: equal parts rounded down to `unit`, the units left one by one to
/// the players in the order given.
///
/// Refused when `active` is zero or `prize` is negative or not a multiple of `unit`.
pub fn redistribute(prize: Money, active: u32, unit: Money) -> Result<Vec<Money>, EngineError> {
    check_unit(unit)?;
    check_amount("prize", prize, unit)?;
    equal_parts(prize, active, unit, "active", "Res. 123/2013 Anexo II")
}

/// `total` in `players` equal parts rounded down to `unit`, the units left to the first players.
fn equal_parts(total: Money, players: u32, unit: Money, field: &str, article: &str) -> Result<Vec<Money>, EngineError> {
    if players == 0 {
        return Err(EngineError::invalid(field, format!("no player to share {total} among ({article})")));
    }
    if players > ENTRANTS_MAX {
        return Err(EngineError::invalid(field, format!("{players} players: no tournament admits more than {ENTRANTS_MAX}")));
    }
    let count = Decimal::from(players);
    let part = floor_div(total.decimal(), count, unit);
    let left = total - part * count;
    // Whole units, fewer than the players: `left / unit` is exact.
    let extra = (left / unit).to_usize().expect("fewer units left than players");
    let parts: Vec<Money> = (0..players as usize).map(|index| if index < extra { part + unit } else { part }).collect();
    assert_eq!(parts.iter().sum::<Money>(), total, "the parts add up to what was shared");
    Ok(parts)
}

fn check_unit(unit: Money) -> Result<(), EngineError> {
    if unit <= Money::ZERO || unit > AMOUNT_MAX {
        return Err(EngineError::invalid("unit", format!("the payout unit must be greater than zero, found {unit}")));
    }
    Ok(())
}

fn check_amount(field: &str, amount: Money, unit: Money) -> Result<(), EngineError> {
    if amount < Money::ZERO || amount > AMOUNT_MAX || !is_multiple_of(amount, unit) {
        return Err(EngineError::invalid(
            field,
            format!("{amount} is not an amount from 0 to {AMOUNT_MAX} in whole payout units of {unit}"),
        ));
    }
    Ok(())
}

/// Why a structures file was refused: its TOML, or one field of one `[[torneo]]`, named by the
/// tournament's id and the field's path, with the article it breaks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StructureError {
    #[error("not valid TOML: {message}")]
    Syntax { message: String },
    #[error("{}field `{field}`: {problem}", torneo.as_ref().map(|id| format!("torneo `{id}`: ")).unwrap_or_default())]
    Field { torneo: Option<String>, field: String, problem: String },
}

impl StructureError {
    fn field(torneo: Option<&str>, field: &str, problem: impl fmt::Display) -> StructureError {
        StructureError::Field { torneo: torneo.map(str::to_owned), field: field.to_owned(), problem: problem.to_string() }
    }

    /// The field the error is about (`premios[1].places`), empty for a syntax error.
    pub fn field_path(&self) -> &str {
        match self {
            StructureError::Syntax { .. } => "",
            StructureError::Field { field, .. } => field,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amount_max_is_ten_to_the_eighteenth() {
        assert_eq!(AMOUNT_MAX.decimal(), Decimal::from(10u64.pow(18)));
    }

    #[test]
    fn the_codes_of_anexo_iv_1_3_are_the_items_on_the_wire() {
        let codes: Vec<String> = Item::ALL.iter().map(|item| serde_json::to_string(item).expect("an item")).collect();
        assert_eq!(codes, ["\"IN\"", "\"RB\"", "\"AD\""]);
        assert_eq!(Item::ALL.map(Item::code), ["IN", "RB", "AD"]);
    }
}
