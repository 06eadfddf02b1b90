/**
 * What every fuzz iteration must hold: each promise the API hands out settles within its
 * deadline; each rejection is one of the driver's error classes that blames the server or
 * the connection (never DriverInternalError, a TypeError or a "local" protocol error); no
 * exception or rejection escapes to the runtime.
 */
import type { Bundle } from "../harness.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** Classes a hostile server may cause: the server's or the connection's fault, named. */
const ALLOWED = ["CqlProtocolError", "ConnectionError", "OperationTimedOutError", "NoHostAvailableError", "ResponseError", "RateLimitError", "AuthenticationError"];

/** Why `e` is not an acceptable rejection for a hostile reply, or null when it is. */
export function badError(bundle: Bundle, e: Any, depth = 0): string | null {
  // A lie in a PREPARE's bind metadata (int became blob) makes the user's value not fit the
  // type the server declared: the driver's own class for that is CqlTypeError (seed 20453).
  if (e?.name === "CqlTypeError" && e?.code === "ERR_CQL_TYPE") return null;
  if (!(e instanceof bundle.DriverError)) return `not a DriverError: ${e?.name}: ${e?.message}\n${e?.stack ?? ""}`;
  // Shutdown rejects what is still pending with a plain DriverError of its own code.
  if (e.name === "DriverError" && e.code === "ERR_SHUTDOWN") return null;
  if (!ALLOWED.includes(e.name)) return `${e.name} (${e.code}): ${e.message}${e.cause ? `\ncause: ${e.cause?.stack ?? e.cause}` : ""}`;
  if (e instanceof bundle.CqlProtocolError) {
    if (e.side !== "remote") return `a protocol error blamed on the client (side ${e.side}): ${e.message}`;
    if (!e.message.includes(`remote protocol error in ${e.field}`)) return `protocol error message names no side and field: ${e.message}`;
  }
  if (e instanceof bundle.NoHostAvailableError && depth < 3) {
    for (const inner of Object.values(e.innerErrors ?? {})) {
      const bad = badError(bundle, inner, depth + 1);
      if (bad) return `NoHostAvailable's inner error: ${bad}`;
    }
  }
  return null;
}

export type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Awaits `p` for at most `ms`; a promise still pending after that is a hang (reported). */
export async function settleWithin(p: Promise<unknown>, ms: number, what: string, failures: string[]): Promise<Settled | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<"hang">((r) => (timer = setTimeout(() => r("hang"), ms)));
  const settled = p.then((value) => ({ ok: true as const, value }), (error) => ({ ok: false as const, error }));
  const r = await Promise.race([settled, hang]);
  clearTimeout(timer);
  if (r === "hang") {
    failures.push(`${what}: did not settle within ${ms} ms`);
    return undefined;
  }
  return r;
}

/** Records a rejection that breaks the error contract. */
export function checkSettled(bundle: Bundle, s: Settled | undefined, what: string, failures: string[]): void {
  if (!s || s.ok) return;
  const bad = badError(bundle, s.error);
  if (bad) failures.push(`${what}: ${bad}`);
}

/** Collects what escapes to the runtime (uncaught exceptions, unhandled rejections) while installed. */
export class EscapeTrap {
  readonly escaped: string[] = [];
  private onRejection = (ev: PromiseRejectionEvent) => {
    ev.preventDefault();
    this.escaped.push(`unhandled rejection: ${(ev.reason as Error)?.stack ?? ev.reason}`);
  };
  private onError = (ev: ErrorEvent) => {
    ev.preventDefault();
    this.escaped.push(`uncaught exception: ${(ev.error as Error)?.stack ?? ev.message}`);
  };
  install(): void {
    globalThis.addEventListener("unhandledrejection", this.onRejection);
    globalThis.addEventListener("error", this.onError);
  }
  uninstall(): void {
    globalThis.removeEventListener("unhandledrejection", this.onRejection);
    globalThis.removeEventListener("error", this.onError);
  }
  /** What escaped since the last call. */
  take(): string[] {
    return this.escaped.splice(0);
  }
}
