//! The monitor over TLS (`--monitor-cert`, `--monitor-key`): for a tablet at the table that is
//! not the table's computer itself, on a named address. The monitor's buttons sell credits and
//! bet, so off this machine only a screen holding a client certificate of the casino's CA
//! (`--monitor-client-ca`) is served. rustls (ring) behind axum's own `Listener`: each
//! connection's handshake runs on its own, bounded in time and in number, and one that fails is
//! dropped without holding up the others.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

/// How long a connection may take to finish its TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(3);

/// The monitor's certificate chain and key, ready to accept with.
#[derive(Clone)]
pub struct MonitorTls {
    acceptor: TlsAcceptor,
    clients_checked: bool,
}

// The key is a secret: never printed.
impl std::fmt::Debug for MonitorTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MonitorTls").field("clients_checked", &self.clients_checked).finish_non_exhaustive()
    }
}

impl MonitorTls {
    /// Reads a PEM certificate chain and its PEM private key, and the CA (PEM) whose client
    /// certificates the screens must show, if any; a message naming the file otherwise.
    pub fn load(cert: &Path, key: &Path, client_ca: Option<&Path>) -> anyhow::Result<MonitorTls> {
        let chain = certificates(cert, "--monitor-cert")?;
        let key =
            PrivateKeyDer::from_pem_file(key).map_err(|error| anyhow::anyhow!("--monitor-key {}: {error}", key.display()))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|error| anyhow::anyhow!("TLS: {error}"))?;
        let builder = match client_ca {
            Some(path) => {
                let mut roots = rustls::RootCertStore::empty();
                for certificate in certificates(path, "--monitor-client-ca")? {
                    roots.add(certificate).map_err(|error| anyhow::anyhow!("--monitor-client-ca {}: {error}", path.display()))?;
                }
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                    .build()
                    .map_err(|error| anyhow::anyhow!("--monitor-client-ca {}: {error}", path.display()))?;
                builder.with_client_cert_verifier(verifier)
            }
            None => builder.with_no_client_auth(),
        };
        let config =
            builder.with_single_cert(chain, key).map_err(|error| anyhow::anyhow!("--monitor-cert and --monitor-key: {error}"))?;
        Ok(MonitorTls { acceptor: TlsAcceptor::from(Arc::new(config)), clients_checked: client_ca.is_some() })
    }

    /// Whether only screens with a client certificate of the given CA are served.
    pub fn clients_checked(&self) -> bool {
        self.clients_checked
    }
}

/// The certificates of a PEM file, at least one; a message naming `flag` and the file otherwise.
fn certificates(path: &Path, flag: &str) -> anyhow::Result<Vec<CertificateDer<'static>>> {
    let chain = CertificateDer::pem_file_iter(path)
        .and_then(|certificates| certificates.collect::<Result<Vec<_>, _>>())
        .map_err(|error| anyhow::anyhow!("{flag} {}: {error}", path.display()))?;
    anyhow::ensure!(!chain.is_empty(), "{flag} {}: no certificate in the file", path.display());
    Ok(chain)
}

/// Handshakes under way at once; a connection beyond them is closed at once.
const HANDSHAKES_MAX: usize = 16;

/// A TCP listener whose connections are served after their TLS handshake. Each handshake runs
/// in a task of its own, bounded in time and in number, so a client that connects and says
/// nothing holds up no one else.
pub(super) struct TlsListener {
    handshaken: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    local: SocketAddr,
    accepting: tokio::task::JoinHandle<()>,
}

impl TlsListener {
    pub(super) fn new(tcp: TcpListener, tls: MonitorTls) -> std::io::Result<TlsListener> {
        let local = tcp.local_addr()?;
        let (sender, handshaken) = mpsc::channel(HANDSHAKES_MAX);
        let permits = Arc::new(Semaphore::new(HANDSHAKES_MAX));
        let accepting = tokio::spawn(async move {
            loop {
                let (stream, peer) = match tcp.accept().await {
                    Ok(accepted) => accepted,
                    // Out of file descriptors and the like: wait a little rather than spin.
                    Err(error) => {
                        tracing::warn!("monitor: accepting a connection: {error}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else {
                    tracing::warn!(%peer, "monitor: {HANDSHAKES_MAX} TLS handshakes already under way; connection closed");
                    continue;
                };
                let (acceptor, sender) = (tls.acceptor.clone(), sender.clone());
                tokio::spawn(async move {
                    let _permit = permit;
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                        Ok(Ok(stream)) => {
                            let _ = sender.send((stream, peer)).await;
                        }
                        Ok(Err(error)) => tracing::warn!(%peer, "monitor: TLS handshake refused: {error}"),
                        Err(_) => tracing::warn!(%peer, "monitor: TLS handshake not finished in {HANDSHAKE_TIMEOUT:?}"),
                    }
                });
            }
        });
        Ok(TlsListener { handshaken, local, accepting })
    }
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.handshaken.recv().await {
            Some(accepted) => accepted,
            // The accepting task is gone (it never ends on its own): nothing more to serve.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        Ok(self.local)
    }
}
