//! The nearest valid name to a misspelt one, for refusals that say "did you mean …?".

/// The candidate closest to `word` by edit distance, when it is close enough to be a
/// likely typo: at most a third of the word's length (and at least one edit) away.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|candidate| (strsim::damerau_levenshtein(word, candidate), candidate))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, candidate)| (*distance, *candidate))
        .map(|(_, candidate)| candidate)
}

/// serde's refusal of a key it does not know (`unknown field `tabels`, expected one of
/// `casino`, `tables``): the key, and the keys that table knows.
pub fn unknown_field(message: &str) -> Option<(&str, Vec<&str>)> {
    let rest = message.strip_prefix("unknown field `")?;
    Some((rest.split('`').next().unwrap_or_default(), rest.split('`').skip(2).step_by(2).collect()))
}

/// The line (from 1) of the byte at `offset` in `text`: where a parser's span points.
pub fn line_at(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|byte| **byte == b'\n').count() + 1
}

/// Where in a TOML file of `[[array]]` entries serde refused a value, for a refusal that names
/// it: the entry's `id` (when it has one), the field's path in it (`prize[2].amount`), and the
/// problem, with the line and the nearest known key for a key nobody knows. Shared by the
/// rulebooks (`[[pool]]`) and the tournaments' structures (`[[torneo]]`).
pub(crate) struct Located {
    pub id: Option<String>,
    pub field: String,
    pub problem: String,
}

pub(crate) fn located(
    text: &str,
    table: &toml::Table,
    array: &str,
    error: &serde_path_to_error::Error<toml::de::Error>,
) -> Located {
    use serde_path_to_error::Segment;
    use toml::Value;
    let segments: Vec<&Segment> = error.path().iter().collect();
    // `{array}[i]` names the entry by its id, when it has one.
    let (id, rest) = match segments.as_slice() {
        [Segment::Map { key }, Segment::Seq { index }, rest @ ..] if key == array => {
            let id = table
                .get(array)
                .and_then(|entries| entries.get(*index))
                .and_then(|entry| entry.get("id"))
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty());
            match id {
                Some(id) => (Some(id.to_owned()), rest),
                None => (None, &segments[..]),
            }
        }
        _ => (None, &segments[..]),
    };
    let mut field = String::new();
    for segment in rest {
        match segment {
            Segment::Seq { index } => field.push_str(&format!("[{index}]")),
            Segment::Map { key } => {
                if !field.is_empty() {
                    field.push('.');
                }
                field.push_str(key);
            }
            Segment::Enum { variant } => field.push_str(&format!("::{variant}")),
            Segment::Unknown => field.push_str(".?"),
        }
    }
    let inner = error.inner();
    let message = inner.message();
    let line = inner.span().map(|span| line_at(text, span.start));
    let problem = if let Some(rest) = message.strip_prefix("missing field `") {
        // The path names the table that lacks it; the field is the one it lacks.
        let missing = rest.split('`').next().unwrap_or_default();
        if !field.is_empty() {
            field.push('.');
        }
        field.push_str(missing);
        "missing field".to_owned()
    } else if let Some((unknown, known)) = unknown_field(message) {
        if !field.ends_with(unknown) {
            if !field.is_empty() {
                field.push('.');
            }
            field.push_str(unknown);
        }
        let at = line.map(|line| format!(" at line {line}")).unwrap_or_default();
        match nearest(unknown, known.iter().copied()) {
            Some(nearest) => format!("unknown field{at} (did you mean `{nearest}`?)"),
            None => format!("unknown field{at} (known here: {})", known.join(", ")),
        }
    } else {
        match line {
            Some(line) => format!("{message} (line {line})"),
            None => message.to_owned(),
        }
    };
    Located { id, field, problem }
}

#[cfg(test)]
mod tests {
    use super::{line_at, nearest, unknown_field};

    #[test]
    fn an_unknown_field_is_read_out_of_serdes_message_and_its_line_out_of_the_span() {
        let message = "unknown field `tabels`, expected one of `casino`, `tables`, `time_zone`";
        assert_eq!(unknown_field(message), Some(("tabels", vec!["casino", "tables", "time_zone"])));
        assert_eq!(unknown_field("missing field `id`"), None);
        assert_eq!((line_at("a\nb\nc", 0), line_at("a\nb\nc", 2), line_at("a\nb\nc", 99)), (1, 2, 3));
    }

    #[test]
    fn a_typo_finds_its_key_and_a_stranger_finds_none() {
        let keys = ["id", "flor", "pool", "game", "seats"];
        assert_eq!(nearest("tabels", ["tables", "casino", "flores"]), Some("tables"));
        assert_eq!(nearest("gmae", keys), Some("game"));
        assert_eq!(nearest("minimun", ["minimum", "maximum", "payout_unit"]), Some("minimum"));
        assert_eq!(nearest("colour", keys), None, "nothing near enough: no guess");
    }
}
