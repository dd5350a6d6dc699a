//! A Venta-Pagos rejection: the rejected award undone, and only it (docs/readings.md).

use std::sync::Arc;

use pozo_engine::PrizeCode;

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
        // The other orders of the round still waiting for Venta-Pagos: (id, seat, code).
        let waiting: Vec<(String, u32, PrizeCode)> = self
            .data
            .orders
            .values()
            .filter(|other| {
                other.round_key() == round_sequence && other.status == OrderStatus::Pending && other.order_id != order.order_id
            })
            .map(|other| (other.order_id.clone(), other.facts.seat, other.facts.code.clone()))
            .collect();
        let order_of = |seat: u32, code: &str| waiting.iter().find(|(_, s, c)| *s == seat && c == code).map(|(id, _, _)| id);
        let rejection = self
            .engine
            .reject_award(&mut book, order.facts.seat, &order.facts.code, |seat, code| order_of(seat, code).is_some())
            .map_err(engine_refusal)?;
        // The re-settled orders carry their new amounts; the jornada and hour of the
        // marking lose the rejected award and gain what the others were raised by.
        let mut pppa_change = -rejection.returned;
        for raised in &rejection.resettled {
            pppa_change += raised.after - raised.before;
            match order_of(raised.seat, &raised.code) {
                Some(id) => {
                    Arc::make_mut(&mut self.data.orders).get_mut(id).expect("a waiting order").facts.amount = raised.after
                }
                // An award fixed at zero, now worth money: the cashier pays it through its
                // own order of the same round (docs/readings.md).
                None => {
                    let facts =
                        OrderFacts { seat: raised.seat, code: raised.code.clone(), amount: raised.after, ..order.facts.clone() };
                    let id = self.data.file_order(facts, order.journal_sequence, order.time_ms);
                    // Of the round's own journal, carried or not.
                    Arc::make_mut(&mut self.data.orders).get_mut(&id).expect("just filed").generation = order.generation;
                }
            }
        }
        self.amend_pppa(order.time_ms, &order.facts.table_id, pppa_change);
        self.data.rounds.insert(round_sequence, book);
        // A prize held in custody through this order (11.8.3.2.2) is held no more; those
        // re-settled are held for their new amounts.
        self.follow_order_in_custody(&order.order_id, true, context);
        for raised in &rejection.resettled {
            if let Some(id) = order_of(raised.seat, &raised.code) {
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

    /// Drops a round's book once none of its orders is pending: nothing can undo it now.
    pub(in crate::state) fn forget_decided_round(&mut self, round_sequence: u64) {
        let pending =
            self.data.orders.values().any(|order| order.round_key() == round_sequence && order.status == OrderStatus::Pending);
        if !pending {
            self.data.rounds.remove(&round_sequence);
        }
    }
}
