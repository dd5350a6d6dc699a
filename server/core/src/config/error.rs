//! The configuration refused: one error naming the file and the field, and the line a file's
//! syntax was refused at.

/// The configuration refused, naming the file and the field.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{file}: not a valid configuration file: {message}")]
    Syntax { file: String, message: String },
    #[error("{file}: {field}: {problem}")]
    Field { file: String, field: String, problem: String },
    #[error(transparent)]
    Rulebook(#[from] pozo_engine::RulebookError),
}

impl ConfigError {
    /// A file TOML or its schema refused, with the line it refused (`line 12: unknown game …`).
    pub(super) fn syntax(file: &str, text: &str, error: &toml::de::Error) -> ConfigError {
        let line = error.span().map(|span| pozo_engine::suggest::line_at(text, span.start));
        let mut message = error.message().to_owned();
        // serde's "unknown field `tabels`, expected one of `casino`, `tables`, …": name the likeliest.
        if let Some((unknown, expected)) = pozo_engine::suggest::unknown_field(error.message())
            && let Some(known) = pozo_engine::nearest(unknown, expected.iter().copied())
        {
            message = format!("unknown field `{unknown}` (did you mean `{known}`?); known fields: {}", expected.join(", "));
        }
        let message = match line {
            Some(line) => format!("line {line}: {message}"),
            None => message,
        };
        ConfigError::Syntax { file: file.to_owned(), message }
    }
}
