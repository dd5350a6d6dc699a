//! `pozo-server change`: list, propose, approve and withdraw changes and money movements
//! over the Changes service, signed with the person's own key (docs/operations.md §8).
//! The sala's pages do the same in a browser.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use pozo_proto::Purpose;
use pozo_proto::v1 as pb;
use prost::Message;

use crate::config::KEYS_EMBEDDED;

/// How long `change` waits for the controller.
const CHANGE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Who signs, and where the controller is.
#[derive(Args)]
pub(super) struct Signer {
    /// The controller's gRPC address, plaintext on loopback only (`http://127.0.0.1:50051`).
    #[arg(long, default_value = "http://127.0.0.1:50051", value_name = "URL")]
    server: String,
    /// Your key's id (a supervisor's to propose; a supervisor's or the inspector's to approve).
    #[arg(long, value_name = "ID")]
    key: String,
    /// The keys file holding your key (default: the embedded examples).
    #[arg(long, value_name = "FILE")]
    keys: Option<PathBuf>,
    /// Print the answer as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
#[expect(clippy::large_enum_variant, reason = "parsed once per run; a proposal's options are what they are")]
pub(super) enum ChangeCommand {
    /// Every proposal, newest first: pending, scheduled, in force, withdrawn.
    List {
        #[command(flatten)]
        signer: Signer,
    },
    /// Propose a change (edits of the files in force) or a money movement; another person approves it.
    Propose {
        #[command(flatten)]
        signer: Signer,
        /// Why (journaled).
        #[arg(long)]
        reason: String,
        /// The regulator's authorisation reference (journaled).
        #[arg(long)]
        authorisation: String,
        /// A pool setting: `POOL.SETTING=VALUE` (`iplyc-blackjack.minimum=6000.00`); repeatable.
        #[arg(long = "set", value_name = "POOL.SETTING=VALUE")]
        settings: Vec<String>,
        /// A paytable amount: `POOL.CODE.SETTING=VALUE` (`iplyc-ruleta.GRILLO_PLATA.amount=350.00`).
        #[arg(long = "prize", value_name = "POOL.CODE.SETTING=VALUE")]
        prizes: Vec<String>,
        /// A table added: `ID,FLOR,POOL,GAME,SEATS[,SALON]`.
        #[arg(long, value_name = "ID,FLOR,POOL,GAME,SEATS")]
        add_table: Vec<String>,
        /// A table retired (closed, holding nothing).
        #[arg(long, value_name = "ID")]
        retire_table: Vec<String>,
        /// A table moved to another pool: `ID=POOL`.
        #[arg(long, value_name = "ID=POOL")]
        move_table: Vec<String>,
        /// A table taken out of service.
        #[arg(long, value_name = "ID")]
        out_of_service: Vec<String>,
        /// A table put back in service.
        #[arg(long, value_name = "ID")]
        in_service: Vec<String>,
        /// A whole file: `NAME=PATH` (`config/aj-bolivia.toml=./aj-bolivia.toml`, or a new rulebook).
        #[arg(long = "file", value_name = "NAME=PATH")]
        files: Vec<String>,
        /// A money setting of a live pool takes effect from this jornada (YYYY-MM-DD) instead
        /// of after the pool's next top prize.
        #[arg(long, value_name = "DATE")]
        effect_jornada: Option<String>,
        /// Money moved between pools: `FROM:TO:AMOUNT`.
        #[arg(long, value_name = "FROM:TO:AMOUNT", conflicts_with_all = ["settings", "retire_pool", "adjust"])]
        transfer: Option<String>,
        /// A pool retired, its money to another: `POOL:TO`.
        #[arg(long, value_name = "POOL:TO", conflicts_with_all = ["settings", "adjust"])]
        retire_pool: Option<String>,
        /// A level retired, its money to another level of the same pool: `POOL:LEVEL:TO`
        /// (`mercado-blackjack:Minor:Major`).
        #[arg(long, value_name = "POOL:LEVEL:TO", conflicts_with_all = ["settings", "adjust", "retire_pool", "transfer"])]
        retire_level: Option<String>,
        /// A documented adjustment: `POOL:AMOUNT` (signed: `iplyc-ruleta:-150.00`).
        #[arg(long, value_name = "POOL:AMOUNT", conflicts_with = "settings")]
        adjust: Option<String>,
    },
    /// Approve another person's proposal.
    Approve {
        #[command(flatten)]
        signer: Signer,
        /// The proposal (`CB-000001`).
        proposal_id: String,
    },
    /// Withdraw a pending or scheduled proposal.
    Withdraw {
        #[command(flatten)]
        signer: Signer,
        proposal_id: String,
        #[arg(long)]
        reason: String,
    },
}

pub(super) fn run_change(command: ChangeCommand) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let (signer, payload) = payload_of(command)?;
        let secret = secret_of(&signer.key, signer.keys.as_deref())?;
        if !signer.server.starts_with("http://127.")
            && !signer.server.starts_with("http://[::1]")
            && !signer.server.starts_with("http://localhost")
        {
            anyhow::bail!("--server: `{}` is not loopback: commands travel in plaintext only on this machine", signer.server);
        }
        let channel = tonic::transport::Channel::from_shared(signer.server.clone())?.timeout(CHANGE_TIMEOUT).connect().await?;
        let identity = pb::controller_client::ControllerClient::new(channel.clone()).identify(pb::IdentifyRequest {}).await?;
        let envelope = pozo_proto::sign(
            &signer.key,
            &secret,
            Purpose::ChangeCommand,
            &identity.into_inner().journal_id,
            payload.encode_to_vec(),
        );
        let mut changes = pb::changes_client::ChangesClient::new(channel);
        // People read the refusal in the regulation's Spanish, as the pages show it; the
        // English (for programs and logs) only where the controller wrote no Spanish.
        let refused = |status: tonic::Status| {
            let words = pozo_proto::motivo(&status).unwrap_or_else(|| status.message().to_owned());
            anyhow::anyhow!("{:?}: {words}", status.code())
        };
        match payload.command.expect("set") {
            pb::change_command::Command::List(_) => {
                let list = changes.list(envelope).await.map_err(refused)?.into_inner();
                for proposal in &list.proposals {
                    print_proposal(proposal, signer.json)?;
                }
            }
            pb::change_command::Command::Propose(_) => {
                print_proposal(&changes.propose(envelope).await.map_err(refused)?.into_inner(), signer.json)?
            }
            pb::change_command::Command::Approve(_) => {
                print_proposal(&changes.approve(envelope).await.map_err(refused)?.into_inner(), signer.json)?
            }
            pb::change_command::Command::Withdraw(_) => {
                print_proposal(&changes.withdraw(envelope).await.map_err(refused)?.into_inner(), signer.json)?
            }
        }
        Ok(())
    })
}

fn secret_of(key_id: &str, keys: Option<&Path>) -> anyhow::Result<Vec<u8>> {
    let (name, text) = match keys {
        Some(path) => (path.display().to_string(), std::fs::read_to_string(path)?),
        None => (KEYS_EMBEDDED.0.to_owned(), KEYS_EMBEDDED.1.to_owned()),
    };
    let parsed: crate::config::KeysFile = toml::from_str(&text).map_err(|error| anyhow::anyhow!("{name}: {error}"))?;
    let key =
        parsed.keys.iter().find(|key| key.id == key_id).ok_or_else(|| anyhow::anyhow!("--key: no key `{key_id}` in {name}"))?;
    hex::decode(key.secret.trim()).map_err(|_| anyhow::anyhow!("{name}: key `{key_id}`: the secret is not hex"))
}

fn payload_of(command: ChangeCommand) -> anyhow::Result<(Signer, pb::ChangeCommand)> {
    use pb::change_command::Command as C;
    let (signer, command) = match command {
        ChangeCommand::List { signer } => (signer, C::List(pb::ListChanges {})),
        ChangeCommand::Approve { signer, proposal_id } => (signer, C::Approve(pb::ApproveChange { proposal_id })),
        ChangeCommand::Withdraw { signer, proposal_id, reason } => {
            (signer, C::Withdraw(pb::WithdrawChange { proposal_id, reason }))
        }
        ChangeCommand::Propose { signer, reason, authorisation, transfer, retire_pool, retire_level, adjust, .. }
            if transfer.is_some() || retire_pool.is_some() || retire_level.is_some() || adjust.is_some() =>
        {
            let what = match retire_level {
                Some(retire) => {
                    let parts: Vec<&str> = retire.split(':').collect();
                    let [pool, level, to] = parts[..] else { anyhow::bail!("--retire-level: `{retire}` is not POOL:LEVEL:TO") };
                    pb::propose_change::What::RetireLevel(pb::LevelRetirement {
                        pool_id: pool.into(),
                        level: level.into(),
                        to_level: to.into(),
                    })
                }
                None => money_move(transfer, retire_pool, adjust)?,
            };
            (signer, C::Propose(pb::ProposeChange { reason, authorisation, what: Some(what) }))
        }
        ChangeCommand::Propose {
            signer,
            reason,
            authorisation,
            settings,
            prizes,
            add_table,
            retire_table,
            move_table,
            out_of_service,
            in_service,
            files,
            effect_jornada,
            ..
        } => {
            let mut edits: Vec<pb::config_edit::Edit> = Vec::new();
            for setting in settings {
                let (pool, setting, value) = split3(&setting, '.', "--set", "POOL.SETTING=VALUE")?;
                edits.push(pb::config_edit::Edit::PoolSetting(pb::PoolSetting { pool_id: pool, setting, value }));
            }
            for prize in prizes {
                let (target, value) =
                    prize.split_once('=').ok_or_else(|| anyhow::anyhow!("--prize: `{prize}` is not POOL.CODE.SETTING=VALUE"))?;
                let parts: Vec<&str> = target.split('.').collect();
                let [pool, code, setting] = parts[..] else { anyhow::bail!("--prize: `{prize}` is not POOL.CODE.SETTING=VALUE") };
                edits.push(pb::config_edit::Edit::PrizeSetting(pb::PrizeSetting {
                    pool_id: pool.into(),
                    code: code.into(),
                    setting: setting.into(),
                    value: value.into(),
                }));
            }
            for table in add_table {
                edits.push(pb::config_edit::Edit::AddTable(table_to_add(&table)?));
            }
            edits.extend(retire_table.into_iter().map(pb::config_edit::Edit::RetireTable));
            for moved in move_table {
                let (table_id, pool_id) =
                    moved.split_once('=').ok_or_else(|| anyhow::anyhow!("--move-table: `{moved}` is not ID=POOL"))?;
                edits
                    .push(pb::config_edit::Edit::MoveTable(pb::TableMove { table_id: table_id.into(), pool_id: pool_id.into() }));
            }
            let service =
                |table_id: String, in_service| pb::config_edit::Edit::TableService(pb::TableService { table_id, in_service });
            edits.extend(out_of_service.into_iter().map(|table| service(table, false)));
            edits.extend(in_service.into_iter().map(|table| service(table, true)));
            let files = files.iter().map(|file| file_of(file)).collect::<anyhow::Result<Vec<_>>>()?;
            let change = pb::ConfigurationChange {
                files,
                edits: edits.into_iter().map(|edit| pb::ConfigEdit { edit: Some(edit) }).collect(),
                effect_jornada: effect_jornada.unwrap_or_default(),
            };
            let what = pb::propose_change::What::Configuration(change);
            (signer, C::Propose(pb::ProposeChange { reason, authorisation, what: Some(what) }))
        }
    };
    Ok((signer, pb::ChangeCommand { command: Some(command) }))
}

fn money_move(
    transfer: Option<String>,
    retire_pool: Option<String>,
    adjust: Option<String>,
) -> anyhow::Result<pb::propose_change::What> {
    let amount = |value: &str| Some(pb::Amount { value: value.to_owned() });
    if let Some(transfer) = transfer {
        let parts: Vec<&str> = transfer.split(':').collect();
        let [from, to, value] = parts[..] else { anyhow::bail!("--transfer: `{transfer}` is not FROM:TO:AMOUNT") };
        return Ok(pb::propose_change::What::Transfer(pb::PoolTransfer {
            from_pool_id: from.into(),
            to_pool_id: to.into(),
            amount: amount(value),
        }));
    }
    if let Some(retire) = retire_pool {
        let (pool, to) = retire.split_once(':').ok_or_else(|| anyhow::anyhow!("--retire-pool: `{retire}` is not POOL:TO"))?;
        return Ok(pb::propose_change::What::RetirePool(pb::PoolRetirement { pool_id: pool.into(), to_pool_id: to.into() }));
    }
    let adjust = adjust.unwrap_or_default();
    let (pool, value) = adjust.split_once(':').ok_or_else(|| anyhow::anyhow!("--adjust: `{adjust}` is not POOL:AMOUNT"))?;
    Ok(pb::propose_change::What::Adjust(pb::PoolAdjustment { pool_id: pool.into(), amount: amount(value) }))
}

fn split3(text: &str, separator: char, flag: &str, form: &str) -> anyhow::Result<(String, String, String)> {
    let (target, value) = text.split_once('=').ok_or_else(|| anyhow::anyhow!("{flag}: `{text}` is not {form}"))?;
    let (first, second) = target.split_once(separator).ok_or_else(|| anyhow::anyhow!("{flag}: `{text}` is not {form}"))?;
    Ok((first.to_owned(), second.to_owned(), value.to_owned()))
}

fn table_to_add(text: &str) -> anyhow::Result<pb::TableToAdd> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let (id, flor, pool, game, seats, salon) = match parts[..] {
        [id, flor, pool, game, seats] => (id, flor, pool, game, seats, ""),
        [id, flor, pool, game, seats, salon] => (id, flor, pool, game, seats, salon),
        _ => anyhow::bail!("--add-table: `{text}` is not ID,FLOR,POOL,GAME,SEATS[,SALON]"),
    };
    let seats = seats.parse().map_err(|_| anyhow::anyhow!("--add-table: seats `{seats}` is not a number"))?;
    Ok(pb::TableToAdd {
        table_id: id.into(),
        flor: flor.into(),
        pool_id: pool.into(),
        game: game.into(),
        seats,
        salon: salon.into(),
    })
}

fn file_of(text: &str) -> anyhow::Result<pb::ConfigFile> {
    let (name, path) = text.split_once('=').ok_or_else(|| anyhow::anyhow!("--file: `{text}` is not NAME=PATH"))?;
    let bytes = std::fs::metadata(path)?.len();
    if bytes > crate::config::CONFIG_FILE_BYTES_MAX {
        anyhow::bail!("--file: {path} is {bytes} bytes, over {}", crate::config::CONFIG_FILE_BYTES_MAX);
    }
    Ok(pb::ConfigFile { name: name.into(), text: std::fs::read_to_string(path)? })
}

fn print_proposal(proposal: &pb::Proposal, json: bool) -> anyhow::Result<()> {
    if json {
        let person = |person: &Option<pb::ChangePerson>| {
            person.as_ref().map(|person| serde_json::json!({"key_id": person.key_id, "name": person.name, "role": person.role, "journal_sequence": person.journal_sequence}))
        };
        let value = serde_json::json!({
            "proposal_id": proposal.proposal_id,
            "status": proposal.status,
            "kind": proposal.kind,
            "summary": proposal.summary,
            "reason": proposal.reason,
            "authorisation": proposal.authorisation,
            "effect": proposal.effect,
            "proposed_by": person(&proposal.proposed_by),
            "approved_by": person(&proposal.approved_by),
            "withdrawn_by": person(&proposal.withdrawn_by),
            "effective_sequence": proposal.effective_sequence,
            "differences": proposal.differences.iter().map(|difference| difference.text.clone()).collect::<Vec<_>>(),
        });
        println!("{value}");
        return Ok(());
    }
    let name = |person: &Option<pb::ChangePerson>| person.as_ref().map(|person| person.name.clone()).unwrap_or_default();
    println!("{} {} — {}", proposal.proposal_id, proposal.status, proposal.summary);
    println!(
        "  propuesto por {}; motivo: {}; autorización: {}",
        name(&proposal.proposed_by),
        proposal.reason,
        proposal.authorisation
    );
    if proposal.approved_by.is_some() {
        println!("  aprobado por {}", name(&proposal.approved_by));
    }
    if !proposal.effect.is_empty() {
        println!("  entra en vigor {}", proposal.effect);
    }
    for difference in &proposal.differences {
        println!("  · {}", difference.text);
    }
    Ok(())
}
