// Splits CQL script text into statements on ';', ignoring semicolons inside 'strings',
// "identifiers", -- and // line comments, /* block comments */ and $$ function bodies $$.
// BEGIN BATCH ... APPLY BATCH stays one statement even though its members end with ';'.

const BATCH_START = /^BEGIN\s+((UNLOGGED|LOGGED|COUNTER)\s+)?BATCH\b/i;
const BATCH_END = /\bAPPLY\s+BATCH$/i;

interface Segment {
  text: string;
  /** The text with comments removed, used to recognise empty and batch statements. */
  code: string;
  /** Offset in the script of the first character of code (comments before it are skipped). */
  codeStart: number;
}

/** A statement with where it starts, so that an error can name its line. */
export interface ScriptStatement {
  text: string;
  /** 1-based line of the statement's first character of code. */
  line: number;
  /** The statement without comments, whitespace collapsed: for quoting it in a message. */
  code: string;
}

/** `--` and `//` open a line comment, `/*` a block comment. */
function startsComment(char: string, next: string | undefined): boolean {
  return (char === "-" && next === "-") || (char === "/" && (next === "/" || next === "*"));
}

function splitSegments(script: string): Segment[] {
  const segments: Segment[] = [];
  let start = 0;
  let code = "";
  let codeStart = -1;
  let i = 0;
  const length = script.length;
  const push = (end: number) => {
    segments.push({ text: script.slice(start, end).trim(), code: code.trim(), codeStart });
    code = "";
    codeStart = -1;
  };
  while (i < length) {
    const char = script[i];
    const next = script[i + 1];
    if (codeStart < 0 && !/\s/.test(char) && !startsComment(char, next)) codeStart = i;
    if (char === "'" || char === '"') {
      // Quotes are escaped by doubling, which this loop handles as two adjacent strings.
      const close = script.indexOf(char, i + 1);
      const end = close < 0 ? length : close + 1;
      code += script.slice(i, end);
      i = end;
    } else if (char === "$" && next === "$") {
      const close = script.indexOf("$$", i + 2);
      const end = close < 0 ? length : close + 2;
      code += script.slice(i, end);
      i = end;
    } else if (startsComment(char, next) && next !== "*") {
      const newline = script.indexOf("\n", i);
      i = newline < 0 ? length : newline;
      code += " ";
    } else if (char === "/" && next === "*") {
      const close = script.indexOf("*/", i + 2);
      i = close < 0 ? length : close + 2;
      code += " ";
    } else if (char === ";") {
      push(i);
      i++;
      start = i;
    } else {
      code += char;
      i++;
    }
  }
  push(length);
  return segments.filter((segment) => segment.code !== "");
}

/** The statements of a script, each with its line; the one CQL statement splitter. */
export function splitScript(script: string): ScriptStatement[] {
  const statements: ScriptStatement[] = [];
  const lineOf = lineCounter(script);
  const statementOf = (parts: Segment[]): ScriptStatement => ({
    text: parts.map((part) => part.text).join("; "),
    line: lineOf(parts[0].codeStart),
    code: parts.map((part) => part.code).join("; ").replace(/\s+/g, " "),
  });
  let batch: Segment[] | null = null;
  for (const segment of splitSegments(script)) {
    if (batch === null && BATCH_START.test(segment.code) && !BATCH_END.test(segment.code)) {
      batch = [segment];
      continue;
    }
    if (batch !== null) {
      batch.push(segment);
      if (BATCH_END.test(segment.code)) {
        statements.push(statementOf(batch));
        batch = null;
      }
      continue;
    }
    statements.push(statementOf([segment]));
  }
  // An unterminated batch is passed on as written; the server reports what is missing.
  if (batch !== null) statements.push(statementOf(batch));
  return statements;
}

export function splitStatements(script: string): string[] {
  return splitScript(script).map((statement) => statement.text);
}

/** Line numbers of offsets asked in increasing order, counting newlines once. */
function lineCounter(script: string): (offset: number) => number {
  let line = 1;
  let scanned = 0;
  return (offset) => {
    for (; scanned < offset; scanned++) if (script.charCodeAt(scanned) === 10) line++;
    return line;
  };
}
