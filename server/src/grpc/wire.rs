//! The wire and the state machine, each way: a `TableCommand` as a [`TableOp`] (validated,
//! texts bounded), and the state's views, awards, orders, custody and displays as their
//! protobuf messages. Conversions only: no authentication, no I/O.

use pozo_engine::Money;
use pozo_proto::v1 as pb;

use super::error::ApiError;
use pozo_core::state::{AwardRecord, Card, GoldTurnView, Light, OrderFacts, PayoutOrder, TableOp, TableReply, TableView};
use pozo_engine::money::plain_text;

/// Money on the wire: a decimal string (`pb::Amount`).
pub(super) fn amount(value: Money) -> Option<pb::Amount> {
    Some(pb::Amount { value: plain_text(value) })
}

/// A wire command as the state machine's operation; a text over its bound is refused.
pub fn table_op(command: pb::table_command::Command) -> Result<TableOp, ApiError> {
    use pb::table_command::Command as C;
    Ok(match command {
        C::OpenTable(_) => TableOp::OpenTable,
        C::CloseTable(_) => TableOp::CloseTable,
        C::SellCredits(sell) => TableOp::SellCredits { seat: sell.seat, credits: sell.credits },
        C::RefundCredits(refund) => TableOp::RefundCredits { seat: refund.seat },
        C::Press(press) => TableOp::Press { seat: press.seat, credits: (press.credits != 0).then_some(press.credits) },
        C::StartRound(_) => TableOp::StartRound,
        C::EnterPrize(prize) => {
            bounded("code", &prize.code)?;
            bounded("high", &prize.high)?;
            TableOp::EnterPrize {
                seat: prize.seat,
                code: prize.code.into(),
                high: (!prize.high.is_empty()).then_some(prize.high),
            }
        }
        C::Accept(_) => TableOp::Accept,
        C::FinishRound(_) => TableOp::FinishRound,
        C::VoidBet(void) => TableOp::VoidBet { seat: void.seat },
        C::CarryBets(_) => TableOp::CarryBets,
        C::RefundBet(refund) => TableOp::RefundBet { seat: refund.seat },
        C::LastRound(_) => TableOp::LastRound,
        C::RequestGoldTurn(_) => TableOp::RequestGoldTurn,
        C::CloseSeat(close) => TableOp::CloseSeat { seat: close.seat },
        C::OpenSeat(open) => TableOp::OpenSeat { seat: open.seat },
        C::PlayerAbsent(absent) => TableOp::PlayerAbsent { seat: absent.seat },
        C::PlayerReturns(back) => TableOp::PlayerReturns { seat: back.seat },
        C::GrillosPlayed(played) => {
            bounded("code", &played.code)?;
            TableOp::GrillosPlayed { seat: played.seat, code: played.code.into(), played: played.played }
        }
        C::AnnulSeries(annul) => TableOp::AnnulSeries { seat: annul.seat },
        C::CustodyBet(custody) => TableOp::CustodyBet { seat: custody.seat },
        C::CustodyPrize(custody) => TableOp::CustodyPrize { seat: custody.seat },
        C::ReleaseCustody(release) => {
            bounded("custody_id", &release.custody_id)?;
            TableOp::ReleaseCustody { custody_id: release.custody_id }
        }
    })
}

fn card(card: &Card) -> pb::Card {
    pb::Card { rank: card.rank.clone(), suit: card.suit.clone() }
}

pub fn table_view(view: &TableView) -> pb::TableView {
    pb::TableView {
        table_id: view.table_id.to_string(),
        pool_id: view.pool_id.to_string(),
        game: view.game.to_string(),
        state: view.state.as_str().to_owned(),
        round: view.round,
        last_sequence: view.last_sequence,
        last_round: view.last_round,
        seats: view
            .seats
            .iter()
            .map(|seat| pb::SeatView {
                seat: seat.seat,
                light: match seat.light {
                    Light::Off => pb::Light::Off,
                    Light::Blue => pb::Light::Blue,
                    Light::On => pb::Light::On,
                } as i32,
                credits: seat.credits,
                bronze: seat.bronze,
                silver: seat.silver,
                gold: seat.gold,
                stake: seat.stake,
                closed: seat.closed,
                absent: seat.absent,
            })
            .collect(),
        pending_prizes: view
            .pending_prizes
            .iter()
            .map(|entry| pb::PrizeEntry {
                seat: entry.seat,
                code: entry.code.to_string(),
                high: entry.high.clone().unwrap_or_default(),
            })
            .collect(),
        instant_card: view.instant_card.as_ref().map(card),
        gold_turn: match view.gold_turn {
            GoldTurnView::None => pb::GoldTurn::None,
            GoldTurnView::Waiting => pb::GoldTurn::Waiting,
            GoldTurnView::Granted => pb::GoldTurn::Granted,
        } as i32,
        displayed: amount(view.displayed),
    }
}

/// A custody item as the reports show it (11.8.3, 15.14.5.2).
pub(super) fn custody_item(item: &pozo_core::state::Custody) -> pb::CustodyItem {
    pb::CustodyItem {
        custody_id: item.custody_id.clone(),
        kind: item.kind.spanish().to_owned(),
        pool_id: item.pool.to_string(),
        table_id: item.table_id.to_string(),
        seat: item.seat,
        round: item.round,
        code: item.code.as_ref().map(ToString::to_string).unwrap_or_default(),
        amount: amount(item.amount),
        payout_order_id: item.payout_order_id.clone().unwrap_or_default(),
        journal_sequence: item.journal_sequence,
        time_ms: item.time_ms,
    }
}

fn award_view(award: &AwardRecord) -> pb::AwardView {
    pb::AwardView {
        seat: award.seat,
        code: award.code.to_string(),
        unlimited: amount(award.unlimited),
        award: amount(award.award),
        payout_order_id: award.payout_order_id.clone().unwrap_or_default(),
        grants_code: award.grants.as_ref().map(|(code, _)| code.to_string()).unwrap_or_default(),
        grants_count: award.grants.as_ref().map(|(_, count)| *count).unwrap_or_default(),
    }
}

pub(super) fn submit_reply(reply: &TableReply) -> pb::SubmitReply {
    pb::SubmitReply {
        table_id: reply.table_id.to_string(),
        sequence: reply.sequence,
        journal_sequence: reply.journal_sequence,
        outcome: reply.outcome.clone(),
        awards: reply.awards.iter().map(award_view).collect(),
        table: Some(table_view(&reply.view)),
    }
}

pub fn payout_order(order: &PayoutOrder) -> pb::PayoutOrder {
    pb::PayoutOrder {
        order_id: order.order_id.clone(),
        pool_id: order.facts.pool.to_string(),
        table_id: order.facts.table_id.to_string(),
        seat: order.facts.seat,
        round: order.facts.round,
        code: order.facts.code.to_string(),
        amount: amount(order.facts.amount),
        journal_sequence: order.journal_sequence,
        status: order.status.spanish().to_owned(),
        operator_id: order.operator_id.clone(),
        form_number: order.form_number.clone(),
        reason: order.reason.clone(),
        resolved_sequence: order.resolved_sequence,
        operator_name: order.operator_name.clone(),
        decided_ms: order.decided_ms,
        marked_ms: order.time_ms,
    }
}

/// One display update: the pools `wanted` (all when `None`).
pub(super) fn display_update(push: &crate::read::signs::DisplayPush, wanted: Option<&[String]>) -> pb::DisplayUpdate {
    pb::DisplayUpdate {
        journal_sequence: push.journal_sequence,
        pools: push
            .pools
            .iter()
            .filter(|pool| wanted.is_none_or(|wanted| wanted.iter().any(|id| pool.pool_id == *id)))
            .map(|pool| pb::PoolDisplay {
                pool_id: pool.pool_id.to_string(),
                displayed: amount(pool.displayed),
                minimum: amount(pool.minimum),
                last_win: pool.last_win.as_ref().map(|win| pb::WinView {
                    table_id: win.table_id.to_string(),
                    seat: win.seat,
                    code: win.code.to_string(),
                    amount: amount(win.amount),
                    journal_sequence: win.journal_sequence,
                }),
                pending: pool.pending.iter().map(prize_hit).collect(),
                hits: pool.hits.iter().map(prize_hit).collect(),
                increment_rate: pool.increment_rate.normalize().to_string(),
            })
            .collect(),
    }
}

/// A prize as the display feed carries it.
fn prize_hit(prize: &crate::read::signs::PrizeView) -> pb::Hit {
    pb::Hit { status: prize.status.spanish().to_owned(), ..hit(&prize.hit) }
}

/// A hit as reports and the display feed carry it (no status).
pub(super) fn hit(hit: &pozo_core::state::Hit) -> pb::Hit {
    pb::Hit {
        table_id: hit.table_id.to_string(),
        seat: hit.seat,
        code: hit.code.to_string(),
        amount: amount(hit.amount),
        time_ms: hit.time_ms,
        journal_sequence: hit.journal_sequence,
        status: String::new(),
    }
}

/// What the operator was shown of the order, as the state machine checks it.
pub(super) fn order_facts(expect: Option<pb::OrderFacts>) -> Result<OrderFacts, ApiError> {
    let expect = expect.ok_or_else(|| {
        ApiError::invalid(
            "expect: required: the order's pool, table, seat, round, code and amount as the operator was shown them",
        )
    })?;
    for (field, text) in
        [("expect.pool_id", &expect.pool_id), ("expect.table_id", &expect.table_id), ("expect.code", &expect.code)]
    {
        bounded(field, text)?;
    }
    let text = expect.amount.map(|amount| amount.value).unwrap_or_default();
    bounded("expect.amount", &text)?;
    let amount: Money =
        text.parse().map_err(|_| ApiError::invalid(format!("expect.amount: `{text}` is not a decimal amount (\"8329.00\")")))?;
    Ok(OrderFacts {
        pool: expect.pool_id.into(),
        table_id: expect.table_id.into(),
        seat: expect.seat,
        round: expect.round,
        code: expect.code.into(),
        amount,
    })
}

/// A text field of a command, refused when longer than [`TEXT_MAX`].
pub(super) fn bounded(field: &str, text: &str) -> Result<(), ApiError> {
    if text.len() > TEXT_MAX {
        return Err(ApiError::invalid(format!("{field}: longer than {TEXT_MAX} characters")));
    }
    Ok(())
}

/// The longest premio code or card rank accepted.
pub(super) const TEXT_MAX: usize = 64;

/// What a table command's journal entry keeps of its signed payload: SHA-256, hex. It
/// tells a retry (same bytes) from a reuse of the sequence (other bytes).
pub fn payload_sha256(payload: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(payload))
}
