//! `pozo-agent status`: can this table's agent reach the controller and be heard? It connects
//! as the agent does (the same address, TLS and key), identifies the journal, opens the
//! table's watch with a signed envelope and reads the table as the controller keeps it, then
//! leaves. Nothing is sent that changes anything (docs/agent.md §9, "Is this table connected?").

use std::time::Duration;

use pozo_proto::v1 as pb;
use prost::Message as _;
use serde::Serialize;
use tonic::transport::Endpoint;

use crate::AgentConfig;

/// How long `status` waits for the controller, all steps together.
const STATUS_TIMEOUT: Duration = Duration::from_secs(5);

/// What `status` found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct AgentStatus {
    server: String,
    table: String,
    /// The key the agent signs with (its id; never the secret).
    key_id: String,
    journal_id: String,
    /// The table as the controller keeps it: `cerrada`, `apuestas`, `en juego`, `aceptado`.
    state: String,
    round: u64,
    /// The table's last applied command: the agent's next is this plus one.
    last_sequence: u64,
    pool: String,
    /// Each seat: its light (`on`, `blue`, `off`) and credits.
    seats: Vec<SeatStatus>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
struct SeatStatus {
    seat: u32,
    light: &'static str,
    credits: u32,
}

/// Why `status` could not say the table is reachable.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StatusError {
    /// The controller did not answer (down, wrong address, TLS not agreed, too slow).
    #[error("no answer from {server}: {message}")]
    Unreachable { server: String, message: String },
    /// The controller answered and refused this agent (its key, its table).
    #[error("the controller refused table {table}'s watch ({code:?}): {message}")]
    Refused { table: String, code: tonic::Code, message: String },
}

/// Connects, identifies and reads the table once: at the first of the agent's controllers that
/// answers (a writer and its standby are tried in turn), or says why none did.
pub(crate) async fn status(config: &AgentConfig) -> Result<AgentStatus, StatusError> {
    let mut last = None;
    for server in config.servers() {
        let answer = match tokio::time::timeout(STATUS_TIMEOUT, read(config, server)).await {
            Ok(result) => result,
            Err(_) => {
                Err(StatusError::Unreachable { server: server.to_owned(), message: format!("no answer in {STATUS_TIMEOUT:?}") })
            }
        };
        match answer {
            Err(StatusError::Unreachable { .. }) => last = Some(answer),
            answer => return answer,
        }
    }
    last.unwrap_or_else(|| Err(StatusError::Unreachable { server: config.server.clone(), message: "no address".to_owned() }))
}

async fn read(config: &AgentConfig, server: &str) -> Result<AgentStatus, StatusError> {
    let unreachable = |message: String| StatusError::Unreachable { server: server.to_owned(), message };
    let refused = |status: tonic::Status| match status.code() {
        tonic::Code::Unavailable | tonic::Code::DeadlineExceeded | tonic::Code::Unknown => {
            unreachable(status.message().to_owned())
        }
        code => StatusError::Refused { table: config.table.clone(), code, message: status.message().to_owned() },
    };
    let mut endpoint = Endpoint::from_shared(server.to_owned()).map_err(|error| unreachable(error.to_string()))?;
    if let Some(tls) = &config.tls {
        endpoint = endpoint.tls_config(tls.config()).map_err(|error| unreachable(error.to_string()))?;
    }
    let channel = endpoint.connect_timeout(crate::agent::CONNECT_TIMEOUT).connect().await.map_err(|error| {
        unreachable(format!("{error}: {}", std::error::Error::source(&error).map(ToString::to_string).unwrap_or_default()))
    })?;
    let identity = pb::controller_client::ControllerClient::new(channel.clone())
        .identify(pb::IdentifyRequest {})
        .await
        .map_err(refused)?
        .into_inner();
    let payload = pb::WatchTable { table_id: config.table.clone(), ..Default::default() }.encode_to_vec();
    let envelope =
        pozo_proto::sign(&config.key.id, &config.key.secret, pozo_proto::Purpose::WatchTable, &identity.journal_id, payload);
    let mut stream = pb::table_client::TableClient::new(channel).watch(envelope).await.map_err(refused)?.into_inner();
    let first = stream.message().await.map_err(refused)?.ok_or_else(|| unreachable("the watch ended at once".to_owned()))?;
    let view = first.table.ok_or_else(|| unreachable("a watch update without the table".to_owned()))?;
    Ok(AgentStatus {
        server: server.to_owned(),
        table: view.table_id.clone(),
        key_id: config.key.id.clone(),
        journal_id: identity.journal_id,
        state: view.state.clone(),
        round: view.round,
        last_sequence: view.last_sequence,
        pool: view.pool_id.clone(),
        seats: view
            .seats
            .iter()
            .map(|seat| SeatStatus { seat: seat.seat, light: crate::agent::light(seat.light, false), credits: seat.credits })
            .collect(),
    })
}

impl AgentStatus {
    /// For the dealer or the technician at the table, in the operators' Spanish.
    pub(crate) fn text(&self) -> String {
        let mut out = format!(
            "mesa {} — controlador {}: CONECTADA (clave {}, diario {})\n",
            self.table, self.server, self.key_id, self.journal_id
        );
        out.push_str(&format!(
            "estado {}, ronda {}, último comando {} (el próximo es el {}), pozo {}\n",
            self.state,
            self.round,
            self.last_sequence,
            self.last_sequence + 1,
            self.pool
        ));
        for seat in &self.seats {
            out.push_str(&format!("  puesto {}: luz {}, créditos {}\n", seat.seat, seat.light, seat.credits));
        }
        out
    }
}
