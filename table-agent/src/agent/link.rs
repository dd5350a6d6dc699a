//! The link to the controller: one supervisor keeps the table's Watch stream open,
//! suspends the panels whenever it breaks, reconnects after jittered, growing delays, and
//! on each connection resynchronises the table and the command in flight (3.7.6).

use std::time::Duration;

use pozo_proto::v1 as pb;
use prost::Message;
use tonic::Code;
use tonic::transport::{Channel, Endpoint};

use super::panel::code_name;
use super::submit::is_decision;
use super::{
    ATTEMPT_TIMEOUT, Acknowledged, Agent, CONNECT_TIMEOUT, KEEPALIVE_INTERVAL, KEEPALIVE_TIMEOUT, RECONNECT_BASE, RECONNECT_CAP,
};
use crate::output::{OutputLine, PersonName, PrizeName};

/// The pauses before each reconnection attempt since the link broke: backon's exponential
/// backoff with jitter. Attempt n waits d + U(0, d), d = base × 2^n up to half the cap, so
/// the thousand agents of a salon that lost the same controller come back spread over a
/// window as long as d instead of in the same instant, and never wait longer than the cap.
pub(super) fn reconnect_delays() -> impl Iterator<Item = Duration> {
    use backon::BackoffBuilder as _;
    backon::ExponentialBuilder::new()
        .with_min_delay(RECONNECT_BASE)
        .with_max_delay(RECONNECT_CAP / 2)
        .with_factor(2.0)
        .with_jitter()
        .without_max_times()
        .build()
}

impl Agent {
    /// Whether the link was up until now.
    async fn set_suspended(&self) -> bool {
        let was = {
            let mut shared = self.shared.lock().await;
            let was = shared.connected;
            shared.connected = false;
            shared.channel = None;
            was
        };
        if was {
            self.emit_panel(true).await;
        }
        was
    }

    /// Keeps the table's stream open; suspends the panels whenever it breaks.
    pub(super) async fn supervise(self) {
        let mut first_failure = true;
        let mut last_refusal = String::new();
        let mut delays = reconnect_delays();
        // A writer and its standby (docs/agent.md §5): each failed or broken link tries the next.
        let servers: Vec<String> = self.config.servers().map(str::to_owned).collect();
        let mut at = 0;
        loop {
            match self.watch_once(&servers[at]).await {
                Ok(()) => {}
                Err(status) if is_decision(status.code()) || status.code() == Code::DataLoss => {
                    // A key the server refuses: say so once, keep trying (it may be rotated).
                    let text = format!("{:?}: {}", status.code(), status.message());
                    if text != last_refusal {
                        self.refused(
                            "(connect)",
                            &code_name(status.code()),
                            status.message(),
                            pozo_proto::motivo(&status).as_deref(),
                        )
                        .await;
                        last_refusal = text;
                    }
                }
                Err(_) => {}
            }
            self.attempted.send_replace(true);
            at = (at + 1) % servers.len();
            if self.set_suspended().await {
                // The link was up: the backoff starts again from the base.
                delays = reconnect_delays();
            }
            if first_failure {
                first_failure = false;
                self.emit_panel(false).await;
            }
            tokio::time::sleep(delays.next().unwrap_or(RECONNECT_CAP)).await;
        }
    }

    /// One connection: open the stream, resynchronise, then follow the pushes.
    async fn watch_once(&self, server: &str) -> Result<(), tonic::Status> {
        let mut endpoint =
            Endpoint::from_shared(server.to_owned()).map_err(|error| tonic::Status::invalid_argument(error.to_string()))?;
        if let Some(tls) = &self.config.tls {
            endpoint = endpoint.tls_config(tls.config()).map_err(|error| tonic::Status::invalid_argument(error.to_string()))?;
        }
        let endpoint = endpoint
            .connect_timeout(CONNECT_TIMEOUT)
            .http2_keep_alive_interval(KEEPALIVE_INTERVAL)
            .keep_alive_timeout(KEEPALIVE_TIMEOUT)
            .keep_alive_while_idle(true)
            .tcp_nodelay(true);
        let channel = endpoint.connect().await.map_err(|error| tonic::Status::unavailable(error.to_string()))?;
        // The journal every envelope is signed for (docs/security.md).
        let identity =
            pb::controller_client::ControllerClient::new(channel.clone()).identify(pb::IdentifyRequest {}).await?.into_inner();
        let payload = pb::WatchTable {
            table_id: self.config.table.clone(),
            monitor_url: self.config.monitor_url.clone().unwrap_or_default(),
            inspector: String::new(),
        }
        .encode_to_vec();
        let mut client = pb::table_client::TableClient::new(channel.clone());
        let envelope = self.sign(pozo_proto::Purpose::WatchTable, &identity.journal_id, payload);
        // The pool's paytable for the monitor, at each connection, and again when a view names
        // another pool (a change moved the table while the link stayed up).
        let mut paytable_pool = self.read_prizes(&mut client, &envelope).await;
        let mut stream = client.watch(envelope.clone()).await?.into_inner();
        let Some(mut first) = stream.message().await? else { return Ok(()) };
        // The command in flight is settled against the record once no attempt at it is on the
        // wire: one sent just before the link broke may be applied after `first` was read, so
        // with a command in flight the record is read again, after that attempt has ended.
        let mut wire = self.wire.clone().lock_owned().await;
        wire.close();
        if self.shared.lock().await.pending.is_some() {
            let mut again = client.watch(envelope.clone()).await?.into_inner();
            if let Some(fresh) = again.message().await? {
                first = fresh;
            }
        }
        self.resync(channel, identity.journal_id, first).await?;
        drop(wire);
        while let Some(event) = stream.message().await? {
            if let Some(view) = event.table {
                let moved = paytable_pool.as_deref().is_some_and(|pool| pool != view.pool_id);
                self.take_view(view, event.journal_sequence, false).await;
                self.emit_panel(false).await;
                if moved {
                    paytable_pool = self.read_prizes(&mut client, &envelope).await;
                }
            }
        }
        Ok(())
    }

    /// Reads the paytable of the table's pool (`Table/Prizes`) and prints it as a `prizes` line;
    /// returns its pool. A controller without it (an older release) or slow to give it: nothing
    /// is printed, the monitor offers no names, and the table plays on.
    async fn read_prizes(&self, client: &mut pb::table_client::TableClient<Channel>, envelope: &pb::Envelope) -> Option<String> {
        match tokio::time::timeout(ATTEMPT_TIMEOUT, client.prizes(envelope.clone())).await {
            Ok(Ok(list)) => {
                let list = list.into_inner();
                // Kept to name the awards on the panel and mark the envy bonuses and the house's.
                self.shared.lock().await.paytable =
                    list.prizes.iter().map(|prize| (prize.code.clone(), super::Paid::of(prize))).collect();
                let prizes = list
                    .prizes
                    .iter()
                    .map(|prize| PrizeName {
                        code: &prize.code,
                        name: &prize.name,
                        article: &prize.article,
                        level: &prize.level,
                        pays: &prize.pays,
                        envy: prize.envy,
                        house: prize.house,
                        drawn: prize.drawn,
                    })
                    .collect();
                let inspectors = list.inspectors.iter().map(|person| PersonName { id: &person.id, name: &person.name }).collect();
                self.emit(OutputLine::Prizes {
                    table: &list.table_id,
                    pool: &list.pool_id,
                    pool_name: &list.pool_name,
                    game: &list.game,
                    prizes,
                    inspectors,
                })
                .await;
                Some(list.pool_id)
            }
            Ok(Err(status)) => {
                tracing::warn!(code = ?status.code(), "the pool's prizes could not be read: {}", status.message());
                None
            }
            Err(_) => {
                tracing::warn!("the pool's prizes were not read in time");
                None
            }
        }
    }

    /// 3.7.6: the table as the server recorded it, and the command that was in
    /// flight settled against that record, before any new event is taken.
    ///
    /// A controller that records fewer of this table's commands than it acknowledged
    /// on the same journal lost them: the agent stays suspended and says so (DataLoss).
    async fn resync(&self, channel: Channel, journal_id: String, event: pb::TableEvent) -> Result<(), tonic::Status> {
        let Some(view) = event.table else { return Ok(()) };
        let journal = event.journal_sequence;
        let last_sequence = view.last_sequence;
        let (pending, same_journal) = {
            let mut shared = self.shared.lock().await;
            let same_journal = shared.acknowledged.journal_id == journal_id;
            if same_journal && last_sequence < shared.acknowledged.sequence {
                return Err(tonic::Status::data_loss(format!(
                    "the controller records this table's commands up to {last_sequence}, but it acknowledged up to {}: \
                     acknowledged commands are missing; pool play stays suspended — call the supervisor (docs/operations.md)",
                    shared.acknowledged.sequence
                )));
            }
            if !same_journal {
                // A new journal, or one restored from a backup (a new epoch): its record is taken whole.
                shared.acknowledged = Acknowledged { journal_id: journal_id.clone(), sequence: last_sequence };
            }
            shared.journal_id = journal_id;
            shared.channel = Some(channel.clone());
            shared.next_sequence = last_sequence + 1;
            (shared.pending.take(), same_journal)
        };
        self.take_view(view.clone(), journal, true).await;
        if let Some(pending) = pending {
            if !same_journal {
                let reason = "not recorded: the controller's journal changed (a restore); nothing was bet — press again";
                let motivo =
                    "No se registró: el registro del controlador cambió (una restauración); no se apostó nada. Repita la orden.";
                self.refused(&pending.input, "not_recorded", reason, Some(motivo)).await;
            } else if last_sequence == pending.sequence {
                // Applied before the link broke: the same bytes fetch the recorded answer.
                let mut client = pb::table_client::TableClient::new(channel.clone());
                match tokio::time::timeout(ATTEMPT_TIMEOUT, client.submit(pending.envelope)).await {
                    Ok(Ok(reply)) => {
                        self.ack(&pending.input, reply.into_inner(), Some("answered after reconnection"), Some((view, journal)))
                            .await;
                    }
                    _ => {
                        let motivo = "El controlador la registró, pero su respuesta no llegó: vea el panel.";
                        self.refused(
                            &pending.input,
                            "suspended",
                            "recorded by the server; its answer could not be fetched",
                            Some(motivo),
                        )
                        .await
                    }
                }
            } else if last_sequence < pending.sequence {
                let reason = "not recorded: the controller was unreachable; nothing was bet (3.7.5) — press again";
                let motivo = "No se registró: el controlador no respondía; no se apostó nada. Repita la orden (3.7.5).";
                self.refused(&pending.input, "not_recorded", reason, Some(motivo)).await;
            } else {
                let reason = "the server's record moved past this command (another agent for this table?); see the panel";
                let motivo = "El registro del controlador ya pasó esta orden (¿otro agente en esta mesa?): vea el panel.";
                self.refused(&pending.input, "superseded", reason, Some(motivo)).await;
            }
        }
        self.shared.lock().await.connected = true;
        self.attempted.send_replace(true);
        self.emit_panel(true).await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the reconnection backoff: a pause that doubles from the base, jittered over a
    // window as long as itself, never over the cap, so agents that lost the same controller
    // spread out.
    #[test]
    fn reconnection_delays_grow_to_the_cap_with_jitter() {
        let runs: Vec<Vec<Duration>> = (0..2_000).map(|_| reconnect_delays().take(40).collect()).collect();
        for attempt in 0..40 {
            let floor = RECONNECT_BASE.saturating_mul(1 << attempt.min(16)).min(RECONNECT_CAP / 2);
            let delays: Vec<Duration> = runs.iter().map(|run| run[attempt as usize]).collect();
            assert!(
                delays.iter().all(|delay| floor <= *delay && *delay <= floor * 2 && *delay <= RECONNECT_CAP),
                "attempt {attempt}: within {floor:?}..{:?}",
                floor * 2
            );
            // The draws cover the whole window, from near its start to near its end.
            let (low, high) = (delays.iter().min().expect("delays"), delays.iter().max().expect("delays"));
            assert!(*low < floor + floor / 20 && *high > floor * 2 - floor / 20, "attempt {attempt}: {low:?}..{high:?}");
            // A thousand agents of the same attempt do not come back in the same 10 ms.
            let mut slots: Vec<u128> = delays.iter().take(1_000).map(|delay| delay.as_millis() / 10).collect();
            slots.sort_unstable();
            let crowd = slots.chunk_by(|a, b| a == b).map(<[u128]>::len).max().unwrap_or(0);
            assert!(crowd < 150, "attempt {attempt}: {crowd} of 1,000 in one 10 ms slot");
        }
        assert_eq!(
            RECONNECT_BASE.saturating_mul(1 << 4).min(RECONNECT_CAP / 2),
            RECONNECT_CAP / 2,
            "the cap is reached by the fifth attempt"
        );
    }
}
