//! Per-cell write times and TTLs: a row whose cells differ in write time or TTL becomes one
//! value list per distinct pair, each binding only its own cells, with the checkpoint
//! offset held at the row's start until its last part.

use cqlwire_core::bulk::{BulkConfig, BulkEncoder, CellTime, CellTimes, CsvOptions, FieldRef, Format, RowOutcome};
use cqlwire_core::types::ColumnType;

#[derive(Debug, PartialEq)]
enum Out {
    Part { values: Vec<Option<Vec<u8>>>, line: u64, offset: u64, end_offset: u64, continues: bool },
    Bad(String),
}

const UNSET: Option<Vec<u8>> = None;

fn config() -> BulkConfig {
    let columns = vec![
        ("id".to_owned(), ColumnType::Int),
        ("a".to_owned(), ColumnType::Text),
        ("b".to_owned(), ColumnType::Int),
        ("[timestamp]".to_owned(), ColumnType::Bigint),
        ("[ttl]".to_owned(), ColumnType::Int),
    ];
    let mut config = BulkConfig::new(Format::Csv(CsvOptions::default()), columns);
    config.pk_indexes = vec![0];
    let cell = |column: &str| CellTime {
        column: column.into(),
        writetime: Some(FieldRef::Name(format!("writetime({column})"))),
        ttl: Some(FieldRef::Name(format!("ttl({column})"))),
    };
    config.cell_times = Some(CellTimes {
        timestamp_marker: "[timestamp]".into(),
        ttl_marker: "[ttl]".into(),
        cells: vec![cell("a"), cell("b")],
    });
    config
}

/// Each value as its bytes, or `None` for unset (no nulls occur here).
fn split_values(values: &[u8]) -> Vec<Option<Vec<u8>>> {
    let mut out = Vec::new();
    let mut at = 2;
    while at + 4 <= values.len() {
        let len = i32::from_be_bytes(values[at..at + 4].try_into().unwrap());
        at += 4;
        if len < 0 {
            assert_eq!(len, -2, "only unset is expected");
            out.push(None);
        } else {
            out.push(Some(values[at..at + len as usize].to_vec()));
            at += len as usize;
        }
    }
    out
}

fn run(input: &str) -> Vec<Out> {
    let mut encoder = BulkEncoder::new(config()).unwrap();
    encoder.push(input.as_bytes());
    encoder.finish();
    let mut out = Vec::new();
    while let Some(outcome) = encoder.next_row() {
        out.push(match outcome {
            RowOutcome::Good { values, line, offset, end_offset, continues, .. } => {
                Out::Part { values: split_values(values), line, offset, end_offset, continues }
            }
            RowOutcome::Bad { reason, .. } => Out::Bad(reason),
        });
    }
    assert_eq!(encoder.error(), None);
    assert_eq!(encoder.stats().good_rows, 3, "rows, not parts");
    out
}

fn int(n: i32) -> Option<Vec<u8>> {
    Some(n.to_be_bytes().to_vec())
}

fn bigint(n: i64) -> Option<Vec<u8>> {
    Some(n.to_be_bytes().to_vec())
}

#[test]
fn a_row_is_written_once_per_distinct_write_time_and_ttl() {
    let header = "id,a,writetime(a),ttl(a),b,writetime(b),ttl(b)\n";
    let row1 = "1,x,1000,60,2,2000,\n";
    let row2 = "2,y,5000,,3,5000,\n";
    let row3 = "3,,,,4,7000,9\n";
    let bad = "4,z,soon,,5,1,\n";
    let input = format!("{header}{row1}{row2}{row3}{bad}");
    let start1 = header.len() as u64;
    let start2 = start1 + row1.len() as u64;
    let start3 = start2 + row2.len() as u64;
    let x = Some(b"x".to_vec());
    assert_eq!(
        run(&input),
        vec![
            // a and b differ: two parts; the first keeps the checkpoint at the row's start.
            Out::Part {
                values: vec![int(1), x, UNSET, bigint(1000), int(60)],
                line: 2,
                offset: start1,
                end_offset: start1,
                continues: true,
            },
            Out::Part {
                values: vec![int(1), UNSET, int(2), bigint(2000), UNSET],
                line: 2,
                offset: start1,
                end_offset: start2,
                continues: false,
            },
            // Equal times: one part with both cells.
            Out::Part {
                values: vec![int(2), Some(b"y".to_vec()), int(3), bigint(5000), UNSET],
                line: 3,
                offset: start2,
                end_offset: start3,
                continues: false,
            },
            // An empty cell has no time of its own and is written by no part.
            Out::Part {
                values: vec![int(3), UNSET, int(4), bigint(7000), int(9)],
                line: 4,
                offset: start3,
                end_offset: start3 + row3.len() as u64,
                continues: false,
            },
            Out::Bad("column a: write time 'soon' is not an integer".into()),
        ]
    );
}

#[test]
fn cell_times_need_their_markers_and_csv() {
    let mut missing = config();
    missing.columns.pop();
    assert_eq!(
        BulkEncoder::new(missing).unwrap_err().to_string(),
        "bulk configuration: cell times need the statement's [ttl] bind marker"
    );
    let mut jsonl = config();
    jsonl.format = Format::jsonl();
    assert_eq!(BulkEncoder::new(jsonl).unwrap_err().to_string(), "bulk configuration: cell times need CSV input");
}
