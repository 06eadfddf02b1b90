//! What to refresh when the server pushes an EVENT.
//!
//! Up/down changes are applied directly ([`ClusterView::set_up`]) and never recompute plans:
//! plans skip down nodes as they are walked. Topology and keyspace changes need a query of
//! the system tables first, whose rows then go to `apply_topology` / `apply_keyspace`.

use super::view::ClusterView;
use super::Decision;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TopologyChange {
    NewNode,
    RemovedNode,
    MovedNode,
}

impl TopologyChange {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "NEW_NODE" => Some(TopologyChange::NewNode),
            "REMOVED_NODE" => Some(TopologyChange::RemovedNode),
            "MOVED_NODE" => Some(TopologyChange::MovedNode),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StatusChange {
    Up,
    Down,
}

impl StatusChange {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "UP" => Some(StatusChange::Up),
            "DOWN" => Some(StatusChange::Down),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemaTarget {
    Keyspace,
    Table,
    Type,
    Function,
    Aggregate,
}

impl SchemaTarget {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "KEYSPACE" => Some(SchemaTarget::Keyspace),
            "TABLE" => Some(SchemaTarget::Table),
            "TYPE" => Some(SchemaTarget::Type),
            "FUNCTION" => Some(SchemaTarget::Function),
            "AGGREGATE" => Some(SchemaTarget::Aggregate),
            _ => None,
        }
    }
}

/// A server event, already decoded. `address` is the node's native endpoint formatted with
/// [`super::format_address`], the same form as [`super::Node::address`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterEvent<'a> {
    TopologyChange { change: TopologyChange, address: &'a str },
    StatusChange { change: StatusChange, address: &'a str },
    SchemaChange { target: SchemaTarget, keyspace: &'a str },
}

/// What the session should do about an event.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RefreshAction {
    /// Re-read `system.local` and `system.peers_v2`, then `apply_topology`.
    Peers,
    /// Re-read this keyspace's `system_schema.keyspaces` row, then `apply_keyspace`.
    Keyspace(String),
    /// `set_up(address, true)` and reconnect the node's pool.
    MarkUp(String),
    /// `set_up(address, false)`.
    MarkDown(String),
}

/// Decides what an event calls for; `None` when nothing needs doing.
pub fn decide_event(view: &ClusterView, event: &ClusterEvent<'_>) -> Decision<Option<RefreshAction>> {
    let decision = |value, reason| Decision { value, reason };
    match *event {
        ClusterEvent::TopologyChange { change: TopologyChange::NewNode, .. } => {
            decision(Some(RefreshAction::Peers), "node joined: re-read peers")
        }
        ClusterEvent::TopologyChange { change: TopologyChange::RemovedNode, .. } => {
            decision(Some(RefreshAction::Peers), "node left: re-read peers")
        }
        ClusterEvent::TopologyChange { change: TopologyChange::MovedNode, .. } => {
            decision(Some(RefreshAction::Peers), "node moved: re-read tokens")
        }
        ClusterEvent::StatusChange { change, address } => match (view.node_by_address(address), change) {
            (None, StatusChange::Up) => decision(Some(RefreshAction::Peers), "unknown node came up: re-read peers"),
            (None, StatusChange::Down) => decision(None, "unknown node went down: nothing to do"),
            (Some(node), StatusChange::Up) => {
                decision(Some(RefreshAction::MarkUp(node.address.clone())), "node came up")
            }
            (Some(node), StatusChange::Down) if !node.up => decision(None, "node already down"),
            (Some(node), StatusChange::Down) => {
                decision(Some(RefreshAction::MarkDown(node.address.clone())), "node went down")
            }
        },
        ClusterEvent::SchemaChange { target: SchemaTarget::Keyspace, keyspace } => {
            decision(Some(RefreshAction::Keyspace(keyspace.to_string())), "keyspace changed: re-read its replication")
        }
        ClusterEvent::SchemaChange { .. } => decision(None, "schema change does not affect replication"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_name_parses_to_its_own_kind_and_nothing_else_does() {
        let topology = [
            ("NEW_NODE", TopologyChange::NewNode),
            ("REMOVED_NODE", TopologyChange::RemovedNode),
            ("MOVED_NODE", TopologyChange::MovedNode),
        ];
        for (name, change) in topology {
            assert_eq!(TopologyChange::parse(name), Some(change));
        }
        for (name, change) in [("UP", StatusChange::Up), ("DOWN", StatusChange::Down)] {
            assert_eq!(StatusChange::parse(name), Some(change));
        }
        let targets = [
            ("KEYSPACE", SchemaTarget::Keyspace),
            ("TABLE", SchemaTarget::Table),
            ("TYPE", SchemaTarget::Type),
            ("FUNCTION", SchemaTarget::Function),
            ("AGGREGATE", SchemaTarget::Aggregate),
        ];
        for (name, target) in targets {
            assert_eq!(SchemaTarget::parse(name), Some(target));
        }
        // Names are exact: another kind's name, another case or an unknown name is none.
        for name in ["", "new_node", "UP", "KEYSPACE", "INDEX"] {
            assert_eq!(TopologyChange::parse(name), None, "{name}");
        }
        for name in ["", "up", "NEW_NODE", "TABLE"] {
            assert_eq!(StatusChange::parse(name), None, "{name}");
        }
        for name in ["", "keyspace", "DOWN", "INDEX", "VIEW"] {
            assert_eq!(SchemaTarget::parse(name), None, "{name}");
        }
    }
}
