//! When the cluster view is read again after TOPOLOGY_CHANGE and SCHEMA_CHANGE events.
//!
//! As the DataStax drivers debounce them: the first event schedules a refresh `delay` later
//! (`refreshSchemaDelay`, 1 s by default), each further one slides it `delay` past itself, and
//! the twentieth event of a batch refreshes at once (the Java driver's `max-events` of its
//! topology and schema debouncers), so a storm that never pauses (a migration creating
//! hundreds of tables) still refreshes every 20 events rather than never or after each one.

/// Events coalesced into one refresh at most (the Java driver's `debouncer.max-events`).
pub(super) const MAX_EVENTS: u32 = 20;

#[derive(Debug, Default)]
pub(super) struct RefreshDebounce {
    /// When the pending refresh is due; `None`: none pending.
    at: Option<u64>,
    /// Events coalesced into the pending refresh.
    events: u32,
}

impl RefreshDebounce {
    /// An event that calls for a refresh: true when it is due now (no delay, or the batch is
    /// full), else it is (re)scheduled `delay_us` after `now`.
    pub(super) fn on_event(&mut self, now: u64, delay_us: u64) -> bool {
        self.events += 1;
        if delay_us == 0 || self.events >= MAX_EVENTS {
            self.clear();
            return true;
        }
        self.at = Some(now.saturating_add(delay_us));
        false
    }

    /// The instant the host must wake for the pending refresh.
    pub(super) fn deadline(&self) -> Option<u64> {
        self.at
    }

    /// Whether the pending refresh is due at `now`; if so it is no longer pending.
    pub(super) fn take_due(&mut self, now: u64) -> bool {
        if self.at.is_some_and(|t| t <= now) {
            self.clear();
            return true;
        }
        false
    }

    /// Whether a refresh was pending; it is no longer (run it now instead).
    pub(super) fn take_pending(&mut self) -> bool {
        let pending = self.at.is_some();
        self.clear();
        pending
    }

    fn clear(&mut self) {
        self.at = None;
        self.events = 0;
    }
}
