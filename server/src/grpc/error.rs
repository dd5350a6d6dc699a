//! One error for the gRPC layer, [`ApiError`], and its one mapping to a `tonic::Status`.

use tonic::Status;

use crate::writer::WriterError;
use pozo_core::state::{Refusal, RefusalKind};

/// Why a gRPC request is refused. Every refusal of the services is one of these, and
/// [`From<ApiError> for Status`](#impl-From<ApiError>-for-Status) is the one place a kind
/// of refusal becomes a status code (docs/api.md §11).
#[derive(Debug, thiserror::Error)]
pub(crate) enum ApiError {
    /// A field breaks a rule whatever the state: `InvalidArgument`.
    #[error("{0}")]
    Invalid(String),
    /// No key, an unknown key or a bad MAC or token: `Unauthenticated`.
    #[error("{0}")]
    Unauthenticated(String),
    /// A known key that may not do this: `PermissionDenied`.
    #[error("{0}")]
    Denied(String),
    /// No such table, pool or order: `NotFound`.
    #[error("{0}")]
    NotFound(String),
    /// The state machine's refusal, by its own kind.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The controller is stopping: `Unavailable` (retry on the next start).
    #[error(transparent)]
    Stopping(#[from] WriterError),
    /// Something that cannot happen did: `Internal`.
    #[error("{0}")]
    Internal(String),
}

impl ApiError {
    pub(crate) fn invalid(message: impl Into<String>) -> ApiError {
        ApiError::Invalid(message.into())
    }

    pub(crate) fn unauthenticated(message: impl Into<String>) -> ApiError {
        ApiError::Unauthenticated(message.into())
    }

    pub(crate) fn denied(message: impl Into<String>) -> ApiError {
        ApiError::Denied(message.into())
    }

    pub(crate) fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::NotFound(message.into())
    }

    pub(crate) fn internal(message: impl Into<String>) -> ApiError {
        ApiError::Internal(message.into())
    }
}

impl From<ApiError> for Status {
    fn from(error: ApiError) -> Status {
        let spanish = match &error {
            ApiError::Refused(refusal) => refusal.spanish.clone(),
            _ => None,
        };
        let mut status = ApiError::status(error);
        if let Some(spanish) = spanish {
            // For people (the table's monitor): the same refusal in Spanish, beside the English.
            status.metadata_mut().insert_bin(pozo_proto::MOTIVO, tonic::metadata::MetadataValue::from_bytes(spanish.as_bytes()));
        }
        status
    }
}

impl ApiError {
    /// The status of a kind of refusal, with its message.
    fn status(error: ApiError) -> Status {
        match error {
            ApiError::Invalid(message) => Status::invalid_argument(message),
            ApiError::Unauthenticated(message) => Status::unauthenticated(message),
            ApiError::Denied(message) => Status::permission_denied(message),
            ApiError::NotFound(message) => Status::not_found(message),
            ApiError::Refused(Refusal { kind, message, .. }) => match kind {
                RefusalKind::InvalidArgument => Status::invalid_argument(message),
                RefusalKind::FailedPrecondition => Status::failed_precondition(message),
                RefusalKind::NotFound => Status::not_found(message),
                RefusalKind::AlreadyExists => Status::already_exists(message),
                RefusalKind::PermissionDenied => Status::permission_denied(message),
            },
            stopping @ ApiError::Stopping(_) => Status::unavailable(stopping.to_string()),
            ApiError::Internal(message) => Status::internal(message),
        }
    }
}

impl From<WriterError> for Status {
    fn from(error: WriterError) -> Status {
        ApiError::Stopping(error).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Code;

    #[test]
    fn each_kind_of_refusal_becomes_its_own_status_code_with_its_message() {
        let refused = |kind| ApiError::Refused(Refusal::new(kind, "seat: 9 is not a seat of this table"));
        let cases = [
            (ApiError::invalid("payload: 5000 bytes, over 4096"), Code::InvalidArgument),
            (ApiError::unauthenticated("key_id: unknown key `nadie`"), Code::Unauthenticated),
            (ApiError::denied("key `mesa-B2` belongs to table B2"), Code::PermissionDenied),
            (ApiError::not_found("pool_id: no pool `x`"), Code::NotFound),
            (ApiError::Stopping(WriterError::Stopped), Code::Unavailable),
            (ApiError::internal("a table command answered as another kind"), Code::Internal),
            (refused(RefusalKind::InvalidArgument), Code::InvalidArgument),
            (refused(RefusalKind::FailedPrecondition), Code::FailedPrecondition),
            (refused(RefusalKind::NotFound), Code::NotFound),
            (refused(RefusalKind::AlreadyExists), Code::AlreadyExists),
        ];
        for (error, code) in cases {
            let message = error.to_string();
            let status = Status::from(error);
            assert_eq!((status.code(), status.message()), (code, message.as_str()));
        }
        assert_eq!(Status::from(WriterError::Stopped).message(), "the controller is stopping");
    }
}
