//! The command path: an input line as a signed, numbered command, submitted and retried
//! as the very same bytes until the server answers, and the answer acknowledged.

use pozo_proto::v1 as pb;
use prost::Message;
use tonic::Code;

use super::panel::{amount, code_name};
use super::{ATTEMPT_TIMEOUT, Agent, FIRST_ATTEMPT_WAIT, Paid, Pending, RETRY_DELAY};
use crate::line::Pin;
use crate::output::{AwardLine, OutputLine};

/// Codes the server answers with a decision; anything else is the link failing.
pub(super) fn is_decision(code: Code) -> bool {
    matches!(
        code,
        Code::InvalidArgument
            | Code::FailedPrecondition
            | Code::AlreadyExists
            | Code::NotFound
            | Code::PermissionDenied
            | Code::Unauthenticated
            | Code::OutOfRange
    )
}

impl Agent {
    pub(super) fn sign(&self, purpose: pozo_proto::Purpose, journal_id: &str, payload: Vec<u8>) -> pb::Envelope {
        pozo_proto::sign(&self.config.key.id, &self.config.key.secret, purpose, journal_id, payload)
    }

    /// Reports an answer. An answer fetched after a reconnection carries the table as
    /// the command left it, older than the view just taken: then `fresh` keeps that view.
    pub(super) async fn ack(&self, input: &str, reply: pb::SubmitReply, note: Option<&str>, fresh: Option<(pb::TableView, u64)>) {
        let paid: Vec<Paid> = {
            let mut shared = self.shared.lock().await;
            shared.acknowledged.sequence = shared.acknowledged.sequence.max(reply.sequence);
            reply.awards.iter().map(|award| shared.paytable.get(&award.code).cloned().unwrap_or_default()).collect()
        };
        // The level is the award's own (the server names a bank's meter, "Major · F2"); the
        // paytable's for a controller that does not send it.
        let awards = reply
            .awards
            .iter()
            .zip(&paid)
            .map(|(award, paid)| AwardLine {
                seat: award.seat,
                code: &award.code,
                level: if award.level.is_empty() { &paid.level } else { &award.level },
                envy: paid.envy,
                award: amount(&award.award),
                payout_order_id: &award.payout_order_id,
            })
            .collect();
        self.emit(OutputLine::Ack {
            input,
            sequence: reply.sequence,
            journal_sequence: reply.journal_sequence,
            outcome: &reply.outcome,
            awards,
            note,
        })
        .await;
        if let Some((view, journal)) = fresh.or(reply.table.map(|view| (view, reply.journal_sequence))) {
            self.take_view(view, journal, false).await;
        }
        self.emit_panel(false).await;
    }

    /// Signs and sends one command; retries the same bytes until the server answers
    /// or the link is lost.
    /// `inspector`: the floor inspector acting at the monitor and their PIN (4.6, 4.7, 4.3.1).
    pub(super) async fn submit(&self, input: String, command: pb::table_command::Command, inspector: Option<(String, Pin)>) {
        self.first_attempt().await;
        let Some((envelope, sequence)) = self.sign_next(&input, command, inspector).await else { return };
        self.send_until_answered(&input, envelope, sequence).await;
    }

    /// Waits, at most [`FIRST_ATTEMPT_WAIT`], for the agent's first connection attempt to end:
    /// lines piped to an agent just started are played once it is connected, not refused as
    /// unreachable before it has tried.
    async fn first_attempt(&self) {
        let mut attempted = self.attempted.subscribe();
        let _ = tokio::time::timeout(FIRST_ATTEMPT_WAIT, attempted.wait_for(|attempted| *attempted)).await;
    }

    /// The command numbered and signed, and kept as the one in flight; `None`, refused
    /// here, while the link is down or the previous command is unanswered.
    async fn sign_next(
        &self,
        input: &str,
        command: pb::table_command::Command,
        inspector: Option<(String, Pin)>,
    ) -> Option<(pb::Envelope, u64)> {
        let mut shared = self.shared.lock().await;
        if !shared.connected {
            drop(shared);
            if !*self.attempted.borrow() {
                // The first connection attempt has not ended within the wait: not known unreachable yet.
                let reason = "not connected yet: the first connection to the controller is still being tried; \
                              nothing was bet (3.7.5) — press again";
                let motivo = "Todavía sin enlace: el primer intento de conexión con el controlador sigue en curso; \
                              no se apostó nada. Repita la orden (3.7.5).";
                self.refused(input, "suspended", reason, Some(motivo)).await;
                return None;
            }
            let reason = "pool play is suspended: the controller is unreachable; no side bet is accepted (3.7.5)";
            let motivo = "Pozo SUSPENDIDO: sin enlace con el controlador no se acepta ninguna apuesta al pozo (3.7.5).";
            self.refused(input, "suspended", reason, Some(motivo)).await;
            return None;
        }
        if shared.pending.is_some() {
            drop(shared);
            let motivo = "La orden anterior todavía no tiene respuesta: espere y repita.";
            self.refused(input, "busy", "the previous command is still unanswered", Some(motivo)).await;
            return None;
        }
        let sequence = shared.next_sequence;
        let (inspector, pin) = inspector.map_or((String::new(), String::new()), |(inspector, pin)| (inspector, pin.0));
        let payload =
            pb::TableCommand { table_id: self.config.table.clone(), sequence, command: Some(command), inspector }.encode_to_vec();
        // The PIN beside the signed bytes, never inside them: the journal keeps their digest.
        let envelope =
            pb::Envelope { inspector_pin: pin, ..self.sign(pozo_proto::Purpose::TableCommand, &shared.journal_id, payload) };
        shared.pending = Some(Pending { sequence, envelope: envelope.clone(), input: input.to_owned() });
        Some((envelope, sequence))
    }

    /// The command in flight, sent until the server answers (acknowledged or refused), the
    /// link is lost, or the supervisor settles it after a reconnection.
    async fn send_until_answered(&self, input: &str, envelope: pb::Envelope, sequence: u64) {
        loop {
            let mut wire = self.wire.clone().lock_owned().await;
            let channel = {
                let shared = self.shared.lock().await;
                if shared.pending.as_ref().map(|pending| pending.sequence) != Some(sequence) {
                    // Settled by the supervisor after a reconnection.
                    return;
                }
                if !shared.connected {
                    drop(shared);
                    let reason =
                        "no answer before the link was lost; the command is checked against the server's record on reconnection";
                    let motivo =
                        "Sin respuesta antes de perder el enlace: al volver se compara con el registro del controlador (3.7.6).";
                    return self.refused(input, "suspended", reason, Some(motivo)).await;
                }
                shared.channel.clone()
            };
            let Some(channel) = channel else { return };
            match wire.attempt(channel, envelope.clone()).await {
                Ok(reply) => {
                    {
                        let mut shared = self.shared.lock().await;
                        if shared.pending.as_ref().map(|pending| pending.sequence) != Some(sequence) {
                            return;
                        }
                        shared.pending = None;
                        shared.next_sequence = reply.sequence + 1;
                    }
                    drop(wire);
                    return self.ack(input, reply, None, None).await;
                }
                Err(status) if is_decision(status.code()) => {
                    // A refusal does not use the sequence (docs/api.md §3).
                    self.shared.lock().await.pending = None;
                    drop(wire);
                    let motivo = pozo_proto::motivo(&status);
                    return self.refused(input, &code_name(status.code()), status.message(), motivo.as_deref()).await;
                }
                // Timed out or the link failed: the same bytes again, never a new command.
                _ => {
                    drop(wire);
                    tokio::time::sleep(RETRY_DELAY).await;
                }
            }
        }
    }

    /// The floor inspector's PIN, typed at the monitor, checked by the controller before any of
    /// their buttons opens (4.6, 4.7; `Table/CheckInspector`, read-only: nothing is journaled,
    /// and a wrong PIN counts towards the same lock-out as a command's). Printed as a `pin` line:
    /// accepted with their name, or refused with the controller's words. Asked once: a PIN is
    /// never sent again on its own.
    pub(super) async fn check_pin(self, inspector: String, pin: Pin) {
        let (channel, journal_id) = {
            let shared = self.shared.lock().await;
            (shared.channel.clone().filter(|_| shared.connected), shared.journal_id.clone())
        };
        let refused = |code: &str, reason: &str, motivo: Option<&str>| {
            let (inspector, code, reason) = (inspector.clone(), code.to_owned(), reason.to_owned());
            let motivo = motivo.map(str::to_owned);
            let agent = self.clone();
            async move {
                let line = OutputLine::Pin {
                    inspector: &inspector,
                    accepted: false,
                    name: "",
                    code: &code,
                    reason: &reason,
                    motivo: motivo.as_deref(),
                };
                agent.emit(line).await;
            }
        };
        let Some(channel) = channel else {
            let reason = "pool play is suspended: the controller is unreachable; the PIN was not checked (3.7.5)";
            let motivo = "Pozo SUSPENDIDO: sin enlace con el controlador no se puede comprobar el PIN (3.7.5).";
            return refused("suspended", reason, Some(motivo)).await;
        };
        let payload = pb::WatchTable { table_id: self.config.table.clone(), inspector: inspector.clone(), ..Default::default() };
        // The PIN beside the signed bytes, never inside them, as a command's.
        let envelope = pb::Envelope {
            inspector_pin: pin.0,
            ..self.sign(pozo_proto::Purpose::WatchTable, &journal_id, payload.encode_to_vec())
        };
        let mut client = pb::table_client::TableClient::new(channel);
        match tokio::time::timeout(ATTEMPT_TIMEOUT, client.check_inspector(envelope)).await {
            Ok(Ok(person)) => {
                let person = person.into_inner();
                let line = OutputLine::Pin {
                    inspector: &person.id,
                    accepted: true,
                    name: &person.name,
                    code: "",
                    reason: "",
                    motivo: None,
                };
                self.emit(line).await;
            }
            Ok(Err(status)) => {
                let motivo = pozo_proto::motivo(&status).or_else(|| match status.code() {
                    Code::NotFound => Some("Ese inspector no está entre las claves del controlador.".to_owned()),
                    Code::Unimplemented => {
                        Some("El controlador no comprueba el PIN por separado: actualícelo (docs/agent.md §11).".to_owned())
                    }
                    _ => None,
                });
                refused(&code_name(status.code()), status.message(), motivo.as_deref()).await;
            }
            Err(_) => {
                let reason = "the controller did not answer the PIN check in time";
                let motivo = "El controlador no respondió a tiempo: ingrese el PIN otra vez.";
                refused("unavailable", reason, Some(motivo)).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tokio::sync::{Mutex, mpsc};

    use super::*;
    use crate::agent::{AgentConfig, Shared};
    use crate::key::Key;

    /// An agent that has not connected, its first connection attempt ended (`attempted`) or not.
    fn unconnected(attempted: bool) -> (Agent, mpsc::Receiver<String>) {
        let (output, printed) = mpsc::channel(16);
        let config = AgentConfig {
            server: "http://127.0.0.1:1".into(),
            table: "B1".into(),
            key: Key { id: "mesa-B1".into(), secret: vec![7; 32] },
            tls: None,
            monitor_url: None,
        };
        let agent = Agent {
            config: Arc::new(config),
            shared: Arc::new(Mutex::new(Shared::default())),
            output,
            wire: Arc::default(),
            attempted: Arc::new(tokio::sync::watch::Sender::new(attempted)),
        };
        (agent, printed)
    }

    // Proves that a command typed before the agent's first connection attempt has ended waits
    // for it (bounded: FIRST_ATTEMPT_WAIT of paused time), and if it is still under way is
    // refused as "not connected yet", not as a controller known to be unreachable; once an
    // attempt has failed, the refusal is the suspension's (3.7.5), at once.
    #[tokio::test(start_paused = true)]
    async fn a_command_before_the_first_attempt_waits_for_it_then_says_not_connected_yet() {
        let open = || pb::table_command::Command::OpenTable(pb::OpenTable {});
        let (agent, mut printed) = unconnected(false);
        let typed = tokio::time::Instant::now();
        agent.submit("open".into(), open(), None).await;
        assert_eq!(typed.elapsed(), FIRST_ATTEMPT_WAIT, "it waited for the first attempt, no longer");
        let refused: serde_json::Value = serde_json::from_str(&printed.recv().await.expect("a line")).expect("JSON");
        assert_eq!(refused["code"], "suspended", "{refused}");
        assert!(refused["reason"].as_str().is_some_and(|reason| reason.starts_with("not connected yet")), "{refused}");

        let (agent, mut printed) = unconnected(true);
        let typed = tokio::time::Instant::now();
        agent.submit("open".into(), open(), None).await;
        assert_eq!(typed.elapsed(), std::time::Duration::ZERO, "a failed attempt: refused at once");
        let refused: serde_json::Value = serde_json::from_str(&printed.recv().await.expect("a line")).expect("JSON");
        assert!(refused["reason"].as_str().is_some_and(|reason| reason.contains("the controller is unreachable")), "{refused}");
    }
}
