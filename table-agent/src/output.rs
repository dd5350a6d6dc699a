//! The agent's output lines (docs/agent.md §3), as typed values serialized to one JSON object
//! per line. Fields are written in the order they are declared here, `type` first.

use serde::Serialize;

/// One line the agent prints.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum OutputLine<'a> {
    /// An input line the agent or the controller refused.
    Refused {
        input: &'a str,
        code: &'a str,
        reason: &'a str,
        /// The same refusal in Spanish for the dealer, with its article, where it is written
        /// (the controller's, or the agent's own).
        #[serde(skip_serializing_if = "Option::is_none")]
        motivo: Option<&'a str>,
    },
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
    /// A floor inspector's PIN as the controller checked it at the monitor (`Table/CheckInspector`):
    /// `accepted`, with their name; or refused, why (the controller's code and words). The PIN
    /// itself is never printed.
    Pin {
        inspector: &'a str,
        accepted: bool,
        #[serde(skip_serializing_if = "str::is_empty")]
        name: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        code: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        reason: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        motivo: Option<&'a str>,
    },
    /// The table's panel: its lights, credits and state.
    Panel(Panel<'a>),
    /// The paytable of the table's pool, read at each connection: what the monitor offers the
    /// dealer by name (12.5.2.1).
    Prizes {
        table: &'a str,
        pool: &'a str,
        pool_name: &'a str,
        game: &'a str,
        prizes: Vec<PrizeName<'a>>,
        /// The floor inspectors who may act at the monitor with their PIN.
        inspectors: Vec<PersonName<'a>>,
    },
}

/// A floor inspector as the monitor lists them: the key id a command names, and the name.
#[derive(Debug, Serialize)]
pub(crate) struct PersonName<'a> {
    pub(crate) id: &'a str,
    pub(crate) name: &'a str,
}

/// A prize as the dealer picks it: its name and article; the code is what the line carries.
#[derive(Debug, Serialize)]
pub(crate) struct PrizeName<'a> {
    pub(crate) code: &'a str,
    pub(crate) name: &'a str,
    pub(crate) article: &'a str,
    /// The level it is paid from ("Grand"; "Pagado por la casa" for a prize the house pays);
    /// left out in a pool of one level (docs/readings.md, "Levels").
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(crate) level: &'a str,
    /// What it pays, in words ("100 % del Grand", "5 veces la apuesta, pagado por la casa");
    /// left out when the controller does not say (an older release).
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(crate) pays: &'a str,
    /// An envy bonus: it follows another seat's hand, never entered (`PrizeLine.envy`); left out
    /// otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) envy: bool,
    /// Paid by the house's level, with the house's money (`PrizeLine.house`); left out otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) house: bool,
    /// Drawn by the controller, never entered: a mystery level's hit or its hot seat
    /// (`PrizeLine.drawn`); left out otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) drawn: bool,
}

/// One level's meter as the signs show it (docs/readings.md, "Levels"): its name ("Grand";
/// a banked level's meters carry their flor, "Major · F2"), its amount and its reset.
#[derive(Debug, Serialize)]
pub(crate) struct LevelLine<'a> {
    pub(crate) name: &'a str,
    pub(crate) displayed: String,
    pub(crate) reset: String,
    /// A mystery level: its ceiling, "debe salir antes de" (`Level.must_hit_by`; never its
    /// trigger); left out for any other level.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub(crate) must_hit_by: String,
}

/// An award in an acknowledgement.
#[derive(Debug, Serialize)]
pub(crate) struct AwardLine<'a> {
    pub(crate) seat: u32,
    pub(crate) code: &'a str,
    /// The level that paid it, as the paytable names it ("Grand"; "Pagado por la casa" for a
    /// prize or an envy bonus the house pays); left out in a pool of one level
    /// (docs/readings.md, "Levels").
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(crate) level: &'a str,
    /// An envy bonus: won by a seat for another seat's hand (docs/readings.md, "The envy
    /// bonus"); left out otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) envy: bool,
    pub(crate) award: String,
    pub(crate) payout_order_id: &'a str,
}

/// An award of the round on the panel (docs/agent.md §3, `awards`): what ACEPTAR fixed for a
/// seat, or an envy bonus a seat won in another table's round of the link (`from`), as the
/// view the server sent has them until the table's FINALIZAR JUEGO, so that the monitor says
/// which level paid it and how much, and whether it waits for Venta-Pagos (3.5.2).
#[derive(Debug, Serialize)]
pub(crate) struct PanelAward<'a> {
    pub(crate) seat: u32,
    pub(crate) code: &'a str,
    /// The prize's name in the paytable ("Tres sietes de corazones"); left out when the
    /// paytable was not read.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(crate) name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(crate) level: &'a str,
    /// Paid with the house's money, from no meter (the house's level).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) house: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) envy: bool,
    /// Drawn by the controller: a mystery level's hit ("Pozo misterioso", its trigger) or its
    /// hot seat ("Asiento caliente"); left out otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) drawn: bool,
    /// An envy bonus across the link: the table whose hand gave it ("CP1"); left out for the
    /// table's own awards.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(crate) from: &'a str,
    pub(crate) award: &'a str,
    /// Set when the award is paid through Venta-Pagos (PENDIENTE DE PAGO), not at the table.
    pub(crate) payout_order_id: &'a str,
}

/// The panel. Before the first view from the controller only `table`, `state`, `suspended`
/// and `seats` (empty) are written.
#[derive(Debug, Serialize)]
pub(crate) struct Panel<'a> {
    pub(crate) table: &'a str,
    pub(crate) state: &'a str,
    pub(crate) suspended: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) round: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pool: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) displayed: Option<String>,
    /// A pool with levels: each level's meter, first level first, never the house's; left out
    /// for a pool of one level, whose meter is `displayed` (docs/readings.md, "Levels").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) levels: Vec<LevelLine<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) last_round: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) gold_turn: Option<&'static str>,
    /// Written as `null` when the view has no card, left out before the first view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) instant_card: Option<Option<CardLine<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pending_prizes: Option<Vec<PendingLine<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sequence: Option<u64>,
    pub(crate) seats: Vec<SeatLine>,
    /// The awards ACEPTAR fixed in the table's current round, each its own (an envy bonus
    /// for each seat that won one); left out when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) awards: Vec<PanelAward<'a>>,
    /// The panel's number, counted from 1 (left out while comparing with the last one printed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) panel: Option<u64>,
}

#[derive(Debug, Serialize)]
pub(crate) struct CardLine<'a> {
    pub(crate) rank: &'a str,
    pub(crate) suit: &'a str,
}

#[derive(Debug, Serialize)]
pub(crate) struct PendingLine<'a> {
    pub(crate) seat: u32,
    pub(crate) code: &'a str,
}

/// A seat as the controller's view has it (`SeatView`): its light, credits, stake and
/// grillos, and whether it is closed or its player absent.
#[derive(Debug, Serialize)]
pub(crate) struct SeatLine {
    pub(crate) seat: u32,
    pub(crate) light: &'static str,
    pub(crate) credits: u32,
    /// The credits staked on the seat's side bet this round (AJ 2.5.4.1); 0 with no bet.
    pub(crate) stake: u32,
    pub(crate) bronze: u32,
    pub(crate) silver: u32,
    pub(crate) gold: u32,
    /// Closed to the progressive: its light does not work, it takes no bet (AJ 2.5.6.1).
    pub(crate) closed: bool,
    /// Roulette: the player is absent; his grillos are kept for him, not played (3.7.1).
    pub(crate) absent: bool,
}

impl OutputLine<'_> {
    /// The line as printed: one JSON object.
    pub(crate) fn to_line(&self) -> String {
        serde_json::to_string(self).expect("output lines serialize")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prizes(prizes: Vec<PrizeName<'_>>) -> serde_json::Value {
        let line =
            OutputLine::Prizes { table: "B1", pool: "p", pool_name: "P", game: "blackjack", prizes, inspectors: Vec::new() };
        serde_json::from_str(&line.to_line()).expect("a JSON line")
    }

    // The `prizes` line says each prize's level and what it pays (docs/readings.md, "Levels"), and
    // marks the house's prizes as the server's paytable does.
    #[test]
    fn a_prize_of_a_level_says_its_level_and_what_it_pays() {
        let line = prizes(vec![
            PrizeName {
                code: "SUITED_BJ",
                name: "Black Jack del mismo palo",
                article: "M.4",
                level: "Grand",
                pays: "100 % del Grand",
                envy: false,
                house: false,
                drawn: false,
            },
            PrizeName {
                code: "BJ",
                name: "Black Jack",
                article: "M.5",
                level: "Pagado por la casa",
                pays: "5 veces la apuesta, pagado por la casa",
                envy: false,
                house: true,
                drawn: false,
            },
        ]);
        assert_eq!(line["prizes"][0]["level"], "Grand");
        assert_eq!(line["prizes"][0]["pays"], "100 % del Grand");
        assert_eq!(line["prizes"][1]["level"], "Pagado por la casa");
        assert_eq!(line["prizes"][1]["pays"], "5 veces la apuesta, pagado por la casa");
        assert_eq!(line["prizes"][1]["house"], true, "the server's flag, written");
        assert!(line["prizes"][0].get("house").is_none() && line["prizes"][0].get("envy").is_none(), "{line}");
    }

    // A pool of one level has no level to name; an older controller says nothing of what a
    // prize pays: neither field is written then.
    #[test]
    fn a_prize_of_a_pool_of_one_level_names_no_level() {
        let line = prizes(vec![
            PrizeName {
                code: "A",
                name: "A",
                article: "11.5.1",
                level: "",
                pays: "100 % del pozo",
                envy: false,
                house: false,
                drawn: false,
            },
            PrizeName { code: "B", name: "B", article: "11.5.2", level: "", pays: "", envy: false, house: false, drawn: false },
        ]);
        assert_eq!(
            line["prizes"][0],
            serde_json::json!({"code": "A", "name": "A", "article": "11.5.1", "pays": "100 % del pozo"})
        );
        assert_eq!(line["prizes"][1], serde_json::json!({"code": "B", "name": "B", "article": "11.5.2"}));
    }

    // docs/agent.md §3, `pin`: an accepted PIN names the inspector; a refused one says why, in
    // the controller's words; neither has a field for the PIN.
    #[test]
    fn a_pin_line_says_whether_it_was_accepted_and_never_holds_the_pin() {
        let accepted =
            OutputLine::Pin { inspector: "im-rosa", accepted: true, name: "Rosa Benítez", code: "", reason: "", motivo: None };
        assert_eq!(accepted.to_line(), r#"{"type":"pin","inspector":"im-rosa","accepted":true,"name":"Rosa Benítez"}"#);
        let refused = OutputLine::Pin {
            inspector: "im-tomas",
            accepted: false,
            name: "",
            code: "PermissionDenied",
            reason: "inspector_pin: not the PIN of `im-tomas`",
            motivo: Some("PIN incorrecto para Tomás Luna: nada se registró."),
        };
        let line: serde_json::Value = serde_json::from_str(&refused.to_line()).expect("JSON");
        assert_eq!(line["accepted"], false);
        assert_eq!(line["motivo"], "PIN incorrecto para Tomás Luna: nada se registró.");
        assert!(line.get("name").is_none() && line.get("pin").is_none(), "{line}");
    }
}
