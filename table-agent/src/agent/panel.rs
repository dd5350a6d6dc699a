//! What the agent prints: the panel (seat lights, credits, the table's displays) built
//! from the newest view the server sent and printed in order, and its other output lines.

use pozo_proto::v1 as pb;
use tonic::Code;

use super::Agent;
use super::Paid;
use crate::output::{CardLine, LevelLine, OutputLine, Panel, PanelAward, PendingLine, SeatLine};

pub(crate) fn light(value: i32, suspended: bool) -> &'static str {
    match pb::Light::try_from(value) {
        Ok(pb::Light::On) => "on",
        // Suspended: no betting, so no blue; a recorded bet keeps its light (11.11.5).
        Ok(pb::Light::Blue) if !suspended => "blue",
        _ => "off",
    }
}

fn gold_turn(value: i32) -> &'static str {
    match pb::GoldTurn::try_from(value) {
        Ok(pb::GoldTurn::Waiting) => "waiting",
        Ok(pb::GoldTurn::Granted) => "granted",
        _ => "none",
    }
}

pub(super) fn amount(value: &Option<pb::Amount>) -> String {
    value.as_ref().map(|amount| amount.value.clone()).unwrap_or_default()
}

pub(super) fn code_name(code: Code) -> String {
    format!("{code:?}")
}

/// The panels' paytable: each prize's line by code.
type Paytable = std::collections::HashMap<String, Paid>;

/// One award of the view on the panel: named by the paytable, its level the server's (a bank's
/// meter named with its bank), the paytable's for a controller that does not send it; `from`:
/// the table whose hand gave an envy bonus across the link.
fn panel_award<'a>(award: &'a pb::AwardView, from: &'a str, paytable: &'a Paytable) -> PanelAward<'a> {
    let paid = paytable.get(&award.code);
    PanelAward {
        seat: award.seat,
        code: &award.code,
        name: paid.map_or("", |paid| &paid.name),
        level: if award.level.is_empty() { paid.map_or("", |paid| &paid.level) } else { &award.level },
        house: paid.is_some_and(|paid| paid.house),
        envy: paid.is_some_and(|paid| paid.envy),
        drawn: paid.is_some_and(|paid| paid.drawn),
        from,
        award: award.award.as_ref().map_or("", |amount| &amount.value),
        payout_order_id: &award.payout_order_id,
    }
}

/// The panel for the view shown (`None`: none yet, suspended), without its number. Its awards
/// are the view's (docs/agent.md §3): those the table accepted this round, then those its seats
/// won in another table's round of the link, until its FINALIZAR JUEGO — the server's record, so
/// an agent restarted after ACEPTAR shows them still.
fn panel<'a>(table: &'a str, view: Option<&'a pb::TableView>, suspended: bool, paytable: &'a Paytable) -> Panel<'a> {
    match view {
        None => Panel {
            table,
            state: "suspended",
            suspended: true,
            round: None,
            pool: None,
            displayed: None,
            levels: Vec::new(),
            last_round: None,
            gold_turn: None,
            instant_card: None,
            pending_prizes: None,
            sequence: None,
            seats: Vec::new(),
            awards: Vec::new(),
            panel: None,
        },
        Some(view) => {
            Panel {
                table: &view.table_id,
                state: if suspended { "suspended" } else { view.state.as_str() },
                suspended,
                round: Some(view.round),
                pool: Some(&view.pool_id),
                displayed: Some(amount(&view.displayed)),
                // The house's level is never on a sign (the server leaves it out; kept out here too).
                levels: view
                    .levels
                    .iter()
                    .filter(|level| !level.house)
                    .map(|level| LevelLine {
                        name: &level.name,
                        displayed: amount(&level.displayed),
                        reset: amount(&level.reset),
                        must_hit_by: if level.mystery { amount(&level.must_hit_by) } else { String::new() },
                    })
                    .collect(),
                last_round: Some(view.last_round),
                gold_turn: Some(gold_turn(view.gold_turn)),
                instant_card: Some(view.instant_card.as_ref().map(|card| CardLine { rank: &card.rank, suit: &card.suit })),
                pending_prizes: Some(
                    view.pending_prizes.iter().map(|entry| PendingLine { seat: entry.seat, code: &entry.code }).collect(),
                ),
                sequence: Some(view.last_sequence),
                seats: view
                    .seats
                    .iter()
                    .map(|seat| SeatLine {
                        seat: seat.seat,
                        // 3.7.1: an absent player's grillos are kept, not played, and his seat takes no
                        // bet: his lamp is dark, not lit like a present player's (`absent` says why).
                        light: if seat.absent { "off" } else { light(seat.light, suspended) },
                        credits: seat.credits,
                        stake: seat.stake,
                        bronze: seat.bronze,
                        silver: seat.silver,
                        gold: seat.gold,
                        closed: seat.closed,
                        absent: seat.absent,
                    })
                    .collect(),
                awards: view
                    .accepted
                    .iter()
                    .map(|award| panel_award(award, "", paytable))
                    .chain(view.link_awards.iter().filter_map(|linked| {
                        linked.award.as_ref().map(|award| panel_award(award, &linked.from_table_id, paytable))
                    }))
                    .collect(),
                panel: None,
            }
        }
    }
}

impl Agent {
    pub(super) async fn emit(&self, line: OutputLine<'_>) {
        let _ = self.output.send(line.to_line()).await;
    }

    pub(super) async fn refused(&self, input: &str, code: &str, reason: &str, motivo: Option<&str>) {
        self.emit(OutputLine::Refused { input, code, reason, motivo }).await;
    }

    /// The panel as the agent knows it; `force` prints it even when unchanged.
    ///
    /// The one path a panel takes to the output: built from the newest view and printed
    /// while the lock is held, so a reply and a push racing each other print their panels
    /// in the order they were built (a panel printed after the lock is let go could be
    /// overtaken by a newer one, and a light would go back).
    pub(super) async fn emit_panel(&self, force: bool) {
        let mut shared = self.shared.lock().await;
        {
            let suspended = !shared.connected;
            let table = self.config.table.as_str();
            // The line without its number (to compare with the last one printed) and with it.
            let (line, numbered) = {
                let mut output = OutputLine::Panel(panel(table, shared.view.as_ref(), suspended, &shared.paytable));
                let line = output.to_line();
                if let OutputLine::Panel(panel) = &mut output {
                    panel.panel = Some(shared.panel_number + 1);
                }
                (line, output.to_line())
            };
            if !force && line == shared.last_panel {
                return;
            }
            shared.last_panel = line;
            shared.panel_number += 1;
            // Under the lock, on purpose: see above.
            let _ = self.output.send(numbered).await;
        }
    }

    /// Takes a view from the server, read at journal entry `journal`, announcing a
    /// gold-turn grant and a new instant card. A view older than the one shown (an
    /// answer overtaken by a push of a later batch, or the reverse) is dropped, unless
    /// `resync`: after a reconnection the server's record is taken whole.
    pub(super) async fn take_view(&self, view: pb::TableView, journal: u64, resync: bool) {
        let (granted, card) = {
            let mut shared = self.shared.lock().await;
            if !resync && shared.view.is_some() && journal < shared.view_journal {
                return;
            }
            shared.view_journal = journal;
            if shared.pending.is_none() {
                // The server's record decides the next sequence: an agent restarted, or
                // a second one on the same table, never stays out of step.
                shared.next_sequence = view.last_sequence + 1;
            }
            let before = shared.view.replace(view.clone());
            let was_granted = before.as_ref().map(|old| old.gold_turn) == Some(pb::GoldTurn::Granted as i32);
            let granted = view.gold_turn == pb::GoldTurn::Granted as i32 && !was_granted;
            let card = match (&view.instant_card, before.as_ref().and_then(|old| old.instant_card.as_ref())) {
                (Some(new), old) if old != Some(new) => Some(new.clone()),
                _ => None,
            };
            (granted, card)
        };
        if granted {
            // 4.3.5: "Se juega Grillo de Oro" at this table.
            self.emit(OutputLine::GoldTurn { table: &self.config.table, state: "granted" }).await;
        }
        if let Some(card) = card {
            // 15.11.2: the premio instantáneo appears on the monitor.
            self.emit(OutputLine::InstantCard { table: &self.config.table, rank: &card.rank, suit: &card.suit }).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    use tokio::sync::{Mutex, mpsc};

    use super::*;
    use crate::agent::{AgentConfig, Paid, Shared};
    use crate::key::Key;

    fn agent(capacity: usize) -> (Agent, mpsc::Receiver<String>) {
        let (output, printed) = mpsc::channel(capacity);
        let config = AgentConfig {
            server: "http://127.0.0.1:1".into(),
            table: "R1".into(),
            key: Key { id: "mesa-R1".into(), secret: vec![7; 32] },
            tls: None,
            monitor_url: None,
        };
        let shared = Shared { connected: true, ..Shared::default() };
        let agent = Agent {
            config: Arc::new(config),
            shared: Arc::new(Mutex::new(shared)),
            output,
            wire: Arc::default(),
            attempted: Arc::new(tokio::sync::watch::Sender::new(true)),
        };
        (agent, printed)
    }

    /// The table as the server would send it at journal entry `journal`: the command
    /// sequence and the seat's credits grow with it, so an older panel is recognisable.
    fn view(journal: u64) -> pb::TableView {
        pb::TableView {
            table_id: "R1".into(),
            state: "open".into(),
            last_sequence: journal,
            seats: vec![pb::SeatView { seat: 1, light: pb::Light::On as i32, credits: journal as u32, ..Default::default() }],
            ..Default::default()
        }
    }

    // Proves that replies and pushes racing on many threads never print an older panel:
    // every task takes a newer view (as a reply or a push does) and prints the panel; the
    // panels come out with strictly increasing panel numbers and never-decreasing views.
    #[tokio::test(flavor = "multi_thread", worker_threads = 8)]
    async fn racing_replies_and_pushes_never_print_an_older_panel() {
        let (agent, mut printed) = agent(4);
        let journal = Arc::new(AtomicU64::new(0));
        let reader = tokio::spawn(async move {
            let mut lines = Vec::new();
            while let Some(line) = printed.recv().await {
                lines.push(serde_json::from_str::<serde_json::Value>(&line).expect("a JSON line"));
            }
            lines
        });
        let tasks: Vec<_> = (0..8)
            .map(|_| {
                let (agent, journal) = (agent.clone(), Arc::clone(&journal));
                tokio::spawn(async move {
                    for _ in 0..2_000 {
                        let at = journal.fetch_add(1, Ordering::SeqCst) + 1;
                        agent.take_view(view(at), at, false).await;
                        agent.emit_panel(false).await;
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("no panic");
        }
        drop(agent);
        let lines = reader.await.expect("the reader");
        assert!(lines.len() > 100, "panels were printed: {}", lines.len());
        let (mut newest, mut number) = (0, 0);
        for (index, line) in lines.iter().enumerate() {
            let sequence = line["sequence"].as_u64().expect("a table panel");
            assert!(sequence >= newest, "panel {index} shows the table at {sequence} after one at {newest}: it went back");
            let next = line["panel"].as_u64().expect("a numbered panel");
            assert_eq!(next, number + 1, "panel {index}: panels are numbered one after another, in print order");
            (newest, number) = (sequence, next);
        }
    }

    fn money(value: &str) -> Option<pb::Amount> {
        Some(pb::Amount { value: value.into() })
    }

    /// The panel of a view, as printed, parsed back.
    fn printed(view: &pb::TableView) -> serde_json::Value {
        let line = OutputLine::Panel(panel("B1", Some(view), false, &Paytable::new())).to_line();
        serde_json::from_str(&line).expect("a JSON line")
    }

    // A pool with levels (docs/readings.md, "Levels"): the panel carries each level's name and
    // meter, first level first, as the server sent them; the house's level is never a meter.
    #[test]
    fn a_pool_with_levels_prints_each_levels_meter() {
        let level = |name: &str, displayed: &str, reset: &str, house: bool| pb::Level {
            name: name.into(),
            displayed: money(displayed),
            reset: money(reset),
            house,
            ..Default::default()
        };
        let view = pb::TableView {
            table_id: "B1".into(),
            pool_id: "mercado-blackjack".into(),
            displayed: money("61234.56"),
            levels: vec![
                level("Mini", "1234.56", "1000.00", false),
                level("Major · F2", "10000.00", "10000.00", false),
                level("Grand", "50000.00", "50000.00", false),
                level("Pagado por la casa", "0.00", "0.00", true),
            ],
            ..view(3)
        };
        let line = printed(&view);
        assert_eq!(
            line["levels"],
            serde_json::json!([
                {"name": "Mini", "displayed": "1234.56", "reset": "1000.00"},
                {"name": "Major · F2", "displayed": "10000.00", "reset": "10000.00"},
                {"name": "Grand", "displayed": "50000.00", "reset": "50000.00"},
            ])
        );
        assert_eq!(line["displayed"], "61234.56", "the pool's amount stays");
    }

    // A mystery level (docs/readings.md, "The mystery level"): its meter carries its ceiling,
    // "debe salir antes de" (never its trigger, which the server does not have to send); a drawn
    // award (the hit, the hot seat) is marked as the paytable's `drawn` says, named by it.
    #[test]
    fn a_mystery_level_prints_its_ceiling_and_a_drawn_award_is_marked() {
        let view = pb::TableView {
            table_id: "B1".into(),
            pool_id: "mercado-gran-sala".into(),
            levels: vec![
                pb::Level { name: "Grand".into(), displayed: money("50000.00"), reset: money("50000.00"), ..Default::default() },
                pb::Level {
                    name: "Misterioso".into(),
                    displayed: money("20040.00"),
                    reset: money("20000.00"),
                    must_hit_by: money("60000.00"),
                    mystery: true,
                    ..Default::default()
                },
            ],
            link_awards: vec![pb::LinkAward {
                from_table_id: "B1".into(),
                award: Some(pb::AwardView {
                    seat: 2,
                    code: "MISTERIOSO".into(),
                    award: money("20057.13"),
                    level: "Misterioso".into(),
                    ..Default::default()
                }),
            }],
            ..view(3)
        };
        let paytable: Paytable = [(
            "MISTERIOSO".to_owned(),
            Paid { name: "Pozo misterioso".into(), level: "Misterioso".into(), house: false, envy: false, drawn: true },
        )]
        .into_iter()
        .collect();
        let line = OutputLine::Panel(panel("B1", Some(&view), false, &paytable)).to_line();
        let line: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
        assert_eq!(line["levels"][1]["must_hit_by"], "60000.00");
        assert!(line["levels"][0].get("must_hit_by").is_none(), "{line}");
        let award = &line["awards"][0];
        assert_eq!((award["name"].as_str(), award["drawn"].as_bool()), (Some("Pozo misterioso"), Some(true)), "{line}");
        assert_eq!(award["award"], "20057.13");
    }

    // The awards of the view are on the panel (docs/agent.md §3): those the table accepted, each
    // with the level the server names (a bank's meter with its bank, docs/readings.md, "Levels"),
    // an envy bonus marked and paid by the house as the paytable's flags say ("The envy bonus"),
    // the Venta-Pagos order of one that waits for it (3.5.2); then an envy bonus won across the
    // link, with the table whose hand gave it. A panel with none writes no `awards`.
    #[test]
    fn the_views_awards_say_their_level_and_an_envy_bonus_is_the_houses() {
        let line = |code: &str, name: &str, level: &str, envy: bool, house: bool| pb::PrizeLine {
            code: code.into(),
            name: name.into(),
            level: level.into(),
            // The words are not what marks them: the flags are.
            pays: "envidia por algo".into(),
            envy,
            house,
            ..Default::default()
        };
        let paytable: Paytable = [
            line("CUATRO_ASES", "Cuatro ases", "Major", false, false),
            line("ENVIDIA_MINI_ROYAL_PICAS", "Envidia: Mini Royal de picas", "Pagado por la casa", true, true),
        ]
        .iter()
        .map(|prize| (prize.code.clone(), Paid::of(prize)))
        .collect();
        let award = |seat: u32, code: &str, level: &str, amount: &str, order: &str| pb::AwardView {
            seat,
            code: code.into(),
            level: level.into(),
            award: money(amount),
            payout_order_id: order.into(),
            ..Default::default()
        };
        let shown = pb::TableView {
            accepted: vec![
                award(1, "CUATRO_ASES", "Major · F2", "100080.00", "OP-000001"),
                award(2, "ENVIDIA_MINI_ROYAL_PICAS", "Pagado por la casa", "50000.00", ""),
            ],
            link_awards: vec![pb::LinkAward {
                from_table_id: "CP1".into(),
                award: Some(award(3, "ENVIDIA_MINI_ROYAL_PICAS", "Pagado por la casa", "150000.00", "")),
            }],
            ..view(5)
        };
        let line =
            serde_json::to_value(OutputLine::Panel(panel("B1", Some(&shown), false, &paytable))).expect("a panel serializes");
        assert_eq!(
            line["awards"],
            serde_json::json!([
                {"seat": 1, "code": "CUATRO_ASES", "name": "Cuatro ases", "level": "Major · F2",
                 "award": "100080.00", "payout_order_id": "OP-000001"},
                {"seat": 2, "code": "ENVIDIA_MINI_ROYAL_PICAS", "name": "Envidia: Mini Royal de picas",
                 "level": "Pagado por la casa", "house": true, "envy": true, "award": "50000.00", "payout_order_id": ""},
                {"seat": 3, "code": "ENVIDIA_MINI_ROYAL_PICAS", "name": "Envidia: Mini Royal de picas",
                 "level": "Pagado por la casa", "house": true, "envy": true, "from": "CP1", "award": "150000.00",
                 "payout_order_id": ""},
            ])
        );
        let none = OutputLine::Panel(panel("B1", Some(&view(5)), false, &paytable)).to_line();
        assert!(!none.contains("awards"), "{none}");
    }

    // A pool of one level prints exactly as before levels existed: no `levels` field.
    #[test]
    fn a_pool_of_one_level_prints_no_levels() {
        let view = pb::TableView { displayed: money("5000.00"), ..view(3) };
        let line = OutputLine::Panel(panel("R1", Some(&view), false, &Paytable::new())).to_line();
        assert!(!line.contains("levels"), "{line}");
        let before = OutputLine::Panel(panel("R1", None, true, &Paytable::new())).to_line();
        assert!(!before.contains("levels"), "{before}");
    }
}
