//! What the closing sheet (planilla de cierre, docs/pages.md) keeps of every table command
//! applied, in the table's meters of the entry's jornada: the journal entries of the table's
//! commands, who opened and who closed the table and when (4.6, 4.7), and the grillos each seat
//! held at the Cierre de Mesa (4.7.4–4.7.5). Only from the command and its entry: a replay
//! keeps the same.

use crate::state::command::{TableCommand, TableOp};
use crate::state::model::{EntryRange, Grillos, Seat, TableAct};
use crate::state::{Context, State};

/// What the sheet needs from before a command: the grillos each seat holds when it is a Cierre
/// de Mesa of a roulette table (the close ends them), else none.
pub(in crate::state) struct Before {
    held: Option<Vec<Grillos>>,
}

/// The jornada after `jornada` ("2026-11-22" → "2026-11-23").
pub(in crate::state) fn jornada_after(jornada: &str) -> String {
    match jiff::civil::Date::strptime("%Y-%m-%d", jornada).ok().and_then(|date| date.tomorrow().ok()) {
        Some(date) => format!("{:04}-{:02}-{:02}", date.year(), date.month(), date.day()),
        // The end of the calendar (jornadas are the state's own dates): none after it.
        None => format!("{jornada}~"),
    }
}

impl State {
    /// Taken before `command` is applied as an entry of `jornada`. `None` for a jornada before
    /// `sheets_from`, which a release before the sheet began: its sheets are not kept, since
    /// they could not be whole (docs/readings.md, "The closing sheet").
    pub(in crate::state) fn sheet_before(&self, jornada: &str, command: &TableCommand) -> Option<Before> {
        // ISO dates ("2026-11-22") compare as their text.
        if self.data.sheets_from.as_deref().is_none_or(|from| jornada < from) {
            return None;
        }
        let table = self.data.tables.get(&command.table_id)?;
        let closes = matches!(command.op, TableOp::CloseTable) && table.is_roulette();
        Some(Before { held: closes.then(|| table.seats.iter().map(Seat::held).collect()) })
    }

    /// Records `command`, applied as entry `context.sequence` of `jornada`, for the sheet.
    pub(in crate::state) fn note_for_sheet(&mut self, context: Context, jornada: &str, command: &TableCommand, before: Before) {
        let generation = self.data.generation;
        let act = || {
            let inspector_id = command.inspector.clone().unwrap_or_default();
            // The name the journal's key set gives the inspector at this entry.
            let inspector_name = self
                .data
                .keys
                .iter()
                .find(|key| !inspector_id.is_empty() && key.id == inspector_id)
                .map(|key| key.name.clone())
                .unwrap_or_default();
            TableAct { inspector_id, inspector_name, sequence: context.sequence, time_ms: context.time_ms }
        };
        let act = matches!(command.op, TableOp::OpenTable | TableOp::CloseTable).then(act);
        let day = self.day_mut(jornada, &command.table_id);
        let sequence = context.sequence;
        match &mut day.entries {
            Some(range) if range.generation == generation => range.last = sequence,
            // A journal opened from a closing statement: its entries count from 1 again.
            Some(range) => *range = EntryRange { first: sequence, last: sequence, generation, earlier: true },
            None => day.entries = Some(EntryRange { first: sequence, last: sequence, generation, earlier: false }),
        }
        match command.op {
            TableOp::OpenTable if day.opened.is_none() => day.opened = act,
            TableOp::CloseTable => {
                day.closed = act;
                day.closings += 1;
                let held = before.held.unwrap_or_default();
                if day.grillos_at_close.len() < held.len() {
                    day.grillos_at_close.resize(held.len(), Grillos::default());
                }
                for (total, seat) in day.grillos_at_close.iter_mut().zip(&held) {
                    total.bronze += seat.bronze;
                    total.silver += seat.silver;
                    total.gold += seat.gold;
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::config::Config;
    use crate::state::command::{Command, TableCommand, TableOp};
    use crate::state::model::{EntryRange, Grillos};
    use crate::state::{Context, State};

    /// 2026-11-22 00:00 in Buenos Aires (UTC-03:00), in ms since 1970.
    const LOCAL_MIDNIGHT_MS: u64 = 1_795_305_600_000 + 3 * 3_600_000;

    fn at(hour: u64, minute: u64) -> u64 {
        LOCAL_MIDNIGHT_MS + (hour * 60 + minute) * 60_000
    }

    /// A state under the embedded configuration, its genesis applied (its keys name the floor
    /// inspectors Rosa Benítez and Tomás Luna).
    fn state() -> State {
        let config = Arc::new(Config::embedded());
        let mut state = State::new(Arc::clone(&config));
        state.apply(&Command::genesis(&config, "", None, None), Context { sequence: 1, time_ms: at(7, 0) }).expect("genesis");
        state
    }

    /// Applies `op` at `table` as its next command and the journal's next entry, by `inspector`.
    fn apply(state: &mut State, table: &str, time_ms: u64, op: TableOp, inspector: Option<&str>) {
        let sequence = state.table(table).expect("a table of the layout").last_sequence + 1;
        let command = Command::Table(TableCommand {
            table_id: table.into(),
            sequence,
            payload_sha256: format!("{table}-{sequence}"),
            op,
            card: None,
            inspector: inspector.map(str::to_owned),
        });
        let entry = state.journal_sequence() + 1;
        state.apply(&command, Context { sequence: entry, time_ms }).unwrap_or_else(|refusal| panic!("{refusal:?}"));
    }

    // The sheet of R1's jornada, from real commands: its entries' range (another table's entry in
    // between does not count), the inspector who opened it and the one who closed it by name, and
    // each seat's grillos at the close, which FP counts (4.7.4–4.7.5).
    #[test]
    fn the_sheet_keeps_the_entries_the_inspectors_and_the_grillos_at_close() {
        let mut state = state();
        apply(&mut state, "R1", at(20, 0), TableOp::OpenTable, Some("im-rosa"));
        let opened_at = state.journal_sequence();
        apply(&mut state, "R1", at(20, 5), TableOp::SellCredits { seat: 1, credits: 1 }, None);
        apply(&mut state, "R1", at(20, 6), TableOp::Press { seat: 1, credits: None }, None);
        apply(&mut state, "B1", at(20, 7), TableOp::OpenTable, None);
        apply(&mut state, "R1", at(20, 8), TableOp::SellCredits { seat: 3, credits: 1 }, None);
        apply(&mut state, "R1", at(20, 9), TableOp::Press { seat: 3, credits: None }, None);
        apply(&mut state, "R1", at(20, 10), TableOp::StartRound, None);
        // Seat 1's bronze on the pleno: two silvers for the next ball (3.1.3). Seat 3's bronzes
        // missed: its three are played out.
        apply(
            &mut state,
            "R1",
            at(20, 11),
            TableOp::EnterPrize { seat: 1, code: "GRILLO_BRONCE".into(), high: None },
            Some("im-tomas"),
        );
        apply(&mut state, "R1", at(20, 12), TableOp::Accept, Some("im-tomas"));
        apply(&mut state, "R1", at(20, 13), TableOp::FinishRound, None);
        let held = state.table("R1").expect("R1").seats[0].silver;
        assert_eq!(held, 2, "seat 1 holds two silvers");
        // Cierre de Mesa by Tomás Luna the next morning: still the jornada of the 22nd.
        apply(&mut state, "R1", at(24 + 2, 30), TableOp::CloseTable, Some("im-tomas"));
        let closed_at = state.journal_sequence();

        let day = &state.data().days["2026-11-22"]["R1"];
        assert_eq!(day.entries, Some(EntryRange { first: opened_at, last: closed_at, generation: 0, earlier: false }));
        let opened = day.opened.as_ref().expect("the Apertura de Mesa");
        assert_eq!(
            (opened.inspector_id.as_str(), opened.inspector_name.as_str(), opened.sequence, opened.time_ms),
            ("im-rosa", "Rosa Benítez", opened_at, at(20, 0))
        );
        let closed = day.closed.as_ref().expect("the Cierre de Mesa");
        assert_eq!(
            (closed.inspector_id.as_str(), closed.inspector_name.as_str(), closed.sequence, closed.time_ms),
            ("im-tomas", "Tomás Luna", closed_at, at(26, 30))
        );
        assert_eq!(day.closings, 1);
        assert_eq!(day.fp, 2, "FP: the two silvers held at the close");
        let seats = state.table("R1").expect("R1").seats.len();
        assert_eq!(day.grillos_at_close.len(), seats, "every seat of the roulette, held or not");
        assert_eq!(day.grillos_at_close[0], Grillos { bronze: 0, silver: 2, gold: 0 });
        assert!(day.grillos_at_close[1..].iter().all(Grillos::is_empty), "{:?}", day.grillos_at_close);
        let counted: u32 = day.grillos_at_close.iter().map(|seat| seat.bronze + seat.silver + seat.gold).sum();
        assert_eq!(counted, day.fp, "the grillos at close add up to FP");

        // B1, opened by its dealer's agent (no inspector named): its own entry, no name, no grillos.
        let b1 = &state.data().days["2026-11-22"]["B1"];
        let entry = opened_at + 3;
        assert_eq!(b1.entries, Some(EntryRange { first: entry, last: entry, generation: 0, earlier: false }));
        let opened = b1.opened.as_ref().expect("B1's Apertura de Mesa");
        assert_eq!((opened.inspector_id.as_str(), opened.inspector_name.as_str()), ("", ""));
        assert!(b1.closed.is_none() && b1.grillos_at_close.is_empty());
    }

    // A second Apertura and Cierre in the jornada: the sheet names the first opening and the last
    // close, and FP and the grillos at close add both closes up.
    #[test]
    fn a_table_closed_twice_adds_both_closes_up() {
        let mut state = state();
        apply(&mut state, "R1", at(20, 0), TableOp::OpenTable, Some("im-rosa"));
        let first = state.journal_sequence();
        apply(&mut state, "R1", at(21, 0), TableOp::CloseTable, Some("im-rosa"));
        apply(&mut state, "R1", at(22, 0), TableOp::OpenTable, Some("im-tomas"));
        apply(&mut state, "R1", at(23, 0), TableOp::CloseTable, Some("im-tomas"));
        let day = &state.data().days["2026-11-22"]["R1"];
        assert_eq!(day.opened.as_ref().map(|act| (act.inspector_name.as_str(), act.sequence)), Some(("Rosa Benítez", first)));
        let last = state.journal_sequence();
        assert_eq!(day.closed.as_ref().map(|act| (act.inspector_name.as_str(), act.sequence)), Some(("Tomás Luna", last)));
        assert_eq!((day.closings, day.entries.map(|range| (range.first, range.last))), (2, Some((first, last))));
    }

    // A journal a release before the sheet began, restored from that release's snapshot (no
    // `sheets_from`): the jornada it is in keeps no sheet, which could not be whole; the next
    // jornada's sheets are kept.
    #[test]
    fn a_journal_begun_by_an_older_release_keeps_sheets_from_the_next_jornada() {
        let mut state = state();
        assert_eq!(state.data().sheets_from.as_deref(), Some(""), "a new journal keeps every jornada's");
        apply(&mut state, "R1", at(20, 0), TableOp::OpenTable, Some("im-rosa"));
        let mut snapshot = state.snapshot();
        snapshot.data.sheets_from = None;
        let mut day = (*snapshot.data.days["2026-11-22"]["R1"]).clone();
        (day.entries, day.opened) = (None, None);
        snapshot.data.days.get_mut("2026-11-22").expect("the jornada").insert("R1".into(), Arc::new(day));
        let mut state = State::restore(Arc::clone(state.config()), snapshot).expect("restored");
        apply(&mut state, "R1", at(21, 0), TableOp::CloseTable, Some("im-tomas"));
        assert_eq!(state.data().sheets_from.as_deref(), Some("2026-11-23"));
        let day = &state.data().days["2026-11-22"]["R1"];
        assert!(day.entries.is_none() && day.opened.is_none() && day.closed.is_none(), "{day:?}");
        assert_eq!(day.closings, 0);
        apply(&mut state, "R1", at(24 + 7, 0), TableOp::OpenTable, Some("im-tomas"));
        let next = &state.data().days["2026-11-23"]["R1"];
        assert_eq!(next.opened.as_ref().map(|act| act.inspector_name.as_str()), Some("Tomás Luna"));
        assert_eq!(super::jornada_after("2026-12-31"), "2027-01-01");
    }
}
