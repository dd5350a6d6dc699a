//! The award calculator for disputes and audits: `pozo-server award --round FILE`.
//!
//! A round file states a pool, its balance at the moment the prizes were marked and
//! the winners of one round at one table; the calculator answers what each winner
//! is paid under the pool's rulebook, and what the pool looks like afterwards. It
//! runs the very engine the controller runs, on a pool opened at that balance, and
//! settles as the controller does: Central Póker's premio instantáneo first, alone and
//! whole (16.4.2.5.1), then the round's prizes on what the sign shows after it (15.9;
//! [`Pool::settle_as_marked`]).

use std::sync::Arc;

use pozo_engine::money::{BALANCE_MAX, Money, format_ars, plain_text};
use pozo_engine::settle::parse_bet;
use pozo_engine::{EngineError, INSTANT_PRIZE, Pool, Rank, Rulebooks, Settlement, Winner};
use serde::{Deserialize, Serialize};

/// The largest round file read: a round has at most 64 winners, far under this.
pub(crate) const ROUND_FILE_BYTES_MAX: u64 = 1024 * 1024;

/// A round file as written by a person: amounts are decimal strings.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RoundFile {
    pub(crate) pool: String,
    /// The main pool's balance when the prizes were marked.
    pub(crate) balance: String,
    /// The reserve pool's balance (AJ 2.5.6.3); zero when absent.
    #[serde(default)]
    pub(crate) reserve: Option<String>,
    /// A pool with levels: each further level's balance (and reserve) by name, as its meter
    /// stood (a banked level's, that of the table's bank); `balance` and `reserve` are the
    /// first level's (docs/readings.md, "Levels").
    #[serde(default)]
    pub(crate) levels: std::collections::BTreeMap<String, LevelLine>,
    pub(crate) winners: Vec<WinnerLine>,
}

/// One further level of a round file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LevelLine {
    pub(crate) balance: String,
    #[serde(default)]
    pub(crate) reserve: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WinnerLine {
    pub(crate) seat: u32,
    pub(crate) code: String,
    /// The winner's side bet, where the prize is a multiple of it.
    #[serde(default)]
    pub(crate) bet: Option<String>,
    /// The hand's highest card (`"K"`), where equal codes are ordered by it.
    #[serde(default)]
    pub(crate) high: Option<String>,
}

/// Why a round file was refused: each names the field and the rule.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RoundError {
    #[error("{0}")]
    Json(String),
    #[error("{0}")]
    Engine(#[from] EngineError),
}

/// What the calculator prints.
#[derive(Debug, Serialize)]
pub(crate) struct AwardReport {
    pub(crate) pool: String,
    /// The Pago Máximo: the amount on the display when the prizes were marked (3.5.1).
    pub(crate) displayed: String,
    /// Central Póker's premio instantáneo, paid at once and alone when it was entered,
    /// before the round's prizes and never prorated with them (16.4.2.5.1).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) instant_prizes: Vec<InstantLine>,
    /// What the sign showed when the round's prizes were paid, after the instant prize
    /// (15.9): present only when an instant prize was paid first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) round_displayed: Option<String>,
    /// FACTOR = MONTO TOTAL ÷ TOTAL A PAGAR, when prorated (3.6.1.4, 11.7.1.4, 15.9.1.4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) factor: Option<String>,
    /// The round's awards, in the order paid.
    pub(crate) awards: Vec<AwardLine>,
    /// Combinations not paid because the seat had a higher one (Veintiuno e).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) superseded: Vec<SupersededLine>,
    /// Every award: the instant prizes and the round's.
    pub(crate) total_paid: String,
    /// What the house added: completing the minimum (3.2.2, 11.2.2) and the reset (15.2.2).
    pub(crate) replenishment: String,
    /// What the reserve gave to the main pool (AJ 2.5.6.3); only for pools with a reserve.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reserve_used: Option<String>,
    pub(crate) balance_after: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reserve_after: Option<String>,
    pub(crate) displayed_after: String,
    /// The pool's mystery levels (docs/readings.md, "The mystery level"): what a hit of each pays
    /// — the trigger drawn in secret at its reset, between its reset and its ceiling, unknown
    /// until the hit — which no round file decides; the calculator never computes one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) mystery: Vec<MysteryLine>,
}

/// A mystery level as the calculator states it: not computed, drawn.
#[derive(Debug, Serialize)]
pub(crate) struct MysteryLine {
    pub(crate) level: String,
    /// Its paytable line (`MISTERIOSO`): paid to the seat whose share reaches the trigger.
    pub(crate) code: String,
    /// The trigger lies above this …
    pub(crate) from: String,
    /// … and at or below this: "debe salir antes de".
    pub(crate) must_hit_by: String,
    /// Its hot seat's line and fixed amount, paid by the house at each hit to a seat drawn
    /// among those with a bet in force at the pool's tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) hot_seat: Option<HotSeatLine>,
}

#[derive(Debug, Serialize)]
pub(crate) struct HotSeatLine {
    pub(crate) code: String,
    pub(crate) amount: String,
}

/// The pool's mystery levels, for the report ([`MysteryLine`]).
fn mystery_lines(rules: &pozo_engine::PoolRules) -> Vec<MysteryLine> {
    rules
        .mystery_levels()
        .filter_map(|(index, level)| {
            let prize = rules.mystery_prize(index)?;
            let hot_seat = level.hot_seat.as_ref().and_then(|code| rules.prize(code)).map(|prize| HotSeatLine {
                code: prize.code.to_string(),
                amount: match prize.value {
                    pozo_engine::PrizeValue::Fixed { amount } => plain_text(amount),
                    _ => String::new(),
                },
            });
            Some(MysteryLine {
                level: level.name.clone(),
                code: prize.code.to_string(),
                from: plain_text(level.reset),
                must_hit_by: plain_text(level.must_hit_by?),
                hot_seat,
            })
        })
        .collect()
}

/// A drawn prize in a round file (docs/readings.md, "The mystery level"): refused, naming the
/// field and why — the controller draws it, no hand or balance decides it.
fn refuse_drawn(rules: &pozo_engine::PoolRules, index: usize, code: &str) -> Option<EngineError> {
    if !rules.is_drawn(code) {
        return None;
    }
    let field = format!("winners[{index}].code");
    let why = match rules.mystery_levels().find(|(at, _)| rules.mystery_prize(*at).is_some_and(|prize| prize.code == code)) {
        Some((_, level)) => format!(
            "`{code}` is the hit of mystery level {}: it pays the trigger drawn in secret at its reset, above {} and at most {} \
             (debe salir antes de), unknown until the hit and revealed in the journal; no round file decides it, the \
             calculator does not compute it (docs/readings.md, \"The mystery level\")",
            level.name,
            format_ars(level.reset),
            level.must_hit_by.map(format_ars).unwrap_or_default()
        ),
        None => format!(
            "`{code}` is a hot seat: the house pays its fixed amount at each hit of its mystery level to a seat drawn among those \
             with a bet in force; never entered, the calculator does not compute it (docs/readings.md, \"The mystery level\")"
        ),
    };
    Some(EngineError::invalid(&field, why))
}

#[derive(Debug, Serialize)]
pub struct AwardLine {
    pub seat: u32,
    pub code: String,
    /// What the winner would get with no limit on payment (3.6.1.1).
    pub unlimited: String,
    pub award: String,
    /// Grillos handed over (3.4.1): `{"code": "GRILLO_PLATA", "count": 2}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grants: Option<GrantLine>,
}

/// A premio instantáneo paid on its own (16.4.2.5.1).
#[derive(Debug, Serialize)]
pub(crate) struct InstantLine {
    pub(crate) seat: u32,
    pub(crate) code: String,
    pub(crate) award: String,
    /// The sign after it was paid.
    pub(crate) displayed_after: String,
}

#[derive(Debug, Serialize)]
pub(crate) struct GrantLine {
    pub(crate) code: String,
    pub(crate) count: u32,
}

#[derive(Debug, Serialize)]
pub(crate) struct SupersededLine {
    pub(crate) seat: u32,
    pub(crate) code: String,
}

/// Parses a round file's text into the pool and winners it states.
pub(crate) fn parse_round(text: &str) -> Result<RoundFile, RoundError> {
    serde_json::from_str(text).map_err(|error| {
        let hint = if error.to_string().contains("expected a string") {
            " (amounts are decimal strings, \"5200.00\", never JSON numbers)"
        } else {
            ""
        };
        RoundError::Json(format!("round file is not a valid round: {error}{hint}"))
    })
}

fn parse_amount(field: &str, text: &str) -> Result<Money, EngineError> {
    let amount: Money = text
        .trim()
        .parse()
        .map_err(|_| EngineError::invalid(field, format!("`{text}` is not a decimal amount (write \"5200.00\")")))?;
    if amount < Money::ZERO {
        return Err(EngineError::invalid(
            field,
            format!("{amount} is negative; a pool balance never is (docs/rules.md, \"Money and conservation\")"),
        ));
    }
    if amount > BALANCE_MAX {
        return Err(EngineError::invalid(field, format!("{amount} is over the largest accepted balance, {BALANCE_MAX}")));
    }
    Ok(amount)
}

/// Computes the awards of the round under the rulebooks given.
pub(crate) fn calculate(rulebooks: &Rulebooks, round: &RoundFile) -> Result<AwardReport, RoundError> {
    let rules = rulebooks.pool(&round.pool).ok_or_else(|| {
        let known: Vec<&str> = rulebooks.pools().map(|rules| rules.id.as_str()).collect();
        EngineError::UnknownPool { pool: round.pool.clone(), known: known.join(", ") }
    })?;
    let balance = parse_amount("balance", &round.balance)?;
    let reserve = match &round.reserve {
        Some(text) => parse_amount("reserve", text)?,
        None => Money::ZERO,
    };
    if !reserve.is_zero() && !rules.has_reserve() {
        return Err(EngineError::invalid("reserve", format!("pool `{}` has no reserve pool (2.5.6.3)", rules.id)).into());
    }
    let winners = round
        .winners
        .iter()
        .enumerate()
        .map(|(index, line)| {
            if let Some(refused) = refuse_drawn(rules, index, &line.code) {
                return Err(refused);
            }
            let bet = line.bet.as_deref().map(|text| parse_bet(&format!("winners[{index}].bet"), text)).transpose()?;
            let high = line
                .high
                .as_deref()
                .map(|text| {
                    text.parse::<Rank>().map_err(|problem| EngineError::invalid(&format!("winners[{index}].high"), problem))
                })
                .transpose()?;
            Ok(Winner { seat: line.seat, code: line.code.clone().into(), bet, high, at: None })
        })
        .collect::<Result<Vec<Winner>, EngineError>>()?;
    let bank = pozo_engine::Bank::default();
    let mut pool = if rules.levels.is_empty() {
        if let Some(name) = round.levels.keys().next() {
            return Err(
                EngineError::invalid(&format!("levels.{name}"), format!("pool `{}` is a pool of one level", rules.id)).into()
            );
        }
        Pool::with_balances(Arc::new(rules.clone()), balance, reserve)
    } else {
        level_pool(rules, round, (balance, reserve), &bank)?
    };
    // 16.4.2.5.1: the instant prize is paid when it is entered, alone; the engine settles
    // the round as the controller does, so the two never answer differently.
    let settlements = pool.settle_as_marked_at(&winners, Some(&bank))?;
    let instant =
        if rules.plays_instant_prize() { winners.iter().filter(|winner| winner.code == INSTANT_PRIZE).count() } else { 0 };
    let (instant, round) = settlements.split_at(instant);
    Ok(AwardReport { mystery: mystery_lines(rules), ..report(instant, round.first(), rules.has_reserve()) })
}

/// A pool with levels at the balances the round file states: the first level's `balance` and
/// `reserve`, every further level's by name (each required; the house's level holds nothing).
fn level_pool(
    rules: &pozo_engine::PoolRules,
    round: &RoundFile,
    first: (Money, Money),
    bank: &pozo_engine::Bank,
) -> Result<Pool, EngineError> {
    if let Some(unknown) =
        round.levels.keys().find(|name| !rules.levels.iter().skip(1).any(|level| !level.house && level.name == **name))
    {
        let known: Vec<&str> =
            rules.levels.iter().skip(1).filter(|level| !level.house).map(|level| level.name.as_str()).collect();
        return Err(EngineError::invalid(
            &format!("levels.{unknown}"),
            format!("not a further level of pool `{}` ({})", rules.id, known.join(", ")),
        ));
    }
    let mut balances = vec![first];
    for level in rules.levels.iter().skip(1) {
        if level.house {
            balances.push((Money::ZERO, Money::ZERO));
            continue;
        }
        // A mystery level is never paid by a round's hand: its balance, when not given, is its
        // reset (docs/readings.md, "The mystery level").
        if level.is_mystery() && !round.levels.contains_key(&level.name) {
            balances.push((level.reset, Money::ZERO));
            continue;
        }
        let line = round.levels.get(&level.name).ok_or_else(|| {
            EngineError::invalid(
                &format!("levels.{}", level.name),
                format!("missing: pool `{}` has this level; give its balance", rules.id),
            )
        })?;
        let balance = parse_amount(&format!("levels.{}.balance", level.name), &line.balance)?;
        let reserve = match &line.reserve {
            Some(text) => parse_amount(&format!("levels.{}.reserve", level.name), text)?,
            None => Money::ZERO,
        };
        balances.push((balance, reserve));
    }
    Pool::with_level_balances(std::sync::Arc::new(rules.clone()), &balances, bank)
}

/// The report of the instant prizes paid alone and the round settled after them (at
/// least one of the two is there: a round has at least one winner).
fn report(instant: &[Settlement], round: Option<&Settlement>, has_reserve: bool) -> AwardReport {
    let text = plain_text;
    let all: Vec<&Settlement> = instant.iter().chain(round).collect();
    let first = all.first().expect("a round has at least one winner");
    let last = all.last().expect("a round has at least one winner");
    let sum = |amount: fn(&Settlement) -> Money| all.iter().map(|settlement| amount(settlement)).sum::<Money>();
    AwardReport {
        pool: first.pool.to_string(),
        displayed: text(first.displayed),
        instant_prizes: instant
            .iter()
            .flat_map(|settlement| {
                settlement.awards.iter().map(|award| InstantLine {
                    seat: award.seat,
                    code: award.code.to_string(),
                    award: text(award.award),
                    displayed_after: text(settlement.displayed_after),
                })
            })
            .collect(),
        round_displayed: round.filter(|_| !instant.is_empty()).map(|round| text(round.displayed)),
        factor: round.and_then(|round| round.factor).map(|factor| factor.normalize().to_string()),
        awards: round
            .iter()
            .flat_map(|round| round.awards.iter())
            .map(|award| AwardLine {
                seat: award.seat,
                code: award.code.to_string(),
                unlimited: text(award.unlimited),
                award: text(award.award),
                grants: award.grants.as_ref().map(|grant| GrantLine { code: grant.code.to_string(), count: grant.count }),
            })
            .collect(),
        superseded: round
            .iter()
            .flat_map(|round| round.superseded.iter())
            .map(|winner| SupersededLine { seat: winner.seat, code: winner.code.to_string() })
            .collect(),
        total_paid: text(sum(Settlement::total_paid)),
        replenishment: text(sum(|settlement| settlement.replenishment)),
        reserve_used: has_reserve.then(|| text(sum(|settlement| settlement.reserve_used))),
        balance_after: text(last.balance_after),
        reserve_after: has_reserve.then(|| text(last.reserve_after)),
        displayed_after: text(last.displayed_after),
        mystery: Vec::new(),
    }
}

/// The same report in the words and number format of the cashier's window.
pub(crate) fn render_text(report: &AwardReport) -> String {
    let ars = |text: &str| text.parse::<Money>().map(format_ars).unwrap_or_else(|_| text.to_owned());
    let mut out = String::new();
    out.push_str(&format!("Pozo {}\n", report.pool));
    out.push_str(&format!("Pago Máximo (cartel al marcar): {}\n", ars(&report.displayed)));
    for instant in &report.instant_prizes {
        out.push_str(&format!(
            "  Premio instantáneo pagado aparte, en forma inmediata (16.4.2.5.1): Posición {:>2}  a pagar {}; cartel después {}\n",
            instant.seat,
            ars(&instant.award),
            ars(&instant.displayed_after)
        ));
    }
    if let Some(round_displayed) = &report.round_displayed {
        out.push_str(&format!("Cartel para los premios de la partida (15.9): {}\n", ars(round_displayed)));
    }
    if let Some(factor) = &report.factor {
        out.push_str(&format!("FACTOR (MONTO TOTAL ÷ TOTAL A PAGAR): {}\n", factor.replace('.', ",")));
    }
    for award in &report.awards {
        let grants = award.grants.as_ref().map(|grant| format!(" + {} × {}", grant.count, grant.code)).unwrap_or_default();
        out.push_str(&format!(
            "  Posición {:>2}  {:<24} sin límite {:>16}  a pagar {:>16}{grants}\n",
            award.seat,
            award.code,
            ars(&award.unlimited),
            ars(&award.award)
        ));
    }
    for line in &report.superseded {
        out.push_str(&format!("  Posición {:>2}  {:<24} no se paga: sólo la jugada mayor\n", line.seat, line.code));
    }
    out.push_str(&format!("Total a pagar: {}\n", ars(&report.total_paid)));
    out.push_str(&format!("Reposición: {}\n", ars(&report.replenishment)));
    if let Some(reserve_used) = &report.reserve_used {
        out.push_str(&format!("Tomado del pozo de reserva: {}\n", ars(reserve_used)));
    }
    out.push_str(&format!("Pozo después: {} (cartel {})\n", ars(&report.balance_after), ars(&report.displayed_after)));
    for level in &report.mystery {
        out.push_str(&format!(
            "Nivel misterioso {} ({}): paga el monto sorteado en secreto en su reposición, más de {} y a lo sumo {} (debe salir antes de), \
             desconocido hasta el acierto; esta calculadora no lo calcula\n",
            level.level,
            level.code,
            ars(&level.from),
            ars(&level.must_hit_by)
        ));
        if let Some(hot_seat) = &level.hot_seat {
            out.push_str(&format!(
                "  En cada acierto la casa paga {} {} a un asiento sorteado entre los que tienen apuesta en juego\n",
                hot_seat.code,
                ars(&hot_seat.amount)
            ));
        }
    }
    out
}
