import { displayWidth, formatTable } from "../../cli/format.ts";
import { assertEquals } from "./assert.ts";

// Values are formatted by the core (core/src/types/json_out.rs, text.rs and their tests; the
// CLI's query and unload tests read them back from the real server): the CLI only lays cells out.
Deno.test("the table is aligned like cqlsh, with wide characters, escaped newlines and null", () => {
  assertEquals(
    formatTable(["release_version"], [["5.0.2"]]),
    " release_version\n-----------------\n           5.0.2\n\n(1 rows)\n",
  );
  const table = formatTable(["k", "v"], [["1", "日本"], ["22", "a\nb"], [3n, null]]);
  assertEquals(table, " k  | v\n----+------\n  1 | 日本\n 22 | a\\nb\n  3 | null\n\n(3 rows)\n");
  assertEquals(formatTable(["k", "v"], []), " k | v\n---+---\n\n(0 rows)\n");
  // A backslash is doubled as cqlsh doubles it, so a typed `\n` and a line break differ (the
  // former code showed both as `\n`).
  assertEquals(formatTable(["v"], [["a\\nb"], ["a\nb"], ["\\"]]), " v\n-------\n a\\\\nb\n  a\\nb\n    \\\\\n\n(3 rows)\n");
  assertEquals(displayWidth("e\u0301"), 1);
  assertEquals(displayWidth("😀x"), 3);
});
