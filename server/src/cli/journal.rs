//! The journal's tools on the command line: `verify`, `backup` (of a running controller),
//! `restore` and `migrate`.

use std::process::ExitCode;

use super::status::fetch_status;

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

pub(super) fn run_verify(
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

pub(super) fn run_restore(
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
