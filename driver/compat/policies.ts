/**
 * `policies`: the DataStax driver's policy objects, kept as descriptions and mapped onto the
 * decisions the core makes (routing, retries, reconnection, speculative executions). A policy
 * whose logic is user JavaScript (a subclass, or any other object) cannot run inside the
 * core: the Client refuses it at construction with a NotSupportedError naming the option,
 * rather than accept it and decide otherwise (README, migration table).
 */
import type { ClientOptions } from "../mod.ts";
import { ArgumentError, NotSupportedError } from "../src/errors.ts";
import { Long } from "./numbers.ts";
import type { AddressTranslator } from "./address_resolution.ts";

// getOptions(): each policy's settings as a Map, as DataStax's give them (code logs them).
type Options = Map<string, unknown>;
const nameOf = (policy: unknown): string | null => (policy as { constructor?: { name: string } })?.constructor?.name ?? null;

export class LoadBalancingPolicy {
  getOptions(): Options {
    return new Map();
  }
}

export class RoundRobinPolicy extends LoadBalancingPolicy {}

export class DCAwareRoundRobinPolicy extends LoadBalancingPolicy {
  constructor(readonly localDc?: string) {
    super();
  }

  override getOptions(): Options {
    return new Map([["localDataCenter", this.localDc]]);
  }
}

/** Token-aware routing is always on in cqlwire; the child's local DC is what counts. */
export class TokenAwarePolicy extends LoadBalancingPolicy {
  constructor(readonly childPolicy: LoadBalancingPolicy) {
    super();
  }

  override getOptions(): Options {
    const options: Options = new Map([["childPolicy", nameOf(this.childPolicy)]]);
    if (this.childPolicy instanceof DCAwareRoundRobinPolicy) options.set("localDataCenter", this.childPolicy.localDc);
    return options;
  }
}

export class AllowListPolicy extends LoadBalancingPolicy {
  constructor(readonly childPolicy: LoadBalancingPolicy, readonly allowList: string[]) {
    super();
  }

  override getOptions(): Options {
    return new Map<string, unknown>([["childPolicy", nameOf(this.childPolicy)], ["allowList", Array.from(this.allowList)]]);
  }
}

/** DataStax's deprecated name of AllowListPolicy, kept for code that still says it. */
export class WhiteListPolicy extends AllowListPolicy {}

/** DataStax's default: token-aware over DC-aware round robin. */
export class DefaultLoadBalancingPolicy extends LoadBalancingPolicy {
  constructor(readonly options?: { localDc?: string; filter?: unknown }) {
    super();
  }

  override getOptions(): Options {
    return new Map<string, unknown>([["localDataCenter", this.options?.localDc], ["filterFunction", typeof this.options?.filter === "function"]]);
  }
}

export class RetryPolicy {}
export class IdempotenceAwareRetryPolicy extends RetryPolicy {
  constructor(readonly childPolicy?: RetryPolicy) {
    super();
  }
}
export class FallthroughRetryPolicy extends RetryPolicy {}

export class ReconnectionPolicy {
  getOptions(): Options {
    return new Map();
  }
}
export class ConstantReconnectionPolicy extends ReconnectionPolicy {
  constructor(readonly delay: number) {
    super();
  }

  override getOptions(): Options {
    return new Map([["delay", this.delay]]);
  }
}
export class ExponentialReconnectionPolicy extends ReconnectionPolicy {
  constructor(readonly baseDelay: number, readonly maxDelay: number, readonly startWithNoDelay?: boolean) {
    super();
  }

  override getOptions(): Options {
    return new Map<string, unknown>([["baseDelay", this.baseDelay], ["maxDelay", this.maxDelay], ["startWithNoDelay", this.startWithNoDelay]]);
  }
}

export class SpeculativeExecutionPolicy {
  getOptions(): Options {
    return new Map();
  }
}
export class NoSpeculativeExecutionPolicy extends SpeculativeExecutionPolicy {}
export class ConstantSpeculativeExecutionPolicy extends SpeculativeExecutionPolicy {
  constructor(readonly delay: number, readonly maxSpeculativeExecutions: number) {
    super();
  }

  override getOptions(): Options {
    return new Map([["delay", this.delay], ["maxSpeculativeExecutions", this.maxSpeculativeExecutions]]);
  }
}

/** Client-side write timestamps (µs since the epoch); DataStax sends them by default. */
export class TimestampGenerator {
  next(_client?: unknown): number | bigint | { high: number; low: number } | null {
    return null;
  }
}

/** Past this millisecond (Jun 06 2255) µs no longer fit a safe integer: DataStax gives a Long. */
const MAX_SAFE_MS = 9_007_199_254_740;

/**
 * Strictly increasing timestamps from this client, as DataStax's: a counter of µs within the
 * millisecond (the next millisecond after 1000), the last millisecond kept when the clock goes
 * back, and a warning through `client.log` at most every `minLogInterval` ms (1000; under 1: none)
 * when the timestamps drift `warningThreshold` ms (1000) ahead of the clock.
 */
export class MonotonicTimestampGenerator extends TimestampGenerator {
  private micros = -1;
  private lastDate = 0;
  private lastLogDate = 0;
  private readonly threshold: number;
  private readonly logInterval: number;

  constructor(readonly warningThreshold?: number, readonly minLogInterval?: number) {
    super();
    if ((warningThreshold as number) < 0) throw new ArgumentError("warningThreshold can not be lower than 0");
    this.threshold = warningThreshold || 1000;
    this.logInterval = typeof minLogInterval === "number" ? minLogInterval : 1000;
  }

  /** The clock in milliseconds (DataStax's, replaced by its tests). */
  getDate(): number {
    return Date.now();
  }

  override next(client?: { log?(level: string, message: string): void }): number | Long {
    let date = this.getDate();
    if (date > this.lastDate) {
      this.micros = 0;
      this.lastDate = date;
      return this.stamp();
    }
    let drifted = this.lastDate - date;
    date = this.lastDate;
    if (++this.micros === 1000) {
      this.micros = 0;
      date++;
      drifted++;
    }
    const lastDate = this.lastDate;
    this.lastDate = date;
    const result = this.stamp();
    const now = Date.now();
    if (drifted >= this.threshold && this.logInterval > 0 && this.lastLogDate + this.logInterval <= now) {
      this.lastLogDate = now;
      client?.log?.(
        "warning",
        `Timestamp generated using current date was ${drifted} milliseconds behind the last generated timestamp (which ` +
          `millisecond portion was ${lastDate}), the returned value (${result}) is being artificially incremented to guarantee ` +
          "monotonicity.",
      );
    }
    return result;
  }

  private stamp(): number | Long {
    if (this.lastDate < MAX_SAFE_MS) return this.lastDate * 1000 + this.micros;
    return Long.fromNumber(this.lastDate).multiply(1000).add(this.micros);
  }
}

export { AddressTranslator, EC2MultiRegionTranslator } from "./address_resolution.ts";

export interface Policies {
  addressResolution?: AddressTranslator;
  loadBalancing?: LoadBalancingPolicy;
  reconnection?: ReconnectionPolicy;
  retry?: RetryPolicy;
  speculativeExecution?: SpeculativeExecutionPolicy;
  timestampGeneration?: TimestampGenerator | null;
}

type Class = abstract new (...args: never[]) => unknown;

/** `value` is exactly one of `classes` (not a subclass: a subclass's overrides would not run). */
function isOneOf(value: unknown, classes: Class[]): boolean {
  return value !== null && typeof value === "object" && classes.some((c) => Object.getPrototypeOf(value) === c.prototype);
}

function refuse(option: string, value: unknown, supported: string): never {
  const name = (value as { constructor?: { name?: string } })?.constructor?.name ?? typeof value;
  throw new NotSupportedError(
    `${option}: ${name} is not supported: cqlwire's core makes this decision and cannot call a policy's JavaScript; use ${supported}`,
  );
}

const LOAD_BALANCING: Class[] = [RoundRobinPolicy, DCAwareRoundRobinPolicy, TokenAwarePolicy, AllowListPolicy, WhiteListPolicy, DefaultLoadBalancingPolicy];

/** The local DC and allow-list a load-balancing policy chain says; anything else is refused. */
function loadBalancing(p: unknown, option: string, out: { localDc?: string; allowList?: string[] }): void {
  if (!isOneOf(p, LOAD_BALANCING)) {
    refuse(option, p, "DCAwareRoundRobinPolicy, TokenAwarePolicy, AllowListPolicy, RoundRobinPolicy or DefaultLoadBalancingPolicy");
  }
  if (p instanceof DCAwareRoundRobinPolicy) out.localDc = p.localDc;
  else if (p instanceof DefaultLoadBalancingPolicy) out.localDc = p.options?.localDc;
  else if (p instanceof TokenAwarePolicy) loadBalancing(p.childPolicy, `${option}.childPolicy`, out);
  else if (p instanceof AllowListPolicy) {
    out.allowList = [...p.allowList];
    loadBalancing(p.childPolicy, `${option}.childPolicy`, out);
  }
}

/** The core's options for the DataStax policies given, or a NotSupportedError for one it cannot follow. */
export function policyOptions(p: Policies | undefined): { localDataCenter?: string; policies: ClientOptions["policies"] } {
  const policies: NonNullable<ClientOptions["policies"]> = {};
  const lb: { localDc?: string; allowList?: string[] } = {};
  if (p?.loadBalancing !== undefined) loadBalancing(p.loadBalancing, "policies.loadBalancing", lb);
  if (lb.allowList) policies.allowList = lb.allowList;
  const retry = p?.retry;
  if (retry !== undefined && !isOneOf(retry, [RetryPolicy, IdempotenceAwareRetryPolicy, FallthroughRetryPolicy])) {
    refuse("policies.retry", retry, "RetryPolicy, IdempotenceAwareRetryPolicy or FallthroughRetryPolicy");
  }
  if (retry instanceof IdempotenceAwareRetryPolicy && retry.childPolicy !== undefined && !isOneOf(retry.childPolicy, [RetryPolicy])) {
    refuse("policies.retry.childPolicy", retry.childPolicy, "RetryPolicy");
  }
  if (retry instanceof FallthroughRetryPolicy) policies.maxAttempts = 1;
  const reconnection = p?.reconnection;
  if (reconnection instanceof ConstantReconnectionPolicy && isOneOf(reconnection, [ConstantReconnectionPolicy])) {
    policies.reconnection = { baseDelay: reconnection.delay, maxDelay: reconnection.delay };
  } else if (reconnection instanceof ExponentialReconnectionPolicy && isOneOf(reconnection, [ExponentialReconnectionPolicy])) {
    policies.reconnection = { baseDelay: reconnection.baseDelay, maxDelay: reconnection.maxDelay };
  } else if (reconnection !== undefined) {
    refuse("policies.reconnection", reconnection, "ConstantReconnectionPolicy or ExponentialReconnectionPolicy");
  }
  const spec = p?.speculativeExecution;
  if (isOneOf(spec, [ConstantSpeculativeExecutionPolicy])) {
    const { delay, maxSpeculativeExecutions: extra } = spec as ConstantSpeculativeExecutionPolicy;
    if (!(extra >= 1 && extra <= 5)) throw new NotSupportedError(`policies.speculativeExecution: maxSpeculativeExecutions ${extra}: cqlwire runs 1 to 5`);
    policies.speculativeDelay = Math.max(1, Math.round(delay));
    policies.speculativeMaxExtra = extra;
  } else if (spec !== undefined && !isOneOf(spec, [NoSpeculativeExecutionPolicy])) {
    refuse("policies.speculativeExecution", spec, "ConstantSpeculativeExecutionPolicy or NoSpeculativeExecutionPolicy");
  }
  return { localDataCenter: lb.localDc, policies };
}

/** A profile's own policies: the core has one set per client, so only the client's may be repeated. */
export function checkProfilePolicies(profile: { name: string; loadBalancing?: unknown; retry?: unknown }, client: Policies | undefined): void {
  if (profile.loadBalancing !== undefined && profile.loadBalancing !== client?.loadBalancing) {
    throw new NotSupportedError(`profiles "${profile.name}".loadBalancing: per-profile load balancing is not supported: set policies.loadBalancing on the Client`);
  }
  if (profile.retry !== undefined && profile.retry !== client?.retry) {
    throw new NotSupportedError(`profiles "${profile.name}".retry: per-profile retry policies are not supported: set policies.retry on the Client`);
  }
}
