//! The journal's tools on the command line: `verify`, `backup` (of a running controller),
//! `restore`, `migrate`, `close`, and the new journal of `serve --open-from`.

use std::process::ExitCode;

use std::path::{Path, PathBuf};

use super::status::fetch_status;

/// The journal key and the acknowledgement mark, as `verify`, `restore` and `close` take them.
#[derive(clap::Args)]
pub(super) struct JournalFiles {
    /// The keys file holding the journal key (role = "journal"); the embedded example keys by default.
    #[arg(long, value_name = "FILE")]
    keys: Option<PathBuf>,
    /// The acknowledgement mark (read by verify and close; read, then replaced, by restore);
    /// `<DIR>.acknowledged` beside the data directory by default.
    #[arg(long, value_name = "FILE")]
    mark: Option<PathBuf>,
}

impl JournalFiles {
    /// The mark given, or the one beside `data`.
    fn mark_of(&self, data: &Path) -> PathBuf {
        self.mark.clone().unwrap_or_else(|| crate::journal::mark::default_path(data))
    }
}

/// What `serve --open-from` needs of `serve`'s flags.
pub(super) struct OpenFrom<'a> {
    pub(super) statement: &'a Path,
    pub(super) data: &'a Path,
    pub(super) config: Option<&'a Path>,
    pub(super) rulebooks: &'a [PathBuf],
    pub(super) keys: Option<&'a Path>,
    pub(super) mark: Option<&'a Path>,
    pub(super) changed_by: Option<&'a str>,
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

/// What `verify` checks.
pub(super) enum Verified {
    /// The journal in `--data`.
    Data,
    /// The journal in the PostgreSQL database at this address.
    Store(String),
    /// A closing statement file.
    Statement(std::path::PathBuf),
}

impl Verified {
    /// `--statement FILE`, else `--store URL`, else the journal in `--data`.
    pub(super) fn of(statement: Option<std::path::PathBuf>, store: Option<String>) -> Verified {
        match (statement, store) {
            (Some(statement), _) => Verified::Statement(statement),
            (None, Some(url)) => Verified::Store(url),
            (None, None) => Verified::Data,
        }
    }
}

pub(super) fn run_verify(
    data: &std::path::Path,
    verified: Verified,
    predecessor: Option<&std::path::Path>,
    files: &JournalFiles,
) -> ExitCode {
    let journal_key = match crate::config::journal_key(files.keys.as_deref()) {
        Ok(key) => key,
        Err(error) => {
            eprintln!("pozo-server: verify: {error:#}");
            return ExitCode::from(1);
        }
    };
    let mark = files.mark_of(data);
    if matches!(verified, Verified::Data) && crate::journal::store::held(data) {
        // docs/operations.md §5: a copy read while the controller writes may be torn, and says
        // nothing of what it writes next. Said first, where the operator looks.
        eprintln!("{}", live_directory_warning(data));
    }
    let report = match &verified {
        Verified::Statement(path) => return print_statement_check(path, &journal_key, predecessor),
        Verified::Store(url) => crate::tools::verify::verify_store(url, &journal_key, Some(&mark)),
        Verified::Data => crate::tools::close::verify(data, &journal_key, Some(&mark), predecessor),
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

/// `verify --statement`: the statement's report on stdout; 0 when every check passed.
fn print_statement_check(
    path: &std::path::Path,
    journal_key: &crate::config::JournalKey,
    predecessor: Option<&std::path::Path>,
) -> ExitCode {
    match crate::tools::close::verify_statement(path, journal_key, predecessor) {
        Ok(report) => {
            println!("{}", serde_json::to_string_pretty(&report).expect("reports serialize"));
            let passed = report.statement.passed() && report.predecessor.as_ref().is_none_or(|check| check.passed());
            if passed { ExitCode::SUCCESS } else { ExitCode::from(1) }
        }
        Err(error) => {
            eprintln!("pozo-server: verify: {error:#}");
            ExitCode::from(1)
        }
    }
}

/// `close`: the journal of a stopped controller closed and its statement written; what was
/// done, as JSON on stdout. Exit 0 closed, 4 a controller runs on it, 2 or 1 otherwise.
pub(super) fn run_close(data: &std::path::Path, out: &std::path::Path, files: &JournalFiles) -> ExitCode {
    use crate::exit::ExitClass;
    let closed = crate::config::journal_key(files.keys.as_deref()).and_then(|journal_key| {
        let mark = files.mark_of(data);
        let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_millis());
        crate::tools::close::close(data, &journal_key, &mark, out, u64::try_from(now_ms).unwrap_or(u64::MAX))
    });
    match closed {
        Ok(closed) => {
            println!("{}", serde_json::to_string_pretty(&closed).expect("reports serialize"));
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("pozo-server: close: {error:#}");
            let running = error.chain().any(|cause| cause.is::<crate::tools::close::Running>());
            ExitCode::from(if running { ExitClass::Locked } else { ExitClass::of(&error) }.code())
        }
    }
}

/// `serve --open-from STATEMENT`: the new journal begun in the empty --data directory from the
/// statement, before the controller is started on it as on any journal.
pub(super) fn run_open(opening: OpenFrom<'_>) -> anyhow::Result<()> {
    let OpenFrom { statement, data, config, rulebooks, keys, mark, changed_by } = opening;
    let config = crate::config::load(config, rulebooks, keys)?;
    let mark = mark.map_or_else(|| crate::journal::mark::default_path(data), Path::to_path_buf);
    let by = changed_by.map_or_else(crate::system_user, str::to_owned);
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_millis());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(crate::tools::close::open(statement, config, data, &mark, &by, u64::try_from(now_ms).unwrap_or(u64::MAX)))
}

pub(super) fn run_migrate(from: &std::path::Path, to: &str, keys: Option<&std::path::Path>) -> ExitCode {
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

pub(super) fn run_restore(from: &Path, data: &Path, files: &JournalFiles) -> anyhow::Result<()> {
    let journal_key = crate::config::journal_key(files.keys.as_deref())?;
    let mark = files.mark_of(data);
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

/// How long `backup` waits for the copy (a million entries take seconds).
const BACKUP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

pub(super) fn run_backup(to: &std::path::Path, pages: &str, keys: Option<&std::path::Path>) -> ExitCode {
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

/// `evidence`: the jornada's evidence written and signed; what was written on stdout (JSON).
/// Exit 0 written, 1 refused (no such jornada, a journal that does not verify, a file there).
pub(super) fn run_evidence(
    jornada: &str,
    out: &Path,
    signing_key: &Path,
    data: &Path,
    store: Option<&str>,
    keys: Option<&Path>,
) -> ExitCode {
    let source = match store {
        Some(url) => crate::tools::evidence::Source::Store(url),
        None => {
            if crate::journal::store::held(data) {
                eprintln!(
                    "pozo-server: evidence: {} is in use: reading a copy taken while the controller writes; if the copy is \
                     torn the evidence is refused: run it again, or on a `pozo-server backup`",
                    data.display()
                );
            }
            crate::tools::evidence::Source::Data(data)
        }
    };
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_millis());
    let made = crate::config::journal_key(keys).and_then(|journal_key| {
        let key = crate::tools::evidence::signing_key(signing_key)?;
        crate::tools::evidence::evidence(&source, &journal_key, jornada, &key, out, u64::try_from(now_ms).unwrap_or(u64::MAX))
    });
    match made {
        Ok(made) => {
            println!("{}", serde_json::to_string_pretty(&made).expect("reports serialize"));
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("pozo-server: evidence: {error:#}");
            ExitCode::from(1)
        }
    }
}

/// `evidence-key`: a new key pair; where it went and the public key on stdout (JSON).
pub(super) fn run_evidence_key(out: &Path) -> anyhow::Result<()> {
    let made = crate::tools::evidence::new_key(out)?;
    println!("{}", serde_json::to_string_pretty(&made).expect("reports serialize"));
    Ok(())
}
