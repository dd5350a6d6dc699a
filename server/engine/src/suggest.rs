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

#[cfg(test)]
mod tests {
    use super::nearest;

    #[test]
    fn a_typo_finds_its_key_and_a_stranger_finds_none() {
        let keys = ["id", "flor", "pool", "game", "seats"];
        assert_eq!(nearest("tabels", ["tables", "casino", "flores"]), Some("tables"));
        assert_eq!(nearest("gmae", keys), Some("game"));
        assert_eq!(nearest("minimun", ["minimum", "maximum", "payout_unit"]), Some("minimum"));
        assert_eq!(nearest("colour", keys), None, "nothing near enough: no guess");
    }
}
