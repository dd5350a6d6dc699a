//! The commands the journal records, as the table agents and the office send them.

use pozo_engine::money::Money;
use pozo_engine::{PoolId, PrizeCode, TableId};
use serde::{Deserialize, Serialize};

use crate::config::KeyRecord;

/// A card: the premio instantáneo (15.11.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Card {
    pub rank: String,
    pub suit: String,
}

impl Card {
    pub const RANKS: [&'static str; 13] = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
    pub const SUITS: [&'static str; 4] = ["corazones", "diamantes", "tréboles", "picas"];

    /// The card of index 0–51 in a fresh deck.
    pub fn from_index(index: u8) -> Card {
        let index = usize::from(index % 52);
        Card { rank: Card::RANKS[index % 13].to_owned(), suit: Card::SUITS[index / 13].to_owned() }
    }
}

/// What a table agent asks, with the article it follows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum TableOp {
    /// Apertura de Mesa (4.6).
    OpenTable,
    /// Cierre de Mesa (4.7.7, 12.8).
    CloseTable,
    /// Venta de créditos (12.5.3.3).
    SellCredits { seat: u32, credits: u32 },
    /// Pago de créditos (12.5.3.5).
    RefundCredits { seat: u32 },
    /// Pulsador or slot drop (4.4.2, 12.3.1, 15.1.2), staking `credits` credits (AJ
    /// 2.5.4.1; one when absent).
    Press {
        seat: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        credits: Option<u32>,
    },
    /// INICIAR JUEGO (12.5.1.1, 16.4.2.1.6).
    StartRound,
    /// Seat + premio code (12.5.2.1).
    EnterPrize { seat: u32, code: PrizeCode, high: Option<String> },
    /// ACEPTAR: the entered prizes are marked and their awards fixed (12.5.2.1 d, 3.5.1).
    Accept,
    /// FINALIZAR JUEGO: the round ends, the panels are enabled again (12.5.2.3).
    FinishRound,
    /// Anular: a bet handed back before it was played (4.3.2).
    VoidBet { seat: u32 },
    /// A burnt round before play: bets compete in the next hand, no new bets (11.8.1.1, 15.14.1.3).
    CarryBets,
    /// A box voided after play started: its side bet is refunded (11.8.1.2, 11.8.2).
    RefundBet { seat: u32 },
    /// Última bola / último pase (3.9, 11.10).
    LastRound,
    /// Ask to play a Grillo de Oro (4.3.4, 4.3.5).
    RequestGoldTurn,
    /// A seat whose light does not work is closed to the progressive (AJ 2.5.6.1).
    CloseSeat { seat: u32 },
    /// The seat's light mended: open to the progressive again.
    OpenSeat { seat: u32 },
    /// The player of a roulette seat cannot go on: his grillos are kept for him (3.7.1).
    PlayerAbsent { seat: u32 },
    /// He comes back: two silvers become three bronzes, a gold may be played (3.7.1.1–3.7.1.2).
    PlayerReturns { seat: u32 },
    /// Of the grillos of `code` the seat holds, only `played` were played on plenos in
    /// this ball; the rest are played in the next (3.7.4, 3.7.10).
    GrillosPlayed { seat: u32, code: PrizeCode, played: u32 },
    /// A series found invalid after payment: annulled, its awards given back (3.7.2–3.7.3).
    AnnulSeries {
        seat: u32,
        /// The series by its number (`SE-000007`); none: the seat's current series.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        series: Option<String>,
    },
    /// A sick player's side bet, annulled and held by the bank in custody (11.8.3.1.2, 15.14.5.2.2).
    CustodyBet { seat: u32 },
    /// The prizes a sick player won this round stay in custody (11.8.3.2.2, 15.14.5.2.5).
    CustodyPrize { seat: u32 },
    /// What the bank held in custody is handed to the player.
    ReleaseCustody { custody_id: String },
}

#[cfg(test)]
impl Command {
    /// A dealer's command at `table` as the core's tests apply it: no card, no inspector.
    pub(crate) fn dealer(table: &str, sequence: u64, payload_sha256: impl Into<String>, op: TableOp) -> Command {
        Command::Table(TableCommand {
            table_id: table.into(),
            sequence,
            payload_sha256: payload_sha256.into(),
            op,
            card: None,
            inspector: None,
        })
    }
}

/// A table command as journaled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableCommand {
    pub table_id: TableId,
    pub sequence: u64,
    /// SHA-256 of the signed payload bytes, hex: tells a retry from a reuse.
    pub payload_sha256: String,
    pub op: TableOp,
    /// A card drawn by the server's CSPRNG, used when the command puts a premio
    /// instantáneo in play (15.11.2); journaled so replay draws nothing.
    pub card: Option<Card>,
    /// The floor inspector who acted at the table's monitor (their key id), their PIN checked
    /// at the door (4.6, 4.7, 4.3.1); `None`: the table's dealer. Older journals have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inspector: Option<String>,
}

/// What the Venta-Pagos office decides.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum OfficeOp {
    Confirm { order_id: String, form_number: String, expect: OrderFacts },
    Reject { order_id: String, reason: String, expect: OrderFacts },
}

/// What the operator was shown of an order: a decision applies only to the order
/// that still has exactly these facts, never to another one with the same number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderFacts {
    pub pool: PoolId,
    pub table_id: TableId,
    pub seat: u32,
    pub round: u64,
    pub code: PrizeCode,
    pub amount: Money,
}

impl OrderFacts {
    /// The first fact `shown` has other than this order's: (field, this, shown).
    pub(in crate::state) fn difference(&self, shown: &OrderFacts) -> Option<(&'static str, String, String)> {
        [
            ("pool_id", self.pool.to_string(), shown.pool.to_string()),
            ("table_id", self.table_id.to_string(), shown.table_id.to_string()),
            ("seat", self.seat.to_string(), shown.seat.to_string()),
            ("round", self.round.to_string(), shown.round.to_string()),
            ("code", self.code.to_string(), shown.code.to_string()),
        ]
        .into_iter()
        .chain((self.amount != shown.amount).then(|| ("amount", self.amount.to_string(), shown.amount.to_string())))
        .find(|(_, is, shown)| is != shown)
    }
}

/// A Venta-Pagos decision, journaled with who took it: the operator is the holder of
/// the key that signed it (3.5.2), never a field the client fills in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfficeCommand {
    pub key_id: String,
    /// The key holder's name, as the keys file said when the decision was taken.
    pub operator_name: String,
    pub op: OfficeOp,
}

/// A change or a money movement a supervisor proposes (docs/operations.md §8).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum Proposed {
    /// Files of the configuration, whole, as they are to be (the layout, a rulebook, a new
    /// rulebook): replay needs nothing but the journal. The result is validated whole.
    Configuration {
        files: Vec<(String, String)>,
        /// When a money setting of a live pool takes effect (docs/operations.md §8).
        #[serde(default)]
        effect: Effect,
    },
    /// An amount moved from one pool's balance to another's.
    Transfer { from: PoolId, to: PoolId, amount: Money },
    /// A pool no table feeds any more: its balance and reserve go to `to`, its meters stay, frozen.
    RetirePool { pool: PoolId, to: PoolId },
    /// A level nothing feeds or pays any more: its money goes to level `to` of the same pool,
    /// its meters stay, frozen (docs/readings.md, "Retiring a level").
    RetireLevel { pool: PoolId, level: String, to: String },
    /// A documented correction of a pool's balance, up (positive) or down (negative).
    Adjust { pool: PoolId, amount: Money },
    /// A poker tournament set up: the TOML of exactly one `[[torneo]]` (Res. 123/2013 Anexo I
    /// art. 1; `pozo_engine::tournament::Structure::parse`), its registration open once approved.
    Tournament { text: String },
}

/// When a money setting of a live pool takes effect: never in the middle of a round.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "at", rename_all = "snake_case")]
pub enum Effect {
    /// After the pool's next top prize, once none of its tables is in a round.
    #[default]
    NextTopPrize,
    /// From the start of this jornada ("2026-12-01"), once none of its tables is in a round.
    Jornada { jornada: String },
}

impl Effect {
    /// The moment as a person gives it: a jornada (`2026-12-01`), or nothing for after the
    /// pool's next top prize. The state machine checks the jornada when it is proposed.
    pub fn from_jornada(jornada: &str) -> Effect {
        match jornada.trim() {
            "" => Effect::NextTopPrize,
            jornada => Effect::Jornada { jornada: jornada.to_owned() },
        }
    }
}

/// What a supervisor or an inspector does with a proposal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ChangeOp {
    /// One person proposes, with the reason and the regulator's authorisation reference.
    Propose { proposed: Proposed, reason: String, authorisation: String },
    /// Another person approves what they were shown: the proposal's id and its differences' digest.
    Approve { proposal_id: String },
    /// The proposer (or any supervisor) withdraws a pending proposal, with a reason.
    Withdraw { proposal_id: String, reason: String },
}

/// A change command, journaled with who gave it: the holder of the key that signed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeCommand {
    pub key_id: String,
    pub op: ChangeOp,
}

/// The build of the controller that wrote to the journal: its version and the SHA-256 of its
/// executable, hex (docs/operations.md §8, "Upgrades").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Build {
    pub version: String,
    pub sha256: String,
}

/// Everything the journal records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Command {
    /// The first entry: the configuration the pools are kept under, whole, and the
    /// key set it started with (fingerprints, never secrets), and who started it.
    Genesis {
        config_hash: String,
        texts: Vec<(String, String)>,
        #[serde(default)]
        keys: Vec<KeyRecord>,
        #[serde(default)]
        by: String,
        /// The build that started the journal (absent in a journal of an older release).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        build: Option<Build>,
        /// A journal opened from its predecessor's closing statement (`pozo-server close`,
        /// docs/journal.md): the sealed statement whole, `{"statement": {…}, "seal": "…"}`.
        /// The state starts from its `statement.snapshot`; its seal and its books are the
        /// server's to check. Absent in every other journal, and in those written before it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        opened_from: Option<Box<serde_json::Value>>,
    },
    Table(TableCommand),
    Office(OfficeCommand),
    /// A change or money movement proposed, approved or withdrawn (docs/operations.md §8).
    Change(ChangeCommand),
    /// The key set changed at a restart (a key added, removed or rotated): who
    /// restarted the controller with it, and the new set. Layout and rulebooks never
    /// change on a live journal (docs/operations.md §8).
    Keys {
        keys: Vec<KeyRecord>,
        by: String,
    },
    /// A start of the controller on the journal after its first (genesis records the first):
    /// the build serving and who started it.
    Build {
        build: Build,
        by: String,
    },
    /// A mystery level's trigger drawn at its reset and committed to, the value sealed
    /// (docs/journal.md, "draw"): journaled by the controller itself, never asked for.
    Draw(DrawCommand),
    /// A mystery level's hit: the trigger and nonce revealed, the contribution that reached it
    /// and, for a hot seat, the seats it was drawn among (docs/journal.md, "reveal").
    Reveal(RevealCommand),
    /// A tournament's next seat draw committed to (docs/journal.md, "seat_commit"): journaled by
    /// the controller itself when the tournament is set up and after each seat draw.
    SeatCommit(SeatCommitCommand),
    /// A poker tournament's purchase, refund, close, elimination, disqualification, chip seal or
    /// prize paid (Res. 123/2013; docs/journal.md, "tournament"), with who did it.
    Tournament(TournamentCommand),
}

/// A seat draw's commitment as journaled: the nonce sealed under a key derived from the journal key.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatCommitCommand {
    pub tournament: String,
    pub draw: u64,
    /// `seats::commitment`, hex.
    pub commitment: String,
    pub sealed: String,
}

impl std::fmt::Debug for SeatCommitCommand {
    // The sealed nonce is no one's to read in a log line, even encrypted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeatCommitCommand")
            .field("tournament", &self.tournament)
            .field("draw", &self.draw)
            .field("commitment", &self.commitment)
            .finish_non_exhaustive()
    }
}

/// A tournament operation, journaled with who did it: the holder of the key that signed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentCommand {
    pub key_id: String,
    /// The key holder's name, as the keys file said when it was done.
    pub operator_name: String,
    pub op: TournamentOp,
}

/// What is done to a tournament (Res. 123/2013).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum TournamentOp {
    /// A purchase of chips booked one by one (Anexo IV 1.2, 1.3): its order number, the
    /// player's full name and document (masked, fingerprinted and sealed by the server), the
    /// transaction code (IN, RB, AD) and the amount, which is the item's price.
    Purchase {
        tournament: String,
        item: pozo_engine::tournament::Item,
        order: u32,
        player_name: String,
        document_masked: String,
        document_fingerprint: String,
        document_sealed: String,
        amount: Money,
    },
    /// A purchase refunded at the player's request before registration closes (Anexo IV 1.4).
    Refund { tournament: String, order: u32 },
    /// Registration closed: the entrants fixed, and with them the prize row (art. 65).
    CloseRegistration { tournament: String },
    /// The rebuy and add-on period over: the prize pool fixed (art. 64).
    CloseRebuys { tournament: String },
    /// Players out, by the order numbers of their buy-ins: several in one record share the
    /// positions they take (art. 72 when `simultaneous`, art. 71 when the order is unknown).
    Eliminate { tournament: String, players: Vec<u32>, table: String, hand: u64, simultaneous: bool },
    /// A player disqualified (Anexo II): his prize, if in the money, shared among the active players.
    Disqualify { tournament: String, player: u32, reason: String },
    /// A player's chip count sealed against a receipt at the end of a jornada (Anexo IV 7.3.2).
    SealChips { tournament: String, player: u32, chips: u64, receipt: String, jornada: u32 },
    /// A prize paid at the cashier against the player's identity (art. 66); one of the
    /// structure's Venta-Pagos threshold or more is only asked for, PENDIENTE DE PAGO.
    PayPrize { tournament: String, player: u32, document_fingerprint: String },
    /// A prize asked for at the cashier, confirmed paid by the Venta-Pagos office against the
    /// player's identity (art. 66).
    ConfirmPrize { tournament: String, player: u32, document_fingerprint: String },
    /// Tables and seats drawn (art. 11, 15, 88; Anexo IV 8.1) for the players in play, over the
    /// tables listed: the director asks, the controller fills in `nonce` — the one it committed
    /// to — and the state recomputes the seating from it.
    DrawSeats {
        tournament: String,
        reason: crate::tournament::seats::SeatDrawReason,
        tables: Vec<crate::tournament::seats::TableSeats>,
        #[serde(default)]
        nonce: String,
    },
}

impl TournamentOp {
    /// The tournament it is about.
    pub fn tournament(&self) -> &str {
        match self {
            TournamentOp::Purchase { tournament, .. }
            | TournamentOp::Refund { tournament, .. }
            | TournamentOp::CloseRegistration { tournament }
            | TournamentOp::CloseRebuys { tournament }
            | TournamentOp::Eliminate { tournament, .. }
            | TournamentOp::Disqualify { tournament, .. }
            | TournamentOp::SealChips { tournament, .. }
            | TournamentOp::PayPrize { tournament, .. }
            | TournamentOp::ConfirmPrize { tournament, .. }
            | TournamentOp::DrawSeats { tournament, .. } => tournament,
        }
    }
}

/// A draw as journaled: its public head, the commitment, and the trigger and nonce sealed
/// under a key derived from the journal key (`sealed`, hex: only a holder of that key reads
/// it before the reveal, docs/security.md).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawCommand {
    #[serde(flatten)]
    pub head: crate::state::draw::DrawHead,
    /// SHA-256 of the head, the trigger and the nonce (`draw::commitment`), hex.
    pub commitment: String,
    pub sealed: String,
}

impl std::fmt::Debug for DrawCommand {
    // The sealed value is no one's to read in a log line, even encrypted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DrawCommand").field("head", &self.head).field("commitment", &self.commitment).finish_non_exhaustive()
    }
}

/// A reveal as journaled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevealCommand {
    pub pool: PoolId,
    pub level: String,
    pub cycle: u64,
    pub trigger: Money,
    /// The draw's nonce, 64 hex digits.
    pub nonce: String,
    /// The journal sequence of the command whose contribution reached the trigger.
    pub after: u64,
    /// A hot seat's candidates: every seat with a bet in force in the link, in order; empty
    /// for a level without a hot seat.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub eligible: Vec<crate::state::draw::SeatAt>,
}

impl Command {
    /// Entry 1 of a journal under `config`: its texts and hash, its key set, who started it and
    /// with which build, and the predecessor's sealed statement when it is opened from one.
    pub fn genesis(
        config: &crate::config::Config,
        by: &str,
        build: Option<Build>,
        opened_from: Option<Box<serde_json::Value>>,
    ) -> Command {
        Command::Genesis {
            config_hash: config.hash.clone(),
            texts: config.texts.clone(),
            keys: config.key_records(),
            by: by.to_owned(),
            build,
            opened_from,
        }
    }
}

/// Defines [`Command::kind`] and [`Command::KINDS`] from one list, so that the metrics'
/// labels (`pozo_commands_total{kind=…}`, every kind from zero) cannot drift from the kinds
/// commands have: a variant left out of the list does not compile (the match is exhaustive),
/// and a kind in the list is in both.
macro_rules! command_kinds {
    (
        Command { $($command:ident => $command_kind:literal),* $(,)? }
        Office { $($office:ident => $office_kind:literal),* $(,)? }
        Change { $($change:ident => $change_kind:literal),* $(,)? }
        Table { $($table:ident => $table_kind:literal),* $(,)? }
        Tournament { $($tournament:ident => $tournament_kind:literal),* $(,)? }
    ) => {
        impl Command {
            /// Every value of [`Command::kind`].
            pub const KINDS: [&'static str; [$($command_kind,)* $($office_kind,)* $($change_kind,)* $($table_kind,)* $($tournament_kind,)*].len()] =
                [$($command_kind,)* $($office_kind,)* $($change_kind,)* $($table_kind,)* $($tournament_kind,)*];

            /// The command's kind, as the metrics label it (`pozo_commands_total{kind=…}`): the
            /// table operation or the office decision, in the journal's own names.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(Command::$command { .. } => $command_kind,)*
                    Command::Office(office) => match office.op {
                        $(OfficeOp::$office { .. } => $office_kind,)*
                    },
                    Command::Change(change) => match change.op {
                        $(ChangeOp::$change { .. } => $change_kind,)*
                    },
                    Command::Table(table) => match table.op {
                        $(TableOp::$table { .. } => $table_kind,)*
                    },
                    Command::Tournament(tournament) => match tournament.op {
                        $(TournamentOp::$tournament { .. } => $tournament_kind,)*
                    },
                }
            }
        }
    };
}

command_kinds! {
    Command {
        Genesis => "genesis",
        Keys => "keys",
        Build => "build",
        Draw => "draw",
        Reveal => "reveal",
        SeatCommit => "seat_commit",
    }
    Office {
        Confirm => "confirm",
        Reject => "reject",
    }
    Change {
        Propose => "propose",
        Approve => "approve",
        Withdraw => "withdraw",
    }
    Table {
        OpenTable => "open_table",
        CloseTable => "close_table",
        SellCredits => "sell_credits",
        RefundCredits => "refund_credits",
        Press => "press",
        StartRound => "start_round",
        EnterPrize => "enter_prize",
        Accept => "accept",
        FinishRound => "finish_round",
        VoidBet => "void_bet",
        CarryBets => "carry_bets",
        RefundBet => "refund_bet",
        LastRound => "last_round",
        RequestGoldTurn => "request_gold_turn",
        CloseSeat => "close_seat",
        OpenSeat => "open_seat",
        PlayerAbsent => "player_absent",
        PlayerReturns => "player_returns",
        GrillosPlayed => "grillos_played",
        AnnulSeries => "annul_series",
        CustodyBet => "custody_bet",
        CustodyPrize => "custody_prize",
        ReleaseCustody => "release_custody",
    }
    Tournament {
        Purchase => "tournament_purchase",
        Refund => "tournament_refund",
        CloseRegistration => "tournament_close_registration",
        CloseRebuys => "tournament_close_rebuys",
        Eliminate => "tournament_eliminate",
        Disqualify => "tournament_disqualify",
        SealChips => "tournament_seal_chips",
        PayPrize => "tournament_pay_prize",
        ConfirmPrize => "tournament_confirm_prize",
        DrawSeats => "tournament_draw_seats",
    }
}

#[cfg(test)]
mod tests {
    use super::Command;

    /// Two variants under one name would share one counter in the metrics.
    #[test]
    fn no_two_kinds_share_a_name() {
        let distinct: std::collections::BTreeSet<&str> = Command::KINDS.into_iter().collect();
        assert_eq!(distinct.len(), Command::KINDS.len());
    }
}
