//! The sniffer of `load --create-table`: types from a sample, null words, formats, bounds.

use cqlwire_core::bulk::sniff::{sniff, Sniffed, SniffedSettings, MAX_FIELDS};
use cqlwire_core::bulk::{BadRowKind, BulkEncoder, BulkError, BulkOptions, RowOutcome};
use cqlwire_core::types::ColumnType;

fn options(json: &str) -> BulkOptions {
    BulkOptions::from_json(json).unwrap()
}

fn csv(input: &str) -> Sniffed {
    sniff(input.as_bytes(), options("{}"), 1000, true).unwrap()
}

/// `name type` of every field.
fn types(sniffed: &Sniffed) -> Vec<String> {
    sniffed.fields.iter().map(|f| format!("{} {}", f.name, f.cql_type)).collect()
}

/// One column of `values` (one per line) under the header `c`.
fn column(values: &[&str]) -> String {
    let sniffed = csv(&format!("c\n{}\n", values.join("\n")));
    sniffed.fields[0].cql_type.clone()
}

#[test]
fn every_type_is_found_narrowest_first() {
    let cases: &[(&[&str], &str)] = &[
        (&["true", "FALSE", "True"], "boolean"),
        (&["1", "-2147483648", "2147483647"], "int"),
        (&["1", "2147483648"], "bigint"),
        (&["-9223372036854775808", "9223372036854775807"], "bigint"),
        (&["9223372036854775808"], "varint"),
        (&["1.5", "-0", "1e300", "NaN", "-Infinity"], "double"),
        // The load reads `12.0` and `1e3` into integer columns; sniffed, they stay numbers
        // with a point or an exponent.
        (&["12.0", "3.0"], "double"),
        (&["1e3"], "double"),
        (&["0.1234567890123456"], "decimal"),
        (&["1e400"], "decimal"),
        (&["2024-02-29", "1999-12-31"], "date"),
        (&["12:30", "23:59:59.123456789"], "time"),
        (&["2024-01-02T03:04:05Z", "2024-01-02 03:04:05", "2024-01-02T03:04:05.123+02:00", "2024-01-02"], "timestamp"),
        (&["d2177dd0-eaa2-11de-a572-001b779c76e3"], "timeuuid"),
        (&["d2177dd0-eaa2-11de-a572-001b779c76e3", "550e8400-e29b-41d4-a716-446655440000"], "uuid"),
        (&["10.0.0.1", "::1", "2001:db8::8a2e:370:7334"], "inet"),
        (&["0xcafe", "0X"], "blob"),
        (&["hello", "wörld"], "text"),
    ];
    for (values, expected) in cases {
        assert_eq!(column(values), *expected, "{values:?}");
    }
}

#[test]
fn mixed_columns_widen_to_what_accepts_every_value() {
    assert_eq!(column(&["1", "2.5"]), "double");
    assert_eq!(column(&["1", "99999999999999999999"]), "varint");
    assert_eq!(column(&["1", "99999999999999999999", "0.5"]), "decimal");
    assert_eq!(column(&["2024-01-02", "2024-01-02T10:00:00Z"]), "timestamp");
    assert_eq!(column(&["true", "1"]), "text");
    assert_eq!(column(&["1", "x"]), "text");
    assert_eq!(column(&["10.0.0.1", "hello"]), "text");
    assert_eq!(column(&["0xcafe", "0xc"]), "text");
}

#[test]
fn rules_beyond_the_converter() {
    // 0/1 are no booleans, codes with leading zeros no numbers, hex words no blobs,
    // integers no epoch timestamps, sub-millisecond timestamps no timestamps.
    assert_eq!(column(&["0", "1"]), "int");
    assert_eq!(column(&["yes", "no"]), "text");
    assert_eq!(column(&["02134", "10001"]), "text");
    assert_eq!(column(&["cafe", "beef"]), "text");
    assert_eq!(column(&["1700000000000"]), "bigint");
    assert_eq!(column(&["2024-01-02T03:04:05.123456Z"]), "text");
    assert_eq!(column(&["1.2345678901234567"]), "decimal");
}

#[test]
fn null_words_are_found_and_nan_is_a_double_among_numbers() {
    let sniffed = csv("a,b,c,d\n1,x,NaN,\nNA,y,2.5,\n3,NULL,NaN,\n");
    assert_eq!(types(&sniffed), ["a int", "b text", "c double", "d text"]);
    assert_eq!(
        sniffed.settings,
        SniffedSettings {
            null_values: vec!["".into(), "NA".into(), "NULL".into()],
            timestamp_format: None,
            date_format: None
        }
    );
    let counts: Vec<(u64, u64)> = sniffed.fields.iter().map(|f| (f.nulls, f.values)).collect();
    assert_eq!(counts, [(1, 2), (1, 2), (0, 3), (3, 0)]);

    // NaN among text only is a value (no typed field needs it as null); among numbers
    // elsewhere it is a value everywhere, and text keeps it.
    assert_eq!(csv("a,b\nNaN,x\ny,1\n").settings.null_values, [""]);
    let both = csv("a,b\nNaN,NaN\ny,1\n");
    assert_eq!(both.settings.null_values, [""]);
    assert_eq!(types(&both), ["a text", "b double"]);
}

#[test]
fn quoted_words_and_given_null_values_are_values() {
    let quoted = csv("a\n\"NA\"\n1\n");
    assert_eq!((quoted.fields[0].cql_type.as_str(), quoted.settings.null_values.clone()), ("text", vec!["".into()]));
    // A quoted empty field is empty text, which no number takes.
    assert_eq!(csv("a\n\"\"\n1\n").fields[0].cql_type, "text");
    let given = sniff(b"a\n-\n1\nNA\n", options(r#"{"nullValues":["-"]}"#), 1000, true).unwrap();
    assert_eq!((given.fields[0].cql_type.as_str(), given.settings.null_values.clone()), ("text", vec!["-".into()]));
    let given = sniff(b"a\n-\n1\n", options(r#"{"nullValues":["-"]}"#), 1000, true).unwrap();
    assert_eq!((given.fields[0].cql_type.as_str(), given.fields[0].nulls), ("int", 1));
}

#[test]
fn a_field_with_no_value_is_text() {
    let sniffed = csv("a,b\n1,\n2,NA\n");
    assert_eq!(types(&sniffed), ["a int", "b text"]);
    assert_eq!(sniffed.fields[1].nulls, 2);
}

#[test]
fn timestamp_and_date_formats_are_detected_and_one_of_each_is_kept() {
    let iso = csv("t\n2013-01-01T10:00:00Z\n2013-01-01 05:00:00\n");
    assert_eq!((iso.fields[0].cql_type.as_str(), iso.settings.timestamp_format.as_deref()), ("timestamp", Some("iso")));

    let us = csv("t,d\n01/02/2024 13:04:05,01/31/2024\n12/12/2024 00:00:00,02/01/2024\n");
    assert_eq!(types(&us), ["t timestamp", "d date"]);
    assert_eq!(
        (us.settings.timestamp_format.as_deref(), us.settings.date_format.as_deref()),
        (Some("%m/%d/%Y %H:%M:%S"), Some("%m/%d/%Y"))
    );
    let european = csv("d\n31/01/2024\n01/02/2024\n");
    assert_eq!(european.settings.date_format.as_deref(), Some("%d/%m/%Y"));

    // The first timestamp field fixes the format; another format in a later field is text.
    let two = csv("a,b\n2024-01-02T00:00:00Z,01/02/2024 13:04:05\n");
    assert_eq!(types(&two), ["a timestamp", "b text"]);
    assert_eq!(two.settings.timestamp_format.as_deref(), Some("iso"));

    // A format the user gave is the only one tried.
    let given = sniff(
        b"a,b\n2024-01-02T00:00:00Z,02.01.2024 10:11:12\n",
        options(r#"{"conversion":{"timestampFormat":"%d.%m.%Y %H:%M:%S"}}"#),
        1000,
        true,
    )
    .unwrap();
    assert_eq!(types(&given), ["a text", "b timestamp"]);
    assert_eq!(given.settings.timestamp_format.as_deref(), Some("%d.%m.%Y %H:%M:%S"));
}

#[test]
fn the_load_options_apply() {
    let semicolons =
        sniff(b"a;b\n1,5;x\n", options(r#"{"delimiter":";","conversion":{"decimalSeparator":","}}"#), 1000, true)
            .unwrap();
    assert_eq!(types(&semicolons), ["a double", "b text"]);
    let words = sniff(b"a\nyes\nno\n", options(r#"{"trueWords":["yes"],"falseWords":["no"]}"#), 1000, true).unwrap();
    assert_eq!(types(&words), ["a boolean"]);
    let skipped = sniff(b"a\nx\n1\n", options(r#"{"skipRecords":1}"#), 1000, true).unwrap();
    assert_eq!((types(&skipped), skipped.records), (vec!["a int".to_owned()], 1));
}

#[test]
fn json_lines_values_by_their_json_kind() {
    let input = br#"{"id": 1, "ok": true, "tags": ["a", "b"], "n": [1, 2], "meta": {"x": 1}, "at": "2024-01-02T00:00:00Z", "x": 1.5}
{"id": 2, "ok": false, "tags": [], "n": [3, 99999999999], "meta": {}, "at": null, "y": "u", "nested": [[1]]}
"#;
    let sniffed = sniff(input, options(r#"{"format":"jsonl"}"#), 1000, true).unwrap();
    assert_eq!(
        types(&sniffed),
        [
            "id int",
            "ok boolean",
            "tags list<text>",
            "n list<bigint>",
            "meta text",
            "at timestamp",
            "x double",
            "y text",
            "nested text"
        ]
    );
    let nulls: Vec<u64> = sniffed.fields.iter().map(|f| f.nulls).collect();
    // at: null; x: missing in the second; y, nested: missing in the first.
    assert_eq!(nulls, [0, 0, 0, 0, 0, 1, 1, 1, 1]);
    // JSON strings are never null words; a number and a string of digits share int.
    let words =
        sniff(b"{\"a\": \"NA\", \"b\": 1}\n{\"a\": \"x\", \"b\": \"2\"}\n", options(r#"{"format":"jsonl"}"#), 10, true)
            .unwrap();
    assert_eq!(
        (types(&words), words.settings.null_values.clone()),
        (vec!["a text".into(), "b int".into()], vec!["".into()])
    );

    let array = sniff(br#"[{"a": 1}, {"a": 2.5}]"#, options(r#"{"format":"json"}"#), 1000, true).unwrap();
    assert_eq!(types(&array), ["a double"]);
}

#[test]
fn malformed_records_are_left_out_and_counted() {
    let sniffed = csv("a,b\n1,2\n1,2,3\n3\n\"x,4\n");
    assert_eq!((types(&sniffed), sniffed.records, sniffed.skipped), (vec!["a int".into(), "b int".into()], 1, 3));
    let json =
        sniff(b"{\"a\": 1}\n{\"a\": \n{\"a\": 2, \"a\": 3}\nnot json\n", options(r#"{"format":"jsonl"}"#), 1000, true)
            .unwrap();
    assert_eq!((json.records, json.skipped), (1, 3));
    assert_eq!(
        sniff(b"a\n\"x\n", options("{}"), 1000, true).unwrap_err(),
        BulkError::Document("no record to sniff in the sample (1 could not be read)".into())
    );
    assert_eq!(
        sniff(b"a,a\n1,2\n", options("{}"), 1000, true).unwrap_err(),
        BulkError::Header { line: 1, reason: "field name \"a\" appears twice".into() }
    );
    assert_eq!(
        sniff(b"a,\n1,2\n", options("{}"), 1000, true).unwrap_err(),
        BulkError::Header { line: 1, reason: "field 2 has no name".into() }
    );
    assert_eq!(
        sniff(b"1,2\n", options(r#"{"header":false}"#), 1000, true).unwrap_err(),
        BulkError::Config("sniffing needs a CSV header to name the fields".into())
    );
    assert!(matches!(
        sniff(b"[{\"a\": 1} {", options(r#"{"format":"json"}"#), 1000, true),
        Err(BulkError::Document(_))
    ));
}

#[test]
fn the_sample_is_bounded_by_records_and_bytes() {
    // At most max_records records; a record cut at the end of the bytes is not read.
    let sniffed = csv("a\n1\n2\nx\n");
    assert_eq!(sniffed.fields[0].cql_type, "text");
    let first_two = sniff(b"a\n1\n2\nx\n", options("{}"), 2, true).unwrap();
    assert_eq!((first_two.fields[0].cql_type.as_str(), first_two.records), ("int", 2));
    let cut = sniff(b"a\n1\n2\nxyz", options("{}"), 1000, false).unwrap();
    assert_eq!((cut.fields[0].cql_type.as_str(), cut.records), ("int", 2));
    // A huge declared count sizes nothing.
    let huge = sniff(b"a\n1\n", options("{}"), usize::MAX, true).unwrap();
    assert_eq!(huge.records, 1);
    // A record over the record size limit is left out.
    let long = sniff(
        b"{\"a\": 1}\n{\"a\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n",
        options(r#"{"format":"jsonl","maxRecordBytes":20}"#),
        10,
        true,
    )
    .unwrap();
    assert_eq!((types(&long), long.skipped), (vec!["a int".into()], 1));
}

#[test]
fn fields_are_capped() {
    let header: Vec<String> = (0..=MAX_FIELDS).map(|i| format!("c{i}")).collect();
    let input = format!("{}\n{}\n", header.join(","), vec!["1"; MAX_FIELDS + 1].join(","));
    assert_eq!(
        sniff(input.as_bytes(), options("{}"), 10, true).unwrap_err(),
        BulkError::Document(format!("the sample has more than {MAX_FIELDS} fields"))
    );
    let keys: Vec<String> = (0..=MAX_FIELDS).map(|i| format!("\"k{i}\": {i}")).collect();
    let line = format!("{{{}}}\n", keys.join(", "));
    assert_eq!(
        sniff(line.as_bytes(), options(r#"{"format":"jsonl"}"#), 10, true).unwrap_err(),
        BulkError::Document(format!("the sample has more than {MAX_FIELDS} fields"))
    );
}

#[test]
fn deep_json_is_text_and_never_panics() {
    let deep = format!("{{\"a\": {}1{}}}\n", "[".repeat(60), "]".repeat(60));
    let sniffed = sniff(deep.as_bytes(), options(r#"{"format":"jsonl"}"#), 10, true).unwrap();
    assert_eq!(types(&sniffed), ["a text"]);
    // Deeper than the reader's cap: the record cannot be read.
    let deeper = format!("{{\"a\": {}1{}}}\n", "[".repeat(100), "]".repeat(100));
    assert_eq!(
        sniff(deeper.as_bytes(), options(r#"{"format":"jsonl"}"#), 10, true).unwrap_err(),
        BulkError::Document("no record to sniff in the sample (1 could not be read)".into())
    );
}

/// The values of the rows the load reads as `sniffed` says that their types refuse:
/// `(line, column, reason)`.
fn refused_by_the_load(input: &[u8], options_json: &str, sniffed: &Sniffed) -> Vec<(u64, String, String)> {
    let mut options: serde_json::Value = serde_json::from_str(options_json).unwrap();
    let settings = &sniffed.settings;
    options["nullValues"] = serde_json::json!(settings.null_values);
    let conversion = options.as_object_mut().unwrap().entry("conversion").or_insert(serde_json::json!({}));
    conversion["timestampFormat"] = serde_json::json!(settings.timestamp_format);
    conversion["dateFormat"] = serde_json::json!(settings.date_format);
    let columns =
        sniffed.fields.iter().map(|f| (f.name.clone(), ColumnType::parse_cql(&f.cql_type).unwrap())).collect();
    let (config, _) = BulkOptions::from_json(&options.to_string()).unwrap().into_configs(columns, Vec::new()).unwrap();
    let mut encoder = BulkEncoder::new(config).unwrap();
    encoder.push(input);
    encoder.finish();
    let mut refused = Vec::new();
    while let Some(row) = encoder.next_row() {
        if let RowOutcome::Bad { kind: BadRowKind::Value, line, column, reason, .. } = row {
            refused.push((line, format!("{column:?}"), reason));
        }
    }
    assert_eq!(encoder.error(), None);
    refused
}

#[test]
fn the_load_accepts_every_sampled_value_as_its_sniffed_type() {
    let cases: &[(&str, &str)] = &[
        ("{}", "a,b,c,d,e,f,g,h\n1,x,NaN,,2024-01-02,0xcafe,true,10.0.0.1\nNA,\"NA\",2.5,,2024-01-02T10:00:00Z,0x,FALSE,::1\n3,NULL,NaN,None,2024-01-02 10:00,0X00,true,1.2.3.4\n"),
        ("{}", "t,d,u\n01/02/2024 13:04:05,31/01/2024,d2177dd0-eaa2-11de-a572-001b779c76e3\n12/12/2024 00:00:00,01/02/2024,d2177dd0-eaa2-11de-a572-001b779c76e3\n"),
        ("{}", "n,m\n99999999999999999999,0.1234567890123456\n-1,1e400\n007,12:30\n"),
        (r#"{"delimiter":";","conversion":{"decimalSeparator":","}}"#, "a;b\n1,5;2\n-3;4\n"),
        (r#"{"format":"jsonl"}"#, "{\"id\": 1, \"tags\": [\"a\"], \"n\": [1, 2.5], \"o\": {\"x\": [1]}, \"at\": \"2024-01-02T00:00:00Z\", \"b\": true}\n{\"id\": \"2\", \"tags\": [], \"n\": null, \"o\": [[1]], \"at\": \"2024-01-02\"}\n"),
        (r#"{"format":"json"}"#, "[{\"a\": 1, \"b\": [\"2024-01-02T00:00:00Z\"]}, {\"a\": 99999999999999999999, \"b\": []}]"),
    ];
    for (options_json, input) in cases {
        let sniffed = sniff(input.as_bytes(), options(options_json), 1000, true).unwrap();
        assert_eq!(refused_by_the_load(input.as_bytes(), options_json, &sniffed), [], "{input}: {:?}", types(&sniffed));
    }
    let flights = include_bytes!("../../tests/cli/data/flights_head.csv");
    let sniffed = sniff(flights, options("{}"), 1000, true).unwrap();
    assert_eq!(refused_by_the_load(flights, "{}", &sniffed), []);
    assert_eq!(sniffed.settings.null_values, ["", "NA"]);
}

#[test]
fn a_word_no_field_shows_with_a_value_is_a_null_word() {
    // `NaN` alone in a field: no value of a type takes it there, so it is null (a double
    // only where numbers come with it).
    let sniffed = csv("a,b\nNaN,1\nNaN,2\n");
    assert_eq!(types(&sniffed), ["a text", "b int"]);
    assert_eq!(sniffed.settings.null_values, ["", "NaN"]);
    let counts: Vec<(u64, u64)> = sniffed.fields.iter().map(|f| (f.nulls, f.values)).collect();
    assert_eq!(counts, [(2, 0), (0, 2)]);
}

#[test]
fn any_one_of_the_user_s_boolean_words_keeps_the_default_words() {
    // One list given: the other keeps its defaults (`no`, `yes`), and `0`/`1` stay possible.
    let cases = [
        (r#"{"trueWords":["ja"]}"#, "a\nja\nno\n"),
        (r#"{"falseWords":["nein"]}"#, "a\nyes\nnein\n"),
        (r#"{"conversion":{"trueWords":["ja"]}}"#, "a\nja\nno\n"),
        (r#"{"conversion":{"falseWords":["nein"]}}"#, "a\nyes\nnein\n"),
    ];
    for (options_json, input) in cases {
        let sniffed = sniff(input.as_bytes(), options(options_json), 1000, true).unwrap();
        assert_eq!(types(&sniffed), ["a boolean"], "{options_json}");
    }
}

#[test]
fn json_records_are_skipped_and_non_utf8_ones_left_out() {
    let input = b"{\"a\": \"x\"}\n{\"a\": \"\xFF\"}\n{\"a\": 1}\n{\"a\": 2}\n";
    let sniffed = sniff(input, options(r#"{"format":"jsonl","skipRecords":1}"#), 1000, true).unwrap();
    assert_eq!((types(&sniffed), sniffed.records, sniffed.skipped), (vec!["a int".to_owned()], 2, 1));
    assert_eq!((sniffed.fields[0].nulls, sniffed.fields[0].values), (0, 2));
    // At most max_records JSON records, as in CSV.
    let first = sniff(b"{\"a\": 1}\n{\"a\": \"x\"}\n", options(r#"{"format":"jsonl"}"#), 1, true).unwrap();
    assert_eq!((types(&first), first.records, first.skipped), (vec!["a int".to_owned()], 1, 0));
}

#[test]
fn a_word_among_text_only_is_a_value_unless_sql_spells_null_so() {
    // vega-datasets' birdstrikes.csv (BSD-3-Clause): the damage levels are None, Minor,
    // Substantial, ...; no typed field has `None`, so it stays text (it was a null word, and
    // 8939 of the 10000 damage levels loaded as null).
    let birds = include_bytes!("../../tests/cli/data/birdstrikes_head.csv");
    let sniffed = sniff(birds, options("{}"), 1000, true).unwrap();
    assert_eq!(sniffed.settings.null_values, [""]);
    let damage: Vec<(&str, u64, u64)> =
        sniffed.fields.iter().skip(2).take(1).map(|f| (f.cql_type.as_str(), f.nulls, f.values)).collect();
    assert_eq!(damage, [("text", 0, 6)]);
    assert_eq!(refused_by_the_load(birds, "{}", &sniffed), []);

    // Among text only: `NA` and `NaN` are values, `NULL`, `null` and `\N` nulls; a word a
    // typed field needs as null is null in every field (one set of null words per load).
    let text_only = csv("a,b\nNA,x\nNaN,y\nNULL,z\nw,v\n");
    assert_eq!(text_only.settings.null_values, ["", "NULL"]);
    assert_eq!(text_only.fields[0].nulls, 1);
    let needed = csv("a,b\nNA,1\nx,NA\n");
    assert_eq!(
        (types(&needed), needed.settings.null_values.clone()),
        (vec!["a text".into(), "b int".into()], vec!["".into(), "NA".into()])
    );
}
