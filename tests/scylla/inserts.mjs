// The client side of the Scylla-personality scenarios, without the server: a runtime that
// cannot start processes (a Worker inside workerd) runs it against a server its runner
// started (tests/workerd/run.mjs), the others through scenarios.mjs.

export const INSERT = "INSERT INTO bench.kv (k, v) VALUES (?, ?)";
const VALUE = new Uint8Array(16).fill(7);

/** Connects a client to `address` (`host:port`), runs `fn(client)`, and always shuts it down. */
export async function withClient(Client, address, fn) {
  const client = new Client({ contactPoints: [address], localDataCenter: "datacenter1", protocolVersion: 4 });
  const logs = [];
  client.on("log", (_level, message) => logs.push(String(message)));
  await client.connect();
  try {
    return { result: await fn(client), logs };
  } finally {
    await client.shutdown();
  }
}

/** `count` prepared inserts into bench.kv (keys 0..count-1), `concurrency` at a time; gives the client's log lines. */
export async function insertAll(Client, address, { count = 10000, concurrency = 16 } = {}) {
  const { logs } = await withClient(Client, address, async (client) => {
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const k = next++;
        await client.execute(INSERT, [BigInt(k), VALUE], { prepare: true });
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  });
  return logs;
}
