//! A zero-copy reader of RESULT Rows, for the results the core reads itself (system tables)
//! and for validating pages before they cross to the host.

use crate::error::ProtocolError;
use crate::types::{ColumnType, RowsValidator};
use crate::wire::Reader;

mod mflags {
    pub const GLOBAL_TABLES_SPEC: i32 = 0x0001;
    pub const HAS_MORE_PAGES: i32 = 0x0002;
    pub const NO_METADATA: i32 = 0x0004;
    pub const METADATA_CHANGED: i32 = 0x0008;
}

/// One column of a Rows result.
#[derive(Debug, Clone)]
pub struct Column<'a> {
    pub keyspace: &'a str,
    pub table: &'a str,
    pub name: &'a str,
    pub ty: ColumnType,
}

/// A decoded Rows result whose cells still point into the page.
#[derive(Debug)]
pub struct Rows<'a> {
    pub columns: Vec<Column<'a>>,
    pub paging_state: Option<&'a [u8]>,
    pub new_metadata_id: Option<&'a [u8]>,
    pub row_count: usize,
    content: Reader<'a>,
}

impl<'a> Rows<'a> {
    /// Parses a RESULT body (starting at its `[int] kind`) that must be Rows with metadata.
    pub fn parse(body: &'a [u8]) -> Result<Self, ProtocolError> {
        let mut r = Reader::new(body);
        let kind = r.i32("result kind")?;
        if kind != crate::message::RESULT_ROWS {
            return Err(r.error("result kind", format!("expected Rows (2), got {kind}")));
        }
        let flags = r.i32("rows metadata flags")?;
        let count = r.i32("rows metadata columns_count")?;
        if !(0..=65535).contains(&count) {
            return Err(r.error("rows metadata columns_count", format!("implausible count {count}")));
        }
        let paging_state = if flags & mflags::HAS_MORE_PAGES != 0 { r.bytes_opt("rows paging state")? } else { None };
        let new_metadata_id =
            if flags & mflags::METADATA_CHANGED != 0 { Some(r.short_bytes("rows new_metadata_id")?) } else { None };
        if flags & mflags::NO_METADATA != 0 {
            return Err(r.error("rows metadata flags", "a result the core reads itself must carry metadata"));
        }
        let global = if flags & mflags::GLOBAL_TABLES_SPEC != 0 {
            Some((r.string("rows global keyspace")?, r.string("rows global table")?))
        } else {
            None
        };
        // Each column spec takes at least 4 bytes (a name length and a type id).
        let mut columns = Vec::with_capacity((count as usize).min(r.remaining() / 4));
        for _ in 0..count {
            let (keyspace, table) = match global {
                Some(g) => g,
                None => (r.string("column keyspace")?, r.string("column table")?),
            };
            let name = r.string("column name")?;
            let ty = ColumnType::read(&mut r)?;
            columns.push(Column { keyspace, table, name, ty });
        }
        // Walk every cell once, with the per-column checks planned once for the page, so
        // that iteration below cannot fail half way.
        let mut check = r;
        let row_count = RowsValidator::new(columns.iter().map(|c| &c.ty)).validate(&mut check)?;
        // The content starts after the row count, which the validator has read already.
        let mut content = r;
        content.i32("rows count")?;
        // A body is consumed exactly, as the driver's decoder reads it.
        if !check.is_empty() {
            return Err(check.error("rows result", format!("{} unexpected trailing bytes", check.remaining())));
        }
        Ok(Rows { columns, paging_state, new_metadata_id, row_count, content })
    }

    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// Iterates rows as slices of cells (`None` = null), reusing `cells` between rows.
    pub fn for_each_row(&self, mut f: impl FnMut(&[Option<&'a [u8]>])) {
        let mut r = self.content;
        let mut cells: Vec<Option<&'a [u8]>> = Vec::with_capacity(self.columns.len());
        for _ in 0..self.row_count {
            cells.clear();
            for _ in 0..self.columns.len() {
                // Validated in `parse`, so these reads cannot fail.
                cells.push(r.bytes_opt("row cell").unwrap_or(None));
            }
            f(&cells);
        }
    }
}

/// Cell decoders for the handful of types the core reads from system tables.
pub mod cell {
    use crate::message::format_ip;

    pub fn text(b: Option<&[u8]>) -> Option<String> {
        b.and_then(|b| std::str::from_utf8(b).ok()).map(str::to_owned)
    }
    pub fn inet(b: Option<&[u8]>) -> Option<String> {
        b.filter(|b| b.len() == 4 || b.len() == 16).map(format_ip)
    }
    pub fn int(b: Option<&[u8]>) -> Option<i32> {
        b.and_then(|b| <[u8; 4]>::try_from(b).ok()).map(i32::from_be_bytes)
    }
    pub fn uuid(b: Option<&[u8]>) -> Option<[u8; 16]> {
        b.and_then(|b| <[u8; 16]>::try_from(b).ok())
    }
    /// Elements of a `set<text>` / `list<text>` (v3+ collection encoding).
    pub fn text_collection(b: Option<&[u8]>) -> Vec<String> {
        let mut out = Vec::new();
        let Some(b) = b else { return out };
        let mut r = crate::wire::Reader::new(b);
        let Ok(n) = r.i32("collection count") else { return out };
        for _ in 0..n.max(0) {
            match r.bytes_opt("collection element") {
                Ok(Some(e)) => out.push(String::from_utf8_lossy(e).into_owned()),
                _ => break,
            }
        }
        out
    }
    /// Entries of a `map<text, text>`.
    pub fn text_map(b: Option<&[u8]>) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let Some(b) = b else { return out };
        let mut r = crate::wire::Reader::new(b);
        let Ok(n) = r.i32("map count") else { return out };
        for _ in 0..n.max(0) {
            match (r.bytes_opt("map key"), r.bytes_opt("map value")) {
                (Ok(Some(k)), Ok(Some(v))) => {
                    out.push((String::from_utf8_lossy(k).into_owned(), String::from_utf8_lossy(v).into_owned()))
                }
                _ => break,
            }
        }
        out
    }
}

pub use crate::csv_out::{format_csv, format_csv_header, CollectionFormat, CsvFormat, CsvFormatSettings};
pub use crate::json_out::{format_cell_lines, format_column_names, format_json_lines, json_page_options};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Side;

    /// A Rows body with a global table spec, `columns` int columns and the given tail.
    fn body(columns: usize, tail: &[u8]) -> Vec<u8> {
        let mut b = [2i32, 1, columns as i32].iter().flat_map(|v| v.to_be_bytes()).collect::<Vec<u8>>();
        b.extend_from_slice(&[0, 1, b'k', 0, 1, b't']);
        for i in 0..columns {
            b.extend_from_slice(&[0, 1, b'a' + i as u8, 0, 0x09]);
        }
        b.extend_from_slice(tail);
        b
    }

    #[test]
    fn zero_columns_with_rows_are_refused_at_the_count() {
        // The 16-byte reply from issue #12: no global spec, no columns, 2^31 - 1 rows.
        let hostile = [0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF];
        let err = Rows::parse(&hostile).unwrap_err();
        assert_eq!((err.side, err.field, err.offset), (Side::Remote, "rows count", 12));
        assert_eq!(err.reason, "2147483647 rows without any column");
        // Zero columns and zero rows is a well-formed empty result.
        let empty = Rows::parse(&[0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap();
        assert_eq!(empty.row_count, 0);
    }

    #[test]
    fn row_count_is_capped_by_the_bytes_present() {
        // Two int columns need at least 8 bytes a row; 3 rows in 20 bytes cannot be.
        let mut tail = 3i32.to_be_bytes().to_vec();
        tail.extend_from_slice(&[0xFF; 20]);
        let b = body(2, &tail);
        let err = Rows::parse(&b).unwrap_err();
        let count_at = b.len() - tail.len();
        assert_eq!((err.field, err.offset), ("rows count", count_at));
        assert_eq!(err.reason, "3 rows of 2 columns cannot fit in 20 bytes");
        // 3 rows of nulls fit in 24.
        tail.extend_from_slice(&[0xFF; 4]);
        let b = body(2, &tail);
        let rows = Rows::parse(&b).unwrap();
        assert_eq!(rows.row_count, 3);
        let mut seen = 0;
        rows.for_each_row(|cells| {
            assert_eq!(cells, [None, None]);
            seen += 1;
        });
        assert_eq!(seen, 3);
    }

    #[test]
    fn a_bad_cell_fails_the_page_naming_its_row_column_and_byte() {
        // Two int columns; row 1's second cell has 3 bytes.
        let mut tail = 2i32.to_be_bytes().to_vec();
        for cell in [&[0, 0, 0, 1][..], &[0, 0, 0, 2], &[0, 0, 0, 3], &[0, 0, 4]] {
            tail.extend_from_slice(&(cell.len() as i32).to_be_bytes());
            tail.extend_from_slice(cell);
        }
        let b = body(2, &tail);
        let err = Rows::parse(&b).unwrap_err();
        let cell_at = b.len() - 3;
        assert_eq!((err.side, err.field, err.offset), (Side::Remote, "int value", cell_at));
        assert_eq!(err.reason, "row 1, column 1 (int): expected 4 bytes, got 3");
        // Trailing bytes after the last row are refused where they start.
        let mut b = body(2, &[0, 0, 0, 0]);
        b.push(7);
        let err = Rows::parse(&b).unwrap_err();
        assert_eq!((err.field, err.offset, err.reason.as_str()), ("rows result", b.len() - 1, "1 unexpected trailing bytes"));
    }

    #[test]
    fn columns_are_found_by_exact_name() {
        let b = body(3, &[0, 0, 0, 0]);
        let rows = Rows::parse(&b).unwrap();
        let found: Vec<_> = ["a", "b", "c", "d", "", "A"].iter().map(|n| rows.column_index(n)).collect();
        assert_eq!(found, [Some(0), Some(1), Some(2), None, None, None]);
    }

    /// `[int n]` then each item as `[bytes]` (`None` = a null item, length -1).
    fn collection(n: i32, items: &[Option<&[u8]>]) -> Vec<u8> {
        let mut b = n.to_be_bytes().to_vec();
        for item in items {
            match item {
                Some(v) => {
                    b.extend_from_slice(&(v.len() as i32).to_be_bytes());
                    b.extend_from_slice(v);
                }
                None => b.extend_from_slice(&(-1i32).to_be_bytes()),
            }
        }
        b
    }

    #[test]
    fn system_table_cells_decode_exactly_and_refuse_what_they_cannot_be() {
        assert_eq!(cell::text(Some(b"dc1")), Some("dc1".to_owned()));
        assert_eq!(cell::text(Some(b"")), Some(String::new()));
        assert_eq!((cell::text(Some(&[0xFF])), cell::text(None)), (None, None));
        assert_eq!(cell::inet(Some(&[127, 0, 0, 2])), Some("127.0.0.2".to_owned()));
        let v6 = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
        assert_eq!(cell::inet(Some(&v6)), Some("2001:db8::1".to_owned()));
        assert_eq!((cell::inet(Some(&[127, 0, 0])), cell::inet(Some(&[0; 5])), cell::inet(None)), (None, None, None));
        assert_eq!(cell::int(Some(&[0x00, 0x00, 0x23, 0x52])), Some(9042));
        assert_eq!(cell::int(Some(&[0xFF, 0xFF, 0xFF, 0xFE])), Some(-2));
        assert_eq!((cell::int(Some(&[0, 0, 1])), cell::int(None)), (None, None));
        let id: [u8; 16] = core::array::from_fn(|i| i as u8 + 1);
        assert_eq!(cell::uuid(Some(&id)), Some(id));
        assert_eq!((cell::uuid(Some(&id[1..])), cell::uuid(None)), (None, None));
    }

    #[test]
    fn text_collections_keep_their_items_and_stop_at_the_first_bad_one() {
        let tokens = collection(3, &[Some(b"-9"), Some(b""), Some(b"42")]);
        assert_eq!(cell::text_collection(Some(&tokens)), ["-9", "", "42"]);
        // A null item, or a count beyond the items present, ends the list there.
        assert_eq!(cell::text_collection(Some(&collection(3, &[Some(b"a"), None, Some(b"c")]))), ["a"]);
        assert_eq!(cell::text_collection(Some(&collection(i32::MAX, &[Some(b"a")]))), ["a"]);
        assert!(cell::text_collection(Some(&collection(-1, &[Some(b"a")]))).is_empty());
        assert!(cell::text_collection(Some(&[0, 0])).is_empty());
        assert!(cell::text_collection(None).is_empty());

        let map = collection(2, &[Some(b"class"), Some(b"SimpleStrategy"), Some(b"rf"), Some(b"3")]);
        let pair = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        assert_eq!(cell::text_map(Some(&map)), [pair("class", "SimpleStrategy"), pair("rf", "3")]);
        let null_value = collection(2, &[Some(b"k"), Some(b"v"), Some(b"k2"), None]);
        assert_eq!(cell::text_map(Some(&null_value)), [pair("k", "v")]);
        assert!(cell::text_map(Some(&collection(1, &[Some(b"k")]))).is_empty());
        assert!(cell::text_map(None).is_empty());
    }

    #[test]
    fn a_column_count_without_the_bytes_fails_at_the_first_missing_column() {
        let mut b = [2i32, 1, 65535].iter().flat_map(|v| v.to_be_bytes()).collect::<Vec<u8>>();
        b.extend_from_slice(&[0, 1, b'k', 0, 1, b't']);
        let err = Rows::parse(&b).unwrap_err();
        assert_eq!((err.field, err.offset), ("column name", 18));
    }
}
