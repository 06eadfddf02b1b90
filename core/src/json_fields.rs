//! Hand-written readers for the host's option objects (JSON with camelCase keys): the
//! session config, bulk and header options, CSV and conversion settings.
//!
//! They were serde derives; each derive monomorphised serde_json's deserializer once per
//! struct and field type, about 100 KB of the WASM module for code that runs once per
//! session or load (issue #17). Here the JSON is parsed once into a `serde_json::Value` (one
//! instantiation shared by all), and each object is read key by key. The contract is the
//! same: every key optional, `null` the same as absent, a value of the wrong type an error
//! naming its key, and an unknown (e.g. misspelt) key an error naming it and the known ones.

use serde_json::{Map, Value};

/// One JSON object being read; `what` names it in errors ("bulk options").
///
/// A getter that finds a fault records it and returns `None`; [`Fields::finish`] returns the
/// first fault. Readers so build their struct in one expression with no early return: each
/// `?` in a struct literal made the compiler drop every field read before it, which was most
/// of these readers' code.
pub struct Fields {
    what: &'static str,
    map: Map<String, Value>,
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

impl Fields {
    /// Parses `json`, which must hold one object.
    #[inline(never)]
    pub fn parse(what: &'static str, json: &str) -> Result<Fields, String> {
        let value: Value = serde_json::from_str(json).map_err(|e| format!("{what}: {e}"))?;
        Fields::of(what, value)
    }

    /// Reads an object already parsed (a nested option).
    #[inline(never)]
    pub fn of(what: &'static str, value: Value) -> Result<Fields, String> {
        match value {
            Value::Object(map) => Ok(Fields { what, map, known: Vec::new(), fault: None }),
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
    pub fn take(&mut self, key: &'static str) -> Option<Value> {
        self.known.push(key);
        self.map.remove(key).filter(|v| !v.is_null())
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

    #[inline(never)]
    pub fn f64(&mut self, key: &'static str) -> Option<f64> {
        let v = self.take(key)?;
        v.as_f64().or_else(|| self.wrong(key, "a number", &v))
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
    pub fn array<T>(&mut self, key: &'static str, expected: &str, item: impl Fn(Value) -> Option<T>) -> Option<Vec<T>> {
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
        items: Vec<Value>,
        item: impl Fn(Value) -> Option<T>,
    ) -> Option<Vec<T>> {
        let mut out = Vec::with_capacity(items.len());
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
        match v.as_str().and_then(|s| names.iter().position(|n| *n == s)) {
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
        match self.map.keys().next() {
            None => Ok(()),
            Some(key) => {
                let known: Vec<String> = self.known.iter().map(|k| format!("`{k}`")).collect();
                Err(format!("{}: unknown field `{key}`, expected one of {}", self.what, known.join(", ")))
            }
        }
    }
}

/// A JSON integer (no fraction, no exponent), as serde reads one into an integer type.
pub fn integer_of(v: &Value) -> Option<i128> {
    v.as_u64().map(i128::from).or_else(|| v.as_i64().map(i128::from))
}

pub fn string_of(v: Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// A two-item array `[a, b]`.
pub fn pair_of(v: Value) -> Option<(Value, Value)> {
    match v {
        Value::Array(items) if items.len() == 2 => {
            let mut items = items.into_iter();
            Some((items.next()?, items.next()?))
        }
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
        assert_eq!(error("{"), "test options: EOF while parsing an object at line 1 column 1");
    }
}
