//! `pozo-server`'s command line: `serve`, `status`, `backup`, `verify`, `restore`, `award`,
//! `rulebooks`, `password`. The binary is a two-line `main` over [`main`]; the test kit builds the same
//! command line into its own binary (`pozo-testkit`).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::config::rulebooks::{self, read_bounded};
use crate::tools::award::{self, ROUND_FILE_BYTES_MAX};
use clap::{Parser, Subcommand};
use pozo_engine::format_ars;

/// The target the command line logs under: the binary's crate name, as before the command line
/// moved into the library, so that log filters and the lines in docs/operations.md stay as they were.
const LOG_TARGET: &str = "pozo_server";

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

/// The form of the log lines (`--log-format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum LogFormat {
    /// One line of text per event; coloured on a terminal unless `NO_COLOR` is set.
    Text,
    /// One JSON object per event: `timestamp`, `level`, `target`, `fields`.
    Json,
}

/// Starts logging to standard error in `format`, filtered by `RUST_LOG` (default `info`).
/// Secrets are never logged: keys and passwords have no `Debug` that shows them.
fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()) && std::env::var_os("NO_COLOR").is_none())
            .init(),
        LogFormat::Json => builder.json().with_current_span(false).with_span_list(false).init(),
    }
}

/// Where the journal lives when `--data` is not given.
const DATA_DEFAULT: &str = "./pozo-data";

/// Where the controller listens when `--listen` is not given: this machine only.
const LISTEN_DEFAULT: &str = "127.0.0.1:50051";

/// Where the pages are served when `--pages` is not given: this machine only.
const PAGES_DEFAULT: &str = "127.0.0.1:8080";

#[derive(Subcommand)]
#[expect(clippy::large_enum_variant, reason = "parsed once at start; `serve`'s options are what they are")]
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
        #[command(flatten)]
        journal: JournalFiles,
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
    Password,
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

/// The journal key and the acknowledgement mark, as `verify` and `restore` take them.
#[derive(clap::Args)]
struct JournalFiles {
    /// The keys file holding the journal key (role = "journal"); the embedded example keys by default.
    #[arg(long, value_name = "FILE")]
    keys: Option<PathBuf>,
    /// The acknowledgement mark (read by verify; read, then replaced, by restore);
    /// `<DIR>.acknowledged` beside the data directory by default.
    #[arg(long, value_name = "FILE")]
    mark: Option<PathBuf>,
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
                    mark,
                    tls: tls.and_then(Result::ok),
                    changed_by,
                    pages: (!no_pages).then_some(pages),
                    pages_peers,
                    store: store.map(|url| crate::writer::StoreChoice { url, standby }),
                    ..Default::default()
                },
            ),
        },
        Command::Verify { data, store, journal } => {
            return run_verify(&data, store.as_deref(), journal.keys.as_deref(), journal.mark.as_deref());
        }
        Command::Restore { from, data, journal } => run_restore(&from, &data, journal.keys.as_deref(), journal.mark.as_deref()),
        Command::Migrate { from, to, keys } => return run_migrate(&from, &to, keys.as_deref()),
        Command::Award { round, rulebook, text } => run_award(&round, &rulebook, text),
        Command::Rulebooks { rulebook } => run_rulebooks(&rulebook),
        Command::Status { pages, json } => return run_status(&pages, json),
        Command::Backup { to, pages, keys } => return run_backup(&to, &pages, keys.as_deref()),
        Command::Password => run_password(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("pozo-server: {error:#}");
            ExitCode::from(crate::exit::ExitClass::of(&error).code())
        }
    }
}

/// True when `listen` is a loopback socket address, parsed (`127.0.0.1:50051`,
/// `[::1]:50051`, `localhost:50051`): a name that merely starts with `127.` is not.
fn is_loopback(listen: &str) -> bool {
    match listen.parse::<std::net::SocketAddr>() {
        Ok(address) => address.ip().is_loopback(),
        Err(_) => listen.rsplit_once(':').is_some_and(|(host, port)| host == "localhost" && port.parse::<u16>().is_ok()),
    }
}

/// Exit status of `status` when the controller answers but its writer has stopped.
const EXIT_NOT_SERVING: u8 = crate::exit::ExitClass::Problem.code();

/// Exit status of `status` when no controller answered at the address.
const EXIT_UNREACHABLE: u8 = crate::exit::ExitClass::Unreachable.code();

/// How long `status` waits for the controller's answer.
const STATUS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// `GET {base}/status`: the document as served, and read into the status type.
async fn fetch_status(client: &reqwest::Client, base: &str) -> anyhow::Result<(String, crate::read::status::Status)> {
    let url = format!("{base}/status");
    let text = client.get(&url).send().await?.error_for_status()?.text().await?;
    let status =
        serde_json::from_str(&text).map_err(|error| anyhow::anyhow!("{url}: not a Pozo controller's status ({error})"))?;
    Ok((text, status))
}

fn run_status(pages: &str, json: bool) -> ExitCode {
    let base = pages.trim_end_matches('/');
    let url = format!("{base}/status");
    let fetched =
        tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(anyhow::Error::from).and_then(|runtime| {
            runtime.block_on(async {
                let client = reqwest::Client::builder().timeout(STATUS_TIMEOUT).build()?;
                fetch_status(&client, base).await
            })
        });
    match fetched {
        Ok((text, status)) => {
            if json {
                println!("{text}");
            } else {
                print!("{}", status.text());
            }
            if status.serving { ExitCode::SUCCESS } else { ExitCode::from(EXIT_NOT_SERVING) }
        }
        Err(error) => {
            eprintln!(
                "pozo-server status: no answer from {url}: {error:#}. Is the controller running, with its pages on \
                 that address (serve --pages)? (docs/operations.md §2)"
            );
            ExitCode::from(EXIT_UNREACHABLE)
        }
    }
}

/// How long `backup` waits for the copy (a million entries take seconds).
const BACKUP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

fn run_backup(to: &std::path::Path, pages: &str, keys: Option<&std::path::Path>) -> ExitCode {
    use crate::exit::ExitClass;
    let fail = |class: ExitClass, message: String| {
        eprintln!("pozo-server backup: {message}");
        ExitCode::from(class.code())
    };
    let key = match crate::config::journal_key(keys) {
        Ok(key) => key,
        Err(error) => return fail(ExitClass::BadInput, format!("{error:#}")),
    };
    let to = match std::path::absolute(to) {
        Ok(to) => to,
        Err(error) => return fail(ExitClass::BadInput, format!("--to {}: {error}", to.display())),
    };
    let base = pages.trim_end_matches('/').to_owned();
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => return fail(ExitClass::Storage, error.to_string()),
    };
    runtime.block_on(async {
        let client = match reqwest::Client::builder().timeout(BACKUP_TIMEOUT).build() {
            Ok(client) => client,
            Err(error) => return fail(ExitClass::BadInput, error.to_string()),
        };
        // The journal the request is bound to, from the controller's status.
        let journal_id = match fetch_status(&client, &base).await {
            Ok((_, status)) => status.journal.journal_id,
            Err(error) => return fail(ExitClass::Unreachable, format!("no answer from {base}: {error:#}")),
        };
        let mac = crate::tools::backup::request_mac(&key, &journal_id, &to);
        let sent = client
            .post(format!("{base}/backup"))
            .header(crate::tools::backup::MAC_HEADER, mac)
            .json(&crate::tools::backup::BackupRequest { to: to.clone() })
            .send()
            .await;
        let response = match sent {
            Ok(response) => response,
            Err(error) => return fail(ExitClass::Unreachable, format!("no answer from {base}: {error}")),
        };
        let code = response.status();
        let text = response.text().await.unwrap_or_default();
        if code.is_success() {
            match serde_json::from_str::<crate::tools::backup::BackupDone>(&text) {
                Ok(done) => {
                    println!(
                        "backup of journal {} in {}: {} entries (tip {}), snapshot {}, verify {}",
                        done.journal_id,
                        done.to,
                        done.entries,
                        done.tip.get(..16).unwrap_or(&done.tip),
                        done.snapshot.map_or_else(|| "none".to_owned(), |entry| format!("at entry {entry}")),
                        done.verify
                    );
                    ExitCode::SUCCESS
                }
                Err(error) => fail(ExitClass::Storage, format!("an answer that is not a backup report ({error}): {text}")),
            }
        } else {
            let message = serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|value| value["error"].as_str().map(str::to_owned))
                .unwrap_or(text);
            let class = if code.is_server_error() { ExitClass::Storage } else { ExitClass::BadInput };
            fail(class, format!("refused ({code}): {message}"))
        }
    })
}

fn run_password() -> anyhow::Result<()> {
    let mut password = String::new();
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        eprintln!("Contraseña (se lee de la entrada; Enter para terminar):");
    }
    std::io::stdin().read_line(&mut password)?;
    let password = password.trim_end_matches(['\n', '\r']);
    println!("{}", crate::web::hash_password(password)?);
    Ok(())
}

fn run_serve(
    data: &std::path::Path,
    listen: &str,
    config: Option<&std::path::Path>,
    rulebooks: &[PathBuf],
    keys: Option<&std::path::Path>,
    options: crate::ServeOptions,
) -> anyhow::Result<()> {
    use std::io::Write as _;
    // Plaintext only on loopback: anywhere else, commands, tokens and reports would cross the wire in clear.
    if options.tls.is_none() && !is_loopback(listen) {
        anyhow::bail!(
            "--listen {listen}: plaintext is allowed on loopback only; give --tls-cert and --tls-key (docs/security.md)"
        );
    }
    // The pages speak plain HTTP: passwords and session cookies must not cross a network.
    if let Some(pages) = options.pages
        && !pages.ip().is_loopback()
    {
        anyhow::bail!(
            "--pages {pages}: the pages are plain HTTP and allowed on loopback only; publish them to other \
             machines through a TLS reverse proxy on this machine (docs/pages.md)"
        );
    }
    // The embedded keys are published with the source: they may sign only on this machine.
    if keys.is_none() && !is_loopback(listen) {
        anyhow::bail!(
            "--listen {listen}: the embedded example keys protect nothing and are accepted only on loopback; \
             pass --keys FILE with your own keys (docs/operations.md)"
        );
    }
    if options.tls.is_none() {
        tracing::warn!(
            target: LOG_TARGET,
            %listen,
            "PLAINTEXT: no TLS (--tls-cert/--tls-key); allowed because the address is loopback, where only this machine can connect"
        );
    }
    // The journal in PostgreSQL: its address may carry a password, so it is only ever shown described.
    if let Some(crate::writer::StoreChoice { url, .. }) = &options.store
        && !(url.starts_with("postgres://") || url.starts_with("postgresql://"))
    {
        anyhow::bail!("--store: not a PostgreSQL address: write postgres://user:password@host:port/database (docs/journal.md)");
    }
    let config = crate::config::load(config, rulebooks, keys)?;
    // A keys file that holds a published example secret (a copy of config/keys.toml) is as public.
    if !is_loopback(listen)
        && let Some(id) = config.example_key_in_use()
    {
        anyhow::bail!(
            "--listen {listen}: key `{id}` of --keys has the secret of a published example key; generate your own \
             (docs/operations.md §9)"
        );
    }
    // The connection limits need file descriptors: the soft limit is raised towards them.
    match crate::raise_open_files_limit() {
        Ok(files) if files < crate::FILES_NEEDED => tracing::warn!(
            target: LOG_TARGET,
            files,
            needed = crate::FILES_NEEDED,
            "the open-file limit is lower than the connection limits need: raise the hard limit (ulimit -Hn, LimitNOFILE)"
        ),
        Ok(_) => {}
        Err(error) => tracing::warn!(target: LOG_TARGET, %error, "the open-file limit could not be read or raised"),
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|error| crate::exit::ListenFailed(format!("--listen {listen}: {error}")))?;
        let address = listener.local_addr()?;
        let store = options.store.as_ref().map(|store| crate::journal::postgres::describe(&store.url)).unwrap_or_else(|| "sled".to_owned());
        tracing::info!(target: LOG_TARGET, %address, data = %data.display(), %store, config = %config.hash, "pozo-server starting");
        // The handlers are installed now, before the address is announced: a SIGTERM that arrives
        // as soon as a supervisor (or a test) reads the announcement is a clean stop, not a kill.
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = signal(SignalKind::terminate()).ok();
        let mut interrupt = signal(SignalKind::interrupt()).ok();
        let shutdown = async move {
            async fn received(signal: Option<&mut tokio::signal::unix::Signal>) {
                match signal {
                    Some(signal) => {
                        signal.recv().await;
                    }
                    None => std::future::pending().await,
                }
            }
            tokio::select! {
                _ = received(interrupt.as_mut()) => {}
                _ = received(terminate.as_mut()) => {}
            }
            tracing::info!(target: LOG_TARGET, "stopping: no new requests; the writer finishes its batch");
        };
        let announce = move |started: &crate::Started| {
            // One line for operators and tests: where the controller answers.
            println!("pozo-server listening on {address}");
            if let Some(pages) = started.pages {
                println!("pozo-server pages on http://{pages}/");
                println!("  cartel luminoso:  http://{pages}/cartel");
                println!("  Venta-Pagos:      http://{pages}/venta-pagos");
                println!("  sala:             http://{pages}/sala");
            }
            let _ = std::io::stdout().flush();
        };
        crate::serve(listener, config, data, options, shutdown, announce).await
    })
}

/// What `verify` says before checking the data directory of a running controller.
fn live_directory_warning(data: &std::path::Path) -> String {
    format!(
        "pozo-server: verify: WARNING: {} is in use: a running controller holds it. What follows checks a copy read \
         while the controller writes: the copy may be torn, and an `ok` proves nothing about what the controller \
         writes next. For a consistent copy that is verified, run `pozo-server backup` (docs/operations.md §4) and \
         verify the backup, or stop the controller first.",
        data.display()
    )
}

fn run_verify(
    data: &std::path::Path,
    store: Option<&str>,
    keys: Option<&std::path::Path>,
    mark: Option<&std::path::Path>,
) -> ExitCode {
    let journal_key = match crate::config::journal_key(keys) {
        Ok(key) => key,
        Err(error) => {
            eprintln!("pozo-server: verify: {error:#}");
            return ExitCode::from(1);
        }
    };
    let mark = mark.map(std::path::Path::to_path_buf).unwrap_or_else(|| crate::journal::mark::default_path(data));
    if store.is_none() && crate::journal::store::held(data) {
        // docs/operations.md §5: a copy read while the controller writes may be torn, and says
        // nothing of what it writes next. Said first, where the operator looks.
        eprintln!("{}", live_directory_warning(data));
    }
    let report = match store {
        Some(url) => crate::tools::verify::verify_store(url, &journal_key, Some(&mark)),
        None => crate::tools::verify::verify(data, &journal_key, Some(&mark)),
    };
    match report {
        Ok(report) => {
            println!("{}", serde_json::to_string_pretty(&report).expect("reports serialize"));
            if report.ok() { ExitCode::SUCCESS } else { ExitCode::from(1) }
        }
        Err(error) => {
            eprintln!("pozo-server: verify: {error:#}");
            ExitCode::from(1)
        }
    }
}

fn run_migrate(from: &std::path::Path, to: &str, keys: Option<&std::path::Path>) -> ExitCode {
    let journal_key = match crate::config::journal_key(keys) {
        Ok(key) => key,
        Err(error) => {
            eprintln!("pozo-server: migrate: {error:#}");
            return ExitCode::from(2);
        }
    };
    match crate::tools::migrate::migrate(from, to, &journal_key) {
        Ok(report) => {
            println!("{}", serde_json::to_string_pretty(&report).expect("reports serialize"));
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("pozo-server: migrate: {error:#}");
            ExitCode::from(crate::exit::ExitClass::of(&error).code())
        }
    }
}

fn run_restore(
    from: &std::path::Path,
    data: &std::path::Path,
    keys: Option<&std::path::Path>,
    mark: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let journal_key = crate::config::journal_key(keys)?;
    let mark = mark.map(std::path::Path::to_path_buf).unwrap_or_else(|| crate::journal::mark::default_path(data));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let restored = runtime.block_on(crate::tools::restore::restore(from, data, &journal_key, &mark))?;
    println!(
        "restored {} entries from {} into {}: journal {} is now {}; envelopes signed before are refused, agents \
         re-identify and take this record; commands acknowledged after the backup are not in it (docs/operations.md §6)",
        restored.entries,
        from.display(),
        data.display(),
        restored.previous_journal_id,
        restored.journal_id
    );
    Ok(())
}

fn run_award(round: &std::path::Path, rulebook_files: &[PathBuf], text: bool) -> anyhow::Result<()> {
    let rulebooks = rulebooks::load(rulebook_files)?;
    let content = read_bounded(round, ROUND_FILE_BYTES_MAX)?;
    let name = round.display();
    let parsed = award::parse_round(&content).map_err(|error| anyhow::anyhow!("{name}: {error}"))?;
    let report = award::calculate(&rulebooks, &parsed).map_err(|error| anyhow::anyhow!("{name}: {error}"))?;
    if text {
        print!("{}", award::render_text(&report));
    } else {
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    Ok(())
}

fn run_rulebooks(rulebook_files: &[PathBuf]) -> anyhow::Result<()> {
    let rulebooks = rulebooks::load(rulebook_files)?;
    for rules in rulebooks.pools() {
        // What the minimum means (minimum_kind): a floor of the sign (IPLyC 3.2.2, 11.2.2,
        // 15.2.3) or the amount the pool starts and restarts at (Póquer sin descarte 6.2-6.3, AJ 2.5.6.3).
        let minimum = match rules.minimum_kind {
            pozo_engine::MinimumKind::Floor => "mínimo garantizado",
            pozo_engine::MinimumKind::Start => "monto inicial",
        };
        println!(
            "{:<20} {:<18} {minimum} {:>14}  apuesta {:>10}  incremento {}  ({}, arts. {})",
            rules.id,
            rules.policy.name(),
            format_ars(rules.minimum),
            format_ars(rules.side_bet),
            rules.contribution_rate,
            rules.file,
            rules.articles
        );
        let bets = if rules.fixed_bet() {
            format!("única de {}", format_ars(rules.side_bet))
        } else {
            format!("de {} a {}", format_ars(rules.bet_min), format_ars(rules.bet_max))
        };
        let shortfall = match rules.shortfall_from {
            pozo_engine::Shortfall::House => "la casa",
            pozo_engine::Shortfall::ReserveThenHouse => "el pozo de reserva, luego la casa",
        };
        println!(
            "    apuesta {bets}; lo que falte lo pone {shortfall}; Venta-Pagos: porcentajes y premios de más de {}",
            format_ars(rules.venta_pagos_over)
        );
        for group in &rules.exclusive {
            println!("    excluyentes en una mano: {}", group.join(", "));
        }
        for prize in &rules.prizes {
            println!("    {:<24} {}", prize.code, prize.article);
        }
    }
    Ok(())
}
