//! The command path: an input line as a signed, numbered command, submitted and retried
//! as the very same bytes until the server answers, and the answer acknowledged.

use pozo_proto::v1 as pb;
use prost::Message;
use tonic::Code;

use super::panel::{amount, code_name};
use super::{ATTEMPT_TIMEOUT, Agent, Pending, RETRY_DELAY};
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
        {
            let mut shared = self.shared.lock().await;
            shared.acknowledged.sequence = shared.acknowledged.sequence.max(reply.sequence);
        }
        let awards = reply
            .awards
            .iter()
            .map(|award| AwardLine {
                seat: award.seat,
                code: &award.code,
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
        let Some((envelope, sequence)) = self.sign_next(&input, command, inspector).await else { return };
        self.send_until_answered(&input, envelope, sequence).await;
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
            let wire = self.wire.clone().lock_owned().await;
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
            let mut client = pb::table_client::TableClient::new(channel);
            match tokio::time::timeout(ATTEMPT_TIMEOUT, client.submit(envelope.clone())).await {
                Ok(Ok(reply)) => {
                    let reply = reply.into_inner();
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
                Ok(Err(status)) if is_decision(status.code()) => {
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
}
