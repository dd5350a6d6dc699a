//! TLS for the gRPC listener (rustls through tonic): the server's certificate and key,
//! and the CA whose certificates clients must present (docs/security.md).

use std::path::Path;

/// The listener's TLS (rustls through tonic): the server's certificate chain and key,
/// PEM, and optionally the CA whose certificates clients must present (agents' client
/// certificates, docs/security.md).
#[derive(Clone)]
pub struct Tls {
    pub certificate_pem: Vec<u8>,
    pub key_pem: Vec<u8>,
    pub client_ca_pem: Option<Vec<u8>>,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key is a secret: never printed.
        f.debug_struct("Tls").field("client_certificates", &self.client_ca_pem.is_some()).finish_non_exhaustive()
    }
}

impl Tls {
    /// Reads the PEM files.
    pub fn load(certificate: &Path, key: &Path, client_ca: Option<&Path>) -> anyhow::Result<Tls> {
        let read =
            |path: &Path, what: &str| std::fs::read(path).map_err(|error| anyhow::anyhow!("{what} {}: {error}", path.display()));
        Ok(Tls {
            certificate_pem: read(certificate, "--tls-cert")?,
            key_pem: read(key, "--tls-key")?,
            client_ca_pem: client_ca.map(|path| read(path, "--tls-client-ca")).transpose()?,
        })
    }

    pub(crate) fn server_config(&self) -> tonic::transport::ServerTlsConfig {
        let identity = tonic::transport::Identity::from_pem(&self.certificate_pem, &self.key_pem);
        let config = tonic::transport::ServerTlsConfig::new().identity(identity).timeout(super::HANDSHAKE_TIMEOUT);
        match &self.client_ca_pem {
            Some(ca) => config.client_ca_root(tonic::transport::Certificate::from_pem(ca)),
            None => config,
        }
    }
}
