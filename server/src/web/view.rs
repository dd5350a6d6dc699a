//! How the pages write amounts, moments and tables: the Argentine way, in the
//! casino's time zone.

use pozo_engine::Money;

use crate::config::Config;

/// `$ 1.234.567,89`: whole centavos, rounded down (what a sign may promise), with a
/// non-breaking space after the sign: on a page an amount is never split from its `$` (issue 45,
/// point 8). The feed's JSON and the CSVs keep the plain space ([`pozo_engine::format_ars`]).
pub(super) fn pesos(amount: Money) -> String {
    pozo_engine::format_ars(amount).replacen(' ', "\u{a0}", 1)
}

/// A text written elsewhere (a proposal's summary: `$ 5.000,00 → $ 6.000,00`) as a page prints
/// it: every amount held to its `$` by a non-breaking space, as [`pesos`] writes one.
pub(super) fn unbroken(text: &str) -> String {
    text.replace("$ ", "$\u{a0}")
}

/// Under a mystery level's meter: "Debe salir antes de $ 60.000,00", the ceiling of its open
/// draw (docs/readings.md, "The mystery level"); empty for any other level. Never the trigger.
pub(super) fn must_hit_by(level: &pozo_core::state::panel::LevelMeter) -> String {
    level.must_hit_by.map(|ceiling| format!("Debe salir antes de {}", pesos(ceiling))).unwrap_or_default()
}

pub(crate) use crate::net::bounded_text as bounded;
use pozo_core::jornada::local;

/// `21:04:05`, the casino's clock.
pub(super) fn clock(config: &Config, time_ms: u64) -> String {
    let local = local(config, time_ms);
    format!("{:02}:{:02}:{:02}", local.hour(), local.minute(), local.second())
}

/// `23/11/2026 21:04:05`, the casino's clock.
pub(super) fn moment(config: &Config, time_ms: u64) -> String {
    if time_ms == 0 {
        return "—".to_owned();
    }
    let local = local(config, time_ms);
    format!(
        "{:02}/{:02}/{:04} {:02}:{:02}:{:02}",
        local.day(),
        local.month(),
        local.year(),
        local.hour(),
        local.minute(),
        local.second()
    )
}

/// How long ago, in words an operator reads at a glance: `45 s`, `12 min`, `3 h 05 min`.
pub(super) fn age(now_ms: u64, then_ms: u64) -> String {
    let seconds = now_ms.saturating_sub(then_ms) / 1000;
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{} min", seconds / 60),
        _ => format!("{} h {:02} min", seconds / 3600, seconds % 3600 / 60),
    }
}

/// `27/11/2026`: a jornada (`2026-11-27`) as a person writes the date; anything else as it is.
pub(super) fn date(jornada: &str) -> String {
    match jiff::civil::Date::strptime("%Y-%m-%d", jornada) {
        Ok(date) => format!("{:02}/{:02}/{:04}", date.day(), date.month(), date.year()),
        Err(_) => jornada.to_owned(),
    }
}

/// A jornada as a page prints it: `27/11/2026` (one date format on every page, issue 45 point 10).
pub(crate) fn jornada_date(jornada: &str) -> String {
    date(jornada)
}

/// The game's name as its regulation writes it.
pub(super) fn game_name(game: pozo_engine::Game) -> &'static str {
    use pozo_engine::Game;
    match game {
        Game::RuletaAmericana => "Ruleta Americana Poceada",
        Game::Blackjack => "Black Jack Carta Descubierta Poceado",
        Game::CentralPoker => "Central Póker Poceado",
        Game::CaribbeanPoker => "Caribbean Poker",
        Game::GoPoker => "Go Poker",
        Game::DrawPoker => "Draw Poker",
        Game::PokerSinDescarte => "Póquer sin descarte",
        Game::Tripoker => "Tripóquer",
        Game::Veintiuno => "Veintiuno",
        Game::ThreeCardPoker => "Three Card Poker",
    }
}

/// A jornada from a query: empty (none chosen) or a date `AAAA-MM-DD`.
pub(super) fn check_jornada(jornada: &str) -> Result<(), super::error::PageError> {
    if jornada.is_empty() || jiff::civil::Date::strptime("%Y-%m-%d", jornada).is_ok() {
        return Ok(());
    }
    Err(super::error::PageError::new(
        axum::http::StatusCode::BAD_REQUEST,
        format!("jornada: `{}` no es una fecha AAAA-MM-DD", bounded(jornada)),
    ))
}

/// The premio's name in the pool's rulebook, or its code.
pub(super) fn prize_name(config: &Config, pool: &str, code: &str) -> String {
    config
        .rulebooks
        .pool(pool)
        .and_then(|rules| rules.prize(code))
        .map(|prize| prize.name.clone())
        .unwrap_or_else(|| code.to_owned())
}

/// The pool's name in its rulebook, or its id.
pub(super) fn pool_name(config: &Config, pool: &str) -> String {
    config.rulebooks.pool(pool).map(|rules| rules.name.clone()).unwrap_or_else(|| pool.to_owned())
}

/// A CSV document from a header and rows (RFC 4180, through the csv crate); a field
/// that a spreadsheet would run as a formula is quoted with a leading apostrophe.
pub(super) fn csv(header: &[&str], rows: impl IntoIterator<Item = Vec<String>>) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(header).expect("writing to memory");
    for row in rows {
        let row = row.into_iter().map(|field| {
            if field.starts_with(['=', '+', '-', '@']) && field.parse::<Money>().is_err() { format!("'{field}") } else { field }
        });
        writer.write_record(row).expect("writing to memory");
    }
    writer.into_inner().expect("writing to memory")
}

/// A CSV download named `name`.
pub(super) fn csv_response(name: &str, body: Vec<u8>) -> axum::response::Response {
    use axum::http::header;
    use axum::response::IntoResponse;
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\"")),
        ],
        body,
    )
        .into_response()
}

/// `+$ 1,00`, `-$ 1,00`, `$ 0,00`: a change, signed.
pub(super) fn signed_pesos(amount: Money) -> String {
    if amount > Money::ZERO { format!("+{}", pesos(amount)) } else { pesos(amount) }
}

/// The chart's drawing height, in SVG units.
pub(super) const CHART_HEIGHT: u32 = 200;

/// The height of `value` on a chart whose tallest bar is `max`: exact decimal
/// arithmetic, rounded down to whole units.
pub(super) fn height(value: Money, max: Money) -> u32 {
    if max <= Money::ZERO || value <= Money::ZERO {
        return 0;
    }
    let scaled = (value * rust_decimal::Decimal::from(CHART_HEIGHT) / max).floor();
    u32::try_from(scaled.mantissa() / 10i128.pow(scaled.scale())).unwrap_or(CHART_HEIGHT).min(CHART_HEIGHT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pozo_engine::money;

    #[test]
    fn amounts_and_ages_read_the_argentine_way() {
        assert_eq!(pesos(money!(1234567.899)), "$\u{a0}1.234.567,89");
        assert_eq!(pesos(money!(0)), "$\u{a0}0,00");
        assert_eq!(age(200_000, 155_000), "45 s");
        assert_eq!(age(3_600_000 * 3 + 300_000, 0), "3 h 05 min");
        assert_eq!(date("2026-11-27"), "27/11/2026");
        assert_eq!(date("27/11"), "27/11");
    }

    #[test]
    fn csv_quotes_and_defuses_formulas() {
        let text =
            String::from_utf8(csv(&["a", "b"], [vec!["=SUM(A1)".into(), "x,\"y\"".into()], vec!["-12.50".into(), "".into()]]))
                .expect("utf-8");
        assert_eq!(text, "a,b\n'=SUM(A1),\"x,\"\"y\"\"\"\n-12.50,\n");
    }
}
