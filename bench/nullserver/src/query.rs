//! Just enough CQL parsing to answer drivers: the column list and table of a SELECT, the
//! columns an INSERT or a WHERE clause binds to `?`, and the keyspace of USE.

#[derive(Debug, PartialEq)]
pub enum Statement {
    Use {
        keyspace: String,
    },
    Select {
        table: String,
        columns: Vec<String>,
        binds: Vec<Bind>,
    },
    Insert {
        table: String,
        binds: Vec<Bind>,
    },
    /// Anything else (DDL, UPDATE, DELETE, ...): acknowledged with Void.
    Other,
}

#[derive(Debug, PartialEq)]
pub struct Bind {
    pub column: String,
    /// `column IN ?` binds a list of the column's type.
    pub is_list: bool,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// An identifier or keyword (lowercased unless it was quoted), a number, or `ks.table`.
    Word(String),
    Literal,
    Marker,
    Punct(char),
}

/// A statement with an `IF` clause (a lightweight transaction), by its words alone: string
/// literals and quoted names never count.
pub fn is_conditional(text: &str) -> bool {
    tokenize(text).is_ok_and(|tokens| tokens.iter().any(|t| matches!(t, Token::Word(w) if w == "if")))
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '_' | '.' | '-')) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            tokens.push(Token::Word(word.to_ascii_lowercase()));
        } else if c == '"' {
            let end = chars[i + 1..].iter().position(|&ch| ch == '"').ok_or("unterminated quoted identifier")?;
            tokens.push(Token::Word(chars[i + 1..i + 1 + end].iter().collect()));
            i += end + 2;
        } else if c == '\'' {
            i += 1;
            loop {
                match chars.get(i) {
                    None => return Err("unterminated string literal".into()),
                    Some('\'') if chars.get(i + 1) == Some(&'\'') => i += 2,
                    Some('\'') => break,
                    Some(_) => i += 1,
                }
            }
            i += 1;
            tokens.push(Token::Literal);
        } else if c == '?' {
            tokens.push(Token::Marker);
            i += 1;
        } else if c == ':' && chars.get(i + 1).is_some_and(|ch| ch.is_ascii_alphabetic()) {
            i += 1;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token::Marker);
        } else {
            tokens.push(Token::Punct(c));
            i += 1;
        }
    }
    Ok(join_qualified_names(tokens))
}

/// `"ks"."tbl"`, `"ks".tbl` and `ks."tbl"` tokenize as two words, one side holding the dot:
/// joined into the one `ks.tbl` word an unquoted name gives.
fn join_qualified_names(tokens: Vec<Token>) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    for token in tokens {
        match (out.last_mut(), token) {
            (Some(Token::Word(left)), Token::Word(right)) if left.ends_with('.') || right.starts_with('.') => left.push_str(&right),
            (_, token) => out.push(token),
        }
    }
    out
}

struct Cursor {
    tokens: Vec<Token>,
    at: usize,
}

impl Cursor {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }
    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }
    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Token::Word(x)) if x == w)
    }
    fn word(&mut self, what: &str) -> Result<String, String> {
        match self.next() {
            Some(Token::Word(w)) => Ok(w),
            other => Err(format!("expected {what}, found {other:?}")),
        }
    }
    fn expect_word(&mut self, w: &str) -> Result<(), String> {
        match self.next() {
            Some(Token::Word(x)) if x == w => Ok(()),
            other => Err(format!("expected {}, found {other:?}", w.to_uppercase())),
        }
    }
    fn expect_punct(&mut self, p: char) -> Result<(), String> {
        match self.next() {
            Some(Token::Punct(x)) if x == p => Ok(()),
            other => Err(format!("expected '{p}', found {other:?}")),
        }
    }
}

pub fn parse(text: &str) -> Result<Statement, String> {
    let mut c = Cursor { tokens: tokenize(text)?, at: 0 };
    match c.peek() {
        Some(Token::Word(w)) if w == "select" => parse_select(&mut c),
        Some(Token::Word(w)) if w == "insert" => parse_insert(&mut c),
        Some(Token::Word(w)) if w == "use" => {
            c.next();
            Ok(Statement::Use { keyspace: c.word("a keyspace name")? })
        }
        _ => Ok(Statement::Other),
    }
}

fn parse_select(c: &mut Cursor) -> Result<Statement, String> {
    c.expect_word("select")?;
    if c.is_word("distinct") || c.is_word("json") {
        c.next();
    }
    let mut columns = Vec::new();
    loop {
        match c.next() {
            Some(Token::Punct('*')) => columns.push("*".to_owned()),
            Some(Token::Word(w)) if w == "from" && !columns.is_empty() => break,
            Some(Token::Word(w)) => {
                if matches!(c.peek(), Some(Token::Punct('('))) {
                    return Err(format!("the null server does not evaluate functions such as {w}(...)"));
                }
                columns.push(w);
                if c.is_word("as") {
                    c.next();
                    c.next();
                }
            }
            other => return Err(format!("unexpected {other:?} in the select list")),
        }
        match c.peek() {
            Some(Token::Punct(',')) => {
                c.next();
            }
            Some(Token::Word(w)) if w == "from" => {}
            other => return Err(format!("expected ',' or FROM, found {other:?}")),
        }
    }
    let table = c.word("a table name")?;
    let mut binds = Vec::new();
    if c.is_word("where") {
        c.next();
        loop {
            let column = c.word("a column name")?;
            let is_list = match c.next() {
                Some(Token::Word(w)) if w == "in" => true,
                Some(Token::Punct('=' | '<' | '>')) => {
                    if matches!(c.peek(), Some(Token::Punct('='))) {
                        c.next();
                    }
                    false
                }
                other => return Err(format!("unsupported relation {other:?} on {column}")),
            };
            match c.next() {
                Some(Token::Marker) => binds.push(Bind { column, is_list }),
                Some(Token::Punct('(')) => while !matches!(c.next(), Some(Token::Punct(')')) | None) {},
                Some(_) => {}
                None => return Err(format!("missing value for {column}")),
            }
            if c.is_word("and") {
                c.next();
            } else {
                break;
            }
        }
    }
    Ok(Statement::Select { table, columns, binds })
}

fn parse_insert(c: &mut Cursor) -> Result<Statement, String> {
    c.expect_word("insert")?;
    c.expect_word("into")?;
    let table = c.word("a table name")?;
    c.expect_punct('(')?;
    let mut columns = Vec::new();
    loop {
        columns.push(c.word("a column name")?);
        match c.next() {
            Some(Token::Punct(',')) => {}
            Some(Token::Punct(')')) => break,
            other => return Err(format!("expected ',' or ')' in the column list, found {other:?}")),
        }
    }
    c.expect_word("values")?;
    c.expect_punct('(')?;
    let mut binds = Vec::new();
    for (i, column) in columns.into_iter().enumerate() {
        if i > 0 {
            c.expect_punct(',')?;
        }
        match c.next() {
            Some(Token::Marker) => binds.push(Bind { column, is_list: false }),
            Some(Token::Word(_) | Token::Literal) => {}
            other => return Err(format!("unsupported value {other:?} for {column}")),
        }
    }
    c.expect_punct(')')?;
    Ok(Statement::Insert { table, binds })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bind(column: &str, is_list: bool) -> Bind {
        Bind { column: column.into(), is_list }
    }

    #[test]
    fn select_columns_table_and_binds() {
        assert_eq!(
            parse("SELECT k, v FROM bench.kv WHERE k = ?").unwrap(),
            Statement::Select {
                table: "bench.kv".into(),
                columns: vec!["k".into(), "v".into()],
                binds: vec![bind("k", false)]
            }
        );
        assert_eq!(
            parse("SELECT * FROM system.local WHERE key='local'").unwrap(),
            Statement::Select { table: "system.local".into(), columns: vec!["*".into()], binds: vec![] }
        );
        assert_eq!(
            parse("SELECT keyspace_name, replication FROM system_schema.keyspaces WHERE keyspace_name IN ?").unwrap(),
            Statement::Select {
                table: "system_schema.keyspaces".into(),
                columns: vec!["keyspace_name".into(), "replication".into()],
                binds: vec![bind("keyspace_name", true)],
            }
        );
    }

    #[test]
    fn insert_binds_follow_the_markers() {
        assert_eq!(
            parse("INSERT INTO bench.kv (k, v) VALUES (?, ?)").unwrap(),
            Statement::Insert { table: "bench.kv".into(), binds: vec![bind("k", false), bind("v", false)] }
        );
        assert_eq!(
            parse("INSERT INTO \"bench\".\"kv\" (\"k\", v) VALUES (?, ?)").unwrap(),
            Statement::Insert { table: "bench.kv".into(), binds: vec![bind("k", false), bind("v", false)] }
        );
        assert_eq!(parse("SELECT v FROM \"bench\".kv").unwrap(), parse("select v from bench.\"kv\"").unwrap());
        assert_eq!(
            parse("insert into kv (k, v) values (1, :v)").unwrap(),
            Statement::Insert { table: "kv".into(), binds: vec![bind("v", false)] }
        );
    }

    #[test]
    fn use_and_others() {
        assert_eq!(parse("USE \"Bench\"").unwrap(), Statement::Use { keyspace: "Bench".into() });
        assert_eq!(parse("CREATE TABLE x (a int PRIMARY KEY)").unwrap(), Statement::Other);
        assert!(parse("SELECT count(*) FROM bench.kv").is_err());
        assert!(parse("SELECT 'unterminated FROM x").is_err());
    }
}
