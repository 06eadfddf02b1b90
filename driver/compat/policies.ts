/**
 * `policies`: the DataStax driver's policy objects, kept as descriptions and mapped onto the
 * decisions the core makes (routing, retries, speculative executions). A policy whose logic
 * is user JavaScript cannot run inside the core; its name is accepted and its documented
 * effect applied where the core has the matching knob (README, migration table).
 */
import type { ClientOptions } from "../mod.ts";

export class LoadBalancingPolicy {}

export class RoundRobinPolicy extends LoadBalancingPolicy {}

export class DCAwareRoundRobinPolicy extends LoadBalancingPolicy {
  constructor(readonly localDc?: string) {
    super();
  }
}

/** Token-aware routing is always on in cqlwire; the child's local DC is what counts. */
export class TokenAwarePolicy extends LoadBalancingPolicy {
  constructor(readonly childPolicy: LoadBalancingPolicy) {
    super();
  }
}

export class AllowListPolicy extends LoadBalancingPolicy {
  constructor(readonly childPolicy: LoadBalancingPolicy, readonly allowList: string[]) {
    super();
  }
}

/** DataStax's default: token-aware over DC-aware round robin. */
export class DefaultLoadBalancingPolicy extends LoadBalancingPolicy {
  constructor(readonly options?: { localDc?: string }) {
    super();
  }
}

export class RetryPolicy {}
export class IdempotenceAwareRetryPolicy extends RetryPolicy {
  constructor(readonly childPolicy?: RetryPolicy) {
    super();
  }
}
export class FallthroughRetryPolicy extends RetryPolicy {}

export class ReconnectionPolicy {}
export class ConstantReconnectionPolicy extends ReconnectionPolicy {
  constructor(readonly delay: number) {
    super();
  }
}
export class ExponentialReconnectionPolicy extends ReconnectionPolicy {
  constructor(readonly baseDelay: number, readonly maxDelay: number, readonly startWithNoDelay?: boolean) {
    super();
  }
}

export class SpeculativeExecutionPolicy {}
export class NoSpeculativeExecutionPolicy extends SpeculativeExecutionPolicy {}
export class ConstantSpeculativeExecutionPolicy extends SpeculativeExecutionPolicy {
  constructor(readonly delay: number, readonly maxSpeculativeExecutions: number) {
    super();
  }
}

/** Client-side write timestamps (µs since the epoch); DataStax sends them by default. */
export class TimestampGenerator {
  next(_client?: unknown): number | bigint | { high: number; low: number } | null {
    return null;
  }
}

/** Strictly increasing timestamps from this client, even within one millisecond. */
export class MonotonicTimestampGenerator extends TimestampGenerator {
  private last = 0;

  constructor(readonly warningThreshold?: number, readonly minLogInterval?: number) {
    super();
  }

  override next(): number {
    const now = Date.now() * 1000;
    this.last = now > this.last ? now : this.last + 1;
    return this.last;
  }
}

export class AddressTranslator {
  translate(address: string, port: number, callback: (endpoint: string) => void): void {
    callback(`${address}:${port}`);
  }
}
export class EC2MultiRegionTranslator extends AddressTranslator {}

export interface Policies {
  addressResolution?: AddressTranslator;
  loadBalancing?: LoadBalancingPolicy;
  reconnection?: ReconnectionPolicy;
  retry?: RetryPolicy;
  speculativeExecution?: SpeculativeExecutionPolicy;
  timestampGeneration?: TimestampGenerator | null;
}

function localDcOf(p: LoadBalancingPolicy | undefined): string | undefined {
  if (p instanceof DCAwareRoundRobinPolicy) return p.localDc;
  if (p instanceof DefaultLoadBalancingPolicy) return p.options?.localDc;
  if (p instanceof TokenAwarePolicy || p instanceof AllowListPolicy) return localDcOf(p.childPolicy);
  return undefined;
}

/** The core's options for the DataStax policies given. */
export function policyOptions(p: Policies | undefined): { localDataCenter?: string; policies: ClientOptions["policies"] } {
  const policies: NonNullable<ClientOptions["policies"]> = {};
  if (p?.retry instanceof FallthroughRetryPolicy) policies.maxAttempts = 1;
  const spec = p?.speculativeExecution;
  if (spec instanceof ConstantSpeculativeExecutionPolicy) {
    policies.speculativeDelay = Math.max(1, Math.round(spec.delay));
    policies.speculativeMaxExtra = Math.min(5, Math.max(1, spec.maxSpeculativeExecutions));
  }
  return { localDataCenter: localDcOf(p?.loadBalancing), policies };
}

export const policies = {
  loadBalancing: { LoadBalancingPolicy, RoundRobinPolicy, DCAwareRoundRobinPolicy, TokenAwarePolicy, AllowListPolicy, WhiteListPolicy: AllowListPolicy, DefaultLoadBalancingPolicy },
  retry: { RetryPolicy, IdempotenceAwareRetryPolicy, FallthroughRetryPolicy },
  reconnection: { ReconnectionPolicy, ConstantReconnectionPolicy, ExponentialReconnectionPolicy },
  speculativeExecution: { SpeculativeExecutionPolicy, NoSpeculativeExecutionPolicy, ConstantSpeculativeExecutionPolicy },
  timestampGeneration: { TimestampGenerator, MonotonicTimestampGenerator },
  addressResolution: { AddressTranslator, EC2MultiRegionTranslator },
  defaultLoadBalancingPolicy: (localDc?: string) => new DefaultLoadBalancingPolicy({ localDc }),
  defaultRetryPolicy: () => new RetryPolicy(),
  defaultReconnectionPolicy: () => new ExponentialReconnectionPolicy(1000, 10 * 60 * 1000, false),
  defaultSpeculativeExecutionPolicy: () => new NoSpeculativeExecutionPolicy(),
  defaultTimestampGenerator: () => new MonotonicTimestampGenerator(),
  defaultAddressTranslator: () => new AddressTranslator(),
};
