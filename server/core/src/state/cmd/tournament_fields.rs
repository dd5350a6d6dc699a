//! The written fields of a tournament's commands, checked before anything changes: a line of
//! text, a masked document, a fingerprint, a sealed value (Res. 123/2013 Anexo IV 1.2).

use crate::state::Refusal;
use crate::state::refusal::invalid;

/// The longest sealed document, in hex digits.
const SEALED_HEX_MAX: usize = 4_096;

/// The longest name, reason, receipt or table, in characters.
const TEXT_CHARS_MAX: usize = 200;

/// A written field: one line of 1 to 200 characters.
pub(super) fn text(field: &str, spanish: &str, value: &str) -> Result<String, Refusal> {
    let value = value.trim();
    if value.is_empty() || value.chars().count() > TEXT_CHARS_MAX || value.chars().any(char::is_control) {
        return Err(invalid(format!("{field}: required, one line of 1 to {TEXT_CHARS_MAX} characters"))
            .castellano(format!("Falta {spanish}, o no es una sola línea de hasta {TEXT_CHARS_MAX} caracteres.")));
    }
    Ok(value.to_owned())
}

/// The document as the receipt shows it: `DNI ***4567` (Anexo IV 1.2), masked by the server.
pub(super) fn masked(value: &str) -> Result<String, Refusal> {
    let shaped = !value.is_empty()
        && value.chars().count() <= 40
        && value.contains('*')
        && !value.chars().any(char::is_control)
        && value.trim() == value;
    if !shaped {
        return Err(invalid(
            "document_masked: the document as masked by the server, like `DNI ***4567` (Res. 123/2013 Anexo IV 1.2)",
        )
        .castellano("El documento enmascarado no tiene la forma «DNI ***4567» (Res. 123/2013 Anexo IV 1.2)."));
    }
    Ok(value.to_owned())
}

/// A document's fingerprint: 64 lowercase hex digits.
pub(super) fn fingerprint(field: &str, value: &str) -> Result<String, Refusal> {
    if value.len() != 64 || !value.bytes().all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte)) {
        return Err(invalid(format!("{field}: 64 lowercase hex digits, the document's fingerprint"))
            .castellano("La huella del documento no es válida: son 64 dígitos hexadecimales."));
    }
    Ok(value.to_owned())
}

/// The document sealed: hex, an even number of digits, at most 4096.
pub(super) fn sealed(value: &str) -> Result<String, Refusal> {
    if value.is_empty()
        || value.len() > SEALED_HEX_MAX
        || !value.len().is_multiple_of(2)
        || !value.bytes().all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
    {
        return Err(invalid(format!("document_sealed: lowercase hex, an even number of 2 to {SEALED_HEX_MAX} digits"))
            .castellano("El documento sellado no es válido: dígitos hexadecimales, en cantidad par."));
    }
    Ok(value.to_owned())
}
