//! Paying the winners of one round at one table (docs/readings.md, "A round is one round at one table": proration never
//! spans tables; rounds at different tables are ordered by the journal).
//!
//! The award of every winner is fixed at the moment the prize is marked, from the
//! amount the display shows then (3.5.1). Three policies share that amount:
//!
//! - **IPLyC** (3.6, 11.7, 15.9): every winner's unlimited award is computed; when
//!   their sum (TOTAL A PAGAR) exceeds the displayed amount (MONTO TOTAL), each is
//!   multiplied by FACTOR = MONTO TOTAL ÷ TOTAL A PAGAR. In roulette a Grillo de
//!   Oro and a Grillo de Plata in one ball are the exception of 3.4.2: gold first,
//!   the pool is replenished, then the silver is paid from it (docs/readings.md, "Gold before silver").
//! - **AJ Bolivia** (2.5.6.2): smallest prizes first, ×bet prizes, then the 10%, then
//!   100% of what remains; winners of the same percentage share it equally, the
//!   indivisible unit to position 1; the 10% is capped at 5,000× the bet.
//! - **Andalucía** (Póquer sin descarte 6.4): ×bet prizes first, then straight
//!   flushes highest first, each taking 10% of what the display shows after the
//!   previous one (equal ones share that 10% equally), then royal flushes share
//!   what remains equally; the bolsa pays only a seat's highest combination and
//!   never less than 3,000× the bet for three suited sevens (Veintiuno e).
//!
//! Every award is rounded *down* to the payout unit; what rounding leaves stays in
//! the pool. Within one stage the awards never exceed the displayed amount, except
//! by the floor a rule guarantees (Veintiuno e), which the house then funds.

use std::cmp::Reverse;
use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;

use crate::error::EngineError;
use crate::ids::{PoolId, PrizeCode, TableId};
use crate::money::{Money, floor_div, floor_to_unit};
use crate::pool::{Funding, Pool, check_bet, check_bet_allowed};
use crate::rulebook::{Grant, Policy, PoolRules, Prize, PrizeValue};

mod book;
pub use book::{BookedAward, RoundBook, RoundEffect};

/// A seat (box, colour or position) at a table, numbered from the croupier's right:
/// seat 1 is "la posición más cercana a la mano derecha del croupier" (AJ 2.5.6.2).
pub type Seat = u32;

/// The highest seat number accepted.
pub const SEAT_MAX: Seat = 16;

/// The most winners one round at one table may have: every seat with every code
/// would still be far below this.
pub const WINNERS_MAX: usize = 64;

/// The rank of a hand's highest card, used where a rule orders equal codes by
/// value (Andalucía 6.4: "la persona que la tuviese de mayor valor").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub struct Rank(u8);

impl Rank {
    pub fn value(self) -> u8 {
        self.0
    }
}

impl FromStr for Rank {
    type Err = String;

    fn from_str(text: &str) -> Result<Rank, String> {
        let value = match text.trim().to_ascii_uppercase().as_str() {
            "A" => 14,
            "K" => 13,
            "Q" => 12,
            "J" => 11,
            "10" | "T" => 10,
            digit if digit.len() == 1 && ("2"..="9").contains(&digit) => digit.parse::<u8>().unwrap_or(0),
            _ => return Err(format!("`{text}` is not a card rank (2–10, J, Q, K, A)")),
        };
        Ok(Rank(value))
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            14 => f.write_str("A"),
            13 => f.write_str("K"),
            12 => f.write_str("Q"),
            11 => f.write_str("J"),
            value => write!(f, "{value}"),
        }
    }
}

/// One winning combination marked for a seat (seat + premio code, 12.5.2.1).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Winner {
    pub seat: Seat,
    pub code: PrizeCode,
    /// The winner's side bet, where the prize is a multiple of it.
    pub bet: Option<Money>,
    /// The highest card of the hand, where the policy orders equal codes by it.
    pub high: Option<Rank>,
    /// The table of the seat, when a round pays seats at other tables of the link (an envy
    /// bonus across the link, docs/readings.md "The envy bonus"): then every winner of the round
    /// names its table. None, and absent from the record, in a round of one table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<TableId>,
}

impl Winner {
    /// The same hand: the same seat of the same table (where the round names tables).
    pub fn same_seat(&self, at: Option<&TableId>, seat: Seat) -> bool {
        self.seat == seat && self.at.as_ref() == at
    }
}

/// What one winner is paid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Award {
    pub seat: Seat,
    pub code: PrizeCode,
    /// The seat's table, where the round names tables ([`Winner::at`]).
    pub at: Option<TableId>,
    /// What the winner would get with no limit on payment (3.6.1.1): before the
    /// factor, the cap and the rounding; for a shared prize, the equal share.
    pub unlimited: Money,
    /// What is paid: rounded down to the payout unit.
    pub award: Money,
    /// Chips handed over besides the money (Grillos, 3.4.1).
    pub grants: Option<Grant>,
}

/// One sequential step of a settlement: the awards of a stage are computed from
/// the amount displayed when the stage starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stage {
    pub displayed: Money,
    pub paid: Money,
    pub factor: Option<Decimal>,
    /// How much a guaranteed floor raised the awards above their share.
    pub floor_topup: Money,
}

/// The outcome of one round at one table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settlement {
    pub pool: PoolId,
    /// The displayed amount when the prizes were marked: the Pago Máximo (3.5.1).
    pub displayed: Money,
    /// FACTOR = MONTO TOTAL ÷ TOTAL A PAGAR, when the awards were prorated (3.6.1.4).
    pub factor: Option<Decimal>,
    /// The awards in the order they were paid.
    pub awards: Vec<Award>,
    /// Combinations not paid because the same seat had a higher one (Veintiuno e).
    pub superseded: Vec<Winner>,
    /// What the house added to the main pool in this round (3.2.2, 11.2.2, 15.2.2).
    pub replenishment: Money,
    /// What the reserve pool gave to the main pool in this round (2.5.6.3).
    pub reserve_used: Money,
    pub balance_after: Money,
    pub reserve_after: Money,
    pub displayed_after: Money,
    /// True when a 100% prize was paid and the pool was brought back to its minimum.
    pub full_pool_paid: bool,
    pub stages: Vec<Stage>,
    /// What the books keep of the round while any of its awards may be rejected.
    pub book: RoundBook,
}

impl Settlement {
    pub fn total_paid(&self) -> Money {
        self.awards.iter().map(|award| award.award).sum()
    }
}

/// Checks a round's winners against the pool's rules. Runs before anything changes.
pub(crate) fn validate(rules: &PoolRules, winners: &[Winner]) -> Result<(), EngineError> {
    if winners.is_empty() {
        return Err(EngineError::invalid("winners", "a round to settle needs at least one winner"));
    }
    if winners.len() > WINNERS_MAX {
        return Err(EngineError::invalid("winners", format!("{} winners, more than {WINNERS_MAX} in one round", winners.len())));
    }
    for (index, winner) in winners.iter().enumerate() {
        check_winner(rules, winner, index)?;
        check_once_per_hand(rules, &winners[..index], winner, index)?;
    }
    if rules.policy == Policy::AndaluciaOrdered {
        check_ranks(rules, winners)?;
    }
    Ok(())
}

/// One winner alone: a seat of the table, a code of the paytable, and the bet its prize needs.
fn check_winner(rules: &PoolRules, winner: &Winner, index: usize) -> Result<(), EngineError> {
    let field = |name: &str| format!("winners[{index}].{name}");
    if winner.seat == 0 || winner.seat > SEAT_MAX {
        return Err(EngineError::invalid(&field("seat"), format!("seat {} is outside 1–{SEAT_MAX}", winner.seat)));
    }
    let prize = rules.prize(&winner.code).ok_or_else(|| {
        let codes: Vec<&str> = rules.prizes.iter().map(|prize| prize.code.as_str()).collect();
        EngineError::invalid(
            &field("code"),
            format!("`{}` is not in the paytable of pool `{}` ({}: {})", winner.code, rules.id, rules.articles, codes.join(", ")),
        )
    })?;
    match winner.bet {
        Some(bet) => {
            check_bet(&field("bet"), bet)?;
            check_bet_allowed(rules, &field("bet"), bet)?;
        }
        None if prize.value.needs_bet() => {
            return Err(EngineError::invalid(
                &field("bet"),
                format!("`{}` pays a multiple of the bet ({}); the winner's bet is required", prize.code, prize.article),
            ));
        }
        None => {}
    }
    Ok(())
}

/// A winner against the `earlier` ones of the round: a combination is marked once per seat,
/// and one hand has one combination of each exclusive group.
fn check_once_per_hand(rules: &PoolRules, earlier: &[Winner], winner: &Winner, index: usize) -> Result<(), EngineError> {
    let field = |name: &str| format!("winners[{index}].{name}");
    if earlier.iter().any(|other| other.same_seat(winner.at.as_ref(), winner.seat) && other.code == winner.code) {
        return Err(EngineError::invalid(
            &field("code"),
            format!("seat {} already has `{}` in this round; a combination is marked once", winner.seat, winner.code),
        ));
    }
    // One hand, one combination of each exclusive group (11.3; the rulebook's `exclusive`).
    if let Some(other) =
        earlier.iter().find(|other| other.same_seat(winner.at.as_ref(), winner.seat) && rules.excludes(&other.code, &winner.code))
    {
        return Err(EngineError::invalid(
            &field("code"),
            format!(
                "seat {} already has `{}` in this round; `{}` cannot occur in the same hand ({}: exclusive codes)",
                winner.seat, other.code, winner.code, rules.articles
            ),
        ));
    }
    Ok(())
}

/// Rule 6.4: several straight flushes are paid highest first, so each needs its rank.
fn check_ranks(rules: &PoolRules, winners: &[Winner]) -> Result<(), EngineError> {
    for prize in &rules.prizes {
        let PrizeValue::Percent { percent, .. } = prize.value else { continue };
        if percent == Decimal::ONE_HUNDRED {
            continue;
        }
        let same_code: Vec<usize> =
            winners.iter().enumerate().filter(|(_, winner)| winner.code == prize.code).map(|(index, _)| index).collect();
        if same_code.len() > 1
            && let Some(index) = same_code.iter().find(|index| winners[**index].high.is_none())
        {
            return Err(EngineError::invalid(
                &format!("winners[{index}].high"),
                format!(
                    "{} winners of `{}`: each needs its highest card, the highest is paid first ({})",
                    same_code.len(),
                    prize.code,
                    prize.article
                ),
            ));
        }
    }
    Ok(())
}

/// A winner with its paytable line, ready to be paid.
#[derive(Clone, Copy)]
struct Entry<'a> {
    winner: &'a Winner,
    prize: &'a Prize,
}

impl Entry<'_> {
    fn award(&self, unlimited: Money, award: Money) -> Award {
        Award {
            seat: self.winner.seat,
            code: self.winner.code.clone(),
            at: self.winner.at.clone(),
            unlimited,
            award,
            grants: self.prize.grants.clone(),
        }
    }

    fn bet(&self) -> Money {
        self.winner.bet.unwrap_or_default()
    }
}

/// The awards of one stage.
struct Outcome {
    awards: Vec<Award>,
    factor: Option<Decimal>,
    floor_topup: Money,
    full_pool: bool,
}

/// Pays a validated round. The caller asserts conservation afterwards.
pub(crate) fn settle(pool: &mut Pool, winners: &[Winner]) -> Settlement {
    let rules = pool.shared_rules();
    let displayed = pool.displayed();
    let (balance_before, reserve_before) = (pool.main_balance(), pool.main_reserve());
    let (entries, superseded) = paid_and_superseded(&rules, winners);
    let paid_winners: Vec<Winner> = entries.iter().map(|entry| entry.winner.clone()).collect();

    let mut groups: Vec<Vec<Entry<'_>>> = vec![Vec::new(), Vec::new()];
    for entry in entries {
        groups[stage_of(&rules, entry.prize)].push(entry);
    }
    groups.retain(|group| !group.is_empty());

    let mut awards = Vec::new();
    let mut stages = Vec::new();
    let mut funding = Funding::default();
    let mut full_pool_paid = false;
    for group in groups {
        let stage_displayed = pool.displayed();
        let outcome = match rules.policy {
            // The house's level: every award in full, the house's money (docs/readings.md, "Levels").
            _ if rules.pays_in_full => in_full(&rules, &group),
            Policy::IplycFactor | Policy::IplycGoldFirst => iplyc_factor(&rules, &group, stage_displayed),
            Policy::AjOrdered => ordered(&rules, &group, stage_displayed, Ordering::AJ),
            Policy::AndaluciaOrdered => ordered(&rules, &group, stage_displayed, Ordering::ANDALUCIA),
        };
        let paid: Money = outcome.awards.iter().map(|award| award.award).sum();
        funding += pool.pay(paid, outcome.awards.len() as u64);
        if outcome.full_pool {
            funding += pool.reset();
            full_pool_paid = true;
        }
        stages.push(Stage { displayed: stage_displayed, paid, factor: outcome.factor, floor_topup: outcome.floor_topup });
        awards.extend(outcome.awards);
    }

    Settlement {
        pool: rules.id.clone(),
        displayed,
        factor: stages.iter().find_map(|stage| stage.factor),
        superseded,
        replenishment: funding.from_house,
        reserve_used: funding.from_reserve,
        balance_after: pool.main_balance(),
        reserve_after: pool.main_reserve(),
        displayed_after: pool.displayed(),
        full_pool_paid,
        stages,
        book: RoundBook {
            pool: rules.id.clone(),
            balance_before,
            reserve_before,
            winners: paid_winners,
            awards: awards
                .iter()
                .map(|award| BookedAward {
                    seat: award.seat,
                    code: award.code.clone(),
                    at: award.at.clone(),
                    award: award.award,
                    rejected: false,
                })
                .collect(),
            effect: RoundEffect {
                balance_after: pool.main_balance(),
                reserve_after: pool.main_reserve(),
                from_house: funding.from_house,
                from_reserve: funding.from_reserve,
            },
            level: 0,
            more: Vec::new(),
            bank: None,
        },
        awards,
    }
}

/// The stage of a round a prize is paid in: one stage, except in roulette, where
/// 3.4.2 pays the gold first: "primero deberá digitarse la orden de pagar el Grillo
/// de Oro, que se llevará el 100% del Pozo Acumulado, luego se pagará el Grillo de
/// Plata, cuyo monto se descontará de la reposición del Pozo".
pub(crate) fn stage_of(rules: &PoolRules, prize: &Prize) -> usize {
    match rules.policy {
        Policy::IplycGoldFirst if !prize.value.is_full_pool() => 1,
        _ => 0,
    }
}

/// Pairs each winner with its prize; where only a seat's highest combination is
/// paid (Veintiuno e: "solo se pagará la combinación o jugada mayor"), the others
/// are set aside.
fn paid_and_superseded<'a>(rules: &'a PoolRules, winners: &'a [Winner]) -> (Vec<Entry<'a>>, Vec<Winner>) {
    let entry = |winner: &'a Winner| Entry {
        winner,
        prize: rules.prize(&winner.code).expect("validated: every code is in the paytable"),
    };
    if !rules.highest_only {
        return (winners.iter().map(entry).collect(), Vec::new());
    }
    let rank = |winner: &Winner| rules.rank(&winner.code).expect("validated: every code is in the paytable");
    let mut paid = Vec::new();
    let mut superseded = Vec::new();
    for winner in winners {
        let higher_on_seat =
            winners.iter().any(|other| other.same_seat(winner.at.as_ref(), winner.seat) && rank(other) < rank(winner));
        if higher_on_seat {
            superseded.push(winner.clone());
        } else {
            paid.push(entry(winner));
        }
    }
    (paid, superseded)
}

/// A percentage prize's share of `amount` (percent ÷ 100 × amount), exact.
fn percent_of(percent: Decimal, amount: Money) -> Money {
    percent / Decimal::ONE_HUNDRED * amount
}

/// What a prize is worth with no limit on payment, for one winner (3.6.1.1).
fn unlimited_value(entry: &Entry<'_>, displayed: Money) -> Money {
    match &entry.prize.value {
        PrizeValue::Grant => Money::ZERO,
        PrizeValue::Fixed { amount } => *amount,
        PrizeValue::BetMultiple { multiple } => *multiple * entry.bet(),
        PrizeValue::Percent { percent, cap_bet_multiple, floor_bet_multiple } => {
            let mut value = percent_of(*percent, displayed);
            if let Some(cap) = cap_bet_multiple {
                value = value.min(*cap * entry.bet());
            }
            if let Some(floor) = floor_bet_multiple {
                value = value.max(*floor * entry.bet());
            }
            value
        }
    }
}

/// Pays `unlimited` amounts out of `available`, prorated when they exceed it:
/// FACTOR = MONTO TOTAL ÷ TOTAL A PAGAR, each award FACTOR × its unlimited amount
/// (3.6.1.1–3.6.1.5), rounded down to the unit.
fn prorate(unlimited: &[Money], available: Money, unit: Money) -> (Vec<Money>, Option<Decimal>) {
    let total: Money = unlimited.iter().sum();
    if total <= available {
        return (unlimited.iter().map(|value| floor_to_unit(*value, unit)).collect(), None);
    }
    let factor = available / total;
    // available × value ÷ total, not factor × value: the factor is rounded at 28
    // digits, the product of the two exact amounts is not.
    let awards = unlimited.iter().map(|value| floor_div(available.decimal() * value.decimal(), total.decimal(), unit)).collect();
    (awards, Some(factor))
}

/// The house pays each award in full, rounded down to the unit: no meter, no factor.
fn in_full(rules: &PoolRules, entries: &[Entry<'_>]) -> Outcome {
    Outcome {
        awards: entries
            .iter()
            .map(|entry| {
                let value = unlimited_value(entry, Money::ZERO);
                entry.award(value, floor_to_unit(value, rules.payout_unit))
            })
            .collect(),
        factor: None,
        floor_topup: Money::ZERO,
        full_pool: false,
    }
}

/// IPLyC 3.6 / 11.7 / 15.9: one factor for the whole round.
fn iplyc_factor(rules: &PoolRules, entries: &[Entry<'_>], displayed: Money) -> Outcome {
    let unlimited: Vec<Money> = entries.iter().map(|entry| unlimited_value(entry, displayed)).collect();
    let (paid, factor) = prorate(&unlimited, displayed, rules.payout_unit);
    Outcome {
        awards: entries
            .iter()
            .zip(unlimited.iter().zip(paid))
            .map(|(entry, (value, award))| entry.award(*value, award))
            .collect(),
        factor,
        floor_topup: Money::ZERO,
        full_pool: entries.iter().any(|entry| entry.prize.value.is_full_pool()),
    }
}

/// How an ordered policy differs between AJ and Andalucía.
#[derive(Clone, Copy)]
struct Ordering {
    /// AJ 2.5.6.2.3: the indivisible unit of a shared prize goes to position 1.
    odd_unit_to_first_seat: bool,
    /// Andalucía 6.4: equal codes are paid highest first, each from what remains.
    highest_first: bool,
}

impl Ordering {
    const AJ: Ordering = Ordering { odd_unit_to_first_seat: true, highest_first: false };
    const ANDALUCIA: Ordering = Ordering { odd_unit_to_first_seat: false, highest_first: true };
}

/// AJ 2.5.6.2 and Andalucía 6.4: the smaller prizes first, each later prize taken
/// from what the earlier ones left.
fn ordered(rules: &PoolRules, entries: &[Entry<'_>], displayed: Money, ordering: Ordering) -> Outcome {
    let unit = rules.payout_unit;
    let mut available = displayed;
    let mut awards = Vec::new();
    let mut floor_topup = Money::ZERO;

    // 1. Prizes that are not a share of the pool (×bet, fixed), smallest first
    //    (2.5.6.2 items 1 and 5), each paid in full: "se pagará el monto
    //    correspondiente según la jugada del jugador ganador" (item 2). What the pool
    //    lacks for them comes from the reserve pool, then the house (2.5.6.3;
    //    docs/readings.md, "×bet prizes over the pool"); the percentages then share
    //    what is left, if anything.
    let mut small: Vec<(Entry<'_>, Money)> = entries
        .iter()
        .filter(|entry| !matches!(entry.prize.value, PrizeValue::Percent { .. }))
        .map(|entry| (*entry, unlimited_value(entry, displayed)))
        .collect();
    small.sort_by_key(|(entry, value)| (*value, entry.winner.seat));
    for (entry, value) in &small {
        let award = floor_to_unit(*value, unit);
        available -= award;
        awards.push(entry.award(*value, award));
    }
    available = available.max(Money::ZERO);

    // 2. Percentages under 100%, smallest first (2.5.6.2 item 4: "primero se
    //    determina el monto correspondiente al 10%").
    let mut partial: Vec<&Prize> = Vec::new();
    for entry in entries {
        if let PrizeValue::Percent { percent, .. } = entry.prize.value
            && percent < Decimal::ONE_HUNDRED
            && !partial.iter().any(|prize| prize.code == entry.prize.code)
        {
            partial.push(entry.prize);
        }
    }
    partial.sort_by_key(|prize| (percent_value(prize), prize.code.clone()));
    for prize in partial {
        let mut members: Vec<Entry<'_>> = entries.iter().filter(|entry| entry.prize.code == prize.code).copied().collect();
        members.sort_by_key(|entry| entry.winner.seat);
        let tiers = if ordering.highest_first { tiers_highest_first(members) } else { vec![members] };
        for tier in tiers {
            let pot = percent_of(percent_value(prize), available);
            let shared = share(&tier, pot, unit, ordering);
            available -= shared.paid;
            floor_topup += shared.floor_topup;
            awards.extend(shared.awards);
        }
    }

    // 3. The whole pool: what remains, shared equally (2.5.6.2 items 3–4; 6.4).
    let mut full: Vec<Entry<'_>> = entries.iter().filter(|entry| entry.prize.value.is_full_pool()).copied().collect();
    full.sort_by_key(|entry| entry.winner.seat);
    let full_pool = !full.is_empty();
    if full_pool {
        let shared = share(&full, available.max(Money::ZERO), unit, ordering);
        floor_topup += shared.floor_topup;
        awards.extend(shared.awards);
    }

    Outcome { awards, factor: None, floor_topup, full_pool }
}

fn percent_value(prize: &Prize) -> Decimal {
    match prize.value {
        PrizeValue::Percent { percent, .. } => percent,
        _ => Decimal::ZERO,
    }
}

/// Andalucía 6.4: "se abonará el premio correspondiente a la persona que la tuviese
/// de mayor valor y tras haberse descontado del visor el importe pagado, se procederá
/// a entregar el 10% de la cantidad restante al otro jugador"; equal values share.
fn tiers_highest_first(members: Vec<Entry<'_>>) -> Vec<Vec<Entry<'_>>> {
    let mut tiers: Vec<Vec<Entry<'_>>> = Vec::new();
    let mut sorted = members;
    sorted.sort_by_key(|entry| (Reverse(entry.winner.high), entry.winner.seat));
    for entry in sorted {
        match tiers.last_mut() {
            Some(tier) if tier[0].winner.high == entry.winner.high => tier.push(entry),
            _ => tiers.push(vec![entry]),
        }
    }
    tiers
}

struct Shared {
    awards: Vec<Award>,
    paid: Money,
    floor_topup: Money,
}

/// Splits `pot` equally among `members` (sorted by seat), rounded down to the unit.
/// AJ gives the indivisible remainder to position 1 (2.5.6.2 item 3); elsewhere it
/// stays in the pool. Then the prize's cap (AJ: 5,000× the bet) and floor
/// (Veintiuno e: 3,000× the bet) apply to each winner's own bet.
fn share(members: &[Entry<'_>], pot: Money, unit: Money, ordering: Ordering) -> Shared {
    let count = Decimal::from(members.len());
    let pot_in_units = floor_to_unit(pot, unit);
    let each = floor_div(pot_in_units.decimal(), count, unit);
    let remainder = pot_in_units - each * count;
    let mut awards = Vec::with_capacity(members.len());
    let mut paid = Money::ZERO;
    let mut floor_topup = Money::ZERO;
    for (position, entry) in members.iter().enumerate() {
        let mut award = each;
        if position == 0 && ordering.odd_unit_to_first_seat {
            award += remainder;
        }
        if let PrizeValue::Percent { cap_bet_multiple, floor_bet_multiple, .. } = &entry.prize.value {
            if let Some(cap) = cap_bet_multiple {
                award = award.min(floor_to_unit(*cap * entry.bet(), unit));
            }
            if let Some(floor) = floor_bet_multiple {
                let guaranteed = floor_to_unit(*floor * entry.bet(), unit);
                if award < guaranteed {
                    floor_topup += guaranteed - award;
                    award = guaranteed;
                }
            }
        }
        paid += award;
        awards.push(entry.award(pot / count, award));
    }
    Shared { awards, paid, floor_topup }
}

/// Settling a round is the pool's, written here beside the rules it follows (pool.rs
/// knows bets and balances, this file knows prizes; the dependency goes one way).
impl Pool {
    /// Marks the winners of one round at one table and pays them under the pool's
    /// multiple-winner policy. Nothing changes when the winners are refused.
    pub fn settle_round(&mut self, winners: &[Winner]) -> Result<Settlement, EngineError> {
        self.settle_round_at(winners, None)
    }

    /// [`Pool::settle_round`] at a table of `bank`: a banked level's prizes are paid from that
    /// bank's meter (required in a pool with banked levels, ignored elsewhere).
    pub fn settle_round_at(
        &mut self,
        winners: &[Winner],
        bank: Option<&crate::rulebook::Bank>,
    ) -> Result<Settlement, EngineError> {
        let banked = self.rules().has_banks();
        let mut settlement = self.in_bank(bank, |pool| pool.settle_here(winners))?;
        if banked {
            settlement.book.bank = bank.cloned();
        }
        Ok(settlement)
    }

    fn settle_here(&mut self, winners: &[Winner]) -> Result<Settlement, EngineError> {
        self.check_not_retired("pool")?;
        validate(self.rules(), winners)?;
        if self.further_levels() == 0 {
            let settlement = settle(self, winners);
            self.assert_conservation();
            return Ok(settlement);
        }
        // A pool with levels: each level pays its own winners from its own meter, prorated
        // among them alone (docs/readings.md, "Levels"); the round is one settlement of them all.
        let rules = self.shared_rules();
        let mut parts: Vec<Settlement> = Vec::new();
        for level in 0..=self.further_levels() {
            let group: Vec<Winner> = winners.iter().filter(|winner| rules.level_of(&winner.code) == level).cloned().collect();
            if group.is_empty() {
                continue;
            }
            let mut part = settle(self.level_mut(level), &group);
            part.book.level = level;
            parts.push(part);
        }
        self.assert_conservation();
        Ok(self.joined(parts))
    }

    /// The settlements of one round's levels as one: the awards in the order paid (level by
    /// level), what the house and the reserves put in, the first level's sign; the book of
    /// the first level paid, the others' books in it.
    fn joined(&self, parts: Vec<Settlement>) -> Settlement {
        let mut parts = parts.into_iter();
        let mut joined = parts.next().expect("a validated round has a winner, so a level to pay");
        for part in parts {
            joined.factor = joined.factor.or(part.factor);
            joined.awards.extend(part.awards);
            joined.superseded.extend(part.superseded);
            joined.replenishment += part.replenishment;
            joined.reserve_used += part.reserve_used;
            joined.full_pool_paid |= part.full_pool_paid;
            joined.stages.extend(part.stages);
            joined.book.more.push(part.book);
        }
        joined.balance_after = self.main_balance();
        joined.reserve_after = self.main_reserve();
        joined.displayed_after = self.displayed();
        joined
    }

    /// What [`Pool::settle_round`] would pay, without paying it.
    pub fn preview_round(&self, winners: &[Winner]) -> Result<Settlement, EngineError> {
        self.clone().settle_round(winners)
    }

    /// What [`Pool::settle_round_at`] would pay, without paying it.
    pub fn preview_round_at(&self, winners: &[Winner], bank: Option<&crate::rulebook::Bank>) -> Result<Settlement, EngineError> {
        self.clone().settle_round_at(winners, bank)
    }

    /// Settles the prizes of one round as the controller pays them when they are marked:
    /// in a pool whose games play the premio instantáneo, each instant-prize winner first,
    /// alone and whole (16.4.2.5.1: "Identificado el naipe correspondiente al PREMIO
    /// INSTANTÁNEO, procederá a su pago en forma inmediata"), then the round's other
    /// prizes as one round on what the sign shows after it (15.9; docs/readings.md, "The
    /// factor and Central Póker's instant prize"). Elsewhere, one round of them all.
    ///
    /// The settlements are returned in the order paid. Every winner is checked first (as
    /// one round: field names index `winners`); refused, nothing changes.
    pub fn settle_as_marked(&mut self, winners: &[Winner]) -> Result<Vec<Settlement>, EngineError> {
        self.settle_as_marked_at(winners, None)
    }

    /// [`Pool::settle_as_marked`] at a table of `bank` (a pool with banked levels needs it).
    pub fn settle_as_marked_at(
        &mut self,
        winners: &[Winner],
        bank: Option<&crate::rulebook::Bank>,
    ) -> Result<Vec<Settlement>, EngineError> {
        self.check_not_retired("pool")?;
        validate(self.rules(), winners)?;
        let apart = |winner: &&Winner| self.rules().plays_instant_prize() && winner.code == crate::rulebook::INSTANT_PRIZE;
        let instant: Vec<Winner> = winners.iter().filter(apart).cloned().collect();
        let round: Vec<Winner> = winners.iter().filter(|winner| !apart(winner)).cloned().collect();
        // Settled on a copy and kept only when every part is paid: all or nothing.
        let mut after = self.clone();
        let mut settlements = Vec::with_capacity(instant.len() + 1);
        for winner in instant {
            settlements.push(after.settle_round_at(std::slice::from_ref(&winner), bank)?);
        }
        if !round.is_empty() {
            settlements.push(after.settle_round_at(&round, bank)?);
        }
        *self = after;
        Ok(settlements)
    }
}

impl fmt::Display for Winner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {} {}", self.seat, self.code)
    }
}

/// Checks a bet given as text (the award calculator, the wire).
pub fn parse_bet(field: &str, text: &str) -> Result<Money, EngineError> {
    let bet: Money = text.trim().parse().map_err(|_| EngineError::invalid(field, format!("`{text}` is not a decimal amount")))?;
    check_bet(field, bet)?;
    Ok(bet)
}
