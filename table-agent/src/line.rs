//! The hardware line protocol: one event per line, words separated by spaces.
//!
//! ```text
//! open | close | start | accept | finish | carry | last-round | gold-turn | status
//! credits SEAT N | refund-credits SEAT | press SEAT [CREDITS] | void SEAT | refund SEAT
//! prize SEAT CODE [HIGH]
//! close-seat SEAT | open-seat SEAT                       (AJ 2.5.6.1)
//! absent SEAT | returns SEAT | played SEAT CODE N | annul-series SEAT [SERIES]   (roulette, 3.7)
//! custody-bet SEAT | custody-prize SEAT | release-custody ID            (11.8.3, 15.14.5.2)
//! ```
//!
//! A line that breaks the protocol is refused with the problem named; the agent
//! keeps running. Blank lines and lines starting with `#` are ignored.

use pozo_proto::v1 as pb;
use pozo_proto::v1::table_command::Command as C;
use tokio_util::bytes::BytesMut;
use tokio_util::codec::{Decoder, LinesCodec, LinesCodecError};

/// The highest seat number the protocol accepts; the server checks the table's own.
const SEAT_MAX: u32 = 16;

/// The longest line read: anything longer is not a hardware event.
pub const LINE_BYTES_MAX: usize = 256;

/// One line as the hardware sent it: its text, or why it could not be read as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawLine {
    Text(String),
    /// An over-long line (skipped to its end) or one that is not UTF-8 (line noise on a
    /// serial cable): refused as one bad line, and the agent reads on.
    Unreadable(String),
    /// A line the floor inspector sends from the monitor (4.6, 4.7, 4.3.1): the command names
    /// them, and their PIN travels beside it for the controller to check (docs/agent.md §11).
    Inspector {
        text: String,
        inspector: String,
        pin: Pin,
    },
    /// The floor inspector's PIN as typed on the monitor's keypad, to be checked by the controller
    /// before any of their buttons opens (`Table/CheckInspector`, read-only); the answer is a
    /// `pin` output line (docs/agent.md §11).
    CheckPin {
        inspector: String,
        pin: Pin,
    },
}

/// A floor inspector's PIN as typed on the monitor: kept in memory for the one command, sent
/// outside the signed bytes, never printed or logged.
#[derive(Clone, PartialEq, Eq)]
pub struct Pin(pub String);

impl std::fmt::Debug for Pin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pin(..)")
    }
}

impl From<String> for RawLine {
    fn from(text: String) -> RawLine {
        RawLine::Text(text)
    }
}

/// The hardware lines of a byte stream, for `tokio_util::codec::FramedRead`: tokio-util's
/// `LinesCodec` bounded at [`LINE_BYTES_MAX`] (and a `\r` before the newline), with its two
/// refusals turned into [`RawLine::Unreadable`] instead of ending the stream.
#[derive(Debug)]
pub(crate) struct HardwareLines(LinesCodec);

impl HardwareLines {
    pub(crate) fn new() -> HardwareLines {
        HardwareLines(LinesCodec::new_with_max_length(LINE_BYTES_MAX + 1))
    }

    fn line(read: Result<Option<String>, LinesCodecError>) -> Result<Option<RawLine>, std::io::Error> {
        match read {
            Ok(line) => Ok(line.map(RawLine::Text)),
            Err(LinesCodecError::MaxLineLengthExceeded) => {
                Ok(Some(RawLine::Unreadable(format!("a line over {LINE_BYTES_MAX} bytes"))))
            }
            Err(LinesCodecError::Io(error)) if error.kind() == std::io::ErrorKind::InvalidData => {
                Ok(Some(RawLine::Unreadable("a line that is not UTF-8 text".to_owned())))
            }
            Err(LinesCodecError::Io(error)) => Err(error),
        }
    }
}

impl Default for HardwareLines {
    fn default() -> HardwareLines {
        HardwareLines::new()
    }
}

impl Decoder for HardwareLines {
    type Item = RawLine;
    type Error = std::io::Error;

    fn decode(&mut self, buffer: &mut BytesMut) -> Result<Option<RawLine>, std::io::Error> {
        HardwareLines::line(self.0.decode(buffer))
    }

    fn decode_eof(&mut self, buffer: &mut BytesMut) -> Result<Option<RawLine>, std::io::Error> {
        HardwareLines::line(self.0.decode_eof(buffer))
    }
}

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
        "press" => (press(&mut words)?, "press SEAT [CREDITS]"),
        "close-seat" => (C::CloseSeat(pb::CloseSeat { seat: seat(words.next(), word)? }), "close-seat SEAT"),
        "open-seat" => (C::OpenSeat(pb::OpenSeat { seat: seat(words.next(), word)? }), "open-seat SEAT"),
        "absent" => (C::PlayerAbsent(pb::PlayerAbsent { seat: seat(words.next(), word)? }), "absent SEAT"),
        "returns" => (C::PlayerReturns(pb::PlayerReturns { seat: seat(words.next(), word)? }), "returns SEAT"),
        "annul-series" => {
            let seat = seat(words.next(), word)?;
            // 3.7.3: the series found invalid, by its number (SE-000007); none, the seat's current one.
            let series = words.next().unwrap_or_default().to_owned();
            (C::AnnulSeries(pb::AnnulSeries { seat, series }), "annul-series SEAT [SERIES]")
        }
        "custody-bet" => (C::CustodyBet(pb::CustodyBet { seat: seat(words.next(), word)? }), "custody-bet SEAT"),
        "custody-prize" => (C::CustodyPrize(pb::CustodyPrize { seat: seat(words.next(), word)? }), "custody-prize SEAT"),
        "release-custody" => {
            let id = words.next().ok_or("`release-custody` needs a custody id: `release-custody CU-000001`")?;
            (C::ReleaseCustody(pb::ReleaseCustody { custody_id: id.to_owned() }), "release-custody ID")
        }
        "played" => (played(&mut words)?, "played SEAT CODE N"),
        "void" => (C::VoidBet(pb::VoidBet { seat: seat(words.next(), word)? }), "void SEAT"),
        "refund" => (C::RefundBet(pb::RefundBet { seat: seat(words.next(), word)? }), "refund SEAT"),
        "refund-credits" => (C::RefundCredits(pb::RefundCredits { seat: seat(words.next(), word)? }), "refund-credits SEAT"),
        "credits" => (credits(&mut words)?, "credits SEAT N"),
        "prize" => (prize(&mut words)?, "prize SEAT CODE [HIGH]"),
        other => {
            return Err(format!(
                "unknown word `{other}` (open, close, credits, refund-credits, press, start, prize, accept, finish, void, refund, carry, last-round, gold-turn, close-seat, open-seat, absent, returns, played, annul-series, custody-bet, custody-prize, release-custody, status)"
            ));
        }
    };
    no_more(words, command.1)?;
    Ok(Some(Input::Command(command.0)))
}

/// `press SEAT [CREDITS]`, after its first word.
fn press<'a>(words: &mut impl Iterator<Item = &'a str>) -> Result<C, String> {
    let seat = seat(words.next(), "press")?;
    // AJ 2.5.4.1: the bet "expresado en créditos"; one credit when not said.
    let credits = match words.next() {
        None => 0,
        Some(text) => match text.parse::<u32>() {
            Ok(credits) if credits >= 1 => credits,
            _ => return Err(format!("`{text}` is not a stake in credits (1 or more)")),
        },
    };
    Ok(C::Press(pb::Press { seat, credits }))
}

/// `played SEAT CODE N`, after its first word.
fn played<'a>(words: &mut impl Iterator<Item = &'a str>) -> Result<C, String> {
    let seat = seat(words.next(), "played")?;
    let usage = "`played` needs a seat, a grillo code and how many were played: `played SEAT GRILLO_BRONCE N`";
    let code = words.next().ok_or(usage)?;
    let played = words.next().ok_or(usage)?;
    let played = played.parse::<u32>().map_err(|_| format!("`{played}` is not a number of grillos"))?;
    Ok(C::GrillosPlayed(pb::GrillosPlayed { seat, code: code.to_owned(), played }))
}

/// `credits SEAT N`, after its first word.
fn credits<'a>(words: &mut impl Iterator<Item = &'a str>) -> Result<C, String> {
    let seat = seat(words.next(), "credits")?;
    let credits = words.next().ok_or("`credits` needs a seat and an amount: `credits SEAT N` (N = 1, 5, 10 or 20)")?;
    let credits = credits.parse::<u32>().map_err(|_| format!("`{credits}` is not a number of credits (1, 5, 10 or 20)"))?;
    Ok(C::SellCredits(pb::SellCredits { seat, credits }))
}

/// `prize SEAT CODE [HIGH]`, after its first word.
fn prize<'a>(words: &mut impl Iterator<Item = &'a str>) -> Result<C, String> {
    let seat = seat(words.next(), "prize")?;
    let code = words.next().ok_or("`prize` needs a seat and a premio code: `prize SEAT CODE [HIGH]`")?;
    let high = words.next().unwrap_or_default();
    Ok(C::EnterPrize(pb::EnterPrize { seat, code: code.to_owned(), high: high.to_owned() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_of_the_protocol() {
        assert_eq!(parse("press 3"), Ok(Some(Input::Command(C::Press(pb::Press { seat: 3, credits: 0 })))));
        assert_eq!(parse("press 3 4"), Ok(Some(Input::Command(C::Press(pb::Press { seat: 3, credits: 4 })))));
        assert_eq!(
            parse("played 2 GRILLO_BRONCE 2"),
            Ok(Some(Input::Command(C::GrillosPlayed(pb::GrillosPlayed { seat: 2, code: "GRILLO_BRONCE".into(), played: 2 }))))
        );
        // 3.7.3: the series by its number; without one, the seat's current series.
        assert_eq!(
            parse("annul-series 4 SE-000482"),
            Ok(Some(Input::Command(C::AnnulSeries(pb::AnnulSeries { seat: 4, series: "SE-000482".into() }))))
        );
        assert_eq!(
            parse("annul-series 4"),
            Ok(Some(Input::Command(C::AnnulSeries(pb::AnnulSeries { seat: 4, series: String::new() }))))
        );
        assert!(parse("annul-series 4 SE-1 SE-2").is_err(), "one series at a time");
        assert_eq!(
            parse("release-custody CU-000001"),
            Ok(Some(Input::Command(C::ReleaseCustody(pb::ReleaseCustody { custody_id: "CU-000001".into() }))))
        );
        for line in ["close-seat 2", "open-seat 2", "absent 4", "returns 4", "annul-series 4", "custody-bet 1", "custody-prize 1"]
        {
            assert!(matches!(parse(line), Ok(Some(Input::Command(_)))), "{line}");
        }
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
        assert!(parse("press 3 0").unwrap_err().contains("`0` is not a stake in credits"));
        assert!(parse("played 3 GRILLO_PLATA").unwrap_err().contains("`played SEAT GRILLO_BRONCE N`"));
        assert!(parse("release-custody").unwrap_err().contains("custody id"));
        assert!(parse(&"x".repeat(300)).unwrap_err().contains("over 256"));
    }

    /// Reads `bytes` as the binary reads its input.
    async fn read(bytes: &[u8]) -> Vec<RawLine> {
        use futures_util::StreamExt as _;
        let frames = tokio_util::codec::FramedRead::new(bytes, HardwareLines::new());
        frames.map(|line| line.expect("no I/O error from a slice")).collect().await
    }

    #[tokio::test]
    async fn a_bad_line_is_one_refusal_and_the_reader_reads_on() {
        let longest = "x".repeat(LINE_BYTES_MAX);
        let mut input = Vec::new();
        input.extend_from_slice(format!("{}\npress 3\r\n", "y".repeat(3 * LINE_BYTES_MAX)).as_bytes());
        input.extend_from_slice(b"press \xff\xfe\nstatus\n");
        input.extend_from_slice(format!("{longest}\r\n{longest}x\nopen").as_bytes());
        let lines = read(&input).await;
        let text = |line: &str| RawLine::Text(line.to_owned());
        assert_eq!(
            lines,
            [
                RawLine::Unreadable(format!("a line over {LINE_BYTES_MAX} bytes")),
                text("press 3"),
                RawLine::Unreadable("a line that is not UTF-8 text".to_owned()),
                text("status"),
                text(&longest),
                // One byte over (room for a `\r`): read, and refused by its length.
                text(&format!("{longest}x")),
                text("open"),
            ]
        );
        assert!(parse(&format!("{longest}x")).unwrap_err().contains("line of 257 bytes, over 256"));
    }
}
