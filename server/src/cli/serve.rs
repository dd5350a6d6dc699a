//! `pozo-server serve`: the addresses and keys checked, then the controller run until a signal
//! stops it.

use std::path::PathBuf;

use super::logging::LOG_TARGET;

/// True when `listen` is a loopback socket address, parsed (`127.0.0.1:50051`,
/// `[::1]:50051`, `localhost:50051`): a name that merely starts with `127.` is not.
fn is_loopback(listen: &str) -> bool {
    match listen.parse::<std::net::SocketAddr>() {
        Ok(address) => address.ip().is_loopback(),
        Err(_) => listen.rsplit_once(':').is_some_and(|(host, port)| host == "localhost" && port.parse::<u16>().is_ok()),
    }
}

/// Runs the controller: the addresses and keys checked, the configuration read, then served
/// until SIGINT or SIGTERM.
pub(super) fn run_serve(
    data: &std::path::Path,
    listen: &str,
    config: Option<&std::path::Path>,
    rulebooks: &[PathBuf],
    keys: Option<&std::path::Path>,
    options: crate::ServeOptions,
    opening: Option<super::journal::OpenFrom<'_>>,
) -> anyhow::Result<()> {
    refuse_planted_build()?;
    check_addresses(listen, keys, &options)?;
    check_data(data)?;
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
    raise_files_limit_or_warn();
    let runtime = crate::net::runtime()?;
    // Every address is taken before anything touches the journal: one in use (exit 7) leaves
    // the data directory as it was, not a new journal in it.
    let listeners = runtime.block_on(bind(listen, options.pages))?;
    if let Some(opening) = opening {
        super::journal::run_open(opening)?;
    }
    runtime.block_on(serve_until_stopped(data, listeners, config, options))
}

/// `--data` names a directory, or where one is to be made: a file there is bad input
/// (exit 2), not a storage failure to fix on the disk.
fn check_data(data: &std::path::Path) -> anyhow::Result<()> {
    match std::fs::metadata(data) {
        Ok(found) if !found.is_dir() => anyhow::bail!(
            "--data {}: not a directory: give the controller's data directory (made when it does not exist yet)",
            data.display()
        ),
        _ => Ok(()),
    }
}

/// The listeners of `--listen` and `--pages`.
struct Listeners {
    grpc: tokio::net::TcpListener,
    pages: Option<tokio::net::TcpListener>,
}

/// Binds `--listen` and `--pages` (exit 7 when one cannot be listened on).
async fn bind(listen: &str, pages: Option<std::net::SocketAddr>) -> anyhow::Result<Listeners> {
    let grpc = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|error| crate::exit::ListenFailed(format!("--listen {listen}: {error}")))?;
    let pages = match pages {
        Some(address) => Some(
            tokio::net::TcpListener::bind(address)
                .await
                .map_err(|error| crate::exit::ListenFailed(format!("--pages {address}: {error}")))?,
        ),
        None => None,
    };
    Ok(Listeners { grpc, pages })
}

/// A build with bugs planted for the seeded simulation (`pozo_core::planted`, the
/// `planted-bugs` feature) never serves: refused before anything is opened.
pub fn refuse_planted_build() -> anyhow::Result<()> {
    anyhow::ensure!(
        !crate::planted::COMPILED,
        "this pozo-server was built with the `planted-bugs` feature, for the seeded simulation only: it does not serve"
    );
    Ok(())
}

/// Refuses what would put secrets on a network in clear (plaintext off loopback, pages off
/// loopback, the embedded example keys off loopback, a store that is not PostgreSQL's address),
/// and says loudly in the log when it serves plaintext on loopback.
fn check_addresses(listen: &str, keys: Option<&std::path::Path>, options: &crate::ServeOptions) -> anyhow::Result<()> {
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
    if let Some(crate::writer::StoreChoice::Postgres { url, .. }) = &options.store
        && !(url.starts_with("postgres://") || url.starts_with("postgresql://"))
    {
        anyhow::bail!("--store: not a PostgreSQL address: write postgres://user:password@host:port/database (docs/journal.md)");
    }
    Ok(())
}

/// Raises the soft limit on open files towards what the connection limits need, and warns when
/// it cannot.
fn raise_files_limit_or_warn() {
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
}

/// Serves the controller on its bound listeners until a signal stops it.
async fn serve_until_stopped(
    data: &std::path::Path,
    listeners: Listeners,
    config: crate::config::Config,
    options: crate::ServeOptions,
) -> anyhow::Result<()> {
    use std::io::Write as _;
    let Listeners { grpc: listener, pages } = listeners;
    let address = listener.local_addr()?;
    let store = match &options.store {
        Some(crate::writer::StoreChoice::Postgres { url, .. }) => crate::journal::postgres::describe(url),
        Some(crate::writer::StoreChoice::Given(_)) => "a given store".to_owned(),
        Some(crate::writer::StoreChoice::Shared(shared)) => shared.describe(),
        None => "sled".to_owned(),
    };
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
    crate::serve_listeners(listener, pages, config, data, options, shutdown, announce).await
}
