//! The Changes service: a change to the configuration in force or a movement of a pool's
//! money, proposed by one supervisor and approved by another person, for scripts and
//! `pozo-server change` (docs/operations.md §8). The sala's pages do the same.

use pozo_proto::Purpose;
use pozo_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::auth::person_command;
use super::error::ApiError;
use super::wire::required;
use crate::config::{Edit, Key, Role, TableConfig};
use crate::writer::Handle;
use pozo_core::state::{Applied, ChangeCommand, ChangeOp, Command, Effect, Person, Proposal, Proposed};
use pozo_engine::Money;

pub(crate) struct ChangesService {
    pub(crate) handle: Handle,
}

/// Who may list, propose, approve and withdraw: the jefe de sala and the regulator's inspector
/// (the state machine then says which of them may do what).
const CHANGE_ROLES: &[Role] = &[Role::Supervisor, Role::Inspector];

impl ChangesService {
    fn change_command(&self, envelope: &pb::Envelope) -> Result<(&Key, pb::change_command::Command), Status> {
        let (key, command): (_, pb::ChangeCommand) = person_command(
            &self.handle,
            envelope,
            Purpose::ChangeCommand,
            CHANGE_ROLES,
            "changes are proposed and approved by supervisors and the inspector, each with their own key",
        )?;
        Ok((key, required("command", command.command)?))
    }

    async fn submit(&self, key: &Key, op: ChangeOp) -> Result<Response<pb::Proposal>, Status> {
        let command = Command::Change(ChangeCommand { key_id: key.id.clone(), op });
        match self.handle.submit(command).await?.map_err(ApiError::Refused)? {
            Applied::Change(proposal) => Ok(Response::new(proposal_wire(&proposal, self.handle.now_ms()))),
            _ => Err(ApiError::internal("a change command answered as another kind").into()),
        }
    }
}

/// What a proposal asks for, as the state machine takes it: edits written into the files in force.
pub(crate) fn proposed_of(handle: &Handle, what: pb::propose_change::What) -> Result<Proposed, ApiError> {
    let amount = |field: &str, amount: Option<pb::Amount>| -> Result<Money, ApiError> {
        let amount = amount.ok_or_else(|| ApiError::invalid(format!("{field}: required")))?;
        amount
            .value
            .trim()
            .parse::<Money>()
            .map_err(|_| ApiError::invalid(format!("{field}: `{}` is not an amount", amount.value)))
    };
    Ok(match what {
        pb::propose_change::What::Configuration(change) => {
            let config = handle.config();
            let mut files: Vec<(String, String)> = Vec::new();
            if !change.edits.is_empty() {
                let edits = change.edits.into_iter().map(edit_of).collect::<Result<Vec<_>, _>>()?;
                files = config.edited(&edits).map_err(|error| ApiError::invalid(error.to_string()))?;
            }
            for file in change.files {
                files.retain(|(name, _)| crate::config::stable_name(name) != crate::config::stable_name(&file.name));
                files.push((file.name, file.text));
            }
            Proposed::Configuration { files, effect: Effect::from_jornada(&change.effect_jornada) }
        }
        pb::propose_change::What::Transfer(transfer) => Proposed::Transfer {
            from: transfer.from_pool_id.into(),
            to: transfer.to_pool_id.into(),
            amount: amount("amount", transfer.amount)?,
        },
        pb::propose_change::What::RetirePool(retire) => {
            Proposed::RetirePool { pool: retire.pool_id.into(), to: retire.to_pool_id.into() }
        }
        pb::propose_change::What::RetireLevel(retire) => {
            Proposed::RetireLevel { pool: retire.pool_id.into(), level: retire.level, to: retire.to_level }
        }
        pb::propose_change::What::Adjust(adjust) => {
            Proposed::Adjust { pool: adjust.pool_id.into(), amount: amount("amount", adjust.amount)? }
        }
        pb::propose_change::What::Tournament(structure) => Proposed::Tournament { text: structure.text },
    })
}

fn edit_of(edit: pb::ConfigEdit) -> Result<Edit, ApiError> {
    Ok(match required("edit", edit.edit)? {
        pb::config_edit::Edit::AddTable(table) => Edit::AddTable(TableConfig::added(
            &table.table_id,
            &table.flor,
            &table.pool_id,
            pozo_engine::Game::parse(&table.game).map_err(|problem| ApiError::invalid(format!("game: {problem}")))?,
            table.seats,
            &table.salon,
        )),
        pb::config_edit::Edit::RetireTable(table_id) => Edit::RetireTable { table_id: table_id.into() },
        pb::config_edit::Edit::MoveTable(moved) => {
            Edit::MoveTable { table_id: moved.table_id.into(), pool_id: moved.pool_id.into() }
        }
        pb::config_edit::Edit::TableService(service) => {
            Edit::Service { table_id: service.table_id.into(), in_service: service.in_service }
        }
        pb::config_edit::Edit::PoolSetting(setting) => {
            Edit::Pool { pool_id: setting.pool_id.into(), setting: setting.setting, value: setting.value }
        }
        pb::config_edit::Edit::PrizeSetting(setting) => {
            Edit::Prize { pool_id: setting.pool_id.into(), code: setting.code, setting: setting.setting, value: setting.value }
        }
    })
}

/// A proposal as the API shows it, its status at `now_ms` (a pending one a week old is VENCIDO).
pub(crate) fn proposal_wire(proposal: &Proposal, now_ms: u64) -> pb::Proposal {
    let person = |person: &Person| pb::ChangePerson {
        key_id: person.key_id.clone(),
        name: person.name.clone(),
        role: person.role.clone(),
        journal_sequence: person.sequence,
        time_ms: person.time_ms,
    };
    let kind = match proposal.proposed {
        Proposed::Configuration { .. } => "configuration",
        Proposed::Transfer { .. } => "transfer",
        Proposed::RetirePool { .. } => "retire_pool",
        Proposed::RetireLevel { .. } => "retire_level",
        Proposed::Adjust { .. } => "adjust",
        Proposed::Tournament { .. } => "tournament",
    };
    pb::Proposal {
        proposal_id: proposal.proposal_id.clone(),
        status: proposal.status_spanish(now_ms).to_owned(),
        summary: proposal.summary(),
        reason: proposal.reason.clone(),
        authorisation: proposal.authorisation.clone(),
        proposed_by: Some(person(&proposal.proposed_by)),
        approved_by: proposal.approved_by.as_ref().map(person),
        withdrawn_by: proposal.withdrawn_by.as_ref().map(person),
        withdrawn_reason: proposal.withdrawn_reason.clone(),
        differences: proposal
            .differences
            .iter()
            .map(|difference| pb::ChangeDifference {
                text: difference.describe(),
                setting: difference.setting.clone(),
                before: difference.before.clone(),
                after: difference.after.clone(),
                money: difference.money,
            })
            .collect(),
        effect: proposal.effect_spanish(),
        effective_sequence: proposal.effective_sequence,
        effective_ms: proposal.effective_ms,
        kind: kind.to_owned(),
    }
}

#[tonic::async_trait]
impl pb::changes_server::Changes for ChangesService {
    async fn list(&self, request: Request<pb::Envelope>) -> Result<Response<pb::ProposalList>, Status> {
        let (_, command) = self.change_command(request.get_ref())?;
        let pb::change_command::Command::List(_) = command else {
            return Err(ApiError::invalid("command: List takes a ListChanges").into());
        };
        let model = self.handle.read();
        let now_ms = self.handle.now_ms();
        let proposals = model.proposals().map(|proposal| proposal_wire(proposal, now_ms)).collect();
        Ok(Response::new(pb::ProposalList { proposals, config_hash: model.config.hash.clone() }))
    }

    async fn propose(&self, request: Request<pb::Envelope>) -> Result<Response<pb::Proposal>, Status> {
        let (key, command) = self.change_command(request.get_ref())?;
        let pb::change_command::Command::Propose(propose) = command else {
            return Err(ApiError::invalid("command: Propose takes a ProposeChange").into());
        };
        let proposed = proposed_of(&self.handle, required("what", propose.what)?)?;
        self.submit(key, ChangeOp::Propose { proposed, reason: propose.reason, authorisation: propose.authorisation }).await
    }

    async fn approve(&self, request: Request<pb::Envelope>) -> Result<Response<pb::Proposal>, Status> {
        let (key, command) = self.change_command(request.get_ref())?;
        let pb::change_command::Command::Approve(approve) = command else {
            return Err(ApiError::invalid("command: Approve takes an ApproveChange").into());
        };
        self.submit(key, ChangeOp::Approve { proposal_id: approve.proposal_id }).await
    }

    async fn withdraw(&self, request: Request<pb::Envelope>) -> Result<Response<pb::Proposal>, Status> {
        let (key, command) = self.change_command(request.get_ref())?;
        let pb::change_command::Command::Withdraw(withdraw) = command else {
            return Err(ApiError::invalid("command: Withdraw takes a WithdrawChange").into());
        };
        self.submit(key, ChangeOp::Withdraw { proposal_id: withdraw.proposal_id, reason: withdraw.reason }).await
    }
}
