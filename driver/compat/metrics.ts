/**
 * DataStax's `metrics` module: `ClientMetrics`, the interface the client reports to (every
 * method a no-op, for subclasses), and `DefaultMetrics`, which turns each report into an
 * `'increment'` event on an emitter per kind (`errors`, `errors.readTimeout`, `responses`,
 * `responses.success`...). `client.metrics` is `options.metrics`, else a `DefaultMetrics`.
 * What reports when is in `tracking.ts`.
 */
import { Emitter } from "./emitter.ts";

/** What `latency` is everywhere here: `[seconds, nanoseconds]`, as Node's `process.hrtime()`. */
export type Latency = number[];

export class ClientMetrics {
  onAuthenticationError(_e: Error): void {}
  onClientTimeoutError(_e: Error): void {}
  onConnectionError(_e: Error): void {}
  onOtherError(_e: Error): void {}
  onReadTimeoutError(_e: Error): void {}
  onWriteTimeoutError(_e: Error): void {}
  onUnavailableError(_e: Error): void {}
  onClientTimeoutRetry(_e: Error): void {}
  onOtherErrorRetry(_e: Error): void {}
  onReadTimeoutRetry(_e: Error): void {}
  onUnavailableRetry(_e: Error): void {}
  onWriteTimeoutRetry(_e: Error): void {}
  onIgnoreError(_e: Error): void {}
  onSpeculativeExecution(): void {}
  onSuccessfulResponse(_latency: Latency): void {}
  onResponse(_latency: Latency): void {}
}

type ErrorEmitters = Emitter & {
  authentication: Emitter;
  clientTimeout: Emitter;
  connection: Emitter;
  other: Emitter;
  readTimeout: Emitter;
  unavailable: Emitter;
  writeTimeout: Emitter;
};
type RetryEmitters = Emitter & { clientTimeout: Emitter; other: Emitter; readTimeout: Emitter; unavailable: Emitter; writeTimeout: Emitter };

/** An emitter with one child emitter per name, as DataStax hangs them on its EventEmitters. */
function emitters<K extends string>(names: K[]): Emitter & Record<K, Emitter> {
  const parent = new Emitter() as Emitter & Record<K, Emitter>;
  for (const name of names) (parent as Record<K, Emitter>)[name] = new Emitter();
  return parent;
}

export class DefaultMetrics extends ClientMetrics {
  readonly errors: ErrorEmitters = emitters(["authentication", "clientTimeout", "connection", "other", "readTimeout", "unavailable", "writeTimeout"]);
  readonly retries: RetryEmitters = emitters(["clientTimeout", "other", "readTimeout", "unavailable", "writeTimeout"]);
  readonly speculativeExecutions: Emitter = new Emitter();
  readonly ignoredErrors: Emitter = new Emitter();
  readonly responses: Emitter & { success: Emitter } = emitters(["success"]);

  // The kind's own emitter first, then the parent's, as DataStax.
  private error(kind: Emitter, e: Error): void {
    kind.emit("increment", e);
    this.errors.emit("increment", e);
  }

  private retry(kind: Emitter, e: Error): void {
    kind.emit("increment", e);
    this.retries.emit("increment", e);
  }

  override onAuthenticationError(e: Error): void {
    this.error(this.errors.authentication, e);
  }
  override onConnectionError(e: Error): void {
    this.error(this.errors.connection, e);
  }
  override onReadTimeoutError(e: Error): void {
    this.error(this.errors.readTimeout, e);
  }
  override onWriteTimeoutError(e: Error): void {
    this.error(this.errors.writeTimeout, e);
  }
  override onUnavailableError(e: Error): void {
    this.error(this.errors.unavailable, e);
  }
  override onClientTimeoutError(e: Error): void {
    this.error(this.errors.clientTimeout, e);
  }
  override onOtherError(e: Error): void {
    this.error(this.errors.other, e);
  }
  override onClientTimeoutRetry(e: Error): void {
    this.retry(this.retries.clientTimeout, e);
  }
  override onOtherErrorRetry(e: Error): void {
    this.retry(this.retries.other, e);
  }
  override onReadTimeoutRetry(e: Error): void {
    this.retry(this.retries.readTimeout, e);
  }
  override onUnavailableRetry(e: Error): void {
    this.retry(this.retries.unavailable, e);
  }
  override onWriteTimeoutRetry(e: Error): void {
    this.retry(this.retries.writeTimeout, e);
  }
  override onIgnoreError(e: Error): void {
    this.ignoredErrors.emit("increment", e);
  }
  override onSpeculativeExecution(): void {
    this.speculativeExecutions.emit("increment");
  }
  override onSuccessfulResponse(latency: Latency): void {
    this.responses.success.emit("increment", latency);
  }
  override onResponse(latency: Latency): void {
    this.responses.emit("increment", latency);
  }
}

