//! A structures file as written (`config/torneos.toml`): the TOML document's shape (serde,
//! `deny_unknown_fields`), and each value checked against the article that requires it, into
//! [`Structure`]s. The caller reads the file; the engine does no I/O.

use std::fmt;

use rust_decimal::Decimal;
use serde::Deserialize;
use toml::Table;

use super::{ENTRANTS_MAX, Item, Kind, Offer, PrizeRow, SIT_AND_GO_MAX, Structure, StructureError, TO_PRIZES_MIN};
use crate::money::{CENT, Money, is_multiple_of};
use crate::rulebook::{Exact, Text};

/// The most inscriptions one player may hold in one tournament (Res. 123/2013 Anexo I, 32).
const ENTRIES_PER_PLAYER_MAX: u32 = 20;

/// The largest price a structure accepts, in currency units (10^9): every product of a count
/// of purchases, a price and a share stays far inside `Decimal`'s exact range.
const PRICE_MAX: Decimal = Decimal::from_parts(1_000_000_000, 0, 0, false, 0);

/// The most rebuys or add-ons one player may buy.
const PER_PLAYER_MAX: u32 = 100;

/// The most decimals a share or a percent carries (`"0.7125"`, `"33.3334"`): enough for a
/// percentage to the hundredth, and every product with an amount stays exact.
const SCALE_MAX: u32 = 4;

impl Structure {
    /// Parses and validates a structures file: one or more `[[torneo]]`, each with its own id.
    pub fn parse(text: &str) -> Result<Vec<Structure>, StructureError> {
        let syntax = |error: toml::de::Error| StructureError::Syntax { message: error.message().to_owned() };
        let table: Table = text.parse().map_err(syntax)?;
        let document: FileDoc = serde_path_to_error::deserialize(toml::Deserializer::parse(text).map_err(syntax)?)
            .map_err(|error| refusal_of(text, &table, &error))?;
        if document.torneo.is_empty() {
            return Err(StructureError::field(None, "torneo", "a structures file needs at least one [[torneo]]"));
        }
        let mut structures: Vec<Structure> = Vec::with_capacity(document.torneo.len());
        for torneo in document.torneo {
            let structure = structure(torneo)?;
            if structures.iter().any(|earlier| earlier.id == structure.id) {
                return Err(StructureError::field(Some(&structure.id), "id", "tournament id already defined in this file"));
            }
            structures.push(structure);
        }
        Ok(structures)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    #[serde(default)]
    torneo: Vec<TorneoDoc>,
}

/// `[[torneo]]`: one event's structure (Res. 123/2013 Anexo I art. 1).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TorneoDoc {
    id: Text,
    name: Text,
    kind: String,
    currency: String,
    payout_unit: Exact,
    buy_in: OfferDoc,
    rebuy: Option<OfferDoc>,
    add_on: Option<OfferDoc>,
    max_entrants: u32,
    /// Prizes of this amount or more are paid through the Venta-Pagos office; absent, every prize.
    #[serde(default)]
    venta_pagos_from: Option<Exact>,
    /// How many inscriptions (IN) one player may hold (Anexo I, 32); absent, one.
    #[serde(default)]
    entries_per_player: Option<u32>,
    premios: Vec<RowDoc>,
}

/// `{ price, chips, to_prizes, per_player }`: one item (art. 1 items 5–7, 9).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OfferDoc {
    price: Exact,
    chips: u64,
    to_prizes: Exact,
    per_player: Option<u32>,
}

/// `[[torneo.premios]]`: the positions paid for a range of entrants (art. 65).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RowDoc {
    entrants: [u32; 2],
    places: Vec<Exact>,
}

/// serde's refusal as a structures file's: the tournament (by its id), the field's path in it
/// (`premios[2].places`), and for a key nobody knows its line and the nearest known key.
fn refusal_of(text: &str, table: &Table, error: &serde_path_to_error::Error<toml::de::Error>) -> StructureError {
    let crate::suggest::Located { id: torneo, field, problem } = crate::suggest::located(text, table, "torneo", error);
    StructureError::Field { torneo, field, problem }
}

/// Where a value is, for its refusal: the tournament and the path to the table it is in.
struct Place<'a> {
    torneo: &'a str,
    prefix: String,
}

impl Place<'_> {
    fn error(&self, key: &str, problem: impl fmt::Display) -> StructureError {
        StructureError::field(Some(self.torneo), &format!("{}{key}", self.prefix), problem)
    }

    fn within(&self, prefix: &str) -> Place<'_> {
        Place { torneo: self.torneo, prefix: format!("{}{prefix}", self.prefix) }
    }
}

/// What the articles require of one structure's values, in the order a reader meets them.
fn structure(torneo: TorneoDoc) -> Result<Structure, StructureError> {
    let id = torneo.id.0.trim().to_owned();
    let at = Place { torneo: &id, prefix: String::new() };
    let kind = Kind::NAMES.iter().find(|(name, _)| *name == torneo.kind).map(|(_, kind)| *kind).ok_or_else(|| {
        at.error("kind", format!("unknown kind `{}`: `multimesa` or `sit_and_go` (Res. 123/2013 Anexo I art. 1)", torneo.kind))
    })?;
    let currency = torneo.currency;
    if currency.len() != 3 || !currency.chars().all(|c| c.is_ascii_uppercase()) {
        return Err(at.error("currency", format!("`{currency}` is not an ISO 4217 code such as `ARS`")));
    }
    let payout_unit = Money::new(torneo.payout_unit.0);
    if payout_unit <= Money::ZERO || !is_multiple_of(payout_unit, CENT) || payout_unit.decimal() > PRICE_MAX {
        return Err(at.error("payout_unit", format!("{payout_unit} is not an amount > 0 in whole centavos")));
    }
    let offers = [
        Some(offer(&at.within("buy_in."), Item::BuyIn, torneo.buy_in, payout_unit)?),
        torneo.rebuy.map(|written| offer(&at.within("rebuy."), Item::Rebuy, written, payout_unit)).transpose()?,
        torneo.add_on.map(|written| offer(&at.within("add_on."), Item::AddOn, written, payout_unit)).transpose()?,
    ];
    let max_entrants = torneo.max_entrants;
    if !(2..=ENTRANTS_MAX).contains(&max_entrants) {
        return Err(at.error(
            "max_entrants",
            format!("{max_entrants} is not a cap on players from 2 to {ENTRANTS_MAX} (Res. 123/2013 Anexo I art. 1)"),
        ));
    }
    if kind == Kind::SitAndGo && max_entrants > SIT_AND_GO_MAX {
        return Err(at.error(
            "max_entrants",
            format!("{max_entrants} is more than a Sit & Go's one table of {SIT_AND_GO_MAX} (Res. 123/2013 art. 26)"),
        ));
    }
    let premios = premios(&at, torneo.premios, kind, max_entrants)?;
    let venta_pagos_from = match torneo.venta_pagos_from {
        None => Money::ZERO,
        Some(written) => {
            let from = Money::new(written.0);
            if from < Money::ZERO || !is_multiple_of(from, CENT) || from.decimal() > PRICE_MAX {
                return Err(at.error("venta_pagos_from", format!("{from} is not an amount ≥ 0 in whole centavos")));
            }
            from
        }
    };
    let entries_per_player = torneo.entries_per_player.unwrap_or(1);
    if !(1..=ENTRIES_PER_PLAYER_MAX).contains(&entries_per_player) {
        return Err(at.error(
            "entries_per_player",
            format!(
                "{entries_per_player} is not a number of inscriptions per player from 1 to {ENTRIES_PER_PLAYER_MAX} \
                 (Res. 123/2013 Anexo I, 32)"
            ),
        ));
    }
    Ok(Structure {
        id,
        name: torneo.name.0,
        kind,
        currency,
        payout_unit,
        offers,
        max_entrants,
        premios,
        venta_pagos_from,
        entries_per_player,
    })
}

/// One item: a price in whole payout units, chips, a share to prizes of at least 70 %, and for a
/// rebuy or an add-on how many one player may buy.
fn offer(at: &Place<'_>, item: Item, written: OfferDoc, payout_unit: Money) -> Result<Offer, StructureError> {
    let price = Money::new(written.price.0);
    if price <= Money::ZERO || price.decimal() > PRICE_MAX {
        return Err(at.error(
            "price",
            format!("{price} is not a price greater than zero and up to {PRICE_MAX} (Res. 123/2013 Anexo I art. 1)"),
        ));
    }
    if !is_multiple_of(price, payout_unit) {
        return Err(at.error("price", format!("{price} is not a whole number of payout units of {payout_unit}")));
    }
    if written.chips == 0 {
        return Err(at.error("chips", "a purchase gives chips: must be greater than zero (Res. 123/2013 Anexo I art. 1)"));
    }
    // Res. 123/2013 art. 62; Anexo IV 6: the house's share "no podrá exceder el 30 % del total
    // de cada ítem", so each item's own share to prizes is at least 70 %.
    let to_prizes = written.to_prizes.0;
    if to_prizes < TO_PRIZES_MIN || to_prizes > Decimal::ONE {
        return Err(at.error(
            "to_prizes",
            format!(
                "{to_prizes} is outside 0.70–1: at least 70 % of what each item collects goes to prizes, the house \
                 keeps at most 30 % (Res. 123/2013 art. 62, Anexo IV 6)"
            ),
        ));
    }
    if to_prizes.normalize().scale() > SCALE_MAX {
        return Err(at.error("to_prizes", format!("{to_prizes} has more than {SCALE_MAX} decimals")));
    }
    let per_player = match (item, written.per_player) {
        (Item::BuyIn, None) => 1,
        (Item::BuyIn, Some(_)) => {
            return Err(at.error("per_player", "the buy-in is one per player: say how many rebuys or add-ons instead"));
        }
        (_, None) => {
            return Err(at.error(
                "per_player",
                format!("missing field: how many {} one player may buy (Res. 123/2013 Anexo I art. 1)", item.key()),
            ));
        }
        (_, Some(count)) => {
            if !(1..=PER_PLAYER_MAX).contains(&count) {
                return Err(at.error(
                    "per_player",
                    format!("{count} is not a number from 1 to {PER_PLAYER_MAX} (Res. 123/2013 Anexo I art. 1)"),
                ));
            }
            count
        }
    };
    Ok(Offer { price, chips: written.chips, to_prizes, per_player })
}

/// The prize table: rows in order of entrants covering 2..=`max_entrants` without a gap or an
/// overlap (art. 65), each paying shares that add to 100 %, never increase and are no more than
/// its fewest entrants; a Sit & Go's rows pay the places of art. 26.
fn premios(at: &Place<'_>, written: Vec<RowDoc>, kind: Kind, max_entrants: u32) -> Result<Vec<PrizeRow>, StructureError> {
    if written.is_empty() {
        return Err(at.error("premios", "missing: the prize table for 2 to max_entrants entrants (Res. 123/2013 art. 65)"));
    }
    let mut rows: Vec<PrizeRow> = Vec::with_capacity(written.len());
    for (index, row) in written.into_iter().enumerate() {
        let place = at.within(&format!("premios[{index}]."));
        let [min, max] = row.entrants;
        if min > max {
            return Err(place.error("entrants", format!("[{min}, {max}]: the fewest entrants are more than the most")));
        }
        // Res. 123/2013 art. 65: the number paid depends on the entrants at the close of
        // registration, so every possible number of entrants has exactly one row.
        let expected = rows.last().map_or(2, |previous: &PrizeRow| previous.max + 1);
        if min != expected {
            let problem = match rows.last() {
                None => format!("the first row starts at {min}, not 2 (Res. 123/2013 art. 65)"),
                Some(previous) if min <= previous.max => format!(
                    "[{min}, {max}] overlaps premios[{}] ([{}, {}]): each number of entrants has one row (Res. 123/2013 art. 65)",
                    index - 1,
                    previous.min,
                    previous.max
                ),
                Some(_) => format!(
                    "[{min}, {max}] leaves {expected}–{} entrants without a row after premios[{}] (Res. 123/2013 art. 65)",
                    min - 1,
                    index - 1
                ),
            };
            return Err(place.error("entrants", problem));
        }
        if max > max_entrants {
            return Err(place
                .error("entrants", format!("[{min}, {max}] goes past max_entrants = {max_entrants} (Res. 123/2013 art. 65)")));
        }
        let places = places(&place, &row.places, min)?;
        if kind == Kind::SitAndGo {
            sit_and_go_places(&place, min, max, places.len())?;
        }
        rows.push(PrizeRow { min, max, places });
    }
    let last = rows.last().expect("at least one row").max;
    if last != max_entrants {
        return Err(at.error(
            &format!("premios[{}].entrants", rows.len() - 1),
            format!("the last row ends at {last}: {}–{max_entrants} entrants have no row (Res. 123/2013 art. 65)", last + 1),
        ));
    }
    Ok(rows)
}

/// One row's places: each > 0, never increasing, adding to exactly 100, no more than `min`.
fn places(at: &Place<'_>, written: &[Exact], min: u32) -> Result<Vec<Decimal>, StructureError> {
    if written.is_empty() {
        return Err(at.error("places", "a row pays at least first place (Res. 123/2013 art. 65)"));
    }
    if written.len() > min as usize {
        return Err(at.error(
            "places",
            format!(
                "{} places paid with as few as {min} entrants: no more places than players (Res. 123/2013 art. 65)",
                written.len()
            ),
        ));
    }
    let mut places: Vec<Decimal> = Vec::with_capacity(written.len());
    for (index, Exact(percent)) in written.iter().enumerate() {
        let key = format!("places[{index}]");
        if *percent <= Decimal::ZERO || *percent > Decimal::ONE_HUNDRED {
            return Err(at.error(&key, format!("{percent} is not a percent of the pool in (0, 100] (Res. 123/2013 art. 65)")));
        }
        if percent.normalize().scale() > SCALE_MAX {
            return Err(at.error(&key, format!("{percent} has more than {SCALE_MAX} decimals")));
        }
        if let Some(previous) = places.last()
            && percent > previous
        {
            return Err(at.error(
                &key,
                format!("{percent} is more than the place before it ({previous}): a better position never gets less"),
            ));
        }
        places.push(*percent);
    }
    let sum: Decimal = places.iter().sum();
    if sum != Decimal::ONE_HUNDRED {
        return Err(at.error(
            "places",
            format!("the places add up to {sum}, not 100: the whole pool is paid (Res. 123/2013 art. 62, 65)"),
        ));
    }
    Ok(places)
}

/// Res. 123/2013 art. 26: a single-table Sit & Go of up to 9 players pays the first 2; of 10,
/// the first 3. A row cannot span 9 and 10 entrants: they pay differently.
fn sit_and_go_places(at: &Place<'_>, min: u32, max: u32, paid: usize) -> Result<(), StructureError> {
    let required = if max < SIT_AND_GO_MAX {
        2
    } else if min == SIT_AND_GO_MAX {
        3
    } else {
        return Err(at.error(
            "entrants",
            format!(
                "[{min}, {max}] spans 9 and 10 entrants, which a Sit & Go pays differently (2 places, 3 places): \
                 write [{min}, 9] and [10, 10] (Res. 123/2013 art. 26)"
            ),
        ));
    };
    if paid != required {
        let players = if required == 2 { "up to 9 players" } else { "10 players" };
        return Err(at.error(
            "places",
            format!("{paid} places: a Sit & Go of {players} pays the first {required} (Res. 123/2013 art. 26)"),
        ));
    }
    Ok(())
}
