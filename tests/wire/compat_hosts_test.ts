/**
 * cqlwire/compat's `hostAdd` / `hostRemove` follow the core's refresh of the topology, as
 * DataStax's control connection emits them when its read of the peers finds the node set
 * changed: not the TOPOLOGY_CHANGE event, which comes before that (debounced) refresh. Three
 * fake nodes; the control node lists the third in system.peers_v2 only once it "joined".
 */
import { assertExact } from "../exact.mjs";
import { type FakeNode, startCluster, stopAll } from "../fakenode/mod.ts";
import { nodeEventBody } from "../fakenode/results.ts";
import * as cassandra from "../../dist/compat-deno.js";

// deno-lint-ignore no-explicit-any
type Any = any;

/** Resolves with the first `event` whose host has `address`; rejects after `ms`. */
function nextHostEvent(client: Any, event: string, address: string, ms = 5000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off(event, listener);
      reject(new Error(`no ${event} for ${address} within ${ms} ms`));
    }, ms);
    const listener = (host: Any) => {
      if (host.address !== address) return;
      clearTimeout(timer);
      client.off(event, listener);
      resolve();
    };
    client.on(event, listener);
  });
}

/** A compat client through `control`, refreshing 50 ms after a topology event. */
function compatClient(control: FakeNode): Any {
  return new cassandra.Client({
    contactPoints: [control.address],
    localDataCenter: "dc1",
    pooling: { heartBeatInterval: 0 },
    isMetadataSyncEnabled: false,
    refreshSchemaDelay: 50,
    cqlwire: { protocolVersion: 5 },
  });
}

async function untilRegistered(node: FakeNode): Promise<void> {
  for (let i = 0; i < 500 && !node.openConnections().some((c) => c.registered); i++) await new Promise((r) => setTimeout(r, 10));
}

Deno.test("compat: hostAdd after a NEW_NODE's refresh, hostRemove after a down node's REMOVED_NODE", async () => {
  const nodes = await startCluster(3);
  const [control, second, joining] = nodes;
  control.peers = [second.identity];
  const client = compatClient(control);
  const log: string[][] = [];
  try {
    await client.connect();
    await untilRegistered(control);
    assertExact([...client.hosts.keys()].sort(), [control.address, second.address].sort());
    for (const event of ["hostAdd", "hostRemove"]) client.on(event, (h: Any) => log.push([event, h.address]));

    control.peers = [second.identity, joining.identity];
    const added = nextHostEvent(client, "hostAdd", joining.address);
    control.pushEvent(nodeEventBody("TOPOLOGY_CHANGE", "NEW_NODE", joining.identity.ip, joining.identity.port));
    await added;
    assertExact(client.hosts.get(joining.address)?.address, joining.address);

    // The node goes down (its pool sees it close), then leaves: no hostDown comes for it again.
    const down = nextHostEvent(client, "hostDown", joining.address);
    await joining.stop();
    await down;
    control.peers = [second.identity];
    const removed = nextHostEvent(client, "hostRemove", joining.address);
    control.pushEvent(nodeEventBody("TOPOLOGY_CHANGE", "REMOVED_NODE", joining.identity.ip, joining.identity.port));
    await removed;
    assertExact(client.hosts.get(joining.address), undefined);
    assertExact([...client.hosts.keys()].sort(), [control.address, second.address].sort());
    assertExact(log, [["hostAdd", joining.address], ["hostRemove", joining.address]]);
  } finally {
    await client.shutdown();
    await stopAll([control, second]);
  }
});

Deno.test("compat: the hosts found by connecting are in client.hosts without hostAdd or hostUp, as DataStax's", async () => {
  const nodes = await startCluster(2);
  const [control, second] = nodes;
  control.peers = [second.identity];
  const client = compatClient(control);
  const log: string[][] = [];
  for (const event of ["hostAdd", "hostRemove", "hostUp", "hostDown"]) client.on(event, (h: Any) => log.push([event, h.address]));
  try {
    await client.connect();
    await untilRegistered(control);
    assertExact([...client.hosts.keys()].sort(), [control.address, second.address].sort());
    assertExact(client.hosts.get(control.address)?.isUp(), true);
    assertExact(log, []);
  } finally {
    await client.shutdown();
    await stopAll(nodes);
  }
});
