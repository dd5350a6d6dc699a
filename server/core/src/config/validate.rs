//! The layout checked against the rulebooks: the clock, each table's id, pool, game, seats,
//! flor and salon; and the salons resolved with their tables and pools.

use super::error::ConfigError;
use super::layout::{FLOR_TABLES_MAX, IMPLICIT_SALON, Layout, SALON_NAME_MAX, SALONS_MAX, Salon, TABLES_MAX, TableConfig};
use jiff::tz::{TimeZone, TimeZoneDatabase};
use pozo_engine::Rulebooks;
use pozo_engine::settle::SEAT_MAX;
use std::collections::{BTreeMap, BTreeSet};

/// The salons of a validated layout: each with its tables and the pools they feed.
pub(super) fn resolve_salons(layout: &Layout, rulebooks: &Rulebooks) -> Vec<Salon> {
    let declared: Vec<(String, String)> = if layout.salons.is_empty() {
        vec![(IMPLICIT_SALON.to_owned(), layout.casino.clone())]
    } else {
        layout.salons.iter().map(|salon| (salon.id.clone(), salon.name.trim().to_owned())).collect()
    };
    declared
        .into_iter()
        .map(|(id, name)| {
            let tables: Vec<&TableConfig> =
                layout.tables.iter().filter(|table| table.salon.as_deref().unwrap_or(IMPLICIT_SALON) == id).collect();
            let pools = rulebooks
                .pools()
                .filter(|rules| tables.iter().any(|table| table.pool == rules.id))
                .map(|rules| rules.id.clone())
                .collect();
            Salon { id, name, tables: tables.iter().map(|table| table.id.clone()).collect(), pools }
        })
        .collect()
}

/// The `[[salon]]` entries: how many, their ids and names. Returns the declared ids.
fn validate_salons(layout: &Layout, error: impl Fn(String, String) -> ConfigError) -> Result<BTreeSet<&str>, ConfigError> {
    if layout.salons.len() > SALONS_MAX {
        return Err(error("salon".into(), format!("{} salons; a layout has at most {SALONS_MAX}", layout.salons.len())));
    }
    let mut ids = BTreeSet::new();
    for (index, salon) in layout.salons.iter().enumerate() {
        let field = |name: &str| format!("salon[{index}].{name}");
        if salon.id.is_empty() || salon.id.len() > 32 || !salon.id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(error(field("id"), format!("`{}` must be 1–32 letters, digits or '-'", salon.id)));
        }
        if !ids.insert(salon.id.as_str()) {
            return Err(error(field("id"), format!("salon `{}` is defined twice", salon.id)));
        }
        let name = salon.name.trim();
        if name.is_empty() || name.chars().count() > SALON_NAME_MAX || name.chars().any(char::is_control) {
            return Err(error(
                field("name"),
                format!("salon `{}`: a name of 1–{SALON_NAME_MAX} characters, as the signs show it", salon.id),
            ));
        }
    }
    Ok(ids)
}

/// A table's `salon`, checked against the declared salons; the salon it is in.
fn table_salon<'a>(
    table: &'a TableConfig,
    field: &str,
    salons: &BTreeSet<&str>,
    error: impl Fn(String, String) -> ConfigError,
) -> Result<&'a str, ConfigError> {
    let known = || salons.iter().copied().collect::<Vec<_>>().join(", ");
    match table.salon.as_deref() {
        None if salons.is_empty() => Ok(IMPLICIT_SALON),
        None => Err(error(
            field.to_owned(),
            format!(
                "table `{}` names no salon; the layout declares salons ({}), so every table names its own",
                table.id,
                known()
            ),
        )),
        Some(salon) if salons.is_empty() => Err(error(
            field.to_owned(),
            format!(
                "salon `{salon}` at table `{}`, but the layout declares no [[salon]]: declare it, or remove the field",
                table.id
            ),
        )),
        Some(salon) if salons.contains(salon) => Ok(salon),
        Some(salon) => {
            let guess = pozo_engine::nearest(salon, salons.iter().copied())
                .map(|nearest| format!(" (did you mean `{nearest}`?)"))
                .unwrap_or_default();
            Err(error(field.to_owned(), format!("unknown salon `{salon}`{guess}; known: {}", known())))
        }
    }
}

pub(super) fn validate(file: &str, layout: &Layout, rulebooks: &Rulebooks) -> Result<TimeZone, ConfigError> {
    let error = |field: String, problem: String| ConfigError::Field { file: file.to_owned(), field, problem };
    let time_zone = validate_clock(layout, error)?;
    if layout.tables.is_empty() || layout.tables.len() > TABLES_MAX {
        return Err(error("table".into(), format!("{} tables; a layout has 1 to {TABLES_MAX}", layout.tables.len())));
    }
    let salons = validate_salons(layout, error)?;
    let mut ids = BTreeSet::new();
    let mut flores = Flores::default();
    for (index, table) in layout.tables.iter().enumerate() {
        check_table_id(index, table, &mut ids, error)?;
        check_table_pool(index, table, rulebooks, error)?;
        flores.place(index, table, &salons, error)?;
    }
    if let Some((index, salon)) = layout
        .salons
        .iter()
        .enumerate()
        .find(|(_, salon)| !layout.tables.iter().any(|table| table.salon.as_ref() == Some(&salon.id)))
    {
        return Err(error(format!("salon[{index}].id"), format!("salon `{}` has no table", salon.id)));
    }
    Ok(time_zone)
}

/// The layout's clock: the hour a jornada starts and the casino's time zone.
fn validate_clock(layout: &Layout, error: impl Fn(String, String) -> ConfigError) -> Result<TimeZone, ConfigError> {
    if layout.jornada_starts_hour > 23 {
        return Err(error("jornada_starts_hour".into(), format!("{} is not an hour 0–23", layout.jornada_starts_hour)));
    }
    // The bundled copy, not the machine's /usr/share/zoneinfo: every machine that
    // serves or verifies a journal applies the same rules.
    TimeZoneDatabase::bundled().get(&layout.time_zone).map_err(|_| {
        error(
            "time_zone".into(),
            format!(
                "unknown time zone `{}` (an IANA name, such as `America/Argentina/Buenos_Aires` or `Europe/Madrid`)",
                layout.time_zone
            ),
        )
    })
}

/// A table's id: well formed, and defined once.
fn check_table_id<'a>(
    index: usize,
    table: &'a TableConfig,
    ids: &mut BTreeSet<&'a str>,
    error: impl Fn(String, String) -> ConfigError,
) -> Result<(), ConfigError> {
    let field = |name: &str| format!("table[{index}].{name}");
    if table.id.is_empty() || table.id.len() > 32 || !table.id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err(error(field("id"), format!("`{}` must be 1–32 letters, digits or '-'", table.id)));
    }
    if !ids.insert(table.id.as_str()) {
        return Err(error(field("id"), format!("table `{}` is defined twice", table.id)));
    }
    Ok(())
}

/// A table against its pool's rulebook: a known pool that links its game, and its seats.
fn check_table_pool(
    index: usize,
    table: &TableConfig,
    rulebooks: &Rulebooks,
    error: impl Fn(String, String) -> ConfigError,
) -> Result<(), ConfigError> {
    let field = |name: &str| format!("table[{index}].{name}");
    let Some(rules) = rulebooks.pool(&table.pool) else {
        let known: Vec<&str> = rulebooks.pools().map(|rules| rules.id.as_str()).collect();
        return Err(error(field("pool"), format!("unknown pool `{}` (known: {})", table.pool, known.join(", "))));
    };
    if !rules.games.contains(&table.game) {
        return Err(error(
            field("game"),
            format!(
                "pool `{}` links {} tables, not `{}` ({})",
                rules.id,
                rules.games.iter().map(|game| game.name()).collect::<Vec<_>>().join(", "),
                table.game,
                rules.articles
            ),
        ));
    }
    if table.seats == 0 || table.seats > SEAT_MAX {
        return Err(error(field("seats"), format!("{} seats; a table has 1 to {SEAT_MAX}", table.seats)));
    }
    // 16.3.1: a Central Póker table seats five; the rulebook says how many at most.
    if let Some(most) = &rules.seats_max
        && table.seats > most.seats
    {
        return Err(error(
            field("seats"),
            format!(
                "{} seats at table `{}`; pool `{}` allows at most {} ({}; `seats_max` in {})",
                table.seats, table.id, rules.id, most.seats, most.article, rules.file
            ),
        ));
    }
    Ok(())
}

/// The flores met so far in a layout: how many tables each has, and the salon each lies in
/// with the table that put it there.
#[derive(Default)]
struct Flores<'a> {
    tables: BTreeMap<&'a str, usize>,
    salons: BTreeMap<&'a str, (&'a str, &'a str)>,
}

impl<'a> Flores<'a> {
    /// A table in its flor: at most four tables to a flor, and a flor in one salon.
    fn place(
        &mut self,
        index: usize,
        table: &'a TableConfig,
        salons: &BTreeSet<&str>,
        error: impl Fn(String, String) -> ConfigError + Copy,
    ) -> Result<(), ConfigError> {
        let field = |name: &str| format!("table[{index}].{name}");
        let count = self.tables.entry(table.flor.as_str()).or_default();
        *count += 1;
        if *count > FLOR_TABLES_MAX {
            return Err(error(field("flor"), format!("flor `{}` has more than {FLOR_TABLES_MAX} tables", table.flor)));
        }
        let salon = table_salon(table, &field("salon"), salons, error)?;
        // A flor is a module of four tables: one place on one floor, so in one salon.
        let (flor_salon, first) = *self.salons.entry(table.flor.as_str()).or_insert((salon, table.id.as_str()));
        if flor_salon != salon {
            return Err(error(
                field("salon"),
                format!(
                    "table `{}` of flor `{}` is in salon `{salon}`, but table `{first}` of that flor is in salon `{flor_salon}`: a flor (a module of four tables) lies in one salon",
                    table.id, table.flor
                ),
            ));
        }
        Ok(())
    }
}
