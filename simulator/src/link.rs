//! One table's agent, run in this process through the table agent library, fed
//! hardware lines and read back line by line — exactly what a table's hardware
//! sees. It keeps what the simulator needs of the panels: the newest one, and
//! every moment a seat light turned on, with the table sequence it turned on at.

use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::Value;
use tokio::sync::mpsc;

/// Hardware lines waiting for the agent.
const LINES_CAPACITY: usize = 64;

/// How long an agent may take to answer one line before the night is abandoned.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a line may stay unsettled while the agent's link is lost.
pub const LINK_LOST_MAX: Duration = Duration::from_secs(60);

/// How long an agent may take to connect.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// The agent's answer to one line.
#[derive(Clone, Debug)]
pub enum Answer {
    /// Recorded by the server: the `ack` line.
    Ack(Value),
    /// Refused, with the code and the reason.
    Refused { code: String, reason: String },
}

/// A seat light turning on, as the panel showed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LightOn {
    pub seat: u32,
    /// The table's command sequence the panel showed.
    pub sequence: u64,
}

pub struct AgentLink {
    pub table: String,
    lines: mpsc::Sender<String>,
    output: mpsc::Receiver<String>,
    task: tokio::task::JoinHandle<anyhow::Result<()>>,
    /// The newest panel.
    pub panel: Value,
    lights: Vec<String>,
    /// Every light that turned on.
    pub lights_on: Vec<LightOn>,
    /// Press latencies, microseconds.
    pub press_latencies_us: Vec<u64>,
    /// Lines the agent could not settle at once because its link was lost.
    pub link_losses: u64,
}

impl AgentLink {
    /// Starts the agent of `table` and waits until its panel is live.
    pub async fn start(server: &str, table: &str, key: table_agent::key::Key) -> anyhow::Result<AgentLink> {
        let (lines, lines_receiver) = mpsc::channel(LINES_CAPACITY);
        let (output_sender, output) = mpsc::channel(table_agent::agent::OUTPUT_CAPACITY);
        let config =
            table_agent::AgentConfig { server: server.to_owned(), table: table.to_owned(), key, tls: None, monitor_url: None };
        let task = tokio::spawn(table_agent::run(config, lines_receiver, output_sender));
        let mut link = AgentLink {
            table: table.to_owned(),
            lines,
            output,
            task,
            panel: Value::Null,
            lights: Vec::new(),
            lights_on: Vec::new(),
            press_latencies_us: Vec::new(),
            link_losses: 0,
        };
        let deadline = Instant::now() + CONNECT_TIMEOUT;
        while link.panel["suspended"] != Value::Bool(false) {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = tokio::time::timeout(left, link.output.recv())
                .await
                .with_context(|| format!("table {table}: the agent did not connect within {CONNECT_TIMEOUT:?}"))?
                .with_context(|| format!("table {table}: the agent stopped"))?;
            link.take(&line)?;
        }
        // What was lit before the night is not the night's.
        link.lights_on.clear();
        Ok(link)
    }

    /// Reads one output line; a panel is taken in.
    fn take(&mut self, line: &str) -> anyhow::Result<Value> {
        let value: Value = serde_json::from_str(line).with_context(|| format!("table {}: agent wrote `{line}`", self.table))?;
        if value["type"] == "panel" {
            self.observe(&value);
        }
        Ok(value)
    }

    fn observe(&mut self, panel: &Value) {
        let sequence = panel["sequence"].as_u64().unwrap_or(0);
        if panel["suspended"] != Value::Bool(true)
            && let Some(seats) = panel["seats"].as_array()
        {
            if self.lights.len() < seats.len() {
                self.lights.resize(seats.len(), String::new());
            }
            for (index, seat) in seats.iter().enumerate() {
                let light = seat["light"].as_str().unwrap_or_default();
                if light == "on" && self.lights[index] != "on" {
                    self.lights_on.push(LightOn { seat: index as u32 + 1, sequence });
                }
                self.lights[index] = light.to_owned();
            }
        }
        self.panel = panel.clone();
    }

    /// The newest panel's table sequence.
    pub fn sequence(&self) -> u64 {
        self.panel["sequence"].as_u64().unwrap_or(0)
    }

    /// Sends one hardware line and waits for its answer; once acknowledged, also for
    /// the panel the command left (it may have come first, pushed).
    ///
    /// A lost link is not an answer: the agent settles a command that was in flight
    /// against the server's record when it reconnects (an `ack` "answered after
    /// reconnection", or `not_recorded`), and refuses new ones while suspended. The
    /// dealer waits for the settlement, and presses again what was not recorded, as
    /// the agent asks; only a link that stays lost ends the night.
    pub async fn send(&mut self, line: &str) -> anyhow::Result<Answer> {
        let sent = Instant::now();
        let deadline = sent + LINK_LOST_MAX;
        self.lines.send(line.to_owned()).await.with_context(|| format!("table {}: the agent stopped", self.table))?;
        let answer = loop {
            anyhow::ensure!(
                Instant::now() < deadline,
                "table {}: `{line}` unsettled after {LINK_LOST_MAX:?}: the agent's link to the controller stays lost",
                self.table
            );
            let value = self.next_line().await?;
            if value["input"] != line {
                continue;
            }
            let code = value["code"].as_str().unwrap_or_default();
            match value["type"].as_str() {
                Some("ack") => break Answer::Ack(value),
                // In flight when the link broke: settled on reconnection; wait for it.
                Some("refused") if code == "suspended" && self.in_flight(&value) => {
                    self.link_losses += 1;
                }
                // Not sent (suspended), or sent and not recorded: again once the panel is live.
                Some("refused") if code == "suspended" || code == "not_recorded" => {
                    self.link_losses += 1;
                    self.wait_live(deadline).await?;
                    self.lines.send(line.to_owned()).await.with_context(|| format!("table {}: the agent stopped", self.table))?;
                }
                Some("refused") => {
                    break Answer::Refused {
                        code: code.to_owned(),
                        reason: value["reason"].as_str().unwrap_or_default().to_owned(),
                    };
                }
                _ => {}
            }
        };
        if let Answer::Ack(ack) = &answer {
            if line.starts_with("press ") {
                self.press_latencies_us.push(sent.elapsed().as_micros() as u64);
            }
            let sequence = ack["sequence"].as_u64().unwrap_or(0);
            while self.sequence() < sequence {
                self.next_line().await?;
            }
        }
        Ok(answer)
    }

    /// A refusal for a command the agent had sent when the link broke (its answer comes on reconnection).
    fn in_flight(&self, refusal: &serde_json::Value) -> bool {
        refusal["reason"].as_str().is_some_and(|reason| reason.starts_with("no answer before the link was lost"))
    }

    /// Waits until the agent's panel is live again.
    async fn wait_live(&mut self, deadline: Instant) -> anyhow::Result<()> {
        while self.panel["suspended"] != serde_json::Value::Bool(false) {
            anyhow::ensure!(Instant::now() < deadline, "table {}: the agent's link to the controller stays lost", self.table);
            self.next_line().await?;
        }
        Ok(())
    }

    async fn next_line(&mut self) -> anyhow::Result<Value> {
        let line = tokio::time::timeout(ANSWER_TIMEOUT, self.output.recv())
            .await
            .with_context(|| format!("table {}: no answer from the agent within {ANSWER_TIMEOUT:?}", self.table))?
            .with_context(|| format!("table {}: the agent stopped", self.table))?;
        self.take(&line)
    }

    /// Takes every line the agent has written so far (pushed panels).
    pub fn drain(&mut self) -> anyhow::Result<()> {
        while let Ok(line) = self.output.try_recv() {
            self.take(&line)?;
        }
        Ok(())
    }

    /// Stops the agent: its input closes.
    pub async fn stop(self) {
        drop(self.lines);
        let abort = self.task.abort_handle();
        if tokio::time::timeout(Duration::from_secs(2), self.task).await.is_err() {
            abort.abort();
        }
    }
}
