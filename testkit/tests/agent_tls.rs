//! TLS between the agent and the controller (rustls through tonic), with client
//! certificates for agents as an option, against the real server on 127.0.0.1:0
//! (docs/security.md). Certificates are made for each run with rcgen.

use std::time::Duration;

use pozo_proto::v1 as pb;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

/// A throw-away CA, a server certificate for 127.0.0.1 and a client certificate, PEM.
struct Pki {
    ca: String,
    server: (String, String),
    client: (String, String),
    stranger: (String, String),
}

fn pki() -> Pki {
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("params");
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params.distinguished_name.push(rcgen::DnType::CommonName, "Pozo test CA");
    let ca_key = rcgen::KeyPair::generate().expect("a key");
    let ca = ca_params.self_signed(&ca_key).expect("the CA");
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let leaf = |names: Vec<String>, issuer: &rcgen::Issuer<'_, rcgen::KeyPair>| {
        let key = rcgen::KeyPair::generate().expect("a key");
        let cert = rcgen::CertificateParams::new(names).expect("params").signed_by(&key, issuer).expect("signed");
        (cert.pem(), key.serialize_pem())
    };
    // Another CA's client: a certificate the controller must not accept.
    let mut other_params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("params");
    other_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let other = rcgen::Issuer::new(other_params, rcgen::KeyPair::generate().expect("a key"));
    Pki {
        ca: ca.pem(),
        server: leaf(vec!["127.0.0.1".into(), "localhost".into()], &issuer),
        client: leaf(vec!["mesa-B1.agents.pozo".into()], &issuer),
        stranger: leaf(vec!["intruso".into()], &other),
    }
}

async fn start(pki: &Pki, client_certificates: bool) -> (pozo_server::Embedded, tempfile::TempDir) {
    let directory = tempfile::tempdir().expect("a directory");
    let tls = pozo_server::Tls {
        certificate_pem: pki.server.0.clone().into_bytes(),
        key_pem: pki.server.1.clone().into_bytes(),
        client_ca_pem: client_certificates.then(|| pki.ca.clone().into_bytes()),
    };
    let options = pozo_server::ServeOptions { tls: Some(tls), ..Default::default() };
    let server = pozo_server::Embedded::start(pozo_server::config::Config::embedded(), &directory.path().join("data"), options)
        .await
        .expect("a TLS controller");
    assert!(server.url.starts_with("https://127.0.0.1:"), "{}", server.url);
    (server, directory)
}

async fn identify(endpoint: Endpoint) -> Result<pb::Identity, String> {
    let endpoint = endpoint.connect_timeout(Duration::from_secs(5)).timeout(Duration::from_secs(5));
    let channel: Channel = endpoint.connect().await.map_err(|error| format!("connect: {error:?}"))?;
    pb::controller_client::ControllerClient::new(channel)
        .identify(pb::IdentifyRequest {})
        .await
        .map(|reply| reply.into_inner())
        .map_err(|status| format!("{status:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_trusts_the_ca_is_served_over_tls_and_plaintext_is_not() {
    let pki = pki();
    let (server, _directory) = start(&pki, false).await;
    let trusting = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(&pki.ca));
    let identity = identify(Endpoint::from_shared(server.url.clone()).expect("url").tls_config(trusting).expect("tls"))
        .await
        .expect("served over TLS");
    assert!(identity.journal_id.ends_with("-1"));
    // The same port in plaintext: the admission waits for a TLS handshake and closes it.
    let plain = identify(Endpoint::from_shared(format!("http://{}", server.address)).expect("url")).await;
    assert!(plain.is_err(), "plaintext answered on a TLS listener: {plain:?}");
    // A client that does not trust the server's CA gives up in the handshake.
    let other_ca = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(&pki.stranger.0));
    let untrusted = identify(Endpoint::from_shared(server.url.clone()).expect("url").tls_config(other_ca).expect("tls")).await;
    assert!(untrusted.is_err(), "a certificate from an unknown CA was accepted: {untrusted:?}");
    server.stop().await.expect("stopped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_client_certificates_only_agents_holding_one_of_the_ca_are_served() {
    let pki = pki();
    let (server, _directory) = start(&pki, true).await;
    let endpoint = || Endpoint::from_shared(server.url.clone()).expect("url");
    // The agent's own TLS settings, as `pozo-agent --tls-ca --tls-cert --tls-key` builds them.
    let agent = table_agent::ClientTls {
        ca_pem: pki.ca.clone().into_bytes(),
        identity_pem: Some((pki.client.0.clone().into_bytes(), pki.client.1.clone().into_bytes())),
    };
    identify(endpoint().tls_config(agent.config()).expect("tls")).await.expect("an agent with its certificate");
    let without = table_agent::ClientTls { ca_pem: pki.ca.clone().into_bytes(), identity_pem: None };
    let refused = identify(endpoint().tls_config(without.config()).expect("tls")).await;
    assert!(refused.is_err(), "served without a client certificate: {refused:?}");
    let stranger = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(&pki.ca))
        .identity(Identity::from_pem(&pki.stranger.0, &pki.stranger.1));
    let refused = identify(endpoint().tls_config(stranger).expect("tls")).await;
    assert!(refused.is_err(), "served with another CA's client certificate: {refused:?}");
    server.stop().await.expect("stopped");
}

#[test]
fn the_agent_uses_tls_exactly_when_asked_and_plaintext_only_to_this_machine() {
    let key = table_agent::key::Key { id: "mesa-B1".into(), secret: vec![7; 32] };
    let tls = Some(table_agent::ClientTls { ca_pem: b"not needed to check the URL".to_vec(), identity_pem: None });
    let config = |server: &str, tls: Option<table_agent::ClientTls>| table_agent::AgentConfig {
        server: server.to_owned(),
        table: "B1".into(),
        key: key.clone(),
        tls,
        monitor_url: None,
    };
    let check = |server: &str, tls: Option<table_agent::ClientTls>| table_agent::agent::check_transport(&config(server, tls));
    assert!(check("http://127.0.0.1:50051", None).is_ok());
    assert!(check("http://[::1]:50051", None).is_ok());
    assert!(check("http://localhost:50051", None).is_ok());
    assert!(check("https://pozo.casino.example:50051", tls.clone()).is_ok());
    let error = check("http://10.0.0.5:50051", None).expect_err("plaintext off this machine");
    assert!(error.to_string().contains("plaintext only to this machine"), "{error}");
    let error = check("http://127.evil.example:50051", None).expect_err("a name is not loopback");
    assert!(error.to_string().contains("plaintext only to this machine"), "{error}");
    let error = check("http://10.0.0.5:50051", tls).expect_err("TLS asked, URL in clear");
    assert!(error.to_string().contains("the URL must be https://"), "{error}");
    let error = check("https://pozo.casino.example:50051", None).expect_err("https without a CA");
    assert!(error.to_string().contains("needs --tls-ca"), "{error}");
}
