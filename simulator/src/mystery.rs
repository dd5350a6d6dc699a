//! `pozo-sim odds --draws` (docs/odds.md, "The mystery level's draws"): a large sample of
//! mystery triggers and hot seats drawn with the controller's own arithmetic
//! (`pozo_core::state::draw`: `trigger_from`, `hot_seat_index`), from the operating system's
//! CSPRNG or a seed, held against uniformity with Pearson's chi-square goodness-of-fit test.
//!
//! Triggers: the (from, ceiling] range's centavos are cut into `bins` runs of consecutive
//! centavos (equal runs when the span divides evenly; each bin's expectation is its own share
//! of the span otherwise); hot seats: one bin per seat among `seats`, each draw from a fresh
//! random 32-byte nonce. The p-value is the chi-square distribution's upper tail at the
//! statistic, Q(dof/2, χ²/2), computed here from the regularized incomplete gamma function
//! (its series below a + 1, Lentz's continued fraction above; Numerical Recipes §6.2).
// Statistics, not money: the amounts drawn are `Money`, the counts and their test are floats.
#![allow(clippy::float_arithmetic)]

use pozo_engine::money::Money;
use pozo_server::state::draw;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::Serialize;

/// The most draws one run samples: a bound on its time (each draw of a hot seat is a SHA-256).
pub const SAMPLES_MAX: u64 = 100_000_000;

/// The most bins of the triggers' test.
pub const BINS_MAX: u64 = 100_000;

/// The most seats a hot seat is drawn among.
pub const SEATS_MAX: u64 = 10_000;

/// Below this p-value `odds --draws` fails, unless told another.
pub const P_MIN: f64 = 0.001;

/// Where the words come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// The operating system's CSPRNG (getrandom), as `pozo-server serve` draws.
    Os,
    /// ChaCha20 from a seed: the same seed draws the same sample.
    Seed(u64),
}

/// What `odds --draws` samples.
#[derive(Clone, Debug)]
pub struct Options {
    pub samples: u64,
    pub source: Source,
    /// The trigger lies above this (the level's reset)…
    pub from: Money,
    /// …and at or below this (its `must_hit_by`).
    pub ceiling: Money,
    pub bins: u64,
    /// How many seats a hot seat is drawn among.
    pub seats: u64,
    /// Fail below this p-value.
    pub p_min: f64,
}

/// One goodness-of-fit test.
#[derive(Clone, Debug, Serialize)]
pub struct Fit {
    pub bins: u64,
    pub chi_square: f64,
    pub degrees_of_freedom: u64,
    pub p_value: f64,
    /// The fewest and the most draws any bin got, and what each bin expected on average.
    pub bin_min: u64,
    pub bin_max: u64,
    pub expected_mean: f64,
}

/// `odds --draws`'s report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub samples: u64,
    pub source: Source,
    pub from: Money,
    pub ceiling: Money,
    /// The centavos (from, ceiling] holds.
    pub span_centavos: u64,
    pub trigger_min: Money,
    pub trigger_max: Money,
    /// Triggers outside (from, ceiling]: none, or the arithmetic is wrong.
    pub outside: u64,
    pub triggers: Fit,
    pub seats: u64,
    /// Hot seats at or beyond the list's end: none.
    pub seats_outside: u64,
    pub hot_seats: Fit,
    pub p_min: f64,
}

impl Report {
    /// Every trigger in range, every seat in the list, both p-values at or above the threshold.
    pub fn ok(&self) -> bool {
        self.outside == 0
            && self.seats_outside == 0
            && self.triggers.p_value >= self.p_min
            && self.hot_seats.p_value >= self.p_min
    }
}

/// 64-bit words from the source, the operating system's read in blocks.
struct Words {
    seeded: Option<ChaCha20Rng>,
    block: Vec<u8>,
    at: usize,
}

impl Words {
    fn new(source: Source) -> Words {
        match source {
            Source::Os => Words { seeded: None, block: vec![0; 8 * 1024], at: 8 * 1024 },
            Source::Seed(seed) => Words { seeded: Some(ChaCha20Rng::seed_from_u64(seed)), block: Vec::new(), at: 0 },
        }
    }

    fn fill(&mut self, bytes: &mut [u8]) -> Result<(), String> {
        if let Some(rng) = self.seeded.as_mut() {
            rng.fill_bytes(bytes);
            return Ok(());
        }
        for byte in bytes {
            if self.at == self.block.len() {
                getrandom::fill(&mut self.block).map_err(|error| format!("the operating system's CSPRNG: {error}"))?;
                self.at = 0;
            }
            *byte = self.block[self.at];
            self.at += 1;
        }
        Ok(())
    }

    fn word(&mut self) -> Result<u64, String> {
        let mut bytes = [0u8; 8];
        self.fill(&mut bytes)?;
        Ok(u64::from_be_bytes(bytes))
    }
}

/// Checks `options` (each bad one named with its rule), then draws and tests.
pub fn draws(options: &Options) -> Result<Report, String> {
    if !(1..=SAMPLES_MAX).contains(&options.samples) {
        return Err(format!("--samples {}: from 1 to {SAMPLES_MAX}", options.samples));
    }
    if options.from.decimal().scale() > 2 || options.ceiling.decimal().scale() > 2 {
        return Err("--from and --ceiling are amounts in whole centavos".into());
    }
    let span = draw::span(options.from, options.ceiling);
    if options.ceiling <= options.from || span == 0 {
        return Err(format!(
            "--ceiling {} must lie above --from {} (a trigger is drawn in (from, ceiling])",
            options.ceiling, options.from
        ));
    }
    if !(2..=BINS_MAX).contains(&options.bins) || options.bins > span {
        return Err(format!("--bins {}: from 2 to {BINS_MAX}, and no more than the range's {span} centavos", options.bins));
    }
    if !(2..=SEATS_MAX).contains(&options.seats) {
        return Err(format!("--seats {}: from 2 to {SEATS_MAX} (one seat is always the one drawn)", options.seats));
    }
    if !(options.p_min > 0.0 && options.p_min < 1.0) {
        return Err(format!("--p-min {}: between 0 and 1", options.p_min));
    }
    let mut words = Words::new(options.source);
    let mut failed: Option<String> = None;
    let mut trigger_counts = vec![0u64; options.bins as usize];
    let (mut low, mut high) = (options.ceiling, options.from);
    let mut outside = 0u64;
    let from_cents = cents(options.from);
    for _ in 0..options.samples {
        let trigger = draw::trigger_from(options.from, options.ceiling, || {
            words.word().unwrap_or_else(|error| {
                failed.get_or_insert(error);
                0
            })
        });
        if let Some(error) = failed.take() {
            return Err(error);
        }
        low = low.min(trigger);
        high = high.max(trigger);
        if !(options.from < trigger && trigger <= options.ceiling) {
            outside += 1;
            continue;
        }
        // Centavo 1..=span above `from`, into its run of consecutive centavos.
        let offset = u64::try_from(cents(trigger) - from_cents - 1).unwrap_or(0);
        let bin = u128::from(offset) * u128::from(options.bins) / u128::from(span);
        trigger_counts[bin as usize] += 1;
    }
    // Each bin's centavos: those whose offset maps to it.
    let bin_centavos: Vec<u64> =
        (0..options.bins).map(|bin| first_offset(bin + 1, options.bins, span) - first_offset(bin, options.bins, span)).collect();
    let inside = options.samples - outside;
    let expected: Vec<f64> = bin_centavos.iter().map(|centavos| inside as f64 * *centavos as f64 / span as f64).collect();
    let triggers = fit(&trigger_counts, &expected);

    let mut seat_counts = vec![0u64; options.seats as usize];
    let mut seats_outside = 0u64;
    let mut nonce = [0u8; 32];
    for _ in 0..options.samples {
        words.fill(&mut nonce)?;
        let seat = draw::hot_seat_index(&nonce, options.seats as usize);
        match seat_counts.get_mut(seat) {
            Some(count) => *count += 1,
            None => seats_outside += 1,
        }
    }
    let expected = vec![(options.samples - seats_outside) as f64 / options.seats as f64; options.seats as usize];
    let hot_seats = fit(&seat_counts, &expected);
    Ok(Report {
        samples: options.samples,
        source: options.source,
        from: options.from,
        ceiling: options.ceiling,
        span_centavos: span,
        trigger_min: low,
        trigger_max: high,
        outside,
        triggers,
        seats: options.seats,
        seats_outside,
        hot_seats,
        p_min: options.p_min,
    })
}

/// The first offset (0-based centavo above `from`) that falls in `bin`: ⌈bin·span/bins⌉.
fn first_offset(bin: u64, bins: u64, span: u64) -> u64 {
    let product = u128::from(bin) * u128::from(span);
    product.div_ceil(u128::from(bins)) as u64
}

fn cents(amount: Money) -> i128 {
    let scaled = (amount.decimal() * rust_decimal::Decimal::ONE_HUNDRED).trunc();
    scaled.mantissa() / 10_i128.pow(scaled.scale())
}

/// Pearson's chi-square of `observed` against `expected`, bin by bin.
pub fn fit(observed: &[u64], expected: &[f64]) -> Fit {
    let chi_square: f64 = observed
        .iter()
        .zip(expected)
        .filter(|(_, expected)| **expected > 0.0)
        .map(|(observed, expected)| {
            let difference = *observed as f64 - expected;
            difference * difference / expected
        })
        .sum();
    let degrees_of_freedom = observed.len().saturating_sub(1) as u64;
    Fit {
        bins: observed.len() as u64,
        chi_square,
        degrees_of_freedom,
        p_value: chi_square_upper_tail(chi_square, degrees_of_freedom),
        bin_min: observed.iter().copied().min().unwrap_or(0),
        bin_max: observed.iter().copied().max().unwrap_or(0),
        expected_mean: expected.iter().sum::<f64>() / expected.len().max(1) as f64,
    }
}

/// P(X ≥ x) for X chi-square with `dof` degrees of freedom: Q(dof/2, x/2).
pub fn chi_square_upper_tail(x: f64, dof: u64) -> f64 {
    if dof == 0 {
        return 1.0;
    }
    gamma_q(dof as f64 / 2.0, x / 2.0)
}

/// The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a).
pub fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    if x < a + 1.0 { (1.0 - gamma_p_series(a, x)).max(0.0) } else { gamma_q_fraction(a, x) }
}

/// P(a, x) by its series: e^-x x^a / Γ(a+1) · Σ x^n / ((a+1)…(a+n)).
fn gamma_p_series(a: f64, x: f64) -> f64 {
    let mut term = 1.0 / a;
    let mut sum = term;
    let mut denominator = a;
    for _ in 0..10_000 {
        denominator += 1.0;
        term *= x / denominator;
        sum += term;
        if term.abs() < sum.abs() * 1e-16 {
            break;
        }
    }
    sum * (-x + a * x.ln() - ln_gamma(a)).exp()
}

/// Q(a, x) by its continued fraction, evaluated with the modified Lentz method.
fn gamma_q_fraction(a: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut b = x + 1.0 - a;
    let mut c = 1.0 / TINY;
    let mut d = 1.0 / b;
    let mut h = d;
    for i in 1..10_000 {
        let i = i as f64;
        let an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if d.abs() < TINY {
            d = TINY;
        }
        c = b + an / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x + a * x.ln() - ln_gamma(a)).exp() * h
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, nine coefficients: about 15 significant digits).
pub fn ln_gamma(x: f64) -> f64 {
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1−x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = COEFFICIENTS[0];
    for (i, coefficient) in COEFFICIENTS.iter().enumerate().skip(1) {
        sum += coefficient / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn money(text: &str) -> Money {
        Money::new(text.parse().unwrap())
    }

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn ln_gamma_is_the_factorials_and_root_pi() {
        assert!(close(ln_gamma(1.0), 0.0, 1e-13));
        assert!(close(ln_gamma(5.0), 24f64.ln(), 1e-13));
        assert!(close(ln_gamma(0.5), std::f64::consts::PI.sqrt().ln(), 1e-13));
        assert!(close(ln_gamma(50.5), 146.519_255_490_720_6, 1e-9));
    }

    // The tables' critical values (NIST/SEMATECH e-Handbook, 1.3.6.7.4).
    #[test]
    fn the_upper_tail_is_the_tables_at_their_critical_values() {
        assert!(close(chi_square_upper_tail(3.841, 1), 0.05, 1e-4));
        assert!(close(chi_square_upper_tail(6.635, 1), 0.01, 1e-4));
        assert!(close(chi_square_upper_tail(23.209, 10), 0.01, 1e-4));
        assert!(close(chi_square_upper_tail(123.225, 99), 0.05, 1e-3));
        assert!(close(chi_square_upper_tail(148.230, 99), 0.001, 1e-4));
        // Exactly e^{-x/2} for two degrees of freedom.
        assert!(close(chi_square_upper_tail(10.0, 2), (-5.0f64).exp(), 1e-14));
        assert!(close(chi_square_upper_tail(0.0, 5), 1.0, 0.0));
    }

    #[test]
    fn pearsons_statistic_of_a_known_table() {
        let fit = fit(&[10, 20, 30], &[20.0, 20.0, 20.0]);
        assert!(close(fit.chi_square, 10.0, 1e-12));
        assert_eq!(fit.degrees_of_freedom, 2);
        assert!(close(fit.p_value, (-5.0f64).exp(), 1e-12));
    }

    #[test]
    fn unequal_bins_expect_their_own_centavos() {
        // 10 centavos in 3 bins: offsets 0–3, 4–6, 7–9 (⌈10/3⌉ = 4, ⌈20/3⌉ = 7).
        let edges: Vec<u64> = (0..=3).map(|bin| first_offset(bin, 3, 10)).collect();
        assert_eq!(edges, [0, 4, 7, 10]);
        for offset in 0..10u64 {
            let bin = offset * 3 / 10;
            assert!(edges[bin as usize] <= offset && offset < edges[bin as usize + 1], "{offset}");
        }
    }

    fn options(samples: u64) -> Options {
        Options {
            samples,
            source: Source::Seed(7),
            from: money("20000.00"),
            ceiling: money("20000.37"),
            bins: 37,
            seats: 5,
            p_min: P_MIN,
        }
    }

    #[test]
    fn a_seeded_sample_reaches_every_centavo_and_passes() {
        let report = draws(&options(20_000)).unwrap();
        assert_eq!(report.span_centavos, 37);
        assert_eq!((report.trigger_min, report.trigger_max), (money("20000.01"), money("20000.37")));
        assert_eq!(report.outside, 0);
        assert!(report.triggers.bin_min > 0 && report.hot_seats.bin_min > 0);
        assert!(report.ok(), "{report:?}");
        // The same seed draws the same sample.
        assert_eq!(draws(&options(20_000)).unwrap().triggers.chi_square, report.triggers.chi_square);
    }

    #[test]
    fn a_biased_draw_is_refused_by_the_test() {
        // The modulo bias rejection sampling avoids, were it not avoided: take words modulo the
        // span of a range where it is large (span 3 · 2^62: a third of the words favour the low
        // third) and the test sees it at once.
        let span = 3u64 << 62;
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let mut counts = [0u64; 3];
        for _ in 0..3_000 {
            counts[((rng.next_u64() % span) / (1 << 62)) as usize] += 1;
        }
        let fit = fit(&counts, &[1_000.0; 3]);
        assert!(fit.p_value < P_MIN, "{fit:?}");
    }

    #[test]
    fn bad_options_are_named() {
        let error = draws(&Options { ceiling: money("20000.00"), ..options(10) }).unwrap_err();
        assert!(error.contains("--ceiling"), "{error}");
        let error = draws(&Options { bins: 38, ..options(10) }).unwrap_err();
        assert!(error.contains("--bins 38"), "{error}");
        let error = draws(&Options { seats: 1, ..options(10) }).unwrap_err();
        assert!(error.contains("--seats"), "{error}");
        let error = draws(&Options { samples: 0, ..options(10) }).unwrap_err();
        assert!(error.contains("--samples"), "{error}");
    }
}
