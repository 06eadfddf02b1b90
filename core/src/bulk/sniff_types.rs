//! The type ladder of the sniffer ([`super::sniff`]): the CQL types a sampled value may be
//! read as, narrowest first, each tried with the load's own converter ([`encode_text`]), so
//! a sniffed type is exactly one the load will accept.
//!
//! A column keeps the set of candidates that accepted every value seen (a bit mask); its
//! type is the first candidate left. `text` accepts everything and is always last.

use crate::types::{encode_text, ColumnType, Overflow, Pattern, Rounding, TextOptions};

/// Timestamp patterns tried after ISO 8601 (month first before day first: ambiguous
/// samples, where no day is above 12, read as month first).
const TIMESTAMP_PATTERNS: [&str; 6] = [
    "%m/%d/%Y %H:%M:%S",
    "%d/%m/%Y %H:%M:%S",
    "%m/%d/%Y %H:%M",
    "%d/%m/%Y %H:%M",
    "%Y/%m/%d %H:%M:%S",
    "%d.%m.%Y %H:%M:%S",
];
const DATE_PATTERNS: [&str; 4] = ["%m/%d/%Y", "%d/%m/%Y", "%Y/%m/%d", "%d.%m.%Y"];

/// A double holds 15 significant decimal digits exactly; a number with more is decimal
/// (or varint), so no digit the file had is lost.
const DOUBLE_DIGITS: usize = 15;

/// What a sampled value is, which decides the candidates it can be tried against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// CSV field text or a JSON string.
    Text,
    /// A JSON number (its text).
    Number,
    /// JSON `true` or `false`.
    Boolean,
    /// A JSON array (its text): a list, or text.
    Array,
    /// A JSON object: text (its JSON) only.
    Object,
}

/// Which family a candidate belongs to, for the rules the converter alone does not make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Boolean,
    Integer,
    Double,
    Decimal,
    Temporal,
    Identifier,
    Blob,
    List,
    Text,
}

/// One type a value may be read as, with the options it is read with.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub ty: ColumnType,
    family: Family,
    opts: TextOptions,
    /// The timestamp or date pattern this candidate stands for (`None`: ISO 8601).
    pub pattern: Option<String>,
}

impl Candidate {
    pub fn is_timestamp(&self) -> bool {
        self.ty == ColumnType::Timestamp
    }

    pub fn is_date(&self) -> bool {
        self.ty == ColumnType::Date
    }
}

/// The candidates, narrowest first; `text` is last. At most 64 (they fit a `u64` mask).
#[derive(Debug, Clone)]
pub struct Ladder {
    pub candidates: Vec<Candidate>,
    scratch: Vec<u8>,
}

/// The formats the ladder tries: the user's when given, else ISO 8601 then the patterns.
#[derive(Debug, Clone, Default)]
pub struct FormatChoice {
    /// `Some(None)`: the user chose ISO; `Some(Some(p))`: the user's pattern.
    pub timestamp: Option<Option<String>>,
    pub date: Option<Option<String>>,
}

fn formats(user: &Option<Option<String>>, defaults: &[&str]) -> Vec<Option<String>> {
    match user {
        Some(choice) => vec![choice.clone()],
        None => std::iter::once(None).chain(defaults.iter().map(|p| Some((*p).to_owned()))).collect(),
    }
}

impl Ladder {
    /// The ladder for values read with `base` (the load's options). Booleans are only
    /// `true`/`false` unless the user chose other words (the default words include `1`/`0`,
    /// which would make every 0/1 column boolean); integers take no rounding and nothing
    /// saturates, so a sniffed type holds every sampled value exactly.
    pub fn new(base: &TextOptions, user_words: bool, user_formats: &FormatChoice) -> Result<Ladder, String> {
        let mut base = base.clone();
        base.rounding = Rounding::Unnecessary;
        base.overflow = Overflow::Reject;
        // Nulls are told apart before a value is tried (a quoted empty field is a value).
        base.null_markers.clear();
        if !user_words {
            base.true_words = vec!["true".into()];
            base.false_words = vec!["false".into()];
        }
        let mut candidates = Vec::new();
        let mut push = |ty: ColumnType, family: Family, opts: &TextOptions, pattern: Option<String>| {
            candidates.push(Candidate { ty, family, opts: opts.clone(), pattern });
        };
        push(ColumnType::Boolean, Family::Boolean, &base, None);
        for ty in [ColumnType::Int, ColumnType::Bigint, ColumnType::Varint] {
            push(ty, Family::Integer, &base, None);
        }
        push(ColumnType::Double, Family::Double, &base, None);
        push(ColumnType::Decimal, Family::Decimal, &base, None);
        for pattern in formats(&user_formats.date, &DATE_PATTERNS) {
            let mut opts = base.clone();
            opts.date_pattern = pattern.as_deref().map(Pattern::parse).transpose()?;
            push(ColumnType::Date, Family::Temporal, &opts, pattern);
        }
        push(ColumnType::Time, Family::Temporal, &base, None);
        for pattern in formats(&user_formats.timestamp, &TIMESTAMP_PATTERNS) {
            let mut opts = base.clone();
            opts.timestamp_pattern = pattern.as_deref().map(Pattern::parse).transpose()?;
            push(ColumnType::Timestamp, Family::Temporal, &opts, pattern);
        }
        push(ColumnType::Timeuuid, Family::Identifier, &base, None);
        push(ColumnType::Uuid, Family::Identifier, &base, None);
        push(ColumnType::Inet, Family::Identifier, &base, None);
        push(ColumnType::Blob, Family::Blob, &base, None);
        // Lists are read from JSON arrays only, their elements as literals: ISO temporals.
        let mut literal = base.clone();
        literal.date_pattern = None;
        literal.timestamp_pattern = None;
        for element in [
            ColumnType::Boolean,
            ColumnType::Int,
            ColumnType::Bigint,
            ColumnType::Varint,
            ColumnType::Double,
            ColumnType::Decimal,
            ColumnType::Date,
            ColumnType::Time,
            ColumnType::Timestamp,
            ColumnType::Timeuuid,
            ColumnType::Uuid,
            ColumnType::Inet,
            ColumnType::Text,
        ] {
            push(ColumnType::List(Box::new(element)), Family::List, &literal, None);
        }
        push(ColumnType::Text, Family::Text, &base, None);
        debug_assert!(candidates.len() <= 64);
        Ok(Ladder { candidates, scratch: Vec::new() })
    }

    /// Every candidate.
    pub fn all(&self) -> u64 {
        match self.candidates.len() {
            64.. => u64::MAX,
            n => (1u64 << n) - 1,
        }
    }

    /// The mask of `text`, the last candidate.
    pub fn text_only(&self) -> u64 {
        1u64 << (self.candidates.len().saturating_sub(1))
    }

    /// The candidates among `mask` that accept `value`.
    pub fn accepting(&mut self, mask: u64, kind: ValueKind, value: &str) -> u64 {
        let mut kept = 0;
        for (bit, candidate) in self.candidates.iter().enumerate() {
            let flag = 1u64 << bit;
            if mask & flag == 0 || !admits(candidate.family, kind, value) {
                continue;
            }
            self.scratch.clear();
            if candidate.family == Family::Text
                || encode_text(&candidate.ty, value, &candidate.opts, &mut self.scratch).is_ok()
            {
                kept |= flag;
            }
        }
        kept
    }

    /// The first candidate left in `mask` (text when none is).
    pub fn best(&self, mask: u64) -> usize {
        match mask.trailing_zeros() as usize {
            bit if bit < self.candidates.len() => bit,
            _ => self.candidates.len().saturating_sub(1),
        }
    }

    /// The candidates of `mask` that are not timestamps of another pattern than `keep`'s
    /// (and likewise for dates): a load reads every timestamp with one setting.
    pub fn only_format(&self, mask: u64, keep: usize) -> u64 {
        let Some(kept) = self.candidates.get(keep) else { return mask };
        let mut out = mask;
        for (bit, candidate) in self.candidates.iter().enumerate() {
            if candidate.ty == kept.ty && (kept.is_timestamp() || kept.is_date()) && bit != keep {
                out &= !(1u64 << bit);
            }
        }
        out
    }
}

/// The rules beyond the converter: what kind of value may try which family.
fn admits(family: Family, kind: ValueKind, value: &str) -> bool {
    match (kind, family) {
        (_, Family::Text) => true,
        (ValueKind::Object, _) => false,
        (ValueKind::Array, family) => family == Family::List,
        (_, Family::List) => false,
        (ValueKind::Boolean, family) => family == Family::Boolean,
        // The converter reads `12.0` and `1e3` into integer columns (their value is an
        // integer), but a sample spelled with a point or an exponent is a number of another
        // kind: sniffed, it stays double or decimal.
        (ValueKind::Number, Family::Integer) => !decimal_spelling(value),
        (ValueKind::Number, Family::Decimal) => true,
        (ValueKind::Number, Family::Double) => significant_digits(value) <= DOUBLE_DIGITS,
        (ValueKind::Number, _) => false,
        (ValueKind::Text, Family::Integer) => !leading_zero(value) && !decimal_spelling(value),
        (ValueKind::Text, Family::Decimal) => !leading_zero(value),
        (ValueKind::Text, Family::Double) => !leading_zero(value) && significant_digits(value) <= DOUBLE_DIGITS,
        // Integers are epoch numbers, days or nanoseconds to the converter: sniffed, they
        // stay integers. A blob is only `0x...` (a hex word such as `cafe` is text).
        (ValueKind::Text, Family::Temporal) => !is_integer(value),
        (ValueKind::Text, Family::Blob) => value.trim().starts_with("0x") || value.trim().starts_with("0X"),
        (ValueKind::Text, Family::Boolean | Family::Identifier) => true,
    }
}

fn is_integer(value: &str) -> bool {
    let body = value.trim().trim_start_matches(['-', '+']);
    !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit())
}

/// `12.0`, `1e3`: a number written with a point or an exponent.
fn decimal_spelling(value: &str) -> bool {
    value.contains(['.', 'e', 'E'])
}

/// `007`: a code whose zeros matter (a zip code, an id), never a number.
fn leading_zero(value: &str) -> bool {
    let body = value.trim().trim_start_matches(['-', '+']);
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    digits > 1 && body.starts_with('0')
}

/// The digits of a number's mantissa from its first non-zero one (trailing zeros count).
fn significant_digits(value: &str) -> usize {
    let mantissa = value.split(['e', 'E']).next().unwrap_or("");
    mantissa.bytes().filter(u8::is_ascii_digit).skip_while(|&b| b == b'0').count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_text_rules() {
        assert!(leading_zero("007") && leading_zero("-01") && !leading_zero("0") && !leading_zero("0.5"));
        assert_eq!(significant_digits("0.000123"), 3);
        assert_eq!(significant_digits("-1234567890.12345e10"), 15);
        assert!(is_integer(" -12 ") && !is_integer("1.0") && !is_integer("-"));
    }

    #[test]
    fn no_candidate_left_is_text() {
        let ladder = Ladder::new(&TextOptions::default(), false, &FormatChoice::default()).unwrap();
        let text = ladder.candidates.len() - 1;
        assert_eq!(ladder.candidates[text].ty, ColumnType::Text);
        assert_eq!((ladder.best(0), ladder.best(ladder.text_only()), ladder.best(1 << 1)), (text, text, 1));
        // A bit past the candidates is none of them.
        assert_eq!(ladder.best(1 << ladder.candidates.len()), text);
    }
}
