//! Helpers for the agent's integration tests: a real controller (in-process, or
//! the `pozo-server` binary as a child that can be SIGKILLed), real agents (the
//! library on channels, or the `pozo-agent` binary), a signed direct client that
//! sees what the server recorded, and a loopback TCP proxy that can lose answers.
//!
//! Every wait is bounded; every child process is killed when its guard drops.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write as _};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pozo_proto::v1 as pb;
use prost::Message;
use serde_json::Value;
use table_agent::AgentConfig;
use table_agent::key::Key;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tonic::transport::Channel;

/// The default bound on any wait for something that should happen at once.
pub const WAIT: Duration = Duration::from_secs(10);

/// How long a child process may take to start or to stop.
pub use pozo_testkit::process::PROCESS_WAIT;

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace holds testkit").to_path_buf()
}

/// The example keys, the same the server embeds.
pub fn keys_file() -> PathBuf {
    workspace().join("config/keys.toml")
}

/// The table's key from the example keys file, as the agent binary reads it.
pub fn table_key(table: &str) -> Key {
    table_agent::key::load(&keys_file(), table).unwrap_or_else(|error| panic!("key of {table}: {error:#}"))
}

// ----------------------------------------------------------------------------- output lines

/// One line the agent printed, with the moment the test received it.
#[derive(Clone, Debug)]
pub struct Line {
    pub at: Instant,
    pub text: String,
    pub value: Value,
}

type Lines = Arc<Mutex<Vec<Line>>>;

fn push_line(lines: &Lines, text: String) {
    let value = serde_json::from_str(&text).unwrap_or(Value::Null);
    lines.lock().expect("output lock").push(Line { at: Instant::now(), text, value });
}

/// Everything an agent printed, and a cursor for waiting on what comes next.
pub struct Output {
    name: String,
    lines: Lines,
    cursor: usize,
}

impl Output {
    fn new(name: &str) -> (Output, Lines) {
        let lines: Lines = Arc::default();
        (Output { name: name.to_owned(), lines: lines.clone(), cursor: 0 }, lines)
    }

    /// Every line so far.
    pub fn snapshot(&self) -> Vec<Line> {
        self.lines.lock().expect("output lock").clone()
    }

    /// How many lines were printed so far.
    pub fn len(&self) -> usize {
        self.lines.lock().expect("output lock").len()
    }

    /// Moves the cursor to the end: the next waits see only new lines.
    pub fn skip_all(&mut self) {
        self.cursor = self.len();
    }

    /// The output from line `from`, for failure messages.
    pub fn dump(&self, from: usize) -> String {
        let lines = self.snapshot();
        let from = from.min(lines.len()).max(lines.len().saturating_sub(60));
        lines[from..].iter().enumerate().map(|(i, line)| format!("  [{}] {}\n", from + i, line.text)).collect()
    }

    /// Waits at most `limit` for a line after the cursor that `predicate`
    /// accepts; moves the cursor past it. Panics with the output on timeout.
    pub async fn wait_for(&mut self, what: &str, limit: Duration, predicate: impl Fn(&Value) -> bool) -> Line {
        match self.try_wait_for(limit, predicate).await {
            Some(line) => line,
            None => panic!("{}: no {what} within {limit:?}; output since the cursor:\n{}", self.name, self.dump(self.cursor)),
        }
    }

    pub async fn try_wait_for(&mut self, limit: Duration, predicate: impl Fn(&Value) -> bool) -> Option<Line> {
        let deadline = Instant::now() + limit;
        loop {
            {
                let lines = self.lines.lock().expect("output lock");
                if let Some(offset) = lines[self.cursor..].iter().position(|line| predicate(&line.value)) {
                    self.cursor += offset + 1;
                    return Some(lines[self.cursor - 1].clone());
                }
            }
            if Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// Waits at most `limit` until some line, anywhere in the output, satisfies
    /// `predicate`; returns the first such line. Leaves the cursor.
    pub async fn find_anywhere(&self, what: &str, limit: Duration, predicate: impl Fn(&Value) -> bool) -> Line {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(line) = self.snapshot().into_iter().find(|line| predicate(&line.value)) {
                return line;
            }
            assert!(Instant::now() < deadline, "{}: no {what} within {limit:?}; output:\n{}", self.name, self.dump(0));
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// Every line is a JSON object of a known type, and the panels are numbered 1, 2,
    /// 3… in the order they were printed (none printed out of turn).
    pub fn assert_well_formed(&self) {
        let mut panels = 0;
        for line in self.snapshot() {
            if is_panel(&line.value) {
                panels += 1;
                assert_eq!(line.value["panel"], panels, "{}: panel printed out of turn: {}", self.name, line.text);
            }
            let kind = line.value.get("type").and_then(Value::as_str);
            assert!(
                matches!(kind, Some("panel" | "ack" | "refused" | "gold_turn" | "instant_card" | "prizes" | "monitor")),
                "{}: not an agent output line: {}",
                self.name,
                line.text
            );
        }
    }
}

// ----------------------------------------------------------------------------- reading lines

pub fn kind(value: &Value) -> &str {
    value.get("type").and_then(Value::as_str).unwrap_or_default()
}

pub fn is_panel(value: &Value) -> bool {
    kind(value) == "panel"
}

pub fn is_suspended_panel(value: &Value) -> bool {
    is_panel(value) && value["suspended"] == Value::Bool(true)
}

pub fn is_live_panel(value: &Value) -> bool {
    is_panel(value) && value["suspended"] == Value::Bool(false)
}

/// An ack or a refusal of the typed line `input`.
pub fn is_answer_to(value: &Value, input: &str) -> bool {
    matches!(kind(value), "ack" | "refused") && value["input"].as_str() == Some(input)
}

pub fn seats(panel: &Value) -> &[Value] {
    panel["seats"].as_array().map(Vec::as_slice).unwrap_or_default()
}

pub fn seat(panel: &Value, number: u64) -> &Value {
    seats(panel)
        .iter()
        .find(|seat| seat["seat"].as_u64() == Some(number))
        .unwrap_or_else(|| panic!("seat {number} in the panel {panel}"))
}

pub fn light(panel: &Value, number: u64) -> &str {
    seat(panel, number)["light"].as_str().expect("a light")
}

pub fn credits(panel: &Value, number: u64) -> u64 {
    seat(panel, number)["credits"].as_u64().expect("credits")
}

pub fn sequence(value: &Value) -> u64 {
    value["sequence"].as_u64().unwrap_or_else(|| panic!("a sequence in {value}"))
}

/// Every seat's (seat, light, credits), what the panels show.
pub fn lights_and_credits(panel: &Value) -> Vec<(u64, String, u64)> {
    seats(panel)
        .iter()
        .map(|seat| {
            (
                seat["seat"].as_u64().expect("seat"),
                seat["light"].as_str().expect("light").to_owned(),
                seat["credits"].as_u64().expect("credits"),
            )
        })
        .collect()
}

/// The light names the agent prints for the server's lights.
pub fn light_name(value: i32) -> &'static str {
    match pb::Light::try_from(value) {
        Ok(pb::Light::On) => "on",
        Ok(pb::Light::Blue) => "blue",
        _ => "off",
    }
}

/// Every seat's (seat, light, credits) as the server recorded it.
pub fn view_lights_and_credits(view: &pb::TableView) -> Vec<(u64, String, u64)> {
    view.seats.iter().map(|seat| (u64::from(seat.seat), light_name(seat.light).to_owned(), u64::from(seat.credits))).collect()
}

// ----------------------------------------------------------------------------- in-process agent

/// The agent library running in this test's runtime: lines in, JSON lines out.
pub struct Agent {
    pub table: String,
    input: Option<mpsc::Sender<String>>,
    pub out: Output,
    task: tokio::task::JoinHandle<anyhow::Result<()>>,
}

impl Agent {
    pub fn spawn(server: &str, table: &str, key: Key) -> Agent {
        let (input, lines) = mpsc::channel::<String>(64);
        let (output, mut panel) = mpsc::channel::<String>(table_agent::agent::OUTPUT_CAPACITY);
        let config = AgentConfig { server: server.to_owned(), table: table.to_owned(), key, tls: None, monitor_url: None };
        let task = tokio::spawn(table_agent::run(config, lines, output));
        let (out, collected) = Output::new(&format!("agent {table}"));
        tokio::spawn(async move {
            while let Some(text) = panel.recv().await {
                push_line(&collected, text);
            }
        });
        Agent { table: table.to_owned(), input: Some(input), out, task }
    }

    /// Types one hardware line.
    pub async fn type_line(&self, line: &str) {
        let input = self.input.as_ref().expect("the agent is running");
        tokio::time::timeout(WAIT, input.send(line.to_owned()))
            .await
            .unwrap_or_else(|_| panic!("agent {}: line `{line}` not taken within {WAIT:?}", self.table))
            .expect("the agent is running");
    }

    /// Waits for a panel that is not suspended.
    pub async fn live(&mut self) -> Value {
        self.out.wait_for("live (unsuspended) panel", WAIT, is_live_panel).await.value
    }

    /// Types `line` and waits for its answer (an ack or a refusal).
    pub async fn answer(&mut self, line: &str) -> Value {
        self.type_line(line).await;
        self.out.wait_for(&format!("answer to `{line}`"), WAIT, |value| is_answer_to(value, line.trim())).await.value
    }

    /// Types `line`; it must be acknowledged.
    pub async fn ack(&mut self, line: &str) -> Value {
        let answer = self.answer(line).await;
        assert_eq!(kind(&answer), "ack", "agent {}: `{line}` not acknowledged: {answer}", self.table);
        answer
    }

    /// Types `line`; it must be refused with `code`.
    pub async fn refused(&mut self, line: &str, code: &str) -> Value {
        let answer = self.answer(line).await;
        assert_eq!(kind(&answer), "refused", "agent {}: `{line}` should be refused: {answer}", self.table);
        assert_eq!(answer["code"], code, "agent {}: `{line}`: {answer}", self.table);
        answer
    }

    /// Waits for a live panel that shows at least `sequence`, wherever it is in
    /// the output: the Watch push may print it before the ack. Leaves the cursor.
    pub async fn panel_at(&mut self, sequence: u64) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let found =
                self.out.snapshot().into_iter().find(|line| {
                    is_live_panel(&line.value) && line.value["sequence"].as_u64().is_some_and(|seen| seen >= sequence)
                });
            if let Some(line) = found {
                return line.value;
            }
            assert!(
                Instant::now() < deadline,
                "agent {}: no live panel at sequence {sequence} within {WAIT:?}:\n{}",
                self.table,
                self.out.dump(0)
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// Closes the input: `run` returns, its supervisor stops.
    pub async fn stop(mut self) {
        self.input.take();
        match tokio::time::timeout(WAIT, &mut self.task).await {
            Ok(Ok(result)) => result.expect("the agent ends cleanly"),
            Ok(Err(error)) => panic!("agent {}: {error}", self.table),
            Err(_) => {
                self.task.abort();
                panic!("agent {}: did not stop within {WAIT:?} of its input closing", self.table)
            }
        }
    }
}

// ----------------------------------------------------------------------------- in-process server

/// `pozo_server::serve` in this runtime, with the embedded layout and keys.
pub struct TestServer {
    pub address: SocketAddr,
    pub data: PathBuf,
    _directory: tempfile::TempDir,
    embedded: pozo_server::Embedded,
}

impl TestServer {
    pub async fn start() -> TestServer {
        let directory = tempfile::tempdir().expect("a temporary directory");
        let data = directory.path().to_path_buf();
        let start = pozo_server::Embedded::start(pozo_server::config::Config::embedded(), &data, Default::default());
        let embedded = tokio::time::timeout(WAIT, start).await.expect("the server starts in time").expect("the server started");
        TestServer { address: embedded.address, data, _directory: directory, embedded }
    }

    pub fn url(&self) -> String {
        self.embedded.url.clone()
    }

    pub async fn stop(self) {
        let result = tokio::time::timeout(PROCESS_WAIT, self.embedded.stop()).await.expect("the server stops in time");
        result.expect("the server stopped cleanly");
    }
}

// ----------------------------------------------------------------------------- a direct, signed client

/// The supervisor whose read credential the direct client's reports carry.
pub const SUPERVISOR_KEY: &str = "sup-carla";

/// What the server recorded, seen without any agent in between.
pub struct Direct {
    pub table: pb::table_client::TableClient<Channel>,
    pub reports: pb::reports_client::ReportsClient<pozo_proto::ReadChannel>,
    /// The journal the server announced when the client connected.
    pub journal_id: String,
}

impl Direct {
    pub async fn connect(address: &str) -> Direct {
        let channel = Channel::from_shared(format!("http://{address}"))
            .expect("uri")
            .connect_timeout(Duration::from_secs(5))
            .timeout(WAIT)
            .connect()
            .await
            .expect("connect to the server");
        let journal_id = pb::controller_client::ControllerClient::new(channel.clone())
            .identify(pb::IdentifyRequest {})
            .await
            .expect("Controller.Identify")
            .into_inner()
            .journal_id;
        let config = pozo_server::config::Config::embedded();
        let supervisor = &config.keys.get(SUPERVISOR_KEY).expect("the embedded keys").secret;
        let read = pozo_proto::ReadCredential::new(SUPERVISOR_KEY, supervisor, &journal_id);
        Direct {
            table: pb::table_client::TableClient::new(channel.clone()),
            reports: pb::reports_client::ReportsClient::with_interceptor(channel, read),
            journal_id,
        }
    }

    pub fn watch_envelope(&self, table: &str) -> pb::Envelope {
        let key = table_key(table);
        let payload = pb::WatchTable { table_id: table.to_owned(), ..Default::default() }.encode_to_vec();
        pozo_proto::sign(&key.id, &key.secret, pozo_proto::Purpose::WatchTable, &self.journal_id, payload)
    }

    /// The table as the server has it now (the first push of a Watch).
    pub async fn view(&mut self, table: &str) -> pb::TableView {
        let watch = self.table.watch(self.watch_envelope(table));
        let mut stream = tokio::time::timeout(WAIT, watch).await.expect("watch in time").expect("watch").into_inner();
        let first = tokio::time::timeout(WAIT, stream.message()).await.expect("a first push in time");
        first.expect("stream").expect("a first push").table.expect("a view")
    }

    /// Collects every push of the table's Watch stream, as the server sends them.
    pub async fn watch_log(&mut self, table: &str) -> Arc<Mutex<Vec<pb::TableEvent>>> {
        let watch = self.table.watch(self.watch_envelope(table));
        let mut stream = tokio::time::timeout(WAIT, watch).await.expect("watch in time").expect("watch").into_inner();
        let log: Arc<Mutex<Vec<pb::TableEvent>>> = Arc::default();
        let sink = log.clone();
        tokio::spawn(async move {
            while let Ok(Some(event)) = stream.message().await {
                sink.lock().expect("log lock").push(event);
            }
        });
        log
    }

    pub async fn journal(&mut self) -> pb::JournalStatus {
        let request = self.reports.journal(pb::JournalStatusRequest {});
        tokio::time::timeout(WAIT, request).await.expect("journal in time").expect("journal status").into_inner()
    }

    /// The table's report for the current jornada.
    pub async fn report(&mut self, table: &str) -> pb::TableReport {
        self.report_of(table, "").await
    }

    /// The table's report for `jornada` ("" for the current one).
    pub async fn report_of(&mut self, table: &str, jornada: &str) -> pb::TableReport {
        let request = self.reports.table(pb::TableReportRequest { table_id: table.to_owned(), jornada: jornada.to_owned() });
        tokio::time::timeout(WAIT, request).await.expect("report in time").expect("table report").into_inner()
    }
}

// ----------------------------------------------------------------------------- the pozo-server binary

/// The `pozo-server` command line, as the test kit builds it.
pub fn server_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_testkit-pozo-server"))
}

// Not every test file spawns a controller process of its own.
#[allow(unused_imports)]
pub use pozo_testkit::process::{ServerProcess, wait_bounded};

// ----------------------------------------------------------------------------- the pozo-agent binary

/// `pozo-agent` as a child process, its stdout collected; SIGKILLed when dropped.
pub struct AgentProcess {
    child: Option<Child>,
    pub stdin: Option<ChildStdin>,
    pub out: Output,
    stderr: PathBuf,
}

impl AgentProcess {
    pub fn spawn(args: &[&str], stderr: &Path) -> AgentProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_testkit-pozo-agent"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(std::fs::File::create(stderr).expect("stderr file")))
            .spawn()
            .expect("pozo-agent starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let stdin = child.stdin.take();
        let (out, collected) = Output::new("pozo-agent");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                push_line(&collected, line);
            }
        });
        AgentProcess { child: Some(child), stdin, out, stderr: stderr.to_path_buf() }
    }

    pub fn stderr_text(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    pub fn write_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(format!("{line}\n").as_bytes()).expect("write to the agent");
        stdin.flush().expect("flush to the agent");
    }

    /// Closes stdin and waits (bounded) for the process to end.
    pub async fn finish(&mut self) -> ExitStatus {
        self.stdin.take();
        let mut child = self.child.take().expect("running");
        let (status, child) = tokio::task::spawn_blocking(move || (wait_bounded(&mut child, PROCESS_WAIT), child))
            .await
            .expect("waiting for pozo-agent");
        match status {
            Some(status) => status,
            None => {
                let mut child = child;
                let _ = child.kill();
                let _ = child.wait();
                panic!("pozo-agent did not end within {PROCESS_WAIT:?} of stdin closing; stderr:\n{}", self.stderr_text())
            }
        }
    }
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

// ----------------------------------------------------------------------------- a proxy that loses answers

#[derive(Clone, Copy, Debug, Default)]
struct ProxyMode {
    /// Connections accepted under an older generation are cut.
    generation: u64,
    /// Server → client bytes are thrown away.
    dropping: bool,
    /// Client → server bytes are thrown away.
    dropping_requests: bool,
}

/// A loopback TCP proxy in front of the server: forwards bytes both ways; on
/// request throws away everything the server sends (a lost answer), and cuts
/// every connection it carries.
pub struct Proxy {
    pub address: SocketAddr,
    mode: Arc<watch::Sender<ProxyMode>>,
    accepted: Arc<std::sync::atomic::AtomicUsize>,
    accept: tokio::task::JoinHandle<()>,
}

impl Proxy {
    pub async fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind the proxy");
        let address = listener.local_addr().expect("bound");
        let mode = Arc::new(watch::Sender::new(ProxyMode::default()));
        let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let modes = mode.clone();
        let counter = accepted.clone();
        let accept = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let mut mode = modes.subscribe();
                let generation = mode.borrow_and_update().generation;
                tokio::spawn(async move {
                    let Ok(server) = TcpStream::connect(upstream).await else { return };
                    let _ = client.set_nodelay(true);
                    let _ = server.set_nodelay(true);
                    let (mut client_read, mut client_write) = client.into_split();
                    let (mut server_read, mut server_write) = server.into_split();
                    let cut = mode.clone();
                    let lose = mode.clone();
                    let up = async {
                        let mut buffer = vec![0u8; 16 * 1024];
                        let mut lost = false;
                        loop {
                            let read = client_read.read(&mut buffer).await?;
                            if read == 0 {
                                return std::io::Result::Ok(());
                            }
                            lost |= lose.borrow().dropping_requests;
                            if !lost {
                                server_write.write_all(&buffer[..read]).await?;
                            }
                        }
                    };
                    let down = async {
                        let mut buffer = vec![0u8; 16 * 1024];
                        // Once a byte was lost the stream is broken for good: drop the rest too.
                        let mut lost = false;
                        loop {
                            let read = server_read.read(&mut buffer).await?;
                            if read == 0 {
                                return std::io::Result::Ok(());
                            }
                            lost |= cut.borrow().dropping;
                            if !lost {
                                client_write.write_all(&buffer[..read]).await?;
                            }
                        }
                    };
                    let mut watch_cut = mode.clone();
                    tokio::select! {
                        _ = up => {}
                        _ = down => {}
                        _ = watch_cut.wait_for(|now| now.generation != generation) => {}
                    }
                    // Both halves drop here: the connection is closed on both sides.
                });
            }
        });
        Proxy { address, mode, accepted, accept }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// How many connections the proxy accepted so far.
    pub fn accepted(&self) -> usize {
        self.accepted.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// From now on, everything the server sends is lost.
    pub fn drop_answers(&self) {
        self.mode.send_modify(|mode| mode.dropping = true);
    }

    /// From now on, everything sent to the server is lost (a silent link).
    pub fn drop_requests(&self) {
        self.mode.send_modify(|mode| mode.dropping_requests = true);
    }

    /// Cuts every connection and forwards again, in one step: a connection made
    /// afterwards loses nothing.
    pub fn cut_all_and_forward(&self) {
        self.mode.send_modify(|mode| {
            mode.generation += 1;
            mode.dropping = false;
            mode.dropping_requests = false;
        });
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.accept.abort();
        self.mode.send_modify(|mode| mode.generation += 1);
    }
}

/// A keys file with one table entry, written in `dir`.
pub fn write_keys_file(dir: &Path, name: &str, id: &str, table: &str, secret_hex: &str) -> PathBuf {
    let path = dir.join(name);
    let text = format!("[[key]]\nid = \"{id}\"\nrole = \"table\"\ntable = \"{table}\"\nsecret = \"{secret_hex}\"\n");
    std::fs::write(&path, text).expect("write a keys file");
    path
}
