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
