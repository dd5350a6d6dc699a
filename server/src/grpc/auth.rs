//! Who may call: the envelope's key, journal and MAC (in constant time over the exact
//! payload bytes), the key's role and table, and the read roles of each service.

use pozo_proto::Purpose;
use pozo_proto::v1 as pb;
use tonic::Request;

use super::error::ApiError;
use crate::config::{Key, Role};
use crate::net::bounded_text;
use crate::writer::Handle;

/// The largest envelope payload accepted: a command is a few dozen bytes.
const PAYLOAD_BYTES_MAX: usize = 4 * 1024;
/// ... but a proposed change carries the configuration's files it changes, whole (a rulebook
/// is some 10 KB): bounded by the gRPC message limit instead.
const CHANGE_PAYLOAD_BYTES_MAX: usize = crate::net::MESSAGE_BYTES_MAX - 1024;

/// Checks an envelope's key, journal and MAC; returns the key. The MAC is compared
/// in constant time over the exact payload bytes received, as `purpose`, for this
/// controller's journal id (never the one the envelope names).
pub(super) fn authenticate<'a>(handle: &'a Handle, envelope: &pb::Envelope, purpose: Purpose) -> Result<&'a Key, ApiError> {
    let limit = if purpose == Purpose::ChangeCommand { CHANGE_PAYLOAD_BYTES_MAX } else { PAYLOAD_BYTES_MAX };
    if purpose != Purpose::TableCommand && !envelope.inspector_pin.is_empty() {
        return Err(ApiError::invalid(format!(
            "inspector_pin: only a table command that names its inspector carries a PIN, not a {}",
            purpose.context()
        )));
    }
    if envelope.payload.len() > limit {
        return Err(ApiError::invalid(format!("payload: {} bytes, over {limit}", envelope.payload.len())));
    }
    let Some(signing) = handle.signing_key(&envelope.key_id) else {
        tracing::warn!(key_id = %bounded_text(&envelope.key_id), "refused: unknown key");
        return Err(ApiError::unauthenticated(format!("key_id: unknown key `{}`", bounded_text(&envelope.key_id))));
    };
    let key = &signing.key;
    if envelope.journal_id != handle.journal_id() {
        // Captured on another journal, or before a restore: a replay, or an agent that
        // has not asked Controller.Identify since the controller changed.
        tracing::warn!(key_id = %key.id, journal_id = %bounded_text(&envelope.journal_id), "refused: signed for another journal");
        return Err(ApiError::unauthenticated(format!(
            "journal_id: signed for journal `{}`; this controller keeps journal `{}` (ask Controller.Identify)",
            bounded_text(&envelope.journal_id),
            handle.journal_id()
        )));
    }
    // A table key's MAC for table commands is keyed once (every press); any other here.
    let verified = match signing.table_mac.as_ref().filter(|_| purpose == Purpose::TableCommand) {
        Some(keyed) => pozo_proto::verify_keyed(keyed, envelope),
        None => pozo_proto::verify(&key.secret, purpose, handle.journal_id(), envelope),
    };
    if !verified {
        // A forged or corrupted command: worth an operator's attention.
        tracing::warn!(key_id = %key.id, "refused: bad MAC");
        return Err(ApiError::unauthenticated(format!(
            "mac: not the HMAC-SHA256 of a {} for this journal under key `{}`",
            purpose.context(),
            key.id
        )));
    }
    Ok(key)
}

/// A person's signed command (Venta-Pagos, Changes): the envelope authenticated for
/// `purpose`, its key's role one of `roles` (else refused, saying who `service` is for), its
/// payload decoded as `M`. Returns the key and the command.
pub(super) fn person_command<'a, M: prost::Message + Default>(
    handle: &'a Handle,
    envelope: &pb::Envelope,
    purpose: Purpose,
    roles: &[Role],
    service: &str,
) -> Result<(&'a Key, M), ApiError> {
    let key = authenticate(handle, envelope, purpose)?;
    if !roles.contains(&key.role) {
        tracing::warn!(key_id = %key.id, role = key.role.name(), service, "refused: a key of another role");
        let message = format!("key `{}` is {} key; {service}", key.id, key.role.with_article());
        let spanish = format!("La clave {} es de {}: no sirve para esto.", key.id, key.role.spanish());
        return Err(ApiError::Refused(
            pozo_core::state::Refusal::new(pozo_core::state::RefusalKind::PermissionDenied, message).castellano(spanish),
        ));
    }
    let command = M::decode(envelope.payload.as_slice())
        .map_err(|error| ApiError::invalid(format!("payload: not a {}: {error}", purpose.context())))?;
    Ok((key, command))
}

/// Who may read reports and journal pages: the jefe de sala.
pub(super) const REPORT_READERS: &[Role] = &[Role::Supervisor, Role::Inspector];
/// Who may read the pools' amounts: every key.
pub(super) const POOL_READERS: &[Role] =
    &[Role::Table, Role::Display, Role::Office, Role::Supervisor, Role::Inspector, Role::FloorInspector];
/// Who may open the display feed from outside its open networks.
pub(super) const DISPLAY_READERS: &[Role] = &[Role::Display, Role::Office, Role::Supervisor, Role::Inspector];

/// Checks a read credential (`authorization: Pozo <key_id>:<token>`, [`pozo_proto::read_token`])
/// and that its key has one of `roles`; returns the key.
pub(super) fn authorize_read<'a, T>(handle: &'a Handle, request: &Request<T>, roles: &[Role]) -> Result<&'a Key, ApiError> {
    let needed = || roles.iter().map(|role| role.name()).collect::<Vec<_>>().join(" or ");
    let Some(value) = request.metadata().get(pozo_proto::AUTHORIZATION) else {
        return Err(ApiError::unauthenticated(format!(
            "authorization: missing; this read needs a {} key's credential (`Pozo <key_id>:<token>`, docs/api.md)",
            needed()
        )));
    };
    let credential = value
        .to_str()
        .ok()
        .and_then(|text| text.strip_prefix("Pozo "))
        .and_then(|text| text.split_once(':'))
        .ok_or_else(|| ApiError::unauthenticated("authorization: not `Pozo <key_id>:<token>`"))?;
    let Some(key) = handle.key(credential.0) else {
        tracing::warn!(key_id = %bounded_text(credential.0), "refused read: unknown key");
        return Err(ApiError::unauthenticated(format!("authorization: unknown key `{}`", bounded_text(credential.0))));
    };
    if !pozo_proto::verify_read_token(&key.secret, handle.journal_id(), credential.1) {
        tracing::warn!(key_id = %key.id, "refused read: bad token");
        return Err(ApiError::unauthenticated(format!(
            "authorization: not key `{}`'s read token for journal `{}`",
            key.id,
            handle.journal_id()
        )));
    }
    if !roles.contains(&key.role) {
        tracing::warn!(key_id = %key.id, "refused read: role");
        return Err(ApiError::denied(format!(
            "key `{}` is {} key; this read needs a {} key",
            key.id,
            key.role.with_article(),
            needed()
        )));
    }
    Ok(key)
}

/// A table key may speak only for its own table.
pub(super) fn require_table_key(key: &Key, table_id: &str) -> Result<(), ApiError> {
    let refusal = match (key.role, key.table.as_deref()) {
        (Role::Table, Some(table)) if table == table_id => return Ok(()),
        (Role::Table, Some(table)) => format!("key `{}` belongs to table {table}, not to table {table_id}", key.id),
        _ => format!("key `{}` is not a table key", key.id),
    };
    tracing::warn!(key_id = %key.id, table_id, "refused: key not for this table");
    Err(ApiError::denied(refusal))
}
