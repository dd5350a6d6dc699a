//! The signs: cartel streams opened and read during rounds of durable windows.

use super::*;

/// One sign's stream: for every `pozos` or `montos` event, µs from the durability of the batch it
/// carries (`durable_us`), and from that of the event before it (an upper bound for the
/// oldest batch the event carries: every batch it folds in became durable after that).
///
/// The reader is as cheap as a sign can be, so that the load generator, on the same two
/// cores, takes as little as it can from the controller: one plain `GET` on a socket,
/// then a byte scan for `"durable_us":` (the server writes each event whole, as one
/// chunk, so a chunk-size line never falls inside one).
pub(super) async fn read_sign(
    pages: String,
    open: Arc<AtomicU64>,
    done: Arc<AtomicBool>,
) -> anyhow::Result<(Vec<u32>, Vec<u32>)> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(&pages).await?;
    stream.write_all(format!("GET /cartel/eventos HTTP/1.1\r\nHost: {pages}\r\n\r\n").as_bytes()).await?;
    let mut buffer = vec![0u8; 64 * 1024];
    let mut pending = Vec::<u8>::new();
    let (mut newest, mut oldest) = (Vec::new(), Vec::new());
    let mut previous: Option<u64> = None;
    let mut counted = false;
    const FIELD: &[u8] = b"\"durable_us\":";
    loop {
        let read = stream.read(&mut buffer).await?;
        anyhow::ensure!(read > 0, "the sign's stream ended");
        if !counted {
            anyhow::ensure!(buffer.starts_with(b"HTTP/1.1 200"), "the sign's stream was refused");
            open.fetch_add(1, Ordering::Relaxed);
            counted = true;
        }
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_micros() as u64;
        pending.extend_from_slice(&buffer[..read]);
        let mut consumed = 0;
        while let Some(at) = pending[consumed..].windows(FIELD.len()).position(|window| window == FIELD) {
            let start = consumed + at + FIELD.len();
            let digits = pending[start..].iter().take_while(|byte| byte.is_ascii_digit()).count();
            if start + digits == pending.len() {
                break; // the number goes on in the next read
            }
            let durable: u64 = std::str::from_utf8(&pending[start..start + digits])?.parse()?;
            // The first event is the state when the sign connected, not a new batch.
            if let Some(previous) = previous {
                newest.push(u32::try_from(now.saturating_sub(durable)).unwrap_or(u32::MAX));
                oldest.push(u32::try_from(now.saturating_sub(previous)).unwrap_or(u32::MAX));
            }
            previous = Some(durable);
            consumed = start + digits;
        }
        // Keep only what may hold the start of the next field.
        let keep_from = pending.len().saturating_sub(FIELD.len() + 20).max(consumed);
        pending.drain(..keep_from);
        if done.load(Ordering::Relaxed) {
            return Ok((newest, oldest));
        }
    }
}

/// What one sign's reader returns: (newest, oldest) latencies in µs.
type SignLatencies = (Vec<u32>, Vec<u32>);

/// `count` signs reading `/cartel/eventos`, until `done`.
///
/// The readers run on an OS thread and a single-threaded runtime of their own, not on the
/// load generator's runtime: 500 signs woken 20 times a second would otherwise queue
/// between the load loops' tasks and be counted against the controller's throughput.
/// They still share the machine's two cores with everything else.
pub(super) struct OpenSigns {
    pub(super) readers: std::thread::JoinHandle<Vec<anyhow::Result<SignLatencies>>>,
    pub(super) open: Arc<AtomicU64>,
    pub(super) done: Arc<AtomicBool>,
}

impl OpenSigns {
    pub(super) async fn open(pages: &str, count: u64) -> anyhow::Result<OpenSigns> {
        let open = Arc::new(AtomicU64::new(0));
        let done = Arc::new(AtomicBool::new(false));
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let (pages, opened, ended) = (pages.to_owned(), Arc::clone(&open), Arc::clone(&done));
        let readers = std::thread::Builder::new().name("signs".into()).spawn(move || {
            runtime.block_on(async move {
                let readers: Vec<_> =
                    (0..count).map(|_| tokio::spawn(read_sign(pages.clone(), Arc::clone(&opened), Arc::clone(&ended)))).collect();
                let mut results = Vec::with_capacity(readers.len());
                for reader in readers {
                    results.push(reader.await.unwrap_or_else(|error| Err(anyhow::anyhow!("a sign's reader panicked: {error}"))));
                }
                results
            })
        })?;
        let deadline = Instant::now() + READY_TIMEOUT;
        while open.load(Ordering::Relaxed) < count {
            anyhow::ensure!(Instant::now() < deadline, "only {} of {count} signs connected", open.load(Ordering::Relaxed));
            anyhow::ensure!(
                !readers.is_finished(),
                "the signs' readers stopped: {} of {count} connected",
                open.load(Ordering::Relaxed)
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        Ok(OpenSigns { readers, open, done })
    }

    /// Closes every stream; the signs still open, and every reader's latencies.
    pub(super) async fn close(self, latencies: &mut Vec<u32>, oldest: &mut Vec<u32>) -> anyhow::Result<u64> {
        let connected = self.open.load(Ordering::Relaxed);
        self.done.store(true, Ordering::Relaxed);
        // Each reader returns at its next event (a heartbeat comes every 300 ms).
        let readers = self.readers;
        let results = tokio::time::timeout(Duration::from_secs(5), tokio::task::spawn_blocking(move || readers.join()))
            .await
            .map_err(|_| anyhow::anyhow!("a sign's stream went silent"))?
            .map_err(|error| anyhow::anyhow!("the signs' thread: {error}"))?
            .map_err(|_| anyhow::anyhow!("the signs' thread panicked"))?;
        for result in results {
            let (mut newest, mut older) = result.map_err(|error| anyhow::anyhow!("a sign's stream failed: {error:#}"))?;
            latencies.append(&mut newest);
            oldest.append(&mut older);
        }
        Ok(connected)
    }
}

/// After the durable window `without`: `rounds` times, a window with `count` signs
/// reading `/cartel/eventos` throughout, then one without.
// Statistics, not money: floats are right here.
#[allow(clippy::float_arithmetic)]
pub(super) async fn with_signs(
    mut agents: Vec<Agent>,
    pages: &str,
    count: u64,
    rounds: u64,
    seconds: u64,
    server_pid: u32,
    without: &Window,
) -> anyhow::Result<(Vec<Agent>, Signs)> {
    let (mut latencies, mut oldest) = (Vec::new(), Vec::new());
    let mut connected_at_end = count;
    let mut before = per_second(without.presses, without.elapsed);
    let (mut withs, mut withouts) = (Vec::new(), vec![before]);
    let (mut server_cpu, mut client_cpu) = (0.0, 0.0);
    let mut results = Vec::new();
    for round in 1..=rounds {
        progress(&format!("round {round} of {rounds}: durable throughput with {count} signs open: {seconds} s"));
        let signs = OpenSigns::open(pages, count).await?;
        let (back, window) = saturate(agents, seconds, server_pid, None).await?;
        connected_at_end = connected_at_end.min(signs.close(&mut latencies, &mut oldest).await?);
        // The windows without signs before and after this one: the ratio is against their
        // mean, so a drift (the journal growing, the machine) counts neither for nor
        // against the signs.
        progress(&format!("round {round} of {rounds}: durable throughput without signs: {seconds} s"));
        let (back, after) = saturate(back, seconds, server_pid, None).await?;
        agents = back;
        let with = per_second(window.presses, window.elapsed);
        let after = per_second(after.presses, after.elapsed);
        results.push(SignRound {
            presses_per_s_without_before: before,
            presses_per_s_with: with,
            presses_per_s_without_after: after,
            ratio: ratio(with, (before + after) / 2.0),
        });
        server_cpu += window.server_cpu;
        client_cpu += window.client_cpu;
        withs.push(with);
        withouts.push(after);
        before = after;
    }
    latencies.sort_unstable();
    oldest.sort_unstable();
    let mut ratios: Vec<f64> = results.iter().map(|round| round.ratio).collect();
    ratios.sort_by(f64::total_cmp);
    let median = match ratios.len() {
        0 => 0.0,
        length if length % 2 == 1 => ratios[length / 2],
        length => (ratios[length / 2 - 1] + ratios[length / 2]) / 2.0,
    };
    let mean = |values: &[f64]| ratio(values.iter().sum(), values.len() as f64);
    Ok((
        agents,
        Signs {
            opened: count,
            connected_at_end,
            presses_per_s_without: mean(&withouts),
            presses_per_s_with: mean(&withs),
            rounds: results,
            ratio: median,
            events: latencies.len() as u64,
            p50_ms: micros_to_ms(percentile(&latencies, 500)),
            p99_ms: micros_to_ms(percentile(&latencies, 990)),
            max_ms: micros_to_ms(latencies.last().copied().unwrap_or(0).into()),
            oldest_p99_ms: micros_to_ms(percentile(&oldest, 990)),
            server_cpu_percent: ratio(server_cpu, rounds as f64),
            client_cpu_percent: ratio(client_cpu, rounds as f64),
        },
    ))
}
