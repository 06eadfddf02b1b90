//! The parsed type tree, read from the protocol's `[option]`, from CQL type text, or from a
//! Cassandra marshal class name (how vectors travel), and written back to CQL text.

use std::fmt;

use crate::error::ProtocolError;
use crate::wire::{Reader, Writer};

/// Deepest type nesting accepted from any source (`[option]`, CQL text, marshal classes);
/// `frozen<...>`, `FrozenType(...)` and `ReversedType(...)` count as levels. Every recursive
/// walk over types and values (validation, decoding, text parsing and formatting) follows the
/// type tree, so this also bounds the stack used on hostile values; the JSON scanner allows
/// twice as much ([`crate::bulk::jsonl::MAX_JSON_DEPTH`]), a map being two JSON levels.
pub const MAX_TYPE_DEPTH: usize = 32;

const MARSHAL_PREFIX: &str = "org.apache.cassandra.db.marshal.";

/// A CQL column type.
///
/// Frozenness is not kept: it never changes how values are encoded, and the protocol's
/// `[option]` does not carry it. [`fmt::Display`] writes `frozen<...>` around collections
/// and UDTs nested inside other types, where CQL requires it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ColumnType {
    /// A server-side class the protocol does not describe; its values are opaque bytes.
    Custom(String),
    Ascii,
    Bigint,
    Blob,
    Boolean,
    Counter,
    Decimal,
    Double,
    Float,
    Int,
    Timestamp,
    Uuid,
    /// `text`, also spelled `varchar`.
    Text,
    Varint,
    Timeuuid,
    Inet,
    Date,
    Time,
    Smallint,
    Tinyint,
    Duration,
    List(Box<ColumnType>),
    Map(Box<ColumnType>, Box<ColumnType>),
    Set(Box<ColumnType>),
    Udt(Box<UdtType>),
    Tuple(Vec<ColumnType>),
    /// A fixed number of non-null elements (Cassandra 5 `vector<type, n>`).
    Vector(Box<ColumnType>, u32),
}

/// A user-defined type's declaration: its values carry fields in this order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UdtType {
    pub keyspace: String,
    pub name: String,
    pub fields: Vec<(String, ColumnType)>,
}

/// A CQL type text or marshal class name that does not parse. `offset` is in bytes from the
/// start of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeParseError {
    pub offset: usize,
    pub reason: String,
}

impl fmt::Display for TypeParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad type at byte {}: {}", self.offset, self.reason)
    }
}

impl std::error::Error for TypeParseError {}

fn syntax(offset: usize, reason: impl Into<String>) -> TypeParseError {
    TypeParseError { offset, reason: reason.into() }
}

/// Native types by CQL name, option id and marshal class (short name).
const NATIVE: &[(&str, u16, &str, ColumnType)] = &[
    ("ascii", 0x0001, "AsciiType", ColumnType::Ascii),
    ("bigint", 0x0002, "LongType", ColumnType::Bigint),
    ("blob", 0x0003, "BytesType", ColumnType::Blob),
    ("boolean", 0x0004, "BooleanType", ColumnType::Boolean),
    ("counter", 0x0005, "CounterColumnType", ColumnType::Counter),
    ("decimal", 0x0006, "DecimalType", ColumnType::Decimal),
    ("double", 0x0007, "DoubleType", ColumnType::Double),
    ("float", 0x0008, "FloatType", ColumnType::Float),
    ("int", 0x0009, "Int32Type", ColumnType::Int),
    ("timestamp", 0x000B, "TimestampType", ColumnType::Timestamp),
    ("uuid", 0x000C, "UUIDType", ColumnType::Uuid),
    ("text", 0x000D, "UTF8Type", ColumnType::Text),
    ("varint", 0x000E, "IntegerType", ColumnType::Varint),
    ("timeuuid", 0x000F, "TimeUUIDType", ColumnType::Timeuuid),
    ("inet", 0x0010, "InetAddressType", ColumnType::Inet),
    ("date", 0x0011, "SimpleDateType", ColumnType::Date),
    ("time", 0x0012, "TimeType", ColumnType::Time),
    ("smallint", 0x0013, "ShortType", ColumnType::Smallint),
    ("tinyint", 0x0014, "ByteType", ColumnType::Tinyint),
    ("duration", 0x0015, "DurationType", ColumnType::Duration),
];

const ID_CUSTOM: u16 = 0x0000;
const ID_LIST: u16 = 0x0020;
const ID_MAP: u16 = 0x0021;
const ID_SET: u16 = 0x0022;
const ID_UDT: u16 = 0x0030;
const ID_TUPLE: u16 = 0x0031;

impl ColumnType {
    /// The CQL names of the native (non-collection, non-custom) types, in protocol id order.
    pub fn native_names() -> impl Iterator<Item = &'static str> {
        NATIVE.iter().map(|entry| entry.0)
    }

    /// Reads a type `[option]` as found in result metadata. Unknown ids and nesting deeper
    /// than [`MAX_TYPE_DEPTH`] are remote protocol errors.
    pub fn read(r: &mut Reader<'_>) -> Result<ColumnType, ProtocolError> {
        read_option(r, 1)
    }

    /// Appends this type as an `[option]`. Vectors become the custom class Cassandra uses.
    /// Fails (locally) when a name is longer than a `[string]` can carry.
    pub fn write(&self, w: &mut Writer<'_>) -> Result<(), ProtocolError> {
        fn string(w: &mut Writer<'_>, s: &str, field: &'static str) -> Result<(), ProtocolError> {
            if s.len() > usize::from(u16::MAX) {
                return Err(ProtocolError::local(field, w.buf.len(), "longer than 65535 bytes"));
            }
            w.string(s);
            Ok(())
        }
        match self {
            ColumnType::Custom(class) => {
                w.u16(ID_CUSTOM);
                string(w, class, "custom type class")?;
            }
            ColumnType::Vector(..) => {
                w.u16(ID_CUSTOM);
                string(w, &self.marshal_class(), "custom type class")?;
            }
            ColumnType::List(e) => {
                w.u16(ID_LIST);
                e.write(w)?;
            }
            ColumnType::Set(e) => {
                w.u16(ID_SET);
                e.write(w)?;
            }
            ColumnType::Map(k, v) => {
                w.u16(ID_MAP);
                k.write(w)?;
                v.write(w)?;
            }
            ColumnType::Udt(u) => {
                w.u16(ID_UDT);
                string(w, &u.keyspace, "udt keyspace")?;
                string(w, &u.name, "udt name")?;
                let n = u16::try_from(u.fields.len())
                    .map_err(|_| ProtocolError::local("udt field count", w.buf.len(), "more than 65535 fields"))?;
                w.u16(n);
                for (name, ty) in &u.fields {
                    string(w, name, "udt field name")?;
                    ty.write(w)?;
                }
            }
            ColumnType::Tuple(items) => {
                w.u16(ID_TUPLE);
                let n = u16::try_from(items.len())
                    .map_err(|_| ProtocolError::local("tuple arity", w.buf.len(), "more than 65535 components"))?;
                w.u16(n);
                for ty in items {
                    ty.write(w)?;
                }
            }
            native => {
                let id = NATIVE.iter().find(|entry| entry.3 == *native).map_or(0, |entry| entry.1);
                w.u16(id);
            }
        }
        Ok(())
    }

    /// Parses CQL type text: `map<text, frozen<list<int>>>`, `tuple<int, text>`,
    /// `vector<float, 3>`, `'custom.Class'`, and the self-describing UDT form
    /// `udt<ks.name>{field:type,...}`. A bare UDT name (as in `system_schema.columns`) needs
    /// [`ColumnType::parse_cql_with_udts`].
    pub fn parse_cql(text: &str) -> Result<ColumnType, TypeParseError> {
        Self::parse_cql_with_udts(text, &mut |_, _| None)
    }

    /// Like [`ColumnType::parse_cql`], resolving bare UDT names (`name` or `ks.name`)
    /// through `resolve(keyspace, name)`.
    pub fn parse_cql_with_udts(
        text: &str,
        resolve: &mut dyn FnMut(Option<&str>, &str) -> Option<ColumnType>,
    ) -> Result<ColumnType, TypeParseError> {
        let mut p = CqlTypeParser { s: text, pos: 0, resolve };
        let ty = p.parse_type(1)?;
        p.skip_ws();
        if p.pos < text.len() {
            return Err(syntax(p.pos, "unexpected text after the type"));
        }
        Ok(ty)
    }

    /// Parses a Cassandra marshal class name, e.g.
    /// `org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType, 3)`.
    /// Names it does not know become [`ColumnType::Custom`].
    pub fn parse_marshal_class(class: &str) -> Result<ColumnType, TypeParseError> {
        let mut p = MarshalParser::new(class);
        let ty = p.parse_type(1)?;
        p.skip_ws();
        if p.pos < class.len() {
            return Err(syntax(p.pos, "unexpected text after the class name"));
        }
        Ok(ty)
    }

    /// The fully qualified marshal class Cassandra uses for this type.
    pub fn marshal_class(&self) -> String {
        let mut out = String::new();
        self.write_marshal_class(&mut out);
        out
    }

    fn write_marshal_class(&self, out: &mut String) {
        let params = |out: &mut String, name: &str, items: &[&ColumnType]| {
            out.push_str(MARSHAL_PREFIX);
            out.push_str(name);
            out.push('(');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                item.write_marshal_class(out);
            }
            out.push(')');
        };
        match self {
            ColumnType::Custom(class) => out.push_str(class),
            ColumnType::List(e) => params(out, "ListType", &[e]),
            ColumnType::Set(e) => params(out, "SetType", &[e]),
            ColumnType::Map(k, v) => params(out, "MapType", &[k, v]),
            ColumnType::Tuple(items) => params(out, "TupleType", &items.iter().collect::<Vec<_>>()),
            ColumnType::Vector(e, n) => {
                out.push_str(MARSHAL_PREFIX);
                out.push_str("VectorType(");
                e.write_marshal_class(out);
                out.push_str(", ");
                out.push_str(&n.to_string());
                out.push(')');
            }
            ColumnType::Udt(u) => {
                out.push_str(MARSHAL_PREFIX);
                out.push_str("UserType(");
                out.push_str(&u.keyspace);
                out.push(',');
                push_hex(out, u.name.as_bytes());
                for (name, ty) in &u.fields {
                    out.push(',');
                    push_hex(out, name.as_bytes());
                    out.push(':');
                    ty.write_marshal_class(out);
                }
                out.push(')');
            }
            native => {
                out.push_str(MARSHAL_PREFIX);
                out.push_str(NATIVE.iter().find(|e| e.3 == *native).map_or("BytesType", |e| e.2));
            }
        }
    }

    /// The CQL name of a native type, `None` for parameterised and custom types.
    pub fn native_name(&self) -> Option<&'static str> {
        NATIVE.iter().find(|e| e.3 == *self).map(|e| e.0)
    }

    /// The size every value has when it sits in a vector, as Cassandra 5 decides it
    /// (`AbstractType.valueLengthIfFixed`): such elements are packed with no length prefix.
    /// tinyint, smallint, date and time are not fixed there, even though their values are.
    pub fn vector_fixed_len(&self) -> Option<u64> {
        match self {
            ColumnType::Boolean => Some(1),
            ColumnType::Int | ColumnType::Float => Some(4),
            ColumnType::Bigint | ColumnType::Counter | ColumnType::Double | ColumnType::Timestamp => Some(8),
            ColumnType::Uuid | ColumnType::Timeuuid => Some(16),
            ColumnType::Vector(e, n) => e.vector_fixed_len().and_then(|len| len.checked_mul(u64::from(*n))),
            _ => None,
        }
    }

    /// Whether a zero-length value is legal for this type although its values normally have
    /// content: the legacy "empty" value, which Cassandra's serializers still accept for these
    /// types and which drivers read as null. (For text, ascii, blob, custom, tuples and UDTs
    /// zero bytes is an ordinary value instead.)
    pub fn allows_empty(&self) -> bool {
        matches!(
            self,
            ColumnType::Boolean
                | ColumnType::Bigint
                | ColumnType::Counter
                | ColumnType::Decimal
                | ColumnType::Double
                | ColumnType::Float
                | ColumnType::Int
                | ColumnType::Timestamp
                | ColumnType::Uuid
                | ColumnType::Timeuuid
                | ColumnType::Inet
                | ColumnType::Varint
        )
    }

    /// Collections, tuples, UDTs and vectors: values written as literals with brackets.
    pub fn is_container(&self) -> bool {
        matches!(
            self,
            ColumnType::List(_)
                | ColumnType::Set(_)
                | ColumnType::Map(..)
                | ColumnType::Tuple(_)
                | ColumnType::Udt(_)
                | ColumnType::Vector(..)
        )
    }

    fn fmt_cql(&self, f: &mut fmt::Formatter<'_>, nested: bool) -> fmt::Result {
        let describe = f.alternate();
        let frozen = nested
            && matches!(self, ColumnType::List(_) | ColumnType::Set(_) | ColumnType::Map(..) | ColumnType::Udt(_));
        if frozen {
            f.write_str("frozen<")?;
        }
        match self {
            ColumnType::Custom(class) => {
                f.write_str("'")?;
                f.write_str(&class.replace('\'', "''"))?;
                f.write_str("'")?;
            }
            ColumnType::List(e) => {
                f.write_str("list<")?;
                e.fmt_cql(f, true)?;
                f.write_str(">")?;
            }
            ColumnType::Set(e) => {
                f.write_str("set<")?;
                e.fmt_cql(f, true)?;
                f.write_str(">")?;
            }
            ColumnType::Map(k, v) => {
                f.write_str("map<")?;
                k.fmt_cql(f, true)?;
                f.write_str(", ")?;
                v.fmt_cql(f, true)?;
                f.write_str(">")?;
            }
            ColumnType::Tuple(items) => {
                f.write_str("tuple<")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    item.fmt_cql(f, true)?;
                }
                f.write_str(">")?;
            }
            ColumnType::Vector(e, n) => {
                f.write_str("vector<")?;
                e.fmt_cql(f, true)?;
                write!(f, ", {n}>")?;
            }
            ColumnType::Udt(u) => {
                if describe {
                    f.write_str("udt<")?;
                }
                if !u.keyspace.is_empty() {
                    write_ident(f, &u.keyspace)?;
                    f.write_str(".")?;
                }
                write_ident(f, &u.name)?;
                if describe {
                    f.write_str(">{")?;
                    for (i, (name, ty)) in u.fields.iter().enumerate() {
                        if i > 0 {
                            f.write_str(",")?;
                        }
                        write_ident(f, name)?;
                        f.write_str(":")?;
                        ty.fmt_cql(f, true)?;
                    }
                    f.write_str("}")?;
                }
            }
            native => f.write_str(native.native_name().unwrap_or("blob"))?,
        }
        if frozen {
            f.write_str(">")?;
        }
        Ok(())
    }
}

/// CQL text. `{:#}` writes UDTs in the self-describing form `udt<ks.name>{field:type,...}`
/// (the form [`ColumnType::parse_cql`] reads back); plain `{}` writes just their name.
impl fmt::Display for ColumnType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_cql(f, false)
    }
}

/// Words that would read back as something other than a UDT or field name.
const TYPE_KEYWORDS: &[&str] = &["list", "set", "map", "tuple", "frozen", "vector", "udt", "varchar"];

fn write_ident(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    let plain = name.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !TYPE_KEYWORDS.contains(&name)
        && !NATIVE.iter().any(|e| e.0 == name);
    if plain {
        f.write_str(name)
    } else {
        f.write_str("\"")?;
        f.write_str(&name.replace('"', "\"\""))?;
        f.write_str("\"")
    }
}

fn push_hex(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 15)]));
    }
}

fn too_deep(offset: usize) -> TypeParseError {
    syntax(offset, format!("types nested deeper than {MAX_TYPE_DEPTH} levels"))
}

// ---------------------------------------------------------------------------------------------
// [option]

fn read_option(r: &mut Reader<'_>, depth: usize) -> Result<ColumnType, ProtocolError> {
    let at = r.offset();
    if depth > MAX_TYPE_DEPTH {
        return Err(r.error("type option", format!("types nested deeper than {MAX_TYPE_DEPTH} levels")));
    }
    let id = r.u16("type option id")?;
    let ty = match id {
        ID_CUSTOM => {
            // The class text starts after its 2-byte length.
            let class_at = r.offset() + 2;
            let class = r.string("custom type class")?;
            custom_class(class, depth)
                .map_err(|e| ProtocolError::remote("custom type class", class_at + e.offset, e.reason))?
        }
        ID_LIST => ColumnType::List(Box::new(read_option(r, depth + 1)?)),
        ID_SET => ColumnType::Set(Box::new(read_option(r, depth + 1)?)),
        ID_MAP => {
            let k = read_option(r, depth + 1)?;
            let v = read_option(r, depth + 1)?;
            ColumnType::Map(Box::new(k), Box::new(v))
        }
        ID_UDT => {
            let keyspace = r.string("udt keyspace")?.to_owned();
            let name = r.string("udt name")?.to_owned();
            let n = r.u16("udt field count")?;
            // Each field needs at least a 2-byte name length and a 2-byte option id.
            let mut fields = Vec::with_capacity(usize::from(n).min(r.remaining() / 4));
            for _ in 0..n {
                let field = r.string("udt field name")?.to_owned();
                fields.push((field, read_option(r, depth + 1)?));
            }
            ColumnType::Udt(Box::new(UdtType { keyspace, name, fields }))
        }
        ID_TUPLE => {
            let n = r.u16("tuple arity")?;
            let mut items = Vec::with_capacity(usize::from(n).min(r.remaining() / 2));
            for _ in 0..n {
                items.push(read_option(r, depth + 1)?);
            }
            ColumnType::Tuple(items)
        }
        other => match NATIVE.iter().find(|e| e.1 == other) {
            Some(entry) => entry.3.clone(),
            None => return Err(ProtocolError::remote("type option id", at, format!("unknown type id 0x{other:04x}"))),
        },
    };
    Ok(ty)
}

/// A custom `[option]`'s class: vectors are recognised, and so are the marshal classes of
/// native types (v4 sends duration as `DurationType`); anything else passes through.
fn custom_class(class: &str, depth: usize) -> Result<ColumnType, TypeParseError> {
    let mut p = MarshalParser::new(class);
    p.skip_ws();
    let name = p.name();
    if name.is_empty() {
        // Nothing names no class: refused, as a vector holding it could not be written back.
        return Err(syntax(p.pos, "expected a class name"));
    }
    if short_marshal_name(name) != "VectorType" {
        let mut whole = MarshalParser::new(class);
        return match whole.parse_type(depth) {
            Ok(ty) if whole.pos == class.len() => Ok(ty),
            // Too deep is refused rather than passed on opaque: it is no server's real type.
            Err(e) if whole.too_deep => Err(e),
            _ => Ok(ColumnType::Custom(class.to_owned())),
        };
    }
    p.pos = 0;
    let ty = p.parse_type(depth)?;
    p.skip_ws();
    if p.pos < class.len() {
        return Err(syntax(p.pos, "unexpected text after the class name"));
    }
    Ok(ty)
}

fn short_marshal_name(name: &str) -> &str {
    name.strip_prefix(MARSHAL_PREFIX).unwrap_or(name)
}

// ---------------------------------------------------------------------------------------------
// Marshal class names

struct MarshalParser<'a> {
    s: &'a str,
    pos: usize,
    /// Set when parsing stopped at [`MAX_TYPE_DEPTH`].
    too_deep: bool,
}

impl<'a> MarshalParser<'a> {
    fn new(s: &'a str) -> Self {
        MarshalParser { s, pos: 0, too_deep: false }
    }

    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn require(&mut self, c: u8) -> Result<(), TypeParseError> {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(syntax(self.pos, format!("expected '{}'", char::from(c))))
        }
    }

    /// A class name or parameter token: everything up to a delimiter.
    fn name(&mut self) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(|b| !matches!(b, b'(' | b')' | b',' | b':') && !b.is_ascii_whitespace()) {
            self.pos += 1;
        }
        &self.s[start..self.pos]
    }

    fn parse_type(&mut self, depth: usize) -> Result<ColumnType, TypeParseError> {
        self.skip_ws();
        let start = self.pos;
        if depth > MAX_TYPE_DEPTH {
            self.too_deep = true;
            return Err(too_deep(start));
        }
        let name = self.name();
        if name.is_empty() {
            return Err(syntax(start, "expected a class name"));
        }
        let short = short_marshal_name(name);
        self.skip_ws();
        let has_params = self.peek() == Some(b'(');
        if !has_params {
            return Ok(match NATIVE.iter().find(|e| e.2 == short) {
                Some(entry) => entry.3.clone(),
                // Before `date` existed, DateType was what timestamps used.
                None if short == "DateType" => ColumnType::Timestamp,
                None => ColumnType::Custom(name.to_owned()),
            });
        }
        self.pos += 1;
        let ty = match short {
            "ListType" => ColumnType::List(Box::new(self.parse_type(depth + 1)?)),
            "SetType" => ColumnType::Set(Box::new(self.parse_type(depth + 1)?)),
            "MapType" => {
                let k = self.parse_type(depth + 1)?;
                self.require(b',')?;
                let v = self.parse_type(depth + 1)?;
                ColumnType::Map(Box::new(k), Box::new(v))
            }
            // Neither changes the encoding of values, but each is a level of nesting: without
            // counting them, `FrozenType(` repeated recursed without bound.
            "FrozenType" | "ReversedType" => self.parse_type(depth + 1)?,
            "TupleType" => {
                let mut items = vec![self.parse_type(depth + 1)?];
                self.skip_ws();
                while self.peek() == Some(b',') {
                    self.pos += 1;
                    items.push(self.parse_type(depth + 1)?);
                    self.skip_ws();
                }
                ColumnType::Tuple(items)
            }
            "VectorType" => {
                let element = self.parse_type(depth + 1)?;
                self.require(b',')?;
                self.skip_ws();
                let at = self.pos;
                let dimension = parse_dimension(self.name()).map_err(|reason| syntax(at, reason))?;
                ColumnType::Vector(Box::new(element), dimension)
            }
            "UserType" => self.parse_user_type(depth)?,
            _ => {
                if NATIVE.iter().any(|e| e.2 == short) {
                    return Err(syntax(start, format!("{short} takes no parameters")));
                }
                self.skip_balanced()?;
                return Ok(ColumnType::Custom(self.s[start..self.pos].to_owned()));
            }
        };
        self.require(b')')?;
        Ok(ty)
    }

    /// `UserType(ks,hex(name),hex(field):type,...)`, after the opening parenthesis.
    fn parse_user_type(&mut self, depth: usize) -> Result<ColumnType, TypeParseError> {
        self.skip_ws();
        let keyspace = self.name().to_owned();
        self.require(b',')?;
        self.skip_ws();
        let at = self.pos;
        let name = hex_utf8(self.name()).ok_or_else(|| syntax(at, "UDT name is not hex-encoded UTF-8"))?;
        let mut fields = Vec::new();
        self.skip_ws();
        while self.peek() == Some(b',') {
            self.pos += 1;
            self.skip_ws();
            let at = self.pos;
            let field = hex_utf8(self.name()).ok_or_else(|| syntax(at, "UDT field name is not hex-encoded UTF-8"))?;
            self.require(b':')?;
            fields.push((field, self.parse_type(depth + 1)?));
            self.skip_ws();
        }
        Ok(ColumnType::Udt(Box::new(UdtType { keyspace, name, fields })))
    }

    /// Skips an unknown class's parameters up to and including the matching `)`. Iterative,
    /// so hostile nesting cannot grow the stack.
    fn skip_balanced(&mut self) -> Result<(), TypeParseError> {
        let open = self.pos.saturating_sub(1);
        let mut depth = 1usize;
        while let Some(b) = self.peek() {
            self.pos += 1;
            match b {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
        Err(syntax(open, "unbalanced '('"))
    }
}

fn hex_utf8(hex: &str) -> Option<String> {
    let hex = hex.as_bytes();
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    let mut bytes = Vec::with_capacity(hex.len() / 2);
    for pair in hex.chunks_exact(2) {
        let hi = char::from(pair[0]).to_digit(16)?;
        let lo = char::from(pair[1]).to_digit(16)?;
        bytes.push((hi * 16 + lo) as u8);
    }
    String::from_utf8(bytes).ok()
}

fn parse_dimension(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if n >= 1 && n <= i32::MAX as u32 => Ok(n),
        _ => Err(format!("vector dimension must be an integer from 1 to {}, got '{text}'", i32::MAX)),
    }
}

// ---------------------------------------------------------------------------------------------
// CQL type text

struct CqlTypeParser<'a, 'r> {
    s: &'a str,
    pos: usize,
    resolve: &'r mut dyn FnMut(Option<&str>, &str) -> Option<ColumnType>,
}

/// An identifier as written: unquoted ones are case-insensitive (folded to lower case).
struct Ident {
    name: String,
    quoted: bool,
}

impl CqlTypeParser<'_, '_> {
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn require(&mut self, c: u8) -> Result<(), TypeParseError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(syntax(self.pos, format!("expected '{}'", char::from(c))))
        }
    }

    fn ident(&mut self) -> Result<Ident, TypeParseError> {
        self.skip_ws();
        let start = self.pos;
        if self.peek() == Some(b'"') {
            self.pos += 1;
            let mut name = String::new();
            loop {
                let rest = &self.s[self.pos..];
                let Some(quote) = rest.find('"') else {
                    return Err(syntax(start, "unterminated quoted identifier"));
                };
                name.push_str(&rest[..quote]);
                self.pos += quote + 1;
                if self.peek() == Some(b'"') {
                    name.push('"');
                    self.pos += 1;
                } else {
                    return Ok(Ident { name, quoted: true });
                }
            }
        }
        while self.peek().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(syntax(start, "expected a type or a name"));
        }
        Ok(Ident { name: self.s[start..self.pos].to_ascii_lowercase(), quoted: false })
    }

    fn parse_type(&mut self, depth: usize) -> Result<ColumnType, TypeParseError> {
        self.skip_ws();
        let start = self.pos;
        if depth > MAX_TYPE_DEPTH {
            return Err(too_deep(start));
        }
        if self.peek() == Some(b'\'') {
            let class = self.string_literal()?;
            return custom_class(&class, depth).map_err(|e| syntax(start + 1 + e.offset, e.reason));
        }
        let ident = self.ident()?;
        self.skip_ws();
        let opens = self.peek() == Some(b'<');
        if !ident.quoted && self.peek() != Some(b'.') {
            let word = ident.name.as_str();
            if let Some(entry) = NATIVE.iter().find(|e| e.0 == word) {
                return Ok(entry.3.clone());
            }
            if word == "varchar" {
                return Ok(ColumnType::Text);
            }
            if opens {
                self.pos += 1;
                let ty = match word {
                    "list" => ColumnType::List(Box::new(self.parse_type(depth + 1)?)),
                    "set" => ColumnType::Set(Box::new(self.parse_type(depth + 1)?)),
                    // A level like any other, or `frozen<` repeated would recurse without bound.
                    "frozen" => self.parse_type(depth + 1)?,
                    "map" => {
                        let k = self.parse_type(depth + 1)?;
                        self.require(b',')?;
                        let v = self.parse_type(depth + 1)?;
                        ColumnType::Map(Box::new(k), Box::new(v))
                    }
                    "tuple" => {
                        let mut items = vec![self.parse_type(depth + 1)?];
                        while self.eat(b',') {
                            items.push(self.parse_type(depth + 1)?);
                        }
                        ColumnType::Tuple(items)
                    }
                    "vector" => {
                        let element = self.parse_type(depth + 1)?;
                        self.require(b',')?;
                        self.skip_ws();
                        let at = self.pos;
                        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
                            self.pos += 1;
                        }
                        let dimension = parse_dimension(&self.s[at..self.pos]).map_err(|reason| syntax(at, reason))?;
                        ColumnType::Vector(Box::new(element), dimension)
                    }
                    "udt" => return self.parse_udt_description(depth),
                    _ => return Err(syntax(start, format!("unknown parameterised type '{word}'"))),
                };
                self.require(b'>')?;
                return Ok(ty);
            }
        }
        // A UDT referred to by name.
        let (keyspace, name) = if self.eat(b'.') { (Some(ident.name), self.ident()?.name) } else { (None, ident.name) };
        (self.resolve)(keyspace.as_deref(), &name).ok_or_else(|| {
            syntax(start, format!("unknown type '{name}' (a UDT needs the form udt<ks.name>{{field:type,...}})"))
        })
    }

    /// `udt<ks.name>{field:type,...}`, after `udt<`.
    fn parse_udt_description(&mut self, depth: usize) -> Result<ColumnType, TypeParseError> {
        let first = self.ident()?.name;
        let (keyspace, name) = if self.eat(b'.') { (first, self.ident()?.name) } else { (String::new(), first) };
        self.require(b'>')?;
        self.require(b'{')?;
        let mut fields = Vec::new();
        if !self.eat(b'}') {
            loop {
                let field = self.ident()?.name;
                self.require(b':')?;
                fields.push((field, self.parse_type(depth + 1)?));
                if self.eat(b'}') {
                    break;
                }
                self.require(b',')?;
            }
        }
        Ok(ColumnType::Udt(Box::new(UdtType { keyspace, name, fields })))
    }

    /// `'...'` with `''` standing for a quote.
    fn string_literal(&mut self) -> Result<String, TypeParseError> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let rest = &self.s[self.pos..];
            let Some(quote) = rest.find('\'') else {
                return Err(syntax(start, "unterminated string"));
            };
            out.push_str(&rest[..quote]);
            self.pos += quote + 1;
            if self.peek() == Some(b'\'') {
                out.push('\'');
                self.pos += 1;
            } else {
                return Ok(out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> ColumnType {
        ColumnType::parse_cql(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn address() -> ColumnType {
        ColumnType::Udt(Box::new(UdtType {
            keyspace: "ks".into(),
            name: "address".into(),
            fields: vec![("street".into(), ColumnType::Text), ("Zip Code".into(), ColumnType::Int)],
        }))
    }

    #[test]
    fn parses_cql_text() {
        assert_eq!(parse("int"), ColumnType::Int);
        assert_eq!(parse(" VARCHAR "), ColumnType::Text);
        assert_eq!(
            parse("map<text, frozen<list<int>>>"),
            ColumnType::Map(Box::new(ColumnType::Text), Box::new(ColumnType::List(Box::new(ColumnType::Int))))
        );
        assert_eq!(parse("tuple<int,text>"), ColumnType::Tuple(vec![ColumnType::Int, ColumnType::Text]));
        assert_eq!(parse("vector<float, 3>"), ColumnType::Vector(Box::new(ColumnType::Float), 3));
        assert_eq!(parse("'com.example.Thing'"), ColumnType::Custom("com.example.Thing".into()));
        assert_eq!(parse("'it''s'"), ColumnType::Custom("it's".into()));
        assert_eq!(
            parse("'org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType, 3)'"),
            ColumnType::Vector(Box::new(ColumnType::Float), 3)
        );
        assert_eq!(parse("udt<ks.address>{street:text, \"Zip Code\":int}"), address());
        assert_eq!(parse("frozen<udt<ks.address>{street:text,\"Zip Code\":int}>"), address());
    }

    #[test]
    fn rejects_bad_cql_text() {
        for (bad, offset, reason) in [
            ("", 0, "expected a type or a name"),
            ("integer", 0, "unknown type 'integer' (a UDT needs the form udt<ks.name>{field:type,...})"),
            ("list<int", 8, "expected '>'"),
            ("list<>", 5, "expected a type or a name"),
            ("map<int>", 7, "expected ','"),
            ("vector<float, 0>", 14, "vector dimension must be an integer from 1 to 2147483647, got '0'"),
            (
                "vector<float, 2147483648>",
                14,
                "vector dimension must be an integer from 1 to 2147483647, got '2147483648'",
            ),
            ("vector<float>", 12, "expected ','"),
            ("tuple<>", 6, "expected a type or a name"),
            ("int int", 4, "unexpected text after the type"),
            ("address", 0, "unknown type 'address' (a UDT needs the form udt<ks.name>{field:type,...})"),
            ("ks.address", 0, "unknown type 'address' (a UDT needs the form udt<ks.name>{field:type,...})"),
            ("udt<ks.a>{x:int", 15, "expected ','"),
            ("'unterminated", 0, "unterminated string"),
            ("''", 1, "expected a class name"),
            ("vector<'  ', 1>", 10, "expected a class name"),
            ("\"unterminated", 0, "unterminated quoted identifier"),
        ] {
            assert_eq!(
                ColumnType::parse_cql(bad).unwrap_err(),
                TypeParseError { offset, reason: reason.into() },
                "{bad:?} parsed"
            );
        }
        let deep = "list<".repeat(40) + "int" + &">".repeat(40);
        let err = ColumnType::parse_cql(&deep).unwrap_err();
        assert!(err.reason.contains("nested deeper"), "{err}");
        let ok = "list<".repeat(31) + "int" + &">".repeat(31);
        assert!(ColumnType::parse_cql(&ok).is_ok());
    }

    /// `frozen<` once per level, `levels` of them around an int.
    fn frozen_cql(levels: usize) -> String {
        "frozen<".repeat(levels) + "int" + &">".repeat(levels)
    }

    /// `FrozenType(` or `ReversedType(` alternately, `levels` of them around Int32Type.
    fn frozen_marshal(levels: usize) -> String {
        let open: String = (0..levels).map(|i| if i % 2 == 0 { "FrozenType(" } else { "ReversedType(" }).collect();
        open + "Int32Type" + &")".repeat(levels)
    }

    #[test]
    fn frozen_and_reversed_wrappers_count_as_levels() {
        // The int itself is level 32 under 31 wrappers; one more wrapper is too deep.
        assert_eq!(ColumnType::parse_cql(&frozen_cql(MAX_TYPE_DEPTH - 1)), Ok(ColumnType::Int));
        assert_eq!(ColumnType::parse_marshal_class(&frozen_marshal(MAX_TYPE_DEPTH - 1)), Ok(ColumnType::Int));
        let reason = format!("types nested deeper than {MAX_TYPE_DEPTH} levels");
        // The error is at the first byte of the level past the limit.
        let at = "frozen<".len() * MAX_TYPE_DEPTH;
        assert_eq!(ColumnType::parse_cql(&frozen_cql(MAX_TYPE_DEPTH)), Err(syntax(at, reason.clone())));
        let text = frozen_marshal(MAX_TYPE_DEPTH);
        let at = text.find("Int32Type").unwrap();
        assert_eq!(ColumnType::parse_marshal_class(&text), Err(syntax(at, reason.clone())));
    }

    #[test]
    fn thousands_of_wrappers_fail_fast_on_a_small_stack() {
        // The input from issue #12 crashed the WASM build by recursing 5460 times; this runs
        // on 256 KiB of stack, a quarter of the 1 MiB the WASM build has.
        let handle = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let class = frozen_marshal(5460);
                let mut option = vec![0, 0];
                option.extend_from_slice(&(class.len() as u16).to_be_bytes());
                option.extend_from_slice(class.as_bytes());
                let err = ColumnType::read(&mut Reader::new(&option)).unwrap_err();
                assert_eq!(err.field, "custom type class");
                (
                    err.reason,
                    ColumnType::parse_cql(&frozen_cql(5460)).unwrap_err().reason,
                    ColumnType::parse_marshal_class(&frozen_marshal(5460)).unwrap_err().reason,
                )
            })
            .unwrap();
        let reason = format!("types nested deeper than {MAX_TYPE_DEPTH} levels");
        assert_eq!(handle.join().unwrap(), (reason.clone(), reason.clone(), reason));
    }

    #[test]
    fn resolves_bare_udt_names() {
        let mut seen = Vec::new();
        let ty = ColumnType::parse_cql_with_udts("list<frozen<ks.address>>", &mut |ks, name| {
            seen.push((ks.map(str::to_owned), name.to_owned()));
            Some(address())
        })
        .unwrap();
        assert_eq!(ty, ColumnType::List(Box::new(address())));
        assert_eq!(seen, [(Some("ks".to_owned()), "address".to_owned())]);
    }

    #[test]
    fn displays_cql_text() {
        assert_eq!(parse("map<varchar, frozen<list<int>>>").to_string(), "map<text, frozen<list<int>>>");
        assert_eq!(parse("list<frozen<set<uuid>>>").to_string(), "list<frozen<set<uuid>>>");
        assert_eq!(parse("tuple<int, tuple<text, date>>").to_string(), "tuple<int, tuple<text, date>>");
        assert_eq!(parse("vector<float, 3>").to_string(), "vector<float, 3>");
        assert_eq!(address().to_string(), "ks.address");
        assert_eq!(ColumnType::List(Box::new(address())).to_string(), "list<frozen<ks.address>>");
        assert_eq!(format!("{:#}", address()), "udt<ks.address>{street:text,\"Zip Code\":int}");
        assert_eq!(ColumnType::Custom("a'b".into()).to_string(), "'a''b'");
    }

    #[test]
    fn display_alternate_reads_back() {
        for text in [
            "map<text, frozen<list<int>>>",
            "list<frozen<udt<ks.address>{street:text,\"Zip Code\":int}>>",
            "vector<frozen<list<text>>, 2>",
            "tuple<'com.example.T', duration, inet>",
            "udt<\"Ks\".\"list\">{\"int\":int,\"a\"\"b\":set<int>}",
        ] {
            let ty = parse(text);
            assert_eq!(parse(&format!("{ty:#}")), ty, "{text}");
        }
    }

    fn option_bytes(ty: &ColumnType) -> Vec<u8> {
        let mut buf = Vec::new();
        ty.write(&mut Writer::new(&mut buf)).unwrap();
        buf
    }

    #[test]
    fn reads_options() {
        // map<text, list<int>>
        let bytes = [0x00, 0x21, 0x00, 0x0D, 0x00, 0x20, 0x00, 0x09];
        let mut r = Reader::new(&bytes);
        assert_eq!(ColumnType::read(&mut r).unwrap(), parse("map<text, list<int>>"));
        assert!(r.is_empty());
        // A UDT ks.a { x int }.
        let bytes = [0x00, 0x30, 0, 2, b'k', b's', 0, 1, b'a', 0, 1, 0, 1, b'x', 0, 9];
        assert_eq!(ColumnType::read(&mut Reader::new(&bytes)).unwrap(), parse("udt<ks.a>{x:int}"));
        // Custom vector class.
        let class = b"org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType, 3)";
        let mut bytes = vec![0, 0, 0, class.len() as u8];
        bytes.extend_from_slice(class);
        assert_eq!(ColumnType::read(&mut Reader::new(&bytes)).unwrap(), parse("vector<float, 3>"));
        // An unknown custom class passes through.
        let mut bytes = vec![0, 0, 0, 7];
        bytes.extend_from_slice(b"a.b.Foo");
        assert_eq!(ColumnType::read(&mut Reader::new(&bytes)).unwrap(), ColumnType::Custom("a.b.Foo".into()));
    }

    #[test]
    fn rejects_bad_options() {
        let err = ColumnType::read(&mut Reader::new(&[0x00, 0x0A])).unwrap_err();
        assert_eq!(err.field, "type option id");
        assert_eq!(
            ColumnType::read(&mut Reader::new(&[0x00, 0x20])).unwrap_err(),
            ProtocolError::remote("type option id", 2, "needs 2 bytes, 0 left")
        );
        assert_eq!(
            ColumnType::read(&mut Reader::new(&[0x00])).unwrap_err(),
            ProtocolError::remote("type option id", 0, "needs 2 bytes, 1 left")
        );
        // A tuple claiming 65535 components with none present.
        assert_eq!(
            ColumnType::read(&mut Reader::new(&[0x00, 0x31, 0xff, 0xff])).unwrap_err(),
            ProtocolError::remote("type option id", 4, "needs 2 bytes, 0 left")
        );
        // 40 nested lists.
        let mut deep = Vec::new();
        for _ in 0..40 {
            deep.extend_from_slice(&[0x00, 0x20]);
        }
        deep.extend_from_slice(&[0x00, 0x09]);
        let err = ColumnType::read(&mut Reader::new(&deep)).unwrap_err();
        assert!(err.reason.contains("nested deeper"), "{err}");
        // A malformed vector class is an error rather than an opaque custom type.
        let class = b"org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType)";
        let mut bytes = vec![0, 0, 0, class.len() as u8];
        bytes.extend_from_slice(class);
        let err = ColumnType::read(&mut Reader::new(&bytes)).unwrap_err();
        assert_eq!(err.field, "custom type class");
    }

    #[test]
    fn options_round_trip() {
        let composites = [
            "map<text, frozen<list<int>>>",
            "set<tuple<int, 'x.Y'>>",
            "udt<ks.address>{street:text,\"Zip Code\":int}",
            "vector<float, 3>",
            "vector<frozen<map<text, frozen<udt<ks.address>{street:text,\"Zip Code\":int}>>>, 2>",
            "vector<vector<'a.B', 2>, 4>",
        ];
        for text in ColumnType::native_names().chain(composites) {
            let ty = parse(text);
            let bytes = option_bytes(&ty);
            let mut r = Reader::new(&bytes);
            assert_eq!(ColumnType::read(&mut r).unwrap(), ty, "{text}");
            assert!(r.is_empty());
            assert_eq!(ColumnType::parse_marshal_class(&ty.marshal_class()).unwrap(), ty, "{text}");
        }
    }

    #[test]
    fn parses_marshal_classes() {
        let parsed = ColumnType::parse_marshal_class(
            "org.apache.cassandra.db.marshal.MapType(org.apache.cassandra.db.marshal.UTF8Type,\
             org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.ListType(\
             org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.Int32Type))))",
        )
        .unwrap();
        assert_eq!(parsed, parse("map<text, frozen<list<int>>>"));
        assert_eq!(ColumnType::parse_marshal_class("DateType").unwrap(), ColumnType::Timestamp);
        assert_eq!(
            ColumnType::parse_marshal_class("VectorType(com.x.Geo(a=>b,(c)), 2)").unwrap(),
            ColumnType::Vector(Box::new(ColumnType::Custom("com.x.Geo(a=>b,(c))".into())), 2)
        );
        assert_eq!(
            ColumnType::parse_marshal_class("UserType(ks,61,78:Int32Type,79:UTF8Type)").unwrap(),
            parse("udt<ks.a>{x:int,y:text}")
        );
        for (bad, offset, reason) in [
            ("", 0, "expected a class name"),
            ("Int32Type(x)", 0, "Int32Type takes no parameters"),
            ("ListType(Int32Type", 18, "expected ')'"),
            ("UserType(ks,zz)", 12, "UDT name is not hex-encoded UTF-8"),
            ("VectorType(FloatType, -1)", 22, "vector dimension must be an integer from 1 to 2147483647, got '-1'"),
            ("Foo((", 3, "unbalanced '('"),
            ("ListType(Int32Type) x", 20, "unexpected text after the class name"),
        ] {
            assert_eq!(
                ColumnType::parse_marshal_class(bad).unwrap_err(),
                TypeParseError { offset, reason: reason.into() },
                "{bad:?} parsed"
            );
        }
        let deep = "ListType(".repeat(40) + "Int32Type" + &")".repeat(40);
        assert_eq!(
            ColumnType::parse_marshal_class(&deep).unwrap_err(),
            TypeParseError { offset: 288, reason: "types nested deeper than 32 levels".into() }
        );
    }

    #[test]
    fn parse_errors_display_their_byte() {
        assert_eq!(syntax(7, "expected '>'").to_string(), "bad type at byte 7: expected '>'");
    }

    #[test]
    fn native_names_in_protocol_id_order() {
        assert_eq!(
            ColumnType::native_names().collect::<Vec<_>>().join(" "),
            "ascii bigint blob boolean counter decimal double float int timestamp \
             uuid text varint timeuuid inet date time smallint tinyint duration"
        );
    }

    /// Every native type and one of each composite, by CQL text.
    fn every_kind() -> Vec<(String, ColumnType)> {
        let composites =
            ["list<int>", "set<int>", "map<int, int>", "tuple<int>", "udt<ks.a>{x:int}", "vector<int, 2>", "'a.B'"];
        ColumnType::native_names().chain(composites).map(|t| (t.to_owned(), parse(t))).collect()
    }

    #[test]
    fn fixed_lengths_in_vectors_as_cassandra_decides() {
        let fixed: Vec<(String, u64)> =
            every_kind().into_iter().filter_map(|(t, ty)| ty.vector_fixed_len().map(|n| (t, n))).collect();
        let expected = [
            ("bigint", 8),
            ("boolean", 1),
            ("counter", 8),
            ("double", 8),
            ("float", 4),
            ("int", 4),
            ("timestamp", 8),
            ("uuid", 16),
            ("timeuuid", 16),
            ("vector<int, 2>", 8),
        ];
        assert_eq!(fixed, expected.map(|(t, n)| (t.to_owned(), n)));
        assert_eq!(parse("vector<vector<uuid, 3>, 5>").vector_fixed_len(), Some(240));
        assert_eq!(parse("vector<text, 2>").vector_fixed_len(), None);
        assert_eq!(
            ColumnType::Vector(Box::new(ColumnType::Bigint), u32::MAX).vector_fixed_len(),
            Some(8 * u64::from(u32::MAX))
        );
    }

    #[test]
    fn which_types_allow_empty_values_and_which_are_containers() {
        let names = |keep: fn(&ColumnType) -> bool| -> Vec<String> {
            every_kind().into_iter().filter(|(_, ty)| keep(ty)).map(|(t, _)| t).collect()
        };
        assert_eq!(
            names(ColumnType::allows_empty).join(" "),
            "bigint boolean counter decimal double float int timestamp uuid varint timeuuid inet"
        );
        assert_eq!(
            names(ColumnType::is_container),
            ["list<int>", "set<int>", "map<int, int>", "tuple<int>", "udt<ks.a>{x:int}", "vector<int, 2>"]
        );
    }

    #[test]
    fn identifiers_are_quoted_unless_they_read_back_as_written() {
        let udt = ColumnType::Udt(Box::new(UdtType {
            keyspace: String::new(),
            name: "a1_b".into(),
            fields: ["plain_2", "int", "list", "1a", "a-b", "a\"b", "Up", ""]
                .iter()
                .map(|n| ((*n).to_owned(), ColumnType::Int))
                .collect(),
        }));
        assert_eq!(
            format!("{udt:#}"),
            "udt<a1_b>{plain_2:int,\"int\":int,\"list\":int,\"1a\":int,\"a-b\":int,\"a\"\"b\":int,\"Up\":int,\"\":int}"
        );
        assert_eq!(udt.to_string(), "a1_b");
        assert_eq!(ColumnType::Set(Box::new(udt)).to_string(), "set<frozen<a1_b>>");
    }

    #[test]
    fn marshal_class_names_are_exact() {
        assert_eq!(
            address().marshal_class(),
            "org.apache.cassandra.db.marshal.UserType(ks,61646472657373,737472656574:\
             org.apache.cassandra.db.marshal.UTF8Type,5a697020436f6465:org.apache.cassandra.db.marshal.Int32Type)"
        );
        assert_eq!(
            parse("map<int, tuple<text, 'a.B'>>").marshal_class(),
            "org.apache.cassandra.db.marshal.MapType(org.apache.cassandra.db.marshal.Int32Type,\
             org.apache.cassandra.db.marshal.TupleType(org.apache.cassandra.db.marshal.UTF8Type,a.B))"
        );
        assert_eq!(
            parse("vector<float, 3>").marshal_class(),
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType, 3)"
        );
        assert_eq!(
            ColumnType::parse_marshal_class(" MapType( Int32Type , UTF8Type ) ").unwrap(),
            parse("map<int, text>")
        );
        assert_eq!(
            ColumnType::parse_marshal_class("UserType(ks, 61 , 78 : Int32Type , 79:TupleType(Int32Type , UTF8Type))"),
            Ok(parse("udt<ks.a>{x:int,y:tuple<int,text>}"))
        );
        assert_eq!(
            ColumnType::parse_marshal_class("UserType(ks,61,7:Int32Type)"),
            Err(syntax(15, "UDT field name is not hex-encoded UTF-8"))
        );
        assert_eq!(
            ColumnType::parse_marshal_class("UserType(ks,6)"),
            Err(syntax(12, "UDT name is not hex-encoded UTF-8"))
        );
        assert_eq!(
            ColumnType::parse_marshal_class("UserType(ks,ff)"),
            Err(syntax(12, "UDT name is not hex-encoded UTF-8"))
        );
        assert_eq!(ColumnType::parse_marshal_class("UserType(ks,61,78 Int32Type)"), Err(syntax(18, "expected ':'")));
    }

    #[test]
    fn names_longer_than_a_string_are_refused_when_written() {
        let longest = "x".repeat(65535);
        let bytes = option_bytes(&ColumnType::Custom(longest.clone()));
        assert_eq!(bytes[..4], [0, 0, 0xff, 0xff]);
        assert_eq!(bytes.len(), 4 + 65535);
        let mut buf = Vec::new();
        let too_long = ColumnType::List(Box::new(ColumnType::Custom(longest + "x")));
        assert_eq!(
            too_long.write(&mut Writer::new(&mut buf)),
            Err(ProtocolError::local("custom type class", 4, "longer than 65535 bytes"))
        );
    }

    /// `levels` copies of `open` and `close` around `inner`.
    fn nest(open: &str, inner: &str, close: &str, levels: usize) -> String {
        open.repeat(levels) + inner + &close.repeat(levels)
    }

    #[test]
    fn every_nesting_cql_type_and_marshal_class_counts_a_level() {
        let reason = format!("types nested deeper than {MAX_TYPE_DEPTH} levels");
        // Each wrapper in CQL text and as a marshal class; `first`: where in `open` the first
        // nested type starts, the one found too deep.
        for ((open, first, close), (class_open, class_first, class_close)) in [
            (("list<", 5, ">"), ("ListType(", 9, ")")),
            (("set<", 4, ">"), ("SetType(", 8, ")")),
            (("map<", 4, ", int>"), ("MapType(", 8, ",Int32Type)")),
            (("map<int, ", 4, ">"), ("MapType(Int32Type,", 8, ")")),
            (("tuple<int, ", 6, ">"), ("TupleType(Int32Type,", 10, ")")),
            (("vector<", 7, ", 2>"), ("VectorType(", 11, ",2)")),
            (("udt<ks.u>{f:", 12, "}"), ("UserType(ks,75,66:", 18, ")")),
        ] {
            let levels = MAX_TYPE_DEPTH - 1;
            let ok = ColumnType::parse_cql(&nest(open, "int", close, levels)).unwrap();
            assert_eq!(ColumnType::parse_marshal_class(&nest(class_open, "Int32Type", class_close, levels)), Ok(ok));
            let deep = nest(open, "int", close, MAX_TYPE_DEPTH);
            let at = open.len() * levels + first;
            assert_eq!(ColumnType::parse_cql(&deep), Err(syntax(at, reason.clone())), "{open}");
            let deep = nest(class_open, "Int32Type", class_close, MAX_TYPE_DEPTH);
            let at = class_open.len() * levels + class_first;
            assert_eq!(ColumnType::parse_marshal_class(&deep), Err(syntax(at, reason.clone())), "{class_open}");
        }
    }

    #[test]
    fn every_nesting_option_counts_a_level() {
        let reason = format!("types nested deeper than {MAX_TYPE_DEPTH} levels");
        let udt: &[u8] = &[0, 0x30, 0, 2, b'k', b's', 0, 1, b'u', 0, 1, 0, 1, b'f'];
        for (open, first, close) in [
            (&[0, 0x20][..], 2, &[][..]),
            (&[0, 0x22], 2, &[]),
            (&[0, 0x21], 2, &[0, 0x09]),
            (&[0, 0x21, 0, 0x09], 2, &[]),
            (&[0, 0x31, 0, 2, 0, 0x09], 4, &[]),
            (udt, udt.len(), &[]),
        ] {
            let nest = |levels: usize| [open.repeat(levels), vec![0, 0x09], close.repeat(levels)].concat();
            let ok = nest(MAX_TYPE_DEPTH - 1);
            let mut r = Reader::new(&ok);
            let ty = ColumnType::read(&mut r).unwrap();
            assert!(r.is_empty());
            assert_eq!(option_bytes(&ty), ok, "{open:?}");
            assert_eq!(
                ColumnType::read(&mut Reader::new(&nest(MAX_TYPE_DEPTH))),
                Err(ProtocolError::remote("type option", open.len() * (MAX_TYPE_DEPTH - 1) + first, reason.clone())),
                "{open:?}"
            );
        }
    }

    /// A custom `[option]` holding `class`, inside a list.
    fn listed_custom(class: &str) -> Vec<u8> {
        [&[0, 0x20, 0, 0][..], &(class.len() as u16).to_be_bytes(), class.as_bytes()].concat()
    }

    #[test]
    fn custom_option_classes() {
        let read = |class: &str| ColumnType::read(&mut Reader::new(&listed_custom(class)));
        let list = |ty: ColumnType| Ok(ColumnType::List(Box::new(ty)));
        assert_eq!(read("org.apache.cassandra.db.marshal.DurationType"), list(ColumnType::Duration));
        assert_eq!(read("ListType(Int32Type)"), list(parse("list<int>")));
        // What does not parse as a whole passes through as an opaque class.
        assert_eq!(read("Foo(("), list(ColumnType::Custom("Foo((".into())));
        assert_eq!(read("a.b.Foo x"), list(ColumnType::Custom("a.b.Foo x".into())));
        assert_eq!(read("VectorType(FloatType,3)"), list(parse("vector<float, 3>")));
        // Offsets count from the start of the whole option: the class starts at byte 6.
        assert_eq!(
            read("VectorType(FloatType)"),
            Err(ProtocolError::remote("custom type class", 6 + 20, "expected ','"))
        );
        assert_eq!(
            read("VectorType(FloatType,3) x"),
            Err(ProtocolError::remote("custom type class", 6 + 24, "unexpected text after the class name"))
        );
        assert_eq!(read(" "), Err(ProtocolError::remote("custom type class", 6 + 1, "expected a class name")));
    }

    #[test]
    fn quoted_names_and_keyspaces_are_udts() {
        let mut seen = Vec::new();
        let ty = ColumnType::parse_cql_with_udts("tuple<\"int\", ks.int, my_udt, Ks . \"X\">", &mut |ks, name| {
            seen.push((ks.map(str::to_owned), name.to_owned()));
            Some(ColumnType::Custom(name.to_owned()))
        });
        let custom = |n: &str| ColumnType::Custom(n.into());
        assert_eq!(ty, Ok(ColumnType::Tuple(vec![custom("int"), custom("int"), custom("my_udt"), custom("X")])));
        let ks = |k: Option<&str>, n: &str| (k.map(str::to_owned), n.to_owned());
        assert_eq!(seen, [ks(None, "int"), ks(Some("ks"), "int"), ks(None, "my_udt"), ks(Some("ks"), "X")]);
        assert_eq!(
            parse("udt<ks.e>{}"),
            ColumnType::Udt(Box::new(UdtType { keyspace: "ks".into(), name: "e".into(), fields: vec![] }))
        );
        assert_eq!(ColumnType::parse_cql("foo<int>"), Err(syntax(0, "unknown parameterised type 'foo'")));
    }
}
