/** Several fake nodes that list each other in system.peers_v2, like one cluster. */
import { FakeNode, type FakeNodeOptions } from "./node.ts";

export async function startCluster(size: number, options: FakeNodeOptions = {}): Promise<FakeNode[]> {
  const nodes: FakeNode[] = [];
  for (let i = 0; i < size; i++) nodes.push(await FakeNode.start(options));
  for (const n of nodes) n.peers = nodes.filter((p) => p !== n).map((p) => p.identity);
  return nodes;
}

export async function stopAll(nodes: FakeNode[]): Promise<void> {
  await Promise.all(nodes.map((n) => n.stop()));
}
