//! The casino day (jornada) and the local hour of a moment, for the reports
//! (4.7, 12.8, Form 4218).
//!
//! Both are civil time in the casino's IANA time zone (the layout's `time_zone`,
//! resolved once at load into [`Config::time_zone`]), daylight saving included:
//! Andalucía is `Europe/Madrid`, CET in winter and CEST in summer.

use std::sync::Arc;

use crate::config::Config;

/// The jornada ("2026-11-22") and local hour (0–23) of a moment, `time_ms`
/// milliseconds since the Unix epoch.
///
/// Let `local` be the civil date and time the casino's clocks show at that moment
/// (the layout's `time_zone`, daylight saving included), and `h` the layout's
/// `jornada_starts_hour`:
///
/// - the **jornada** is the civil date of `local − h` hours, counted on the clock
///   face: a jornada begins when the local clock first shows `h:00` that day, so a
///   bet at 02:00 with `h` = 6 belongs to the day before. A jornada that contains
///   a daylight-saving change is 23 hours long (spring forward) or 25 (fall back).
///   If `h:00` does not exist that day (it falls in the spring-forward gap, e.g.
///   02:00 in Madrid on the last Sunday of March), that jornada begins at the end
///   of the gap (03:00 CEST), and the jornada that ends there is 24 hours long;
/// - the **hour** is the local civil hour `local.hour()`: on the spring-forward
///   night one hour never occurs (Madrid: 02), on the fall-back night one occurs
///   twice (Madrid: 02 CEST, then 02 CET) and both fold into that hour.
pub fn jornada_and_hour(config: &Config, time_ms: u64) -> (String, u32) {
    let local = local(config, time_ms);
    let hour = local.hour();
    let date = if i64::from(hour) < i64::from(config.layout.jornada_starts_hour) {
        // Civil arithmetic on the date: no time zone, no daylight saving.
        local.date().yesterday().unwrap_or(local.date())
    } else {
        local.date()
    };
    (format!("{:04}-{:02}-{:02}", date.year(), date.month(), date.day()), hour as u32)
}

/// [`jornada_and_hour`] kept for the last moment asked under one configuration. The commands of
/// a batch share one time (the writer reads the clock once for them) and a press asks for its
/// day twice, so the civil time is worked out and the jornada written once a batch, not each
/// time. It holds the configuration it was asked under: one that replaced it is another, and
/// is asked again.
#[derive(Clone, Default)]
pub struct DayMemo(Option<(Arc<Config>, u64, (String, u32))>);

/// The moment and its day, not the configuration: `State`'s `Debug` shows that once already.
impl std::fmt::Debug for DayMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some((_, time_ms, day)) => f.debug_tuple("DayMemo").field(time_ms).field(day).finish(),
            None => f.write_str("DayMemo(empty)"),
        }
    }
}

impl DayMemo {
    /// The jornada and local hour of `time_ms` under `config`, as [`jornada_and_hour`] gives.
    pub fn at(&mut self, config: &Arc<Config>, time_ms: u64) -> (String, u32) {
        match &self.0 {
            Some((asked, at, day)) if *at == time_ms && Arc::ptr_eq(asked, config) => day.clone(),
            _ => {
                let day = jornada_and_hour(config, time_ms);
                self.0 = Some((Arc::clone(config), time_ms, day.clone()));
                day
            }
        }
    }
}

/// Whether opening a journal now, in jornada `today` under its new settings (`today_before` under
/// the statement's), would book into a jornada the predecessor closed or before it: `last` is
/// the last jornada the statement booked. Jornadas never go back (`today` before `last`), and
/// one that ended under the settings it was booked under never reopens (`today` is `last`, but
/// under the old settings `last` is over: a later start hour, or a zone further west).
pub fn goes_back(today: &str, today_before: &str, last: &str) -> bool {
    today < last || (today == last && today_before > last)
}

/// The civil date and time the casino's clocks show at `time_ms` (ms since the Unix
/// epoch); a moment beyond jiff's range (the end of the year 9999) is clamped to its end.
pub fn local(config: &Config, time_ms: u64) -> jiff::civil::DateTime {
    let timestamp =
        i64::try_from(time_ms).ok().and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok()).unwrap_or(jiff::Timestamp::MAX);
    config.time_zone.to_datetime(timestamp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jornada_starts_at_six_local_time() {
        let config = Config::embedded();
        // 2026-11-22 08:00 UTC is 05:00 in Buenos Aires: still the jornada of the 21st.
        let time_ms = 1_795_305_600_000 + 8 * 3_600_000;
        assert_eq!(jornada_and_hour(&config, time_ms), ("2026-11-21".to_owned(), 5));
        // 09:00 UTC is 06:00 local: the jornada of the 22nd begins.
        assert_eq!(jornada_and_hour(&config, time_ms + 3_600_000), ("2026-11-22".to_owned(), 6));
    }

    /// The jornada settings change only forward: never into a jornada before the last booked,
    /// and never back into the last one once it ended under the settings it was booked under.
    #[test]
    fn a_new_hour_never_reopens_an_ended_jornada() {
        // Booked through D = 2026-11-21 under a start at 06:00; at 06:30 of the 22nd, D is over.
        assert!(goes_back("2026-11-20", "2026-11-21", "2026-11-21"), "before the last booked");
        assert!(goes_back("2026-11-21", "2026-11-22", "2026-11-21"), "a later start hour would reopen D");
        assert!(!goes_back("2026-11-21", "2026-11-21", "2026-11-21"), "D still running under both: it goes on");
        assert!(!goes_back("2026-11-22", "2026-11-22", "2026-11-21"), "the next jornada");
        assert!(!goes_back("2026-11-22", "2026-11-21", "2026-11-21"), "an earlier start hour moves on");
    }

    /// The memo answers as `jornada_and_hour` does: for the moment it keeps, for another, and
    /// under a configuration that replaced the one it was asked under at the same moment.
    #[test]
    fn the_memo_answers_as_the_function_does() {
        let config = Arc::new(Config::embedded());
        let five = 1_795_305_600_000 + 8 * 3_600_000; // 05:00 local: the jornada of the 21st
        let mut memo = DayMemo::default();
        for time_ms in [five, five, five + 3_600_000, five + 3_600_000, five, 0, u64::MAX] {
            assert_eq!(memo.at(&config, time_ms), jornada_and_hour(&config, time_ms), "at {time_ms}");
        }
        // A change moved the jornada's start to 04:00: 05:00 is now in the jornada of the 22nd.
        let mut moved = (*config).clone();
        moved.layout.jornada_starts_hour = 4;
        let moved = Arc::new(moved);
        assert_eq!(memo.at(&config, five), ("2026-11-21".to_owned(), 5));
        assert_eq!(memo.at(&moved, five), ("2026-11-22".to_owned(), 5), "the new configuration is asked again");
        assert_eq!(memo.at(&moved, five), jornada_and_hour(&moved, five));
        assert_eq!(memo.at(&config, five), ("2026-11-21".to_owned(), 5), "and the old one too");
    }

    #[test]
    fn the_ends_of_time_do_not_panic() {
        let config = Config::embedded();
        assert_eq!(jornada_and_hour(&config, 0), ("1969-12-31".to_owned(), 21));
        // jiff ends at 9999-12-30 22:00 UTC (so that every offset stays in its civil range).
        assert_eq!(jornada_and_hour(&config, u64::MAX), ("9999-12-30".to_owned(), 19));
    }
}
