//! Structural validation of values straight off the wire: no allocation unless the value is
//! bad, no copying, recursion bounded by the type's depth.

use super::column_type::ColumnType;
use super::scalar::{
    check_time, check_timeuuid, collection_count, element, fixed, no_trailing, read_duration, vector_element,
};
use crate::error::ProtocolError;
use crate::wire::Reader;

impl ColumnType {
    /// Checks that `bytes` (a value without its `[bytes]` length) is a well-formed value of
    /// this type: sizes, counts, element lengths, UTF-8 for text, ASCII for ascii, ranges for
    /// time and duration, vector dimensions. Allocates only to build the error.
    pub fn validate(&self, bytes: &[u8]) -> Result<(), ProtocolError> {
        check_value(self, Reader::new(bytes))
    }
}

/// Validates the value that is the whole of `r` (offsets in errors are `r`'s).
pub(crate) fn check_value(ty: &ColumnType, r: Reader<'_>) -> Result<(), ProtocolError> {
    match ty {
        ColumnType::Blob | ColumnType::Custom(_) | ColumnType::Varint => Ok(()),
        ColumnType::Ascii => check_ascii(&r),
        ColumnType::Text => check_utf8(&r),
        ColumnType::Boolean => fixed::<1>(&r, "boolean value", true).map(drop),
        ColumnType::Tinyint => fixed::<1>(&r, "tinyint value", false).map(drop),
        ColumnType::Smallint => fixed::<2>(&r, "smallint value", false).map(drop),
        ColumnType::Int => fixed::<4>(&r, "int value", true).map(drop),
        ColumnType::Float => fixed::<4>(&r, "float value", true).map(drop),
        ColumnType::Date => fixed::<4>(&r, "date value", false).map(drop),
        ColumnType::Bigint => fixed::<8>(&r, "bigint value", true).map(drop),
        ColumnType::Counter => fixed::<8>(&r, "counter value", true).map(drop),
        ColumnType::Double => fixed::<8>(&r, "double value", true).map(drop),
        ColumnType::Timestamp => fixed::<8>(&r, "timestamp value", true).map(drop),
        ColumnType::Uuid => fixed::<16>(&r, "uuid value", true).map(drop),
        ColumnType::Time => {
            let bytes = fixed::<8>(&r, "time value", false)?.unwrap_or_default();
            check_time(i64::from_be_bytes(bytes), &r).map(drop)
        }
        ColumnType::Timeuuid => match fixed::<16>(&r, "timeuuid value", true)? {
            Some(bytes) => check_timeuuid(&bytes, &r),
            None => Ok(()),
        },
        ColumnType::Inet => match r.remaining() {
            0 | 4 | 16 => Ok(()),
            n => Err(r.error("inet value", format!("address of {n} bytes, expected 4 or 16"))),
        },
        ColumnType::Decimal => {
            if r.is_empty() {
                return Ok(());
            }
            let mut r = r;
            r.i32("decimal scale")?;
            if r.is_empty() {
                return Err(r.error("decimal unscaled value", "missing (needs at least one byte)"));
            }
            Ok(())
        }
        ColumnType::Duration => read_duration(r).map(drop),
        ColumnType::List(e) | ColumnType::Set(e) => {
            let mut r = r;
            let field = if matches!(ty, ColumnType::List(_)) { "list element" } else { "set element" };
            let n = collection_count(&mut r, "collection element count", 1)?;
            for _ in 0..n {
                if let Some(value) = element(&mut r, field)? {
                    check_value(e, value)?;
                }
            }
            no_trailing(&r, "collection")
        }
        ColumnType::Map(k, v) => {
            let mut r = r;
            let n = collection_count(&mut r, "map entry count", 2)?;
            for _ in 0..n {
                if let Some(key) = element(&mut r, "map key")? {
                    check_value(k, key)?;
                }
                if let Some(value) = element(&mut r, "map value")? {
                    check_value(v, value)?;
                }
            }
            no_trailing(&r, "map")
        }
        ColumnType::Tuple(items) => check_fields(items.iter(), r, "tuple component"),
        ColumnType::Udt(udt) => check_fields(udt.fields.iter().map(|(_, ty)| ty), r, "udt field"),
        ColumnType::Vector(e, dimension) => check_vector(e, *dimension, r),
    }
}

fn check_ascii(r: &Reader<'_>) -> Result<(), ProtocolError> {
    match r.rest().iter().position(|b| !b.is_ascii()) {
        None => Ok(()),
        Some(i) => Err(ProtocolError::remote(
            "ascii value",
            r.offset() + i,
            format!("byte 0x{:02x} is not ASCII", r.rest()[i]),
        )),
    }
}

fn check_utf8(r: &Reader<'_>) -> Result<(), ProtocolError> {
    match std::str::from_utf8(r.rest()) {
        Ok(_) => Ok(()),
        Err(e) => Err(ProtocolError::remote("text value", r.offset() + e.valid_up_to(), "invalid UTF-8")),
    }
}

/// Tuples and UDTs: up to one `[bytes]` per declared component; fewer is legal.
fn check_fields<'t>(
    mut types: impl Iterator<Item = &'t ColumnType>,
    mut r: Reader<'_>,
    field: &'static str,
) -> Result<(), ProtocolError> {
    while !r.is_empty() {
        let Some(ty) = types.next() else {
            return Err(r.error(field, format!("{} bytes after the last declared component", r.remaining())));
        };
        if let Some(value) = element(&mut r, field)? {
            check_value(ty, value)?;
        }
    }
    Ok(())
}

fn check_vector(e: &ColumnType, dimension: u32, mut r: Reader<'_>) -> Result<(), ProtocolError> {
    if let Some(size) = e.vector_fixed_len() {
        let want = size.saturating_mul(u64::from(dimension));
        if r.remaining() as u64 != want {
            return Err(r.error(
                "vector value",
                format!("{dimension} elements of {size} bytes need {want} bytes, got {}", r.remaining()),
            ));
        }
        for _ in 0..dimension {
            // `size` divides the checked total, so it fits in usize.
            check_value(e, r.sub(size as usize, "vector element")?)?;
        }
        return Ok(());
    }
    for _ in 0..dimension {
        check_value(e, vector_element(&mut r)?)?;
    }
    no_trailing(&r, "vector value")
}

/// How one column's cells are checked; chosen once per result, not per cell.
#[derive(Debug, Clone, Copy)]
enum CellCheck {
    Any,
    Fixed { len: usize, empty_ok: bool },
    Full,
}

/// Walks every cell of a Rows result and checks it against the column types, without
/// allocating per row (à la scylla-cql: the per-column plan is made once per result).
/// [`crate::rows::Rows::parse`] runs it on every page before any cell is read.
#[derive(Debug, Clone)]
pub struct RowsValidator<'t> {
    checks: Vec<(&'t ColumnType, CellCheck)>,
}

impl<'t> RowsValidator<'t> {
    pub fn new(columns: impl IntoIterator<Item = &'t ColumnType>) -> Self {
        let checks = columns
            .into_iter()
            .map(|ty| {
                let check = match ty {
                    ColumnType::Blob | ColumnType::Custom(_) | ColumnType::Varint => CellCheck::Any,
                    ColumnType::Boolean => CellCheck::Fixed { len: 1, empty_ok: true },
                    ColumnType::Tinyint => CellCheck::Fixed { len: 1, empty_ok: false },
                    ColumnType::Smallint => CellCheck::Fixed { len: 2, empty_ok: false },
                    ColumnType::Int | ColumnType::Float => CellCheck::Fixed { len: 4, empty_ok: true },
                    ColumnType::Date => CellCheck::Fixed { len: 4, empty_ok: false },
                    ColumnType::Bigint | ColumnType::Counter | ColumnType::Double | ColumnType::Timestamp => {
                        CellCheck::Fixed { len: 8, empty_ok: true }
                    }
                    ColumnType::Uuid => CellCheck::Fixed { len: 16, empty_ok: true },
                    _ => CellCheck::Full,
                };
                (ty, check)
            })
            .collect();
        RowsValidator { checks }
    }

    /// `r` is positioned on `<rows_count><rows_content>`; on success it is left just after
    /// the last row and the row count is returned.
    pub fn validate(&self, r: &mut Reader<'_>) -> Result<usize, ProtocolError> {
        let rows = read_row_count(r, self.checks.len())?;
        for row in 0..rows {
            for (column, &(ty, check)) in self.checks.iter().enumerate() {
                let Some(cell) = element(r, "row cell")? else { continue };
                let result = match check {
                    CellCheck::Any => Ok(()),
                    // The common case costs one comparison; a wrong length gets the type's
                    // own error, the same as a value checked alone.
                    CellCheck::Fixed { len, empty_ok } if cell.remaining() == len || (empty_ok && cell.is_empty()) => {
                        Ok(())
                    }
                    CellCheck::Fixed { .. } => check_value(ty, cell),
                    CellCheck::Full => check_value(ty, cell),
                };
                result.map_err(|mut e| {
                    e.reason = format!("row {row}, column {column} ({ty}): {}", e.reason);
                    e
                })?;
            }
        }
        Ok(rows)
    }
}

/// Reads a Rows result's `rows_count` and checks it against the bytes that follow: every cell
/// is at least its 4-byte length, so a count that cannot fit is a lie and must not size a loop
/// or an allocation. Rows without columns carry no bytes at all, so any count of them would
/// be unbounded; no server sends them, and they are refused.
pub(crate) fn read_row_count(r: &mut Reader<'_>, columns: usize) -> Result<usize, ProtocolError> {
    let at = r.offset();
    let rows = r.i32("rows count")?;
    if rows < 0 {
        return Err(ProtocolError::remote("rows count", at, format!("negative count {rows}")));
    }
    let rows = rows as usize;
    if columns == 0 && rows > 0 {
        return Err(ProtocolError::remote("rows count", at, format!("{rows} rows without any column")));
    }
    if rows.saturating_mul(columns.saturating_mul(4)) > r.remaining() {
        return Err(ProtocolError::remote(
            "rows count",
            at,
            format!("{rows} rows of {columns} columns cannot fit in {} bytes", r.remaining()),
        ));
    }
    Ok(rows)
}

/// [`RowsValidator::new`] then [`RowsValidator::validate`].
pub fn validate_rows(columns: &[ColumnType], r: &mut Reader<'_>) -> Result<usize, ProtocolError> {
    RowsValidator::new(columns).validate(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Side;

    fn ty(text: &str) -> ColumnType {
        ColumnType::parse_cql(text).unwrap()
    }

    #[test]
    fn errors_name_field_offset_and_side() {
        let err = ty("list<text>").validate(&[0, 0, 0, 1, 0, 0, 0, 2, b'a', 0xFF]).unwrap_err();
        assert_eq!((err.field, err.offset, err.side), ("text value", 9, Side::Remote));
        let err = ty("map<int, int>").validate(&[0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 2, 0, 1]).unwrap_err();
        assert_eq!((err.field, err.offset), ("int value", 16));
        let err = ty("list<int>").validate(&[0x7F, 0xFF, 0xFF, 0xFF]).unwrap_err();
        assert_eq!(err.field, "collection element count");
    }

    #[test]
    fn ascii_tuples_and_vectors_are_checked_with_exact_errors() {
        let err = |field, offset, reason: &str| Err(ProtocolError::remote(field, offset, reason));
        assert_eq!(
            ty("list<ascii>").validate(&[0, 0, 0, 1, 0, 0, 0, 2, b'a', 0x80]),
            err("ascii value", 9, "byte 0x80 is not ASCII")
        );
        assert_eq!(ty("list<ascii>").validate(&[0, 0, 0, 1, 0, 0, 0, 2, b'a', b'~']), Ok(()));
        let tuple = ty("tuple<int, text>");
        assert_eq!(tuple.validate(&[0, 0, 0, 4, 0, 0, 0, 7, 0xFF, 0xFF, 0xFF, 0xFF]), Ok(()));
        assert_eq!(tuple.validate(&[0, 0, 0, 4, 0, 0, 0, 7]), Ok(()), "fewer components are legal");
        assert_eq!(tuple.validate(&[0, 0, 0, 3, 0, 0, 0]), err("int value", 4, "expected 4 bytes, got 3"));
        assert_eq!(
            tuple.validate(&[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 9]),
            err("tuple component", 8, "1 bytes after the last declared component")
        );
        let vector = ty("vector<int, 2>");
        assert_eq!(vector.validate(&[0, 0, 0, 1, 0, 0, 0, 2]), Ok(()));
        assert_eq!(
            vector.validate(&[0, 0, 0, 1, 0, 0, 0]),
            err("vector value", 0, "2 elements of 4 bytes need 8 bytes, got 7")
        );
    }

    fn rows_body(rows: &[&[Option<&[u8]>]]) -> Vec<u8> {
        let mut out = (rows.len() as i32).to_be_bytes().to_vec();
        for row in rows {
            for cell in *row {
                match cell {
                    Some(bytes) => {
                        out.extend_from_slice(&(bytes.len() as i32).to_be_bytes());
                        out.extend_from_slice(bytes);
                    }
                    None => out.extend_from_slice(&(-1i32).to_be_bytes()),
                }
            }
        }
        out
    }

    #[test]
    fn rows_are_walked_cell_by_cell() {
        let columns = [ty("int"), ty("text"), ty("list<smallint>")];
        let list: &[u8] = &[0, 0, 0, 1, 0, 0, 0, 2, 0, 7];
        let mut body = rows_body(&[
            &[Some(&[0, 0, 0, 1]), Some(b"x"), Some(list)],
            &[None, Some(b""), None],
            &[Some(&[]), Some("é".as_bytes()), Some(&[0, 0, 0, 0])],
        ]);
        body.extend_from_slice(b"next");
        let mut r = Reader::new(&body);
        assert_eq!(validate_rows(&columns, &mut r).unwrap(), 3);
        assert_eq!(r.rest(), b"next");

        let bad = rows_body(&[&[Some(&[0, 0, 0, 1]), Some(b"x"), Some(list)], &[Some(&[0, 1]), None, None]]);
        let err = validate_rows(&columns, &mut Reader::new(&bad)).unwrap_err();
        assert!(err.reason.starts_with("row 1, column 0 (int)"), "{err}");
        assert_eq!(err.offset, 4 + 8 + 5 + 14 + 4);

        let bad = rows_body(&[&[Some(&[0, 0, 0, 1]), Some(&[0xC3]), None]]);
        let err = validate_rows(&columns, &mut Reader::new(&bad)).unwrap_err();
        assert_eq!(err.field, "text value");
        assert!(err.reason.starts_with("row 0, column 1 (text)"), "{err}");
    }

    #[test]
    fn fixed_size_cells_are_checked_by_length_alone() {
        let types = [
            ("boolean", 1, true),
            ("tinyint", 1, false),
            ("smallint", 2, false),
            ("int", 4, true),
            ("float", 4, true),
            ("date", 4, false),
            ("bigint", 8, true),
            ("counter", 8, true),
            ("double", 8, true),
            ("timestamp", 8, true),
            ("uuid", 16, true),
        ];
        for (name, len, empty_ok) in types {
            let columns = [ty(name)];
            let good = vec![0xA5u8; len];
            let body = rows_body(&[&[Some(&good)]]);
            assert_eq!(validate_rows(&columns, &mut Reader::new(&body)), Ok(1), "{name}");
            // A wrong length is the type's own error, at its byte in the body, naming the cell.
            let in_row = |cell: &[u8]| {
                let e = ty(name).validate(cell).unwrap_err();
                assert_eq!(e.field, format!("{name} value"), "{name}");
                ProtocolError { offset: e.offset + 8, reason: format!("row 0, column 0 ({name}): {}", e.reason), ..e }
            };
            let long = vec![0u8; len + 1];
            let body = rows_body(&[&[Some(&long)]]);
            assert_eq!(validate_rows(&columns, &mut Reader::new(&body)), Err(in_row(&long)), "{name}");
            let body = rows_body(&[&[Some(&[])]]);
            let want = if empty_ok { Ok(1) } else { Err(in_row(&[])) };
            assert_eq!(validate_rows(&columns, &mut Reader::new(&body)), want, "{name} empty");
        }
    }

    #[test]
    fn a_row_count_that_exactly_fits_is_read() {
        // One row of one null cell: four bytes, as the count allows.
        let body = [0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF];
        assert_eq!(validate_rows(&[ty("int")], &mut Reader::new(&body)), Ok(1));
    }

    #[test]
    fn hostile_row_counts_fail_fast() {
        let columns = [ty("int")];
        for (body, want) in [
            (
                &[0x7F, 0xFF, 0xFF, 0xFF][..],
                ProtocolError::remote("rows count", 0, "2147483647 rows of 1 columns cannot fit in 0 bytes"),
            ),
            (&[0xFF, 0xFF, 0xFF, 0xFF], ProtocolError::remote("rows count", 0, "negative count -1")),
            (&[0, 0], ProtocolError::remote("rows count", 0, "needs 4 bytes, 2 left")),
            (&[0, 0, 0, 1, 0, 0, 0, 4, 0], ProtocolError::remote("row cell", 8, "needs 4 bytes, 1 left")),
        ] {
            assert_eq!(validate_rows(&columns, &mut Reader::new(body)).unwrap_err(), want, "{body:?}");
        }
        // The guard reports the count's own offset, before any cell is read.
        let err = validate_rows(&columns, &mut Reader::new(&[0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 1])).unwrap_err();
        assert_eq!((err.field, err.offset, err.side), ("rows count", 0, Side::Remote));
        assert!(err.reason.contains("3 rows of 1 columns cannot fit in 8 bytes"), "{err}");
        // Zero columns: rows that take no bytes are refused, whatever their count; none is fine.
        let err = validate_rows(&[], &mut Reader::new(&[0x7F, 0xFF, 0xFF, 0xFF])).unwrap_err();
        assert_eq!((err.field, err.offset), ("rows count", 0));
        assert!(err.reason.contains("2147483647 rows without any column"), "{err}");
        assert_eq!(validate_rows(&[], &mut Reader::new(&[0, 0, 0, 0])).unwrap(), 0);
    }
}
