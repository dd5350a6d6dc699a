//! The American double-zero wheel and the grillo series of Ruleta Americana
//! Poceada (IPLyC 3.1): 3 Grillos de Bronce on three plenos in the first ball, the
//! 2 Grillos de Plata a bronze hit gives on two plenos in the second, the Grillo de
//! Oro a silver hit gives on one pleno in the third.

use rand::Rng;
use rand::seq::index;
use rand_chacha::ChaCha8Rng;

/// Pockets of the American wheel: 0, 00 and 1–36. Index 37 is 00.
pub const POCKETS: u8 = 38;

/// One spin: a pocket index 0–37 (37 is 00).
pub fn spin(rng: &mut ChaCha8Rng) -> u8 {
    rng.random_range(0..POCKETS)
}

/// `count` distinct plenos (straight-up pockets) chosen by the player (3.1.3: one grillo per pleno).
pub fn plenos(rng: &mut ChaCha8Rng, count: usize) -> Vec<u8> {
    index::sample(rng, usize::from(POCKETS), count).into_iter().map(|pocket| pocket as u8).collect()
}

/// How far one series went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Series {
    pub bronze_hit: bool,
    pub silver_hit: bool,
    pub gold_hit: bool,
}

/// Plays one series: three balls at most, each metal on its own plenos (3.1.2–3.1.3).
pub fn play_series(rng: &mut ChaCha8Rng) -> Series {
    let mut series = Series::default();
    let bronze = plenos(rng, 3);
    if !bronze.contains(&spin(rng)) {
        return series;
    }
    series.bronze_hit = true;
    let silver = plenos(rng, 2);
    if !silver.contains(&spin(rng)) {
        return series;
    }
    series.silver_hit = true;
    let gold = plenos(rng, 1);
    series.gold_hit = gold.contains(&spin(rng));
    series
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::rng;

    #[test]
    fn the_wheel_has_38_pockets_and_plenos_are_distinct() {
        let mut rng = rng(1);
        let mut seen = [false; 38];
        for _ in 0..10_000 {
            seen[usize::from(spin(&mut rng))] = true;
        }
        assert!(seen.iter().all(|pocket| *pocket), "0, 00 and 1–36 all come up");
        for _ in 0..100 {
            let chosen = plenos(&mut rng, 3);
            assert_eq!(chosen.len(), 3);
            assert!(chosen[0] != chosen[1] && chosen[1] != chosen[2] && chosen[0] != chosen[2]);
        }
    }

    #[test]
    fn a_series_goes_no_further_than_its_hits() {
        let mut rng = rng(2);
        for _ in 0..10_000 {
            let series = play_series(&mut rng);
            assert!(!series.silver_hit || series.bronze_hit);
            assert!(!series.gold_hit || series.silver_hit);
        }
    }
}
