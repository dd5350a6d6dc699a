//! What the pages need of the running controller: the one value every handler is given.

use std::sync::Arc;

use tokio::sync::watch;

use super::feed;
use super::sessions::Sessions;
use crate::read::presence::Presence;
use crate::writer::Handle;

/// What the pages need of the running controller.
#[derive(Clone)]
pub(super) struct Web {
    pub(super) handle: Handle,
    pub(super) presence: Presence,
    pub(super) frames: watch::Receiver<Arc<feed::Frame>>,
    pub(super) sessions: Arc<Sessions>,
    /// Networks whose signs may open `/cartel` without a session (`serve --display-open-to`).
    pub(super) open_to: Arc<Vec<ipnet::IpNet>>,
    /// The gRPC address the controller listens on.
    pub(super) listen: Arc<str>,
    pub(super) data: Arc<std::path::Path>,
    /// The other controllers' pages (`serve --pages-peer`), where a sign goes when this one stops answering.
    pub(super) peers: Arc<[String]>,
}
