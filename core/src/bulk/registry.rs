//! The bulk loads running on one session, and the routing of the session's events to them:
//! an answer to a load's request is counted by that load and never reaches the host, which
//! only marshals what is left.

use super::load::{BadRow, BulkLoad, LoadStats};
use super::{BulkEncoder, BulkError, BulkOptions};
use crate::session::{Session, SessionEvent};

/// Where a load stands, for the host's loop: counters apart from what the host acts on.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct BulkStatus {
    pub counters: LoadStats,
    pub status: BulkControl,
}

#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct BulkControl {
    /// More input would be turned into requests now.
    pub wants_input: bool,
    /// Every row pushed is settled, or the load stopped and nothing is in flight.
    pub done: bool,
    /// Why the load stopped early.
    pub error: Option<String>,
}

/// The loads of one session, by id. Closed ids are not reused while the session lives.
#[derive(Default)]
pub struct BulkLoads {
    loads: Vec<Option<BulkLoad>>,
}

impl BulkLoads {
    pub fn new() -> Self {
        BulkLoads::default()
    }

    /// Starts a load of raw input through a statement prepared on `session`, with
    /// `options` as JSON ([`BulkOptions`]). Returns its id.
    pub fn start(
        &mut self,
        session: &Session,
        prepared_id: &[u8],
        result_metadata_id: &[u8],
        options: &str,
    ) -> Result<u32, BulkError> {
        let meta = session
            .prepared(prepared_id)
            .ok_or_else(|| BulkError::Config("the statement was not prepared through this session".into()))?;
        let (encoder, load) =
            BulkOptions::from_json(options)?.into_configs(meta.bind_columns.clone(), meta.pk_indexes.clone())?;
        Ok(self.insert(BulkLoad::new(BulkEncoder::new(encoder)?, prepared_id, result_metadata_id, load)))
    }

    /// Adds a load built by the caller. Returns its id.
    pub fn insert(&mut self, load: BulkLoad) -> u32 {
        self.loads.push(Some(load));
        (self.loads.len() - 1) as u32
    }

    pub fn get(&self, id: u32) -> Option<&BulkLoad> {
        self.loads.get(id as usize)?.as_ref()
    }

    pub fn get_mut(&mut self, id: u32) -> Option<&mut BulkLoad> {
        self.loads.get_mut(id as usize)?.as_mut()
    }

    /// Feeds one chunk of input (cut anywhere) and starts what the windows allow.
    pub fn push(&mut self, now: u64, session: &mut Session, id: u32, chunk: &[u8]) {
        if let Some(load) = self.get_mut(id) {
            load.push(chunk);
        }
        self.pump(now, session);
    }

    /// Marks the end of a load's input.
    pub fn finish(&mut self, now: u64, session: &mut Session, id: u32) {
        if let Some(load) = self.get_mut(id) {
            load.finish();
        }
        self.pump(now, session);
    }

    /// Ends a load's input where it stands; rows already parsed still go out.
    pub fn stop(&mut self, now: u64, session: &mut Session, id: u32) {
        if let Some(load) = self.get_mut(id) {
            load.stop();
        }
        self.pump(now, session);
    }

    pub fn close(&mut self, id: u32) {
        if let Some(slot) = self.loads.get_mut(id as usize) {
            *slot = None;
        }
    }

    pub fn status(&self, id: u32) -> Option<BulkStatus> {
        let load = self.get(id)?;
        Some(BulkStatus {
            counters: load.stats(),
            status: BulkControl { wants_input: load.wants_input(), done: load.is_done(), error: load.failure() },
        })
    }

    pub fn poll_bad(&mut self, id: u32) -> Option<BadRow> {
        self.get_mut(id)?.poll_bad()
    }

    /// Starts as many rows of every load as their windows allow.
    pub fn pump(&mut self, now: u64, session: &mut Session) {
        for load in self.loads.iter_mut().flatten() {
            load.pump(now, session);
        }
    }

    /// Whether a load is still running: draining events pumps its next rows.
    pub fn has_running(&self) -> bool {
        self.loads.iter().flatten().any(|load| !load.is_done())
    }

    /// The earliest retry any load waits for.
    pub fn next_timeout(&self) -> Option<u64> {
        self.loads.iter().flatten().filter_map(BulkLoad::next_timeout).min()
    }

    /// Gives the event to the load that owns its request; `false` when none does.
    pub fn route(&mut self, now: u64, event: &SessionEvent<'_>) -> bool {
        match event {
            SessionEvent::Response { id, .. } => match self.owner(*id) {
                Some(load) => {
                    load.on_response(*id);
                    true
                }
                None => false,
            },
            SessionEvent::Failed { id, error } => match self.owner(*id) {
                Some(load) => {
                    load.on_failure(now, *id, error);
                    true
                }
                None => false,
            },
            _ => false,
        }
    }

    fn owner(&mut self, id: u32) -> Option<&mut BulkLoad> {
        self.loads.iter_mut().flatten().find(|load| load.owns(id))
    }

    /// Drains the session's events: the loads' own answers are counted (which may start
    /// their next rows, whose answers can come in the same drain), every other event goes to
    /// `deliver`. Returns how many events there were.
    pub fn drain_events(
        &mut self,
        now: u64,
        session: &mut Session,
        mut deliver: impl FnMut(SessionEvent<'_>),
    ) -> usize {
        let mut count = 0;
        loop {
            let Some(event) = session.poll_event() else {
                if self.has_running() {
                    self.pump(now, session);
                    if session.has_events() {
                        continue;
                    }
                }
                return count;
            };
            count += 1;
            if !self.route(now, &event) {
                deliver(event);
            }
        }
    }
}
