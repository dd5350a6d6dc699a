//! A night's record: read back, and replayed against a new controller.

use super::*;

// ----------------------------------------------------------------------------- replay

/// Reads a recorded night.
pub fn read_record(path: &Path) -> anyhow::Result<Vec<Event>> {
    let file = std::fs::File::open(path).with_context(|| format!("{}", path.display()))?;
    let size = file.metadata()?.len();
    anyhow::ensure!(size <= RECORD_BYTES_MAX, "{}: {size} bytes, over {RECORD_BYTES_MAX}", path.display());
    let mut events = Vec::new();
    for (number, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        events.push(
            serde_json::from_str(&line)
                .with_context(|| format!("{} line {}: not a recorded event", path.display(), number + 1))?,
        );
    }
    Ok(events)
}

/// What `replay` found: the night's report, and whether the books are the recorded ones.
#[derive(Debug, Serialize)]
pub struct ReplayReport {
    pub recorded_books_sha256: String,
    pub same_books: bool,
    pub night: NightReport,
}

/// Drives a recorded night again on a new embedded controller and compares the books.
pub async fn replay(path: &Path, pace: Pace, record: Option<&Path>) -> anyhow::Result<ReplayReport> {
    let events = read_record(path)?;
    let Some(Event::Header { version, tables, rounds, seed, config_hash, external, rulebooks, .. }) = events.first().cloned()
    else {
        anyhow::bail!("{}: the first line is not a night's header", path.display());
    };
    anyhow::ensure!(
        !external,
        "{}: recorded on an external controller (--server), whose pools had their own history; replay plays nights recorded on the embedded controller",
        path.display()
    );
    anyhow::ensure!(version == RECORD_VERSION, "{}: record version {version}, this build reads {RECORD_VERSION}", path.display());
    let Some(Event::Footer { books_sha256, extra_balls, .. }) = events.last().cloned() else {
        anyhow::bail!("{}: the night was not recorded to its end (no footer)", path.display());
    };
    let config = casino::generated_of(rulebooks, tables, seed)?;
    anyhow::ensure!(
        config.hash == config_hash,
        "{}: recorded with another casino ({config_hash}); this build generates {}",
        path.display(),
        config.hash
    );
    let directory = tempfile::tempdir()?;
    let options = pozo_server::ServeOptions { cards: pozo_server::cards::CardSource::Seeded(seed), ..Default::default() };
    let server = Embedded::start(config.clone(), &directory.path().join("data"), options).await?;
    let url = server.url.clone();
    let config = Arc::new(config);
    let mut embedded = Some(server);
    let replayed = async {
        let before = Snapshot::take(&config, &url).await?;
        let mut floor = Floor::open(&config, &url, record, pace).await?;
        floor.write(&events[0])?;
        let started = Instant::now();
        floor.replay(&events[1..events.len() - 1]).await?;
        let seconds = started.elapsed();
        finish(floor, &config, &url, before, &mut embedded, Played { rounds, extra_balls, seed, seconds, rulebooks }).await
    }
    .await;
    // A replay that ended in an error still stops its controller before the directory goes.
    if let Some(server) = embedded.take()
        && let Err(error) = server.stop().await
    {
        eprintln!("pozo-sim: the embedded controller: {error:#}");
    }
    let night = replayed?;
    Ok(ReplayReport { same_books: night.books_sha256 == books_sha256, recorded_books_sha256: books_sha256, night })
}
