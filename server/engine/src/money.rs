//! Exact money arithmetic on `rust_decimal`.
//!
//! Contributions keep every fraction (docs/rules.md, "Money and conservation"); only awards are rounded, and
//! always *down* to the rulebook's payout unit, so a round never pays a fraction of
//! a unit more than the articles allow. Division is the one place where
//! `rust_decimal` itself rounds (at 28 significant digits), so [`floor_div`]
//! checks its quotient against the exact products and never rounds up.

use rust_decimal::Decimal;

/// An amount of money in the pool's currency. Always exact decimal, never a float.
pub type Money = Decimal;

/// The largest side bet the engine accepts, in currency units. A bound on every
/// input keeps every product of two amounts far inside `Decimal`'s 96-bit range.
pub const BET_MAX: Decimal = Decimal::from_parts(1_000_000, 0, 0, false, 0);

/// The largest pool balance the award calculator accepts (10^12).
pub const BALANCE_MAX: Decimal = Decimal::from_parts(3_567_587_328, 232, 0, false, 0);

/// The finest fraction a bet may carry: one centavo.
pub const CENT: Decimal = Decimal::from_parts(1, 0, 0, false, 2);

/// Rounds `amount` down to a whole multiple of `unit` (`unit` > 0, `amount` ≥ 0).
pub fn floor_to_unit(amount: Money, unit: Money) -> Money {
    debug_assert!(unit > Decimal::ZERO, "payout unit must be positive");
    debug_assert!(amount >= Decimal::ZERO, "only non-negative amounts are rounded");
    (amount / unit).floor() * unit
}

/// The largest multiple of `unit` that is ≤ `numerator / denominator`, exactly.
///
/// `numerator / denominator` may need more than 28 digits, and `Decimal` rounds the
/// quotient to nearest; a quotient rounded up across a unit boundary would pay a
/// unit too many. The result is therefore checked against the exact product
/// `result × denominator ≤ numerator` and lowered by one unit when it fails.
pub fn floor_div(numerator: Money, denominator: Money, unit: Money) -> Money {
    assert!(denominator > Decimal::ZERO, "floor_div by a non-positive denominator");
    debug_assert!(numerator >= Decimal::ZERO);
    let mut quotient = floor_to_unit(numerator / denominator, unit);
    if quotient * denominator > numerator {
        quotient -= unit;
    }
    debug_assert!(quotient * denominator <= numerator);
    debug_assert!((quotient + unit) * denominator > numerator);
    quotient
}

/// True when `amount` is a whole multiple of `unit`.
pub fn is_multiple_of(amount: Money, unit: Money) -> bool {
    (amount / unit).fract().is_zero()
}

/// Formats an amount the Argentine way for operators: `$ 12.345,67`.
///
/// Two decimals are shown; an amount carrying finer fractions (a pool balance) is
/// shown rounded down to the centavo, which is what any payout can reach.
pub fn format_ars(amount: Money) -> String {
    let negative = amount.is_sign_negative() && !amount.is_zero();
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
        assert_eq!(floor_to_unit(dec!(1040.009), dec!(0.01)), dec!(1040.00));
        assert_eq!(floor_to_unit(dec!(1040.999), dec!(1)), dec!(1040));
        assert_eq!(floor_to_unit(dec!(5), dec!(1)), dec!(5));
    }

    #[test]
    fn floor_div_is_exact_where_decimal_division_rounds_up() {
        // 2/3 is rounded *up* at the 28th digit by Decimal; the floor must not be.
        assert_eq!(floor_div(dec!(2), dec!(3), dec!(0.01)), dec!(0.66));
        // 100 × 150 / 150 is exactly 100.
        assert_eq!(floor_div(dec!(15000), dec!(150), dec!(0.01)), dec!(100.00));
        // A quotient a hair under a cent boundary stays under it.
        let numerator = dec!(0.0299999999999999999999999999);
        assert_eq!(floor_div(numerator, dec!(1), dec!(0.01)), dec!(0.02));
    }

    #[test]
    fn argentine_format() {
        assert_eq!(format_ars(dec!(12345.67)), "$ 12.345,67");
        assert_eq!(format_ars(dec!(5000)), "$ 5.000,00");
        assert_eq!(format_ars(dec!(0.625)), "$ 0,62");
        assert_eq!(format_ars(dec!(1234567.8)), "$ 1.234.567,80");
        assert_eq!(format_ars(dec!(-50)), "-$ 50,00");
    }
}
