//! One file per command, each an `impl State` block: its checks first, then its changes,
//! so a refused command changes nothing. `State::apply` (in `state/mod.rs`) is the one
//! place they are called from.
//!
//! Table operations: `open` (Apertura de Mesa), `close` (Cierre de Mesa), `credits` (venta
//! and pago de créditos), `press`, `start` (INICIAR JUEGO), `prize` (a premio code),
//! `accept` (ACEPTAR), `finish` (FINALIZAR JUEGO), `void` (anular), `refund` (a box voided
//! after play), `carry` (talla quemada), `last_round`, `gold` (the Grillo de Oro turn),
//! `seat` (a seat closed to the progressive), `grillos` (the roulette anomalies of 3.7:
//! an absent player, grillos not played, a series annulled), `series` (the roulette series numbered
//! and kept for 3.7.3), `custody` (the bank's custody).
//! Every table command applied: `sheet` (what the closing sheet keeps of it: its journal
//! entry, who opened and closed the table, the grillos held at the close).
//! Venta-Pagos: `confirm` (with the office dispatch) and `reject`.
//! Changes (docs/operations.md §8): `change` (propose, approve, withdraw) and `enact` (an
//! approved proposal put in force, at once or at its moment).
//! Poker tournaments (Res. 123/2013): `tournament` (a structure checked for the two-person door,
//! and every operation on a tournament set up), `seat_draw` (its seats drawn), `prize_paid` (its
//! prizes paid).

mod accept;
mod carry;
mod change;
mod close;
mod confirm;
mod credits;
mod custody;
mod enact;
mod finish;
mod gold;
mod grillos;
mod last_round;
mod mystery;
mod open;
mod press;
mod prize;
mod prize_paid;
mod refund;
mod reject;
mod seat;
mod seat_draw;
mod series;
mod sheet;
mod start;
mod tournament;
mod tournament_fields;
mod void;

pub(in crate::state) use enact::new_table;
pub(in crate::state) use sheet::jornada_after;
