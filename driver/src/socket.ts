/**
 * The one small interface every transport implements. Adapters live only in
 * `driver/transport/`; users may pass their own factory as `ClientOptions.socketFactory`.
 */
export interface SocketHandlers {
  /** A chunk read from the socket; only valid during the call (it may be reused). */
  onData(chunk: Uint8Array): void;
  /** The socket closed, cleanly (`error` undefined) or not. Called at most once. */
  onClose(error?: Error): void;
}

export interface CqlSocket {
  /** Writes all of `data`. A returned promise resolves once the socket accepted it. */
  write(data: Uint8Array): void | Promise<void>;
  close(): void;
}

export interface TlsSettings {
  /** PEM of the CA(s) to trust instead of the system store. */
  ca?: string;
  /** Verification is on unless this is explicitly `false`. */
  rejectUnauthorized: boolean;
  serverName?: string;
  /** PEM of this client's certificate chain and its private key, for mutual TLS (both or neither). */
  cert?: string;
  key?: string;
}

/** On Scylla's shard-aware port, the local port's residue modulo `nrShards` picks the shard. */
export interface ShardPort {
  shard: number;
  nrShards: number;
}

export interface SocketTarget {
  host: string;
  port: number;
  tls?: TlsSettings;
  connectTimeoutMs: number;
  /** Bind a local port `p` with `p % nrShards === shard` (only runtimes with `canBindLocalPort`). */
  shard?: ShardPort;
}

export type SocketFactory = (target: SocketTarget, handlers: SocketHandlers) => Promise<CqlSocket>;

/** What a runtime entrypoint supplies besides the socket factory. */
export interface RuntimeHooks {
  socketFactory: SocketFactory;
  /** Lets a timer not keep the process alive (heartbeats must not block exit). */
  unrefTimer?(handle: unknown): void;
  /** Runs `task` as a microtask, where the global `queueMicrotask` costs more than a promise reaction. */
  queueMicrotask?(task: () => void): void;
  name: "deno" | "node" | "workerd" | "custom";
  /** The factory honours `SocketTarget.shard` (Node can bind a local port; Deno and Workers cannot). */
  canBindLocalPort?: boolean;
}
