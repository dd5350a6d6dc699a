//! What people type to prove who they are: a page password or an inspector's PIN, kept only as
//! an Argon2id hash (PHC form) in the keys file, checked on a blocking thread (Argon2 is slow on
//! purpose), and the lock-out of whoever guesses: [`FAILURES_MAX`] wrong answers for one person
//! within [`FAILURE_WINDOW`] lock that person out for [`LOCKOUT`], right answer or not. A try
//! is taken before its secret is checked ([`Lockout::attempt`]), so tries sent at once count
//! together: never more than [`FAILURES_MAX`] are checked in a window.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use tokio::time::Instant;

use super::bounded_text;

/// Wrong answers for one person before the lock-out.
pub(crate) const FAILURES_MAX: u32 = 5;
const FAILURE_WINDOW: Duration = Duration::from_secs(15 * 60);
const LOCKOUT: Duration = Duration::from_secs(15 * 60);
/// People whose failures are remembered at once; the oldest is forgotten first.
const FAILURES_KEPT: usize = 4096;
/// The longest secret read.
const SECRET_BYTES_MAX: usize = 256;

/// The Argon2id hash (PHC form) of a secret, with a fresh salt: what the `password` or `pin`
/// field of a key holds.
pub(crate) fn hash_secret(secret: &str) -> anyhow::Result<String> {
    if secret.is_empty() || secret.len() > SECRET_BYTES_MAX {
        anyhow::bail!("password: 1–{SECRET_BYTES_MAX} bytes");
    }
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|error| anyhow::anyhow!("no randomness from the OS: {error}"))?;
    let hash = argon2::Argon2::default()
        .hash_password_with_salt(secret.as_bytes(), &salt)
        .map_err(|error| anyhow::anyhow!("hashing: {error}"))?;
    Ok(hash.to_string())
}

/// Checked against when the person is unknown, so that an unknown person takes as long as a
/// wrong answer (a hash of a random secret, made once).
fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| {
        let mut random = [0u8; 18];
        let _ = getrandom::fill(&mut random);
        hash_secret(&hex::encode(random)).expect("hashing a random secret")
    })
}

/// Whether `given` is the secret `hash` was made from; with no hash (an unknown person), the
/// decoy is checked and the answer is no.
pub(crate) async fn secret_matches(hash: Option<String>, given: &str) -> bool {
    let known = hash.is_some();
    let hash = hash.unwrap_or_else(|| decoy_hash().to_owned());
    let given = given.to_owned();
    let matches = tokio::task::spawn_blocking(move || {
        given.len() <= SECRET_BYTES_MAX
            && PasswordHash::new(&hash)
                .is_ok_and(|parsed| argon2::Argon2::default().verify_password(given.as_bytes(), &parsed).is_ok())
    })
    .await
    .unwrap_or(false);
    known && matches
}

#[derive(Debug)]
struct Failures {
    /// Wrong answers in the window.
    count: u32,
    /// Tries taken and not yet answered.
    in_flight: u32,
    first: Instant,
    locked_until: Option<Instant>,
}

/// Who guessed wrong lately, by person (a page's user name, an inspector's key id).
#[derive(Debug)]
pub(crate) struct Lockout {
    /// What is guessed, for the log: "pages", "pin".
    what: &'static str,
    failures: Mutex<HashMap<String, Failures>>,
}

impl Lockout {
    pub(crate) fn new(what: &'static str) -> Lockout {
        Lockout { what, failures: Mutex::default() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Failures>> {
        self.failures.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The person's lock-out, if any: minutes left.
    #[cfg(test)]
    fn locked(&self, who: &str) -> Option<u64> {
        let now = Instant::now();
        let until = self.lock().get(who)?.locked_until?;
        (until > now).then(|| minutes_until(now, until))
    }

    /// Takes one try for `who`, before its secret is checked; refused, with the minutes to
    /// wait, while `who` is locked out or as many tries as are left are already being checked.
    /// Every try taken ends in [`Lockout::failed`] or [`Lockout::succeeded`].
    pub(crate) fn attempt(&self, who: &str) -> Result<(), u64> {
        let now = Instant::now();
        let mut failures = self.lock();
        if failures.len() >= FAILURES_KEPT && !failures.contains_key(who) {
            let idle = failures.iter().filter(|(_, failures)| failures.in_flight == 0);
            let oldest = idle.min_by_key(|(_, failures)| failures.first).map(|(who, _)| who.clone());
            if let Some(oldest) = oldest {
                failures.remove(&oldest);
            }
        }
        let entry = failures.entry(who.to_owned()).or_insert(Failures { count: 0, in_flight: 0, first: now, locked_until: None });
        if let Some(until) = entry.locked_until.filter(|until| *until > now) {
            return Err(minutes_until(now, until));
        }
        let expired = now.duration_since(entry.first) > FAILURE_WINDOW || entry.locked_until.is_some();
        if expired && entry.in_flight == 0 {
            *entry = Failures { count: 0, in_flight: 0, first: now, locked_until: None };
        }
        if entry.count + entry.in_flight >= FAILURES_MAX {
            // The tries left are all being checked now: wait for their answers.
            return Err(1);
        }
        entry.in_flight += 1;
        Ok(())
    }

    /// A try taken was wrong; returns the lock-out it caused, in minutes, if any.
    pub(crate) fn failed(&self, who: &str) -> Option<u64> {
        let now = Instant::now();
        let mut failures = self.lock();
        let entry = failures.get_mut(who)?;
        entry.in_flight = entry.in_flight.saturating_sub(1);
        entry.count += 1;
        if entry.count >= FAILURES_MAX && entry.locked_until.is_none_or(|until| until <= now) {
            entry.locked_until = Some(now + LOCKOUT);
            tracing::warn!(what = self.what, who = %bounded_text(who), failures = entry.count, "locked out after wrong answers");
            return Some(LOCKOUT.as_secs() / 60);
        }
        None
    }

    /// A try taken was right: the wrong ones before it are forgotten, unless they already locked
    /// `who` out (a lock-out runs its course).
    pub(crate) fn succeeded(&self, who: &str) {
        let mut failures = self.lock();
        let Some(entry) = failures.get_mut(who) else { return };
        entry.in_flight = entry.in_flight.saturating_sub(1);
        if entry.locked_until.is_none() {
            entry.count = 0;
            if entry.in_flight == 0 {
                failures.remove(who);
            }
        }
    }
}

fn minutes_until(now: Instant, until: Instant) -> u64 {
    (until - now).as_secs().div_ceil(60).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One wrong try, taken and answered.
    fn wrong(lockout: &Lockout, who: &str) -> Result<Option<u64>, u64> {
        lockout.attempt(who)?;
        Ok(lockout.failed(who))
    }

    #[tokio::test(start_paused = true)]
    async fn five_failures_lock_out_for_fifteen_minutes_then_the_count_starts_over() {
        let lockout = Lockout::new("test");
        for _ in 0..FAILURES_MAX - 1 {
            assert_eq!(wrong(&lockout, "vp-ana"), Ok(None));
        }
        assert_eq!(lockout.locked("vp-ana"), None);
        assert_eq!(wrong(&lockout, "vp-ana"), Ok(Some(15)));
        assert_eq!(lockout.locked("vp-ana"), Some(15));
        assert_eq!(lockout.attempt("vp-ana"), Err(15), "no try while locked out, right or wrong");
        assert_eq!(lockout.locked("vp-bruno"), None, "one person's failures lock no one else");
        tokio::time::advance(LOCKOUT + Duration::from_secs(1)).await;
        assert_eq!(lockout.locked("vp-ana"), None);
        assert_eq!(wrong(&lockout, "vp-ana"), Ok(None), "after the lock-out the count starts over");
    }

    /// Tries sent at once count together: a sixth is refused before any is answered, and a right
    /// answer among them does not lift the lock-out the wrong ones caused.
    #[tokio::test(start_paused = true)]
    async fn tries_at_once_count_together_and_a_right_one_does_not_lift_a_lock_out() {
        let lockout = Lockout::new("test");
        for _ in 0..FAILURES_MAX {
            lockout.attempt("im-rosa").expect("a try left");
        }
        assert_eq!(lockout.attempt("im-rosa"), Err(1), "five tries are being checked: no sixth");
        for _ in 0..FAILURES_MAX - 1 {
            lockout.failed("im-rosa");
        }
        assert_eq!(lockout.locked("im-rosa"), None);
        lockout.succeeded("im-rosa");
        assert_eq!(wrong(&lockout, "im-rosa"), Ok(None), "a right answer forgets the wrong ones before it");
        let lockout = Lockout::new("test");
        for _ in 0..FAILURES_MAX + 1 {
            let _ = lockout.attempt("im-tomas");
        }
        for _ in 0..FAILURES_MAX - 1 {
            lockout.failed("im-tomas");
        }
        assert_eq!(lockout.failed("im-tomas"), Some(15));
        lockout.succeeded("im-tomas");
        assert_eq!(lockout.locked("im-tomas"), Some(15), "the lock-out runs its course");
    }

    #[test]
    fn a_hash_verifies_its_secret_only() {
        let hash = hash_secret("ana-ejemplo").expect("hash");
        let parsed = PasswordHash::new(&hash).expect("PHC");
        assert!(argon2::Argon2::default().verify_password(b"ana-ejemplo", &parsed).is_ok());
        assert!(argon2::Argon2::default().verify_password(b"ana-ejemplO", &parsed).is_err());
        assert_ne!(hash, hash_secret("ana-ejemplo").expect("hash"), "a fresh salt each time");
    }

    #[tokio::test]
    async fn an_unknown_person_matches_nothing_and_a_known_one_only_their_secret() {
        let hash = hash_secret("2468").expect("hash");
        assert!(secret_matches(Some(hash.clone()), "2468").await);
        assert!(!secret_matches(Some(hash), "2469").await);
        assert!(!secret_matches(None, "2468").await);
    }
}
