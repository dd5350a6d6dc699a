//! The books of a jornada tied to zero: each pool's balances and meters as the jornada opened
//! (before its first entry), kept for the last [`JORNADAS_KEPT`](super::JORNADAS_KEPT)
//! jornadas, and the reconciliation from that opening to the next jornada's (or to now).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use pozo_engine::money::Money;
use pozo_engine::{Pool, PoolFigures, PoolId, Reconciliation, TableId};
use serde::Serialize;

use super::model::{TableDay, TableDays};
use crate::config::Config;

/// Jornada → table → its meters, as `Data::days` keeps them.
pub type Days = BTreeMap<String, TableDays>;

pub use super::model::Openings;

/// Every pool's figures now.
pub fn figures<'a>(pools: impl Iterator<Item = &'a Pool>) -> BTreeMap<PoolId, PoolFigures> {
    pools.map(|pool| (pool.rules().id.clone(), pool.figures())).collect()
}

/// Each pool's books over the jornadas `from` through `through` (the same one for a single
/// jornada; "2026-11-22" dates order as text): from `from`'s opening to the opening of the
/// first jornada after `through`, or to `now` when there is none yet. `None` when `from`'s
/// opening is not kept (none of its entries is in this journal, or it is over 62 jornadas old).
/// A pool added in the period opens from nothing (its first money is booked as a replenishment
/// or a transfer in).
pub fn reconciliation(
    openings: &Openings,
    now: &BTreeMap<PoolId, PoolFigures>,
    from: &str,
    through: &str,
) -> Option<BTreeMap<PoolId, Reconciliation>> {
    let opening = openings.get(from)?;
    let closing = openings
        .range::<str, _>((Bound::Excluded(through.max(from)), Bound::Unbounded))
        .next()
        .map_or(now, |(_, figures)| figures.as_ref());
    let nothing = PoolFigures::default();
    let pools: BTreeSet<&PoolId> = opening.keys().chain(closing.keys()).collect();
    Some(
        pools
            .into_iter()
            .map(|id| {
                let books = Reconciliation::between(opening.get(id).unwrap_or(&nothing), closing.get(id).unwrap_or(&nothing));
                (id.clone(), books)
            })
            .collect(),
    )
}

/// A table's meters over a period, and the corrections that cross its ends.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TableBooks {
    pub table_id: TableId,
    /// Side bets net of those voided or refunded, their amount (IPA) and the prizes (PPPA), by
    /// the jornada each was marked in (4.7.4–4.7.6, 12.8).
    pub bets: u64,
    pub ipa: Money,
    pub pppa: Money,
    /// Of them, what jornadas after the period changed (already in `ipa` and `pppa`).
    pub ipa_amended_later: Money,
    pub pppa_amended_later: Money,
    /// What the period changed of jornadas before it (booked there).
    pub ipa_amending_earlier: Money,
    pub pppa_amending_earlier: Money,
}

impl TableBooks {
    fn add(&mut self, day: &TableDay) {
        self.bets += day.bets;
        self.ipa += day.ipa;
        self.pppa += day.pppa;
        self.ipa_amended_later += day.ipa_amended_later;
        self.pppa_amended_later += day.pppa_amended_later;
        self.ipa_amending_earlier += day.ipa_amending_earlier;
        self.pppa_amending_earlier += day.pppa_amending_earlier;
    }

    /// The IPA as the pool's books count it: in the jornada each bet and each reversal happened.
    pub fn ipa_as_booked(&self) -> Money {
        self.ipa - self.ipa_amended_later + self.ipa_amending_earlier
    }

    /// The PPPA as the pool's books count it: each award, rejection and return when it happened.
    pub fn pppa_as_booked(&self) -> Money {
        self.pppa - self.pppa_amended_later + self.pppa_amending_earlier
    }
}

/// A pool's tables over a period tied to its books: their IPA, as booked, is the pool's bets
/// amount; their PPPA, as booked, its awards less those returned and reclaimed. A difference is
/// a bug, as the pool's own.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PoolTables {
    pub tables: Vec<TableBooks>,
    pub ipa_difference: Money,
    pub pppa_difference: Money,
}

impl PoolTables {
    pub fn ties(&self) -> bool {
        self.ipa_difference.is_zero() && self.pppa_difference.is_zero()
    }
}

/// The books of `table` under `pool`, for a pool of the books.
fn entry<'a>(
    by_pool: &'a mut BTreeMap<PoolId, BTreeMap<TableId, TableBooks>>,
    pool: &PoolId,
    table: &TableId,
) -> Option<&'a mut TableBooks> {
    by_pool.get_mut(pool).map(|tables| {
        tables.entry(table.clone()).or_insert_with(|| TableBooks { table_id: table.clone(), ..TableBooks::default() })
    })
}

/// The tables of each pool of `books` over the jornadas `from` through `through`, tied to the
/// pool's books. Each table's meters count for the pool they were booked for: the pool it fed
/// then (a table moved to another pool in the period counts for both, each its part), or, in
/// meters an older release kept, the pool it feeds now; a retired table's, for the pool it fed.
pub fn tables(
    config: &Config,
    days: &Days,
    from: &str,
    through: &str,
    books: &BTreeMap<PoolId, Reconciliation>,
) -> BTreeMap<PoolId, PoolTables> {
    let mut by_pool: BTreeMap<PoolId, BTreeMap<TableId, TableBooks>> =
        books.keys().map(|pool| (pool.clone(), BTreeMap::new())).collect();
    // Every table of the layout is listed under its pool, with or without meters.
    for table in &config.layout.tables {
        if let Some(tables) = by_pool.get_mut(&table.pool) {
            tables.entry(table.id.clone()).or_insert_with(|| TableBooks { table_id: table.id.clone(), ..TableBooks::default() });
        }
    }
    for (_, tables) in days.range::<str, _>((Bound::Included(from), Bound::Included(through.max(from)))) {
        for (table, day) in tables.iter() {
            let own = day.pool.clone().or_else(|| config.table(table).map(|layout| layout.pool.clone()));
            let mut rest = day.as_ref().clone();
            for share in &day.other_pools {
                rest.ipa -= share.ipa;
                rest.pppa -= share.pppa;
                if let Some(books) = entry(&mut by_pool, &share.pool, table) {
                    books.ipa += share.ipa;
                    books.pppa += share.pppa;
                }
            }
            if let Some(books) = own.and_then(|pool| entry(&mut by_pool, &pool, table)) {
                books.add(&rest);
            }
        }
    }
    by_pool
        .into_iter()
        .map(|(pool, tables)| {
            let tables: Vec<TableBooks> = tables.into_values().collect();
            let reconciliation = &books[&pool];
            let ipa: Money = tables.iter().map(TableBooks::ipa_as_booked).sum();
            let pppa: Money = tables.iter().map(TableBooks::pppa_as_booked).sum();
            let ipa_difference = ipa - reconciliation.bets_amount;
            let pppa_difference =
                pppa - (reconciliation.awards - reconciliation.awards_returned - reconciliation.awards_reclaimed);
            (pool, PoolTables { tables, ipa_difference, pppa_difference })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::config::Config;
    use crate::state::{Command, Context, State, TableOp};
    use pozo_engine::money::Money;

    fn pesos(text: &str) -> Money {
        text.parse().expect("an amount")
    }

    /// Two jornadas of one Black Jack table: each jornada's books start where the last one's
    /// ended, tie to zero, and carry the bets, contributions and awards of that jornada only.
    #[test]
    fn each_jornada_s_books_open_where_the_last_closed_and_tie_to_zero() {
        let config = Arc::new(Config::embedded());
        let mut state = State::new(Arc::clone(&config));
        let night_one = 1_795_305_600_000 + 3 * 3_600_000 + 20 * 3_600_000; // 2026-11-22 20:00, UTC-03:00
        let night_two = night_one + 24 * 3_600_000;
        state.apply(&Command::genesis(&config, "", None, None), Context { sequence: 1, time_ms: night_one }).expect("genesis");
        let mut sequence = 0;
        let mut play = |state: &mut State, time_ms: u64, ops: Vec<TableOp>| {
            for op in ops {
                sequence += 1;
                let command = Command::dealer("B1", sequence, format!("{sequence}"), op);
                let entry = state.data().journal_sequence + 1;
                state.apply(&command, Context { sequence: entry, time_ms }).expect("applied");
            }
        };
        let round = |code: Option<&str>| {
            let mut ops = vec![TableOp::Press { seat: 2, credits: None }, TableOp::StartRound];
            if let Some(code) = code {
                ops.push(TableOp::EnterPrize { seat: 2, code: code.into(), high: None });
                ops.push(TableOp::FinishRound);
                ops.push(TableOp::Accept);
            }
            ops.push(TableOp::FinishRound);
            ops
        };
        let mut first = vec![TableOp::OpenTable, TableOp::SellCredits { seat: 2, credits: 5 }];
        first.extend(round(None));
        play(&mut state, night_one, first);
        play(&mut state, night_two, round(Some("CUATRO_ASES")));

        let one = state.reconciliation("2026-11-22").expect("the first jornada's books")["iplyc-blackjack"].clone();
        let two = state.reconciliation("2026-11-23").expect("the second jornada's books")["iplyc-blackjack"].clone();
        assert!(one.ties() && two.ties(), "{one:?} {two:?}");
        // 11.2.3: 65 % of a 10.00 bet each night; 11.5.3: Cuatro Ases pays a fixed 500.00 on the second.
        assert_eq!((one.bets, one.contributions, one.awards), (1, pesos("6.50"), Money::ZERO));
        assert_eq!((two.bets, two.contributions, two.awards, two.hits), (1, pesos("6.50"), pesos("500.00"), 1));
        assert_eq!(one.opening_balance, pesos("5000.00"), "the pool opened at its minimum (11.2.1)");
        assert_eq!((two.opening_balance, two.opening_reserve), (one.closing_balance, one.closing_reserve));
        assert!(state.reconciliation("2026-11-21").is_none(), "no entry of that jornada in this journal");
        // Every pool has books, all tied, the untouched ones with no lines.
        let all = state.reconciliation("2026-11-23").expect("books");
        assert_eq!(all.len(), state.pools().count());
        assert!(all.values().all(Reconciliation::ties));
        // The two jornadas as one period: the first's opening, the second's close, the lines added.
        let both = reconciliation(&state.data().openings, &figures(state.pools()), "2026-11-22", "2026-11-23")
            .expect("the period's books")["iplyc-blackjack"]
            .clone();
        assert!(both.ties(), "{both:?}");
        assert_eq!((both.bets, both.contributions, both.awards), (2, pesos("13.00"), pesos("500.00")));
        assert_eq!((both.opening_balance, both.closing_balance), (one.opening_balance, two.closing_balance));
    }

    /// A journal opened from a closing statement carries the books: the jornada it opens in
    /// keeps the opening its predecessor booked (the same jornada), or opens on the carried
    /// pools (a later one) — never on the fresh pools' minimums with zero meters.
    #[test]
    fn a_journal_opened_from_a_statement_opens_its_jornada_on_the_carried_books() {
        let config = Arc::new(Config::embedded());
        let night = 1_795_305_600_000 + 23 * 3_600_000; // 2026-11-22 20:00, UTC-03:00
        let mut old = State::new(Arc::clone(&config));
        old.apply(&Command::genesis(&config, "", None, None), Context { sequence: 1, time_ms: night }).expect("genesis");
        let ops = [
            TableOp::OpenTable,
            TableOp::SellCredits { seat: 2, credits: 5 },
            TableOp::Press { seat: 2, credits: None },
            TableOp::StartRound,
            TableOp::FinishRound,
        ];
        for (index, op) in ops.into_iter().enumerate() {
            let sequence = index as u64 + 1;
            let command = Command::dealer("B1", sequence, format!("{sequence}"), op);
            old.apply(&command, Context { sequence: sequence + 1, time_ms: night }).expect("applied");
        }
        let carried = old.data().openings["2026-11-22"].clone();
        for (time_ms, jornada) in [(night + 3_600_000, "2026-11-22"), (night + 24 * 3_600_000, "2026-11-23")] {
            let statement = serde_json::json!({ "statement": { "snapshot": old.snapshot() } });
            let mut new = State::new(Arc::clone(&config));
            let genesis = Command::genesis(&config, "", None, Some(Box::new(statement)));
            new.apply(&genesis, Context { sequence: 1, time_ms }).expect("opened from the statement");
            let expected = if jornada == "2026-11-22" { carried.clone() } else { Arc::new(figures(old.pools())) };
            assert_eq!(new.data().openings[jornada], expected, "jornada {jornada}");
            let books = new.reconciliation(jornada).expect("its books")["iplyc-blackjack"].clone();
            assert!(books.ties(), "{books:?}");
            let bets = if jornada == "2026-11-22" { 1 } else { 0 };
            assert_eq!(books.bets, bets, "jornada {jornada}: only its own bets, not the whole history");
        }
    }

    /// A prize marked on night one and rejected by Venta-Pagos on night two, and a bet registered
    /// on night one refunded on night two: each night's tables tie to the pool's books, night
    /// one's PPPA and IPA kept where the forms put them (without the rejected prize and the
    /// refunded bet), the corrections told apart on both nights (docs/readings.md).
    #[test]
    fn corrections_made_on_a_later_jornada_tie_each_jornada_s_tables_to_its_pool() {
        use crate::state::command::{OfficeCommand, OfficeOp};
        let config = Arc::new(Config::embedded());
        let mut state = State::new(Arc::clone(&config));
        let night_one = 1_795_305_600_000 + 3 * 3_600_000 + 23 * 3_600_000 + 59 * 60_000; // 2026-11-22 23:59
        let night_two = night_one + 24 * 3_600_000;
        state.apply(&Command::genesis(&config, "", None, None), Context { sequence: 1, time_ms: night_one }).expect("genesis");
        let mut sequences = std::collections::HashMap::new();
        let mut play = |state: &mut State, table: &str, time_ms: u64, ops: Vec<TableOp>| {
            for op in ops {
                let sequence = sequences.entry(table.to_owned()).or_insert(0);
                *sequence += 1;
                let command = Command::dealer(table, *sequence, format!("{table}-{sequence}"), op);
                let entry = state.data().journal_sequence + 1;
                state.apply(&command, Context { sequence: entry, time_ms }).expect("applied");
            }
        };
        let mut ops = vec![TableOp::OpenTable];
        for seat in [1, 2] {
            ops.extend([TableOp::SellCredits { seat, credits: 5 }, TableOp::Press { seat, credits: None }]);
        }
        ops.extend([
            TableOp::StartRound,
            TableOp::EnterPrize { seat: 1, code: "TRES_SIETES_MISMO_PALO".into(), high: None },
            TableOp::Accept,
            TableOp::FinishRound,
        ]);
        play(&mut state, "B1", night_one, ops);
        play(&mut state, "B2", night_one, vec![TableOp::OpenTable, TableOp::SellCredits { seat: 3, credits: 5 }]);
        play(&mut state, "B2", night_one, vec![TableOp::Press { seat: 3, credits: None }, TableOp::StartRound]);
        // Night two: B2's bet of night one refunded (11.8.1.2), B1's order rejected (3.5.2).
        play(&mut state, "B2", night_two, vec![TableOp::RefundBet { seat: 3 }]);
        let order = state.data().orders.values().next().expect("the prize's order").clone();
        let reject = Command::Office(OfficeCommand {
            key_id: "vp-ana".into(),
            operator_name: "Ana Pereyra".into(),
            op: OfficeOp::Reject { order_id: order.order_id.clone(), reason: "prueba".into(), expect: order.facts.clone() },
        });
        let entry = state.data().journal_sequence + 1;
        state.apply(&reject, Context { sequence: entry, time_ms: night_two }).expect("rejected");

        let tied = |jornada: &str| {
            let books = state.reconciliation(jornada).expect("books");
            tables(&config, &state.data().days, jornada, jornada, &books).remove("iplyc-blackjack").expect("the pool's tables")
        };
        let (one, two) = (tied("2026-11-22"), tied("2026-11-23"));
        assert!(one.ties() && two.ties(), "{one:?} {two:?}");
        let b1 = |tables: &PoolTables| tables.tables.iter().find(|table| table.table_id == "B1").expect("B1").clone();
        let b2 = |tables: &PoolTables| tables.tables.iter().find(|table| table.table_id == "B2").expect("B2").clone();
        let amount = order.facts.amount;
        // Night one's forms: the prize rejected is not paid; the bet refunded is not an income.
        assert_eq!((b1(&one).pppa, b1(&one).pppa_amended_later), (Money::ZERO, -amount));
        assert_eq!((b2(&one).ipa, b2(&one).ipa_amended_later, b2(&one).bets), (Money::ZERO, pesos("-10.00"), 0));
        // Night two books them as they happened.
        assert_eq!((b1(&two).pppa, b1(&two).pppa_amending_earlier), (Money::ZERO, -amount));
        assert_eq!((b2(&two).ipa, b2(&two).ipa_amending_earlier), (Money::ZERO, pesos("-10.00")));
        assert_eq!(b1(&one).ipa_as_booked() + b2(&one).ipa_as_booked(), pesos("30.00"), "three bets of 10.00 on night one");
        // Both nights as one period: the corrections cancel, as the pool's lines do.
        let books = reconciliation(&state.data().openings, &figures(state.pools()), "2026-11-22", "2026-11-23").expect("books");
        let both =
            tables(&config, &state.data().days, "2026-11-22", "2026-11-23", &books).remove("iplyc-blackjack").expect("tables");
        assert!(both.ties(), "{both:?}");
    }
}
