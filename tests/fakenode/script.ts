/**
 * How a test scripts the fake node: rules that match a request (by opcode, query text,
 * connection, n-th match) and the reply to give instead of the default one.
 */
import type { RecordedRequest } from "./requests.ts";
import type { ServerError } from "./errors.ts";

export type Reply =
  /** A well-formed envelope on the request's stream (RESULT unless `opcode` says). With the
   * COMPRESSION flag in `flags`, `body` goes out as is: bring your own (hostile) compression. */
  | { body: Uint8Array; opcode?: number; flags?: number; stream?: number; versionByte?: number }
  /** Whole envelope bytes of your making; in v5 they still travel in valid frames. */
  | { envelope: Uint8Array }
  /** Bytes straight onto the socket, outside any framing. */
  | { raw: Uint8Array }
  | { error: ServerError }
  /** No answer at all. */
  | { silence: true }
  /** FIN: the node closes this connection. */
  | { close: true }
  /** RST: the connection is reset. */
  | { reset: true }
  | { delayMs: number; then: Reply }
  /** `then`'s bytes (framed as usual) one byte every `everyMs`, until sent or the connection
   * closes; with `bytes`, only that many of them, then nothing (a frame cut short). */
  | { trickleMs: number; bytes?: number; then: Reply };

export interface ReplyContext {
  /** The connection's number (from 1, in accept order). */
  connection: number;
  version: number;
}

export type Handler = (req: RecordedRequest, ctx: ReplyContext) => Reply | undefined | Promise<Reply | undefined>;

export interface Match {
  opcode?: number;
  /** A substring or pattern of the query text (QUERY, PREPARE, and EXECUTE by its prepared text). */
  query?: string | RegExp;
  connection?: number;
  /** Only the n-th request (from 1) that matches the other fields. */
  nth?: number;
  /** At most this many times. */
  times?: number;
  where?: (req: RecordedRequest) => boolean;
}

export class Rule {
  private seen = 0;
  private fired = 0;
  constructor(private match: Match, private answer: Reply | Handler) {}

  private fits(req: RecordedRequest): boolean {
    const m = this.match;
    if (m.opcode !== undefined && req.opcode !== m.opcode) return false;
    if (m.connection !== undefined && req.connection !== m.connection) return false;
    if (m.query !== undefined) {
      const q = req.query ?? "";
      if (typeof m.query === "string" ? !q.includes(m.query) : !m.query.test(q)) return false;
    }
    return m.where === undefined || m.where(req);
  }

  /** The reply when this rule claims `req`, else undefined. */
  async reply(req: RecordedRequest, ctx: ReplyContext): Promise<Reply | undefined> {
    if (!this.fits(req)) return undefined;
    this.seen++;
    if (this.match.nth !== undefined && this.seen !== this.match.nth) return undefined;
    if (this.match.times !== undefined && this.fired >= this.match.times) return undefined;
    const r = typeof this.answer === "function" ? await this.answer(req, ctx) : this.answer;
    if (r !== undefined) this.fired++;
    return r;
  }
}
