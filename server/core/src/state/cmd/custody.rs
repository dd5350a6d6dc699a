//! The bank's custody for a player who cannot go on (11.8.3, 15.14.5.2): his side bet
//! annulled and held, the prize he won held, and both handed over when claimed.

use std::sync::Arc;

use pozo_engine::TableId;
use pozo_engine::money::Money;

use crate::state::model::{Custody, CustodyKind, Phase};
use crate::state::refusal::{invalid, precondition};
use crate::state::{Context, Done, Refusal, State, jornada_and_hour};

/// The longest custody id accepted on the wire ("CU-000001").
pub(crate) const CUSTODY_ID_MAX: usize = 32;

impl State {
    /// 11.8.3.1.2 (15.14.5.2.2 the same): "Con el juego iniciado, sin expresar su
    /// voluntad, el casillero no juega, ingresando el monto jugado a la Banca en custodia.
    /// De haber jugado apuesta de Pozo Acumulado ésta será anulada e ingresada a la Banca
    /// en custodia." The contribution comes out of the pool as for a refund; the stake
    /// is held by the bank instead of going back to the seat.
    pub(in crate::state) fn custody_bet(
        &mut self,
        context: Context,
        table_id: &TableId,
        seat_number: u32,
    ) -> Result<Done, Refusal> {
        if self.data.tables[table_id].is_roulette() {
            return Err(precondition(
                "custody is for card tables (11.8.3, 15.14.5.2); an absent roulette player's grillos are kept (3.7.1)",
            )
            .castellano(
                "La custodia es para las mesas de naipes; en la ruleta, los grillos de un apostador ausente se le guardan \
                 (11.8.3, 15.14.5.2; 3.7.1).",
            ));
        }
        let (contribution, registered_ms, _) = self.played_bet(
            table_id,
            seat_number,
            ("put in custody", "put in custody"),
            ("ingresa en custodia", "ingresar en custodia"),
            "11.8.3.1.2",
        )?;
        let table = &self.data.tables[table_id];
        let (pool_id, round) = (table.pool.clone(), table.round);
        let bet = contribution.bet;
        self.reverse_seat_bet(registered_ms, &pool_id, table_id, seat_number, contribution)?;
        let id = self.hold(context, table_id, seat_number, round, CustodyKind::Bet, None, bet, None);
        Ok((
            format!(
                "Apuesta a pozo anulada e ingresada a la Banca en custodia: posición {seat_number}, {} ({id}, 11.8.3.1.2)",
                pozo_engine::format_ars(bet)
            ),
            Vec::new(),
        ))
    }

    /// 11.8.3.2.2 (15.14.5.2.5 the same): "De haber realizado una apuesta de Pozo
    /// Acumulado y conseguido premio éste quedará en la Banca en custodia." Every award
    /// of the seat this round, once fixed (ACEPTAR, or the instant prize paid at once),
    /// is held; one Venta-Pagos pays is paid into custody through its order.
    pub(in crate::state) fn custody_prize(
        &mut self,
        context: Context,
        table_id: &TableId,
        seat_number: u32,
    ) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        table.seat(seat_number)?;
        if table.is_roulette() {
            return Err(precondition("custody is for card tables (11.8.3, 15.14.5.2)")
                .castellano("La custodia es para las mesas de naipes (11.8.3, 15.14.5.2)."));
        }
        if table.phase == Phase::Betting {
            return Err(precondition("a prize is put in custody in the round it was won, before FINALIZAR JUEGO (11.8.3.2.2)")
                .castellano(
                    "Un premio se ingresa en custodia en la jugada en que se ganó, antes de FINALIZAR JUEGO (11.8.3.2.2).",
                ));
        }
        let round = table.round;
        let held_already = |code: &str| {
            self.data.custody.values().any(|item| {
                item.table_id == *table_id
                    && item.round == round
                    && item.seat == seat_number
                    && item.code.as_deref() == Some(code)
            })
        };
        // A prize paid through Venta-Pagos is held for what its order says now (a
        // re-settlement may have raised it); one whose order was rejected is not held.
        let orders = &self.data.orders;
        let awards: Vec<(pozo_engine::PrizeCode, Money, Option<String>)> = table
            .accepted
            .iter()
            .filter(|award| award.seat == seat_number && !held_already(&award.code))
            .filter_map(|award| match award.payout_order_id.as_ref().and_then(|id| orders.get(id.as_str())) {
                Some(order) if order.status == crate::state::OrderStatus::Rejected => None,
                Some(order) => Some((award.code.clone(), order.facts.amount, Some(order.order_id.clone()))),
                None => Some((award.code.clone(), award.award, None)),
            })
            .filter(|(_, amount, _)| *amount > Money::ZERO)
            .collect();
        if awards.is_empty() {
            return Err(precondition(format!(
                "seat {seat_number} has no prize fixed in this round to hold (ACEPTAR first, 11.8.3.2.2)"
            ))
            .castellano(format!(
                "Box {seat_number}: no tiene premio fijado en esta jugada para ingresar en custodia; primero ACEPTAR (11.8.3.2.2)."
            )));
        }
        let mut ids = Vec::with_capacity(awards.len());
        let mut total = Money::ZERO;
        for (code, amount, order) in awards {
            total += amount;
            ids.push(self.hold(context, table_id, seat_number, round, CustodyKind::Prize, Some(code), amount, order));
        }
        Ok((
            format!(
                "Premio en custodia de la Banca: posición {seat_number}, {} ({}, 11.8.3.2.2)",
                pozo_engine::format_ars(total),
                ids.join(", ")
            ),
            Vec::new(),
        ))
    }

    /// What the bank held is handed to the player (or whoever claims it for him).
    pub(in crate::state) fn release_custody(
        &mut self,
        context: Context,
        table_id: &TableId,
        custody_id: &str,
    ) -> Result<Done, Refusal> {
        if custody_id.len() > CUSTODY_ID_MAX {
            return Err(invalid(format!("custody_id: longer than {CUSTODY_ID_MAX} characters"))
                .castellano(format!("El número de custodia tiene más de {CUSTODY_ID_MAX} caracteres.")));
        }
        let item = self.data.custody.get(custody_id).ok_or_else(|| {
            Refusal::new(crate::state::RefusalKind::NotFound, format!("custody_id: no custody `{custody_id}`"))
                .castellano(format!("No existe la custodia {custody_id}."))
        })?;
        if item.table_id != *table_id {
            return Err(precondition(format!(
                "custody_id: `{custody_id}` is held by the bank of table {}, not {table_id}",
                item.table_id
            ))
            .castellano(format!(
                "La custodia {custody_id} la tiene la Banca de la mesa {}, no la de la mesa {table_id}.",
                item.table_id
            )));
        }
        if item.voided {
            return Err(precondition(format!(
                "custody_id: `{custody_id}` was voided: Venta-Pagos rejected the prize's order (3.5.2)"
            ))
            .castellano(format!("La custodia {custody_id} fue anulada: Venta-Pagos rechazó la orden del premio (3.5.2).")));
        }
        if let Some(sequence) = item.released_sequence {
            return Err(precondition(format!("custody_id: `{custody_id}` was already handed over at journal entry {sequence}"))
                .castellano(format!("La custodia {custody_id} ya fue entregada, asiento {sequence} del registro.")));
        }
        // 11.8.3.2.2: a prize Venta-Pagos pays is held for what the office paid into custody;
        // 11.6.1.2: above the maximum it is paid by the office's form, not by the bank. Until
        // the order is confirmed nothing came in, and the bank hands over nothing (docs/readings.md,
        // "Custody of a prize Venta-Pagos pays").
        if let Some(order_id) = item.payout_order_id.as_deref()
            && self.data.orders.get(order_id).is_some_and(|order| order.status == crate::state::OrderStatus::Pending)
        {
            return Err(precondition(format!(
                "custody_id: `{custody_id}` holds the prize of order {order_id}, still pending: Venta-Pagos pays it into custody first (11.8.3.2.2, 11.6.1.2)"
            ))
            .castellano(format!(
                "La custodia {custody_id} guarda el premio de la orden {order_id}, PENDIENTE DE PAGO: se entrega cuando Venta-Pagos la pague (11.8.3.2.2, 11.6.1.2)."
            )));
        }
        let amount = item.amount;
        let item = Arc::make_mut(&mut self.data.custody).get_mut(custody_id).expect("found above");
        item.released_sequence = Some(context.sequence);
        item.released_ms = context.time_ms;
        let kind = item.kind;
        let day = jornada_and_hour(&self.config, context.time_ms);
        self.day_mut(&day.0, table_id).custody_released += amount;
        Ok((format!("Custodia entregada: {custody_id}, {} ({})", pozo_engine::format_ars(amount), kind.spanish()), Vec::new()))
    }

    /// Venta-Pagos decided an order a custody item holds: rejected, the item is voided
    /// (nothing is held); re-settled, the item holds the order's new amount.
    pub(in crate::state) fn follow_order_in_custody(&mut self, order_id: &str, rejected: bool, context: Context) {
        let Some(id) = self
            .data
            .custody
            .values()
            .find(|item| item.held() && item.payout_order_id.as_deref() == Some(order_id))
            .map(|item| item.custody_id.clone())
        else {
            return;
        };
        let amount = self.data.orders.get(order_id).map(|order| order.facts.amount);
        let item = Arc::make_mut(&mut self.data.custody).get_mut(&id).expect("found above");
        if rejected {
            item.voided = true;
            item.released_sequence = Some(context.sequence);
            item.released_ms = context.time_ms;
        } else if let Some(amount) = amount {
            item.amount = amount;
        }
    }

    /// Files a custody item under the next number; returns its id.
    #[expect(clippy::too_many_arguments, reason = "one custody item's facts, each named")]
    fn hold(
        &mut self,
        context: Context,
        table_id: &TableId,
        seat: u32,
        round: u64,
        kind: CustodyKind,
        code: Option<pozo_engine::PrizeCode>,
        amount: Money,
        payout_order_id: Option<String>,
    ) -> String {
        self.data.next_custody += 1;
        let custody_id = format!("CU-{:06}", self.data.next_custody);
        let table = &self.data.tables[table_id];
        let item = Custody {
            custody_id: custody_id.clone(),
            kind,
            pool: table.pool.clone(),
            table_id: table.id.clone(),
            seat,
            round,
            code,
            amount,
            payout_order_id,
            journal_sequence: context.sequence,
            time_ms: context.time_ms,
            released_sequence: None,
            released_ms: 0,
            voided: false,
        };
        Arc::make_mut(&mut self.data.custody).insert(custody_id.clone(), item);
        let day = jornada_and_hour(&self.config, context.time_ms);
        self.day_mut(&day.0, table_id).custody_in += amount;
        custody_id
    }
}
