/** `Host` and `client.hosts` as the DataStax driver shapes them, fed by the core's node view. */
import { Uuid } from "../src/values/uuid.ts";

type Listener = (...args: unknown[]) => void;

export class Host {
  readonly address: string;
  datacenter = "";
  rack = "";
  cassandraVersion = "";
  tokens: string[] = [];
  /** The node's host_id (system.local / system.peers), as DataStax gives it. */
  hostId: Uuid | null = null;
  /** DataStax Enterprise's version and workloads: none on Apache Cassandra (DataStax: null, []). */
  dseVersion: string | null = null;
  workloads: string[] = [];
  private up = true;
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(address: string, node: Record<string, unknown>) {
    this.address = address;
    this.update(node);
  }

  update(node: Record<string, unknown>): void {
    this.datacenter = String(node.datacenter ?? this.datacenter);
    this.rack = String(node.rack ?? this.rack);
    this.cassandraVersion = String(node.releaseVersion ?? this.cassandraVersion);
    if (typeof node.up === "boolean") this.up = node.up;
    if (typeof node.hostId === "string") this.hostId = Uuid.fromString(node.hostId);
  }

  setUp(up: boolean): void {
    if (this.up === up) return;
    this.up = up;
    for (const fn of this.listeners.get(up ? "up" : "down") ?? []) fn();
  }

  isUp(): boolean {
    return this.up;
  }

  canBeConsideredAsUp(): boolean {
    return this.up;
  }

  getCassandraVersion(): number[] {
    return this.cassandraVersion.split("-")[0].split(".").filter((p) => p !== "").map(Number);
  }

  on(event: "up" | "down", fn: Listener): this {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn);
    return this;
  }

  toString(): string {
    return this.address;
  }
}

/** Hosts by address. */
export class HostMap {
  private readonly map = new Map<string, Host>();

  get length(): number {
    return this.map.size;
  }

  get(address: string): Host | undefined {
    return this.map.get(address);
  }

  set(address: string, host: Host): void {
    this.map.set(address, host);
  }

  delete(address: string): void {
    this.map.delete(address);
  }

  keys(): string[] {
    return [...this.map.keys()];
  }

  values(): Host[] {
    return [...this.map.values()];
  }

  forEach(callback: (host: Host, address: string) => void): void {
    this.map.forEach((h, a) => callback(h, a));
  }
}
