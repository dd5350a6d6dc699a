//! Venta-Pagos decisions: the dispatch and the confirmation of a payout order (3.5.2).

use std::sync::Arc;

use crate::state::command::{OfficeCommand, OfficeOp};
use crate::state::model::{OrderStatus, decided_by, decided_by_spanish};
use crate::state::refusal::{invalid, precondition};
use crate::state::view::Applied;
use crate::state::{Context, Refusal, RefusalKind, State};

impl State {
    pub(in crate::state) fn apply_office(&mut self, context: Context, command: &OfficeCommand) -> Result<Applied, Refusal> {
        let Context { sequence, time_ms } = context;
        let (order_id, expect) = match &command.op {
            OfficeOp::Confirm { order_id, expect, .. } | OfficeOp::Reject { order_id, expect, .. } => (order_id, expect),
        };
        let order = self.data.orders.get(order_id).ok_or_else(|| {
            Refusal::new(RefusalKind::NotFound, format!("order_id: no payout order `{order_id}`"))
                .castellano(format!("No existe la orden de pago {order_id}."))
        })?;
        // A decision names the order by what it is, not only by its number: a number
        // from another journal, or a stale screen, never decides another order.
        if let Some((field, is, shown)) = order.facts.difference(expect) {
            return Err(precondition(format!(
                "expect.{field}: order {order_id} has {field} `{is}`, not `{shown}` as shown: it is not the order you were shown; list the orders again"
            ))
            .castellano(format!(
                "La orden {order_id} no es la que se le mostró ({field}: «{is}», no «{shown}»): vuelva a abrir la lista de órdenes."
            )));
        }
        match &command.op {
            OfficeOp::Confirm { form_number, .. } => {
                if form_number.trim().is_empty() || form_number.len() > 64 {
                    return Err(invalid("form_number: required, 1–64 characters (3.5.2: the form is issued)").castellano(
                        "Falta el número de formulario (de 1 a 64 caracteres): el formulario se emite al pagar (3.5.2).",
                    ));
                }
                match order.status {
                    OrderStatus::Confirmed if order.operator_id == command.key_id && order.form_number == *form_number => {
                        Ok(Applied::OfficeDuplicate(order.clone()))
                    }
                    OrderStatus::Pending => {
                        let order = Arc::make_mut(&mut self.data.orders).get_mut(order_id).expect("found above");
                        order.decide(OrderStatus::Confirmed, command, sequence, time_ms);
                        order.form_number = form_number.clone();
                        let order = order.clone();
                        self.forget_decided_round(order.round_key());
                        Ok(Applied::Office(order))
                    }
                    status => Err(precondition(format!("order {order_id} is already {}", decided_by(order, status)))
                        .castellano(format!("La orden {order_id} ya fue {}.", decided_by_spanish(order, status)))),
                }
            }
            OfficeOp::Reject { reason, .. } => {
                if reason.trim().is_empty() || reason.len() > 256 {
                    return Err(invalid("reason: required, 1–256 characters")
                        .castellano("Falta el motivo del rechazo (de 1 a 256 caracteres)."));
                }
                match order.status {
                    OrderStatus::Rejected if order.operator_id == command.key_id && order.reason == *reason => {
                        Ok(Applied::OfficeDuplicate(order.clone()))
                    }
                    OrderStatus::Pending => {
                        let order = order.clone();
                        self.reject_order(context, command, &order, reason)
                    }
                    status => Err(precondition(format!("order {order_id} is already {}", decided_by(order, status)))
                        .castellano(format!("La orden {order_id} ya fue {}.", decided_by_spanish(order, status)))),
                }
            }
        }
    }
}
