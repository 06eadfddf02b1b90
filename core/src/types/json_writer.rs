//! A JSON document written value by value, for what the core hands its host as JSON (events,
//! state). It writes strings with [`push_json_string`], the formatter the results use, so the
//! module carries one JSON formatter, not serde_json's serialisers as well.

use std::fmt::Display;

use super::json_out::push_json_string;

/// The integer types whose `Display` is always a JSON number.
pub trait JsonInteger: Display {}
macro_rules! json_integers {
    ($($t:ty),*) => { $(impl JsonInteger for $t {} impl JsonInteger for &$t {})* };
}
json_integers!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// Writes commas itself: every value or key after the first in an object or array gets one.
#[derive(Debug, Default)]
pub struct JsonWriter {
    out: String,
    /// Whether the next value or key follows a sibling (and so needs a comma).
    comma: bool,
}

impl JsonWriter {
    pub fn new() -> Self {
        JsonWriter::default()
    }

    fn before_value(&mut self) {
        if self.comma {
            self.out.push(',');
        }
        self.comma = true;
    }

    /// Opens an object (`{`) or array (`[`).
    pub fn open(&mut self, bracket: char) -> &mut Self {
        self.before_value();
        self.out.push(bracket);
        self.comma = false;
        self
    }

    /// Closes what [`JsonWriter::open`] opened (`}` or `]`).
    pub fn close(&mut self, bracket: char) -> &mut Self {
        self.out.push(bracket);
        self.comma = true;
        self
    }

    /// An object's key; the next call writes its value.
    pub fn key(&mut self, key: &str) -> &mut Self {
        self.before_value();
        push_json_string(key, &mut self.out);
        self.out.push(':');
        self.comma = false;
        self
    }

    pub fn string(&mut self, text: &str) -> &mut Self {
        self.before_value();
        push_json_string(text, &mut self.out);
        self
    }

    /// A string, or `null` for `None`.
    pub fn opt_string(&mut self, text: Option<&str>) -> &mut Self {
        match text {
            Some(text) => self.string(text),
            None => self.null(),
        }
    }

    /// An integer, written in full: a u64 keeps all its digits, as serde_json wrote it. Only
    /// integers: a float's `Display` (`NaN`, `inf`) is not always JSON.
    pub fn number(&mut self, n: impl JsonInteger) -> &mut Self {
        use std::fmt::Write;
        self.before_value();
        let _ = write!(self.out, "{n}");
        self
    }

    /// A number, or `null` for `None`.
    pub fn opt_number(&mut self, n: Option<impl JsonInteger>) -> &mut Self {
        match n {
            Some(n) => self.number(n),
            None => self.null(),
        }
    }

    pub fn boolean(&mut self, b: bool) -> &mut Self {
        self.before_value();
        self.out.push_str(if b { "true" } else { "false" });
        self
    }

    pub fn null(&mut self) -> &mut Self {
        self.before_value();
        self.out.push_str("null");
        self
    }

    /// Bytes as an array of numbers, as serde_json writes a `Vec<u8>`.
    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.open('[');
        for b in bytes {
            self.number(b);
        }
        self.close(']')
    }

    pub fn finish(self) -> String {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::JsonWriter;

    #[test]
    fn writes_nested_objects_and_arrays_with_commas_between_siblings() {
        let mut w = JsonWriter::new();
        w.open('{').key("a").number(u64::MAX).key("b").open('[').string("x\"\n").null().boolean(true).close(']');
        w.key("c")
            .open('{')
            .close('}')
            .key("d")
            .bytes(&[1, 255])
            .key("e")
            .opt_string(None)
            .key("f")
            .opt_number(Some(-1))
            .close('}');
        assert_eq!(
            w.finish(),
            r#"{"a":18446744073709551615,"b":["x\"\n",null,true],"c":{},"d":[1,255],"e":null,"f":-1}"#
        );
    }

    #[test]
    fn an_empty_array_and_a_top_level_list() {
        let mut w = JsonWriter::new();
        w.open('[').open('[').close(']').bytes(&[]).close(']');
        assert_eq!(w.finish(), "[[],[]]");
    }
}
