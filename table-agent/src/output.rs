//! The agent's output lines (docs/agent.md §3), as typed values serialized to one JSON object
//! per line. Fields are written in the order they are declared here, `type` first.

use serde::Serialize;

/// One line the agent prints.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OutputLine<'a> {
    /// An input line the agent or the controller refused.
    Refused { input: &'a str, code: &'a str, reason: &'a str },
    /// 4.3.5: "Se juega Grillo de Oro" at this table.
    GoldTurn { table: &'a str, state: &'static str },
    /// 15.11.2: the premio instantáneo, for the monitor.
    InstantCard { table: &'a str, rank: &'a str, suit: &'a str },
    /// A command the controller applied (or had applied: a retry).
    Ack {
        input: &'a str,
        sequence: u64,
        journal_sequence: u64,
        outcome: &'a str,
        awards: Vec<AwardLine<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<&'a str>,
    },
    /// The table's panel: its lights, credits and state.
    Panel(Panel<'a>),
}

/// An award in an acknowledgement.
#[derive(Debug, Serialize)]
pub struct AwardLine<'a> {
    pub seat: u32,
    pub code: &'a str,
    pub award: String,
    pub payout_order_id: &'a str,
}

/// The panel. Before the first view from the controller only `table`, `state`, `suspended`
/// and `seats` (empty) are written.
#[derive(Debug, Serialize)]
pub struct Panel<'a> {
    pub table: &'a str,
    pub state: &'a str,
    pub suspended: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub displayed: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_round: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gold_turn: Option<&'static str>,
    /// Written as `null` when the view has no card, left out before the first view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instant_card: Option<Option<CardLine<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_prizes: Option<Vec<PendingLine<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequence: Option<u64>,
    pub seats: Vec<SeatLine>,
    /// The panel's number, counted from 1 (left out while comparing with the last one printed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub panel: Option<u64>,
}

#[derive(Debug, Serialize)]
pub struct CardLine<'a> {
    pub rank: &'a str,
    pub suit: &'a str,
}

#[derive(Debug, Serialize)]
pub struct PendingLine<'a> {
    pub seat: u32,
    pub code: &'a str,
}

#[derive(Debug, Serialize)]
pub struct SeatLine {
    pub seat: u32,
    pub light: &'static str,
    pub credits: u32,
    pub bronze: u32,
    pub silver: u32,
    pub gold: u32,
}

impl OutputLine<'_> {
    /// The line as printed: one JSON object.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("output lines serialize")
    }
}
