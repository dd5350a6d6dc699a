//! The parts of a rulebook file that make a pool of levels (docs/readings.md, "Levels", "The
//! envy bonus"): its `[[pool.level]]`s and their shares, the level each prize is paid from and
//! the games that may mark it, each game's own bet in a link across games, the house's level,
//! the per-level and per-prize Venta-Pagos thresholds, and the envy bonus.

use rust_decimal::Decimal;

use super::*;

/// The most levels a pool may have (docs/readings.md, "Levels": commercial systems run 2 to 10).
pub const LEVELS_MAX: usize = 10;

/// A pool's `[[pool.level]]`s: 1 to 10, each named once, its share, reserve, reset, floor
/// and cap checked; a cap's overflow goes to another level or the level's reserve, never
/// round in a circle.
pub(super) fn levels(at: &Place<'_>, pool: &PoolDoc) -> Result<Vec<LevelRules>, RulebookError> {
    if pool.level.is_empty() {
        return Ok(Vec::new());
    }
    if pool.level.len() > LEVELS_MAX {
        return Err(at.error("level", format!("{} levels; a pool has 1 to {LEVELS_MAX}", pool.level.len())));
    }
    for key in ["contribution_rate", "reserve_rate"] {
        let given = if key == "contribution_rate" { pool.contribution_rate.is_some() } else { pool.reserve_rate.is_some() };
        if given {
            return Err(
                at.error(key, "a pool with levels shares each bet per level (`share`, `reserve_share` of each [[pool.level]])")
            );
        }
    }
    let kinds = "`floor` (the meter never shows less) or `start` (only the amount the level starts and restarts at)";
    let names: Vec<&str> = pool.level.iter().map(|level| level.name.0.as_str()).collect();
    let mut levels: Vec<LevelRules> = Vec::with_capacity(pool.level.len());
    for (index, written) in pool.level.iter().enumerate() {
        let at = Place { file: at.file, pool: at.pool, prefix: format!("level[{index}].") };
        let name = written.name.0.trim().to_owned();
        if names[..index].iter().any(|earlier| earlier.trim() == name) {
            return Err(at.error("name", format!("level `{name}` is named twice")));
        }
        let share = at.rate("share", written.share.0)?;
        let reserve_share = at.rate("reserve_share", written.reserve_share.map(|rate| rate.0).unwrap_or_default())?;
        let reset = Money::new(written.reset.0);
        if reset < Money::ZERO || !is_multiple_of(reset, CENT) {
            return Err(at.error("reset", format!("{reset} is not an amount in whole centavos ≥ 0")));
        }
        let minimum_kind = minimum_kind(&at, "minimum_kind", written.minimum_kind.as_deref(), kinds)?;
        let cap = match (written.cap, written.overflow_to.as_deref()) {
            (None, None) => None,
            (None, Some(_)) => return Err(at.error("overflow_to", "only a level with a `cap` overflows")),
            (Some(_), None) => {
                return Err(at.error(
                    "overflow_to",
                    "missing field: say where the share goes above the cap (a level's name or `reserve`)",
                ));
            }
            (Some(Exact(cap)), Some(target)) => {
                let cap = Money::new(cap);
                if cap <= reset || !is_multiple_of(cap, CENT) {
                    return Err(at.error("cap", format!("{cap} must be above the reset {reset}, in whole centavos")));
                }
                let overflow = if target == "reserve" {
                    Overflow::Reserve
                } else {
                    match names.iter().position(|known| known.trim() == target) {
                        Some(other) if other != index => Overflow::Level(other),
                        Some(_) => return Err(at.error("overflow_to", "a level does not overflow into itself")),
                        None => {
                            return Err(at.error(
                                "overflow_to",
                                format!("`{target}` is not a level of this pool ({}) nor `reserve`", names.join(", ")),
                            ));
                        }
                    }
                };
                Some((cap, overflow))
            }
        };
        let venta_pagos_over = threshold(&at, written.venta_pagos_over)?;
        let bank = match written.bank.as_deref() {
            None => None,
            // The first level's balances are the pool's own: it is shared by every table.
            Some(_) if index == 0 => return Err(at.error("bank", "the first level is the pool's own, shared by all its tables")),
            Some("flor") => Some(BankBy::Flor),
            Some("salon") => Some(BankBy::Salon),
            Some(other) => return Err(at.error("bank", format!("`{other}` is not `flor` or `salon`"))),
        };
        if bank.is_some() && matches!(cap, Some((_, Overflow::Level(_)))) {
            return Err(at.error("overflow_to", "a banked level overflows to its own reserve, not to another level"));
        }
        let must_hit_by = must_hit_by(&at, written, reset, cap.is_some(), bank.is_some())?;
        if must_hit_by.is_some() && index == 0 {
            // Transfers and adjustments move the first level: a mystery meter moves by bets only.
            return Err(at.error("must_hit_by", "the first level is the pool's own (transfers, adjustments): a mystery level is a further one"));
        }
        if written.hot_seat.is_some() && must_hit_by.is_none() {
            return Err(at.error("hot_seat", "a hot seat is drawn at each hit of a mystery level: give the level `must_hit_by`"));
        }
        levels.push(LevelRules {
            name,
            share,
            reserve_share,
            reset,
            minimum_kind,
            cap,
            house: false,
            venta_pagos_over,
            bank,
            must_hit_by,
            hot_seat: None,
        });
    }
    // A mystery level's meter moves by its own share and its hits only: never by an overflow
    // (docs/readings.md, "The mystery level").
    for (index, level) in levels.iter().enumerate() {
        if let Some((_, Overflow::Level(to))) = level.cap
            && levels[to].is_mystery()
        {
            return Err(at.error(
                &format!("level[{index}].overflow_to"),
                format!("`{}` is a mystery level: it grows by its own share only", levels[to].name),
            ));
        }
    }
    // An overflow goes to a level every table feeds, never to a banked one (which bank?).
    for (index, level) in levels.iter().enumerate() {
        if let Some((_, Overflow::Level(to))) = level.cap
            && levels[to].bank.is_some()
        {
            return Err(at.error(
                &format!("level[{index}].overflow_to"),
                format!("`{}` is banked: an overflow goes to a level every table feeds", levels[to].name),
            ));
        }
    }
    // An overflow chain ends: following it from any level never comes back.
    for start in 0..levels.len() {
        let mut at_level = start;
        for _ in 0..=levels.len() {
            match levels[at_level].cap {
                Some((_, Overflow::Level(next))) => at_level = next,
                _ => break,
            }
            if at_level == start {
                return Err(at.error(&format!("level[{start}].overflow_to"), "the overflows go round in a circle"));
            }
        }
    }
    Ok(levels)
}

/// A pool with levels: the levels' shares and reserves and the house's commission add to the
/// whole bet; the first level's are the pool's own; each level with a reserve uses it first,
/// then the house (`shortfall_from = "house"`, the only value a pool with levels takes).
pub(super) fn level_shares(
    at: &Place<'_>,
    pool: &PoolDoc,
    levels: &[LevelRules],
    first: &LevelRules,
    commission_rate: Decimal,
) -> Result<Shares, RulebookError> {
    let fed: Decimal = levels.iter().map(|level| level.share + level.reserve_share).sum();
    if fed.is_zero() {
        return Err(at.error("level", "no level receives anything: a pool that receives nothing cannot grow"));
    }
    let whole = fed + commission_rate;
    if whole != Decimal::ONE {
        return Err(at.error(
            "commission_rate",
            format!(
                "the levels' shares and reserve shares + commission_rate = {whole}, not 1: the whole side bet must be shared"
            ),
        ));
    }
    if pool.shortfall_from != "house" {
        return Err(at.error(
            "shortfall_from",
            "a pool with levels takes `house`: each level with a reserve uses it first, then the house pays",
        ));
    }
    let shortfall_from = first.shortfall_from();
    Ok(Shares { contribution_rate: first.share, reserve_rate: first.reserve_share, commission_rate, shortfall_from })
}

/// A link across games: each game its own fixed side bet, a game of the pool, in whole centavos,
/// only where the bet is fixed (a range is the pool's for every game).
pub(super) fn game_bets(at: &Place<'_>, pool: &PoolDoc, games: &[Game]) -> Result<Vec<(Game, Money)>, RulebookError> {
    let mut bets = Vec::with_capacity(pool.game_bets.len());
    for (name, Exact(amount)) in &pool.game_bets {
        let key = format!("game_bets.{name}");
        let game = Game::parse(name).map_err(|unknown| at.error(&key, unknown))?;
        if !games.contains(&game) {
            return Err(at.error(&key, format!("`{name}` is not a game of this pool")));
        }
        if !pool.fixed_bet {
            return Err(at.error(&key, "a game's own bet is a fixed bet: `fixed_bet = true`"));
        }
        let bet = Money::new(at.positive(&key, *amount)?);
        if !is_multiple_of(bet, CENT) || bet > crate::money::BET_MAX {
            return Err(at.error(&key, format!("{bet} is not a bet in whole centavos up to {}", crate::money::BET_MAX)));
        }
        bets.push((game, bet));
    }
    Ok(bets)
}

/// The level a prize is paid from: named in a pool with levels, never in one without.
pub(super) fn prize_level(
    at: &Place<'_>,
    key: &str,
    written: Option<&str>,
    levels: &[LevelRules],
) -> Result<usize, RulebookError> {
    let written_levels: Vec<&str> = levels.iter().filter(|level| !level.house).map(|level| level.name.as_str()).collect();
    match written {
        None if written_levels.is_empty() => Ok(0),
        None => Err(at
            .error(key, format!("missing field: a pool with levels says which pays each prize ({})", written_levels.join(", ")))),
        Some(_) if written_levels.is_empty() => {
            Err(at.error(key, "this pool has no [[pool.level]]: its one level pays every prize"))
        }
        Some(name) => levels.iter().position(|level| !level.house && level.name == name).ok_or_else(|| {
            at.error(key, format!("`{name}` is not a level of this pool ({}) nor `house`", written_levels.join(", ")))
        }),
    }
}

/// The games whose tables may mark a prize: games of the pool; none written, all of them.
pub(super) fn prize_games(at: &Place<'_>, written: Option<Vec<String>>, games: &[Game]) -> Result<Vec<Game>, RulebookError> {
    let Some(written) = written else { return Ok(Vec::new()) };
    if written.is_empty() {
        return Err(at.error("games", "an empty list marks the prize at no table; leave `games` out for every game of the pool"));
    }
    let mut only = Vec::with_capacity(written.len());
    for name in written {
        let game = Game::parse(&name).map_err(|unknown| at.error("games", unknown))?;
        if !games.contains(&game) {
            return Err(at.error("games", format!("`{name}` is not a game of this pool")));
        }
        only.push(game);
    }
    Ok(only)
}

/// The level the house pays from (`level = "house"`, `paid_by = "house"`): it holds nothing,
/// every award in it is the house's money, booked as the house's replenishment. Added once,
/// after the written levels.
pub(super) fn house_level(levels: &mut Vec<LevelRules>) -> usize {
    if let Some(house) = levels.iter().position(|level| level.house) {
        return house;
    }
    levels.push(LevelRules {
        name: "Pagado por la casa".to_owned(),
        share: Decimal::ZERO,
        reserve_share: Decimal::ZERO,
        reset: Money::ZERO,
        minimum_kind: MinimumKind::Start,
        cap: None,
        house: true,
        venta_pagos_over: None,
        bank: None,
        must_hit_by: None,
        hot_seat: None,
    });
    levels.len() - 1
}

/// A level's or a prize's own Venta-Pagos threshold: an amount in whole centavos ≥ 0 (3.5.2).
pub(super) fn threshold(at: &Place<'_>, written: Option<Exact>) -> Result<Option<Money>, RulebookError> {
    let Some(Exact(amount)) = written else { return Ok(None) };
    let amount = Money::new(amount);
    if amount < Money::ZERO || !is_multiple_of(amount, CENT) {
        return Err(at.error("venta_pagos_over", format!("{amount} is not an amount in whole centavos ≥ 0 (3.5.2)")));
    }
    Ok(Some(amount))
}

/// The paytable line of a hand's envy bonus: a fixed amount, paid by a level of the pool or by
/// the house (a level of its own that holds nothing, added once).
pub(super) fn envy_prize(
    at: &Place<'_>,
    envy: EnvyDoc,
    hand: &Prize,
    levels: &mut Vec<LevelRules>,
) -> Result<(Prize, EnvyScope), RulebookError> {
    if levels.is_empty() {
        return Err(at.error("envy", "an envy bonus needs a pool with [[pool.level]]s (docs/readings.md, \"The envy bonus\")"));
    }
    let code = envy.code.0;
    if !is_code(&code) {
        return Err(at.error("envy.code", format!("`{code}` is not an upper snake case premio code")));
    }
    let amount = Money::new(at.positive("envy.amount", envy.amount.0)?);
    if !is_multiple_of(amount, CENT) {
        return Err(at.error("envy.amount", format!("{amount} is finer than one centavo")));
    }
    let scope = match envy.scope.as_str() {
        "table" => EnvyScope::Table,
        "link" => EnvyScope::Link,
        other => return Err(at.error("envy.scope", format!("`{other}` is not `table` or `link`"))),
    };
    let level = if envy.paid_by == "house" {
        house_level(levels)
    } else {
        prize_level(at, "envy.paid_by", Some(&envy.paid_by), levels)
            .map_err(|_| at.error("envy.paid_by", format!("`{}` is not `house` nor a level of this pool", envy.paid_by)))?
    };
    // Across the link, the bonus reaches tables of every bank: a level with a meter per bank
    // could not say whose meter pays a seat of another bank (docs/readings.md, "The envy bonus").
    if scope == EnvyScope::Link && levels[level].bank.is_some() {
        return Err(at.error(
            "envy.paid_by",
            format!(
                "`{}` keeps a meter per bank: an envy bonus across the link is paid by the house or by a level every table shares",
                envy.paid_by
            ),
        ));
    }
    let paid = Prize {
        code: PrizeCode::from(code),
        name: envy.name.0,
        article: hand.article.clone(),
        value: PrizeValue::Fixed { amount },
        grants: None,
        level,
        // Across the link, a seat of any game of the pool may be envious.
        games: if scope == EnvyScope::Link { Vec::new() } else { hand.games.clone() },
        envy: None,
        envy_of: Some(hand.code.clone()),
        venta_pagos_over: None,
    };
    Ok((paid, scope))
}

/// A mystery level's ceiling ("debe salir antes de …"): above its reset, in whole centavos; a
/// mystery level is never capped (the ceiling is its cap) nor banked (one trigger, one meter).
fn must_hit_by(
    at: &Place<'_>,
    written: &LevelDoc,
    reset: Money,
    capped: bool,
    banked: bool,
) -> Result<Option<Money>, RulebookError> {
    let Some(Exact(ceiling)) = written.must_hit_by else { return Ok(None) };
    let ceiling = Money::new(ceiling);
    if ceiling <= reset || !is_multiple_of(ceiling, CENT) {
        return Err(at.error("must_hit_by", format!("{ceiling} must be above the reset {reset}, in whole centavos")));
    }
    if ceiling > crate::money::BALANCE_MAX {
        return Err(at.error("must_hit_by", format!("{ceiling} is above the largest amount, {}", crate::money::BALANCE_MAX)));
    }
    if capped {
        return Err(at.error("cap", "a mystery level is never capped: its meter stops at the trigger, at most `must_hit_by`"));
    }
    if banked {
        return Err(at.error("bank", "a mystery level is one meter and one trigger for every table of the pool"));
    }
    Ok(Some(ceiling))
}

/// The paytable lines of the hot seats (`hot_seat = { code, name, amount }` on a mystery
/// level): a fixed amount paid by the house, never entered by a dealer.
pub(super) fn hot_seat_prizes(
    at: &Place<'_>,
    pool: &PoolDoc,
    levels: &mut Vec<LevelRules>,
) -> Result<Vec<Prize>, RulebookError> {
    let mut prizes = Vec::new();
    for (index, written) in pool.level.iter().enumerate() {
        let Some(hot_seat) = written.hot_seat.as_ref() else { continue };
        let at = Place { file: at.file, pool: at.pool, prefix: format!("level[{index}].") };
        let code = hot_seat.code.0.clone();
        if !is_code(&code) {
            return Err(at.error("hot_seat.code", format!("`{code}` is not an upper snake case premio code")));
        }
        if prizes.iter().any(|earlier: &Prize| earlier.code == code) {
            return Err(at.error("hot_seat.code", format!("duplicate code `{code}`")));
        }
        let amount = Money::new(at.positive("hot_seat.amount", hot_seat.amount.0)?);
        if !is_multiple_of(amount, CENT) {
            return Err(at.error("hot_seat.amount", format!("{amount} is finer than one centavo")));
        }
        let house = house_level(levels);
        levels[index].hot_seat = Some(PrizeCode::from(code.clone()));
        prizes.push(Prize {
            code: PrizeCode::from(code),
            name: hot_seat.name.0.clone(),
            article: format!("Asiento caliente, a cada acierto de {}", levels[index].name),
            value: PrizeValue::Fixed { amount },
            grants: None,
            level: house,
            games: Vec::new(),
            envy: None,
            envy_of: None,
            venta_pagos_over: None,
        });
    }
    Ok(prizes)
}

/// Each mystery level pays its hit by exactly one line of the paytable: 100% of it, with no
/// envy bonus and no grant (docs/readings.md, "The mystery level").
pub(super) fn check_mystery(at: &Place<'_>, levels: &[LevelRules], prizes: &[Prize]) -> Result<(), RulebookError> {
    for (index, level) in levels.iter().enumerate().filter(|(_, level)| level.is_mystery()) {
        let paid: Vec<&Prize> = prizes.iter().filter(|prize| prize.level == index).collect();
        let [prize] = paid.as_slice() else {
            return Err(at.error(
                &format!("level[{index}]"),
                format!(
                    "mystery level `{}` is paid by {} lines of the paytable; it needs exactly one, `pays = \"percent\"`, `percent = \"100\"`",
                    level.name,
                    paid.len()
                ),
            ));
        };
        let whole = matches!(prize.value, PrizeValue::Percent { percent, cap_bet_multiple: None, floor_bet_multiple: None } if percent == Decimal::ONE_HUNDRED);
        if !whole || prize.envy.is_some() || prize.grants.is_some() || prize.envy_of.is_some() {
            return Err(at.error(
                &format!("level[{index}]"),
                format!(
                    "`{}` pays mystery level `{}`: 100% of its meter at the trigger, with no envy bonus nor grant",
                    prize.code, level.name
                ),
            ));
        }
    }
    Ok(())
}
