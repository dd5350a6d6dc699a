//! `pozo-agent`'s command line: hardware events in (stdin, or a Unix socket), panel
//! JSON lines out (stdout). The binary is a one-line `main` over [`main`]; the test kit
//! builds the same command line into its own binary (`pozo-testkit`).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::agent::OUTPUT_CAPACITY;
use crate::line::{HardwareLines, RawLine};
use crate::{AgentConfig, SERVER_URL_DEFAULT};
use clap::Parser;
use futures_util::StreamExt as _;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;

/// Pozo table agent: hardware events in, signed commands out, seat lights from acks.
#[derive(Parser)]
#[command(name = "pozo-agent", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<AgentCommand>,
    /// The controller's gRPC address; or a writer and its standby, comma-separated
    /// (`http://a:50051,http://b:50051`): when the link breaks the next one is tried.
    #[arg(long, global = true, default_value = SERVER_URL_DEFAULT)]
    server: String,
    /// This table's id, as in the casino layout.
    #[arg(long, global = true)]
    table: Option<String>,
    /// A keys file ([[key]] entries, as the server's); the table key of --table is used.
    #[arg(long, global = true, value_name = "FILE")]
    key_file: Option<PathBuf>,
    /// Where hardware events arrive: `-` for stdin, or `unix:PATH` (the agent listens there).
    #[arg(long, default_value = "-")]
    input: String,
    /// Serve the table's monitor (a touch page for the dealer and the floor inspector, docs/agent.md
    /// §11) on this address: `127.0.0.1:8080`. Loopback, or any address with --monitor-cert.
    #[arg(long, value_name = "ADDR")]
    monitor: Option<std::net::SocketAddr>,
    /// The monitor's TLS certificate chain (PEM): the monitor is served over HTTPS.
    #[arg(long, value_name = "FILE", requires = "monitor_key", requires = "monitor")]
    monitor_cert: Option<PathBuf>,
    /// The monitor certificate's private key (PEM).
    #[arg(long, value_name = "FILE", requires = "monitor_cert")]
    monitor_key: Option<PathBuf>,
    /// The CA (PEM) whose client certificates the monitor's screens must show; needed to serve
    /// the monitor anywhere but loopback.
    #[arg(long, value_name = "FILE", requires = "monitor_cert")]
    monitor_client_ca: Option<PathBuf>,
    /// The CA (PEM) that signed the controller's TLS certificate; with it, `--server https://…`.
    #[arg(long, global = true, value_name = "FILE")]
    tls_ca: Option<PathBuf>,
    /// This agent's client certificate (PEM), when the controller asks for one (`--tls-client-ca`).
    #[arg(long, global = true, value_name = "FILE", requires = "tls_key", requires = "tls_ca")]
    tls_cert: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    #[arg(long, global = true, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
}

/// Besides running the table (no subcommand):
#[derive(clap::Subcommand)]
enum AgentCommand {
    /// Can this table's agent reach the controller and be heard? Connects with the same address,
    /// TLS and key, reads the table once and leaves; changes nothing. Exit 0 connected, 2 bad
    /// input or refused by the controller, 3 no answer.
    Status {
        /// Print JSON instead of text for a person.
        #[arg(long)]
        json: bool,
    },
}

/// Hardware events waiting for the agent.
const INPUT_CAPACITY: usize = 64;

/// Runs the command line of `std::env::args`, and says how it ended.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match agent_config(&cli) {
        Ok(config) => config,
        Err(code) => return code,
    };
    if let Some(AgentCommand::Status { json }) = cli.command {
        return run_status(&config, json);
    }
    let tls = match (&cli.monitor_cert, &cli.monitor_key) {
        (Some(cert), Some(key)) => match crate::monitor::MonitorTls::load(cert, key, cli.monitor_client_ca.as_deref()) {
            Ok(tls) => Some(tls),
            Err(error) => {
                eprintln!("pozo-agent: {error:#}");
                return ExitCode::from(2);
            }
        },
        _ => None,
    };
    if let Some(address) = cli.monitor
        && let Err(error) = crate::monitor::check_address(address, tls.as_ref())
    {
        eprintln!("pozo-agent: {error:#}");
        return ExitCode::from(2);
    }
    run_agent(config, &cli.input, cli.monitor.map(|address| (address, tls)))
}

/// The table, its key and TLS, read from the command line's files; a message and exit 2 when
/// one is missing or cannot be read.
fn agent_config(cli: &Cli) -> Result<AgentConfig, ExitCode> {
    let (Some(table), Some(key_file)) = (cli.table.clone(), cli.key_file.clone()) else {
        eprintln!("pozo-agent: --table and --key-file are required");
        return Err(ExitCode::from(2));
    };
    let key = match crate::key::load_warning(&key_file, &table) {
        Ok((key, warning)) => {
            if let Some(warning) = warning {
                eprintln!("pozo-agent: warning: {warning}");
            }
            key
        }
        Err(error) => {
            eprintln!("pozo-agent: {error:#}");
            return Err(ExitCode::from(2));
        }
    };
    let tls =
        match cli.tls_ca.as_deref().map(|ca| crate::ClientTls::load(ca, cli.tls_cert.as_deref().zip(cli.tls_key.as_deref()))) {
            None => None,
            Some(Ok(tls)) => Some(tls),
            Some(Err(error)) => {
                eprintln!("pozo-agent: {error:#}");
                return Err(ExitCode::from(2));
            }
        };
    let config = AgentConfig { server: cli.server.clone(), table, key, tls, monitor_url: None };
    // A `--server` that is not a controller's URL (no `http://`) stops the agent here, exit 2,
    // rather than leave it suspended for ever with no reason given.
    if let Err(error) = crate::agent::check_transport(&config) {
        eprintln!("pozo-agent: {error:#}");
        return Err(ExitCode::from(2));
    }
    Ok(config)
}

/// `pozo-agent status`: reads the table once and says whether the controller heard it.
fn run_status(config: &AgentConfig, json: bool) -> ExitCode {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    match runtime.block_on(crate::status::status(config)) {
        Ok(status) => {
            if json {
                println!("{}", serde_json::to_string(&status).expect("a status serializes"));
            } else {
                print!("{}", status.text());
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("pozo-agent status: {error}");
            ExitCode::from(match error {
                crate::status::StatusError::Unreachable { .. } => 3,
                crate::status::StatusError::Refused { .. } => 2,
            })
        }
    }
}

/// Runs the table: hardware events from `input` (`-` or `unix:PATH`) and from the monitor on
/// `monitor`, panel lines to stdout and to the monitor, until the input ends or the agent fails.
fn run_agent(
    mut config: AgentConfig,
    input: &str,
    monitor: Option<(std::net::SocketAddr, Option<crate::monitor::MonitorTls>)>,
) -> ExitCode {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a tokio runtime");
    let result = runtime.block_on(async move {
        let (lines_sender, lines) = mpsc::channel(INPUT_CAPACITY);
        let (output, mut panel) = mpsc::channel::<String>(OUTPUT_CAPACITY);
        let hub = crate::monitor::Hub::new();
        // The monitor's address is taken before the table is played: a port in use is an error at start.
        let monitor_task = match monitor {
            Some((address, tls)) => {
                let listener = tokio::net::TcpListener::bind(address)
                    .await
                    .map_err(|error| anyhow::anyhow!("--monitor {address}: {error}"))?;
                let bound = listener.local_addr()?;
                let scheme = if tls.is_some() { "https" } else { "http" };
                let url = format!("{scheme}://{bound}/");
                // The controller hears where, with each watch: the inspector's flor page links it
                // (not a wildcard address, which no tablet can open).
                config.monitor_url = (!bound.ip().is_unspecified()).then(|| url.clone());
                let said = serde_json::json!({ "type": "monitor", "address": bound.to_string(), "url": url });
                let _ = output.send(said.to_string()).await;
                Some(match tls {
                    Some(tls) => tokio::spawn(crate::monitor::serve_tls(listener, tls, hub.clone(), lines_sender.clone())),
                    None => tokio::spawn(crate::monitor::serve(listener, hub.clone(), lines_sender.clone())),
                })
            }
            None => None,
        };
        let printer = tokio::spawn(async move {
            let mut stdout = tokio::io::stdout();
            while let Some(line) = panel.recv().await {
                hub.publish(&line);
                if stdout.write_all(format!("{line}\n").as_bytes()).await.is_err() || stdout.flush().await.is_err() {
                    return;
                }
            }
        });
        // A socket that cannot be opened is an error at start, not a silent agent.
        let listener = match input.strip_prefix("unix:") {
            Some(path) => {
                let _ = std::fs::remove_file(path);
                Some(tokio::net::UnixListener::bind(path).map_err(|error| anyhow::anyhow!("--input {input}: {error}"))?)
            }
            None => None,
        };
        let reader = tokio::spawn(read_input(listener, lines_sender));
        let result = crate::run(config, lines, output).await;
        reader.abort();
        if let Some(task) = monitor_task {
            task.abort();
        }
        let _ = printer.await;
        result
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("pozo-agent: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// Feeds hardware event lines to the agent: stdin until its end, or every
/// connection to a Unix socket in turn. Lines are bounded ([`HardwareLines`]).
async fn read_input(listener: Option<tokio::net::UnixListener>, lines: mpsc::Sender<RawLine>) {
    /// False when the agent has stopped listening.
    async fn pump<R: tokio::io::AsyncRead + Unpin>(reader: R, lines: &mpsc::Sender<RawLine>) -> bool {
        let mut frames = FramedRead::new(reader, HardwareLines::new());
        while let Some(Ok(line)) = frames.next().await {
            if lines.send(line).await.is_err() {
                return false;
            }
        }
        true
    }
    if let Some(listener) = listener {
        while let Ok((stream, _)) = listener.accept().await {
            if !pump(stream, &lines).await {
                return;
            }
        }
    } else {
        pump(tokio::io::stdin(), &lines).await;
    }
}
