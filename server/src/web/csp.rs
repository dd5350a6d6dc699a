//! What a page may load and connect to: the Content-Security-Policy, and the other
//! controllers' pages (`--pages-peer`) that a sign may ask, checked to be origins.

use axum::http::HeaderValue;

/// `--pages-peer`: an origin, `http://host:port` or `https://host:port`, with nothing after it.
pub(crate) fn peer_origin(text: &str) -> Result<String, String> {
    let rest = text.strip_prefix("http://").or_else(|| text.strip_prefix("https://"));
    let host = rest.map(|rest| rest.strip_suffix('/').unwrap_or(rest));
    match host {
        Some(host)
            if !host.is_empty()
                && host.len() <= 255
                && host.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']')) =>
        {
            Ok(text.trim_end_matches('/').to_owned())
        }
        _ => Err(format!(
            "`{}`: write the other controller's pages as http://host:port (scheme, host and port only)",
            text.chars().take(80).collect::<String>()
        )),
    }
}

/// The pages' Content-Security-Policy: every byte the browser runs comes from this server and
/// no page may be framed. A sign may ask the peers (`serve --pages-peer`) whether they answer,
/// and nothing else: they are the only other origins it connects to.
pub(super) fn content_security_policy(peers: &[String]) -> HeaderValue {
    let connect: String = peers.iter().map(|peer| format!(" {peer}")).collect();
    HeaderValue::from_str(&format!(
        "default-src 'self'; connect-src 'self'{connect}; img-src 'self' data:; style-src 'self'; script-src 'self'; \
         frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    ))
    .expect("peer origins are checked by the command line: visible ASCII")
}

#[cfg(test)]
mod peer_tests {
    use super::peer_origin;

    #[test]
    fn a_pages_peer_is_an_origin_and_nothing_else() {
        assert_eq!(peer_origin("http://10.0.0.2:8080/").as_deref(), Ok("http://10.0.0.2:8080"));
        assert_eq!(peer_origin("https://standby.salon:8443").as_deref(), Ok("https://standby.salon:8443"));
        assert_eq!(peer_origin("http://[::1]:8080").as_deref(), Ok("http://[::1]:8080"));
        for refused in ["10.0.0.2:8080", "ftp://x:1", "http://", "http://x:1/cartel", "http://x:1 'unsafe-inline'", "http://x;y"]
        {
            let error = peer_origin(refused).expect_err(refused);
            assert!(error.contains("http://host:port"), "{refused}: {error}");
        }
    }
}
