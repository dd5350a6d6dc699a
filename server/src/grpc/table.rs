//! The table service: a table agent's signed commands, and the push stream of its panel.

use pozo_proto::Purpose;
use pozo_proto::v1 as pb;
use prost::Message;
use tokio::sync::watch;
use tonic::{Request, Response, Status};
use tracing::instrument;

use super::auth::{authenticate, require_table_key};
use super::error::ApiError;
use super::stream::{EventStream, until_stopped};
use super::wire::{FromWire, ToWire, payload_sha256, required};
use crate::cards::CardSource;
use crate::config::Role;
use crate::net::bounded_text;
use crate::net::secrets::{FAILURES_MAX, Lockout, secret_matches};
use crate::writer::{Handle, WriterError};
use pozo_core::state::{Applied, Command, Refusal, RefusalKind, TableCommand, TableOp};

#[derive(Clone)]
pub(crate) struct TableService {
    pub(crate) handle: Handle,
    pub(crate) cards: CardSource,
    /// Turns true when the controller is asked to stop.
    pub(crate) stop: watch::Receiver<bool>,
    /// Which agents are connected, for the floor view.
    pub(crate) presence: crate::read::presence::Presence,
    /// Floor inspectors who typed wrong PINs lately: five lock one out (`net::secrets`).
    pub(crate) pins: std::sync::Arc<Lockout>,
}

impl TableService {
    /// One signed table command, checked and made durable before it is answered: Submit's
    /// body, and each envelope of a Commands stream.
    async fn one(&self, envelope: pb::Envelope) -> Result<pb::SubmitReply, Status> {
        let key = authenticate(&self.handle, &envelope, Purpose::TableCommand)?;
        let command = pb::TableCommand::decode(envelope.payload.as_slice())
            .map_err(|error| ApiError::invalid(format!("payload: not a TableCommand: {error}")))?;
        require_table_key(key, &command.table_id)?;
        self.presence.heard(&command.table_id);
        let inspector = self.inspector(&command.inspector, &envelope.inspector_pin, &command.table_id).await?;
        if command.sequence == 0 {
            return Err(ApiError::invalid("sequence: starts at 1").into());
        }
        let op = TableOp::from_wire(required("command", command.command)?)?;
        // 15.11.2: the card is drawn here, outside the deterministic state machine,
        // and travels in the journal entry; it is used only if a new card is due.
        // Looked up only for Iniciar Juego: the table's configuration, not read for every press.
        let chance = match op {
            TableOp::StartRound => self.handle.config().instant_card_chance(&command.table_id),
            _ => None,
        };
        let card = match chance {
            Some(chance) => self
                .cards
                .draw(&command.table_id, command.sequence, chance)
                .map_err(|error| ApiError::internal(error.to_string()))?,
            None => None,
        };
        let payload_sha256 = payload_sha256(&envelope.payload);
        let command = Command::Table(TableCommand {
            table_id: command.table_id.into(),
            sequence: command.sequence,
            payload_sha256,
            op,
            card,
            inspector,
        });
        match self.handle.submit(command).await?.map_err(ApiError::Refused)? {
            Applied::Table(reply) | Applied::Duplicate(reply) => Ok(reply.to_wire()),
            _ => Err(ApiError::internal("a table command answered as another kind").into()),
        }
    }

    /// A `WatchTable` signed with that table's own key (Watch, Prizes).
    fn watch_request(&self, envelope: &pb::Envelope) -> Result<pb::WatchTable, ApiError> {
        let key = authenticate(&self.handle, envelope, Purpose::WatchTable)?;
        let watch = pb::WatchTable::decode(envelope.payload.as_slice())
            .map_err(|error| ApiError::invalid(format!("payload: not a WatchTable: {error}")))?;
        require_table_key(key, &watch.table_id)?;
        Ok(watch)
    }

    /// The floor inspector a command names, their PIN checked against their key's hash (4.6,
    /// 4.7, 4.3.1: the inspector acts, not the dealer); `None` for the dealer's own commands.
    /// Nothing is journaled for a refused PIN: the refusal is logged with the inspector's id.
    async fn inspector(&self, id: &str, pin: &str, table: &str) -> Result<Option<String>, ApiError> {
        let refused = |message: String, spanish: String| {
            ApiError::Refused(Refusal::new(RefusalKind::PermissionDenied, message).castellano(spanish))
        };
        if id.is_empty() {
            if !pin.is_empty() {
                return Err(ApiError::invalid("inspector_pin: only a command that names its inspector carries a PIN"));
            }
            return Ok(None);
        }
        let Some(key) = self.handle.key(id).filter(|key| key.role == Role::FloorInspector) else {
            return Err(ApiError::not_found(format!("inspector: no floor inspector `{}` in the keys", bounded_text(id))));
        };
        if pin.is_empty() {
            return Err(ApiError::invalid(format!("inspector_pin: missing: inspector `{}` acts with their PIN", key.id)));
        }
        // Counted per inspector and table: a dealer guessing at one table locks the inspector out
        // of that table's monitor only, not of the whole floor.
        let who = format!("{}@{table}", key.id);
        if let Err(minutes) = self.pins.attempt(&who) {
            return Err(refused(
                format!(
                    "inspector: `{}` is locked out at table {table} for {minutes} minutes after {FAILURES_MAX} wrong PINs",
                    key.id
                ),
                format!(
                    "{} quedó bloqueado en la mesa {table} por {FAILURES_MAX} PIN incorrectos: espere {minutes} minutos o pida ayuda al jefe de sala.",
                    key.name
                ),
            ));
        }
        if secret_matches(key.pin.clone(), pin).await {
            self.pins.succeeded(&who);
            return Ok(Some(key.id.clone()));
        }
        tracing::warn!(inspector = %key.id, table, "refused: wrong inspector PIN");
        Err(match self.pins.failed(&who) {
            Some(minutes) => refused(
                format!(
                    "inspector_pin: not the PIN of `{}`; {FAILURES_MAX} wrong PINs lock them out for {minutes} minutes",
                    key.id
                ),
                format!(
                    "PIN incorrecto. {} quedó bloqueado en la mesa {table} por {FAILURES_MAX} PIN incorrectos: espere {minutes} minutos.",
                    key.name
                ),
            ),
            None => refused(
                format!("inspector_pin: not the PIN of `{}`", key.id),
                format!("PIN incorrecto para {}: nada se registró.", key.name),
            ),
        })
    }
}

/// The longest monitor address an agent may announce.
const MONITOR_URL_BYTES_MAX: usize = 200;

/// Where an agent says it serves its table's monitor, for the flor page's link: HTTPS anywhere,
/// plain HTTP only on loopback (docs/agent.md §11); `None` when it serves none.
fn monitor_url(url: &str) -> Result<Option<&str>, ApiError> {
    if url.is_empty() {
        return Ok(None);
    }
    let refused = || {
        ApiError::invalid(format!(
            "monitor_url: an https:// address (or http:// on a loopback address) of at most {MONITOR_URL_BYTES_MAX} \
             printable bytes, without a user"
        ))
    };
    if url.len() > MONITOR_URL_BYTES_MAX || !url.chars().all(|c| c.is_ascii_graphic()) {
        return Err(refused());
    }
    let uri: tonic::codegen::http::Uri = url.parse().map_err(|_| refused())?;
    let authority = uri.authority().ok_or_else(refused)?;
    if authority.as_str().contains('@') {
        return Err(refused());
    }
    let host = authority.host().trim_start_matches('[').trim_end_matches(']');
    let loopback = host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
    match uri.scheme_str() {
        Some("https") => Ok(Some(url)),
        Some("http") if loopback => Ok(Some(url)),
        _ => Err(refused()),
    }
}

#[tonic::async_trait]
impl pb::table_server::Table for TableService {
    // The calls' spans are at debug: at info a span was opened, and its key formatted, for every
    // press (docs/benchmarks.md, issue 47 step 4); each refusal's line names its key itself.
    #[instrument(level = "debug", skip_all, fields(key_id = %bounded_text(&request.get_ref().key_id)))]
    async fn submit(&self, request: Request<pb::Envelope>) -> Result<Response<pb::SubmitReply>, Status> {
        Ok(Response::new(self.one(request.into_inner()).await?))
    }

    type CommandsStream = EventStream<pb::SubmitReply>;

    // One stream per table agent instead of one call per command: the same checks and the same
    // durability as Submit, without a call's headers, task and stream set up for every press
    // (docs/benchmarks.md, issue 47 step 5). One command at a time: the next envelope is read
    // only after the previous one is answered, so a stream holds at most one in the writer.
    async fn commands(&self, request: Request<tonic::Streaming<pb::Envelope>>) -> Result<Response<Self::CommandsStream>, Status> {
        // Waiting for the next command ends when the controller stops, so that a stream an
        // agent keeps open does not hold the shutdown (a command being answered is finished).
        // The wait is made once for the stream, not once per command: each made one registered
        // with the stop's watch and left it again (docs/benchmarks.md, issue 47 step 13).
        let mut stop = self.stop.clone();
        let stopped: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> = Box::pin(async move {
            // A dropped sender stops as the signal does.
            let _ = stop.wait_for(|stop| *stop).await;
        });
        let replies = futures_util::stream::unfold(Some((self.clone(), request.into_inner(), stopped)), |state| async move {
            let (service, mut envelopes, mut stopped) = state?;
            let next = tokio::select! {
                biased;
                () = &mut stopped => Err(ApiError::Stopping(WriterError::Stopped).into()),
                next = envelopes.message() => next,
            };
            // Once `stopped` is ready the stream ends here: it is never polled again.
            let envelope = match next {
                Ok(Some(envelope)) => envelope,
                Ok(None) => return None,
                Err(status) => return Some((Err(status), None)),
            };
            match service.one(envelope).await {
                Ok(reply) => Some((Ok(reply), Some((service, envelopes, stopped)))),
                // A refused command ends the stream with its status, as Submit answers it.
                Err(status) => Some((Err(status), None)),
            }
        });
        Ok(Response::new(Box::pin(replies)))
    }

    type WatchStream = EventStream<pb::TableEvent>;

    #[instrument(level = "debug", skip_all, fields(key_id = %bounded_text(&request.get_ref().key_id)))]
    async fn watch(&self, request: Request<pb::Envelope>) -> Result<Response<Self::WatchStream>, Status> {
        let watch = self.watch_request(&request.into_inner())?;
        // A table's agent follows the writer: a standby sends it on at once (its --server list).
        if self.handle.role() == crate::read::status::Role::Standby {
            return Err(WriterError::Standby.into());
        }
        let receiver = self
            .handle
            .table(&watch.table_id)
            .ok_or_else(|| ApiError::not_found(format!("table_id: no table `{}` in the layout", watch.table_id)))?;
        let monitor = monitor_url(&watch.monitor_url)?;
        // Connected while the stream's task holds this.
        let watching = self.presence.watching(&watch.table_id, monitor);
        let stream = until_stopped(receiver, self.stop.clone(), move |push| {
            let _ = &watching;
            pb::TableEvent { journal_sequence: push.journal_sequence, table: Some(push.view.to_wire()) }
        });
        Ok(Response::new(stream))
    }

    #[instrument(level = "debug", skip_all, fields(key_id = %bounded_text(&request.get_ref().key_id)))]
    async fn prizes(&self, request: Request<pb::Envelope>) -> Result<Response<pb::PrizeList>, Status> {
        let watch = self.watch_request(&request.into_inner())?;
        let config = self.handle.config();
        let table = config
            .table(&watch.table_id)
            .ok_or_else(|| ApiError::not_found(format!("table_id: no table `{}` in the layout", watch.table_id)))?;
        let rules = config
            .rulebooks
            .pool(&table.pool)
            .ok_or_else(|| ApiError::internal(format!("pool `{}` of table {} has no rules", table.pool, table.id)))?;
        let mut inspectors: Vec<pb::Person> = self
            .handle
            .keys()
            .filter(|key| key.role == Role::FloorInspector)
            .map(|key| pb::Person { id: key.id.clone(), name: key.name.clone() })
            .collect();
        inspectors.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(Response::new(pb::PrizeList {
            table_id: table.id.to_string(),
            pool_id: rules.id.to_string(),
            pool_name: rules.name.clone(),
            game: table.game.name().to_owned(),
            inspectors,
            prizes: rules
                .prizes
                .iter()
                .map(|prize| {
                    // The level that pays it and whether it is the house's (docs/readings.md,
                    // "Levels"); an envy bonus follows another prize's hand ("The envy bonus").
                    let (level, house) = crate::read::signs::paid_from(rules, &prize.code);
                    pb::PrizeLine {
                        code: prize.code.to_string(),
                        name: prize.name.clone(),
                        article: prize.article.clone(),
                        level,
                        pays: pays_in_words(rules, prize),
                        envy: prize.envy_of.is_some(),
                        house,
                        drawn: rules.is_drawn(&prize.code),
                    }
                })
                .collect(),
        }))
    }

    /// The floor inspector's PIN checked as it is typed at the table's monitor (4.6, 4.7), with
    /// the same check and lock-out per inspector and table as a command naming them
    /// ([`TableService::inspector`]). Read-only: nothing is journaled, whatever the answer.
    #[instrument(level = "debug", skip_all, fields(key_id = %bounded_text(&request.get_ref().key_id)))]
    async fn check_inspector(&self, request: Request<pb::Envelope>) -> Result<Response<pb::Person>, Status> {
        let mut envelope = request.into_inner();
        // The PIN travels beside the signed bytes, as a command's does; the envelope is
        // authenticated as the WatchTable it signs (which carries no PIN anywhere else).
        let pin = std::mem::take(&mut envelope.inspector_pin);
        let watch = self.watch_request(&envelope)?;
        if self.handle.config().table(&watch.table_id).is_none() {
            return Err(
                ApiError::not_found(format!("table_id: no table `{}` in the layout", bounded_text(&watch.table_id))).into()
            );
        }
        if watch.inspector.is_empty() {
            return Err(ApiError::invalid("inspector: name the floor inspector whose PIN is checked").into());
        }
        let id = self
            .inspector(&watch.inspector, &pin, &watch.table_id)
            .await?
            .ok_or_else(|| ApiError::invalid("inspector: name the floor inspector whose PIN is checked"))?;
        let name = self.handle.key(&id).map(|key| key.name.clone()).unwrap_or_default();
        Ok(Response::new(pb::Person { id, name }))
    }
}

/// What a prize pays, in the words the dealer's monitor shows beside its name
/// (`PrizeLine.pays`): a share of its level's meter ("100 % del Grand"; "del pozo" in a pool of
/// one level), a fixed amount, a multiple of the bet, or grillos (3.4.1), said to be paid by the
/// house where the house's level pays it (docs/readings.md, "Levels"); an envy bonus says whose
/// hand gives it and to whom ("The envy bonus").
fn pays_in_words(rules: &pozo_engine::PoolRules, prize: &pozo_engine::Prize) -> String {
    use pozo_engine::{EnvyScope, Grillo, PrizeValue};
    let number = |value: rust_decimal::Decimal| value.normalize().to_string().replace('.', ",");
    let (level, house) = crate::read::signs::paid_from(rules, &prize.code);
    let from = if house {
        ", pagado por la casa".to_owned()
    } else if level.is_empty() {
        " del pozo".to_owned()
    } else {
        format!(" del {level}")
    };
    let grant = prize.grants.as_ref().map(|grant| {
        let name = Grillo::of_code(&grant.code).map_or_else(|| grant.code.to_string(), |grillo| grillo.name().to_owned());
        let name = if grant.count == 1 { name } else { name.replacen("Grillo ", "Grillos ", 1) };
        format!("{} {name}", grant.count)
    });
    // What it pays, and from where.
    let (what, from) = match &prize.value {
        PrizeValue::Grant => (format!("entrega {}", grant.clone().unwrap_or_default()), String::new()),
        PrizeValue::Fixed { amount } => (pozo_engine::format_ars(*amount), from),
        PrizeValue::BetMultiple { multiple } => (format!("{} veces la apuesta", number(*multiple)), from),
        PrizeValue::Percent { percent, cap_bet_multiple, floor_bet_multiple } => {
            let mut bounds = String::new();
            if let Some(cap) = cap_bet_multiple {
                bounds.push_str(&format!(", como máximo {} veces la apuesta", number(*cap)));
            }
            if let Some(floor) = floor_bet_multiple {
                bounds.push_str(&format!(", como mínimo {} veces la apuesta", number(*floor)));
            }
            (format!("{} %", number(*percent)), format!("{from}{bounds}"))
        }
    };
    let mut words = match prize.envy_of.as_ref().and_then(|hand| rules.prize(hand)) {
        // An envy bonus: every other seat with a bet in force wins it (docs/readings.md, "The envy bonus").
        Some(hand) => {
            let to = match hand.envy.as_ref().map(|envy| envy.scope) {
                Some(EnvyScope::Link) => "de todas las mesas del pozo",
                _ => "de la mesa",
            };
            format!("envidia por {}: {what} a cada otro puesto con apuesta {to}{from}", hand.name)
        }
        None => format!("{what}{from}"),
    };
    if let (Some(grant), false) = (grant, matches!(prize.value, PrizeValue::Grant)) {
        words.push_str(&format!(" y entrega {grant}"));
    }
    if prize.envy.is_some() {
        words.push_str("; da envidia a los demás puestos con apuesta");
    }
    words
}

// ----------------------------------------------------------------------------- Display

#[cfg(test)]
mod tests {
    use super::*;

    /// The regulations' paytables in words: a pool of one level pays "del pozo"; grillos, fixed
    /// amounts with grillos, and percentages with their caps and floors in the bet (3.4.1, AJ
    /// 2.5.6.2, Andalucía's bolsa).
    #[test]
    fn a_prize_says_what_it_pays_in_words() {
        let config = crate::config::Config::embedded();
        let words = |pool: &str, code: &str| {
            let rules = config.rulebooks.pool(pool).expect("an embedded pool");
            pays_in_words(rules, rules.prize(code).expect("a prize of the pool"))
        };
        assert_eq!(words("iplyc-ruleta", "GRILLO_ORO"), "100 % del pozo");
        assert_eq!(words("iplyc-ruleta", "GRILLO_PLATA"), "$ 300,00 del pozo y entrega 1 Grillo de Oro");
        assert_eq!(words("iplyc-ruleta", "GRILLO_BRONCE"), "entrega 2 Grillos de Plata");
        assert_eq!(words("aj-poker", "ESCALERA_COLOR"), "10 % del pozo, como máximo 5000 veces la apuesta");
        assert_eq!(words("and-bolsa", "TRES_SIETES_MISMO_PALO"), "100 % del pozo, como mínimo 3000 veces la apuesta");
    }
}
