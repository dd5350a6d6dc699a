//! Every table of the layout as it stands (its last panel, its agent's presence), as the
//! floor page and `/status` show it.

use super::context::Web;
use crate::config::Role;
use pozo_core::state::TableState;

/// Who reads the floor (the sala, the flor): the jefe de sala and the inspector.
pub(super) const FLOOR_READERS: &[Role] = &[Role::Supervisor, Role::Inspector];
/// Who may read a flor's page: the floor's readers and the floor inspector who stands there.
pub(super) const FLOR_READERS: &[Role] = &[Role::Supervisor, Role::Inspector, Role::FloorInspector];

/// Where a table stands, in the floor's words.
pub(super) fn phase(state: TableState) -> &'static str {
    match state {
        TableState::Closed => "cerrada",
        TableState::Betting => "apuestas abiertas",
        TableState::Playing => "en juego",
        TableState::Entered => "premios ingresados",
        TableState::Accepted => "premios aceptados",
    }
}

/// A table of the layout as it stands: its last published panel and its agent's presence.
pub(super) struct TableNow<'a> {
    pub(super) layout: &'a crate::config::TableConfig,
    pub(super) state: pozo_core::state::TableState,
    pub(super) round: u64,
    pub(super) seen: crate::read::presence::AgentSeen,
}

impl TableNow<'_> {
    /// Open: from Apertura to Cierre de Mesa (4.6, 4.7).
    pub(super) fn open(&self) -> bool {
        self.state != pozo_core::state::TableState::Closed
    }

    /// Open, but its agent is away: its panels are suspended (3.7.5).
    pub(super) fn suspended(&self) -> bool {
        self.open() && !self.seen.connected()
    }
}

/// Every table of the layout, in its order, as the floor page and `/status` show it.
pub(super) fn tables_now<'a>(web: &Web, config: &'a crate::config::Config) -> Vec<TableNow<'a>> {
    let agents = web.presence.tables();
    config
        .layout
        .tables
        .iter()
        .filter_map(|layout| {
            let (state, round) = {
                let panel = web.handle.table(&layout.id)?;
                let push = panel.borrow();
                (push.view.state, push.view.round)
            };
            let seen = agents.get(layout.id.as_str()).cloned().unwrap_or_default();
            Some(TableNow { layout, state, round, seen })
        })
        .collect()
}
