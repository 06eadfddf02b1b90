//! Hand-written readers for the host's option objects (JSON with camelCase keys): the
//! session config, bulk and header options, CSV and conversion settings.
//!
//! They were serde derives, then readers over a `serde_json::Value`; both carried serde_json's
//! parser into the WASM module for code that runs once per session or load (issue #17). The
//! JSON is now read by the core's one JSON scanner ([`ObjectScanner`], the bulk path's):
//! checked whole once, then each object or array read when asked. The contract: every key
//! optional, `null` the same as absent, a value of the wrong type an error naming its key, an
//! unknown (e.g. misspelt) key an error naming it and the known ones, and a key written twice
//! an error naming it (JSON.stringify never writes one twice, so it is a hand-built mistake).
//!
//! Numbers keep the ranges serde_json gave them: an integer is digits with no fraction or
//! exponent from i64::MIN to u64::MAX, and not `-0` (a float); any number is a float when it
//! is finite (`1e400` is refused).

use crate::bulk::jsonl::{JsonFault, JsonKind, JsonValue, ObjectScanner};
use crate::name_map::NameMap;

/// A value of an options object. Strings are unescaped; numbers, arrays and objects stay as
/// their JSON text (already checked), read further only when asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    /// The number as written.
    Number(&'a str),
    String(String),
    Array(Raw<'a>),
    Object(Raw<'a>),
}

/// An array's or object's JSON text, and the byte offset where it starts in the whole JSON
/// (errors inside it name offsets in the whole).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Raw<'a> {
    text: &'a str,
    at: usize,
}

/// One JSON object being read; `what` names it in errors ("bulk options").
///
/// A getter that finds a fault records it and returns `None`; [`Fields::finish`] returns the
/// first fault. Readers so build their struct in one expression with no early return: each
/// `?` in a struct literal made the compiler drop every field read before it, which was most
/// of these readers' code.
pub struct Fields<'a> {
    what: &'static str,
    map: NameMap<Value<'a>>,
    /// The keys asked for so far, listed when an unknown key is found.
    known: Vec<&'static str>,
    fault: Option<String>,
}

/// What a JSON value is, for errors: `got the string "x"`.
pub fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("a boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

fn syntax(what: &str, base: usize, fault: JsonFault) -> String {
    format!("{what}: invalid JSON at byte {}: {}", base + fault.offset, fault.reason)
}

/// The value the scanner found at `v` in `text` (which starts at byte `base` of the whole).
fn value_of<'a>(scanner: &ObjectScanner, text: &'a str, base: usize, v: JsonValue) -> Value<'a> {
    let raw = text.get(v.start..v.end).unwrap_or("");
    match v.kind {
        JsonKind::Null => Value::Null,
        JsonKind::True => Value::Bool(true),
        JsonKind::False => Value::Bool(false),
        JsonKind::Number => Value::Number(raw),
        JsonKind::String => Value::String(scanner.string(v).to_owned()),
        JsonKind::Array => Value::Array(Raw { text: raw, at: base + v.start }),
        JsonKind::Object => Value::Object(Raw { text: raw, at: base + v.start }),
    }
}

/// Parses `json`, which must hold one JSON value (checked whole, nested values included).
pub fn parse_value<'a>(what: &str, json: &'a str) -> Result<Value<'a>, String> {
    let mut scanner = ObjectScanner::new();
    let top = scanner.read_value(json).map_err(|fault| syntax(what, 0, fault))?;
    Ok(value_of(&scanner, json, 0, top))
}

/// The entries of an object by key; a key written twice is an error naming it.
#[inline(never)]
pub fn entries_of<'a>(what: &str, raw: Raw<'a>) -> Result<NameMap<Value<'a>>, String> {
    let mut scanner = ObjectScanner::new();
    let mut found = Vec::new();
    scanner
        .scan_entries(raw.text, |key, key_at, value| {
            found.push((key, key_at, value));
            Ok(())
        })
        .map_err(|fault| syntax(what, raw.at, fault))?;
    let mut map = NameMap::default();
    for (key, key_at, value) in found {
        let value = value_of(&scanner, raw.text, raw.at, value);
        if let Err(key) = map.insert_new(key, value) {
            return Err(format!("{what}: duplicate key `{key}` at byte {}", raw.at + key_at));
        }
    }
    Ok(map)
}

/// The items of an array, in order.
#[inline(never)]
pub fn items_of<'a>(what: &str, raw: Raw<'a>) -> Result<Vec<Value<'a>>, String> {
    let mut scanner = ObjectScanner::new();
    let mut found = Vec::new();
    scanner
        .scan_items(raw.text, |value| {
            found.push(value);
            Ok(())
        })
        .map_err(|fault| syntax(what, raw.at, fault))?;
    Ok(found.into_iter().map(|value| value_of(&scanner, raw.text, raw.at, value)).collect())
}

impl<'a> Fields<'a> {
    /// Parses `json`, which must hold one object.
    #[inline(never)]
    pub fn parse(what: &'static str, json: &'a str) -> Result<Fields<'a>, String> {
        Fields::of(what, parse_value(what, json)?)
    }

    /// Reads an object already parsed (a nested option).
    #[inline(never)]
    pub fn of(what: &'static str, value: Value<'a>) -> Result<Fields<'a>, String> {
        match value {
            Value::Object(raw) => Ok(Fields { what, map: entries_of(what, raw)?, known: Vec::new(), fault: None }),
            other => Err(format!("{what}: expected an object, got {}", describe(&other))),
        }
    }

    /// Records `fault` unless an earlier one is recorded; always `None`.
    #[inline(never)]
    pub fn fail<T>(&mut self, fault: String) -> Option<T> {
        self.fault.get_or_insert(fault);
        None
    }

    /// Records the fault of `key`'s value: `bulk options: \`batchSize\` must be ..., got ...`.
    #[inline(never)]
    pub fn wrong<T>(&mut self, key: &str, expected: &str, got: &Value) -> Option<T> {
        let fault = format!("{}: `{key}` must be {expected}, got {}", self.what, describe(got));
        self.fail(fault)
    }

    /// The value a nested reader returned, or `None` with its fault recorded.
    pub fn nested<T>(&mut self, read: Result<T, String>) -> Option<T> {
        match read {
            Ok(value) => Some(value),
            Err(fault) => self.fail(fault),
        }
    }

    /// Takes `key`'s value out; absent and `null` are both `None`.
    #[inline(never)]
    pub fn take(&mut self, key: &'static str) -> Option<Value<'a>> {
        self.known.push(key);
        self.map.remove(key).filter(|v| *v != Value::Null)
    }

    #[inline(never)]
    pub fn bool(&mut self, key: &'static str) -> Option<bool> {
        match self.take(key)? {
            Value::Bool(b) => Some(b),
            other => self.wrong(key, "true or false", &other),
        }
    }

    #[inline(never)]
    pub fn string(&mut self, key: &'static str) -> Option<String> {
        match self.take(key)? {
            Value::String(s) => Some(s),
            other => self.wrong(key, "a string", &other),
        }
    }

    /// A string that must be there.
    pub fn required_string(&mut self, key: &'static str) -> Option<String> {
        let value = self.string(key);
        if value.is_none() {
            let fault = format!("{}: `{key}` is missing", self.what);
            return self.fail(fault);
        }
        value
    }

    /// A finite number; `1e400`, which a double cannot hold, is refused.
    #[inline(never)]
    pub fn f64(&mut self, key: &'static str) -> Option<f64> {
        let v = self.take(key)?;
        match f64_of(&v) {
            Some(n) => Some(n),
            None if matches!(v, Value::Number(_)) => self.wrong(key, "a number a double can hold", &v),
            None => self.wrong(key, "a number", &v),
        }
    }

    /// An integer from `min` to `max` (both within i64 or u64), else a fault giving the range.
    #[inline(never)]
    fn integer(&mut self, key: &'static str, min: i128, max: i128) -> Option<i128> {
        let v = self.take(key)?;
        match integer_of(&v).filter(|n| (min..=max).contains(n)) {
            Some(n) => Some(n),
            None => self.wrong(key, &format!("an integer from {min} to {max}"), &v),
        }
    }

    pub fn u64(&mut self, key: &'static str) -> Option<u64> {
        self.integer(key, 0, u64::MAX as i128).map(|n| n as u64)
    }

    pub fn i64(&mut self, key: &'static str) -> Option<i64> {
        self.integer(key, i64::MIN as i128, i64::MAX as i128).map(|n| n as i64)
    }

    pub fn u32(&mut self, key: &'static str) -> Option<u32> {
        self.integer(key, 0, u32::MAX as i128).map(|n| n as u32)
    }

    pub fn u16(&mut self, key: &'static str) -> Option<u16> {
        self.integer(key, 0, u16::MAX as i128).map(|n| n as u16)
    }

    pub fn u8(&mut self, key: &'static str) -> Option<u8> {
        self.integer(key, 0, u8::MAX as i128).map(|n| n as u8)
    }

    pub fn usize(&mut self, key: &'static str) -> Option<usize> {
        self.integer(key, 0, usize::MAX as i128).map(|n| n as usize)
    }

    /// An array whose every item `item` reads (`None`: the item is not what is expected,
    /// which `expected` describes).
    pub fn array<T>(
        &mut self,
        key: &'static str,
        expected: &str,
        item: impl Fn(Value<'a>) -> Option<T>,
    ) -> Option<Vec<T>> {
        match self.take(key)? {
            Value::Array(items) => self.items(key, expected, items, item),
            other => self.wrong(key, &format!("an array of {expected}"), &other),
        }
    }

    /// The items of `key`'s array, each read by `item`.
    pub fn items<T>(
        &mut self,
        key: &str,
        expected: &str,
        items: Raw<'a>,
        item: impl Fn(Value<'a>) -> Option<T>,
    ) -> Option<Vec<T>> {
        let items = items_of(self.what, items);
        let items = self.nested(items)?;
        let mut out = Vec::new();
        for (i, v) in items.into_iter().enumerate() {
            let described = describe(&v);
            match item(v) {
                Some(t) => out.push(t),
                None => return self.fail(format!("{}: `{key}`[{i}] must be {expected}, got {described}", self.what)),
            }
        }
        Some(out)
    }

    pub fn strings(&mut self, key: &'static str) -> Option<Vec<String>> {
        self.array(key, "strings", string_of)
    }

    /// A string from `names`, as the index of its entry.
    #[inline(never)]
    pub fn one_of(&mut self, key: &'static str, names: &[&str]) -> Option<usize> {
        let v = self.take(key)?;
        let found = match &v {
            Value::String(s) => names.iter().position(|n| n == s),
            _ => None,
        };
        match found {
            Some(i) => Some(i),
            None => {
                let listed: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
                self.wrong(key, &format!("one of {}", listed.join(", ")), &v)
            }
        }
    }

    /// Ends the reading: the first fault, else a key no one asked for, named with the known
    /// keys; else `value`.
    pub fn finish<T>(self, value: T) -> Result<T, String> {
        self.check().map(|()| value)
    }

    #[inline(never)]
    fn check(self) -> Result<(), String> {
        if let Some(fault) = self.fault {
            return Err(fault);
        }
        match self.map.iter().next() {
            None => Ok(()),
            Some((key, _)) => {
                let known: Vec<String> = self.known.iter().map(|k| format!("`{k}`")).collect();
                Err(format!("{}: unknown field `{key}`, expected one of {}", self.what, known.join(", ")))
            }
        }
    }
}

/// A JSON integer as serde_json read one into an integer type: digits with no fraction or
/// exponent, from i64::MIN to u64::MAX; `-0` is not one (serde_json read it as the float -0.0).
pub fn integer_of(v: &Value) -> Option<i128> {
    let Value::Number(text) = v else { return None };
    let (negative, digits) = match text.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, *text),
    };
    // A fraction or an exponent does not parse as a u64; nor do more digits than it holds.
    let magnitude = i128::from(digits.parse::<u64>().ok()?);
    match negative {
        false => Some(magnitude),
        true if magnitude == 0 => None,
        true => Some(-magnitude).filter(|n| *n >= i128::from(i64::MIN)),
    }
}

/// An integer from 0 to u64::MAX.
pub fn u64_of(v: &Value) -> Option<u64> {
    integer_of(v).and_then(|n| u64::try_from(n).ok())
}

/// Any finite number, as the nearest double.
pub fn f64_of(v: &Value) -> Option<f64> {
    match v {
        Value::Number(text) => text.parse::<f64>().ok().filter(|n| n.is_finite()),
        _ => None,
    }
}

pub fn string_of(v: Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// A two-item array `[a, b]`.
pub fn pair_of(v: Value) -> Option<(Value, Value)> {
    let Value::Array(raw) = v else { return None };
    let mut items = items_of("", raw).ok()?.into_iter();
    match (items.next(), items.next(), items.next()) {
        (Some(a), Some(b), None) => Some((a, b)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Result<(Option<u8>, Option<Vec<String>>, Option<usize>), String> {
        let mut f = Fields::parse("test options", json)?;
        let out = (f.u8("small"), f.strings("words"), f.one_of("unit", &["s", "ms"]));
        f.finish(out)
    }

    #[test]
    fn absent_and_null_keys_are_none() {
        assert_eq!(read(r#"{"small":null}"#), Ok((None, None, None)));
        assert_eq!(read(r#"{"small":7,"words":["a"],"unit":"ms"}"#), Ok((Some(7), Some(vec!["a".into()]), Some(1))));
    }

    #[test]
    fn every_fault_names_its_key_and_what_is_wrong() {
        let error = |json: &str| read(json).unwrap_err();
        assert_eq!(
            error(r#"{"small":256}"#),
            "test options: `small` must be an integer from 0 to 255, got the number 256"
        );
        assert_eq!(
            error(r#"{"small":4.0}"#),
            "test options: `small` must be an integer from 0 to 255, got the number 4.0"
        );
        assert_eq!(
            error(r#"{"small":"4"}"#),
            "test options: `small` must be an integer from 0 to 255, got the string \"4\""
        );
        assert_eq!(error(r#"{"words":["a",1]}"#), "test options: `words`[1] must be strings, got the number 1");
        assert_eq!(
            error(r#"{"words":"a"}"#),
            "test options: `words` must be an array of strings, got the string \"a\""
        );
        assert_eq!(error(r#"{"unit":"h"}"#), "test options: `unit` must be one of \"s\", \"ms\", got the string \"h\"");
        assert_eq!(
            error(r#"{"smal":1}"#),
            "test options: unknown field `smal`, expected one of `small`, `words`, `unit`"
        );
        assert_eq!(error("[]"), "test options: expected an object, got an array");
        // The first fault in reading order wins, and a fault comes before an unknown key.
        assert_eq!(
            error(r#"{"smal":1,"words":[1],"unit":"h"}"#),
            "test options: `words`[0] must be strings, got the number 1"
        );
    }

    #[test]
    fn bad_json_names_the_byte_and_what_is_wrong() {
        let error = |json: &str| read(json).unwrap_err();
        assert_eq!(error(""), "test options: invalid JSON at byte 0: missing value");
        assert_eq!(error("{"), "test options: invalid JSON at byte 1: expected a key (a string)");
        assert_eq!(error(r#"{"small":1,}"#), "test options: invalid JSON at byte 11: expected a key (a string)");
        assert_eq!(
            error(r#"{"small":NaN}"#),
            "test options: invalid JSON at byte 9: unexpected character where a value should be"
        );
        assert_eq!(error(r#"{"small":1} x"#), "test options: invalid JSON at byte 12: unexpected text after the value");
        assert_eq!(error(r#"{"small":1}{}"#), "test options: invalid JSON at byte 11: unexpected text after the value");
        // Blanks around the object are fine; every proper prefix of an object is refused.
        assert_eq!(read(" \t\r\n{\"small\" : 1 }\n "), Ok((Some(1), None, None)));
        let whole = r#"{"small":1,"words":["a","b"],"unit":"s"}"#;
        for end in 0..whole.len() {
            let message = error(&whole[..end]);
            assert!(message.starts_with("test options: invalid JSON at byte "), "{end}: {message}");
        }
        assert_eq!(read(whole), Ok((Some(1), Some(vec!["a".into(), "b".into()]), Some(0))));
        // Nested deeper than the scanner's cap (the options object is the first level).
        let deep = format!(r#"{{"words":{}{}}}"#, "[".repeat(64), "]".repeat(64));
        assert_eq!(error(&deep), "test options: invalid JSON at byte 72: arrays and objects nested too deep");
        let deepest = format!(r#"{{"words":{}{}}}"#, "[".repeat(63), "]".repeat(63));
        assert_eq!(error(&deepest), "test options: `words`[0] must be strings, got an array");
    }

    #[test]
    fn a_key_written_twice_is_an_error_naming_it() {
        let error = |json: &str| read(json).unwrap_err();
        assert_eq!(error(r#"{"small":1,"small":1}"#), "test options: duplicate key `small` at byte 11");
        // Even when null, and named by its unescaped text.
        assert_eq!(error(r#"{"unit":null,"\u0075nit":"s"}"#), "test options: duplicate key `unit` at byte 13");
        // Inside a nested object, at its offset in the whole text.
        let json = r#"{"inner": {"x": 1, "x": 2}}"#;
        let mut f = Fields::parse("outer", json).unwrap();
        let inner = f.take("inner").unwrap();
        assert_eq!(Fields::of("outer: inner", inner).err(), Some("outer: inner: duplicate key `x` at byte 19".into()));
        // Keys that differ only after unescaping are the same key; different keys are fine.
        assert_eq!(
            read(r#"{"small":1,"Small":2}"#).unwrap_err(),
            "test options: unknown field `Small`, expected one of `small`, `words`, `unit`"
        );
    }

    fn number(json: &str) -> Value<'_> {
        match parse_value("n", json) {
            Ok(v @ Value::Number(_)) => v,
            other => panic!("{json}: {other:?}"),
        }
    }

    #[test]
    fn integers_are_digits_from_i64_min_to_u64_max_and_not_minus_zero() {
        let int = |json: &str| integer_of(&number(json));
        assert_eq!(int("0"), Some(0));
        assert_eq!(int("18446744073709551615"), Some(i128::from(u64::MAX)));
        assert_eq!(int("18446744073709551616"), None);
        assert_eq!(int("99999999999999999999"), None);
        assert_eq!(int("100000000000000000000"), None);
        assert_eq!(int(&"9".repeat(400)), None);
        assert_eq!(int("-9223372036854775808"), Some(i128::from(i64::MIN)));
        assert_eq!(int("-9223372036854775809"), None);
        assert_eq!(int("-18446744073709551615"), None);
        assert_eq!(int("-1"), Some(-1));
        // Negative zero was a float to serde_json, so it is no integer.
        assert_eq!(int("-0"), None);
        for float in ["4.0", "1e2", "1E2", "0.5", "-0.0", "1e0"] {
            assert_eq!(int(float), None, "{float}");
        }
        assert_eq!(integer_of(&Value::String("1".into())), None);
        assert_eq!(u64_of(&number("-1")), None);
        assert_eq!(u64_of(&number("18446744073709551615")), Some(u64::MAX));
        assert_eq!(u64_of(&number("7")), Some(7));
    }

    #[test]
    fn integer_keys_take_exactly_their_range() {
        fn read_ints(json: &str) -> Result<(Option<u64>, Option<i64>, Option<u8>), String> {
            let mut f = Fields::parse("ints", json)?;
            let out = (f.u64("u"), f.i64("i"), f.u8("b"));
            f.finish(out)
        }
        assert_eq!(
            read_ints(r#"{"u":18446744073709551615,"i":-9223372036854775808,"b":255}"#),
            Ok((Some(u64::MAX), Some(i64::MIN), Some(255)))
        );
        assert_eq!(read_ints(r#"{"u":0,"i":9223372036854775807,"b":0}"#), Ok((Some(0), Some(i64::MAX), Some(0))));
        assert_eq!(
            read_ints(r#"{"u":18446744073709551616}"#),
            Err("ints: `u` must be an integer from 0 to 18446744073709551615, got the number 18446744073709551616"
                .into())
        );
        assert_eq!(
            read_ints(r#"{"i":9223372036854775808}"#),
            Err("ints: `i` must be an integer from -9223372036854775808 to 9223372036854775807, got the number 9223372036854775808".into())
        );
        assert_eq!(
            read_ints(r#"{"b":-0}"#),
            Err("ints: `b` must be an integer from 0 to 255, got the number -0".into())
        );
        assert_eq!(
            read_ints(r#"{"b":-1}"#),
            Err("ints: `b` must be an integer from 0 to 255, got the number -1".into())
        );
        assert_eq!(
            read_ints(r#"{"b":1e0}"#),
            Err("ints: `b` must be an integer from 0 to 255, got the number 1e0".into())
        );
    }

    #[test]
    fn floats_are_any_finite_number() {
        fn read_float(json: &str) -> Result<Option<f64>, String> {
            let mut f = Fields::parse("floats", json)?;
            let out = f.f64("x");
            f.finish(out)
        }
        let bits = |json: &str| read_float(json).map(|x| x.map(f64::to_bits));
        assert_eq!(bits(r#"{"x":-0}"#), Ok(Some((-0.0f64).to_bits())));
        assert_eq!(bits(r#"{"x":0}"#), Ok(Some(0.0f64.to_bits())));
        assert_eq!(bits(r#"{"x":0.1}"#), Ok(Some(0.1f64.to_bits())));
        assert_eq!(bits(r#"{"x":1.5e3}"#), Ok(Some(1500.0f64.to_bits())));
        assert_eq!(bits(r#"{"x":18446744073709551616}"#), Ok(Some(18446744073709551616.0f64.to_bits())));
        assert_eq!(bits(r#"{"x":1.7976931348623157e308}"#), Ok(Some(f64::MAX.to_bits())));
        assert_eq!(bits(r#"{"x":-1e-400}"#), Ok(Some((-0.0f64).to_bits())));
        assert_eq!(
            read_float(r#"{"x":1e400}"#),
            Err("floats: `x` must be a number a double can hold, got the number 1e400".into())
        );
        assert_eq!(
            read_float(r#"{"x":-1e400}"#),
            Err("floats: `x` must be a number a double can hold, got the number -1e400".into())
        );
        assert_eq!(read_float(r#"{"x":"1"}"#), Err("floats: `x` must be a number, got the string \"1\"".into()));
        assert_eq!(read_float(r#"{"x":true}"#), Err("floats: `x` must be a number, got a boolean true".into()));
        assert_eq!(f64_of(&Value::Null), None);
    }

    #[test]
    fn values_of_every_kind_and_pairs() {
        let v = parse_value("v", r#" [1, "a\u00e9", true, false, null, [2], {"k": 3}] "#).unwrap();
        let Value::Array(raw) = v else { panic!("{v:?}") };
        let items = items_of("v", raw).unwrap();
        assert_eq!(items.len(), 7);
        assert_eq!(
            items[..5],
            [Value::Number("1"), Value::String("aé".into()), Value::Bool(true), Value::Bool(false), Value::Null]
        );
        assert_eq!(items[5], Value::Array(Raw { text: "[2]", at: 35 }));
        assert_eq!(items[6], Value::Object(Raw { text: r#"{"k": 3}"#, at: 40 }));
        let described: Vec<String> = items.iter().map(describe).collect();
        assert_eq!(
            described,
            ["the number 1", "the string \"aé\"", "a boolean true", "a boolean false", "null", "an array", "an object"]
        );
        assert_eq!(
            parse_value("v", "\"x\" 1"),
            Err("v: invalid JSON at byte 4: unexpected text after the value".into())
        );
        assert_eq!(Fields::parse("v", "\"x\"").err(), Some("v: expected an object, got the string \"x\"".into()));
        fn pair(json: &str) -> Option<(Value<'_>, Value<'_>)> {
            pair_of(parse_value("p", json).unwrap())
        }
        assert_eq!(pair("[1, \"b\"]"), Some((Value::Number("1"), Value::String("b".into()))));
        assert_eq!(pair("[1]"), None);
        assert_eq!(pair("[1, 2, 3]"), None);
        assert_eq!(pair("[]"), None);
        assert_eq!(pair("{\"a\": 1}"), None);
        assert_eq!(string_of(Value::Number("1")), None);
    }
}
