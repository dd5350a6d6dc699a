//! The edits a supervisor asks for (a table added, a minimum raised), written into the
//! configuration's files in place, comments and order kept: what a proposal then carries,
//! whole (docs/operations.md §8). Only writing happens here; [`Config::with_files`] reads
//! and validates the result like any configuration.

use pozo_engine::{PoolId, TableId};
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

use super::error::ConfigError;
use super::layout::TableConfig;
use super::validated::Config;

/// The settings of a `[[pool]]` an edit may write, all strings in the files.
pub const POOL_SETTINGS: [&str; 10] = [
    "name",
    "minimum",
    "minimum_kind",
    "side_bet",
    "bet_min",
    "bet_max",
    "contribution_rate",
    "reserve_rate",
    "commission_rate",
    "instant_card_chance",
];

/// The settings of a `[[pool.prize]]` an edit may write.
pub const PRIZE_SETTINGS: [&str; 3] = ["amount", "percent", "multiple"];

/// The most edits one proposal asks for.
pub const EDITS_MAX: usize = 64;

/// One edit, as the sala's form or `pozo-server change propose` asks for it.
#[derive(Clone, Debug)]
pub enum Edit {
    AddTable(TableConfig),
    RetireTable {
        table_id: TableId,
    },
    MoveTable {
        table_id: TableId,
        pool_id: PoolId,
    },
    Service {
        table_id: TableId,
        in_service: bool,
    },
    /// A setting of the pool's `[[pool]]` ([`POOL_SETTINGS`]), or `venta_pagos_over` of its file.
    Pool {
        pool_id: PoolId,
        setting: String,
        value: String,
    },
    /// A paytable line's amount, percent or multiple ([`PRIZE_SETTINGS`]).
    Prize {
        pool_id: PoolId,
        code: String,
        setting: String,
        value: String,
    },
}

fn refused(field: &str, problem: impl Into<String>) -> ConfigError {
    ConfigError::Field { file: "change".into(), field: field.into(), problem: problem.into() }
}

impl Config {
    /// The files `edits` change, whole, as they are to be; the others are untouched.
    pub fn edited(&self, edits: &[Edit]) -> Result<Vec<(String, String)>, ConfigError> {
        if edits.is_empty() || edits.len() > EDITS_MAX {
            return Err(refused("edits", format!("1–{EDITS_MAX} edits, found {}", edits.len())));
        }
        let mut documents: Vec<(String, DocumentMut)> = Vec::new();
        for edit in edits {
            let file = match edit {
                Edit::Pool { pool_id, .. } | Edit::Prize { pool_id, .. } => self
                    .rulebooks
                    .pool(pool_id)
                    .map(|rules| rules.file.clone())
                    .ok_or_else(|| refused("pool_id", format!("no pool `{pool_id}` in the rulebooks")))?,
                _ => self.texts[0].0.clone(),
            };
            if !documents.iter().any(|(name, _)| *name == file) {
                let text = self.texts.iter().find(|(name, _)| *name == file).map(|(_, text)| text.as_str()).unwrap_or_default();
                let document = text.parse::<DocumentMut>().map_err(|error| refused(&file, error.to_string()))?;
                documents.push((file.clone(), document));
            }
            let document = &mut documents.iter_mut().find(|(name, _)| *name == file).expect("just added").1;
            apply(document, edit)?;
        }
        Ok(documents.into_iter().map(|(name, document)| (name, document.to_string())).collect())
    }
}

fn apply(document: &mut DocumentMut, edit: &Edit) -> Result<(), ConfigError> {
    match edit {
        Edit::AddTable(table) => {
            let mut entry = Table::new();
            entry["id"] = value(table.id.as_str());
            entry["flor"] = value(table.flor.as_str());
            entry["pool"] = value(table.pool.as_str());
            entry["game"] = value(table.game.name());
            entry["seats"] = value(i64::from(table.seats));
            if let Some(salon) = &table.salon {
                entry["salon"] = value(salon.as_str());
            }
            tables(document, "table")?.push(entry);
        }
        Edit::RetireTable { table_id } => {
            let list = tables(document, "table")?;
            let index = position(list, "id", table_id).ok_or_else(|| refused("table_id", format!("no table `{table_id}`")))?;
            list.remove(index);
        }
        Edit::MoveTable { table_id, pool_id } => {
            *table_entry(document, table_id)?.entry("pool").or_insert(value("")) = value(pool_id.as_str());
        }
        Edit::Service { table_id, in_service } => {
            let entry = table_entry(document, table_id)?;
            if *in_service {
                entry.remove("in_service");
            } else {
                entry["in_service"] = value(false);
            }
        }
        Edit::Pool { pool_id, setting, value: written } => pool_setting(document, pool_id, setting, written)?,
        Edit::Prize { pool_id, code, setting, value: written } => {
            if !PRIZE_SETTINGS.contains(&setting.as_str()) {
                return Err(refused("setting", format!("`{setting}` is not one of {}", PRIZE_SETTINGS.join(", "))));
            }
            let pool = pool_entry(document, pool_id)?;
            let prizes =
                pool.get_mut("prize").and_then(Item::as_array_of_tables_mut).ok_or_else(|| refused("code", "no paytable"))?;
            let index = position(prizes, "code", code)
                .ok_or_else(|| refused("code", format!("pool `{pool_id}` has no premio `{code}`")))?;
            let prize = prizes.get_mut(index).expect("found");
            if prize.get(setting).is_none() {
                return Err(refused("setting", format!("premio `{code}` is not paid by `{setting}`")));
            }
            prize[setting.as_str()] = value(written.as_str());
        }
    }
    Ok(())
}

fn pool_setting(document: &mut DocumentMut, pool_id: &str, setting: &str, written: &str) -> Result<(), ConfigError> {
    if setting == "venta_pagos_over" {
        document["venta_pagos_over"] = value(written);
        return Ok(());
    }
    if !POOL_SETTINGS.contains(&setting) {
        return Err(refused("setting", format!("`{setting}` is not one of {}, venta_pagos_over", POOL_SETTINGS.join(", "))));
    }
    pool_entry(document, pool_id)?[setting] = value(written);
    Ok(())
}

fn tables<'a>(document: &'a mut DocumentMut, key: &str) -> Result<&'a mut ArrayOfTables, ConfigError> {
    document.get_mut(key).and_then(Item::as_array_of_tables_mut).ok_or_else(|| refused(key, "no such list in the file"))
}

fn position(list: &ArrayOfTables, key: &str, wanted: &str) -> Option<usize> {
    list.iter().position(|entry| entry.get(key).and_then(Item::as_str) == Some(wanted))
}

fn table_entry<'a>(document: &'a mut DocumentMut, table_id: &str) -> Result<&'a mut Table, ConfigError> {
    let list = tables(document, "table")?;
    let index = position(list, "id", table_id).ok_or_else(|| refused("table_id", format!("no table `{table_id}`")))?;
    Ok(list.get_mut(index).expect("found"))
}

fn pool_entry<'a>(document: &'a mut DocumentMut, pool_id: &str) -> Result<&'a mut Table, ConfigError> {
    let list = tables(document, "pool")?;
    let index = position(list, "id", pool_id).ok_or_else(|| refused("pool_id", format!("no pool `{pool_id}`")))?;
    Ok(list.get_mut(index).expect("found"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pozo_engine::Game;

    #[test]
    fn a_minimum_written_keeps_the_file_and_reads_back() {
        let config = Config::embedded();
        let edit = Edit::Pool { pool_id: "iplyc-blackjack".into(), setting: "minimum".into(), value: "6000.00".into() };
        let files = config.edited(&[edit]).expect("written");
        assert_eq!(files.len(), 1);
        assert!(files[0].0.ends_with("iplyc.toml"));
        assert!(files[0].1.contains("# Rulebook of the Instituto"), "comments kept");
        let after = config.with_files(&files).expect("valid");
        assert_eq!(after.rulebooks.pool("iplyc-blackjack").expect("pool").minimum.to_string(), "6000.00");
        assert_eq!(config.differences(&after).expect("allowed").len(), 1);
    }

    #[test]
    fn a_table_added_moved_and_out_of_service_reads_back() {
        let config = Config::embedded();
        let added = TableConfig {
            id: "B9".into(),
            flor: "F9".into(),
            pool: "iplyc-blackjack".into(),
            game: Game::Blackjack,
            seats: 7,
            salon: None,
            in_service: true,
        };
        let edits = [Edit::AddTable(added), Edit::Service { table_id: "R1".into(), in_service: false }];
        let after = config.with_files(&config.edited(&edits).expect("written")).expect("valid");
        assert_eq!(after.table("B9").map(|table| table.seats), Some(7));
        assert!(!after.table("R1").expect("R1").in_service);
        let refused = config.edited(&[Edit::MoveTable { table_id: "R9".into(), pool_id: "x".into() }]).expect_err("no R9");
        assert!(refused.to_string().contains("no table `R9`"), "{refused}");
    }
}
