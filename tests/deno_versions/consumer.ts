/**
 * One Deno's round trip through one side of the driver (run by old_deno_test.ts with that
 * Deno): `deno run consumer.ts <src|dist|URL of driver/deno.ts> <host:port> <keyspace> <id>`.
 * The entries are imported by literal specifiers, so they are in the module graph and loading
 * them takes no read permission: the permissions a run gets are the driver's own.
 * Prints "ok <Deno version>", or throws.
 */
const [side, host, keyspace, idText] = Deno.args;
const id = Number(idText);
const BLOB = Uint8Array.of(0x00, 0xff, 0x80, 0x7f, 0x01, 0xfe);
// Neither fits a double: a round trip through a number would change them.
const BIGINTS = [-9007199254740993n, 9223372036854775807n];

// deno-lint-ignore no-explicit-any
type Module = any;
async function entries(): Promise<{ native: Module; compat?: Module }> {
  if (side === "src") return { native: await import("../../driver/deno.ts"), compat: await import("../../driver/compat/deno.ts") };
  if (side === "dist") return { native: await import("../../dist/deno.js"), compat: await import("../../dist/compat-deno.js") };
  return { native: await import(side) }; // a remote driver/deno.ts: the fetch path on Deno < 2.6
}

function check(what: string, actual: unknown, expected: unknown) {
  if (actual !== expected) throw new Error(`${what}: got ${String(actual)}, expected ${String(expected)}`);
}

const table = `${keyspace}.round_trip`;
const { native, compat } = await entries();
const client = new native.Client({ contactPoints: [host], localDataCenter: "datacenter1" });
try {
  for (const [i, n] of BIGINTS.entries()) {
    await client.execute(`INSERT INTO ${table} (id, b, n) VALUES (?, ?, ?)`, [id + i, BLOB, n], { prepare: true });
    const row = (await client.execute(`SELECT b, n FROM ${table} WHERE id = ?`, [id + i], { prepare: true })).first();
    check("native bigint", row.n, n);
    check("native blob", row.b instanceof Uint8Array && [...row.b].join(","), BLOB.join(","));
  }
} finally {
  await client.shutdown();
}
if (compat) {
  const { Client, types } = compat;
  const c = new Client({ contactPoints: [host], localDataCenter: "datacenter1", keyspace });
  try {
    const n = types.Long.fromString(BIGINTS[0].toString());
    await c.execute("INSERT INTO round_trip (id, b, n) VALUES (?, ?, ?)", [id + 2, BLOB, n], { prepare: true });
    const row = (await c.execute("SELECT b, n FROM round_trip WHERE id = ?", [id + 2], { prepare: true })).first();
    check("compat Long", row.n instanceof types.Long && row.n.toString(), BIGINTS[0].toString());
    check("compat Buffer", typeof row.b?.equals === "function" && [...row.b].join(","), BLOB.join(","));
  } finally {
    await c.shutdown();
  }
}
console.log(`ok ${Deno.version.deno}`);
