//! The load: one loop per table signing its commands as an agent does, paced (latency)
//! or saturating (durable throughput).

use super::*;

/// One step of a table's cycle: open once, then round after round press every
/// seat (buying credits when a seat has none), INICIAR JUEGO, FINALIZAR JUEGO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    Open,
    Sell(u32),
    Press(u32),
    Start,
    Finish,
}

impl Step {
    pub(super) fn wire(self) -> Wire {
        match self {
            Step::Open => Wire::OpenTable(pb::OpenTable {}),
            Step::Sell(seat) => Wire::SellCredits(pb::SellCredits { seat, credits: CREDITS_SOLD }),
            Step::Press(seat) => Wire::Press(pb::Press { seat, credits: 0 }),
            Step::Start => Wire::StartRound(pb::StartRound {}),
            Step::Finish => Wire::FinishRound(pb::FinishRound {}),
        }
    }
}

/// Where a table is in its cycle, as its agent knows it.
#[derive(Clone, Debug)]
pub(super) struct Cycle {
    pub(super) open: bool,
    pub(super) credits: Vec<u32>,
    /// The next seat to press, from 1; past the last, the round is played.
    pub(super) next_seat: u32,
    pub(super) started: bool,
}

impl Cycle {
    pub(super) fn new(seats: u32) -> Cycle {
        Cycle { open: false, credits: vec![0; seats as usize], next_seat: 1, started: false }
    }

    pub(super) fn next(&self) -> Step {
        if !self.open {
            Step::Open
        } else if let Some(credits) = self.credits.get(self.next_seat as usize - 1) {
            if *credits == 0 { Step::Sell(self.next_seat) } else { Step::Press(self.next_seat) }
        } else if !self.started {
            Step::Start
        } else {
            Step::Finish
        }
    }

    pub(super) fn applied(&mut self, step: Step) {
        match step {
            Step::Open => self.open = true,
            Step::Sell(seat) => self.credits[seat as usize - 1] += CREDITS_SOLD,
            Step::Press(seat) => {
                self.credits[seat as usize - 1] -= 1;
                self.next_seat += 1;
            }
            Step::Start => self.started = true,
            Step::Finish => {
                self.started = false;
                self.next_seat = 1;
            }
        }
    }
}

/// A table's agent as far as the load goes: signs each command with the table's
/// key over the exact payload bytes, one command in flight.
pub(super) struct Agent {
    pub(super) table: String,
    pub(super) key_id: String,
    /// The journal the envelopes are signed for.
    pub(super) journal_id: String,
    /// The HMAC keyed with the table's secret and fed the envelope's context and
    /// journal id (docs/api.md §2), cloned for each command.
    pub(super) mac: Hmac<Sha256>,
    /// The next sequence.
    pub(super) sequence: u64,
    pub(super) cycle: Cycle,
    pub(super) client: pb::table_client::TableClient<Channel>,
    /// How the table sends its commands.
    pub(super) transport: Transport,
    /// The table's open `Commands` stream (`Transport::Stream`), once its first command is sent.
    pub(super) link: Option<table_agent::CommandStream>,
}

impl Agent {
    pub(super) fn envelope(&self, step: Step) -> pb::Envelope {
        let payload = pb::TableCommand {
            table_id: self.table.clone(),
            sequence: self.sequence,
            command: Some(step.wire()),
            ..Default::default()
        }
        .encode_to_vec();
        let mut mac = self.mac.clone();
        mac.update(&payload);
        pb::Envelope {
            payload,
            key_id: self.key_id.clone(),
            mac: mac.finalize().into_bytes().to_vec(),
            journal_id: self.journal_id.clone(),
            inspector_pin: String::new(),
        }
    }

    /// Sends `step`; on its acknowledgement the cycle and the sequence move on.
    pub(super) async fn send(&mut self, step: Step) -> anyhow::Result<pb::SubmitReply> {
        let envelope = self.envelope(step);
        let reply = match self.transport {
            Transport::Stream => self.on_stream(envelope).await.map(tonic::Response::new),
            Transport::Unary => self.client.submit(envelope).await,
        };
        let reply = reply.map_err(|status| {
            anyhow::anyhow!(
                "table {}: {step:?} (sequence {}) refused: {:?} {}",
                self.table,
                self.sequence,
                status.code(),
                status.message()
            )
        })?;
        self.sequence += 1;
        self.cycle.applied(step);
        Ok(reply.into_inner())
    }

    /// One command on the table's `Commands` stream, opened on its first: as the table agent
    /// sends (`table_agent::CommandStream`); a failure drops the stream.
    async fn on_stream(&mut self, envelope: pb::Envelope) -> Result<pb::SubmitReply, tonic::Status> {
        let stream = match &mut self.link {
            Some(stream) => stream,
            None => self.link.insert(table_agent::CommandStream::open(&mut self.client).await?),
        };
        let reply = stream.send(envelope).await;
        if reply.is_err() {
            self.link = None;
        }
        reply
    }

    /// Sends what comes before the next press (credits, INICIAR, FINALIZAR); returns how many.
    pub(super) async fn ready_to_press(&mut self) -> anyhow::Result<u64> {
        let mut sent = 0;
        loop {
            let step = self.cycle.next();
            if matches!(step, Step::Press(_)) {
                return Ok(sent);
            }
            self.send(step).await?;
            sent += 1;
        }
    }
}

/// One client per table over `connections` HTTP/2 connections to `url`, signing
/// for the journal the controller announces (`None`: the bare echo, which has none).
pub(super) async fn agents(
    config: &Config,
    url: &str,
    connections: u64,
    identify: bool,
    transport: Transport,
) -> anyhow::Result<Vec<Agent>> {
    let mut channels = Vec::new();
    for _ in 0..connections.min(config.layout.tables.len() as u64) {
        let channel = Channel::from_shared(url.to_owned())?
            .tcp_nodelay(true)
            .connect()
            .await
            .with_context(|| format!("connecting to {url}"))?;
        channels.push(channel);
    }
    let journal_id = match (identify, channels.first()) {
        (true, Some(channel)) => {
            pb::controller_client::ControllerClient::new(channel.clone())
                .identify(pb::IdentifyRequest {})
                .await?
                .into_inner()
                .journal_id
        }
        _ => "echo".to_owned(),
    };
    config
        .layout
        .tables
        .iter()
        .enumerate()
        .map(|(index, table)| {
            let key = casino::table_key(config, &table.id)?;
            // pozo_proto::sign's prefix, fed once.
            let mac = pozo_proto::envelope_mac(&key.secret, pozo_proto::Purpose::TableCommand, &journal_id);
            let channel = channels[index % channels.len()].clone();
            Ok(Agent {
                table: table.id.to_string(),
                key_id: key.id,
                journal_id: journal_id.clone(),
                mac,
                sequence: 1,
                cycle: Cycle::new(table.seats),
                client: pb::table_client::TableClient::new(channel).max_decoding_message_size(MESSAGE_BYTES_MAX),
                transport,
                link: None,
            })
        })
        .collect()
}

/// Runs `work` on every agent at once; returns the agents, in order.
pub(super) async fn on_every<F, Fut, T>(agents: Vec<Agent>, work: F) -> anyhow::Result<(Vec<Agent>, Vec<T>)>
where
    F: Fn(Agent) -> Fut,
    Fut: std::future::Future<Output = (Agent, anyhow::Result<T>)> + Send + 'static,
    T: Send + 'static,
{
    let tasks: Vec<_> = agents.into_iter().map(|agent| tokio::spawn(work(agent))).collect();
    let mut agents = Vec::with_capacity(tasks.len());
    let mut results = Vec::with_capacity(tasks.len());
    let mut failure = None;
    for task in tasks {
        let (agent, result) = task.await?;
        agents.push(agent);
        match result {
            Ok(value) => results.push(value),
            Err(error) => failure = failure.or(Some(error)),
        }
    }
    match failure {
        Some(error) => Err(error),
        None => Ok((agents, results)),
    }
}

#[derive(Default)]
pub(super) struct Counters {
    pub(super) presses: AtomicU64,
    pub(super) commands: AtomicU64,
}

pub(super) struct Window {
    pub(super) presses: u64,
    /// Pushes the watched panels got over the window (`--watch`), else 0.
    pub(super) pushes: u64,
    pub(super) commands: u64,
    /// Commands acknowledged in each second of the window.
    pub(super) each_second: Vec<u64>,
    pub(super) elapsed: Duration,
    pub(super) server_cpu: f64,
    pub(super) client_cpu: f64,
    pub(super) other_cpu: f64,
}

/// Every agent sends its next command as soon as the last is acknowledged; counts
/// over `seconds` after a warm-up (the watched panels' `pushes` too, if given).
pub(super) async fn saturate(
    agents: Vec<Agent>,
    seconds: u64,
    server_pid: u32,
    pushes: Option<&AtomicU64>,
) -> anyhow::Result<(Vec<Agent>, Window)> {
    let counters = Arc::new(Counters::default());
    let stop = Arc::new(AtomicBool::new(false));
    let tasks = spawn_saturating(agents, &counters, &stop);
    let warmup = (Duration::from_secs(seconds) / 5).min(WARMUP_MAX);
    tokio::time::sleep(warmup).await;
    let sample = || {
        (
            (counters.presses.load(Ordering::Relaxed), pushes.map_or(0, |pushes| pushes.load(Ordering::Relaxed))),
            counters.commands.load(Ordering::Relaxed),
            Instant::now(),
            cpu_ticks(Some(server_pid)),
            cpu_ticks(None),
            machine_busy_ticks(),
        )
    };
    let (presses, commands, started, server_cpu, client_cpu, busy) = sample();
    // Each second's commands too: a rate that sags as the journal grows shows here.
    let mut each_second = Vec::with_capacity(seconds as usize);
    let mut last = commands;
    let mut ticks =
        tokio::time::interval_at(tokio::time::Instant::from_std(started) + Duration::from_secs(1), Duration::from_secs(1));
    for _ in 0..seconds {
        ticks.tick().await;
        let now = counters.commands.load(Ordering::Relaxed);
        each_second.push(now - last);
        last = now;
    }
    let (presses_end, commands_end, ended, server_cpu_end, client_cpu_end, busy_end) = sample();
    stop.store(true, Ordering::Relaxed);
    let agents = join_saturating(tasks).await?;
    let elapsed = ended - started;
    let window = Window {
        presses: presses_end.0 - presses.0,
        pushes: presses_end.1 - presses.1,
        commands: commands_end - commands,
        each_second,
        elapsed,
        server_cpu: cpu_percent(server_cpu, server_cpu_end, elapsed),
        client_cpu: cpu_percent(client_cpu, client_cpu_end, elapsed),
        other_cpu: other_cpu(
            cpu_percent(busy, busy_end, elapsed),
            cpu_percent(server_cpu, server_cpu_end, elapsed),
            cpu_percent(client_cpu, client_cpu_end, elapsed),
        ),
    };
    Ok((agents, window))
}

/// A saturating loop for every agent: its next command as soon as the last is acknowledged,
/// counted, until `stop`.
fn spawn_saturating(
    agents: Vec<Agent>,
    counters: &Arc<Counters>,
    stop: &Arc<AtomicBool>,
) -> Vec<tokio::task::JoinHandle<(Agent, anyhow::Result<()>)>> {
    agents
        .into_iter()
        .map(|mut agent| {
            let counters = Arc::clone(counters);
            let stop = Arc::clone(stop);
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let step = agent.cycle.next();
                    if let Err(error) = agent.send(step).await {
                        return (agent, Err(error));
                    }
                    counters.commands.fetch_add(1, Ordering::Relaxed);
                    if matches!(step, Step::Press(_)) {
                        counters.presses.fetch_add(1, Ordering::Relaxed);
                    }
                }
                (agent, Ok(()))
            })
        })
        .collect()
}

/// Waits for every saturating loop and takes its agent back; the first error, if any.
async fn join_saturating(tasks: Vec<tokio::task::JoinHandle<(Agent, anyhow::Result<()>)>>) -> anyhow::Result<Vec<Agent>> {
    let mut agents = Vec::with_capacity(tasks.len());
    let mut failure = None;
    for task in tasks {
        let (agent, result) = task.await?;
        agents.push(agent);
        if let Err(error) = result {
            failure = failure.or(Some(error));
        }
    }
    match failure {
        Some(error) => Err(error),
        None => Ok(agents),
    }
}

/// Presses paced at `rate` a second over every table (each table at `rate / tables`,
/// offsets spread evenly); a press's latency counts from the moment it was due.
pub(super) async fn paced(agents: Vec<Agent>, rate: u64, seconds: u64, server_pid: u32) -> anyhow::Result<(Vec<Agent>, Latency)> {
    let tables = agents.len() as u64;
    let period = Duration::from_nanos(1_000_000_000 * tables / rate);
    let start = tokio::time::Instant::now() + Duration::from_millis(100);
    let end = start + Duration::from_secs(seconds);
    let work = |(index, agent): (u64, Agent)| press_paced(agent, start + fraction(period, index, tables), period, end);
    let cpu = || (cpu_ticks(Some(server_pid)), cpu_ticks(None), machine_busy_ticks(), Instant::now());
    let (server_cpu, client_cpu, busy, started) = cpu();
    let indexed: Vec<(u64, Agent)> = (0..tables).zip(agents).collect();
    let tasks: Vec<_> = indexed.into_iter().map(|item| tokio::spawn(work(item))).collect();
    let mut agents = Vec::with_capacity(tasks.len());
    let mut samples: Vec<u32> = Vec::new();
    let mut answered: Vec<u32> = Vec::new();
    let mut late: Vec<u32> = Vec::new();
    let mut commands = 0u64;
    let mut failure = None;
    for task in tasks {
        let (agent, result) = task.await?;
        agents.push(agent);
        match result {
            Ok((latencies, sent)) => {
                samples.extend(latencies.iter().map(|press| press.from_due));
                answered.extend(latencies.iter().map(|press| press.from_send));
                late.extend(latencies.iter().map(|press| press.from_due - press.from_send));
                commands += sent;
            }
            Err(error) => failure = failure.or(Some(error)),
        }
    }
    let (server_cpu_end, client_cpu_end, busy_end, ended) = cpu();
    if let Some(error) = failure {
        return Err(error);
    }
    let elapsed = ended - started;
    let server_cpu = cpu_percent(server_cpu, server_cpu_end, elapsed);
    let client_cpu = cpu_percent(client_cpu, client_cpu_end, elapsed);
    samples.sort_unstable();
    answered.sort_unstable();
    late.sort_unstable();
    let window = Duration::from_secs(seconds);
    let latency = Latency {
        rate,
        achieved_rate: per_second(samples.len() as u64, window),
        commands_per_s: per_second(commands, window),
        samples: samples.len(),
        seconds,
        p50_ms: micros_to_ms(percentile(&samples, 500)),
        p90_ms: micros_to_ms(percentile(&samples, 900)),
        p99_ms: micros_to_ms(percentile(&samples, 990)),
        p999_ms: micros_to_ms(percentile(&samples, 999)),
        max_ms: micros_to_ms(samples.last().copied().map(u64::from).unwrap_or(0)),
        answered: Answered {
            p50_ms: micros_to_ms(percentile(&answered, 500)),
            p90_ms: micros_to_ms(percentile(&answered, 900)),
            p99_ms: micros_to_ms(percentile(&answered, 990)),
            p999_ms: micros_to_ms(percentile(&answered, 999)),
            max_ms: micros_to_ms(answered.last().copied().map(u64::from).unwrap_or(0)),
            sent_late_p50_ms: micros_to_ms(percentile(&late, 500)),
            sent_late_p99_ms: micros_to_ms(percentile(&late, 990)),
        },
        server_cpu_percent: server_cpu,
        client_cpu_percent: client_cpu,
        other_cpu_percent: other_cpu(cpu_percent(busy, busy_end, elapsed), server_cpu, client_cpu),
        server_cpu_us_per_press: cpu_us_per(server_cpu, elapsed.as_secs_f64(), samples.len() as u64),
        server_cpu_us_per_command: cpu_us_per(server_cpu, elapsed.as_secs_f64(), commands),
    };
    Ok((agents, latency))
}

/// One paced press's latency, in µs.
#[derive(Clone, Copy)]
struct Paced {
    /// From the moment it was due.
    from_due: u32,
    /// From the moment it was sent; from the moment it was due where the agent was still busy
    /// with the press before then (so a slow answer's delay to the next is counted).
    from_send: u32,
}

/// One agent's presses, one every `period` from `first` until `end`: each press's latency
/// and the commands sent.
async fn press_paced(
    mut agent: Agent,
    first: tokio::time::Instant,
    period: Duration,
    end: tokio::time::Instant,
) -> (Agent, anyhow::Result<(Vec<Paced>, u64)>) {
    let mut latencies = Vec::new();
    let mut commands = 0u64;
    let mut interval = tokio::time::interval_at(first, period);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let result = async {
        commands += agent.ready_to_press().await?;
        loop {
            let ready = tokio::time::Instant::now();
            let due = interval.tick().await;
            if due >= end {
                return Ok(());
            }
            // The runtime's timer wakes a task up to a millisecond or two after its deadline:
            // the client's delay, not the controller's. Counted from the press's due moment
            // where the agent was behind it anyway.
            let sent = match ready >= due {
                true => due,
                false => tokio::time::Instant::now(),
            };
            let step = agent.cycle.next();
            agent.send(step).await?;
            let micros = |since: tokio::time::Instant| u32::try_from(since.elapsed().as_micros()).unwrap_or(u32::MAX);
            let from_send = micros(sent);
            latencies.push(Paced { from_due: micros(due).max(from_send), from_send });
            commands += 1;
            // INICIAR, FINALIZAR and credits now, between this press and the next.
            commands += agent.ready_to_press().await?;
        }
    }
    .await;
    (agent, result.map(|()| (latencies, commands)))
}

/// `period × index / count`, in whole nanoseconds.
pub(super) fn fraction(period: Duration, index: u64, count: u64) -> Duration {
    let nanos = period.as_nanos() * u128::from(index) / u128::from(count.max(1));
    Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
}
