/** A client on fresh fake nodes for the wire tests, torn down after each test. */
import { FakeNode, type FakeNodeOptions, startCluster, stopAll } from "../fakenode/mod.ts";
import { Client } from "../../dist/deno.js";

// deno-lint-ignore no-explicit-any
export type AnyClient = any;

export async function withNode(
  options: { protocolVersion?: 4 | 5; client?: Record<string, unknown>; node?: FakeNodeOptions },
  body: (node: FakeNode, client: AnyClient) => Promise<void>,
): Promise<void> {
  const node = await FakeNode.start(options.node);
  const client = new Client({
    contactPoints: [node.address],
    protocolVersion: options.protocolVersion ?? 5,
    pooling: { heartBeatInterval: 0 },
    ...options.client,
  });
  try {
    await body(node, client);
  } finally {
    await client.shutdown();
    await node.stop();
  }
}

export async function withCluster(
  size: number,
  clientOptions: Record<string, unknown>,
  body: (nodes: FakeNode[], client: AnyClient) => Promise<void>,
): Promise<void> {
  const nodes = await startCluster(size);
  const client = new Client({ contactPoints: nodes.map((n) => n.address), pooling: { heartBeatInterval: 0 }, ...clientOptions });
  try {
    await client.connect();
    await Promise.all(nodes.map((n) => ready(client, n.address)));
    await body(nodes, client);
  } finally {
    await client.shutdown();
    await stopAll(nodes);
  }
}

/** Waits (bounded) until the client has a ready connection to `address`. */
async function ready(client: AnyClient, address: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (client.getState().connections.some((c: { address: string; ready: boolean }) => c.address === address && c.ready)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no ready connection to ${address}`);
}
