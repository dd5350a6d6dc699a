//! A poker tournament (Lotería Nacional Res. 123/2013): set up through the two-person door
//! (`Proposed::Tournament`, checked here, put in force by `enact`), then each operation with who
//! did it: purchases and refunds (Anexo IV 1.2–1.4), the close of registration (art. 65) and of
//! the rebuy and add-on period (art. 64), eliminations (art. 71, 72), disqualifications
//! (Anexo II), chip counts sealed (Anexo IV 7.3.2); the seat draws are `seat_draw.rs`, the prizes
//! paid `prize_paid.rs`. Every check comes before the first change: a refused operation changes
//! nothing.

use pozo_engine::EngineError;
use pozo_engine::money::{Money, format_ars};
use pozo_engine::tournament::{Item, PrizePool, Structure, payouts, redistribute, split};

use crate::config::Role;
use crate::state::command::{TournamentCommand, TournamentOp};
use crate::state::refusal::{invalid, not_found, precondition};
use crate::state::tournament::{
    Actor, ChipSeal, Disqualification, Elimination, Entrant, FixedPool, Purchase, Standing, Tie, Tournament, TournamentPhase,
};
use crate::state::view::Applied;

use super::tournament_fields::{fingerprint, masked, sealed, text};
use crate::state::{Context, Refusal, RefusalKind, State};

/// The most jornadas a tournament's chips are sealed over.
const JORNADAS_MAX: u32 = 60;

impl State {
    /// A tournament's `[[torneo]]` as proposed or approved: exactly one structure that honours
    /// the articles (`Structure::parse`), under an id no tournament of this journal has.
    pub(in crate::state) fn check_tournament(&self, text: &str) -> Result<Structure, Refusal> {
        if text.len() as u64 > crate::config::CONFIG_FILE_BYTES_MAX {
            return Err(invalid(format!("text: more than {} bytes", crate::config::CONFIG_FILE_BYTES_MAX))
                .castellano("La estructura del torneo es demasiado larga."));
        }
        let mut structures = Structure::parse(text).map_err(|error| {
            invalid(format!("text: {error}"))
                .castellano(format!("La estructura del torneo no es válida (Res. 123/2013 Anexo I art. 1): {error}"))
        })?;
        if structures.len() != 1 {
            return Err(invalid(format!(
                "text: {} [[torneo]]: a tournament is set up one at a time, exactly one [[torneo]]",
                structures.len()
            ))
            .castellano(format!(
                "El texto trae {} torneos: se da de alta un torneo por vez, con un solo [[torneo]].",
                structures.len()
            )));
        }
        let structure = structures.pop().expect("exactly one");
        if self.data.tournaments.contains_key(structure.id()) {
            return Err(Refusal::new(
                RefusalKind::AlreadyExists,
                format!("text: torneo `{}`: the id is already used by a tournament of this journal", structure.id()),
            )
            .castellano(format!("Ya existe un torneo {} en este registro: use otro identificador.", structure.id())));
        }
        Ok(structure)
    }

    /// Applies one tournament operation.
    pub(in crate::state) fn apply_tournament(
        &mut self,
        context: Context,
        command: &TournamentCommand,
    ) -> Result<Applied, Refusal> {
        let roles: &[Role] = match command.op {
            TournamentOp::Purchase { .. } | TournamentOp::Refund { .. } | TournamentOp::PayPrize { .. } => {
                &[Role::Office, Role::Supervisor]
            }
            // The Venta-Pagos office's own decision.
            TournamentOp::ConfirmPrize { .. } => &[Role::Office],
            _ => &[Role::Supervisor],
        };
        let by = self.tournament_actor(context, command, roles)?;
        let id = command.op.tournament();
        let tournament = self.data.tournaments.get(id).ok_or_else(|| {
            not_found(format!("tournament: no tournament `{id}`")).castellano(format!("No existe el torneo {id}."))
        })?;
        if let TournamentOp::Purchase { item, order, player_name, document_fingerprint, amount, .. } = &command.op {
            let same = |p: &Purchase| {
                p.order == *order
                    && p.item == *item
                    && p.player_name == player_name.trim()
                    && p.document_fingerprint == *document_fingerprint
                    && p.amount == *amount
                    && p.refunded.is_none()
            };
            // The same purchase sent again: its receipt, not a second booking (Anexo IV 1.3).
            if tournament.purchases.iter().any(same) {
                return Ok(Applied::TournamentDuplicate(Box::new((**tournament).clone())));
            }
        }
        let mut after = (**tournament).clone();
        match &command.op {
            TournamentOp::Purchase {
                item,
                order,
                player_name,
                document_masked,
                document_fingerprint,
                document_sealed,
                amount,
                ..
            } => {
                let purchase = Purchase {
                    order: *order,
                    item: *item,
                    player_name: text("player_name", "el nombre del jugador", player_name)?,
                    document_masked: masked(document_masked)?,
                    document_fingerprint: fingerprint("document_fingerprint", document_fingerprint)?,
                    document_sealed: sealed(document_sealed)?,
                    amount: *amount,
                    by,
                    refunded: None,
                };
                purchase_into(&mut after, purchase)?;
            }
            TournamentOp::Refund { order, .. } => refund(&mut after, *order, by)?,
            TournamentOp::CloseRegistration { .. } => close_registration(&mut after, by)?,
            TournamentOp::CloseRebuys { .. } => close_rebuys(&mut after, by)?,
            TournamentOp::Eliminate { players, table, hand, simultaneous, .. } => {
                let table = text("table", "la mesa", table)?;
                eliminate(&mut after, players, table, *hand, *simultaneous, by)?;
            }
            TournamentOp::Disqualify { player, reason, .. } => {
                let reason = text("reason", "el motivo", reason)?;
                disqualify(&mut after, *player, reason, by)?;
            }
            TournamentOp::SealChips { player, chips, receipt, jornada, .. } => {
                let receipt = text("receipt", "el número de comprobante", receipt)?;
                seal_chips(&mut after, *player, *chips, receipt, *jornada, by)?;
            }
            TournamentOp::PayPrize { player, document_fingerprint, .. } => {
                let fingerprint = fingerprint("document_fingerprint", document_fingerprint)?;
                super::prize_paid::pay_prize(&mut after, *player, &fingerprint, by)?;
            }
            TournamentOp::ConfirmPrize { player, document_fingerprint, .. } => {
                let fingerprint = fingerprint("document_fingerprint", document_fingerprint)?;
                super::prize_paid::confirm_prize(&mut after, *player, &fingerprint, by)?;
            }
            TournamentOp::DrawSeats { reason, tables, nonce, .. } => {
                super::seat_draw::draw_seats(&mut after, *reason, tables, nonce, by)?
            }
        }
        debug_assert_eq!(after.books().untied(), None, "a tournament's books tie after every operation");
        self.data.tournaments.insert(after.id.clone(), std::sync::Arc::new(after.clone()));
        Ok(Applied::Tournament(Box::new(after)))
    }

    /// The holder of the command's key, if their role may do this.
    fn tournament_actor(&self, context: Context, command: &TournamentCommand, roles: &[Role]) -> Result<Actor, Refusal> {
        let key = self.key_in_role(&command.key_id, roles, "do this to a tournament", " en un torneo", "")?;
        let name = match command.operator_name.trim() {
            "" => key.name.clone(),
            name => name.to_owned(),
        };
        Ok(Actor { key_id: key.id.clone(), name, sequence: context.sequence, time_ms: context.time_ms })
    }
}

/// A purchase booked (Res. 123/2013 Anexo IV 1.2, 1.3).
fn purchase_into(tournament: &mut Tournament, purchase: Purchase) -> Result<(), Refusal> {
    let structure = tournament.structure();
    let item = purchase.item;
    if purchase.order == 0 {
        return Err(invalid("order: the order number starts at 1 (Res. 123/2013 Anexo IV 1.2)")
            .castellano("El número de orden empieza en 1 (Res. 123/2013 Anexo IV 1.2)."));
    }
    if let Some(used) = tournament.purchases.iter().find(|p| p.order == purchase.order) {
        return Err(Refusal::new(
            RefusalKind::AlreadyExists,
            format!(
                "order: {} is already the order number of a {} purchase of {} in `{}` (Res. 123/2013 Anexo IV 1.2, 1.3)",
                used.order, used.item, used.player_name, tournament.id
            ),
        )
        .castellano(format!(
            "El número de orden {} ya es el de una compra {} de {} en el torneo {} (Res. 123/2013 Anexo IV 1.2 y 1.3).",
            used.order, used.item, used.player_name, tournament.id
        )));
    }
    let Some(offer) = structure.offer(item) else {
        return Err(invalid(format!(
            "item: `{}` offers no {} ({}) (Res. 123/2013 Anexo I art. 1)",
            tournament.id,
            item.key(),
            item.code()
        ))
        .castellano(format!(
            "El torneo {} no ofrece {} (Res. 123/2013 Anexo I art. 1).",
            tournament.id,
            item_spanish(item)
        )));
    };
    if purchase.amount != offer.price {
        return Err(invalid(format!(
            "amount: {} is not the {} price of `{}`, {} (Res. 123/2013 Anexo I art. 1)",
            purchase.amount, item, tournament.id, offer.price
        ))
        .castellano(format!(
            "El monto {} no es el precio de {} del torneo {}, {} (Res. 123/2013 Anexo I art. 1).",
            format_ars(purchase.amount),
            item_spanish(item),
            tournament.id,
            format_ars(offer.price)
        )));
    }
    match item {
        Item::BuyIn => {
            if tournament.phase != TournamentPhase::Registration {
                return Err(precondition(format!(
                    "item: registration of `{}` is closed: no more buy-ins (Res. 123/2013 art. 65)",
                    tournament.id
                ))
                .castellano(format!(
                    "La inscripción al torneo {} está cerrada: no se venden más inscripciones (Res. 123/2013 art. 65).",
                    tournament.id
                )));
            }
            // Res. 123/2013 Anexo I, 32: a player registers as many times as the event allows.
            let allowed = structure.entries_per_player();
            let held = tournament.bought(&purchase.document_fingerprint, Item::BuyIn);
            if held >= allowed {
                let entry = tournament.entry_of(&purchase.document_fingerprint).map_or(0, |entry| entry.order);
                return Err(Refusal::new(
                    RefusalKind::AlreadyExists,
                    format!(
                        "document_fingerprint: this player already holds {held} inscription(s) in `{}` (order {entry}); \
                         the structure allows {allowed} per player (entries_per_player, Res. 123/2013 Anexo I, 32)",
                        tournament.id
                    ),
                )
                .castellano(format!(
                    "Ese jugador ya está inscripto en el torneo {} (orden {entry}): la estructura admite {allowed} \
                     inscripción(es) por jugador (Res. 123/2013 Anexo I, 32).",
                    tournament.id
                )));
            }
        }
        Item::Rebuy | Item::AddOn => {
            if !matches!(tournament.phase, TournamentPhase::Registration | TournamentPhase::Rebuys) {
                return Err(precondition(format!(
                    "item: the rebuy and add-on period of `{}` is over: the pool is fixed (Res. 123/2013 art. 64)",
                    tournament.id
                ))
                .castellano(format!(
                    "El período de recompras y adiciones del torneo {} terminó: el pozo está fijado (Res. 123/2013 art. 64).",
                    tournament.id
                )));
            }
            if tournament.entry_of(&purchase.document_fingerprint).is_none() {
                return Err(precondition(format!(
                    "document_fingerprint: no buy-in (IN) of this player in `{}`: only an entrant buys a {} \
                     (Res. 123/2013 Anexo I art. 1)",
                    tournament.id, item
                ))
                .castellano(format!(
                    "Ese jugador no está inscripto en el torneo {}: solo un inscripto compra {} (Res. 123/2013 Anexo I art. 1).",
                    tournament.id,
                    item_spanish(item)
                )));
            }
            let bought = tournament.bought(&purchase.document_fingerprint, item);
            structure.may_buy(item, bought).map_err(|error| {
                engine_refusal(
                    error,
                    "item",
                    format!(
                        "El jugador ya hizo {bought} de las {} compras {} que puede hacer cada uno (Res. 123/2013 Anexo I art. 1).",
                        offer.per_player,
                        item.code()
                    ),
                )
            })?;
        }
    }
    let mut collected = tournament.collected(&structure);
    collected.purchase(item).map_err(|error| {
        engine_refusal(
            error,
            "item",
            format!(
                "El torneo {} no admite otra compra {}: {} inscriptos de {} (Res. 123/2013 Anexo I art. 1).",
                tournament.id,
                item,
                collected_entrants(tournament),
                structure.max_entrants()
            ),
        )
    })?;
    tournament.purchases.push(purchase);
    Ok(())
}

/// A purchase refunded at the player's request, before registration closes (Anexo IV 1.4).
fn refund(tournament: &mut Tournament, order: u32, by: Actor) -> Result<(), Refusal> {
    if tournament.phase != TournamentPhase::Registration {
        return Err(precondition(format!(
            "order: registration of `{}` is closed: a purchase is refunded only if the player asks before it closes \
             (Res. 123/2013 Anexo IV 1.4)",
            tournament.id
        ))
        .castellano(format!(
            "La inscripción al torneo {} está cerrada: una compra se devuelve solo si el jugador la pide antes del cierre \
             (Res. 123/2013 Anexo IV 1.4).",
            tournament.id
        )));
    }
    let index = tournament.purchases.iter().position(|p| p.order == order).ok_or_else(|| {
        not_found(format!("order: no purchase of order {order} in `{}`", tournament.id))
            .castellano(format!("No hay compra con el número de orden {order} en el torneo {}.", tournament.id))
    })?;
    let purchase = &tournament.purchases[index];
    if purchase.refunded.is_some() {
        return Err(precondition(format!("order: purchase {order} was already refunded (Res. 123/2013 Anexo IV 1.4)"))
            .castellano(format!("La compra de orden {order} ya fue devuelta (Res. 123/2013 Anexo IV 1.4).")));
    }
    if purchase.item == Item::BuyIn {
        let fingerprint = &purchase.document_fingerprint;
        if let Some(other) = tournament
            .purchases
            .iter()
            .find(|p| p.item != Item::BuyIn && p.refunded.is_none() && p.document_fingerprint == *fingerprint)
        {
            return Err(precondition(format!(
                "order: the player of buy-in {order} holds {} purchase {}: refund it before the buy-in \
                 (Res. 123/2013 Anexo IV 1.4)",
                other.item, other.order
            ))
            .castellano(format!(
                "El jugador de la inscripción {order} tiene la compra {} de orden {}: devuélvala antes que la inscripción \
                 (Res. 123/2013 Anexo IV 1.4).",
                other.item, other.order
            )));
        }
    }
    let structure = tournament.structure();
    let mut collected = tournament.collected(&structure);
    collected.refund(purchase.item).map_err(|error| {
        engine_refusal(error, "order", "Esa compra no se puede devolver (Res. 123/2013 Anexo IV 1.4).".to_owned())
    })?;
    tournament.purchases[index].refunded = Some(by);
    Ok(())
}

/// Registration closed: the entrants fixed, the prize row known (art. 65).
fn close_registration(tournament: &mut Tournament, by: Actor) -> Result<(), Refusal> {
    if tournament.phase != TournamentPhase::Registration {
        return Err(precondition(format!("tournament: registration of `{}` is already closed", tournament.id))
            .castellano(format!("La inscripción al torneo {} ya está cerrada.", tournament.id)));
    }
    let structure = tournament.structure();
    let entrants = collected_entrants(tournament);
    if structure.row(entrants).is_none() {
        return Err(precondition(format!(
            "tournament: {entrants} entrants: the prize table of `{}` is for 2 to {} (Res. 123/2013 art. 65)",
            tournament.id,
            structure.max_entrants()
        ))
        .castellano(format!(
            "{entrants} inscriptos: la tabla de premios del torneo {} es para 2 a {} jugadores (Res. 123/2013 art. 65).",
            tournament.id,
            structure.max_entrants()
        )));
    }
    tournament.entrants = entrants;
    tournament.registration_closed = Some(by);
    tournament.phase = TournamentPhase::Rebuys;
    Ok(())
}

/// The rebuy and add-on period over: the pool fixed, each position's prize known (art. 64, 65).
fn close_rebuys(tournament: &mut Tournament, by: Actor) -> Result<(), Refusal> {
    match tournament.phase {
        TournamentPhase::Rebuys => {}
        TournamentPhase::Registration => {
            return Err(precondition(format!(
                "tournament: registration of `{}` is still open: close it first (Res. 123/2013 art. 64, 65)",
                tournament.id
            ))
            .castellano(format!(
                "La inscripción al torneo {} sigue abierta: ciérrela primero (Res. 123/2013 art. 64 y 65).",
                tournament.id
            )));
        }
        _ => {
            return Err(precondition(format!(
                "tournament: the rebuy and add-on period of `{}` is already over (Res. 123/2013 art. 64)",
                tournament.id
            ))
            .castellano(format!(
                "El período de recompras y adiciones del torneo {} ya terminó (Res. 123/2013 art. 64).",
                tournament.id
            )));
        }
    }
    let structure = tournament.structure();
    // Res. 123/2013 art. 64: the pool is fixed from what was collected.
    let pool = PrizePool::of(&structure, &tournament.collected(&structure));
    // Res. 123/2013 art. 65: each position's prize by the entrants at the close of registration.
    let places = payouts(&structure, tournament.entrants, pool.prizes).map_err(|error| {
        engine_refusal(
            error,
            "tournament",
            "La tabla de premios no admite esa cantidad de inscriptos (Res. 123/2013 art. 65).".to_owned(),
        )
    })?;
    let entries: Vec<Entrant> = tournament
        .purchases
        .iter()
        .filter(|p| p.item == Item::BuyIn && p.refunded.is_none())
        .map(|p| Entrant {
            order: p.order,
            player_name: p.player_name.clone(),
            document_fingerprint: p.document_fingerprint.clone(),
            standing: Standing::Active,
            position: None,
            prize: Money::ZERO,
            redistributed: Money::ZERO,
            forfeited: false,
            requested: None,
            paid: None,
        })
        .collect();
    tournament.players = entries.into_iter().map(|entrant| (entrant.order, entrant)).collect();
    tournament.pool =
        Some(FixedPool { collected: pool.collected, prizes: pool.prizes, house: pool.house, rounding: pool.rounding, places });
    tournament.rebuys_closed = Some(by);
    tournament.phase = TournamentPhase::Play;
    Ok(())
}

/// Refused unless the pool is fixed and the tournament not over.
fn in_play(tournament: &Tournament, field: &str) -> Result<(), Refusal> {
    match tournament.phase {
        TournamentPhase::Play => Ok(()),
        TournamentPhase::Finished => Err(precondition(format!("{field}: `{}` is finished", tournament.id))
            .castellano(format!("El torneo {} ya terminó.", tournament.id))),
        _ => Err(precondition(format!(
            "{field}: the pool of `{}` is not fixed yet: eliminations are recorded once the rebuy and add-on period \
             is over (Res. 123/2013 art. 64)",
            tournament.id
        ))
        .castellano(format!(
            "El pozo del torneo {} aún no está fijado: las eliminaciones se registran después del período de recompras y \
             adiciones (Res. 123/2013 art. 64).",
            tournament.id
        ))),
    }
}

/// An active player by the order number of his buy-in.
fn active_player(tournament: &Tournament, field: &str, order: u32) -> Result<(), Refusal> {
    match tournament.players.get(&order) {
        None => Err(not_found(format!("{field}: no entrant of order {order} in `{}`", tournament.id))
            .castellano(format!("No hay un inscripto con el número de orden {order} en el torneo {}.", tournament.id))),
        Some(player) if player.standing != Standing::Active => {
            Err(precondition(format!("{field}: entrant {order} ({}) is no longer in play", player.player_name))
                .castellano(format!("El inscripto {order} ({}) ya no está en juego.", player.player_name)))
        }
        Some(_) => Ok(()),
    }
}

/// The prizes of positions `first..=last` (a position past the paid ones pays nothing).
fn positions(pool: &FixedPool, first: u32, last: u32) -> Vec<Money> {
    (first..=last).map(|position| pool.places.get(position as usize - 1).copied().unwrap_or(Money::ZERO)).collect()
}

/// Players out: with k active and n out in one record, they take positions k−n+1..=k; several
/// share them equally (art. 71, 72); the last one left is 1st.
fn eliminate(
    tournament: &mut Tournament,
    players: &[u32],
    table: String,
    hand: u64,
    simultaneous: bool,
    by: Actor,
) -> Result<(), Refusal> {
    in_play(tournament, "players")?;
    if players.is_empty() {
        return Err(invalid("players: at least one player is eliminated").castellano("Indique al menos un jugador eliminado."));
    }
    let mut out = players.to_vec();
    out.sort_unstable();
    if let Some(pair) = out.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(invalid(format!("players: {} is named twice", pair[0]))
            .castellano(format!("El jugador {} figura dos veces.", pair[0])));
    }
    for order in &out {
        active_player(tournament, "players", *order)?;
    }
    let active = tournament.active();
    let (k, n) = (active.len() as u32, out.len() as u32);
    if n >= k {
        return Err(precondition(format!(
            "players: {n} of the {k} players in play: someone must remain, the last one left is 1st"
        ))
        .castellano(format!("Se eliminarían los {k} jugadores en juego: alguno debe quedar, y el último es el primero.")));
    }
    let pool = tournament.pool.clone().expect("the pool is fixed in play");
    let unit = tournament.structure().payout_unit();
    let (first, last) = (k - n + 1, k);
    let in_play_amounts = positions(&pool, first, last);
    let (amounts, tie) = if n == 1 {
        (in_play_amounts, Tie::None)
    } else {
        // Res. 123/2013 art. 71, 72: equal parts of the positions in play, in order-number order.
        let parts = split(&in_play_amounts, n, unit)
            .map_err(|error| engine_refusal(error, "players", "Los premios en juego no se pueden repartir.".to_owned()))?;
        (parts, if simultaneous { Tie::Simultaneous } else { Tie::OrderUnknown })
    };
    for (order, amount) in out.iter().zip(&amounts) {
        let player = tournament.players.get_mut(order).expect("checked active");
        player.standing = Standing::Eliminated;
        player.position = Some(first);
        player.prize = *amount;
    }
    tournament.eliminations.push(Elimination { players: out, first, last, amounts, table, hand, tie, by });
    finish_if_one_left(tournament);
    Ok(())
}

/// The last player in play is 1st: his prize is first place's, and the tournament is over.
fn finish_if_one_left(tournament: &mut Tournament) {
    let active = tournament.active();
    if let [winner] = active[..] {
        let first = tournament.pool.as_ref().and_then(|pool| pool.places.first().copied()).unwrap_or(Money::ZERO);
        let player = tournament.players.get_mut(&winner).expect("active");
        player.standing = Standing::Winner;
        player.position = Some(1);
        player.prize = first;
        tournament.phase = TournamentPhase::Finished;
    }
}

/// A player disqualified (Anexo II). An active one leaves at the position he would take now,
/// and its prize goes to the players still active; one already out in the money, not yet paid,
/// loses his prize to them the same way (docs/readings.md, "The tournament's prize pool").
fn disqualify(tournament: &mut Tournament, order: u32, reason: String, by: Actor) -> Result<(), Refusal> {
    in_play(tournament, "player")?;
    let player = tournament.players.get(&order).ok_or_else(|| {
        not_found(format!("player: no entrant of order {order} in `{}`", tournament.id))
            .castellano(format!("No hay un inscripto con el número de orden {order} en el torneo {}.", tournament.id))
    })?;
    match player.standing {
        Standing::Disqualified => {
            return Err(precondition(format!("player: entrant {order} is already disqualified (Res. 123/2013 Anexo II)"))
                .castellano(format!("El inscripto {order} ya fue descalificado (Res. 123/2013 Anexo II).")));
        }
        Standing::Eliminated if player.paid.is_some() => {
            return Err(precondition(format!(
                "player: entrant {order}'s prize was already paid (Res. 123/2013 art. 66): nothing left to share"
            ))
            .castellano(format!(
                "El premio del inscripto {order} ya fue pagado (Res. 123/2013 art. 66): no queda nada que repartir."
            )));
        }
        _ => {}
    }
    let was_active = player.standing == Standing::Active;
    let pool = tournament.pool.clone().expect("the pool is fixed in play");
    let others: Vec<u32> = tournament.active().into_iter().filter(|other| *other != order).collect();
    let (position, forfeited) = if was_active {
        let k = others.len() as u32 + 1;
        (k, positions(&pool, k, k)[0] + player.redistributed)
    } else {
        (player.position.expect("an eliminated player has his position"), player.due())
    };
    let unit = tournament.structure().payout_unit();
    // Res. 123/2013 Anexo II: the prize is shared among the players still active.
    let parts = if forfeited > Money::ZERO {
        redistribute(forfeited, others.len() as u32, unit).map_err(|error| {
            engine_refusal(error, "player", "El premio no se puede repartir entre los jugadores en juego.".to_owned())
        })?
    } else {
        Vec::new()
    };
    let shared: Vec<(u32, Money)> = others.iter().copied().zip(parts).collect();
    let player = tournament.players.get_mut(&order).expect("found above");
    if was_active {
        player.position = Some(position);
        player.prize = positions(&pool, position, position)[0];
    }
    player.standing = Standing::Disqualified;
    player.forfeited = true;
    for (other, amount) in &shared {
        tournament.players.get_mut(other).expect("active").redistributed += *amount;
    }
    tournament.disqualifications.push(Disqualification { player: order, reason, was_active, position, forfeited, shared, by });
    finish_if_one_left(tournament);
    Ok(())
}

/// An active player's chips counted and sealed against a receipt (Anexo IV 7.3.2).
fn seal_chips(
    tournament: &mut Tournament,
    order: u32,
    chips: u64,
    receipt: String,
    jornada: u32,
    by: Actor,
) -> Result<(), Refusal> {
    if tournament.phase == TournamentPhase::Finished {
        return Err(precondition(format!("player: `{}` is finished: no chips to seal", tournament.id))
            .castellano(format!("El torneo {} ya terminó: no hay fichas que precintar.", tournament.id)));
    }
    if chips == 0 {
        return Err(invalid(
            "chips: a player in play holds chips; an empty stack is an elimination (Res. 123/2013 Anexo IV 7.3.2)",
        )
        .castellano("Un jugador en juego tiene fichas: sin fichas, es una eliminación (Res. 123/2013 Anexo IV 7.3.2)."));
    }
    if jornada == 0 || jornada > JORNADAS_MAX {
        return Err(invalid(format!("jornada: the tournament's jornadas are numbered from 1 to {JORNADAS_MAX}"))
            .castellano(format!("Las jornadas del torneo se numeran de 1 a {JORNADAS_MAX}.")));
    }
    if let Some(sealed) = tournament.seals.iter().find(|seal| seal.player == order && seal.jornada == jornada) {
        return Err(Refusal::new(
            RefusalKind::AlreadyExists,
            format!(
                "player: entrant {order}'s chips of jornada {jornada} were sealed already, receipt {} (Res. 123/2013 Anexo IV 7.3.2)",
                sealed.receipt
            ),
        )
        .castellano(format!(
            "Las fichas del inscripto {order} ya se precintaron en la jornada {jornada}, comprobante {} (Res. 123/2013 Anexo IV 7.3.2).",
            sealed.receipt
        )));
    }
    if tournament.phase == TournamentPhase::Play {
        active_player(tournament, "player", order)?;
    } else if tournament.entry(order).is_none() {
        return Err(not_found(format!("player: no entrant of order {order} in `{}`", tournament.id))
            .castellano(format!("No hay un inscripto con el número de orden {order} en el torneo {}.", tournament.id)));
    }
    tournament.seals.push(ChipSeal { player: order, chips, receipt, jornada, by });
    Ok(())
}

/// The buy-ins not refunded.
fn collected_entrants(tournament: &Tournament) -> u32 {
    let count = tournament.purchases.iter().filter(|p| p.item == Item::BuyIn && p.refunded.is_none()).count();
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// An engine error about a tournament as a refusal of the command's `field`, with the engine's
/// rule and the Spanish staff read.
fn engine_refusal(error: EngineError, field: &str, spanish: String) -> Refusal {
    let (kind, problem) = match &error {
        EngineError::Invalid { problem, .. } => (RefusalKind::InvalidArgument, problem.clone()),
        EngineError::UnknownPool { .. } => (RefusalKind::NotFound, error.to_string()),
        EngineError::NotNow { problem, .. } => (RefusalKind::FailedPrecondition, problem.clone()),
    };
    Refusal::new(kind, format!("{field}: {problem}")).castellano(spanish)
}

fn item_spanish(item: Item) -> &'static str {
    match item {
        Item::BuyIn => "inscripción (IN)",
        Item::Rebuy => "recompra (RB)",
        Item::AddOn => "adición (AD)",
    }
}
