//! The Tournaments service: a poker tournament's purchases and refunds at the cashier, the
//! director's records, the seat draws and the prizes paid (Res. 123/2013; docs/api.md,
//! "Tournaments"). The players' documents arrive here in clear and leave masked,
//! fingerprinted and sealed (docs/security.md, "Players' documents"): only the purchase's own
//! receipt, to the cashier who typed it, carries the number.

use pozo_core::state::tournament::{Actor, Entrant, Standing, Tie, Tournament};
use pozo_core::state::{Applied, Command, TournamentCommand, TournamentOp};
use pozo_core::tournament::identity::Identity;
use pozo_core::tournament::seats::{SeatDrawReason, TableSeats};
use pozo_engine::Money;
use pozo_engine::tournament::Item;
use pozo_proto::Purpose;
use pozo_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::auth::person_command;
use super::error::ApiError;
use super::wire::{amount, required};
use crate::config::{Key, Role};
use crate::net::bounded_text;
use crate::writer::Handle;

pub(crate) struct TournamentsService {
    pub(crate) handle: Handle,
}

/// Who may call at all: the cashier and Venta-Pagos (office), the director (supervisor), the
/// regulator's inspector (reads only; the state refuses his operations).
const TOURNAMENT_ROLES: &[Role] = &[Role::Office, Role::Supervisor, Role::Inspector];

/// The most tables one seat draw seats.
const TABLES_MAX: usize = 64;

impl TournamentsService {
    fn command(&self, envelope: &pb::Envelope) -> Result<(&Key, pb::tournament_command::Command), Status> {
        let (key, command): (_, pb::TournamentCommand) = person_command(
            &self.handle,
            envelope,
            Purpose::TournamentCommand,
            TOURNAMENT_ROLES,
            "tournaments are kept by the cashier, the Venta-Pagos office and the tournament director, each with their own key",
        )?;
        Ok((key, required("command", command.command)?))
    }
}

/// A document as typed, checked and normalized (`Identity::new`).
fn identity(document: Option<pb::IdentityDocument>) -> Result<Identity, ApiError> {
    let document = document.ok_or_else(|| ApiError::invalid("document: required, the player's identity document"))?;
    Identity::new(&document.kind, &document.number).map_err(|error| ApiError::invalid(format!("document: {error}")))
}

/// What the caller asked, as the state takes it; for a purchase, also the document (for the receipt).
pub(crate) fn op_of(
    handle: &Handle,
    command: pb::tournament_command::Command,
) -> Result<(TournamentOp, Option<Identity>), ApiError> {
    use pb::tournament_command::Command as C;
    let keys = handle.identity_keys();
    let fingerprint = |identity: &Identity| hex::encode(identity.fingerprint(keys.fingerprint_key()));
    Ok(match command {
        C::List(_) => return Err(ApiError::invalid("command: List is Tournaments.List's")),
        C::Purchase(purchase) => {
            let item = Item::parse_code(&purchase.item).ok_or_else(|| {
                ApiError::invalid(format!(
                    "item: `{}` is not IN, RB or AD (Res. 123/2013 Anexo IV 1.3)",
                    bounded_text(&purchase.item)
                ))
            })?;
            let amount = purchase
                .amount
                .ok_or_else(|| ApiError::invalid("amount: required, the item's price"))?
                .value
                .trim()
                .parse::<Money>()
                .map_err(|_| ApiError::invalid("amount: not an amount"))?;
            let identity = identity(purchase.document)?;
            let sealed = identity.seal(keys.seal_key(), &purchase.tournament_id, u64::from(purchase.order));
            let op = TournamentOp::Purchase {
                tournament: purchase.tournament_id,
                item,
                order: purchase.order,
                player_name: purchase.player_name,
                document_masked: identity.masked(),
                document_fingerprint: fingerprint(&identity),
                document_sealed: hex::encode(sealed),
                amount,
            };
            (op, Some(identity))
        }
        C::Refund(refund) => (TournamentOp::Refund { tournament: refund.tournament_id, order: refund.order }, None),
        C::CloseRegistration(close) => (TournamentOp::CloseRegistration { tournament: close.tournament_id }, None),
        C::CloseRebuys(close) => (TournamentOp::CloseRebuys { tournament: close.tournament_id }, None),
        C::Eliminate(out) => (
            TournamentOp::Eliminate {
                tournament: out.tournament_id,
                players: out.players,
                table: out.table,
                hand: out.hand,
                simultaneous: out.simultaneous,
            },
            None,
        ),
        C::Disqualify(out) => {
            (TournamentOp::Disqualify { tournament: out.tournament_id, player: out.player, reason: out.reason }, None)
        }
        C::SealChips(seal) => (
            TournamentOp::SealChips {
                tournament: seal.tournament_id,
                player: seal.player,
                chips: seal.chips,
                receipt: seal.receipt,
                jornada: seal.jornada,
            },
            None,
        ),
        C::PayPrize(prize) => {
            let identity = identity(prize.document)?;
            let op = TournamentOp::PayPrize {
                tournament: prize.tournament_id,
                player: prize.player,
                document_fingerprint: fingerprint(&identity),
            };
            (op, None)
        }
        C::ConfirmPrize(prize) => {
            let identity = identity(prize.document)?;
            let op = TournamentOp::ConfirmPrize {
                tournament: prize.tournament_id,
                player: prize.player,
                document_fingerprint: fingerprint(&identity),
            };
            (op, None)
        }
        C::DrawSeats(draw) => {
            let reason: SeatDrawReason = draw.reason.parse().map_err(|error| ApiError::invalid(format!("reason: {error}")))?;
            if draw.tables.is_empty() || draw.tables.len() > TABLES_MAX {
                return Err(ApiError::invalid(format!("tables: 1 to {TABLES_MAX} tables, each with its seats")));
            }
            let tables =
                draw.tables.into_iter().map(|table| TableSeats { table: table.table.into(), seats: table.seats }).collect();
            (TournamentOp::DrawSeats { tournament: draw.tournament_id, reason, tables, nonce: String::new() }, None)
        }
    })
}

/// Submits one operation as `key`'s holder; the tournament after it (a purchase sent again:
/// the tournament as it stands, nothing journaled).
pub(crate) async fn submit(handle: &Handle, key: &Key, op: TournamentOp) -> Result<Tournament, ApiError> {
    let command = Command::Tournament(TournamentCommand { key_id: key.id.clone(), operator_name: key.name.clone(), op });
    match handle.submit(command).await?.map_err(ApiError::Refused)? {
        Applied::Tournament(tournament) | Applied::TournamentDuplicate(tournament) => Ok(*tournament),
        _ => Err(ApiError::internal("a tournament command answered as another kind")),
    }
}

fn actor(actor: &Actor) -> pb::TournamentActor {
    pb::TournamentActor {
        key_id: actor.key_id.clone(),
        name: actor.name.clone(),
        journal_sequence: actor.sequence,
        time_ms: actor.time_ms,
    }
}

/// How a player's prize stands, as the pages say it.
pub(crate) fn payment(player: &Entrant) -> &'static str {
    match (&player.paid, &player.requested) {
        (Some(_), Some(_)) => "pagado, confirmado por Venta-Pagos",
        (Some(_), None) => "pagado",
        (None, Some(_)) => "PENDIENTE DE PAGO",
        (None, None) => "",
    }
}

pub(crate) fn standing(standing: Standing) -> &'static str {
    match standing {
        Standing::Active => "activo",
        Standing::Eliminated => "eliminado",
        Standing::Winner => "ganador",
        Standing::Disqualified => "descalificado",
    }
}

pub(crate) fn tie(tie: Tie) -> &'static str {
    match tie {
        Tie::None => "",
        Tie::Simultaneous => "simultánea (art. 72)",
        Tie::OrderUnknown => "orden indeterminable (art. 71)",
    }
}

/// A tournament as the API shows it: documents masked, never in clear.
pub(crate) fn view(tournament: &Tournament) -> pb::TournamentView {
    let structure = tournament.structure();
    let live = tournament.prize_pool();
    let (collected, prizes, house, places) = match &tournament.pool {
        Some(fixed) => (fixed.collected, fixed.prizes, fixed.house, fixed.places.clone()),
        None => {
            let entrants = tournament.to_seat().len() as u32;
            let places = pozo_engine::tournament::payouts(&structure, entrants.max(2), live.prizes).unwrap_or_default();
            (live.collected, live.prizes, live.house, places)
        }
    };
    let books = tournament.books();
    let untied = books.untied();
    let table = |t: &TableSeats| pb::TournamentTable { table: t.table.to_string(), seats: t.seats.clone() };
    pb::TournamentView {
        tournament_id: tournament.id.clone(),
        name: structure.name().to_owned(),
        kind: structure.kind().name().to_owned(),
        phase: tournament.phase.spanish().to_owned(),
        pool_fixed: tournament.pool.is_some(),
        entrants: if tournament.entrants > 0 { tournament.entrants } else { tournament.to_seat().len() as u32 },
        collected: amount(collected),
        prizes: amount(prizes),
        house: amount(house),
        places: places.into_iter().filter_map(amount).collect(),
        purchases: tournament
            .purchases
            .iter()
            .map(|p| pb::TournamentPurchaseLine {
                order: p.order,
                item: p.item.code().to_owned(),
                player_name: p.player_name.clone(),
                document_masked: p.document_masked.clone(),
                amount: amount(p.amount),
                by: Some(actor(&p.by)),
                refunded: p.refunded.as_ref().map(actor),
            })
            .collect(),
        players: tournament
            .players
            .values()
            .map(|p| pb::TournamentPlayer {
                order: p.order,
                player_name: p.player_name.clone(),
                standing: standing(p.standing).to_owned(),
                position: p.position.unwrap_or(0),
                prize: amount(p.prize),
                redistributed: amount(p.redistributed),
                due: amount(p.due()),
                payment: payment(p).to_owned(),
                paid: p.paid.as_ref().map(actor),
            })
            .collect(),
        eliminations: tournament
            .eliminations
            .iter()
            .map(|e| pb::TournamentEliminationLine {
                players: e.players.clone(),
                first: e.first,
                last: e.last,
                amounts: e.amounts.iter().filter_map(|a| amount(*a)).collect(),
                table: e.table.clone(),
                hand: e.hand,
                tie: tie(e.tie).to_owned(),
                by: Some(actor(&e.by)),
            })
            .collect(),
        disqualifications: tournament
            .disqualifications
            .iter()
            .map(|d| pb::TournamentDisqualificationLine {
                player: d.player,
                reason: d.reason.clone(),
                position: d.position,
                forfeited: amount(d.forfeited),
                shared_to: d.shared.iter().map(|(order, _)| *order).collect(),
                shared: d.shared.iter().filter_map(|(_, a)| amount(*a)).collect(),
                by: Some(actor(&d.by)),
            })
            .collect(),
        seals: tournament
            .seals
            .iter()
            .map(|s| pb::TournamentChipSealLine {
                player: s.player,
                chips: s.chips,
                receipt: s.receipt.clone(),
                jornada: s.jornada,
                by: Some(actor(&s.by)),
            })
            .collect(),
        seat_draws: tournament
            .seat_draws
            .iter()
            .map(|d| pb::TournamentSeatDrawLine {
                draw: d.draw,
                reason: d.reason.to_string(),
                commitment: d.commitment.clone(),
                committed_at: d.committed_at,
                nonce: d.nonce.clone(),
                players: d.players.iter().map(|order| u32::try_from(*order).unwrap_or(u32::MAX)).collect(),
                tables: d.tables.iter().map(table).collect(),
                seating: d
                    .seating
                    .iter()
                    .map(|s| pb::TournamentSeating {
                        order: u32::try_from(s.order).unwrap_or(u32::MAX),
                        table: s.table.to_string(),
                        seat: s.seat,
                    })
                    .collect(),
                by: Some(actor(&d.by)),
            })
            .collect(),
        next_draw: tournament.seat_commitment.as_ref().map_or(0, |c| c.draw),
        next_commitment: tournament.seat_commitment.as_ref().map(|c| c.commitment.clone()).unwrap_or_default(),
        books: Some(pb::TournamentBooksView {
            sold: amount(books.sold),
            refunds: amount(books.refunds),
            prizes: amount(books.prizes),
            house: amount(books.house),
            rounding: amount(books.rounding),
            assigned: amount(books.assigned),
            redistributed: amount(books.redistributed),
            paid: amount(books.paid),
            owed: amount(books.owed),
            tied: untied.is_none(),
            untied: untied.unwrap_or_default(),
        }),
        venta_pagos_from: amount(structure.venta_pagos_from()),
        structure: tournament.text.clone(),
    }
}

/// The "vale de compra de fichas" of the purchase of order `order` (Anexo IV 1.2).
pub(crate) fn receipt(tournament: &Tournament, order: u32, document: &Identity) -> Option<pb::TournamentReceipt> {
    let purchase = tournament.purchases.iter().find(|p| p.order == order)?;
    let structure = tournament.structure();
    Some(pb::TournamentReceipt {
        tournament_id: tournament.id.clone(),
        tournament_name: structure.name().to_owned(),
        order,
        item: purchase.item.code().to_owned(),
        player_name: purchase.player_name.clone(),
        document: format!("{} {}", document.kind().as_str(), document.number()),
        amount: amount(purchase.amount),
        chips: structure.offer(purchase.item).map_or(0, |offer| offer.chips),
        cashier: purchase.by.name.clone(),
        journal_sequence: purchase.by.sequence,
        time_ms: purchase.by.time_ms,
    })
}

#[tonic::async_trait]
impl pb::tournaments_server::Tournaments for TournamentsService {
    async fn list(&self, request: Request<pb::Envelope>) -> Result<Response<pb::TournamentList>, Status> {
        let (_, command) = self.command(request.get_ref())?;
        let pb::tournament_command::Command::List(list) = command else {
            return Err(ApiError::invalid("command: List takes a ListTournaments").into());
        };
        let model = self.handle.read();
        let tournaments = model
            .tournaments()
            .filter(|t| list.tournament_id.is_empty() || t.id == list.tournament_id)
            .map(view)
            .collect::<Vec<_>>();
        if !list.tournament_id.is_empty() && tournaments.is_empty() {
            return Err(
                ApiError::not_found(format!("tournament_id: no tournament `{}`", bounded_text(&list.tournament_id))).into()
            );
        }
        Ok(Response::new(pb::TournamentList { tournaments }))
    }

    async fn submit(&self, request: Request<pb::Envelope>) -> Result<Response<pb::TournamentReply>, Status> {
        let (key, command) = self.command(request.get_ref())?;
        let (op, document) = op_of(&self.handle, command)?;
        let order = match &op {
            TournamentOp::Purchase { order, .. } => Some(*order),
            _ => None,
        };
        let tournament = submit(&self.handle, key, op).await?;
        let receipt = match (order, document) {
            (Some(order), Some(document)) => receipt(&tournament, order, &document),
            _ => None,
        };
        Ok(Response::new(pb::TournamentReply { tournament: Some(view(&tournament)), receipt }))
    }
}
