//! The casino layout as written: its flores, salons and tables, the pool each table feeds, and
//! the limits on them.

use pozo_engine::Game;
use pozo_engine::{PoolId, TableId};
use serde::{Deserialize, Serialize};

/// The default casino layout, compiled in.
pub const LAYOUT_EMBEDDED: (&str, &str) = ("config/casino.toml", include_str!("../../../../config/casino.toml"));

/// The most tables one server keeps; every per-table structure is bounded by it.
pub const TABLES_MAX: usize = 4096;

/// A flor is a module of four tables (glossary of Res. 1452/12).
pub(crate) const FLOR_TABLES_MAX: usize = 4;

/// The most salons one layout declares (`[[salon]]`); every per-salon structure is bounded by it.
pub(crate) const SALONS_MAX: usize = 32;

/// The id of the one salon every table belongs to when the layout declares none; it is
/// named after the layout's `casino`.
pub(crate) const IMPLICIT_SALON: &str = "principal";

/// The longest salon name, in characters (it is shown on the signs).
pub(crate) const SALON_NAME_MAX: usize = 64;

/// The largest layout or rulebook file read.
pub const CONFIG_FILE_BYTES_MAX: u64 = 4 * 1024 * 1024;

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    pub casino: String,
    /// The casino's time zone, an IANA name ("America/Argentina/Buenos_Aires",
    /// "Europe/Madrid"): jornadas, hourly statistics and report dates are civil
    /// time there, daylight saving included (see [`crate::jornada`]).
    pub time_zone: String,
    /// The casino day starts at this local civil hour (0–23).
    pub jornada_starts_hour: u32,
    /// The salons (rooms of the casino, each with its own flores and tables), when there are
    /// several: a pool whose tables are in more than one is a wide-area pool. None declared:
    /// every table is in one salon, [`IMPLICIT_SALON`] (docs/operations.md §17).
    #[serde(rename = "salon", default, skip_serializing_if = "Vec::is_empty")]
    pub salons: Vec<SalonConfig>,
    #[serde(rename = "table")]
    pub tables: Vec<TableConfig>,
}

/// A `[[salon]]` of the layout.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SalonConfig {
    /// What tables, the display feed and the signs' URLs name it by: 1–32 letters, digits or '-'.
    pub id: String,
    /// What the signs and reports show: "Salón Central".
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TableConfig {
    pub id: TableId,
    pub flor: String,
    pub pool: PoolId,
    pub game: Game,
    pub seats: u32,
    /// The salon the table is in: required when the layout declares salons, refused when it
    /// declares none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub salon: Option<String>,
    /// `false`: out of service by an approved change (docs/operations.md §8): its agent's
    /// commands are refused until another change puts it back.
    #[serde(default = "in_service", skip_serializing_if = "is_in_service")]
    pub in_service: bool,
}

impl TableConfig {
    /// A table a change adds, in service once the change is in force; an empty `salon` is
    /// none (the layout's checks then say whether one is needed).
    pub fn added(id: &str, flor: &str, pool: &str, game: Game, seats: u32, salon: &str) -> TableConfig {
        let salon = salon.trim();
        TableConfig {
            id: id.trim().into(),
            flor: flor.trim().to_owned(),
            pool: pool.trim().into(),
            game,
            seats,
            salon: (!salon.is_empty()).then(|| salon.to_owned()),
            in_service: true,
        }
    }
}

fn in_service() -> bool {
    true
}

fn is_in_service(in_service: &bool) -> bool {
    *in_service
}

/// A salon as the configuration resolved it: the declared ones, or the one implicit salon.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Salon {
    pub id: String,
    pub name: String,
    /// Its tables, in the layout's order.
    pub tables: Vec<TableId>,
    /// The pools its tables feed, in the rulebooks' order: what its signs show. A wide-area
    /// pool is in the list of every salon that feeds it.
    pub pools: Vec<PoolId>,
}
