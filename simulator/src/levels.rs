//! Every level of a pool on its own books (docs/readings.md, "Levels"): each level of a pool
//! with levels conserves its own money, as a pool of one level does (docs/rules.md, "Money and
//! conservation"). The simulator reads each level's balances and meters through the engine's
//! [`Pool::levels`] and ties each to zero, instead of trusting the pool's sum, in which a share
//! booked to the wrong level cancels out.

use pozo_engine::{LevelView, Money, Pool, PoolState};

/// How far one level is from its own conservation; zero when its books tie:
///
/// ```text
/// contributions + replenishments + transfers in + adjustments up
///     − (balance + reserve + awards + transfers out + adjustments down)
/// ```
///
/// (every figure net, as the pool's own identity: `pozo_engine::pool`).
pub fn difference(level: &LevelView) -> Money {
    let m = &level.meters;
    let money_in = m.net_contributions() + m.net_replenishments() + m.transfers_in + m.adjustments_up;
    let held_or_out = level.balance + level.reserve + m.net_awards() + m.transfers_out + m.adjustments_down;
    money_in - held_or_out
}

/// The name a level goes by in a difference: its rulebook name, or "the pool" in a pool of one level.
pub fn name(level: &LevelView, index: usize) -> String {
    match &level.name {
        Some(name) => format!("level {} ({name})", index + 1),
        None => "the pool".to_owned(),
    }
}

/// The first level of `pool` whose own books do not tie, and by how much.
pub fn unbalanced(pool: &Pool) -> Option<(String, Money)> {
    pool.levels()
        .iter()
        .enumerate()
        .find(|(_, level)| !difference(level).is_zero())
        .map(|(index, level)| (name(level, index), difference(level)))
}

/// One level's balances, as a snapshot or a replay holds them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    pub name: Option<String>,
    pub balance: Money,
    pub reserve: Money,
}

/// What each level of `pool` holds, first level first, in the order of [`held_in`]: the levels
/// as the snapshot keeps them (a banked level's empty slot included), then each bank's meter.
pub fn held(pool: &Pool) -> Vec<Held> {
    let state = pool.state();
    let rules = pool.rules();
    let name = |index: usize| rules.level_name(index).map(str::to_owned);
    std::iter::once(Held { name: name(0), balance: state.balance, reserve: state.reserve })
        .chain(state.levels.iter().enumerate().map(|(index, level)| Held {
            name: name(index + 1),
            balance: level.balance,
            reserve: level.reserve,
        }))
        .chain(state.banks.iter().map(|bank| Held {
            name: name(bank.level).map(|name| format!("{name} · {}", bank.bank)),
            balance: bank.state.balance,
            reserve: bank.state.reserve,
        }))
        .collect()
}

/// What each level of a pool kept in a snapshot holds, first level first (a pool of one level:
/// one), then each bank's meter of a banked level.
pub fn held_in(state: &PoolState) -> Vec<(Money, Money)> {
    std::iter::once((state.balance, state.reserve))
        .chain(state.levels.iter().map(|level| (level.balance, level.reserve)))
        .chain(state.banks.iter().map(|bank| (bank.state.balance, bank.state.reserve)))
        .collect()
}

/// Where one level's balances differ: the level's name, then `theirs` and `ours`, each
/// (balance, reserve).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Differs {
    pub level: String,
    pub theirs: (Money, Money),
    pub ours: (Money, Money),
}

/// The first level where `theirs` (a snapshot's, a report's) differs from `ours` (the journal
/// replayed, the simulator's count). Levels of another count differ at the first missing one.
pub fn first_difference(ours: &[Held], theirs: &[(Money, Money)]) -> Option<Differs> {
    let count = ours.len().max(theirs.len());
    (0..count).find_map(|index| {
        let mine = ours.get(index).map(|held| (held.balance, held.reserve));
        let other = theirs.get(index).copied();
        (mine != other).then(|| Differs {
            level: match ours.get(index).and_then(|held| held.name.as_deref()) {
                Some(name) => format!("level {} ({name})", index + 1),
                None if count == 1 => "the pool".to_owned(),
                None => format!("level {}", index + 1),
            },
            theirs: other.unwrap_or_default(),
            ours: mine.unwrap_or_default(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn link() -> Pool {
        let config = crate::casino::market_example().expect("the market's example");
        Pool::open(Arc::new(config.rulebooks.pool("mercado-blackjack").expect("the link").clone()))
    }

    #[test]
    fn every_level_of_the_link_ties_after_bets_and_a_hit() {
        let mut pool = link();
        for _ in 0..50 {
            pool.register_bet(Money::from(1000)).expect("a bet");
        }
        let winner =
            pozo_engine::Winner { seat: 1, code: "TRES_SIETES".into(), bet: Some(Money::from(1000)), high: None, at: None };
        pool.settle_round(&[winner]).expect("the Mini");
        assert_eq!(unbalanced(&pool), None);
        assert_eq!(pool.levels().len(), 5, "Grand, Major, Minor, Mini and the house's");
        let held = held(&pool);
        assert_eq!(held[0].name.as_deref(), Some("Grand"));
        // The Grand had 8% of 50 bets of 1,000 on its reset of 2,000,000, and its reserve 2%.
        assert_eq!((held[0].balance, held[0].reserve), ("2004000".parse().expect("amount"), Money::from(1000)));
        assert_eq!(first_difference(&held, &held_in(&pool.state())), None);
    }

    fn gran_sala() -> Pool {
        let config = crate::casino::market_example().expect("the market's example");
        Pool::open(Arc::new(config.rulebooks.pool(crate::casino::LINK_POOL).expect("the cross-game link").clone()))
    }

    fn flor(flor: &str) -> pozo_engine::Bank {
        pozo_engine::Bank { flor: flor.to_owned(), salon: "sala".to_owned() }
    }

    /// The cross-game link's Major and Mini keep a meter per flor (config/mercado.toml,
    /// `bank = "flor"`): each flor's meter ties on its own, and one flor's prize empties only its own.
    #[test]
    fn each_flors_major_and_mini_tie_on_their_own() {
        let mut pool = gran_sala();
        for _ in 0..10 {
            pool.register_bet_at(Money::from(1000), Some(&flor("F1"))).expect("a Black Jack bet in F1");
            pool.register_bet_at(Money::from(500), Some(&flor("F2"))).expect("a Three Card Poker bet in F2");
        }
        let winner =
            pozo_engine::Winner { seat: 1, code: "CUATRO_ASES".into(), bet: Some(Money::from(1000)), high: None, at: None };
        let settled = pool.settle_round_at(&[winner], Some(&flor("F1"))).expect("the Major of F1");
        // 4% of ten bets of 1,000 on the Major's reset of 100,000: paid whole, from F1's meter only.
        assert_eq!(settled.total_paid(), Money::from(100_400));
        assert_eq!(unbalanced(&pool), None);
        let held = held(&pool);
        let named: Vec<(&str, Money)> = held.iter().map(|held| (held.name.as_deref().unwrap_or("-"), held.balance)).collect();
        // The flors' meters come after the link's five levels (the mystery level and the house's among them).
        assert_eq!(
            &named[5..],
            [
                ("Major · F1", Money::from(100_000)),
                ("Major · F2", Money::from(100_200)),
                ("Mini · F1", Money::from(10_300)),
                ("Mini · F2", Money::from(10_150)),
            ]
        );
        assert_eq!(first_difference(&held, &held_in(&pool.state())), None);
    }

    /// A share booked to another flor's meter ties each meter and sums the same: named by its bank.
    #[test]
    fn a_share_booked_to_another_flor_is_named_by_its_bank() {
        let mut pool = gran_sala();
        pool.register_bet_at(Money::from(1000), Some(&flor("F1"))).expect("a bet in F1");
        pool.register_bet_at(Money::from(1000), Some(&flor("F2"))).expect("a bet in F2");
        let mut state = pool.state();
        let (from, to) = (3, 2); // Mini · F2's 30 booked to Mini · F1
        state.banks[from].state.balance -= Money::from(30);
        state.banks[from].state.meters.contributions -= Money::from(30);
        state.banks[to].state.balance += Money::from(30);
        state.banks[to].state.meters.contributions += Money::from(30);
        let moved = Pool::restore(Arc::new(pool.rules().clone()), state).expect("each meter ties");
        assert_eq!(unbalanced(&moved), None, "each meter ties on its own");
        assert_eq!(moved.balance(), pool.balance(), "the pool's sum cannot tell");
        let differs = first_difference(&held(&pool), &held_in(&moved.state())).expect("a difference");
        assert_eq!(differs.level, "level 8 (Mini · F1)", "counted after the mystery level and the house's");
        assert_eq!((differs.theirs.0, differs.ours.0), (Money::from(10_060), Money::from(10_030)));
    }

    #[test]
    fn a_share_booked_to_another_level_is_named_though_the_pool_sums_the_same() {
        let mut pool = link();
        pool.register_bet(Money::from(1000)).expect("a bet");
        let mut state = pool.state();
        // The Major's 50 booked to the Minor, balance and meter: each level still ties.
        state.levels[0].balance -= Money::from(50);
        state.levels[0].meters.contributions -= Money::from(50);
        state.levels[1].balance += Money::from(50);
        state.levels[1].meters.contributions += Money::from(50);
        let moved = Pool::restore(Arc::new(pool.rules().clone()), state).expect("each level ties");
        assert_eq!(moved.balance(), pool.balance(), "the pool's sum cannot tell");
        let differs = first_difference(&held(&pool), &held_in(&moved.state())).expect("a difference");
        assert_eq!(differs.level, "level 2 (Major)");
        assert_eq!(differs.theirs, (Money::from(200_000), Money::ZERO));
        assert_eq!(differs.ours, (Money::from(200_050), Money::ZERO));
    }
}
