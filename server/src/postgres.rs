//! The journal on PostgreSQL (`--store postgres://…`): the same [`Store`] as sled's, kept in
//! three tables (`server/migrations/`, applied by refinery when a controller first opens the
//! database; docs/journal.md, "On PostgreSQL").
//!
//! - An append is one statement: the entries and the new tip record commit together or not
//!   at all, and are durable when it returns (PostgreSQL's `synchronous_commit`, on by default).
//! - The entries' primary key is the fence: two writers can never both commit entry N; the
//!   second is refused ([`StoreError::Fenced`]) and its writer stops.
//! - One writer at a time: the controller that opens the journal holds a session advisory
//!   lock for as long as its connection lives; another is refused with
//!   [`StoreError::WriterElsewhere`]. A writer killed loses its connection, and the lock with it.
//!
//! The connection is driven on a runtime of its own (one thread), so that the trait's
//! synchronous reads can wait for it from any thread, a runtime's own included.

use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use tokio_postgres::NoTls;

use crate::store::{Store, StoreError, Stored};

/// The advisory lock the writer holds: "pozo" in ASCII, then "wr".
pub const WRITER_LOCK: i64 = 0x706f_7a6f_7772;

/// How often a standby asks for the writer's lock.
pub const STANDBY_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// Entries read back per query when the journal is read in order.
const PAGE_ENTRIES: i64 = 4_096;

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// The journal in a PostgreSQL database.
pub struct PgStore {
    client: Arc<tokio_postgres::Client>,
    /// Drives the connection; shut down on drop, which closes it (and lets go of the writer lock).
    runtime: Option<tokio::runtime::Runtime>,
    /// Where, for messages: host, port and database, never the password.
    database: String,
}

/// `postgres://user:secret@host:port/db` as `host:port/db`, for messages and logs.
pub fn describe(url: &str) -> String {
    match url.parse::<tokio_postgres::Config>() {
        Ok(config) => {
            let host = config
                .get_hosts()
                .first()
                .map(|host| match host {
                    tokio_postgres::config::Host::Tcp(name) => name.clone(),
                    tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
                })
                .unwrap_or_default();
            let port = config.get_ports().first().copied().unwrap_or(5432);
            format!("postgres://{host}:{port}/{}", config.get_dbname().unwrap_or_default())
        }
        Err(_) => "postgres://(unreadable address)".to_owned(),
    }
}

fn postgres(what: &str, database: &str) -> impl FnOnce(tokio_postgres::Error) -> StoreError {
    let what = format!("{database}: {what}");
    move |error| StoreError::Postgres { what, error }
}

impl PgStore {
    /// Connects, applies the migrations this database has not had, and takes the writer's
    /// lock: refused with [`StoreError::WriterElsewhere`] while another controller holds it.
    pub fn open(url: &str) -> Result<Arc<PgStore>, StoreError> {
        let store = PgStore::connect(url, true)?;
        let locked: bool = store
            .run(|client| async move { client.query_one("SELECT pg_try_advisory_lock($1)", &[&WRITER_LOCK]).await })
            .map_err(store.error("cannot take the writer's lock"))?
            .get(0);
        if !locked {
            return Err(StoreError::WriterElsewhere { database: store.database.clone() });
        }
        Ok(Arc::new(store))
    }

    /// [`PgStore::open`] for a standby (`serve --standby`): while another controller is the
    /// writer, waits, asking for the writer's lock every [`STANDBY_POLL`], and returns once it
    /// holds it. A writer killed lets go of the lock with its connection, so the standby takes
    /// over within about one poll. `waiting` is called once, when the first ask is refused.
    pub fn open_when_writer(url: &str, waiting: impl FnOnce(&str)) -> Result<Arc<PgStore>, StoreError> {
        let store = PgStore::connect(url, true)?;
        let mut waiting = Some(waiting);
        loop {
            let locked: bool = store
                .run(|client| async move { client.query_one("SELECT pg_try_advisory_lock($1)", &[&WRITER_LOCK]).await })
                .map_err(store.error("cannot take the writer's lock"))?
                .get(0);
            if locked {
                return Ok(Arc::new(store));
            }
            if let Some(waiting) = waiting.take() {
                waiting(&store.database);
            }
            std::thread::sleep(STANDBY_POLL);
        }
    }

    /// Connects, its connection driven on a runtime of its own; with `migrate`, brings the
    /// journal's tables up to date first.
    fn connect(url: &str, migrate: bool) -> Result<PgStore, StoreError> {
        let database = describe(url);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("pozo-postgres")
            .enable_all()
            .build()
            .map_err(|error| StoreError::Io { path: "(the PostgreSQL connection's runtime)".into(), error })?;
        let config: tokio_postgres::Config =
            url.parse().map_err(postgres("not a PostgreSQL address (postgres://user@host:port/database)", &database))?;
        let (mut client, connection) =
            wait(&runtime, async move { config.connect(NoTls).await }).map_err(postgres("cannot connect", &database))?;
        let described = database.clone();
        runtime.spawn(async move {
            if let Err(error) = connection.await {
                tracing::error!(database = %described, %error, "the PostgreSQL connection ended");
            }
        });
        if migrate {
            let (migrated, report) = wait(&runtime, async move {
                let report = embedded::migrations::runner().run_async(&mut client).await;
                (client, report)
            });
            report.map_err(|error| StoreError::Migrations { database: database.clone(), problem: error.to_string() })?;
            client = migrated;
        }
        Ok(PgStore { client: Arc::new(client), runtime: Some(runtime), database })
    }

    /// Connects for reading only (`verify`): a read-only session, no migration and no writer's
    /// lock, so it may read while the writer serves. Refused if the database has no journal.
    pub fn open_reader(url: &str) -> Result<Arc<PgStore>, StoreError> {
        let store = PgStore::connect(url, false)?;
        store
            .run(|client| async move { client.batch_execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY").await })
            .map_err(store.error("cannot start a read-only session"))?;
        let present: bool = store
            .run(|client| async move { client.query_one("SELECT to_regclass('pozo_journal') IS NOT NULL", &[]).await })
            .map_err(store.error("cannot look for the journal's tables"))?
            .get(0);
        if !present {
            return Err(StoreError::Migrations {
                database: store.database.clone(),
                problem: "no Pozo journal in this database (no table pozo_journal)".to_owned(),
            });
        }
        Ok(Arc::new(store))
    }

    /// The database, described (`postgres://host:port/database`).
    pub fn database(&self) -> &str {
        &self.database
    }

    /// Runs `query` on the connection's runtime and waits for it, from any thread.
    fn run<F, T>(&self, query: impl FnOnce(Arc<tokio_postgres::Client>) -> F) -> T
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        wait(self.runtime.as_ref().expect("the runtime lives as long as the store"), query(Arc::clone(&self.client)))
    }

    fn error(&self, what: &str) -> impl FnOnce(tokio_postgres::Error) -> StoreError {
        postgres(what, &self.database)
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        // The store may be dropped on a runtime's thread (the server's, stopping): its own
        // runtime is let go without waiting, which closes the connection.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Spawns `future` on `runtime` and blocks this thread until it is done: allowed on any
/// thread, a tokio worker's included, because the future runs on `runtime`'s own thread.
fn wait<T: Send + 'static>(runtime: &tokio::runtime::Runtime, future: impl Future<Output = T> + Send + 'static) -> T {
    futures_executor::block_on(runtime.spawn(future)).expect("a PostgreSQL query's task is never cancelled")
}

/// The SQLSTATE of a primary key already taken.
fn is_unique_violation(error: &tokio_postgres::Error) -> bool {
    error.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION)
}

impl Store for PgStore {
    fn append(&self, entries: Vec<Stored>, tip: Vec<u8>) -> BoxFuture<'_, Result<(), StoreError>> {
        let client = Arc::clone(&self.client);
        Box::pin(async move {
            let first = entries.first().map(|(sequence, _)| *sequence).unwrap_or(0);
            let sequences: Vec<i64> = entries.iter().map(|(sequence, _)| *sequence as i64).collect();
            let bytes: Vec<&[u8]> = entries.iter().map(|(_, bytes)| bytes.as_slice()).collect();
            // One statement, one implicit transaction: the entries and the tip, or nothing.
            let result = client
                .execute(
                    "WITH entries AS (
                         INSERT INTO pozo_journal (sequence, entry) SELECT * FROM unnest($1::bigint[], $2::bytea[])
                     )
                     INSERT INTO pozo_tip (only_row, record) VALUES (TRUE, $3)
                     ON CONFLICT (only_row) DO UPDATE SET record = excluded.record",
                    &[&sequences, &bytes, &tip],
                )
                .await;
            match result {
                Ok(_) => Ok(()),
                Err(error) if is_unique_violation(&error) => Err(StoreError::Fenced { first, database: self.database.clone() }),
                Err(error) => Err(self.error("cannot append to the journal")(error)),
            }
        })
    }

    fn put_tip(&self, tip: Vec<u8>) -> BoxFuture<'_, Result<(), StoreError>> {
        let client = Arc::clone(&self.client);
        Box::pin(async move {
            client
                .execute(
                    "INSERT INTO pozo_tip (only_row, record) VALUES (TRUE, $1)
                     ON CONFLICT (only_row) DO UPDATE SET record = excluded.record",
                    &[&tip],
                )
                .await
                .map_err(self.error("cannot write the tip record"))?;
            Ok(())
        })
    }

    fn tip(&self) -> Result<Option<Vec<u8>>, StoreError> {
        let row = self
            .run(|client| async move { client.query_opt("SELECT record FROM pozo_tip", &[]).await })
            .map_err(self.error("cannot read the tip record"))?;
        Ok(row.map(|row| row.get(0)))
    }

    fn entry(&self, sequence: u64) -> Result<Option<Vec<u8>>, StoreError> {
        let sequence = sequence as i64;
        let row =
            self.run(|client| async move {
                client.query_opt("SELECT entry FROM pozo_journal WHERE sequence = $1", &[&sequence]).await
            })
            .map_err(self.error("cannot read an entry"))?;
        Ok(row.map(|row| row.get(0)))
    }

    fn last(&self) -> Result<Option<Stored>, StoreError> {
        let row = self
            .run(|client| async move {
                client.query_opt("SELECT sequence, entry FROM pozo_journal ORDER BY sequence DESC LIMIT 1", &[]).await
            })
            .map_err(self.error("cannot read the last entry"))?;
        Ok(row.map(|row| (row.get::<_, i64>(0) as u64, row.get(1))))
    }

    fn after(&self, after: u64) -> Box<dyn Iterator<Item = Result<Stored, StoreError>> + Send + '_> {
        // Page by page, in order: never the whole journal in memory.
        let mut from = after as i64;
        let mut page: std::vec::IntoIter<Stored> = Vec::new().into_iter();
        let mut done = false;
        Box::new(std::iter::from_fn(move || {
            loop {
                if let Some(item) = page.next() {
                    return Some(Ok(item));
                }
                if done {
                    return None;
                }
                let start = from;
                let rows = self.run(|client| async move {
                    client
                        .query(
                            "SELECT sequence, entry FROM pozo_journal WHERE sequence > $1 ORDER BY sequence LIMIT $2",
                            &[&start, &PAGE_ENTRIES],
                        )
                        .await
                });
                let rows = match rows {
                    Ok(rows) => rows,
                    Err(error) => {
                        done = true;
                        return Some(Err(self.error("cannot read the journal")(error)));
                    }
                };
                done = (rows.len() as i64) < PAGE_ENTRIES;
                let entries: Vec<Stored> = rows.iter().map(|row| (row.get::<_, i64>(0) as u64, row.get(1))).collect();
                if let Some((last, _)) = entries.last() {
                    from = *last as i64;
                }
                page = entries.into_iter();
            }
        }))
    }

    fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let key = key.to_owned();
        let row = self
            .run(|client| async move { client.query_opt("SELECT value FROM pozo_meta WHERE key = $1", &[&key]).await })
            .map_err(self.error("cannot read a meta value"))?;
        Ok(row.map(|row| row.get(0)))
    }

    fn put_meta(&self, values: Vec<(&'static str, Vec<u8>)>) -> Result<(), StoreError> {
        let keys: Vec<&'static str> = values.iter().map(|(key, _)| *key).collect();
        let bytes: Vec<Vec<u8>> = values.into_iter().map(|(_, value)| value).collect();
        self.run(|client| async move {
            client
                .execute(
                    "INSERT INTO pozo_meta (key, value) SELECT * FROM unnest($1::text[], $2::bytea[])
                     ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    &[&keys, &bytes],
                )
                .await
        })
        .map_err(self.error("cannot write meta values"))?;
        Ok(())
    }

    fn flush(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        // Every statement above is durable when it returns: nothing is left to flush.
        Box::pin(async { Ok(()) })
    }
}

#[cfg(test)]
mod tests {
    use super::describe;

    #[test]
    fn an_address_is_described_without_its_password() {
        let url = "postgres://pozo:s3creto@db.salon:5433/pozo";
        assert_eq!(describe(url), "postgres://db.salon:5433/pozo");
        assert_eq!(describe("postgres://pozo@127.0.0.1/salon"), "postgres://127.0.0.1:5432/salon");
        let choice = crate::writer::StoreChoice { url: url.into(), standby: true, opened: None };
        let shown = format!("{choice:?} {:?}", crate::ServeOptions { store: Some(choice.clone()), ..Default::default() });
        assert!(!shown.contains("s3creto") && shown.contains("db.salon:5433/pozo"), "{shown}");
    }
}
