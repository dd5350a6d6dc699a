//! `pozo-server status`: how a running controller is, asked of its pages' `/status`.

use std::process::ExitCode;

/// Exit status of `status` when the controller answers but its writer has stopped.
const EXIT_NOT_SERVING: u8 = crate::exit::ExitClass::Problem.code();

/// Exit status of `status` when no controller answered at the address.
const EXIT_UNREACHABLE: u8 = crate::exit::ExitClass::Unreachable.code();

/// How long `status` waits for the controller's answer.
const STATUS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// `GET {base}/status`: the document as served, and read into the status type.
pub(super) async fn fetch_status(client: &reqwest::Client, base: &str) -> anyhow::Result<(String, crate::read::status::Status)> {
    let url = format!("{base}/status");
    let text = client.get(&url).send().await?.error_for_status()?.text().await?;
    let status =
        serde_json::from_str(&text).map_err(|error| anyhow::anyhow!("{url}: not a Pozo controller's status ({error})"))?;
    Ok((text, status))
}

pub(super) fn run_status(pages: &str, json: bool) -> ExitCode {
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
