//! Blackjack from a 6-deck shoe: the IPLyC combinations and the Andalucía bolsa (to come).
