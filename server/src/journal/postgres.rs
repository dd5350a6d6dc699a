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
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use tokio_postgres::NoTls;

use crate::journal::store::{Candidate, Shared, Store, StoreError, Stored};

/// The advisory lock the writer holds: "pozo" in ASCII, then "wr".
pub const WRITER_LOCK: i64 = 0x706f_7a6f_7772;

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
    /// Meta values written by [`Store::put_meta`], committed with the next append, tip or
    /// flush, as the trait says (a journal's identity is never committed without its genesis).
    pending_meta: Mutex<Vec<(&'static str, Vec<u8>)>>,
    /// The last page of entries read, in order: committed entries never change, so a reader
    /// that goes on where it stopped (replay, `verify` entry by entry) is served from it
    /// instead of asking for the same page again.
    page: Mutex<Vec<Stored>>,
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
    /// Connects, takes the writer's lock (refused with [`StoreError::WriterElsewhere`] while
    /// another controller holds it), then applies the migrations this database has not had:
    /// only the writer changes the schema.
    pub fn open(url: &str) -> Result<Arc<PgStore>, StoreError> {
        let (runtime, client, database) = PgStore::connect(url)?;
        let (client, locked) = try_lock(&runtime, client);
        if !locked.map_err(postgres("cannot take the writer's lock", &database))? {
            runtime.shutdown_background();
            return Err(StoreError::WriterElsewhere { database });
        }
        PgStore::migrated(runtime, client, database)
    }

    /// The store, once the writer's lock is held: the migrations applied first.
    fn migrated(
        runtime: tokio::runtime::Runtime,
        mut client: tokio_postgres::Client,
        database: String,
    ) -> Result<Arc<PgStore>, StoreError> {
        let (client, report) = wait(&runtime, async move {
            let report = embedded::migrations::runner().run_async(&mut client).await;
            (client, report)
        });
        if let Err(error) = report {
            runtime.shutdown_background();
            return Err(StoreError::Migrations { database, problem: error.to_string() });
        }
        Ok(Arc::new(PgStore::on(runtime, client, database)))
    }

    /// The store over a connection and the runtime that drives it.
    fn on(runtime: tokio::runtime::Runtime, client: tokio_postgres::Client, database: String) -> PgStore {
        PgStore {
            client: Arc::new(client),
            runtime: Some(runtime),
            database,
            pending_meta: Mutex::default(),
            page: Mutex::default(),
        }
    }

    /// Connects a session that only reads, set up by `setup` (`what` it does, for its error),
    /// refused if the database has no journal: `verify`'s reader and a standby's follower.
    fn read_only(url: &str, setup: &'static str, what: &str) -> Result<Arc<PgStore>, StoreError> {
        let (runtime, client, database) = PgStore::connect(url)?;
        let store = PgStore::on(runtime, client, database);
        store.run(|client| async move { client.batch_execute(setup).await }).map_err(store.error(what))?;
        store.require_journal()?;
        Ok(Arc::new(store))
    }

    /// Connects, its connection driven on a runtime of its own. The session commits durably
    /// whatever the database's default (`synchronous_commit = on`), and a connection that goes
    /// silent is found dead within seconds (TCP keepalives and user timeout), so that a writer
    /// cut off from the database stops and lets a standby take over.
    fn connect(url: &str) -> Result<(tokio::runtime::Runtime, tokio_postgres::Client, String), StoreError> {
        let database = describe(url);
        let mut config: tokio_postgres::Config = url.parse().map_err(|_| StoreError::Address { database: database.clone() })?;
        config
            .keepalives(true)
            .keepalives_idle(std::time::Duration::from_secs(5))
            .keepalives_interval(std::time::Duration::from_secs(2))
            .keepalives_retries(3)
            .tcp_user_timeout(std::time::Duration::from_secs(10))
            .options("-c synchronous_commit=on")
            .connect_timeout(std::time::Duration::from_secs(10));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("pozo-postgres")
            .enable_all()
            .build()
            .map_err(|error| StoreError::Io { path: "(the PostgreSQL connection's runtime)".into(), error })?;
        let connected = wait(&runtime, async move { config.connect(NoTls).await });
        let (client, connection) = match connected {
            Ok(connected) => connected,
            Err(error) => {
                runtime.shutdown_background();
                return Err(postgres("cannot connect", &database)(error));
            }
        };
        let described = database.clone();
        runtime.spawn(async move {
            if let Err(error) = connection.await {
                tracing::error!(database = %described, %error, "the PostgreSQL connection ended");
            }
        });
        Ok((runtime, client, database))
    }

    /// Connects for reading only (`verify`): a read-only session, no migration and no writer's
    /// lock, so it may read while the writer serves. Refused if the database has no journal.
    pub(crate) fn open_reader(url: &str) -> Result<Arc<PgStore>, StoreError> {
        // One read-only transaction for everything the reader reads: one snapshot of the
        // journal, however long the reading and whatever the writer commits meanwhile.
        PgStore::read_only(url, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", "cannot start a read-only transaction")
    }

    /// Connects to follow the journal as a hot standby (`serve --standby`): no writer's lock,
    /// no migration, and no transaction held open, so that every read sees what the writer has
    /// committed by then. Refused if the database has no journal yet.
    pub(crate) fn open_follower(url: &str) -> Result<Arc<PgStore>, StoreError> {
        PgStore::read_only(url, "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", "cannot make the session read-only")
    }

    /// Refused with [`StoreError::Migrations`] when the database has no journal's tables.
    fn require_journal(&self) -> Result<(), StoreError> {
        let present: bool = self
            .run(|client| async move { client.query_one("SELECT to_regclass('pozo_journal') IS NOT NULL", &[]).await })
            .map_err(self.error("cannot look for the journal's tables"))?
            .get(0);
        if present {
            Ok(())
        } else {
            Err(StoreError::Migrations {
                database: self.database.clone(),
                problem: "no Pozo journal in this database (no table pozo_journal)".to_owned(),
            })
        }
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

/// A connection of a hot standby that asks for the writer's lock without waiting
/// ([`Candidate::try_take`]), connecting again after the database was lost. A writer killed
/// lets go of the lock with its connection, so a standby that asks every poll (50 ms,
/// `writer::standby`) takes over within about one poll.
pub(crate) struct PgCandidate {
    url: String,
    connection: Option<(tokio::runtime::Runtime, tokio_postgres::Client)>,
}

impl Candidate for PgCandidate {
    /// Asks once for the writer's lock (connecting first if needed): the writer's store, with
    /// the migrations applied, once the lock is ours; `None` while another controller holds it.
    /// An error leaves the candidate unconnected: the next ask connects again.
    fn try_take(&mut self) -> Result<Option<Arc<dyn Store>>, StoreError> {
        let (runtime, client) = match self.connection.take() {
            Some(connection) => connection,
            None => {
                let (runtime, client, _) = PgStore::connect(&self.url)?;
                (runtime, client)
            }
        };
        let (client, locked) = try_lock(&runtime, client);
        let database = describe(&self.url);
        match locked {
            Ok(true) => PgStore::migrated(runtime, client, database).map(|store| Some(store as Arc<dyn Store>)),
            Ok(false) => {
                self.connection = Some((runtime, client));
                Ok(None)
            }
            Err(error) => {
                drop(client);
                runtime.shutdown_background();
                Err(postgres("cannot ask for the writer's lock", &database)(error))
            }
        }
    }
}

impl Drop for PgCandidate {
    fn drop(&mut self) {
        // As for the store: possibly on a runtime's thread, so let go without waiting.
        if let Some((runtime, client)) = self.connection.take() {
            drop(client);
            runtime.shutdown_background();
        }
    }
}

/// The journal in the PostgreSQL database at an address, as a hot standby reaches it.
pub struct PgShared {
    url: String,
}

impl PgShared {
    pub fn new(url: &str) -> PgShared {
        PgShared { url: url.to_owned() }
    }
}

impl Shared for PgShared {
    fn describe(&self) -> String {
        describe(&self.url)
    }

    fn follower(&self) -> Result<Arc<dyn Store>, StoreError> {
        PgStore::open_follower(&self.url).map(|store| store as Arc<dyn Store>)
    }

    fn candidate(&self) -> Box<dyn Candidate> {
        Box::new(PgCandidate { url: self.url.clone(), connection: None })
    }
}

/// Asks for the writer's lock on `client`'s session; the client comes back either way.
fn try_lock(
    runtime: &tokio::runtime::Runtime,
    client: tokio_postgres::Client,
) -> (tokio_postgres::Client, Result<bool, tokio_postgres::Error>) {
    wait(runtime, async move {
        let locked = client.query_one("SELECT pg_try_advisory_lock($1)", &[&WRITER_LOCK]).await.map(|row| row.get(0));
        (client, locked)
    })
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

impl PgStore {
    /// The meta values waiting for the next commit, as two columns.
    fn pending(&self) -> (Vec<&'static str>, Vec<Vec<u8>>) {
        self.pending_meta.lock().expect("the pending meta values' lock").iter().cloned().unzip()
    }

    /// Forgets the pending values just committed (those that were not replaced meanwhile).
    fn committed(&self, keys: &[&'static str], values: &[Vec<u8>]) {
        self.pending_meta
            .lock()
            .expect("the pending meta values' lock")
            .retain(|(key, value)| !keys.iter().zip(values).any(|(done, bytes)| done == key && bytes == value));
    }
}

/// Upserts the pending meta values (`$1` keys, `$2` values): part of every commit, so that
/// they are durable with the next append, tip or flush.
macro_rules! meta_cte {
    () => {
        "meta AS (
            INSERT INTO pozo_meta (key, value) SELECT * FROM unnest($1::text[], $2::bytea[])
            ON CONFLICT (key) DO UPDATE SET value = excluded.value
        )"
    };
}

/// Replaces the tip record (`$3`).
macro_rules! tip_upsert {
    () => {
        " INSERT INTO pozo_tip (only_row, record) VALUES (TRUE, $3)
          ON CONFLICT (only_row) DO UPDATE SET record = excluded.record"
    };
}

/// A batch: the pending meta values, the entries (`$4` sequences, `$5` bytes) and the tip, in one
/// statement, one implicit transaction: all of it or nothing.
const APPEND: &str = concat!(
    "WITH ",
    meta_cte!(),
    ", entries AS (INSERT INTO pozo_journal (sequence, entry) SELECT * FROM unnest($4::bigint[], $5::bytea[]))",
    tip_upsert!()
);

/// The tip alone, with the pending meta values.
const PUT_TIP: &str = concat!("WITH ", meta_cte!(), tip_upsert!());

/// The pending meta values alone.
const PUT_META: &str = concat!("WITH ", meta_cte!(), " SELECT 1");

impl Store for PgStore {
    fn append(&self, entries: Vec<Stored>, tip: Vec<u8>) -> BoxFuture<'_, Result<(), StoreError>> {
        let client = Arc::clone(&self.client);
        Box::pin(async move {
            let first = entries.first().map(|(sequence, _)| *sequence).unwrap_or(0);
            let sequences: Vec<i64> = entries.iter().map(|(sequence, _)| *sequence as i64).collect();
            let bytes: Vec<&[u8]> = entries.iter().map(|(_, bytes)| bytes.as_slice()).collect();
            let (keys, values) = self.pending();
            match client.execute(APPEND, &[&keys, &values, &tip, &sequences, &bytes]).await {
                Ok(_) => {
                    self.committed(&keys, &values);
                    Ok(())
                }
                Err(error) if is_unique_violation(&error) => Err(StoreError::Fenced { first, database: self.database.clone() }),
                Err(error) => Err(self.error("cannot append to the journal")(error)),
            }
        })
    }

    fn lock_can_be_lost(&self) -> bool {
        true
    }

    /// The writer's lock is this session's: [`WRITER_LOCK`] held by this backend (a bigint
    /// advisory lock is listed with its high half as `classid`, its low half as `objid`).
    fn confirm_writer(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        let client = Arc::clone(&self.client);
        Box::pin(async move {
            let (high, low) = (WRITER_LOCK >> 32, WRITER_LOCK & 0xffff_ffff);
            let held: bool = client
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() \
                     AND granted AND classid::bigint = $1 AND objid::bigint = $2 AND objsubid = 1)",
                    &[&high, &low],
                )
                .await
                .map_err(self.error("cannot confirm the writer's lock"))?
                .get(0);
            if held { Ok(()) } else { Err(StoreError::WriterElsewhere { database: self.database.clone() }) }
        })
    }

    fn put_tip(&self, tip: Vec<u8>) -> BoxFuture<'_, Result<(), StoreError>> {
        let client = Arc::clone(&self.client);
        Box::pin(async move {
            let (keys, values) = self.pending();
            client.execute(PUT_TIP, &[&keys, &values, &tip]).await.map_err(self.error("cannot write the tip record"))?;
            self.committed(&keys, &values);
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
        // Page by page, in order: never the whole journal in memory. The page last read serves
        // what it holds.
        let cached: Vec<Stored> = {
            let page = self.page.lock().expect("the page's lock");
            match (page.first(), page.last()) {
                (Some((first, _)), Some((last, _))) if *first <= after + 1 && after < *last => {
                    page.iter().filter(|(sequence, _)| *sequence > after).cloned().collect()
                }
                _ => Vec::new(),
            }
        };
        let mut from = cached.last().map_or(after, |(last, _)| *last) as i64;
        let mut page: std::vec::IntoIter<Stored> = cached.into_iter();
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
                    *self.page.lock().expect("the page's lock") = entries.clone();
                }
                page = entries.into_iter();
            }
        }))
    }

    fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let pending = self.pending_meta.lock().expect("the pending meta values' lock");
        if let Some((_, value)) = pending.iter().find(|(pending, _)| *pending == key) {
            return Ok(Some(value.clone()));
        }
        drop(pending);
        let key = key.to_owned();
        let row = self
            .run(|client| async move { client.query_opt("SELECT value FROM pozo_meta WHERE key = $1", &[&key]).await })
            .map_err(self.error("cannot read a meta value"))?;
        Ok(row.map(|row| row.get(0)))
    }

    fn put_meta(&self, values: Vec<(&'static str, Vec<u8>)>) -> Result<(), StoreError> {
        // Durable with the next append, tip or flush (the trait's word, as on sled); one value
        // per key waits, the last written.
        let mut pending = self.pending_meta.lock().expect("the pending meta values' lock");
        for (key, value) in values {
            pending.retain(|(waiting, _)| *waiting != key);
            pending.push((key, value));
        }
        Ok(())
    }

    fn flush(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        let client = Arc::clone(&self.client);
        Box::pin(async move {
            // Every append and tip is durable when it returns: only meta values may wait.
            let (keys, values) = self.pending();
            if keys.is_empty() {
                return Ok(());
            }
            client.execute(PUT_META, &[&keys, &values]).await.map_err(self.error("cannot write meta values"))?;
            self.committed(&keys, &values);
            Ok(())
        })
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
        let choice = crate::writer::StoreChoice::Postgres { url: url.into(), standby: true };
        let shown = format!("{choice:?} {:?}", crate::ServeOptions { store: Some(choice.clone()), ..Default::default() });
        assert!(!shown.contains("s3creto") && shown.contains("db.salon:5433/pozo"), "{shown}");
    }
}
