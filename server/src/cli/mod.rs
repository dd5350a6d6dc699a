//! `pozo-server`'s command line: `serve`, `status`, `backup`, `verify`, `restore`, `close`, `evidence`,
//! `award`, `rulebooks`, `password`, `change`. The binary is a two-line `main` over [`main`]; the test kit builds the same
//! command line into its own binary (`pozo-testkit`).
//!
//! # Layout
//! - this file: the arguments (clap's definitions) and [`main`], which hands each command to its file.
//! - `logging`: where log lines go and in what form (`--log-format`).
//! - `serve`: `serve`, its addresses and keys checked, then the controller run.
//! - `status`: `status`, asked of a running controller's pages.
//! - `journal`: `verify`, `backup`, `restore`, `migrate`, `close`, `evidence`, `evidence-key`, and `serve --open-from`'s new journal.
//! - `rules`: `award` and `rulebooks`.
//! - `password`: `password`.
//! - `change`: `change list|propose|approve|withdraw`, over the Changes service.

mod change;
mod journal;
mod logging;
mod password;
mod rules;
mod serve;
mod status;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use journal::{JournalFiles, OpenFrom, Verified, run_backup, run_close, run_migrate, run_restore, run_verify};
pub use logging::init_text_logging_to;
use logging::{LogFormat, init_logging};
use password::run_password;
use rules::{run_award, run_rulebooks};
pub use serve::refuse_planted_build;
use serve::run_serve;
use status::run_status;

/// Pozo: the progressive jackpot controller for casino table games.
#[derive(Parser)]
#[command(name = "pozo-server", version, about, long_about = None)]
struct Cli {
    /// How log lines are written to standard error: `text` for a person, `json` (one object
    /// per line) for a log collector. `RUST_LOG` chooses what is logged (default `info`).
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

/// Where the journal lives when `--data` is not given.
const DATA_DEFAULT: &str = "./pozo-data";

/// Where the controller listens when `--listen` is not given: this machine only.
const LISTEN_DEFAULT: &str = "127.0.0.1:50051";

/// Where the pages are served when `--pages` is not given: this machine only.
const PAGES_DEFAULT: &str = "127.0.0.1:8080";

#[derive(Subcommand)]
#[allow(clippy::large_enum_variant, reason = "parsed once at start; `serve`'s options are what they are")]
enum Command {
    /// Run the controller: the journal on sled, the gRPC services.
    Serve {
        /// The data directory (sled): the journal and its snapshot.
        #[arg(long, default_value = DATA_DEFAULT, value_name = "DIR")]
        data: PathBuf,
        /// The address to listen on; port 0 picks a free one (printed at start).
        #[arg(long, default_value = LISTEN_DEFAULT, value_name = "ADDR")]
        listen: String,
        /// The casino layout (flores, tables, the pool of each table) instead of the embedded example.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Rulebook file(s) instead of the embedded default; repeatable.
        #[arg(long, value_name = "FILE")]
        rulebook: Vec<PathBuf>,
        /// The keys (one per table, per Venta-Pagos operator, per supervisor, displays') instead of the embedded examples.
        #[arg(long, value_name = "FILE")]
        keys: Option<PathBuf>,
        /// A network whose carteles may watch the display feed without a key; repeatable
        /// (default: loopback only, 127.0.0.0/8 and ::1/128).
        #[arg(long, value_name = "CIDR")]
        display_open_to: Vec<ipnet::IpNet>,
        /// The server's TLS certificate chain (PEM). Without it the controller speaks
        /// plaintext, which is allowed on loopback only.
        #[arg(long, value_name = "FILE", requires = "tls_key")]
        tls_cert: Option<PathBuf>,
        /// The TLS certificate's private key (PEM).
        #[arg(long, value_name = "FILE", requires = "tls_cert")]
        tls_key: Option<PathBuf>,
        /// A CA (PEM): every client must present a certificate it signed (agents' client certificates).
        #[arg(long, value_name = "FILE", requires = "tls_cert")]
        tls_client_ca: Option<PathBuf>,
        /// Who starts the controller: journaled with a new journal, and with a key set that
        /// changed since the last start (default: the system user and host).
        #[arg(long, value_name = "NAME")]
        changed_by: Option<String>,
        /// The acknowledgement mark: what was acknowledged, kept apart from the data
        /// (default `<DIR>.acknowledged`, beside the data directory; put it on another disk if you can).
        #[arg(long, value_name = "FILE")]
        mark: Option<PathBuf>,
        /// Where the pages are served (cartel luminoso, Venta-Pagos, sala), plain HTTP:
        /// loopback only; port 0 picks a free one (printed at start).
        #[arg(long, default_value = PAGES_DEFAULT, value_name = "ADDR", conflicts_with = "no_pages")]
        pages: std::net::SocketAddr,
        /// Serve no pages.
        #[arg(long)]
        no_pages: bool,
        /// The pages of this journal's other controllers (its standby, or its writer), as
        /// `http://host:port`: a sign whose controller stops answering goes to the first of them
        /// that answers (docs/pages.md). Repeatable, or comma-separated.
        #[arg(long = "pages-peer", value_name = "URL", value_delimiter = ',')]
        pages_peers: Vec<crate::PagesPeer>,
        /// Save a snapshot every this many journal entries (restart replays at most that many).
        #[arg(long, default_value_t = crate::writer::SNAPSHOT_EVERY, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        snapshot_every: u64,
        /// Keep the journal in PostgreSQL (`postgres://user@host:port/database`) instead of sled in
        /// --data; read from the environment when set there, so that a password stays off the
        /// command line (docs/journal.md, "On PostgreSQL").
        #[arg(long, env = "POZO_STORE", value_name = "URL", hide_env_values = true)]
        store: Option<String>,
        /// With --store: while another controller is the journal's writer, wait as its standby
        /// and take over when it is gone (docs/operations.md §16); without it, refused (exit 4).
        #[arg(long, requires = "store")]
        standby: bool,
        /// Begin a new journal in the empty --data directory from a predecessor's closing
        /// statement (`pozo-server close`): the pools at its balances, its orders, credits and
        /// reports carried. The configuration given must be the statement's files in force, and
        /// the keys hold the predecessor's journal key (docs/journal.md, "Closing a journal").
        #[arg(long, value_name = "STATEMENT.json", conflicts_with = "store")]
        open_from: Option<PathBuf>,
    },
    /// Changes and money movements: one person proposes, another approves (docs/operations.md §8).
    Change {
        #[command(subcommand)]
        command: change::ChangeCommand,
    },
    /// Replay the journal from zero: check the hash chain and its seal, the books, and
    /// that every acknowledged entry is there; JSON summary. Reads a copy: never writes into DIR.
    Verify {
        /// The data directory of a stopped server, or a backup.
        #[arg(long, default_value = DATA_DEFAULT, value_name = "DIR")]
        data: PathBuf,
        /// Verify the journal kept in PostgreSQL at this address instead (read-only, while the
        /// controller serves if it does). Never taken from POZO_STORE: `verify --data BACKUP`
        /// must read the backup. The mark is then `--mark`, or the one beside --data.
        #[arg(long, value_name = "URL")]
        store: Option<String>,
        /// The data directory of the journal this one was opened from: check that the closing
        /// statement its genesis entry carries is exactly that journal's end.
        #[arg(long, value_name = "OLDDIR", conflicts_with = "store")]
        predecessor: Option<PathBuf>,
        /// Check a closing statement file instead of a journal: its seal under the journal key,
        /// its files and books against its snapshot; with --predecessor, that journal's end.
        #[arg(long, value_name = "STATEMENT.json", conflicts_with = "store")]
        statement: Option<PathBuf>,
        #[command(flatten)]
        journal: JournalFiles,
    },
    /// Close a stopped controller's journal: replayed and verified, its books sealed in a closing
    /// statement (with the files in force beside it) that `serve --open-from` continues in a new
    /// journal; the data directory is marked closed and never served again (docs/journal.md).
    Close {
        /// The data directory of a stopped server.
        #[arg(long, default_value = DATA_DEFAULT, value_name = "DIR")]
        data: PathBuf,
        /// Where the statement goes (a new file); the files in force go beside it, in `STATEMENT.files/`.
        #[arg(long, value_name = "STATEMENT.json")]
        out: PathBuf,
        #[command(flatten)]
        journal: JournalFiles,
    },
    /// Write a jornada's evidence: its journal entries, the chain's anchors, the configuration
    /// and opening state, what each entry did and the books, signed with the casino's Ed25519
    /// key, for anyone to check offline with `pozo-verifier` (docs/journal.md). Reads a copy of
    /// the data directory (a stopped server's, a backup, or a running one's) or the database.
    Evidence {
        /// The jornada, YYYY-MM-DD.
        #[arg(long, value_name = "DATE")]
        jornada: String,
        /// Where the evidence goes: a new file.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// The casino's evidence key (PKCS#8 PEM, Ed25519), made by `pozo-server evidence-key`.
        #[arg(long, env = "POZO_EVIDENCE_KEY", value_name = "FILE")]
        signing_key: PathBuf,
        /// The data directory.
        #[arg(long, default_value = DATA_DEFAULT, value_name = "DIR")]
        data: PathBuf,
        /// Read the journal kept in PostgreSQL at this address instead (read-only).
        #[arg(long, value_name = "URL")]
        store: Option<String>,
        /// The keys file holding the journal key (role = "journal"); the embedded example keys by default.
        #[arg(long, value_name = "FILE")]
        keys: Option<PathBuf>,
    },
    /// Make the casino's evidence key: the private half in FILE (PKCS#8 PEM, owner-only), the
    /// public half in FILE.pub, to register with the regulator. Never writes over a file.
    EvidenceKey {
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Bring a backup back into service as a new epoch of its journal: verified, copied
    /// into an empty data directory, old envelopes refused from then on (docs/operations.md §6).
    Restore {
        /// The backup: a copy of a stopped server's data directory.
        #[arg(long, value_name = "DIR")]
        from: PathBuf,
        /// The data directory to restore into: absent or empty.
        #[arg(long, default_value = DATA_DEFAULT, value_name = "DIR")]
        data: PathBuf,
        #[command(flatten)]
        journal: JournalFiles,
    },
    /// Move a stopped server's journal from its data directory (sled) into an empty PostgreSQL
    /// database, then verify the copy: the same entries, the same tip (docs/journal.md).
    Migrate {
        /// The data directory of a stopped server.
        #[arg(long, value_name = "DIR")]
        from: PathBuf,
        /// The empty database, `postgres://user@host:port/database`; read from the environment
        /// when set there.
        #[arg(long, env = "POZO_STORE", value_name = "URL", hide_env_values = true)]
        to: String,
        /// The keys file holding the journal key; the embedded example keys by default.
        #[arg(long, value_name = "FILE")]
        keys: Option<PathBuf>,
    },
    /// Compute the awards of one round from a round file (disputes and audits).
    Award {
        /// The round file: {"pool", "balance", "winners": [{"seat", "code", "bet"?, "high"?}]}.
        #[arg(long, value_name = "FILE.json")]
        round: PathBuf,
        /// Rulebook file(s) to use instead of the embedded default; repeatable.
        #[arg(long, value_name = "FILE")]
        rulebook: Vec<PathBuf>,
        /// Print for the cashier's window ($ 12.345,67) instead of JSON.
        #[arg(long)]
        text: bool,
    },
    /// Hash a password for the pages (Venta-Pagos, Sala): reads it from standard input,
    /// prints the Argon2id hash for the `password` field of the operator's key.
    Password {
        /// A floor inspector's PIN (4–8 digits) for the `pin` field of their key instead.
        #[arg(long)]
        pin: bool,
    },
    /// How a running controller is: serving or not, the journal's tip, every pool's amount,
    /// the tables and their agents, the payouts pending. Asks the pages' listener (`/status`).
    /// Exit 0 serving, 1 answering but not serving, 3 no controller answered.
    Status {
        /// Where the controller serves its pages (`serve --pages`).
        #[arg(long, default_value = "http://127.0.0.1:8080", value_name = "URL")]
        pages: String,
        /// Print JSON (the `/status` document) instead of text for a person.
        #[arg(long)]
        json: bool,
    },
    /// Copy the journal of a running controller into a new directory, consistently, while it
    /// serves; the copy is verified before this reports it done (docs/operations.md §4).
    /// Needs the keys file with the journal key. Exit 0 done, 2 refused, 3 no answer, 6 failed.
    Backup {
        /// Where the backup goes, on the controller's machine: absent or an empty directory.
        #[arg(long, value_name = "DIR")]
        to: PathBuf,
        /// Where the controller serves its pages (`serve --pages`).
        #[arg(long, default_value = "http://127.0.0.1:8080", value_name = "URL")]
        pages: String,
        /// The keys file holding the journal key (role = "journal"); the embedded example keys by default.
        #[arg(long, value_name = "FILE")]
        keys: Option<PathBuf>,
    },
    /// Validate rulebook files (or the embedded default) and list their pools.
    Rulebooks {
        /// Rulebook file(s) to check instead of the embedded default; repeatable.
        #[arg(long, value_name = "FILE")]
        rulebook: Vec<PathBuf>,
    },
}

/// Runs the command line of `std::env::args`, and says how it ended.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.log_format);
    let result = match cli.command {
        Command::Serve {
            data,
            listen,
            config,
            rulebook,
            keys,
            display_open_to,
            tls_cert,
            tls_key,
            tls_client_ca,
            changed_by,
            mark,
            pages,
            no_pages,
            pages_peers,
            snapshot_every,
            store,
            standby,
            open_from,
        } => match tls_cert.zip(tls_key).map(|(cert, key)| crate::Tls::load(&cert, &key, tls_client_ca.as_deref())) {
            Some(Err(error)) => Err(error),
            tls => run_serve(
                &data,
                &listen,
                config.as_deref(),
                &rulebook,
                keys.as_deref(),
                crate::ServeOptions {
                    snapshot_every,
                    display_open_to: if display_open_to.is_empty() { crate::loopback_networks() } else { display_open_to },
                    mark: mark.clone(),
                    tls: tls.and_then(Result::ok),
                    changed_by: changed_by.clone(),
                    pages: (!no_pages).then_some(pages),
                    pages_peers,
                    store: store.map(|url| crate::writer::StoreChoice::Postgres { url, standby }),
                    ..Default::default()
                },
                // What `--open-from` begins the new journal with, once the addresses are taken.
                open_from.as_deref().map(|statement| OpenFrom {
                    statement,
                    data: &data,
                    config: config.as_deref(),
                    rulebooks: &rulebook,
                    keys: keys.as_deref(),
                    mark: mark.as_deref(),
                    changed_by: changed_by.as_deref(),
                }),
            ),
        },
        Command::Verify { data, store, predecessor, statement, journal } => {
            return run_verify(&data, Verified::of(statement, store), predecessor.as_deref(), &journal);
        }
        Command::Close { data, out, journal } => return run_close(&data, &out, &journal),
        Command::Evidence { jornada, out, signing_key, data, store, keys } => {
            return journal::run_evidence(&jornada, &out, &signing_key, &data, store.as_deref(), keys.as_deref());
        }
        Command::EvidenceKey { out } => journal::run_evidence_key(&out),
        Command::Restore { from, data, journal } => run_restore(&from, &data, &journal),
        Command::Migrate { from, to, keys } => return run_migrate(&from, &to, keys.as_deref()),
        Command::Award { round, rulebook, text } => run_award(&round, &rulebook, text),
        Command::Rulebooks { rulebook } => run_rulebooks(&rulebook),
        Command::Status { pages, json } => return run_status(&pages, json),
        Command::Backup { to, pages, keys } => return run_backup(&to, &pages, keys.as_deref()),
        Command::Password { pin } => run_password(pin),
        Command::Change { command } => change::run_change(command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => failed(&error),
    }
}

/// Says why a command failed, and ends with its class's exit status.
fn failed(error: &anyhow::Error) -> ExitCode {
    eprintln!("pozo-server: {error:#}");
    ExitCode::from(crate::exit::ExitClass::of(error).code())
}
