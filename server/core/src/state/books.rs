//! The books of a jornada tied to zero: each pool's balances and meters as the jornada opened
//! (before its first entry), kept for the last [`JORNADAS_KEPT`](super::JORNADAS_KEPT)
//! jornadas, and the reconciliation from that opening to the next jornada's (or to now).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;
use std::sync::Arc;

use pozo_engine::{Pool, PoolFigures, PoolId, Reconciliation};

/// Jornada ("2026-11-22") → each pool's figures as it opened. Each jornada's map is shared
/// (copy on write) with snapshots and the read model.
pub type Openings = BTreeMap<String, Arc<BTreeMap<PoolId, PoolFigures>>>;

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

#[cfg(test)]
mod tests {
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
}
