//! The Venta-Pagos service: the office's signed decisions on payout orders and its list.

use pozo_proto::Purpose;
use pozo_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::auth::person_command;
use super::error::ApiError;
use super::wire::{FromWire, payout_order, required};
use crate::config::{Key, Role};
use crate::net::bounded_text;
use crate::writer::Handle;
use pozo_core::state::{Applied, Command, OfficeCommand, OfficeOp, OrderStatus};

pub(crate) struct VentaPagosService {
    pub(crate) handle: Handle,
}

impl VentaPagosService {
    /// An office command signed by a key of one of `roles`; returns the key and the command.
    fn office_command<'a>(
        &'a self,
        envelope: &pb::Envelope,
        roles: &[Role],
    ) -> Result<(&'a Key, pb::office_command::Command), Status> {
        let (key, command): (_, pb::OfficeCommand) =
            person_command(&self.handle, envelope, Purpose::OfficeCommand, roles, "Venta-Pagos needs an operator's office key")?;
        Ok((key, required("command", command.command)?))
    }

    async fn decide(&self, key: &Key, op: OfficeOp) -> Result<Response<pb::PayoutOrder>, Status> {
        let command = Command::Office(OfficeCommand { key_id: key.id.clone(), operator_name: key.name.clone(), op });
        match self.handle.submit(command).await?.map_err(ApiError::Refused)? {
            Applied::Office(order) | Applied::OfficeDuplicate(order) => {
                Ok(Response::new(payout_order(&self.handle.config().rulebooks, &order)))
            }
            _ => Err(ApiError::internal("an office command answered as another kind").into()),
        }
    }
}

#[tonic::async_trait]
impl pb::venta_pagos_server::VentaPagos for VentaPagosService {
    async fn list(&self, request: Request<pb::Envelope>) -> Result<Response<pb::PayoutList>, Status> {
        let (_, command) = self.office_command(request.get_ref(), &[Role::Office, Role::Supervisor])?;
        let pb::office_command::Command::List(list) = command else {
            return Err(ApiError::invalid("command: List takes a ListPayouts").into());
        };
        let all = match list.status.as_str() {
            "" | "pendiente" => false,
            "all" | "todas" => true,
            other => {
                return Err(ApiError::invalid(format!(
                    "status: `{}` is not \"\" or \"pendiente\" (pending orders) or \"all\" or \"todas\" (every order)",
                    bounded_text(other)
                ))
                .into());
            }
        };
        let config = self.handle.config();
        let orders = self
            .handle
            .read()
            .orders()
            .filter(|order| all || order.status == OrderStatus::Pending)
            .map(|order| payout_order(&config.rulebooks, order))
            .collect();
        Ok(Response::new(pb::PayoutList { orders }))
    }

    async fn confirm(&self, request: Request<pb::Envelope>) -> Result<Response<pb::PayoutOrder>, Status> {
        let (key, command) = self.office_command(request.get_ref(), &[Role::Office])?;
        let pb::office_command::Command::Confirm(confirm) = command else {
            return Err(ApiError::invalid("command: Confirm takes a ConfirmPayout").into());
        };
        self.decide(key, OfficeOp::from_wire(confirm)?).await
    }

    async fn reject(&self, request: Request<pb::Envelope>) -> Result<Response<pb::PayoutOrder>, Status> {
        let (key, command) = self.office_command(request.get_ref(), &[Role::Office])?;
        let pb::office_command::Command::Reject(reject) = command else {
            return Err(ApiError::invalid("command: Reject takes a RejectPayout").into());
        };
        self.decide(key, OfficeOp::from_wire(reject)?).await
    }
}

// ----------------------------------------------------------------------------- Controller
