//! A bulk load's status as the JSON the driver's loader reads (`bulkState`), written with the
//! core's [`JsonWriter`] in the shape serde's derive wrote (pinned by the test below).

use cqlwire_core::bulk::header::HeaderRead;
use cqlwire_core::bulk::load::LoadStats;
use cqlwire_core::bulk::registry::{BulkControl, BulkStatus};
use cqlwire_core::bulk::sniff::Sniffed;
use cqlwire_core::types::JsonWriter;

/// `{"counters": {rowsOk, ...}, "status": {wantsInput, done, error}}`, or `null` for no load.
pub fn bulk_status_json(status: Option<&BulkStatus>) -> String {
    let mut w = JsonWriter::new();
    match status {
        None => {
            w.null();
        }
        Some(BulkStatus { counters, status: BulkControl { wants_input, done, error } }) => {
            w.open('{').key("counters");
            counters_json(&mut w, counters);
            w.key("status").open('{').key("wantsInput").boolean(*wants_input).key("done").boolean(*done);
            w.key("error").opt_string(error.as_deref()).close('}').close('}');
        }
    }
    w.finish()
}

/// The destructuring makes a new counter a compile error here.
fn counters_json(w: &mut JsonWriter, s: &LoadStats) {
    let LoadStats {
        rows_ok,
        rows_bad,
        rows_rejected,
        retries,
        in_flight,
        window,
        waiting_retry,
        watermark,
        watermark_line,
        watermark_rows_ok,
        watermark_rows_bad,
        bytes_pushed,
        rows_previous,
        rows_uncertain,
        held_bytes,
        watermark_timestamp,
        last_timestamp,
    } = *s;
    w.open('{');
    w.key("rowsOk").number(rows_ok).key("rowsBad").number(rows_bad).key("rowsRejected").number(rows_rejected);
    w.key("retries").number(retries).key("inFlight").number(in_flight).key("window").number(window);
    w.key("waitingRetry").number(waiting_retry).key("watermark").number(watermark);
    w.key("watermarkLine").number(watermark_line).key("watermarkRowsOk").number(watermark_rows_ok);
    w.key("watermarkRowsBad").number(watermark_rows_bad).key("bytesPushed").number(bytes_pushed);
    w.key("rowsPrevious").number(rows_previous).key("rowsUncertain").number(rows_uncertain);
    w.key("heldBytes").number(held_bytes).key("watermarkTimestamp").opt_number(watermark_timestamp);
    w.key("lastTimestamp").opt_number(last_timestamp).close('}');
}

/// `csvHeader`'s answer: `{"status": "needMore" | "empty" | "record" | "fault", ...}`.
pub fn header_read_json(read: &HeaderRead) -> String {
    let mut w = JsonWriter::new();
    w.open('{');
    let (fields, reason, start, raw_length, end, line, next_line) = match read {
        HeaderRead::NeedMore => {
            w.key("status").string("needMore").close('}');
            return w.finish();
        }
        HeaderRead::Empty => {
            w.key("status").string("empty").close('}');
            return w.finish();
        }
        HeaderRead::Record { fields, start, raw_length, end, line, next_line } => {
            (Some(fields), None, start, raw_length, end, line, next_line)
        }
        HeaderRead::Fault { reason, start, raw_length, end, line, next_line } => {
            (None, Some(reason), start, raw_length, end, line, next_line)
        }
    };
    if let Some(fields) = fields {
        w.key("status").string("record").key("fields").open('[');
        for f in fields {
            w.string(f);
        }
        w.close(']');
    }
    if let Some(reason) = reason {
        w.key("status").string("fault").key("reason").string(reason);
    }
    w.key("start").number(start).key("rawLength").number(raw_length).key("end").number(end);
    w.key("line").number(line).key("nextLine").number(next_line).close('}');
    w.finish()
}

/// `sniffInput`'s answer: `{fields: [{name, cqlType, nulls, values}], settings: {nullValues,
/// timestampFormat, dateFormat}, records, skipped}`.
pub fn sniffed_json(s: &Sniffed) -> String {
    let mut w = JsonWriter::new();
    w.open('{').key("fields").open('[');
    for f in &s.fields {
        w.open('{').key("name").string(&f.name).key("cqlType").string(&f.cql_type);
        w.key("nulls").number(f.nulls).key("values").number(f.values).close('}');
    }
    w.close(']').key("settings").open('{').key("nullValues").open('[');
    for v in &s.settings.null_values {
        w.string(v);
    }
    w.close(']').key("timestampFormat").opt_string(s.settings.timestamp_format.as_deref());
    w.key("dateFormat").opt_string(s.settings.date_format.as_deref()).close('}');
    w.key("records").number(s.records).key("skipped").number(s.skipped).close('}');
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_status_matches_serde() {
        let counters = LoadStats {
            rows_ok: u64::MAX,
            in_flight: 3,
            held_bytes: 9,
            rows_uncertain: 1,
            watermark_timestamp: Some(-7),
            ..LoadStats::default()
        };
        for error in [None, Some("stopped: \"x\"\n".to_string())] {
            let status = BulkStatus { counters, status: BulkControl { wants_input: true, done: false, error } };
            assert_eq!(bulk_status_json(Some(&status)), serde_json::to_string(&status).unwrap());
        }
        assert_eq!(bulk_status_json(None), "null");
    }

    #[test]
    fn header_reads_match_serde() {
        let reads = [
            HeaderRead::NeedMore,
            HeaderRead::Empty,
            HeaderRead::Record {
                fields: vec!["a".into(), "b\"c".into()],
                start: 3,
                raw_length: 5,
                end: 9,
                line: 1,
                next_line: 2,
            },
            HeaderRead::Record { fields: vec![], start: 0, raw_length: 0, end: 1, line: 1, next_line: 2 },
            HeaderRead::Fault {
                reason: "open quote".into(),
                start: 0,
                raw_length: u64::MAX,
                end: 4,
                line: 1,
                next_line: 3,
            },
        ];
        for read in &reads {
            assert_eq!(header_read_json(read), serde_json::to_string(read).unwrap());
        }
    }

    #[test]
    fn sniffed_matches_serde() {
        use cqlwire_core::bulk::sniff::{SniffedField, SniffedSettings};
        let field = |name: &str, cql_type: &str| SniffedField {
            name: name.into(),
            cql_type: cql_type.into(),
            nulls: 1,
            values: 2,
        };
        let sniffed = Sniffed {
            fields: vec![field("id", "int"), field("when \u{1}", "timestamp")],
            settings: SniffedSettings {
                null_values: vec!["".into(), "NULL".into()],
                timestamp_format: Some("iso".into()),
                date_format: None,
            },
            records: 10,
            skipped: 0,
        };
        assert_eq!(sniffed_json(&sniffed), serde_json::to_string(&sniffed).unwrap());
        let empty = Sniffed {
            fields: vec![],
            settings: SniffedSettings { null_values: vec![], timestamp_format: None, date_format: None },
            records: 0,
            skipped: 0,
        };
        assert_eq!(sniffed_json(&empty), serde_json::to_string(&empty).unwrap());
    }
}
