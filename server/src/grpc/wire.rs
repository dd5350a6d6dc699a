//! The wire and the state machine, each way: a received message as the core's type,
//! validated on receipt ([`FromWire`], naming the missing or bad field), and the core's views,
//! awards, orders, custody and displays as their protobuf messages ([`ToWire`], infallible).
//! Conversions only: no authentication, no I/O.
//!
//! These are `TryFrom<pb::X> for X` and `From<&X> for pb::X` in all but name: the orphan rule
//! forbids those impls here, where both the protobuf types (pozo-proto) and the core's types
//! (pozo-core) are foreign, and neither of those crates may depend on the other (the core does
//! no I/O; the protocol is shared with the table agent). A local trait each way keeps the
//! conversion on the type, as the std traits would, without a wrapper at every call.

use pozo_engine::Money;
use pozo_proto::v1 as pb;

use super::error::ApiError;
use crate::read::signs::{DisplayPush, PoolDisplay, PrizeStatus, PrizeView};
use pozo_core::state::liability;
use pozo_core::state::panel::LevelMeter;
use pozo_core::state::{
    AwardRecord, Card, Custody, GoldTurnView, Hit, Light, OfficeOp, OrderFacts, OrderStatus, PayoutOrder, TableOp, TableReply,
    TableState, TableView,
};
use pozo_engine::money::plain_text;

/// `TryFrom` for a message received: the core's type, or an [`ApiError::Invalid`] that names
/// the missing or bad field (docs/api.md §11).
pub(super) trait FromWire<W>: Sized {
    fn from_wire(wire: W) -> Result<Self, ApiError>;
}

/// `From` for a message sent: the core's value as its protobuf message, which cannot fail.
pub(super) trait ToWire {
    type Message;
    fn to_wire(&self) -> Self::Message;
}

/// Money on the wire: a decimal string (`pb::Amount`), in the optional field prost makes of a
/// message.
/// Marks the mystery levels among a pool's `levels` as Pools/Status and Reports/Pool list them:
/// `mystery`, and the ceiling "debe salir antes de" ([`crate::read::ReadModel::must_hit_by`]).
pub(super) fn mark_mystery(model: &crate::read::ReadModel, pool_id: &str, levels: &mut [pb::Level]) {
    for level in levels.iter_mut().filter(|level| !level.house) {
        if let Some(ceiling) = model.must_hit_by(pool_id, &level.name) {
            level.must_hit_by = amount(ceiling);
            level.mystery = true;
        }
    }
}

pub(super) fn amount(value: Money) -> Option<pb::Amount> {
    Some(pb::Amount { value: plain_text(value) })
}

/// A message field the command cannot go without: `{field}: missing` when absent.
pub(super) fn required<T>(field: &str, value: Option<T>) -> Result<T, ApiError> {
    value.ok_or_else(|| ApiError::invalid(format!("{field}: missing")))
}

/// An agent's whole command as the state machine's operation, the command's field required;
/// for `table_command`, which makes the state's command without the table service.
pub(crate) fn table_op(command: Option<pb::table_command::Command>) -> Result<TableOp, ApiError> {
    TableOp::from_wire(required("command", command)?)
}

/// A text over its bound is refused, by its field's name.
impl FromWire<pb::table_command::Command> for TableOp {
    fn from_wire(command: pb::table_command::Command) -> Result<TableOp, ApiError> {
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
            C::AnnulSeries(annul) => {
                bounded("series", &annul.series)?;
                TableOp::AnnulSeries { seat: annul.seat, series: Some(annul.series).filter(|series| !series.is_empty()) }
            }
            C::CustodyBet(custody) => TableOp::CustodyBet { seat: custody.seat },
            C::CustodyPrize(custody) => TableOp::CustodyPrize { seat: custody.seat },
            C::ReleaseCustody(release) => {
                bounded("custody_id", &release.custody_id)?;
                TableOp::ReleaseCustody { custody_id: release.custody_id }
            }
        })
    }
}

/// Confirmar: applies only to the order the operator was shown (`expect`).
impl FromWire<pb::ConfirmPayout> for OfficeOp {
    fn from_wire(confirm: pb::ConfirmPayout) -> Result<OfficeOp, ApiError> {
        let expect = OrderFacts::from_wire(confirm.expect)?;
        Ok(OfficeOp::Confirm { order_id: confirm.order_id, form_number: confirm.form_number, expect })
    }
}

/// Rechazar: applies only to the order the operator was shown (`expect`).
impl FromWire<pb::RejectPayout> for OfficeOp {
    fn from_wire(reject: pb::RejectPayout) -> Result<OfficeOp, ApiError> {
        let expect = OrderFacts::from_wire(reject.expect)?;
        Ok(OfficeOp::Reject { order_id: reject.order_id, reason: reject.reason, expect })
    }
}

/// What the operator was shown of the order (a decision's `expect`), as the state machine
/// checks it: required, its texts bounded, its amount a decimal.
impl FromWire<Option<pb::OrderFacts>> for OrderFacts {
    fn from_wire(expect: Option<pb::OrderFacts>) -> Result<OrderFacts, ApiError> {
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
        let amount: Money = text
            .parse()
            .map_err(|_| ApiError::invalid(format!("expect.amount: `{text}` is not a decimal amount (\"8329.00\")")))?;
        Ok(OrderFacts {
            pool: expect.pool_id.into(),
            table_id: expect.table_id.into(),
            seat: expect.seat,
            round: expect.round,
            code: expect.code.into(),
            amount,
        })
    }
}

impl ToWire for Card {
    type Message = pb::Card;
    fn to_wire(&self) -> pb::Card {
        pb::Card { rank: self.rank.clone(), suit: self.suit.clone() }
    }
}

impl ToWire for Light {
    type Message = pb::Light;
    fn to_wire(&self) -> pb::Light {
        match self {
            Light::Off => pb::Light::Off,
            Light::Blue => pb::Light::Blue,
            Light::On => pb::Light::On,
        }
    }
}

impl ToWire for GoldTurnView {
    type Message = pb::GoldTurn;
    fn to_wire(&self) -> pb::GoldTurn {
        match self {
            GoldTurnView::None => pb::GoldTurn::None,
            GoldTurnView::Waiting => pb::GoldTurn::Waiting,
            GoldTurnView::Granted => pb::GoldTurn::Granted,
        }
    }
}

/// The state beside its Spanish string (`TableView.state_code`), so that a program need not
/// compare the words.
impl ToWire for TableState {
    type Message = pb::TableState;
    fn to_wire(&self) -> pb::TableState {
        match self {
            TableState::Closed => pb::TableState::Cerrada,
            TableState::Betting => pb::TableState::Apuestas,
            TableState::Playing => pb::TableState::EnJuego,
            TableState::Entered => pb::TableState::PremiosIngresados,
            TableState::Accepted => pb::TableState::Aceptado,
        }
    }
}

/// An order's status beside its Spanish string (`PayoutOrder.status_code`).
impl ToWire for OrderStatus {
    type Message = pb::PayoutStatus;
    fn to_wire(&self) -> pb::PayoutStatus {
        match self {
            OrderStatus::Pending => pb::PayoutStatus::Pendiente,
            OrderStatus::Confirmed => pb::PayoutStatus::Confirmada,
            OrderStatus::Rejected => pb::PayoutStatus::Rechazada,
        }
    }
}

/// A prize's status on the display feed beside its Spanish string (`Hit.status_code`).
impl ToWire for PrizeStatus {
    type Message = pb::PrizeStatus;
    fn to_wire(&self) -> pb::PrizeStatus {
        match self {
            PrizeStatus::Paid => pb::PrizeStatus::Pagado,
            PrizeStatus::Pending => pb::PrizeStatus::Pendiente,
            PrizeStatus::Confirmed => pb::PrizeStatus::Confirmado,
            PrizeStatus::Rejected => pb::PrizeStatus::Rechazado,
        }
    }
}

impl ToWire for TableView {
    type Message = pb::TableView;
    fn to_wire(&self) -> pb::TableView {
        pb::TableView {
            // Ids copied as text, not through `Display`'s formatter: every reply and push has them.
            table_id: self.table_id.as_str().to_owned(),
            pool_id: self.pool_id.as_str().to_owned(),
            game: self.game.name().to_owned(),
            state: self.state.as_str().to_owned(),
            state_code: self.state.to_wire() as i32,
            round: self.round,
            last_sequence: self.last_sequence,
            last_round: self.last_round,
            seats: self
                .seats
                .iter()
                .map(|seat| pb::SeatView {
                    seat: seat.seat,
                    light: seat.light.to_wire() as i32,
                    credits: seat.credits,
                    bronze: seat.bronze,
                    silver: seat.silver,
                    gold: seat.gold,
                    stake: seat.stake,
                    closed: seat.closed,
                    absent: seat.absent,
                })
                .collect(),
            pending_prizes: self
                .pending_prizes
                .iter()
                .map(|entry| pb::PrizeEntry {
                    seat: entry.seat,
                    code: entry.code.to_string(),
                    high: entry.high.clone().unwrap_or_default(),
                })
                .collect(),
            instant_card: self.instant_card.as_ref().map(Card::to_wire),
            gold_turn: self.gold_turn.to_wire() as i32,
            displayed: amount(self.displayed),
            levels: self.levels.iter().map(LevelMeter::to_wire).collect(),
            link_awards: self
                .link_awards
                .iter()
                .map(|linked| pb::LinkAward { from_table_id: linked.from.to_string(), award: Some(linked.award.to_wire()) })
                .collect(),
            accepted: self.accepted.iter().map(AwardRecord::to_wire).collect(),
        }
    }
}

/// A level's meter as the signs and panels are sent it (`TableView.levels`, `PoolDisplay.levels`):
/// its name, amount and reset; its books are the reports' (docs/api.md, "Levels").
impl ToWire for LevelMeter {
    type Message = pb::Level;
    fn to_wire(&self) -> pb::Level {
        pb::Level {
            name: self.name.clone(),
            displayed: amount(self.displayed),
            reset: amount(self.reset),
            must_hit_by: self.must_hit_by.and_then(amount),
            mystery: self.must_hit_by.is_some(),
            ..Default::default()
        }
    }
}

/// A custody item as the reports show it (11.8.3, 15.14.5.2).
impl ToWire for Custody {
    type Message = pb::CustodyItem;
    fn to_wire(&self) -> pb::CustodyItem {
        pb::CustodyItem {
            custody_id: self.custody_id.clone(),
            kind: self.kind.spanish().to_owned(),
            pool_id: self.pool.to_string(),
            table_id: self.table_id.to_string(),
            seat: self.seat,
            round: self.round,
            code: self.code.as_ref().map(ToString::to_string).unwrap_or_default(),
            amount: amount(self.amount),
            payout_order_id: self.payout_order_id.clone().unwrap_or_default(),
            journal_sequence: self.journal_sequence,
            time_ms: self.time_ms,
        }
    }
}

/// A roulette series as the table report lists it (3.7.3).
impl ToWire for pozo_core::state::Series {
    type Message = pb::SeriesKept;
    fn to_wire(&self) -> pb::SeriesKept {
        pb::SeriesKept {
            series_id: self.series_id.clone(),
            seat: self.seat,
            jornada: self.jornada.clone(),
            sale_time_ms: self.sale_ms,
            balls: self.balls,
            awards: self
                .awards
                .iter()
                .map(|award| pb::AwardView {
                    seat: self.seat,
                    code: award.code.to_string(),
                    award: amount(award.amount),
                    payout_order_id: award.payout_order_id.clone().unwrap_or_default(),
                    ..Default::default()
                })
                .collect(),
            annulled: self.annulled_sequence.is_some(),
            annulled_journal_sequence: self.annulled_sequence.unwrap_or_default(),
        }
    }
}

impl ToWire for AwardRecord {
    type Message = pb::AwardView;
    fn to_wire(&self) -> pb::AwardView {
        pb::AwardView {
            seat: self.seat,
            code: self.code.to_string(),
            unlimited: amount(self.unlimited),
            award: amount(self.award),
            payout_order_id: self.payout_order_id.clone().unwrap_or_default(),
            grants_code: self.grants.as_ref().map(|(code, _)| code.to_string()).unwrap_or_default(),
            grants_count: self.grants.as_ref().map(|(_, count)| *count).unwrap_or_default(),
            level: self.level.clone(),
        }
    }
}

impl ToWire for TableReply {
    type Message = pb::SubmitReply;
    fn to_wire(&self) -> pb::SubmitReply {
        pb::SubmitReply {
            table_id: self.table_id.as_str().to_owned(),
            sequence: self.sequence,
            journal_sequence: self.journal_sequence,
            outcome: self.outcome.clone(),
            awards: self.awards.iter().map(AwardRecord::to_wire).collect(),
            table: Some(self.view.to_wire()),
        }
    }
}

/// A payout order on the wire, with the level its prize is paid from ("Grand"; docs/readings.md,
/// "Levels") read off the rulebooks as the office pages read it (`web/office.rs`): empty in a
/// pool of one level. A function, not a [`ToWire`], so that no order goes out without its level.
pub(super) fn payout_order(rulebooks: &pozo_engine::Rulebooks, order: &PayoutOrder) -> pb::PayoutOrder {
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
        status_code: order.status.to_wire() as i32,
        operator_id: order.operator_id.clone(),
        form_number: order.form_number.clone(),
        reason: order.reason.clone(),
        resolved_sequence: order.resolved_sequence,
        operator_name: order.operator_name.clone(),
        decided_ms: order.decided_ms,
        marked_ms: order.time_ms,
        level: rulebooks
            .pool(&order.facts.pool)
            .map(|rules| crate::read::signs::paid_from(rules, &order.facts.code).0)
            .unwrap_or_default(),
    }
}

/// The liability statement's lines and sums (`Reports/Liability`); a stake pressed is the same line.
impl ToWire for liability::SeatCredits {
    type Message = pb::SeatCredits;
    fn to_wire(&self) -> pb::SeatCredits {
        pb::SeatCredits {
            table_id: self.table_id.to_string(),
            seat: self.seat,
            credits: self.credits,
            amount: amount(self.amount),
        }
    }
}

impl ToWire for liability::SeatGrillos {
    type Message = pb::SeatGrillos;
    fn to_wire(&self) -> pb::SeatGrillos {
        pb::SeatGrillos {
            table_id: self.table_id.to_string(),
            seat: self.seat,
            bronze: self.bronze,
            silver: self.silver,
            gold: self.gold,
            absent: self.absent,
        }
    }
}

impl ToWire for liability::Sums {
    type Message = pb::LiabilitySums;
    fn to_wire(&self) -> pb::LiabilitySums {
        pb::LiabilitySums {
            pools: amount(self.pools),
            pending_orders: amount(self.pending_orders),
            credits: amount(self.credits),
            stakes: amount(self.stakes),
            custody: amount(self.custody),
            total: amount(self.total),
            orders: self.orders,
            credits_held: self.credits_held,
            stakes_pressed: self.stakes_pressed,
            custody_items: self.custody_items,
            bronze: self.grillos.bronze,
            silver: self.grillos.silver,
            gold: self.grillos.gold,
        }
    }
}

impl ToWire for liability::Change {
    type Message = pb::LiabilityChange;
    fn to_wire(&self) -> pb::LiabilityChange {
        pb::LiabilityChange {
            pools: amount(self.pools),
            pending_orders: amount(self.pending_orders),
            credits: amount(self.credits),
            stakes: amount(self.stakes),
            custody: amount(self.custody),
            total: amount(self.total),
            orders: self.orders,
            credits_held: self.credits_held,
            stakes_pressed: self.stakes_pressed,
            custody_items: self.custody_items,
            bronze: self.bronze,
            silver: self.silver,
            gold: self.gold,
        }
    }
}

/// One display update: the pools `wanted` (all when `None`).
pub(super) fn display_update(push: &DisplayPush, wanted: Option<&[String]>) -> pb::DisplayUpdate {
    pb::DisplayUpdate {
        journal_sequence: push.journal_sequence,
        pools: push
            .pools
            .iter()
            .filter(|pool| wanted.is_none_or(|wanted| wanted.iter().any(|id| pool.pool_id == *id)))
            .map(PoolDisplay::to_wire)
            .collect(),
    }
}

impl ToWire for PoolDisplay {
    type Message = pb::PoolDisplay;
    fn to_wire(&self) -> pb::PoolDisplay {
        pb::PoolDisplay {
            pool_id: self.pool_id.to_string(),
            displayed: amount(self.displayed),
            minimum: amount(self.minimum),
            last_win: self.last_win.as_ref().map(|win| pb::WinView {
                table_id: win.table_id.to_string(),
                seat: win.seat,
                code: win.code.to_string(),
                amount: amount(win.amount),
                journal_sequence: win.journal_sequence,
                level: self.last_win_level.clone(),
            }),
            pending: self.pending.iter().map(PrizeView::to_wire).collect(),
            hits: self.hits.iter().map(PrizeView::to_wire).collect(),
            increment_rate: self.increment_rate.normalize().to_string(),
            levels: self.levels.iter().map(LevelMeter::to_wire).collect(),
        }
    }
}

/// A prize as the display feed carries it: its hit, with how its payment stands.
impl ToWire for PrizeView {
    type Message = pb::Hit;
    fn to_wire(&self) -> pb::Hit {
        pb::Hit {
            status: self.status.spanish().to_owned(),
            status_code: self.status.to_wire() as i32,
            level: self.level.clone(),
            ..self.hit.to_wire()
        }
    }
}

/// A hit as reports and the display feed carry it (no status; no level, which its pool's rules
/// say: [`crate::read::signs::paid_from`]).
impl ToWire for Hit {
    type Message = pb::Hit;
    fn to_wire(&self) -> pb::Hit {
        pb::Hit {
            table_id: self.table_id.to_string(),
            seat: self.seat,
            code: self.code.to_string(),
            amount: amount(self.amount),
            time_ms: self.time_ms,
            journal_sequence: self.journal_sequence,
            status: String::new(),
            status_code: pb::PrizeStatus::Unspecified as i32,
            level: String::new(),
        }
    }
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
pub(crate) fn payload_sha256(payload: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    // Into a buffer, then one allocation: `hex::encode` collects its 64 chars one by one.
    let mut hex = [0u8; 64];
    hex::encode_to_slice(Sha256::digest(payload), &mut hex).expect("64 hex digits for 32 bytes");
    String::from_utf8(hex.to_vec()).expect("hex digits are ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal<T: std::fmt::Debug>(result: Result<T, ApiError>) -> String {
        result.expect_err("refused").to_string()
    }

    #[test]
    fn a_payload_is_fingerprinted_as_lowercase_hex_sha256() {
        use sha2::Digest;
        // FIPS 180-2's example, as the journal's records and a retransmission's check read it.
        assert_eq!(payload_sha256(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(payload_sha256(&[0xff; 300]), hex::encode(sha2::Sha256::digest([0xff; 300])));
    }

    #[test]
    fn a_refused_message_names_its_bad_field() {
        let long = "x".repeat(TEXT_MAX + 1);
        let prize = pb::table_command::Command::EnterPrize(pb::EnterPrize { seat: 1, code: "2".into(), high: long.clone() });
        assert_eq!(refusal(TableOp::from_wire(prize)), "high: longer than 64 characters");
        let release = pb::table_command::Command::ReleaseCustody(pb::ReleaseCustody { custody_id: long });
        assert_eq!(refusal(TableOp::from_wire(release)), "custody_id: longer than 64 characters");
        assert_eq!(refusal(required::<pb::table_command::Command>("command", None)), "command: missing");
        assert!(refusal(OrderFacts::from_wire(None)).starts_with("expect: required"));
        let shown = pb::OrderFacts { amount: Some(pb::Amount { value: "mucho".into() }), ..Default::default() };
        let confirm = pb::ConfirmPayout { expect: Some(shown), ..Default::default() };
        assert_eq!(refusal(OfficeOp::from_wire(confirm)), "expect.amount: `mucho` is not a decimal amount (\"8329.00\")");
    }
}
