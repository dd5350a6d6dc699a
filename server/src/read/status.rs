//! How a running controller is, as `GET /status` on the pages' listener answers (JSON) and
//! `pozo-server status` prints it (docs/operations.md §2, "Is it up?").
//!
//! The same types are written by the server and read by the command, so the two cannot
//! drift; a field a newer server adds is ignored by an older command. Amounts travel as decimal strings (`"12345.67"`), never floats; the text form
//! writes them the Argentine way (`$ 12.345,67`).

use pozo_engine::Money;
use pozo_engine::format_ars;
use serde::{Deserialize, Serialize};

/// A controller's status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    /// The writer takes commands: false once it stopped (a failed disk, a stop under way).
    pub serving: bool,
    /// `writer`, or `standby`: a hot standby following the writer's journal in PostgreSQL,
    /// serving reads and the signs, refusing commands (docs/operations.md §16).
    #[serde(default = "writer")]
    pub role: String,
    pub casino: String,
    /// The gRPC address the controller listens on.
    pub listen: String,
    pub journal: JournalStatus,
    pub pools: Vec<PoolStatus>,
    pub tables: Vec<TableStatus>,
    /// Tables whose agent has its watch open.
    pub(crate) agents_connected: usize,
    /// Display feeds open (gRPC and the signs' pages).
    pub displays_watching: i64,
    /// Payout orders PENDIENTE DE PAGO, oldest first.
    pub pending_payouts: Vec<PendingPayout>,
    /// The build serving: its version and the SHA-256 of its executable (docs/operations.md §8).
    #[serde(default)]
    pub build: BuildStatus,
    /// Changes waiting for approval or scheduled for their moment, oldest first.
    #[serde(default)]
    pub changes: Vec<ChangeStatus>,
    /// The files in force by their stable names, layout first: what a change of a whole file
    /// names (`pozo-server change propose --file iplyc.toml=PATH`, docs/operations.md §8).
    #[serde(default)]
    pub files: Vec<String>,
    /// The current jornada's books (`Reports/Reconciliation`): tied to zero, or which pools are off.
    #[serde(default)]
    pub books: BooksStatus,
    /// What the casino owes its players now (`Reports/Liability`), and how it changed since the
    /// current jornada opened.
    #[serde(default)]
    pub liability: LiabilityStatus,
}

/// The liability statement's foot: its total, its parts, and their change since the jornada opened.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiabilityStatus {
    /// The jornada whose opening `change` is counted from.
    pub jornada: String,
    /// The parts added (docs/readings.md, "The liability to players").
    #[serde(serialize_with = "money")]
    pub total: Money,
    pub parts: LiabilityParts,
    /// Now less as the jornada opened, part by part; `null` when its opening is not kept.
    #[serde(default)]
    pub change: Option<LiabilityChange>,
}

/// The liability's parts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiabilityParts {
    /// Owed in the pools: each balance above its minimum, and the reserves.
    #[serde(serialize_with = "money")]
    pub pools: Money,
    /// Payout orders PENDIENTE DE PAGO.
    #[serde(serialize_with = "money")]
    pub pending_orders: Money,
    /// Credits held at the seats.
    #[serde(serialize_with = "money")]
    pub credits: Money,
    /// Stakes pressed, not yet registered.
    #[serde(serialize_with = "money")]
    pub stakes: Money,
    /// Held in custody by the tables' banks.
    #[serde(serialize_with = "money")]
    pub custody: Money,
    /// Grillos held at the roulette seats: counted, no amount.
    #[serde(default)]
    pub grillos: u64,
}

/// How the liability changed: the total and each part, signed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiabilityChange {
    #[serde(serialize_with = "money")]
    pub total: Money,
    #[serde(serialize_with = "money")]
    pub pools: Money,
    #[serde(serialize_with = "money")]
    pub pending_orders: Money,
    #[serde(serialize_with = "money")]
    pub credits: Money,
    #[serde(serialize_with = "money")]
    pub stakes: Money,
    #[serde(serialize_with = "money")]
    pub custody: Money,
}

impl LiabilityStatus {
    /// The status line: "Pasivo con los jugadores: $ 12.345,67 (…)".
    pub fn text(&self) -> String {
        let parts = &self.parts;
        let mut line = format!(
            "Pasivo con los jugadores: {} (pozos {}, órdenes pendientes {}, créditos {}, apuestas marcadas {}, custodia {}",
            format_ars(self.total),
            format_ars(parts.pools),
            format_ars(parts.pending_orders),
            format_ars(parts.credits),
            format_ars(parts.stakes),
            format_ars(parts.custody)
        );
        if parts.grillos > 0 {
            line.push_str(&format!("; {} grillos en juego, sin importe", parts.grillos));
        }
        match &self.change {
            Some(change) => {
                let sign = if change.total > Money::ZERO { "+" } else { "" };
                line.push_str(&format!(
                    "); desde la apertura de la jornada {}: {sign}{}",
                    self.jornada,
                    format_ars(change.total)
                ));
            }
            None => line.push_str(&format!("); sin apertura registrada de la jornada {}", self.jornada)),
        }
        line
    }
}

/// Whether the current jornada's books tie to zero on every pool.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BooksStatus {
    pub jornada: String,
    /// Every pool's difference is zero; false also when the jornada's opening is not kept.
    pub tied: bool,
    /// The pools whose books do not tie, and by how much: a bug (docs/rules.md).
    #[serde(default)]
    pub off: Vec<PoolOff>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolOff {
    pub pool: String,
    #[serde(serialize_with = "money")]
    pub difference: Money,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildStatus {
    pub version: String,
    pub sha256: String,
}

/// A change not yet in force.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeStatus {
    pub proposal_id: String,
    /// "PENDIENTE DE APROBACIÓN" or "PROGRAMADO".
    pub status: String,
    pub summary: String,
    /// When a scheduled one takes effect, in plain Spanish.
    pub effect: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalStatus {
    pub journal_id: String,
    /// Entries durable and acknowledged.
    pub entries: u64,
    /// The hash of the last entry, hex.
    pub tip: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolStatus {
    pub pool: String,
    pub name: String,
    #[serde(serialize_with = "money")]
    pub balance: Money,
    /// What the signs show (balance × factor).
    #[serde(serialize_with = "money")]
    pub displayed: Money,
    /// A pool with levels: each level's meter, first level first, never the house's
    /// (docs/readings.md, "Levels"); empty for a pool of one level, and absent from an earlier
    /// controller's status.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<LevelStatus>,
}

/// One level of a pool with levels, as the status lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelStatus {
    /// As the rulebook names it ("Grand").
    pub name: String,
    #[serde(serialize_with = "money")]
    pub balance: Money,
    /// Its meter on the signs.
    #[serde(serialize_with = "money")]
    pub displayed: Money,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableStatus {
    pub table: String,
    pub pool: String,
    pub game: String,
    /// `cerrada`, `apuestas`, `en juego`, `aceptado`.
    pub state: String,
    pub agent_connected: bool,
    /// Open, but its agent is away: its panels are suspended (3.7.5).
    pub suspended: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingPayout {
    pub order_id: String,
    pub pool: String,
    pub table: String,
    pub seat: u32,
    pub code: String,
    #[serde(serialize_with = "money")]
    pub amount: Money,
}

/// The role of a controller that does not say (an earlier one): the writer.
fn writer() -> String {
    "writer".to_owned()
}

/// An amount as the gRPC services write it (`"4005.20"`: at least two decimals).
fn money<S: serde::Serializer>(amount: &Money, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&pozo_engine::money::plain_text(*amount))
}

impl Status {
    /// The status for a person, in the operators' Spanish.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let state = match (self.serving, self.role.as_str()) {
            (false, _) => "DETENIDO: no toma comandos",
            (true, "standby") => "EN ESPERA (standby): sigue el diario del controlador activo, no toma comandos",
            (true, _) => "EN SERVICIO",
        };
        out.push_str(&format!("{} — controlador {}: {state}\n", self.casino, self.listen));
        if !self.build.version.is_empty() {
            let sha = self.build.sha256.get(..16).unwrap_or(&self.build.sha256);
            out.push_str(&format!("Versión {} (ejecutable SHA-256 {sha}…)\n", self.build.version));
        }
        let tip = self.journal.tip.get(..16).unwrap_or(&self.journal.tip);
        let entries =
            if self.journal.entries == 1 { "1 entrada".to_owned() } else { format!("{} entradas", self.journal.entries) };
        out.push_str(&format!("Diario {}: {entries}, última {tip}…\n", self.journal.journal_id));
        out.push_str("Pozos:\n");
        for pool in &self.pools {
            out.push_str(&format!(
                "  {:<22} cartel {:>16}   saldo {:>16}   {}\n",
                pool.pool,
                format_ars(pool.displayed),
                format_ars(pool.balance),
                pool.name
            ));
            for level in &pool.levels {
                out.push_str(&format!(
                    "    {:<20} cartel {:>16}   saldo {:>16}\n",
                    level.name,
                    format_ars(level.displayed),
                    format_ars(level.balance)
                ));
            }
        }
        let open = self.tables.iter().filter(|table| table.state != "cerrada").count();
        out.push_str(&format!(
            "Mesas: {} ({open} abiertas, {} con agente conectado); carteles conectados: {}\n",
            self.tables.len(),
            self.agents_connected,
            self.displays_watching
        ));
        for table in self.tables.iter().filter(|table| table.state != "cerrada" || table.agent_connected) {
            let agent = if table.suspended {
                "SUSPENDIDA: sin agente"
            } else if table.agent_connected {
                "agente conectado"
            } else {
                "sin agente"
            };
            out.push_str(&format!("  {:<6} {:<12} {:<10} {agent}\n", table.table, table.game, table.state));
        }
        if !self.files.is_empty() {
            out.push_str(&format!("Archivos en vigor: {}\n", self.files.join(", ")));
        }
        if !self.changes.is_empty() {
            out.push_str(&format!("Cambios sin aplicar: {}\n", self.changes.len()));
            for change in &self.changes {
                let effect = if change.effect.is_empty() { String::new() } else { format!(" ({})", change.effect) };
                out.push_str(&format!("  {} {}: {}{effect}\n", change.proposal_id, change.status, change.summary));
            }
        }
        if self.books.tied {
            out.push_str(&format!("Libros de la jornada {}: cuadran en cero en todos los pozos\n", self.books.jornada));
        } else if self.books.off.is_empty() {
            out.push_str(&format!("Libros de la jornada {}: sin apertura registrada en este diario\n", self.books.jornada));
        } else {
            out.push_str(&format!("Libros de la jornada {}: NO CUADRAN (un error del programa)\n", self.books.jornada));
            for off in &self.books.off {
                out.push_str(&format!("  {:<22} diferencia {}\n", off.pool, format_ars(off.difference)));
            }
        }
        out.push_str(&self.liability.text());
        out.push('\n');
        out.push_str(&format!("Pagos pendientes (PENDIENTE DE PAGO): {}\n", self.pending_payouts.len()));
        for order in &self.pending_payouts {
            out.push_str(&format!(
                "  {}  mesa {} puesto {}  {}  {}\n",
                order.order_id,
                order.table,
                order.seat,
                order.code,
                format_ars(order.amount)
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(role: &str) -> Status {
        Status {
            serving: true,
            role: role.to_owned(),
            casino: "Casino de prueba".to_owned(),
            listen: "127.0.0.1:50051".to_owned(),
            journal: JournalStatus { journal_id: "j-1".to_owned(), entries: 7, tip: "ab".repeat(32) },
            pools: Vec::new(),
            tables: Vec::new(),
            agents_connected: 0,
            displays_watching: 0,
            pending_payouts: Vec::new(),
            build: BuildStatus { version: "0.1.0".to_owned(), sha256: "cd".repeat(32) },
            changes: vec![ChangeStatus {
                proposal_id: "CB-000001".to_owned(),
                status: "PROGRAMADO".to_owned(),
                summary: "Pozo iplyc-blackjack — mínimo: $ 5.000,00 → $ 6.000,00".to_owned(),
                effect: "tras el próximo premio mayor del pozo, fuera de toda jugada".to_owned(),
            }],
            files: vec!["casino.toml".to_owned(), "iplyc.toml".to_owned()],
            books: BooksStatus {
                jornada: "2026-11-27".to_owned(),
                tied: false,
                off: vec![PoolOff { pool: "iplyc-blackjack".to_owned(), difference: "0.01".parse().expect("money") }],
            },
            liability: LiabilityStatus {
                jornada: "2026-11-27".to_owned(),
                total: "12345.67".parse().expect("money"),
                parts: LiabilityParts {
                    pools: "10000.00".parse().expect("money"),
                    pending_orders: "2000.00".parse().expect("money"),
                    credits: "300.00".parse().expect("money"),
                    stakes: "10.00".parse().expect("money"),
                    custody: "35.67".parse().expect("money"),
                    grillos: 3,
                },
                change: Some(LiabilityChange { total: "-150.50".parse().expect("money"), ..LiabilityChange::default() }),
            },
        }
    }

    /// The liability in one line, the Argentine way, with its parts and its change.
    #[test]
    fn the_text_says_what_is_owed_to_the_players_and_how_it_changed() {
        let text = status("writer").text();
        assert!(
            text.contains(
                "Pasivo con los jugadores: $ 12.345,67 (pozos $ 10.000,00, órdenes pendientes $ 2.000,00, créditos $ 300,00, \
                 apuestas marcadas $ 10,00, custodia $ 35,67; 3 grillos en juego, sin importe); desde la apertura de la \
                 jornada 2026-11-27: -$ 150,50\n"
            ),
            "{text}"
        );
        let json = serde_json::to_value(status("writer")).expect("JSON");
        assert_eq!(json["liability"]["total"], "12345.67");
        assert_eq!(json["liability"]["parts"]["custody"], "35.67");
        assert_eq!(json["liability"]["change"]["total"], "-150.50");
    }

    /// Books that do not tie are shown as what they are, a bug, with each pool's difference.
    #[test]
    fn the_text_says_when_the_books_do_not_tie_and_by_how_much() {
        let text = status("writer").text();
        assert!(text.contains("Libros de la jornada 2026-11-27: NO CUADRAN"), "{text}");
        assert!(text.contains("iplyc-blackjack") && text.contains("diferencia $ 0,01"), "{text}");
    }

    /// A pool with levels lists each level's meter under its line; one of one level lists none.
    #[test]
    fn the_text_lists_each_level_of_a_pool_with_levels() {
        let mut status = status("writer");
        let pool = |id: &str, levels: Vec<LevelStatus>| PoolStatus {
            pool: id.to_owned(),
            name: id.to_owned(),
            balance: "2000600.00".parse().expect("money"),
            displayed: "2000480.00".parse().expect("money"),
            levels,
        };
        let grand = LevelStatus {
            name: "Grand".to_owned(),
            balance: "2000480.00".parse().expect("money"),
            displayed: "2000480.00".parse().expect("money"),
        };
        status.pools = vec![pool("mercado-blackjack", vec![grand]), pool("iplyc-blackjack", Vec::new())];
        let text = status.text();
        assert!(text.contains("\n    Grand                cartel   $ 2.000.480,00   saldo   $ 2.000.480,00\n"), "{text}");
        assert_eq!(text.matches("\n    ").count(), 1, "{text}");
        let json = serde_json::to_value(&status).expect("JSON");
        assert_eq!(json["pools"][0]["levels"][0]["displayed"], "2000480.00");
        assert!(json["pools"][1].get("levels").is_none(), "a pool of one level lists none: {json}");
    }

    #[test]
    fn the_text_names_the_build_and_the_changes_not_yet_in_force() {
        let text = status("writer").text();
        assert!(text.contains("Versión 0.1.0 (ejecutable SHA-256 cdcdcdcdcdcdcdcd…)"), "{text}");
        assert!(
            text.contains(
                "  CB-000001 PROGRAMADO: Pozo iplyc-blackjack — mínimo: $ 5.000,00 → $ 6.000,00 (tras el próximo premio mayor"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_standby_says_it_takes_no_command_and_an_earlier_server_is_the_writer() {
        assert!(status("standby").text().contains("EN ESPERA (standby)"), "{}", status("standby").text());
        assert!(status("writer").text().contains("EN SERVICIO"));
        let mut json = serde_json::to_value(status("standby")).expect("JSON");
        assert_eq!(json["role"], "standby");
        json.as_object_mut().expect("an object").remove("role");
        let earlier: Status = serde_json::from_value(json).expect("a status without a role");
        assert_eq!(earlier.role, "writer");
    }
}

/// What a controller is to its journal: the one writer, or a hot standby that follows the
/// writer's journal in PostgreSQL, serves reads and the signs, refuses commands, and takes
/// over when the writer's lock is let go (docs/journal.md, "On PostgreSQL").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Writer,
    Standby,
}

impl Role {
    /// As `/status` and the metrics say it.
    pub fn name(self) -> &'static str {
        match self {
            Role::Writer => "writer",
            Role::Standby => "standby",
        }
    }
}
