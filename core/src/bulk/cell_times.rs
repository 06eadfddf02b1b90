//! Per-cell write times and TTLs loaded back (DSBulk's `preserveTimestamp`/`preserveTtl`):
//! a CSV written by `unload --with-writetime --with-ttl` carries, for each regular column,
//! the `WRITETIME()` (µs) and `TTL()` (s) fields of its cell. One INSERT has one
//! `USING TIMESTAMP ? AND TTL ?`, so a row whose cells differ in write time or TTL becomes
//! one INSERT per distinct (write time, TTL) pair: each binds the key, the cells of its
//! pair and the columns without times; the other timed cells are unset (not written). An
//! empty write time or TTL field binds unset: the server's time, no TTL.
//!
//! The parts of one input row are returned one after another, all with the row's `offset`,
//! `raw` and `line`; every part but the last reports `end_offset == offset` and
//! `continues == true`, so a checkpoint never passes a row whose parts are not all written.

use std::borrow::Cow;

use super::FieldRef;
use crate::types::ColumnType;

/// Which CSV fields carry a column's write time and TTL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellTime {
    pub column: String,
    pub writetime: Option<FieldRef>,
    pub ttl: Option<FieldRef>,
}

/// The statement's `USING TIMESTAMP ? AND TTL ?` markers (Cassandra names them
/// `[timestamp]` and `[ttl]`) and the timed columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellTimes {
    pub timestamp_marker: String,
    pub ttl_marker: String,
    pub cells: Vec<CellTime>,
}

/// A timed column resolved to indexes: column, write time field, TTL field (CSV positions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TimedCell {
    pub column: usize,
    pub writetime: Option<usize>,
    pub ttl: Option<usize>,
}

/// `CellTimes` against the statement's columns; field names are resolved with the header.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub timestamp_index: usize,
    pub ttl_index: usize,
    pub cells: Vec<(usize, Option<FieldRef>, Option<FieldRef>)>,
    /// Set once the header (or its absence) fixes the positions.
    pub timed: Vec<TimedCell>,
}

/// (write time in µs, TTL in s): `None` binds unset.
pub(crate) type Times = (Option<i64>, Option<i32>);

/// The parts of the current row still to be returned.
#[derive(Debug, Default)]
pub(crate) struct Parts {
    /// The row's full value list and where each value starts in it.
    pub full: Vec<u8>,
    pub starts: Vec<usize>,
    /// Each timed cell's times, in `Resolved::timed` order; `None` for a cell with no value
    /// (unset), which no part writes.
    pub times: Vec<Option<Times>>,
    /// The distinct times, in order of first appearance; `next` is the one to build.
    pub groups: Vec<Times>,
    pub next: usize,
    pub token: Option<i64>,
    pub line: u64,
    pub offset: u64,
    pub end_offset: u64,
}

impl Resolved {
    pub fn new(config: &CellTimes, find: impl Fn(&str) -> Option<usize>) -> Result<Resolved, String> {
        let marker =
            |name: &str| find(name).ok_or_else(|| format!("cell times need the statement's {name} bind marker"));
        let timestamp_index = marker(&config.timestamp_marker)?;
        let ttl_index = marker(&config.ttl_marker)?;
        let mut cells = Vec::with_capacity(config.cells.len());
        for cell in &config.cells {
            let column = find(&cell.column).ok_or_else(|| format!("cell times of unknown column {}", cell.column))?;
            cells.push((column, cell.writetime.clone(), cell.ttl.clone()));
        }
        Ok(Resolved { timestamp_index, ttl_index, cells, timed: Vec::new() })
    }

    /// Fixes field positions: by index, or by name in `header`.
    pub fn place(&mut self, header: Option<&[&str]>) -> Result<(), String> {
        let position = |field: &Option<FieldRef>| -> Result<Option<usize>, String> {
            match (field, header) {
                (None, _) => Ok(None),
                (Some(FieldRef::Index(i)), _) => Ok(Some(*i)),
                (Some(FieldRef::Name(name)), Some(names)) => names
                    .iter()
                    .position(|n| n == name)
                    .map(Some)
                    .ok_or_else(|| format!("cell time field '{name}' is not in the header")),
                (Some(FieldRef::Name(name)), None) => Err(format!("cell time field '{name}' needs a header")),
            }
        };
        self.timed = self
            .cells
            .iter()
            .map(|(column, writetime, ttl)| {
                Ok(TimedCell { column: *column, writetime: position(writetime)?, ttl: position(ttl)? })
            })
            .collect::<Result<_, String>>()?;
        Ok(())
    }

    /// Field positions the cell times read, so that they are not taken for columns.
    pub fn fields(&self) -> impl Iterator<Item = usize> + '_ {
        self.timed.iter().flat_map(|cell| [cell.writetime, cell.ttl]).flatten()
    }
}

/// A write time (µs) or TTL (s) field; empty is `None`.
pub(crate) fn read_time<T: TryFrom<i64>>(text: &str, what: &str) -> Result<Option<T>, Cow<'static, str>> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let value: i64 = text.parse().map_err(|_| Cow::Owned(format!("{what} '{text}' is not an integer")))?;
    T::try_from(value).map(Some).map_err(|_| Cow::Owned(format!("{what} {value} is out of range")))
}

impl Parts {
    /// Groups the row's cells by their times.
    pub fn group(&mut self) {
        self.groups.clear();
        for &times in self.times.iter().flatten() {
            if !self.groups.contains(&times) {
                self.groups.push(times);
            }
        }
        if self.groups.is_empty() {
            self.groups.push((None, None));
        }
        self.next = 0;
    }

    pub fn pending(&self) -> bool {
        self.next < self.groups.len()
    }

    /// Writes the next part's value list into `values` (and its starts); true if it is the
    /// row's last.
    pub fn build(
        &mut self,
        resolved: &Resolved,
        columns: &[(String, ColumnType)],
        values: &mut Vec<u8>,
        starts: &mut [usize],
    ) -> bool {
        let group = self.groups.get(self.next).copied().unwrap_or((None, None));
        self.next += 1;
        values.clear();
        values.extend_from_slice(&(columns.len() as u16).to_be_bytes());
        for index in 0..columns.len() {
            if let Some(start) = starts.get_mut(index) {
                *start = values.len();
            }
            if index == resolved.timestamp_index {
                push_optional(values, group.0.map(i64::to_be_bytes).as_ref().map(|b| &b[..]));
            } else if index == resolved.ttl_index {
                push_optional(values, group.1.map(i32::to_be_bytes).as_ref().map(|b| &b[..]));
            } else if let Some(cell) = resolved.timed.iter().position(|cell| cell.column == index) {
                if self.times.get(cell) == Some(&Some(group)) {
                    values.extend_from_slice(self.value(index));
                } else {
                    values.extend_from_slice(&(-2i32).to_be_bytes());
                }
            } else {
                values.extend_from_slice(self.value(index));
            }
        }
        !self.pending()
    }

    /// Column `index`'s `[value]` in the full row.
    fn value(&self, index: usize) -> &[u8] {
        let start = self.starts.get(index).copied().unwrap_or(self.full.len());
        let end = self.starts.get(index + 1).copied().unwrap_or(self.full.len());
        self.full.get(start..end).unwrap_or(&[])
    }
}

fn push_optional(values: &mut Vec<u8>, bytes: Option<&[u8]>) {
    match bytes {
        Some(bytes) => {
            values.extend_from_slice(&(bytes.len() as i32).to_be_bytes());
            values.extend_from_slice(bytes);
        }
        None => values.extend_from_slice(&(-2i32).to_be_bytes()),
    }
}
