//! A tournament's prize paid against the player's identity (Res. 123/2013 art. 66): at the
//! cashier, or — from the structure's `venta_pagos_from` — asked for there and confirmed by
//! another person of the Venta-Pagos office. Every check before the change.

use pozo_engine::money::Money;

use crate::state::refusal::{denied, not_found, precondition};
use crate::state::tournament::{Actor, Entrant, Tournament};
use crate::state::{Refusal, RefusalKind};

/// A finished position's prize paid at the cashier against the player's identity (art. 66).
pub(super) fn pay_prize(tournament: &mut Tournament, order: u32, fingerprint: &str, by: Actor) -> Result<(), Refusal> {
    let player = entrant(tournament, order)?;
    if !player.finished() {
        return Err(precondition(format!(
            "player: entrant {order} has no finished position to collect (in play or disqualified) (Res. 123/2013 art. 66)"
        ))
        .castellano(format!(
            "El inscripto {order} no tiene una posición final que cobrar: sigue en juego o fue descalificado (Res. 123/2013 art. 66)."
        )));
    }
    if player.due() == Money::ZERO {
        return Err(precondition(format!("player: entrant {order}'s position {} pays no prize", player.position.unwrap_or(0)))
            .castellano(format!("La posición {} del inscripto {order} no tiene premio.", player.position.unwrap_or(0))));
    }
    if player.paid.is_some() {
        return Err(Refusal::new(
            RefusalKind::AlreadyExists,
            format!("player: entrant {order}'s prize was already paid (Res. 123/2013 art. 66)"),
        )
        .castellano(format!("El premio del inscripto {order} ya fue pagado (Res. 123/2013 art. 66).")));
    }
    same_document(order, player, fingerprint)?;
    if player.requested.is_some() {
        return Err(precondition(format!(
            "player: entrant {order}'s prize awaits the Venta-Pagos office's confirmation (PENDIENTE DE PAGO)"
        ))
        .castellano(format!("El premio del inscripto {order} ya está PENDIENTE DE PAGO en Venta-Pagos.")));
    }
    let from = tournament.structure().venta_pagos_from();
    let entrant = tournament.players.get_mut(&order).expect("found above");
    // A large prize goes through the Venta-Pagos office, as a progressive's does (docs/readings.md).
    if entrant.due() >= from {
        entrant.requested = Some(by);
    } else {
        entrant.paid = Some(by);
    }
    Ok(())
}

/// A prize asked for at the cashier, paid by the Venta-Pagos office against the player's
/// identity (art. 66): the office's confirmation.
pub(super) fn confirm_prize(tournament: &mut Tournament, order: u32, fingerprint: &str, by: Actor) -> Result<(), Refusal> {
    let player = entrant(tournament, order)?;
    if player.paid.is_some() {
        return Err(Refusal::new(
            RefusalKind::AlreadyExists,
            format!("player: entrant {order}'s prize was already paid (Res. 123/2013 art. 66)"),
        )
        .castellano(format!("El premio del inscripto {order} ya fue pagado (Res. 123/2013 art. 66).")));
    }
    if !player.finished() {
        return Err(precondition(format!(
            "player: entrant {order} has no prize to collect: disqualified after it was asked for (Anexo II)"
        ))
        .castellano(format!("El inscripto {order} fue descalificado: su premio se repartió entre los jugadores activos.")));
    }
    let Some(requested) = player.requested.as_ref() else {
        return Err(precondition(format!(
            "player: entrant {order}'s prize was not asked for at the cashier: nothing awaits the office"
        ))
        .castellano(format!("El premio del inscripto {order} no fue pedido en caja: no hay nada pendiente de pago.")));
    };
    if requested.key_id == by.key_id {
        return Err(denied(format!(
            "key_id: `{}` asked for entrant {order}'s prize at the cashier; another person of the office confirms it",
            by.key_id
        ))
        .castellano(format!(
            "Quien pidió el pago del premio del inscripto {order} no lo confirma: lo confirma otra persona de Venta-Pagos."
        )));
    }
    same_document(order, player, fingerprint)?;
    tournament.players.get_mut(&order).expect("found above").paid = Some(by);
    Ok(())
}

/// The entrant of order `order`.
fn entrant(tournament: &Tournament, order: u32) -> Result<&Entrant, Refusal> {
    tournament.players.get(&order).ok_or_else(|| {
        not_found(format!("player: no entrant of order {order} in `{}`", tournament.id))
            .castellano(format!("No hay un inscripto con el número de orden {order} en el torneo {}.", tournament.id))
    })
}

/// The document shown is the one of the entrant's buy-in (art. 66).
fn same_document(order: u32, player: &Entrant, fingerprint: &str) -> Result<(), Refusal> {
    if player.document_fingerprint != fingerprint {
        return Err(denied(format!(
            "document_fingerprint: not the document of entrant {order}'s buy-in: a prize is paid against the player's \
             valid identity (Res. 123/2013 art. 66)"
        ))
        .castellano(format!(
            "El documento no es el de la inscripción {order}: el premio se paga contra la identidad del jugador \
             (Res. 123/2013 art. 66)."
        )));
    }
    Ok(())
}
