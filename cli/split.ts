// Splits CQL script text into statements on ';', ignoring semicolons inside 'strings',
// "identifiers", -- and // line comments, /* block comments */ and $$ function bodies $$.
// BEGIN BATCH ... APPLY BATCH stays one statement even though its members end with ';'.

const BATCH_START = /^BEGIN\s+((UNLOGGED|LOGGED|COUNTER)\s+)?BATCH\b/i;
const BATCH_END = /\bAPPLY\s+BATCH$/i;

interface Segment {
  text: string;
  /** The text with comments removed, used to recognise empty and batch statements. */
  code: string;
}

function splitSegments(script: string): Segment[] {
  const segments: Segment[] = [];
  let start = 0;
  let code = "";
  let i = 0;
  const length = script.length;
  const push = (end: number) => {
    segments.push({ text: script.slice(start, end).trim(), code: code.trim() });
    code = "";
  };
  while (i < length) {
    const char = script[i];
    const next = script[i + 1];
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
    } else if ((char === "-" && next === "-") || (char === "/" && next === "/")) {
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

export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let batch: string[] | null = null;
  for (const segment of splitSegments(script)) {
    if (batch === null && BATCH_START.test(segment.code) && !BATCH_END.test(segment.code)) {
      batch = [segment.text];
      continue;
    }
    if (batch !== null) {
      batch.push(segment.text);
      if (BATCH_END.test(segment.code)) {
        statements.push(batch.join("; "));
        batch = null;
      }
      continue;
    }
    statements.push(segment.text);
  }
  // An unterminated batch is passed on as written; the server reports what is missing.
  if (batch !== null) statements.push(batch.join("; "));
  return statements;
}
