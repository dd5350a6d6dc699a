//! Uniform choices from a source of uniform 64-bit words, shared by the mystery level's draw
//! (`state::draw`) and the tournament's seat draw (`tournament::seats`).

/// A number uniform in [0, count) from a source of uniform 64-bit words, by rejection
/// sampling: words in the incomplete last block are drawn again, so no value is favoured.
pub fn uniform_below(count: u64, mut next: impl FnMut() -> u64) -> u64 {
    assert!(count > 0, "a draw among nothing");
    let zone = u64::MAX - (u64::MAX % count);
    loop {
        let word = next();
        if word < zone {
            return word % count;
        }
    }
}
