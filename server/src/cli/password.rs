//! `pozo-server password`: an operator's password hashed for the keys file.

pub(super) fn run_password() -> anyhow::Result<()> {
    let mut password = String::new();
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        eprintln!("Contraseña (se lee de la entrada; Enter para terminar):");
    }
    std::io::stdin().read_line(&mut password)?;
    let password = password.trim_end_matches(['\n', '\r']);
    println!("{}", crate::web::hash_password(password)?);
    Ok(())
}
