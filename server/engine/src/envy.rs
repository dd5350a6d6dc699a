//! The envy bonus (docs/readings.md, "The envy bonus"): the awards a round's top hands give every
//! other seat with a side bet in force, at the table or across the link, added to the round's
//! winners before it is settled like any other.

use crate::ids::TableId;
use crate::money::Money;
use crate::rulebook::{EnvyScope, PoolRules};
use crate::settle::{Seat, Winner};

/// The envy awards a round's winners give (docs/readings.md, "The envy bonus"): for each
/// winner whose hand has an envy bonus, every *other* seat in `in_force` (the seats with a
/// side bet in force in the same round at the table, with their bets) wins the bonus's own
/// code, once per seat and code however many hands gave it. Added to the winners, the round
/// settles them like any other award, each from the level (or the house) that pays it.
/// A bonus of `scope = "link"` reaches the other tables' seats only through [`with_envy`].
pub fn envy_winners(rules: &PoolRules, winners: &[Winner], in_force: &[(Seat, Money)]) -> Vec<Winner> {
    let here: Vec<(Option<TableId>, Seat, Money)> = in_force.iter().map(|(seat, bet)| (None, *seat, *bet)).collect();
    envy_among(rules, winners, &here, |_| true)
}

/// The seats with a side bet in force when a round is accepted: at the table that hit, and at
/// the link's other tables (each named), for an envy bonus across the link.
#[derive(Clone, Debug, Default)]
pub struct InForce {
    pub here: Vec<(Seat, Money)>,
    pub elsewhere: Vec<(TableId, Seat, Money)>,
}

/// A round's winners with the envy awards they give (docs/readings.md, "The envy bonus"): at
/// the table for a bonus of `scope = "table"`, at every table of the link for `"link"`. When a
/// bonus reaches another table's seat, the round names tables: every winner then carries its
/// table ([`Winner::at`]), the hitting table's as `home`, so that no two seats are confused.
pub fn with_envy(rules: &PoolRules, mut winners: Vec<Winner>, home: &TableId, in_force: &InForce) -> Vec<Winner> {
    let across = |winner: &Winner| {
        rules.prize(&winner.code).and_then(|prize| prize.envy.as_ref()).is_some_and(|envy| envy.scope == EnvyScope::Link)
    };
    let names_tables = !in_force.elsewhere.is_empty() && winners.iter().any(across);
    let at = |table: Option<&TableId>| if names_tables { table.or(Some(home)).cloned() } else { None };
    let mut seats: Vec<(Option<TableId>, Seat, Money)> =
        in_force.here.iter().map(|(seat, bet)| (at(None), *seat, *bet)).collect();
    if names_tables {
        seats.extend(in_force.elsewhere.iter().map(|(table, seat, bet)| (Some(table.clone()), *seat, *bet)));
        for winner in &mut winners {
            winner.at = at(None);
        }
    }
    let envy = envy_among(rules, &winners, &seats, |envy| {
        // A bonus of the table's scope never leaves the hitting table.
        envy.scope == EnvyScope::Link
    });
    winners.extend(envy);
    winners
}

/// The envy awards for `seats` (each with its table, where the round names tables); a seat of
/// another table is envious only of a bonus `reaches_elsewhere` says goes there.
fn envy_among(
    rules: &PoolRules,
    winners: &[Winner],
    seats: &[(Option<TableId>, Seat, Money)],
    reaches_elsewhere: impl Fn(&crate::rulebook::Envy) -> bool,
) -> Vec<Winner> {
    let mut envy: Vec<Winner> = Vec::new();
    for winner in winners {
        let Some(bonus) = rules.prize(&winner.code).and_then(|prize| prize.envy.as_ref()) else { continue };
        for (at, seat, bet) in seats {
            let elsewhere = at.is_some() && *at != winner.at;
            if elsewhere && !reaches_elsewhere(bonus) {
                continue;
            }
            let given = envy.iter().any(|other| other.same_seat(at.as_ref(), *seat) && other.code == bonus.code);
            if !winner.same_seat(at.as_ref(), *seat) && !given {
                envy.push(Winner { seat: *seat, code: bonus.code.clone(), bet: Some(*bet), high: None, at: at.clone() });
            }
        }
    }
    envy
}
