//! A snapshot of the state, and how a replay's is compared with one an earlier release stored:
//! what that release did not keep is left out of the comparison (`verify`, `verify
//! --predecessor`, the evidence verifier).

use std::collections::BTreeMap;
use std::sync::Arc;

use pozo_engine::{PoolId, PoolState};
use serde::{Deserialize, Serialize};

use super::model::Data;

/// A snapshot: the state after `data.journal_sequence` entries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    pub config_hash: String,
    /// The configuration's files in force (approved changes make it differ from the genesis
    /// one, docs/operations.md §8); empty in a snapshot of an older release: the genesis one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub texts: Vec<(String, String)>,
    pub pools: BTreeMap<PoolId, PoolState>,
    pub data: Data,
}

impl Snapshot {
    /// This snapshot (a replay's) as the release that wrote `stored` would have kept it: what an
    /// older release did not keep is left out where `stored` has none of it — the jornadas'
    /// openings (`books.rs`), the liability as they opened (`liability.rs`), the closing sheets'
    /// records before `sheets_from`. `verify` compares a stored snapshot with the replay so.
    pub fn as_its_release_kept(&mut self, stored: &Snapshot) {
        if stored.data.openings.is_empty() {
            self.data.openings.clear();
        }
        if stored.data.liability_openings.is_empty() {
            self.data.liability_openings = Default::default();
        }
        as_sheets_were_kept(&stored.data, &mut self.data);
        if !stored.data.series_numbered {
            self.data.as_an_earlier_release_kept();
            // An earlier release opened a journal opened from a statement on the fresh pools'
            // figures instead of the carried ones: its openings are taken as it kept them.
            self.data.openings = stored.data.openings.clone();
        }
    }
}

impl Data {
    /// This state as a release before the series were numbered kept it: no series records, and
    /// none of what came with them (the tables a change retired, kept for their reports).
    pub fn as_an_earlier_release_kept(&mut self) {
        self.series_numbered = false;
        self.series = Default::default();
        self.retired_tables = Default::default();
        for table in self.tables.values_mut() {
            for seat in &mut table.seats {
                seat.series_id = None;
            }
        }
    }
}

/// A snapshot stored by a release before the closing sheets (no `sheets_from`), or by this one
/// on a journal such a release began (`sheets_from` a jornada: the sheets are whole from it on),
/// has none of their records for the jornadas before: the replayed state, which has them from
/// the first entry, is compared without them there. Meters the records alone made (a table only
/// opened or closed in a jornada) are left out where the stored snapshot has none.
fn as_sheets_were_kept(stored: &Data, replayed: &mut Data) {
    let from = match stored.sheets_from.as_deref() {
        Some("") => return,
        from => from,
    };
    replayed.sheets_from = stored.sheets_from.clone();
    let days = std::mem::take(&mut replayed.days);
    replayed.days = days
        .into_iter()
        .filter_map(|(jornada, tables)| {
            if from.is_some_and(|from| jornada.as_str() >= from) {
                return Some((jornada, tables));
            }
            let kept = stored.days.get(&jornada);
            let tables: crate::state::model::TableDays = tables
                .iter()
                .map(|(table, day)| (table, day.without_sheet()))
                .filter(|(table, day)| kept.is_some_and(|kept| kept.contains_key(*table)) || *day != Default::default())
                .map(|(table, day)| (table.clone(), Arc::new(day)))
                .collect();
            (kept.is_some() || !tables.is_empty()).then_some((jornada, tables))
        })
        .collect();
}
