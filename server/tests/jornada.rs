//! The casino day is civil time in the casino's IANA zone, daylight saving included
//! (issue 11, point 8): Buenos Aires (no DST) and Madrid across the 2026 changes,
//! 29 March 02:00 CET → 03:00 CEST and 25 October 03:00 CEST → 02:00 CET.

use pozo_engine::rulebook::EMBEDDED;
use pozo_server::config::{Config, LAYOUT_EMBEDDED};
use pozo_server::jornada::jornada_and_hour;

const MINUTE_MS: u64 = 60_000;
const HOUR_MS: u64 = 60 * MINUTE_MS;

/// The embedded layout with another zone and jornada start.
fn layout(time_zone: &str, jornada_starts_hour: u32) -> Vec<(String, String)> {
    let (name, text) = LAYOUT_EMBEDDED;
    let zone = "time_zone = \"America/Argentina/Buenos_Aires\"";
    let start = "jornada_starts_hour = 6 ";
    assert!(text.contains(zone) && text.contains(start), "the embedded layout changed: {text}");
    let text = text.replacen(zone, &format!("time_zone = \"{time_zone}\""), 1).replacen(
        start,
        &format!("jornada_starts_hour = {jornada_starts_hour} "),
        1,
    );
    let mut texts = vec![(name.to_owned(), text)];
    texts.extend(EMBEDDED.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())));
    texts
}

fn madrid(jornada_starts_hour: u32) -> Config {
    Config::from_texts(layout("Europe/Madrid", jornada_starts_hour)).expect("a valid layout")
}

/// Milliseconds since the epoch of a UTC date and time (UTC has no daylight saving).
fn utc(month: i8, day: i8, hour: i8, minute: i8) -> u64 {
    let zoned = jiff::civil::date(2026, month, day).at(hour, minute, 0, 0).to_zoned(jiff::tz::TimeZone::UTC).unwrap();
    u64::try_from(zoned.timestamp().as_millisecond()).unwrap()
}

fn at(config: &Config, time_ms: u64) -> (String, u32) {
    jornada_and_hour(config, time_ms)
}

fn day(jornada: &str, hour: u32) -> (String, u32) {
    (jornada.to_owned(), hour)
}

/// Minute by minute over `[from, to)`: the moment each jornada begins, and that the
/// jornada never goes backwards.
fn jornada_starts(config: &Config, from: u64, to: u64) -> Vec<(String, u64)> {
    let mut starts: Vec<(String, u64)> = Vec::new();
    for time_ms in (from..to).step_by(MINUTE_MS as usize) {
        let (jornada, _) = jornada_and_hour(config, time_ms);
        if starts.last().is_none_or(|(last, _)| *last != jornada) {
            if let Some((last, _)) = starts.last() {
                assert!(*last < jornada, "the jornada went back from {last} to {jornada} at {time_ms}");
            }
            starts.push((jornada, time_ms));
        }
    }
    starts
}

/// The local hours seen minute by minute over `[from, to)`, with how many minutes each.
fn hours(config: &Config, from: u64, to: u64) -> Vec<(u32, u64)> {
    let mut seen: Vec<(u32, u64)> = Vec::new();
    for time_ms in (from..to).step_by(MINUTE_MS as usize) {
        let (_, hour) = jornada_and_hour(config, time_ms);
        match seen.last_mut() {
            Some((last, minutes)) if *last == hour => *minutes += 1,
            _ => seen.push((hour, 1)),
        }
    }
    seen
}

#[test]
fn buenos_aires_jornada_starts_at_six_local_time() {
    let config = Config::embedded();
    assert_eq!(config.time_zone.iana_name(), Some("America/Argentina/Buenos_Aires"));
    assert_eq!(utc(11, 22, 0, 0), 1_795_305_600_000);
    // 08:00 UTC is 05:00 in Buenos Aires (UTC−03:00 all year): still the 21st.
    assert_eq!(at(&config, utc(11, 22, 8, 0)), day("2026-11-21", 5));
    assert_eq!(at(&config, utc(11, 22, 9, 0)), day("2026-11-22", 6));
    // The same through the southern summer: Argentina keeps no daylight saving.
    assert_eq!(at(&config, utc(1, 15, 8, 59)), day("2026-01-14", 5));
    assert_eq!(at(&config, utc(1, 15, 9, 0)), day("2026-01-15", 6));
}

#[test]
fn madrid_spring_forward_the_jornada_starts_at_local_six_both_sides() {
    let config = madrid(6);
    // Saturday 28 March, CET (UTC+01:00): local 06:00 is 05:00 UTC.
    assert_eq!(at(&config, utc(3, 28, 5, 0) - 1), day("2026-03-27", 5));
    assert_eq!(at(&config, utc(3, 28, 5, 0)), day("2026-03-28", 6));
    // The change, 01:00 UTC on the 29th: local 01:59 CET, then 03:00 CEST.
    assert_eq!(at(&config, utc(3, 29, 1, 0) - 1), day("2026-03-28", 1));
    assert_eq!(at(&config, utc(3, 29, 1, 0)), day("2026-03-28", 3));
    // Sunday 29 March, CEST (UTC+02:00): local 06:00 is 04:00 UTC.
    assert_eq!(at(&config, utc(3, 29, 4, 0) - 1), day("2026-03-28", 5));
    assert_eq!(at(&config, utc(3, 29, 4, 0)), day("2026-03-29", 6));

    let starts = jornada_starts(&config, utc(3, 28, 0, 0), utc(3, 31, 0, 0));
    assert_eq!(
        starts,
        vec![
            ("2026-03-27".to_owned(), utc(3, 28, 0, 0)),
            ("2026-03-28".to_owned(), utc(3, 28, 5, 0)),
            ("2026-03-29".to_owned(), utc(3, 29, 4, 0)),
            ("2026-03-30".to_owned(), utc(3, 30, 4, 0)),
        ]
    );
    // The jornada of the change is 23 hours long.
    assert_eq!(starts[2].1 - starts[1].1, 23 * HOUR_MS);
    // Its hours are the local civil ones: 06…23, 00, 01, then 03 (02 never happens), 04, 05.
    let expected: Vec<(u32, u64)> = (6..24).chain([0, 1, 3, 4, 5]).map(|hour| (hour, 60)).collect();
    assert_eq!(hours(&config, starts[1].1, starts[2].1), expected);
}

#[test]
fn madrid_fall_back_the_jornada_starts_at_local_six_both_sides() {
    let config = madrid(6);
    // Saturday 24 October, CEST (UTC+02:00): local 06:00 is 04:00 UTC.
    assert_eq!(at(&config, utc(10, 24, 4, 0) - 1), day("2026-10-23", 5));
    assert_eq!(at(&config, utc(10, 24, 4, 0)), day("2026-10-24", 6));
    // The change, 01:00 UTC on the 25th: local 02:59 CEST, then 02:00 CET again.
    assert_eq!(at(&config, utc(10, 25, 0, 30)), day("2026-10-24", 2));
    assert_eq!(at(&config, utc(10, 25, 1, 0) - 1), day("2026-10-24", 2));
    assert_eq!(at(&config, utc(10, 25, 1, 0)), day("2026-10-24", 2));
    assert_eq!(at(&config, utc(10, 25, 1, 30)), day("2026-10-24", 2));
    // Sunday 25 October, CET (UTC+01:00): local 06:00 is 05:00 UTC.
    assert_eq!(at(&config, utc(10, 25, 5, 0) - 1), day("2026-10-24", 5));
    assert_eq!(at(&config, utc(10, 25, 5, 0)), day("2026-10-25", 6));

    let starts = jornada_starts(&config, utc(10, 24, 0, 0), utc(10, 27, 0, 0));
    assert_eq!(
        starts,
        vec![
            ("2026-10-23".to_owned(), utc(10, 24, 0, 0)),
            ("2026-10-24".to_owned(), utc(10, 24, 4, 0)),
            ("2026-10-25".to_owned(), utc(10, 25, 5, 0)),
            ("2026-10-26".to_owned(), utc(10, 26, 5, 0)),
        ]
    );
    // The jornada of the change is 25 hours long, and its hour 02 holds both: 120 minutes.
    assert_eq!(starts[2].1 - starts[1].1, 25 * HOUR_MS);
    let expected: Vec<(u32, u64)> = (6..24).chain(0..6).map(|hour| (hour, if hour == 2 { 120 } else { 60 })).collect();
    assert_eq!(hours(&config, starts[1].1, starts[2].1), expected);
}

#[test]
fn madrid_jornada_starting_at_an_hour_the_spring_forward_skips() {
    // Local 02:00 does not exist on 29 March in Madrid.
    let config = madrid(2);
    assert_eq!(at(&config, utc(3, 28, 1, 0) - 1), day("2026-03-27", 1));
    assert_eq!(at(&config, utc(3, 28, 1, 0)), day("2026-03-28", 2));
    // 01:59 CET, then 03:00 CEST: the jornada of the 29th begins at the end of the gap.
    assert_eq!(at(&config, utc(3, 29, 1, 0) - 1), day("2026-03-28", 1));
    assert_eq!(at(&config, utc(3, 29, 1, 0)), day("2026-03-29", 3));
    // The next one at 02:00 CEST, 00:00 UTC.
    assert_eq!(at(&config, utc(3, 30, 0, 0) - 1), day("2026-03-29", 1));
    assert_eq!(at(&config, utc(3, 30, 0, 0)), day("2026-03-30", 2));

    let starts = jornada_starts(&config, utc(3, 28, 0, 0), utc(3, 31, 0, 0));
    assert_eq!(
        starts,
        vec![
            ("2026-03-27".to_owned(), utc(3, 28, 0, 0)),
            ("2026-03-28".to_owned(), utc(3, 28, 1, 0)),
            ("2026-03-29".to_owned(), utc(3, 29, 1, 0)),
            ("2026-03-30".to_owned(), utc(3, 30, 0, 0)),
        ]
    );
    assert_eq!(starts[2].1 - starts[1].1, 24 * HOUR_MS);
    assert_eq!(starts[3].1 - starts[2].1, 23 * HOUR_MS);
}

#[test]
fn madrid_jornada_starting_at_the_hour_the_fall_back_repeats() {
    let config = madrid(2);
    // The jornada of the 25th begins at the first 02:00 (CEST, 00:00 UTC) and does
    // not go back to the 24th when 02:00 comes again (CET, 01:00 UTC).
    assert_eq!(at(&config, utc(10, 25, 0, 0) - 1), day("2026-10-24", 1));
    assert_eq!(at(&config, utc(10, 25, 0, 0)), day("2026-10-25", 2));
    assert_eq!(at(&config, utc(10, 25, 1, 0)), day("2026-10-25", 2));
    assert_eq!(at(&config, utc(10, 25, 2, 0)), day("2026-10-25", 3));

    let starts = jornada_starts(&config, utc(10, 23, 12, 0), utc(10, 27, 0, 0));
    assert_eq!(
        starts,
        vec![
            ("2026-10-23".to_owned(), utc(10, 23, 12, 0)),
            ("2026-10-24".to_owned(), utc(10, 24, 0, 0)),
            ("2026-10-25".to_owned(), utc(10, 25, 0, 0)),
            ("2026-10-26".to_owned(), utc(10, 26, 1, 0)),
        ]
    );
    assert_eq!(starts[2].1 - starts[1].1, 24 * HOUR_MS);
    assert_eq!(starts[3].1 - starts[2].1, 25 * HOUR_MS);
}

#[test]
fn an_unknown_time_zone_is_refused_naming_the_key() {
    let error = Config::from_texts(layout("Europe/Atlantis", 6)).expect_err("refused");
    assert_eq!(
        error.to_string(),
        "config/casino.toml: time_zone: unknown time zone `Europe/Atlantis` \
         (an IANA name, such as `America/Argentina/Buenos_Aires` or `Europe/Madrid`)"
    );
    // A fixed offset is not a zone either: it would miss the daylight-saving changes.
    let error = Config::from_texts(layout("-03:00", 6)).expect_err("refused");
    assert!(error.to_string().contains("time_zone: unknown time zone `-03:00`"), "{error}");
}
