//! The pages, served by `pozo-server` itself on their own listener (`serve --pages`):
//! the cartel luminoso (`/cartel`), the Venta-Pagos office (`/venta-pagos`) and the
//! floor view of the jefe de sala (`/sala`). docs/pages.md describes them.
//!
//! # Layout
//! - [`feed`]: the signs' event stream, built once per published display state
//!   (the same one the gRPC display feed sends) and shared by every open sign.
//! - [`auth`]: per-operator login (the keys file's Argon2id password hashes), CSRF tokens,
//!   the login and logout pages.
//! - `sessions`: the signed-in people and the lock-out of wrong passwords.
//! - `cartel`, `office`, `sala`: the pages, thin over the writer's reads and commands.
//! - `torneos`, `torneo_cartel`: the poker tournament's pages (Res. 123/2013): the cashier's, the
//!   director's, the receipt of a purchase, and the room display.
//! - `changes`: the sala's changes (docs/operations.md §8): proposed, approved, withdrawn.
//! - `planilla`: the closing sheet of a table and jornada, printable on A4 (4.7, 12.8, Form 4218).
//! - `view`: amounts the Argentine way, times in the casino's zone, CSV.
//! - `context`: what the pages need of the running controller (`Web`), given to every handler.
//! - `error`: a refusal as a page (`PageError`), and a template rendered as a page.
//! - `tables`: every table of the layout as it stands, for the floor page and `/status`.
//! - `status`: `/status` and `/metrics`, for machines.
//! - `backup`: `POST /backup`, a verified copy of the journal while the controller serves.
//! - `csp`: the Content-Security-Policy, and the peers' origins (`--pages-peer`) it names.
//! - `router`: the routes, the embedded assets, the home page, the limits on every request.
//! - `listen`: the pages' listener, its limit on connections, and each request's peer.
//! - `serve`: serving the pages until the controller stops.
//!
//! This file only declares the modules and re-exports what the rest of the server uses.
//!
//! Everything the browser loads is embedded in the binary (`server/templates`,
//! `server/static`); no script or style comes from anywhere else (Content-Security-Policy).

mod auth;
mod backup;
mod cartel;
mod changes;
mod context;
mod csp;
mod error;
mod feed;
mod flor;
mod liability;
mod listen;
mod office;
mod planilla;
mod pool_page;
mod router;
mod sala;
mod serve;
mod sessions;
mod status;
mod tables;
mod torneo_cartel;
mod torneos;
mod view;

pub(crate) use csp::peer_origin;
pub(crate) use serve::{PagesSetup, serve_pages};
