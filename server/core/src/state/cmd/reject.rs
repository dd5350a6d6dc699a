//! A Venta-Pagos rejection: the rejected award undone, and only it (docs/readings.md).

use std::sync::Arc;

use pozo_engine::money::Money;
use pozo_engine::{PrizeCode, TableId};

use crate::state::command::{OfficeCommand, OrderFacts};
use crate::state::model::{OrderStatus, PayoutOrder};
use crate::state::refusal::{engine_refusal, precondition};
use crate::state::view::Applied;
use crate::state::{Context, Refusal, State};

impl State {
    /// Rejects a pending order: its award is undone, and only it (docs/readings.md,
    /// "What a Venta-Pagos rejection undoes"). The pending orders of the same round
    /// are re-settled as if the rejected winner had not competed; paid awards stand.
    pub(in crate::state) fn reject_order(
        &mut self,
        context: Context,
        command: &OfficeCommand,
        order: &PayoutOrder,
        reason: &str,
    ) -> Result<Applied, Refusal> {
        let Context { sequence, time_ms } = context;
        let round_sequence = order.round_key();
        let mut book = self.data.rounds.get(&round_sequence).cloned().ok_or_else(|| {
            precondition(format!(
                "order {}: the round it was marked in (journal entry {}) is not kept; it cannot be undone",
                order.order_id, order.journal_sequence
            ))
        })?;
        // The other orders of the round still waiting for Venta-Pagos: (id, table named, seat, code).
        let waiting: Vec<(String, Option<TableId>, u32, PrizeCode)> = self
            .data
            .orders
            .values()
            .filter(|other| {
                other.round_key() == round_sequence && other.status == OrderStatus::Pending && other.order_id != order.order_id
            })
            .map(|other| (other.order_id.clone(), other.at.clone(), other.facts.seat, other.facts.code.clone()))
            .collect();
        let order_of = |at: Option<&TableId>, seat: u32, code: &str| {
            waiting.iter().find(|(_, t, s, c)| t.as_ref() == at && *s == seat && c == code).map(|(id, ..)| id)
        };
        let mystery = self.mystery_meters(&order.facts.pool);
        let rejection = self
            .engine
            .reject_award_at(&mut book, order.at.as_ref(), order.facts.seat, &order.facts.code, |at, seat, code| {
                order_of(at, seat, code).is_some()
            })
            .map_err(engine_refusal)?;
        self.keep_mystery_meters(&order.facts.pool, &mystery)?;
        // The re-settled orders carry their new amounts; the jornada and hour of the
        // marking lose the rejected award and gain what the others were raised by, each at its
        // own table (across the link, the book names it).
        let mut pppa_change: Vec<(TableId, Money)> = vec![(order.facts.table_id.clone(), -rejection.returned)];
        for raised in &rejection.resettled {
            let table = raised.at.clone().unwrap_or_else(|| order.facts.table_id.clone());
            match pppa_change.iter_mut().find(|(at, _)| *at == table) {
                Some((_, change)) => *change += raised.after - raised.before,
                None => pppa_change.push((table.clone(), raised.after - raised.before)),
            }
            match order_of(raised.at.as_ref(), raised.seat, &raised.code) {
                Some(id) => {
                    Arc::make_mut(&mut self.data.orders).get_mut(id).expect("a waiting order").facts.amount = raised.after
                }
                // An award fixed at zero, now worth money: the cashier pays it through its
                // own order of the same round (docs/readings.md).
                None => {
                    let round = self.round_of(round_sequence, &table, order);
                    let facts = OrderFacts {
                        seat: raised.seat,
                        code: raised.code.clone(),
                        amount: raised.after,
                        table_id: table.clone(),
                        round,
                        ..order.facts.clone()
                    };
                    let id = self.data.file_order(facts, order.journal_sequence, order.time_ms);
                    // Of the round's own journal, carried or not.
                    let filed = Arc::make_mut(&mut self.data.orders).get_mut(&id).expect("just filed");
                    filed.generation = order.generation;
                    filed.at = raised.at.clone();
                }
            }
        }
        for (table, change) in &pppa_change {
            self.amend_pppa(order.time_ms, table, &order.facts.pool, *change);
        }
        self.data.rounds.insert(round_sequence, book);
        // A prize held in custody through this order (11.8.3.2.2) is held no more; those
        // re-settled are held for their new amounts.
        self.follow_order_in_custody(&order.order_id, true, context);
        for raised in &rejection.resettled {
            if let Some(id) = order_of(raised.at.as_ref(), raised.seat, &raised.code) {
                self.follow_order_in_custody(id, false, context);
            }
        }
        let order = Arc::make_mut(&mut self.data.orders).get_mut(&order.order_id).expect("the order exists");
        order.decide(OrderStatus::Rejected, command, sequence, time_ms);
        order.reason = reason.to_owned();
        let order = order.clone();
        self.forget_decided_round(round_sequence);
        Ok(Applied::Office(order))
    }

    /// The round number at `table` of the round `round_sequence` keeps: the rejected order's own
    /// where it is of that table, another order's of that table and round, or — for a seat across
    /// the link none of whose awards went to Venta-Pagos — the round the table is in now.
    fn round_of(&self, round_sequence: u64, table: &TableId, order: &PayoutOrder) -> u64 {
        if *table == order.facts.table_id {
            return order.facts.round;
        }
        self.data
            .orders
            .values()
            .find(|other| other.round_key() == round_sequence && other.facts.table_id == *table)
            .map(|other| other.facts.round)
            .unwrap_or_else(|| self.data.tables.get(table).map(|t| t.round).unwrap_or_default())
    }

    /// Drops a round's book once none of its orders is pending: nothing can undo it now.
    pub(in crate::state) fn forget_decided_round(&mut self, round_sequence: u64) {
        let pending =
            self.data.orders.values().any(|order| order.round_key() == round_sequence && order.status == OrderStatus::Pending);
        if !pending {
            self.data.rounds.remove(&round_sequence);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::config::Config;
    use crate::state::command::{Command, OfficeCommand, OfficeOp, TableOp};
    use crate::state::model::OrderStatus;
    use crate::state::{Context, State};

    /// A journal (its genesis, `opened_from` a statement or not) and one blackjack round at
    /// `table` whose seat `winner` hits the 100 % prize (11.5.1): a payout order, pending.
    fn round_with_an_order(state: &mut State, table: &str, winner: u32) -> (String, u64) {
        let ops = [
            TableOp::OpenTable,
            TableOp::SellCredits { seat: 1, credits: 5 },
            TableOp::SellCredits { seat: 2, credits: 5 },
            TableOp::Press { seat: 1, credits: None },
            TableOp::Press { seat: 2, credits: None },
            TableOp::StartRound,
            TableOp::EnterPrize { seat: winner, code: "TRES_SIETES_CORAZONES".into(), high: None },
            TableOp::Accept,
        ];
        for (index, op) in ops.into_iter().enumerate() {
            let sequence = state.journal_sequence() + 1;
            let command = Command::dealer(table, index as u64 + 1, format!("{table}-{index}"), op);
            state.apply(&command, Context { sequence, time_ms: 1_795_360_000_000 }).expect("applied");
        }
        let order = state.data().orders.values().find(|order| order.facts.table_id == table).expect("an order");
        (order.order_id.clone(), order.journal_sequence)
    }

    fn genesis(config: &Config, opened_from: Option<serde_json::Value>) -> Command {
        Command::genesis(config, "", None, opened_from.map(Box::new))
    }

    /// A journal opened from a closing statement counts its entries from 1 again: a carried
    /// pending order and a new one marked at the same entry number keep their own rounds, and
    /// rejecting the carried one re-settles its own round (docs/operations.md §8).
    #[test]
    fn a_carried_order_and_a_new_one_at_the_same_entry_keep_their_own_rounds() {
        let config = Arc::new(Config::embedded());
        let mut old = State::new(Arc::clone(&config));
        old.apply(&genesis(&config, None), Context { sequence: 1, time_ms: 1_795_360_000_000 }).expect("genesis");
        let (carried, carried_at) = round_with_an_order(&mut old, "B1", 1);
        let statement = serde_json::json!({ "statement": { "snapshot": old.snapshot() } });
        let mut new = State::new(Arc::clone(&config));
        new.apply(&genesis(&config, Some(statement)), Context { sequence: 1, time_ms: 1_795_360_000_000 }).expect("opened");
        let (fresh, fresh_at) = round_with_an_order(&mut new, "B2", 2);
        assert_eq!(carried_at, fresh_at, "the same entry number in two journals");
        assert_eq!(new.data().rounds.len(), 2, "two rounds kept apart");
        let returned = new.pool("iplyc-blackjack").meters().awards_returned;
        let order = new.data().orders[&carried].clone();
        let reject = Command::Office(OfficeCommand {
            key_id: "vp-ana".into(),
            operator_name: "Ana Pereyra".into(),
            op: OfficeOp::Reject { order_id: carried.clone(), reason: "prueba".into(), expect: order.facts.clone() },
        });
        let sequence = new.journal_sequence() + 1;
        new.apply(&reject, Context { sequence, time_ms: 1_795_360_000_000 }).expect("the carried order's own round undone");
        assert_eq!(new.pool("iplyc-blackjack").meters().awards_returned, returned + order.facts.amount, "its award back");
        assert_eq!(new.data().orders[&carried].status, OrderStatus::Rejected);
        assert_eq!(new.data().orders[&fresh].status, OrderStatus::Pending);
        assert_eq!(new.data().rounds.len(), 1, "the new round's book is still there for its own order");
    }
}
