//! The signed-in people of the pages and the lock-out of wrong passwords: sessions kept by the
//! SHA-256 of their token, ending at logout, after [`SESSION_IDLE`] without use, after
//! [`SESSION_LIFETIME`], or at restart; at most [`SESSIONS_MAX`] at once, the least recently
//! used giving way. Wrong passwords lock their user out (`net::secrets::Lockout`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::time::Instant;

use crate::config::Role;
use crate::net::secrets::Lockout;

const SESSIONS_MAX: usize = 256;
const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);
const SESSION_LIFETIME: Duration = Duration::from_secs(12 * 3600);

pub(super) fn random_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the OS gives randomness");
    hex::encode(bytes)
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Equal texts, compared through their digests: the time taken says nothing of where they differ.
pub(super) fn same(a: &str, b: &str) -> bool {
    digest(a) == digest(b)
}

/// A signed-in person.
#[derive(Clone, Debug)]
pub(super) struct Session {
    pub(super) key_id: String,
    pub(super) name: String,
    pub(super) role: Role,
    pub(super) csrf: String,
    created: Instant,
    used: Instant,
}

#[derive(Debug, Default)]
struct Inner {
    sessions: HashMap<[u8; 32], Session>,
}

#[derive(Debug)]
pub(super) struct Sessions {
    inner: Mutex<Inner>,
    lockout: Lockout,
}

impl Default for Sessions {
    fn default() -> Sessions {
        Sessions { inner: Mutex::default(), lockout: Lockout::new("pages") }
    }
}

impl Sessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes one login try for `user`; refused with the minutes to wait while locked out.
    pub(super) fn attempt(&self, user: &str) -> Result<(), u64> {
        self.lockout.attempt(user)
    }

    /// Records a wrong password; returns the lock-out it caused, if any.
    pub(super) fn failed(&self, user: &str) -> Option<u64> {
        self.lockout.failed(user)
    }

    pub(super) fn succeeded(&self, user: &str) {
        self.lockout.succeeded(user);
    }

    /// A new session for `key`; returns its token (the cookie's value).
    pub(super) fn open(&self, key_id: &str, name: &str, role: Role) -> (String, Session) {
        let now = Instant::now();
        let token = random_token();
        let session =
            Session { key_id: key_id.to_owned(), name: name.to_owned(), role, csrf: random_token(), created: now, used: now };
        let mut inner = self.lock();
        inner.sessions.retain(|_, session| !expired(session, now));
        if inner.sessions.len() >= SESSIONS_MAX {
            let oldest = inner.sessions.iter().min_by_key(|(_, session)| session.used).map(|(digest, _)| *digest);
            if let Some(oldest) = oldest {
                inner.sessions.remove(&oldest);
            }
        }
        inner.sessions.insert(digest(&token), session.clone());
        (token, session)
    }

    /// The live session of a cookie's token, marked as used now.
    pub(super) fn find(&self, token: &str) -> Option<Session> {
        let now = Instant::now();
        let mut inner = self.lock();
        let key = digest(token);
        let session = inner.sessions.get_mut(&key)?;
        if expired(session, now) {
            inner.sessions.remove(&key);
            return None;
        }
        session.used = now;
        Some(session.clone())
    }

    pub(super) fn close(&self, token: &str) {
        self.lock().sessions.remove(&digest(token));
    }
}

fn expired(session: &Session, now: Instant) -> bool {
    now.duration_since(session.used) > SESSION_IDLE || now.duration_since(session.created) > SESSION_LIFETIME
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn sessions_end_when_idle_and_only_their_token_finds_them() {
        let sessions = Sessions::default();
        let (token, session) = sessions.open("vp-ana", "Ana Pereyra", Role::Office);
        assert_eq!(sessions.find(&token).map(|found| found.csrf), Some(session.csrf.clone()));
        assert!(sessions.find(&session.csrf).is_none(), "the CSRF token is not a session token");
        tokio::time::advance(SESSION_IDLE - Duration::from_secs(1)).await;
        assert!(sessions.find(&token).is_some(), "used just in time");
        tokio::time::advance(SESSION_IDLE + Duration::from_secs(1)).await;
        assert!(sessions.find(&token).is_none(), "idle too long");
    }
}
