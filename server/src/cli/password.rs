//! `pozo-server password`: an operator's password, or a floor inspector's PIN (`--pin`),
//! hashed for the keys file.

use crate::config::PIN_DIGITS;

pub(super) fn run_password(pin: bool) -> anyhow::Result<()> {
    let mut secret = String::new();
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        let asked = if pin { "PIN del inspector" } else { "Contraseña" };
        eprintln!("{asked} (se lee de la entrada; Enter para terminar):");
    }
    std::io::stdin().read_line(&mut secret)?;
    let secret = secret.trim_end_matches(['\n', '\r']);
    if pin {
        check_pin(secret)?;
    }
    println!("{}", crate::net::secrets::hash_secret(secret)?);
    Ok(())
}

/// A PIN is 4–8 digits: what a finger types on the monitor's keypad.
fn check_pin(pin: &str) -> anyhow::Result<()> {
    anyhow::ensure!(
        PIN_DIGITS.contains(&pin.len()) && pin.bytes().all(|byte| byte.is_ascii_digit()),
        "pin: {}–{} digits",
        PIN_DIGITS.start(),
        PIN_DIGITS.end()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_pin_is_four_to_eight_digits() {
        for good in ["2468", "12345678"] {
            assert!(super::check_pin(good).is_ok(), "{good}");
        }
        for bad in ["246", "123456789", "24a8", "", "２４６８"] {
            assert!(super::check_pin(bad).is_err(), "{bad}");
        }
    }
}
