//! The hardware line protocol: one event per line, words separated by spaces.
//!
//! ```text
//! open | close | start | accept | finish | carry | last-round | gold-turn | status
//! credits SEAT N | refund-credits SEAT | press SEAT | void SEAT | refund SEAT
//! prize SEAT CODE [HIGH]
//! ```
//!
//! A line that breaks the protocol is refused with the problem named; the agent
//! keeps running. Blank lines and lines starting with `#` are ignored.

use pozo_proto::v1 as pb;
use pozo_proto::v1::table_command::Command as C;

/// The highest seat number the protocol accepts; the server checks the table's own.
pub const SEAT_MAX: u32 = 16;

/// The longest line read: anything longer is not a hardware event.
pub const LINE_BYTES_MAX: usize = 256;

/// One hardware event.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// A command for the server.
    Command(C),
    /// Print the panel as the agent knows it.
    Status,
}

fn seat(word: Option<&str>, name: &str) -> Result<u32, String> {
    let word = word.ok_or_else(|| format!("`{name}` needs a seat number (1–{SEAT_MAX})"))?;
    match word.parse::<u32>() {
        Ok(seat) if (1..=SEAT_MAX).contains(&seat) => Ok(seat),
        _ => Err(format!("`{word}` is not a seat number (1–{SEAT_MAX})")),
    }
}

fn no_more<'a>(mut words: impl Iterator<Item = &'a str>, usage: &str) -> Result<(), String> {
    match words.next() {
        None => Ok(()),
        Some(extra) => Err(format!("unexpected `{extra}`: the line is `{usage}`")),
    }
}

/// Parses one line; `Ok(None)` for a blank line or a comment.
pub fn parse(line: &str) -> Result<Option<Input>, String> {
    let line = line.trim_end_matches(['\r', '\n']);
    if line.len() > LINE_BYTES_MAX {
        return Err(format!("line of {} bytes, over {LINE_BYTES_MAX}", line.len()));
    }
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let mut words = line.split_whitespace();
    let word = words.next().unwrap_or_default();
    let command = match word {
        "status" => {
            no_more(words, "status")?;
            return Ok(Some(Input::Status));
        }
        "open" => (C::OpenTable(pb::OpenTable {}), "open"),
        "close" => (C::CloseTable(pb::CloseTable {}), "close"),
        "start" => (C::StartRound(pb::StartRound {}), "start"),
        "accept" => (C::Accept(pb::Accept {}), "accept"),
        "finish" => (C::FinishRound(pb::FinishRound {}), "finish"),
        "carry" => (C::CarryBets(pb::CarryBets {}), "carry"),
        "last-round" => (C::LastRound(pb::LastRound {}), "last-round"),
        "gold-turn" => (C::RequestGoldTurn(pb::RequestGoldTurn {}), "gold-turn"),
        "press" => (C::Press(pb::Press { seat: seat(words.next(), word)? }), "press SEAT"),
        "void" => (C::VoidBet(pb::VoidBet { seat: seat(words.next(), word)? }), "void SEAT"),
        "refund" => (C::RefundBet(pb::RefundBet { seat: seat(words.next(), word)? }), "refund SEAT"),
        "refund-credits" => (C::RefundCredits(pb::RefundCredits { seat: seat(words.next(), word)? }), "refund-credits SEAT"),
        "credits" => {
            let seat = seat(words.next(), word)?;
            let credits = words.next().ok_or("`credits` needs a seat and an amount: `credits SEAT N` (N = 1, 5, 10 or 20)")?;
            let credits =
                credits.parse::<u32>().map_err(|_| format!("`{credits}` is not a number of credits (1, 5, 10 or 20)"))?;
            (C::SellCredits(pb::SellCredits { seat, credits }), "credits SEAT N")
        }
        "prize" => {
            let seat = seat(words.next(), word)?;
            let code = words.next().ok_or("`prize` needs a seat and a premio code: `prize SEAT CODE [HIGH]`")?;
            let high = words.next().unwrap_or_default();
            (C::EnterPrize(pb::EnterPrize { seat, code: code.to_owned(), high: high.to_owned() }), "prize SEAT CODE [HIGH]")
        }
        other => {
            return Err(format!(
                "unknown word `{other}` (open, close, credits, refund-credits, press, start, prize, accept, finish, void, refund, carry, last-round, gold-turn, status)"
            ));
        }
    };
    no_more(words, command.1)?;
    Ok(Some(Input::Command(command.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_of_the_protocol() {
        assert_eq!(parse("press 3"), Ok(Some(Input::Command(C::Press(pb::Press { seat: 3 })))));
        assert_eq!(parse("  credits 2 20 "), Ok(Some(Input::Command(C::SellCredits(pb::SellCredits { seat: 2, credits: 20 })))));
        assert_eq!(
            parse("prize 4 ESCALERA_COLOR K"),
            Ok(Some(Input::Command(C::EnterPrize(pb::EnterPrize { seat: 4, code: "ESCALERA_COLOR".into(), high: "K".into() }))))
        );
        for word in ["open", "close", "start", "accept", "finish", "carry", "last-round", "gold-turn"] {
            assert!(matches!(parse(word), Ok(Some(Input::Command(_)))), "{word}");
        }
        assert_eq!(parse("status"), Ok(Some(Input::Status)));
        assert_eq!(parse("# comment"), Ok(None));
        assert_eq!(parse(""), Ok(None));
    }

    #[test]
    fn bad_lines_name_the_problem() {
        assert!(parse("jump 3").unwrap_err().contains("unknown word `jump`"));
        assert!(parse("press").unwrap_err().contains("needs a seat number"));
        assert!(parse("press 0").unwrap_err().contains("`0` is not a seat number"));
        assert!(parse("press 17").unwrap_err().contains("`17` is not a seat number"));
        assert!(parse("press x").unwrap_err().contains("`x` is not a seat number"));
        assert!(parse("credits 3").unwrap_err().contains("`credits SEAT N`"));
        assert!(parse("credits 3 many").unwrap_err().contains("`many` is not a number of credits"));
        assert!(parse("start now").unwrap_err().contains("unexpected `now`"));
        assert!(parse("prize 2").unwrap_err().contains("premio code"));
        assert!(parse(&"x".repeat(300)).unwrap_err().contains("over 256"));
    }
}
