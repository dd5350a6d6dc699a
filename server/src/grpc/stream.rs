//! The push streams (a table's panel, the displays' feed): a watch turned into a gRPC
//! stream that ends when the controller stops.

use std::pin::Pin;

use tokio::sync::{mpsc, watch};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Status;

use crate::writer::WriterError;

use super::error::ApiError;

/// A server-streaming answer.
pub(super) type EventStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

/// Follows a watch channel, newest value first, until the controller stops: the
/// stream then ends with UNAVAILABLE at once, so agents and displays show
/// `suspended` without waiting out the shutdown grace. A reader that falls behind
/// gets the newest value, never a queue (capacity 1).
pub(super) fn until_stopped<T, U>(
    mut receiver: watch::Receiver<T>,
    mut stop: watch::Receiver<bool>,
    convert: impl Fn(&T) -> U + Send + 'static,
) -> EventStream<U>
where
    T: Send + Sync + 'static,
    U: Send + 'static,
{
    let (sender, stream) = mpsc::channel(1);
    tokio::spawn(async move {
        let stopping = || Status::from(ApiError::Stopping(WriterError::Stopped));
        loop {
            let item = convert(&receiver.borrow_and_update());
            tokio::select! {
                biased;
                _ = stop.wait_for(|stop| *stop) => { let _ = sender.try_send(Err(stopping())); return; }
                sent = sender.send(Ok(item)) => if sent.is_err() { return },
            }
            tokio::select! {
                biased;
                _ = stop.wait_for(|stop| *stop) => { let _ = sender.try_send(Err(stopping())); return; }
                changed = receiver.changed() => if changed.is_err() { return },
                _ = sender.closed() => return,
            }
        }
    });
    Box::pin(ReceiverStream::new(stream))
}
