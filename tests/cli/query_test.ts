import { MemoryOutput } from "../../cli/output.ts";
import { type QueryExecutor, type Row, runStatement } from "../../cli/query.ts";
import { assertEquals } from "./assert.ts";

/** Serves `total` rows in pages, recording the options of every request. */
function pagedExecutor(total: number, columns = [{ name: "k", type: "bigint" }]) {
  const calls: Array<Parameters<QueryExecutor["execute"]>[2]> = [];
  const executor: QueryExecutor = {
    execute(_query, _params, options) {
      calls.push(options);
      const pageSize = options?.pageSize ?? 5000;
      const start = options?.pageState ? Number(options.pageState) : 0;
      const end = Math.min(total, start + pageSize);
      const rows: Row[] = [];
      for (let k = start; k < end; k++) rows.push({ k: BigInt(k) * 10n ** 17n });
      return Promise.resolve({
        rows,
        columns,
        pageState: end < total ? String(end) : null,
        info: { warnings: start === 0 ? ["a warning"] : [], traceId: null },
      });
    },
  };
  return { executor, calls };
}

Deno.test("every page is fetched, in order, with the page state handed back", async () => {
  const { executor, calls } = pagedExecutor(23);
  const out = new MemoryOutput();
  const outcome = await runStatement(
    executor,
    "SELECT k FROM t",
    { format: "csv", pageSize: 5, trace: false },
    out,
    true,
  );
  assertEquals(outcome.rowCount, 23);
  assertEquals(outcome.warnings, ["a warning"]);
  assertEquals(calls.map((options) => options?.pageState), [undefined, "5", "10", "15", "20"]);
  const lines = out.text.trimEnd().split("\r\n");
  assertEquals(lines.length, 24);
  assertEquals(lines[23], "2200000000000000000");
});

Deno.test("--max-rows stops fetching once enough rows were printed", async () => {
  const { executor, calls } = pagedExecutor(100);
  const out = new MemoryOutput();
  const settings = { format: "json" as const, pageSize: 10, maxRows: 15, trace: false };
  const outcome = await runStatement(executor, "SELECT k FROM t", settings, out, true);
  assertEquals(outcome.rowCount, 15);
  assertEquals(calls.length, 2);
  const parsed = JSON.parse(out.text) as unknown[];
  assertEquals(parsed.length, 15);
});

Deno.test("statements without a result print nothing; empty results print an empty table or []", async () => {
  const none = pagedExecutor(0, []);
  const out = new MemoryOutput();
  const outcome = await runStatement(
    none.executor,
    "CREATE TABLE x (k int PRIMARY KEY)",
    {
      format: "table",
      pageSize: 10,
      trace: false,
    },
    out,
    true,
  );
  assertEquals([outcome.hadResult, out.text], [false, ""]);
  const empty = pagedExecutor(0);
  await runStatement(empty.executor, "SELECT k FROM t", { format: "json", pageSize: 10, trace: false }, out, true);
  assertEquals(out.text, "[]\n");
  const table = new MemoryOutput();
  await runStatement(empty.executor, "SELECT k FROM t", { format: "table", pageSize: 10, trace: false }, table, false);
  assertEquals(table.text, "\n k\n---\n\n(0 rows)\n");
});

Deno.test("tracing is requested on the first page only, the consistency on every page", async () => {
  const { executor, calls } = pagedExecutor(3);
  await runStatement(
    executor,
    "SELECT k FROM t",
    { format: "csv", pageSize: 2, consistency: 6, trace: true },
    new MemoryOutput(),
    true,
  );
  assertEquals(calls.map((options) => [options?.traceQuery, options?.consistency]), [[true, 6], [undefined, 6]]);
});
