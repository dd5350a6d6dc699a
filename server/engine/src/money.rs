//! Exact money arithmetic on `rust_decimal`.
//!
//! Contributions keep every fraction (docs/rules.md, "Money and conservation"); only awards are rounded, and
//! always *down* to the rulebook's payout unit, so a round never pays a fraction of
//! a unit more than the articles allow. Division is the one place where
//! `rust_decimal` itself rounds (at 28 significant digits), so [`floor_div`]
//! checks its quotient against the exact products and never rounds up.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Div, Mul, Neg, Rem, Sub, SubAssign};
use std::str::FromStr;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// An amount of money in the pool's currency: exact decimal, never a float.
///
/// A newtype, not an alias, so that a rate cannot be passed where an amount is meant
/// and two amounts cannot be multiplied. The arithmetic it allows is the arithmetic
/// of money: amounts add and subtract; an amount times or divided by a plain number
/// (a rate, a factor, a count) is an amount; an amount divided by an amount is a
/// plain number (a ratio).
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Money(Decimal);

/// Writes an amount of money from a decimal literal: `money!(1_000)`, `money!(0.65)`.
#[macro_export]
macro_rules! money {
    ($($amount:tt)+) => {
        $crate::Money::new($crate::__dec!($($amount)+))
    };
}

#[doc(hidden)]
pub use rust_decimal_macros::dec as __dec;

impl Money {
    /// No money.
    pub const ZERO: Money = Money(Decimal::ZERO);

    /// The amount `value` stands for, in currency units.
    pub const fn new(value: Decimal) -> Money {
        Money(value)
    }

    /// `cents` centavos.
    pub fn from_cents(cents: i64) -> Money {
        Money(Decimal::new(cents, 2))
    }

    /// The amount as a plain decimal (for the wire, the journal and ratios).
    pub const fn decimal(self) -> Decimal {
        self.0
    }

    pub fn is_zero(self) -> bool {
        self.0.is_zero()
    }

    /// True below zero (a zero with a negative sign is not negative).
    pub(crate) fn is_negative(self) -> bool {
        self.0.is_sign_negative() && !self.0.is_zero()
    }

    pub fn abs(self) -> Money {
        Money(self.0.abs())
    }

    /// The amount with trailing zeros of its fraction removed (`5.00` → `5`).
    pub fn normalize(self) -> Money {
        Money(self.0.normalize())
    }

    /// The number of decimal places the amount carries.
    pub fn scale(self) -> u32 {
        self.0.scale()
    }
}

impl From<Decimal> for Money {
    fn from(value: Decimal) -> Money {
        Money(value)
    }
}

impl From<u32> for Money {
    fn from(units: u32) -> Money {
        Money(Decimal::from(units))
    }
}

impl FromStr for Money {
    type Err = rust_decimal::Error;

    fn from_str(text: &str) -> Result<Money, Self::Err> {
        Decimal::from_str(text).map(Money)
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl Add for Money {
    type Output = Money;
    fn add(self, other: Money) -> Money {
        Money(self.0 + other.0)
    }
}

impl Sub for Money {
    type Output = Money;
    fn sub(self, other: Money) -> Money {
        Money(self.0 - other.0)
    }
}

impl AddAssign for Money {
    fn add_assign(&mut self, other: Money) {
        self.0 += other.0;
    }
}

impl SubAssign for Money {
    fn sub_assign(&mut self, other: Money) {
        self.0 -= other.0;
    }
}

impl Neg for Money {
    type Output = Money;
    fn neg(self) -> Money {
        Money(-self.0)
    }
}

/// An amount times a plain number (a rate, a factor, a count) is an amount.
impl Mul<Decimal> for Money {
    type Output = Money;
    fn mul(self, factor: Decimal) -> Money {
        Money(self.0 * factor)
    }
}

impl Mul<Money> for Decimal {
    type Output = Money;
    fn mul(self, amount: Money) -> Money {
        Money(self * amount.0)
    }
}

/// An amount divided by a plain number is an amount.
impl Div<Decimal> for Money {
    type Output = Money;
    fn div(self, divisor: Decimal) -> Money {
        Money(self.0 / divisor)
    }
}

/// An amount divided by an amount is a plain number: a ratio.
impl Div for Money {
    type Output = Decimal;
    fn div(self, divisor: Money) -> Decimal {
        self.0 / divisor.0
    }
}

/// What is left of an amount after whole units of another (an award against the
/// payout unit): an amount.
impl Rem for Money {
    type Output = Money;
    fn rem(self, unit: Money) -> Money {
        Money(self.0 % unit.0)
    }
}

impl Sum for Money {
    fn sum<I: Iterator<Item = Money>>(amounts: I) -> Money {
        Money(amounts.map(|amount| amount.0).sum())
    }
}

impl<'a> Sum<&'a Money> for Money {
    fn sum<I: Iterator<Item = &'a Money>>(amounts: I) -> Money {
        amounts.copied().sum()
    }
}

/// The largest side bet the engine accepts, in currency units. A bound on every
/// input keeps every product of two amounts far inside `Decimal`'s 96-bit range.
pub const BET_MAX: Money = Money(Decimal::from_parts(1_000_000, 0, 0, false, 0));

/// The largest pool balance the award calculator accepts (10^12).
pub const BALANCE_MAX: Money = Money(Decimal::from_parts(3_567_587_328, 232, 0, false, 0));

/// The finest fraction a bet may carry: one centavo.
pub(crate) const CENT: Money = Money(Decimal::from_parts(1, 0, 0, false, 2));

/// Rounds `amount` down to a whole multiple of `unit` (`unit` > 0, `amount` ≥ 0).
pub fn floor_to_unit(amount: Money, unit: Money) -> Money {
    debug_assert!(unit > Money::ZERO, "payout unit must be positive");
    debug_assert!(amount >= Money::ZERO, "only non-negative amounts are rounded");
    (amount / unit).floor() * unit
}

/// The largest multiple of `unit` that is ≤ `numerator / denominator`, exactly.
///
/// `numerator / denominator` may need more than 28 digits, and `Decimal` rounds the
/// quotient to nearest; a quotient rounded up across a unit boundary would pay a
/// unit too many. The result is therefore checked against the exact product
/// `result × denominator ≤ numerator` and lowered by one unit when it fails.
pub(crate) fn floor_div(numerator: Decimal, denominator: Decimal, unit: Money) -> Money {
    assert!(denominator > Decimal::ZERO, "floor_div by a non-positive denominator");
    debug_assert!(numerator >= Decimal::ZERO);
    let unit = unit.decimal();
    let mut quotient = (numerator / denominator / unit).floor() * unit;
    if quotient * denominator > numerator {
        quotient -= unit;
    }
    debug_assert!(quotient * denominator <= numerator);
    debug_assert!((quotient + unit) * denominator > numerator);
    Money(quotient)
}

/// True when `amount` is a whole multiple of `unit`.
pub(crate) fn is_multiple_of(amount: Money, unit: Money) -> bool {
    (amount / unit).fract().is_zero()
}

/// Money as a plain decimal string, for machines and files (the API, `verify`, the
/// award calculator): two decimals when it is whole centavos ("1040.00"), every digit
/// otherwise (a balance keeps the fractions of 65%: "5004.875").
pub fn plain_text(amount: Money) -> String {
    let normalized = amount.normalize();
    if normalized.scale() <= 2 { format!("{normalized:.2}") } else { normalized.to_string() }
}

/// Formats an amount the Argentine way for operators: `$ 12.345,67`.
///
/// Two decimals are shown; an amount carrying finer fractions (a pool balance) is
/// shown rounded down to the centavo, which is what any payout can reach.
pub fn format_ars(amount: Money) -> String {
    let negative = amount.is_negative();
    let cents = floor_to_unit(amount.abs(), CENT);
    let text = format!("{cents:.2}");
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, "00"));
    let mut grouped = String::with_capacity(whole.len() + whole.len() / 3);
    for (index, digit) in whole.chars().enumerate() {
        if index > 0 && (whole.len() - index) % 3 == 0 {
            grouped.push('.');
        }
        grouped.push(digit);
    }
    format!("{}$ {grouped},{fraction}", if negative { "-" } else { "" })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn floor_to_unit_never_rounds_up() {
        assert_eq!(floor_to_unit(money!(1040.009), money!(0.01)), money!(1040.00));
        assert_eq!(floor_to_unit(money!(1040.999), money!(1)), money!(1040));
        assert_eq!(floor_to_unit(money!(5), money!(1)), money!(5));
    }

    #[test]
    fn floor_div_is_exact_where_decimal_division_rounds_up() {
        // 2/3 is rounded *up* at the 28th digit by Decimal; the floor must not be.
        assert_eq!(floor_div(dec!(2), dec!(3), money!(0.01)), money!(0.66));
        // 100 × 150 / 150 is exactly 100.
        assert_eq!(floor_div(dec!(15000), dec!(150), money!(0.01)), money!(100.00));
        // A quotient a hair under a cent boundary stays under it.
        let numerator = dec!(0.0299999999999999999999999999);
        assert_eq!(floor_div(numerator, dec!(1), money!(0.01)), money!(0.02));
    }

    #[test]
    fn argentine_format() {
        assert_eq!(format_ars(money!(12345.67)), "$ 12.345,67");
        assert_eq!(format_ars(money!(5000)), "$ 5.000,00");
        assert_eq!(format_ars(money!(0.625)), "$ 0,62");
        assert_eq!(format_ars(money!(1234567.8)), "$ 1.234.567,80");
        assert_eq!(format_ars(money!(-50)), "-$ 50,00");
    }
}
