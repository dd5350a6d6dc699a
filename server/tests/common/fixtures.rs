//! The setups the integration tests share, named after what they leave: a fresh controller
//! with its client, a table opened with credits sold, bets pressed, a round started, a
//! round played to its end, an order pending at Venta-Pagos. Each sends exactly the
//! commands its name says, in the order given, every one of which must be applied.

use pozo_proto::v1 as pb;

use super::{Client, TestServer, a_pending_order, accept, finish, open, press, prize, sell, start};

impl TestServer {
    /// A fresh controller ([`TestServer::start`]) and a client of it.
    pub async fn with_client() -> (TestServer, Client) {
        let server = TestServer::start().await;
        let client = server.client().await;
        (server, client)
    }

    /// A fresh controller whose instant-prize draws follow `seed` ([`TestServer::seeded`]),
    /// and a client of it.
    pub async fn seeded_with_client(seed: u64) -> (TestServer, Client) {
        let server = TestServer::seeded(seed).await;
        let client = server.client().await;
        (server, client)
    }
}

/// What a round played to its end answered: ACEPTAR's reply (the awards) and FINALIZAR
/// JUEGO's (the table as the round left it).
pub struct Played {
    pub accepted: pb::SubmitReply,
    pub finished: pb::SubmitReply,
}

impl Client {
    /// Apertura de Mesa at `table`, then the `sales` in order, each `(seat, credits)`.
    pub async fn open_with_credits(&mut self, table: &str, sales: &[(u32, u32)]) {
        self.ok(table, open()).await;
        for &(seat, credits) in sales {
            self.ok(table, sell(seat, credits)).await;
        }
    }

    /// Each seat of `seats` presses its button, in order.
    pub async fn press_all(&mut self, table: &str, seats: &[u32]) {
        for &seat in seats {
            self.ok(table, press(seat)).await;
        }
    }

    /// The bets loaded before INICIAR JUEGO: [`Client::open_with_credits`], then the seats
    /// of `pressed` press, in order.
    pub async fn open_with_bets(&mut self, table: &str, sales: &[(u32, u32)], pressed: &[u32]) {
        self.open_with_credits(table, sales).await;
        self.press_all(table, pressed).await;
    }

    /// A round in play: [`Client::open_with_bets`], then INICIAR JUEGO, which registers the
    /// bets. Returns INICIAR JUEGO's answer.
    pub async fn round_started(&mut self, table: &str, sales: &[(u32, u32)], pressed: &[u32]) -> pb::SubmitReply {
        self.open_with_bets(table, sales, pressed).await;
        self.ok(table, start()).await
    }

    /// Each seat of `seats` in turn buys `credits` and presses at once (sale, press; sale,
    /// press…), at a table already open.
    pub async fn sell_and_press(&mut self, table: &str, seats: impl IntoIterator<Item = u32>, credits: u32) {
        for seat in seats {
            self.ok(table, sell(seat, credits)).await;
            self.ok(table, press(seat)).await;
        }
    }

    /// The round in play settled: the `prizes` entered in order, each `(seat, code)`, then
    /// ACEPTAR and FINALIZAR JUEGO.
    pub async fn settle_round(&mut self, table: &str, prizes: &[(u32, &str)]) -> Played {
        for &(seat, code) in prizes {
            self.ok(table, prize(seat, code)).await;
        }
        let accepted = self.ok(table, accept()).await;
        let finished = self.ok(table, finish()).await;
        Played { accepted, finished }
    }

    /// One round from INICIAR JUEGO on, with the bets already loaded: INICIAR JUEGO, then
    /// [`Client::settle_round`] with `prizes`.
    pub async fn play_round(&mut self, table: &str, prizes: &[(u32, &str)]) -> Played {
        self.ok(table, start()).await;
        self.settle_round(table, prizes).await
    }

    /// A Central Póker table with an instant-prize card in play (15.11.2): opened, 20
    /// credits sold to each seat of `seats`, then rounds played with those seats pressing
    /// until an INICIAR JUEGO shows a card ([`Client::until_instant_card`]); that round is
    /// left in play. Returns the card and how many rounds showed none.
    pub async fn open_until_instant_card(&mut self, table: &str, seats: &[u32]) -> (pb::Card, u32) {
        let sales: Vec<(u32, u32)> = seats.iter().map(|&seat| (seat, 20)).collect();
        self.open_with_credits(table, &sales).await;
        self.until_instant_card(table, seats).await
    }

    /// B3 opened, then [`a_pending_order`] for `seat`: a 20% prize (11.2.2) whose payout
    /// order waits at Venta-Pagos. Returns the order's id.
    pub async fn open_b3_with_a_pending_order(&mut self, seat: u32) -> String {
        self.ok("B3", open()).await;
        a_pending_order(self, seat).await
    }
}
