//! Where the command line's log lines go and in what form (`--log-format`, `RUST_LOG`).

/// The target the command line logs under: the binary's crate name, as before the command line
/// moved into the library, so that log filters and the lines in docs/operations.md stay as they were.
pub(super) const LOG_TARGET: &str = "pozo_server";

/// The form of the log lines (`--log-format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum LogFormat {
    /// One line of text per event; coloured on a terminal unless `NO_COLOR` is set.
    Text,
    /// One JSON object per event: `timestamp`, `level`, `target`, `fields`.
    Json,
}

/// Starts logging to standard error in `format`, filtered by `RUST_LOG` (default `info`).
/// Secrets are never logged: keys and passwords have no `Debug` that shows them.
pub(super) fn init_logging(format: LogFormat) {
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr()) && std::env::var_os("NO_COLOR").is_none();
    init_logging_to(format, std::io::stderr, ansi);
}

/// Starts logging as `pozo-server serve` does, as text, into `file`: a benchmark's controller
/// (`pozo-sim bench`) pays for what a served one logs, without writing it over the benchmark's
/// own output.
pub fn init_text_logging_to(file: std::fs::File) {
    init_logging_to(LogFormat::Text, file, false);
}

fn init_logging_to<W>(format: LogFormat, writer: W, ansi: bool)
where
    W: for<'writer> tracing_subscriber::fmt::MakeWriter<'writer> + Send + Sync + 'static,
{
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(writer);
    match format {
        LogFormat::Text => builder.with_ansi(ansi).init(),
        LogFormat::Json => builder.json().with_current_span(false).with_span_list(false).init(),
    }
}
