//! Changes and money movements signed as each person and sent to the Changes service, as
//! `pozo-server change` and the sala's pages send them (docs/operations.md §8).

use pozo_proto::v1 as pb;
use prost::Message;

use super::Client;

pub const CARLA: &str = "sup-carla";
pub const DIEGO: &str = "sup-diego";
pub const ELENA: &str = "insp-elena";

/// Signs change commands as `key_id` and sends them to the Changes service.
pub async fn change(client: &Client, key_id: &str, command: pb::change_command::Command) -> Result<pb::Proposal, tonic::Status> {
    let payload = pb::ChangeCommand { command: Some(command) }.encode_to_vec();
    let envelope = client.envelope_as(key_id, pozo_proto::Purpose::ChangeCommand, payload);
    let mut changes = pb::changes_client::ChangesClient::new(client.channel.clone());
    let answer = match pb::ChangeCommand::decode(envelope.payload.as_slice()).expect("ours").command.expect("set") {
        pb::change_command::Command::Propose(_) => changes.propose(envelope).await,
        pb::change_command::Command::Approve(_) => changes.approve(envelope).await,
        pb::change_command::Command::Withdraw(_) => changes.withdraw(envelope).await,
        pb::change_command::Command::List(_) => unreachable!("listed by `proposals`"),
    };
    answer.map(tonic::Response::into_inner)
}

/// Every proposal, as `key_id` lists them.
pub async fn proposals(client: &Client, key_id: &str) -> Vec<pb::Proposal> {
    let payload = pb::ChangeCommand { command: Some(pb::change_command::Command::List(pb::ListChanges {})) }.encode_to_vec();
    let envelope = client.envelope_as(key_id, pozo_proto::Purpose::ChangeCommand, payload);
    let mut changes = pb::changes_client::ChangesClient::new(client.channel.clone());
    changes.list(envelope).await.expect("listed").into_inner().proposals
}

/// A proposal of `what`, with a reason and an authorisation.
pub fn propose(what: pb::propose_change::What) -> pb::change_command::Command {
    pb::change_command::Command::Propose(pb::ProposeChange {
        reason: "Resolución del Instituto para la temporada".into(),
        authorisation: "IPLyC Nota 123/26".into(),
        what: Some(what),
    })
}

/// A configuration change of `edits`.
pub fn edits(edits: Vec<pb::config_edit::Edit>) -> pb::propose_change::What {
    pb::propose_change::What::Configuration(pb::ConfigurationChange {
        edits: edits.into_iter().map(|edit| pb::ConfigEdit { edit: Some(edit) }).collect(),
        ..Default::default()
    })
}

/// The approval of `proposal`.
pub fn approve(proposal: &pb::Proposal) -> pb::change_command::Command {
    pb::change_command::Command::Approve(pb::ApproveChange { proposal_id: proposal.proposal_id.clone() })
}

/// A setting of a pool (`minimum`, `venta_pagos_over`, …) as a proposal's one edit.
pub fn pool_setting(pool: &str, setting: &str, value: &str) -> pb::propose_change::What {
    edits(vec![pb::config_edit::Edit::PoolSetting(pb::PoolSetting {
        pool_id: pool.into(),
        setting: setting.into(),
        value: value.into(),
    })])
}
