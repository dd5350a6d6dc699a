//! A configuration changed on a live journal (docs/operations.md §8): a proposal carries the
//! files it changes, whole, so that replay needs nothing but the journal; the result is read
//! and validated as a whole configuration (the rulebooks' sanity, the layout against them);
//! and what changed is told setting by setting, in the operators' Spanish, with what moves
//! money, which on a live pool waits for its defined moment.

use super::error::ConfigError;
use super::layout::TableConfig;
use super::validated::{Config, stable_name};
use pozo_engine::money::{Money, format_ars};
use pozo_engine::rulebook::{PoolRules, PrizeValue};
use pozo_engine::{PoolId, TableId};

/// The most files one proposal may carry.
pub const CHANGED_FILES_MAX: usize = 8;

/// What one setting a change touches is about.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(tag = "of", rename_all = "snake_case")]
pub enum Subject {
    Casino,
    Table { table_id: TableId },
    Pool { pool_id: PoolId },
}

/// One setting a change touches: before and after, in plain words.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Difference {
    pub subject: Subject,
    /// The setting, as the operators name it ("mínimo", "pozo", "puestos").
    pub setting: String,
    pub before: String,
    pub after: String,
    /// A money setting of a pool already live: minimum and its meaning, rates, paytable,
    /// bets (docs/operations.md §8). Such a change waits for its moment.
    pub money: bool,
}

impl Difference {
    /// One line for the sala and the history: "Pozo iplyc-blackjack — mínimo: $ 5.000,00 → $ 6.000,00".
    pub fn describe(&self) -> String {
        let subject = match &self.subject {
            Subject::Casino => "Casino".to_owned(),
            Subject::Table { table_id } => format!("Mesa {table_id}"),
            Subject::Pool { pool_id } => format!("Pozo {pool_id}"),
        };
        match (self.before.is_empty(), self.after.is_empty()) {
            (true, _) => format!("{subject} — {}: {}", self.setting, self.after),
            (_, true) => format!("{subject} — {}: {} (se retira)", self.setting, self.before),
            _ => format!("{subject} — {}: {} → {}", self.setting, self.before, self.after),
        }
    }
}

impl Config {
    /// The configuration with `changed` files replacing those of the same name, or added
    /// (a new rulebook); the layout is always the first file. Read and validated whole,
    /// exactly as at start-up; the keys are the same.
    pub fn with_files(&self, changed: &[(String, String)]) -> Result<Config, ConfigError> {
        let refused = |problem: String| ConfigError::Field { file: "change".into(), field: "files".into(), problem };
        if changed.is_empty() || changed.len() > CHANGED_FILES_MAX {
            return Err(refused(format!("a change carries 1–{CHANGED_FILES_MAX} files, found {}", changed.len())));
        }
        let mut texts = self.texts.clone();
        for (name, text) in changed {
            if text.len() as u64 > super::layout::CONFIG_FILE_BYTES_MAX {
                return Err(refused(format!("{name}: larger than {} bytes", super::layout::CONFIG_FILE_BYTES_MAX)));
            }
            match self.file_in_force(name).map_err(refused)? {
                Some(index) => texts[index].1 = text.clone(),
                None => texts.push((name.clone(), text.clone())),
            }
        }
        self.rebuilt(texts)
    }

    /// The names of the files in force, stable ([`stable_name`]): layout first, then the
    /// rulebooks. What a change names a whole file by (`--file iplyc.toml=PATH`).
    pub fn names_in_force(&self) -> Vec<&str> {
        self.texts.iter().map(|(name, _)| stable_name(name)).collect()
    }

    /// The place in `texts` of the file in force `name` names: the same name, or the same
    /// stable name (`config/iplyc.toml`, `iplyc.toml` and `/srv/pozo/cierre-2026.files/iplyc.toml`
    /// are one file); `None` for a new file. Two files in force of one stable name are named
    /// by their whole name only.
    pub fn file_in_force(&self, name: &str) -> Result<Option<usize>, String> {
        if let Some(index) = self.texts.iter().position(|(known, _)| known == name) {
            return Ok(Some(index));
        }
        let stable = stable_name(name);
        let mut same = self.texts.iter().enumerate().filter(|(_, (known, _))| stable_name(known) == stable);
        match (same.next(), same.next()) {
            (Some((index, _)), None) => Ok(Some(index)),
            (None, _) => Ok(None),
            (Some((_, (one, _))), Some((_, (other, _)))) => {
                Err(format!("{name}: two files in force are named {stable} ({one}, {other}): name the one to change whole"))
            }
        }
    }
}

impl Config {
    /// This configuration with the time zone and the hour the jornada starts of `other`'s
    /// layout written into its layout (comments kept): the same configuration as `other`
    /// exactly when nothing else differs. What `serve --open-from` checks a new journal's files
    /// against its statement's with (docs/operations.md §8, "Carrying the books to a new journal").
    pub fn with_jornada_of(&self, other: &Config) -> Result<Config, ConfigError> {
        let (name, text) = self.texts[0].clone();
        let mut document = text.parse::<toml_edit::DocumentMut>().map_err(|error| ConfigError::Field {
            file: name.clone(),
            field: "layout".into(),
            problem: error.to_string(),
        })?;
        let hour = i64::from(other.layout.jornada_starts_hour);
        for (key, value) in
            [("time_zone", toml_edit::Value::from(other.layout.time_zone.as_str())), ("jornada_starts_hour", hour.into())]
        {
            match document.get_mut(key).and_then(toml_edit::Item::as_value_mut) {
                Some(old) => {
                    let decor = old.decor().clone();
                    *old = value;
                    *old.decor_mut() = decor;
                }
                None => document[key] = toml_edit::Item::Value(value),
            }
        }
        let mut texts = self.texts.clone();
        texts[0].1 = document.to_string();
        self.rebuilt(texts)
    }

    /// The configuration of `texts`, whole, with this one's keys: what a snapshot restores.
    pub fn rebuilt(&self, texts: Vec<(String, String)>) -> Result<Config, ConfigError> {
        let mut config = Config::from_texts(texts)?;
        config.keys = self.keys.clone();
        config.journal_key = self.journal_key.clone();
        Ok(config)
    }

    /// Every setting that differs from `self` to `after`, or the first change no live journal
    /// allows (a time zone, a table's seats, a pool dropped instead of retired), naming it.
    pub fn differences(&self, after: &Config) -> Result<Vec<Difference>, ConfigError> {
        let mut found = casino_differences(self, after)?;
        found.extend(table_differences(self, after)?);
        found.extend(pool_differences(self, after)?);
        Ok(found)
    }
}

fn not_live(field: &str, problem: impl Into<String>) -> ConfigError {
    ConfigError::Field { file: "change".into(), field: field.into(), problem: problem.into() }
}

fn casino_differences(before: &Config, after: &Config) -> Result<Vec<Difference>, ConfigError> {
    let (old, new) = (&before.layout, &after.layout);
    let asked = match (old.time_zone != new.time_zone, old.jornada_starts_hour != new.jornada_starts_hour) {
        (true, _) => Some(("time_zone", "the time zone")),
        (false, true) => Some(("jornada_starts_hour", "the hour the jornada starts")),
        (false, false) => None,
    };
    if let Some((field, what)) = asked {
        return Err(not_live(
            field,
            format!(
                "{what} does not change on a live journal: the jornadas already booked would move (close the books \
                 and open a new journal from the statement with the new layout, docs/operations.md §8)"
            ),
        ));
    }
    let mut found = Vec::new();
    if old.casino != new.casino {
        found.push(Difference {
            subject: Subject::Casino,
            setting: "nombre".into(),
            before: old.casino.clone(),
            after: new.casino.clone(),
            money: false,
        });
    }
    let salons =
        |config: &Config| config.salons().iter().map(|salon| format!("{} ({})", salon.name, salon.id)).collect::<Vec<_>>();
    if salons(before) != salons(after) && !(old.salons.is_empty() && new.salons.is_empty()) {
        found.push(Difference {
            subject: Subject::Casino,
            setting: "salones".into(),
            before: salons(before).join(", "),
            after: salons(after).join(", "),
            money: false,
        });
    }
    Ok(found)
}

fn describe_table(config: &Config, table: &TableConfig) -> String {
    format!(
        "{} en la flor {} del salón {}, pozo {}, {} puestos{}",
        table.game.name(),
        table.flor,
        config.salon_of(table),
        table.pool,
        table.seats,
        if table.in_service { "" } else { ", fuera de servicio" }
    )
}

fn table_differences(before: &Config, after: &Config) -> Result<Vec<Difference>, ConfigError> {
    let mut found = Vec::new();
    for old in &before.layout.tables {
        let subject = Subject::Table { table_id: old.id.clone() };
        let Some(new) = after.table(&old.id) else {
            found.push(Difference {
                subject,
                setting: "mesa".into(),
                before: describe_table(before, old),
                after: String::new(),
                money: false,
            });
            continue;
        };
        if (old.game, old.seats, &old.flor, before.salon_of(old)) != (new.game, new.seats, &new.flor, after.salon_of(new)) {
            return Err(not_live(
                &format!("table `{}`", old.id),
                "a table's game, seats, flor and salon do not change: retire it and add another",
            ));
        }
        if old.pool != new.pool {
            found.push(Difference {
                subject: subject.clone(),
                setting: "pozo".into(),
                before: old.pool.to_string(),
                after: new.pool.to_string(),
                money: false,
            });
        }
        if old.in_service != new.in_service {
            let service = |on: bool| if on { "en servicio" } else { "fuera de servicio" }.to_owned();
            found.push(Difference {
                subject,
                setting: "servicio".into(),
                before: service(old.in_service),
                after: service(new.in_service),
                money: false,
            });
        }
    }
    for new in after.layout.tables.iter().filter(|table| before.table(&table.id).is_none()) {
        found.push(Difference {
            subject: Subject::Table { table_id: new.id.clone() },
            setting: "mesa nueva".into(),
            before: String::new(),
            after: describe_table(after, new),
            money: false,
        });
    }
    Ok(found)
}

fn pool_differences(before: &Config, after: &Config) -> Result<Vec<Difference>, ConfigError> {
    let mut found = Vec::new();
    for old in before.rulebooks.pools() {
        let Some(new) = after.rulebooks.pool(&old.id) else {
            return Err(not_live(
                &format!("pool `{}`", old.id),
                "a pool is never dropped from the rulebooks: its money and meters stay; retire it instead \
                 (its balance goes to another pool, docs/operations.md §8)",
            ));
        };
        found.extend(settings_of(old, new));
    }
    for new in after.rulebooks.pools().filter(|rules| before.rulebooks.pool(&rules.id).is_none()) {
        found.push(Difference {
            subject: Subject::Pool { pool_id: new.id.clone() },
            setting: "pozo nuevo".into(),
            before: String::new(),
            after: format!("{} ({}), mínimo {}", new.name, new.file, format_ars(new.minimum)),
            money: false,
        });
    }
    Ok(found)
}

/// The settings of one pool that differ: each money setting as its own line.
fn settings_of(old: &PoolRules, new: &PoolRules) -> Vec<Difference> {
    let money = |amount: Money| format_ars(amount);
    let rate = |rate: rust_decimal::Decimal| format!("{} %", (rate * rust_decimal::Decimal::ONE_HUNDRED).normalize());
    let mut lines: Vec<(&str, String, String, bool)> = vec![
        ("nombre", old.name.clone(), new.name.clone(), false),
        ("mínimo", money(old.minimum), money(new.minimum), true),
        ("significado del mínimo", old.minimum_kind.name().into(), new.minimum_kind.name().into(), true),
        ("apuesta", money(old.side_bet), money(new.side_bet), true),
        ("apuesta mínima", money(old.bet_min), money(new.bet_min), true),
        ("apuesta máxima", money(old.bet_max), money(new.bet_max), true),
        ("unidad de pago", money(old.payout_unit), money(new.payout_unit), true),
        ("incremento", rate(old.contribution_rate), rate(new.contribution_rate), true),
        ("reserva", rate(old.reserve_rate), rate(new.reserve_rate), true),
        ("comisión", rate(old.commission_rate), rate(new.commission_rate), true),
        ("política de pago", old.policy.name().into(), new.policy.name().into(), true),
        ("umbral de Venta-Pagos", money(old.venta_pagos_over), money(new.venta_pagos_over), false),
        (
            "probabilidad de premio instantáneo",
            old.instant_card_chance.map(|c| c.normalize().to_string()).unwrap_or_default(),
            new.instant_card_chance.map(|c| c.normalize().to_string()).unwrap_or_default(),
            false,
        ),
        ("premios", codes(old), codes(new), true),
    ];
    for prize in &new.prizes {
        if let Some(before) = old.prize(&prize.code)
            && before.value != prize.value
        {
            lines.push((
                "premio",
                format!("{} {}", prize.code, value(&before.value)),
                format!("{} {}", prize.code, value(&prize.value)),
                true,
            ));
        }
        // The level that pays it (docs/readings.md, "Levels"): another meter pays it.
        if let Some(before) = old.prize(&prize.code)
            && (old.level_name(before.level), &before.games, &before.envy)
                != (new.level_name(prize.level), &prize.games, &prize.envy)
        {
            let paid_by = |rules: &PoolRules, prize: &pozo_engine::Prize| {
                format!(
                    "{} nivel {} juegos {:?} envidia {:?}",
                    prize.code,
                    rules.level_name(prize.level).unwrap_or("único"),
                    prize.games,
                    prize.envy
                )
            };
            lines.push(("premio", paid_by(old, before), paid_by(new, prize), true));
        }
    }
    // The Venta-Pagos threshold of a level or of a prize (docs/readings.md, "Levels"): like the
    // file's, not a money setting of the pool (it moves no money: it says who pays).
    let threshold = |over: Option<Money>| over.map(format_ars).unwrap_or_else(|| "el del pozo".to_owned());
    let mut threshold_lines: Vec<(String, String, String)> = Vec::new();
    for prize in &new.prizes {
        if let Some(before) = old.prize(&prize.code)
            && before.venta_pagos_over != prize.venta_pagos_over
        {
            threshold_lines.push((
                format!("premio {}: umbral de Venta-Pagos", prize.code),
                threshold(before.venta_pagos_over),
                threshold(prize.venta_pagos_over),
            ));
        }
    }
    for level in new.levels.iter().filter(|level| !level.house) {
        if let Some(before) = old.levels.iter().find(|old_level| old_level.name == level.name)
            && before.venta_pagos_over != level.venta_pagos_over
        {
            threshold_lines.push((
                format!("nivel {}: umbral de Venta-Pagos", level.name),
                threshold(before.venta_pagos_over),
                threshold(level.venta_pagos_over),
            ));
        }
    }
    let mut level_lines: Vec<(String, String, String)> = Vec::new();
    for (index, level) in new.levels.iter().enumerate().filter(|(_, level)| !level.house) {
        let Some(before) = old.levels.iter().find(|old_level| old_level.name == level.name) else {
            level_lines.push(("nivel nuevo".into(), String::new(), describe_level(level)));
            continue;
        };
        let position = |rules: &PoolRules, name: &str| rules.levels.iter().position(|level| level.name == name);
        if position(old, &level.name) != Some(index) {
            level_lines.push((
                format!("nivel {}: orden", level.name),
                format!("{:?}", position(old, &level.name)),
                format!("{index}"),
            ));
        }
        for (setting, was, is) in level_settings(before, level) {
            level_lines.push((format!("nivel {}: {setting}", level.name), was, is));
        }
    }
    for level in
        old.levels.iter().filter(|level| !level.house && !new.levels.iter().any(|new_level| new_level.name == level.name))
    {
        level_lines.push((format!("nivel {}: retirado", level.name), describe_level(level), String::new()));
    }
    let other = |rules: &PoolRules| {
        format!(
            "{:?} {:?} {:?} {:?} {:?}",
            rules.games, rules.highest_only, rules.shortfall_from, rules.exclusive, rules.seats_max
        )
    };
    lines.push(("otras reglas", other(old), other(new), true));
    let level_lines = level_lines.into_iter().map(|(setting, before, after)| (setting, before, after, true));
    let threshold_lines = threshold_lines.into_iter().map(|(setting, before, after)| (setting, before, after, false));
    lines
        .into_iter()
        .map(|(setting, before, after, money)| (setting.to_owned(), before, after, money))
        .chain(level_lines)
        .chain(threshold_lines)
        .filter(|(_, before, after, _)| before != after)
        .map(|(setting, before, after, money)| Difference {
            subject: Subject::Pool { pool_id: new.id.clone() },
            setting,
            before,
            after,
            money,
        })
        .collect()
}

/// A level in plain words, as a change shows it.
fn describe_level(level: &pozo_engine::LevelRules) -> String {
    let settings: Vec<String> =
        level_settings(level, level).into_iter().map(|(setting, value, _)| format!("{setting} {value}")).collect();
    format!("{}: {}", level.name, settings.join(", "))
}

/// A level's money settings, before and after (docs/readings.md, "Levels": each in force after
/// that level's next hit).
fn level_settings(old: &pozo_engine::LevelRules, new: &pozo_engine::LevelRules) -> Vec<(&'static str, String, String)> {
    let rate = |rate: rust_decimal::Decimal| format!("{} %", (rate * rust_decimal::Decimal::ONE_HUNDRED).normalize());
    let cap = |level: &pozo_engine::LevelRules| match level.cap {
        None => "sin tope".to_owned(),
        Some((cap, pozo_engine::Overflow::Reserve)) => format!("{} y luego a su reserva", format_ars(cap)),
        Some((cap, pozo_engine::Overflow::Level(index))) => format!("{} y luego al nivel {}", format_ars(cap), index + 1),
    };
    let ceiling = |level: &pozo_engine::LevelRules| level.must_hit_by.map(format_ars).unwrap_or_else(|| "—".to_owned());
    vec![
        ("participación", rate(old.share), rate(new.share)),
        ("reserva", rate(old.reserve_share), rate(new.reserve_share)),
        ("reinicio", format_ars(old.reset), format_ars(new.reset)),
        ("significado del reinicio", old.minimum_kind.name().into(), new.minimum_kind.name().into()),
        ("tope", cap(old), cap(new)),
        // A mystery level's ceiling: in force at the draw after its next hit (docs/readings.md,
        // "The mystery level"): the open draw keeps the ceiling it was drawn under.
        ("debe salir antes de", ceiling(old), ceiling(new)),
    ]
}

/// The level a pool's money change is for, by the settings it changes: one level's alone
/// ("nivel Grand: reinicio"), that level's index in `rules`; anything else in a pool with levels,
/// the first level (the pool's own settings wait for its top level's hit); `None` in a pool of
/// one level.
pub fn money_level(differences: &[Difference], rules: &PoolRules) -> Option<usize> {
    if rules.levels.is_empty() {
        return None;
    }
    let mut named = differences
        .iter()
        .filter(|difference| difference.money)
        .map(|difference| difference.setting.strip_prefix("nivel ").and_then(|rest| rest.split_once(": ")).map(|(name, _)| name));
    let first = named.next().flatten();
    let one = first.filter(|name| named.all(|other| other == Some(*name)));
    Some(one.and_then(|name| rules.levels.iter().position(|level| level.name == name)).unwrap_or(0))
}

fn codes(rules: &PoolRules) -> String {
    rules.prizes.iter().map(|prize| prize.code.as_str()).collect::<Vec<_>>().join(", ")
}

fn value(value: &PrizeValue) -> String {
    match value {
        PrizeValue::Grant => "(canje)".to_owned(),
        PrizeValue::Fixed { amount } => format_ars(*amount),
        PrizeValue::BetMultiple { multiple } => format!("{}× la apuesta", multiple.normalize()),
        PrizeValue::Percent { percent, .. } => format!("{} % del pozo", percent.normalize()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout_text(config: &Config) -> (String, String) {
        config.texts[0].clone()
    }

    #[test]
    fn a_table_added_is_one_difference_and_needs_no_money_moment() {
        let config = Config::embedded();
        let (name, text) = layout_text(&config);
        let text = format!(
            "{text}\n[[table]]\nid = \"R5\"\nflor = \"F9\"\npool = \"iplyc-ruleta\"\ngame = \"ruleta-americana\"\nseats = 8\n"
        );
        let after = config.with_files(&[(name, text)]).expect("valid");
        let found = config.differences(&after).expect("allowed");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].subject, Subject::Table { table_id: "R5".into() });
        assert!(!found[0].money);
        assert!(
            found[0].describe().starts_with("Mesa R5 — mesa nueva: ruleta-americana en la flor F9"),
            "{}",
            found[0].describe()
        );
        assert_ne!(after.hash, config.hash);
    }

    #[test]
    fn a_minimum_raised_is_a_money_setting_said_in_pesos() {
        let config = Config::embedded();
        let (name, text) = config.texts.iter().find(|(name, _)| name.ends_with("iplyc.toml")).cloned().expect("iplyc");
        let text = text.replacen("minimum = \"5000.00\"", "minimum = \"6000.00\"", 1);
        let after = config.with_files(&[(name, text)]).expect("valid");
        let found = config.differences(&after).expect("allowed");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].money);
        assert_eq!(found[0].describe(), "Pozo iplyc-blackjack — mínimo: $ 5.000,00 → $ 6.000,00");
    }

    #[test]
    fn a_dropped_pool_a_new_time_zone_and_a_table_resized_are_refused() {
        let config = Config::embedded();
        let (name, text) = layout_text(&config);
        let zoned = text.replacen("America/Argentina/Buenos_Aires", "Europe/Madrid", 1);
        let after = config.with_files(&[(name.clone(), zoned)]).expect("valid alone");
        assert!(config.differences(&after).expect_err("refused").to_string().contains("time_zone"));
        let resized = text.replacen("seats = 8", "seats = 6", 1);
        let after = config.with_files(&[(name, resized)]).expect("valid alone");
        let refused = config.differences(&after).expect_err("refused").to_string();
        assert!(refused.contains("table `R1`") && refused.contains("retire it and add another"), "{refused}");
    }

    /// Issue 42, point 6: a new hour for the jornada asked on a live journal is refused naming
    /// `jornada_starts_hour`, not `time_zone`, and the path that changes it (docs/operations.md §8).
    #[test]
    fn a_new_hour_for_the_jornada_is_refused_naming_it() {
        let config = Config::embedded();
        let (name, text) = layout_text(&config);
        let hour = text.replacen("jornada_starts_hour = 6", "jornada_starts_hour = 8", 1);
        let after = config.with_files(&[(name, hour)]).expect("valid alone");
        let refused = config.differences(&after).expect_err("refused").to_string();
        assert!(refused.starts_with("change: jornada_starts_hour: the hour the jornada starts does not change"), "{refused}");
        assert!(refused.contains("open a new journal from the statement"), "{refused}");
        assert!(!refused.contains("time_zone"), "{refused}");
    }

    /// The files of a new journal differ from its statement's in the jornada's settings only
    /// exactly when writing the statement's settings into them gives the statement's files.
    #[test]
    fn only_the_jornada_settings_differ_when_writing_them_back_gives_the_same_files() {
        let config = Config::embedded();
        let (name, text) = layout_text(&config);
        let moved = text.replacen("jornada_starts_hour = 6", "jornada_starts_hour = 8", 1).replacen(
            "America/Argentina/Buenos_Aires",
            "America/Argentina/Cordoba",
            1,
        );
        let given = config.with_files(&[(name.clone(), moved.clone())]).expect("valid");
        assert_ne!(given.hash, config.hash);
        assert_eq!(given.with_jornada_of(&config).expect("written").hash, config.hash);
        let resized = config.with_files(&[(name, moved.replacen("seats = 8", "seats = 6", 1))]).expect("valid");
        assert_ne!(resized.with_jornada_of(&config).expect("written").hash, config.hash);
    }

    #[test]
    fn a_change_the_rulebooks_refuse_is_refused_naming_the_field() {
        let config = Config::embedded();
        let (name, text) = config.texts.iter().find(|(name, _)| name.ends_with("iplyc.toml")).cloned().expect("iplyc");
        let text = text.replacen("contribution_rate = \"0.65\"", "contribution_rate = \"1.65\"", 1);
        let refused = config.with_files(&[(name, text)]).expect_err("refused").to_string();
        assert!(refused.contains("contribution_rate"), "{refused}");
    }
}
