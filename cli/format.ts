// The cqlsh-like table layout of text cells. The cells' text comes from the core's
// formatter (`client.streamCells`) or, for the CLI's own reports, from the command; nothing
// here formats a CQL value.

const WIDE =
  /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]|[\u{1F300}-\u{1F64F}\u{1F900}-\u{1F9FF}\u{20000}-\u{3FFFD}]/u;
const ZERO_WIDTH = /[\p{Mn}\p{Me}\u200B-\u200F\uFE0F]/u;

/** Terminal column count of a string: wide East Asian characters take two, marks none. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    if (ZERO_WIDTH.test(char)) continue;
    width += WIDE.test(char) ? 2 : 1;
  }
  return width;
}

/**
 * Control characters would break the table's alignment, so they are shown escaped; a backslash
 * is doubled, as cqlsh does, so that `a\\nb` (a backslash and an n) and `a\nb` (a line break)
 * stay two different cells.
 */
export function escapeForTable(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/[\x00-\x1f\x7f\\]/g, (char) => {
    switch (char) {
      case "\\":
        return "\\\\";
      case "\n":
        return "\\n";
      case "\r":
        return "\\r";
      case "\t":
        return "\\t";
      default:
        return `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`;
    }
  });
}

function padEnd(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - displayWidth(text)));
}

function padStart(text: string, width: number): string {
  return " ".repeat(Math.max(0, width - displayWidth(text))) + text;
}

/** A table cell: its text, or null (shown as `null`). */
export type Cell = string | number | bigint | null;

/** cqlsh layout: headers left-aligned, values right-aligned, and a `(N rows)` footer. */
export function formatTable(columns: string[], rows: Cell[][]): string {
  const header = columns.map(escapeForTable);
  const cells = rows.map((row) => columns.map((_, i) => escapeForTable(row[i] === null || row[i] === undefined ? "null" : String(row[i]))));
  const widths = header.map((name, i) => Math.max(displayWidth(name), ...cells.map((line) => displayWidth(line[i]))));
  const lines = [
    " " + header.map((name, i) => padEnd(name, widths[i])).join(" | "),
    widths.map((width) => "-".repeat(width + 2)).join("+"),
    ...cells.map((line) => " " + line.map((cell, i) => padStart(cell, widths[i])).join(" | ")),
  ];
  return `${lines.map((line) => line.trimEnd()).join("\n")}\n\n(${rows.length} rows)\n`;
}
