/**
 * DataStax's `policies.addressResolution` on cqlwire's `addressTranslator`: the user's
 * `translate(address, port, callback)` is asked where to dial a node the cluster advertised.
 * As DataStax, contact points are dialed as given (it translates only addresses nodes send).
 */
import type { AddressTranslator as NativeTranslator } from "../src/address_translator.ts";
import { parseHostPort } from "../src/options.ts";
import { NotSupportedError } from "../src/errors.ts";

/** The part of `node:dns` EC2MultiRegionTranslator uses (given by the runtime entries that have it). */
export interface DnsModule {
  reverse(address: string, callback: (err: Error | null, hostnames: string[]) => void): void;
  lookup(hostname: string, callback: (err: Error | null, address: string) => void): void;
}

let dns: DnsModule | undefined;

/** Set by the Node and Deno entries (`node:dns`); a Worker has none. */
export function setDns(module: DnsModule | undefined): void {
  dns = module;
}

export class AddressTranslator {
  translate(address: string, port: number, callback: (endpoint: string) => void): void {
    callback(`${address}:${port}`);
  }
}

/**
 * DataStax's: a node's address is looked up in reverse and its name forward, so a node in the
 * client's EC2 region is dialed on its private address; on a DNS error the address is kept
 * (and `logError` is called).
 */
export class EC2MultiRegionTranslator extends AddressTranslator {
  override translate(address: string, port: number, callback: (endpoint: string) => void): void {
    if (dns === undefined) throw noDns();
    const resolver = dns;
    const done = (err: Error | null, to: string) => {
      if (err) this.logError(address, err);
      callback(`${to}:${port}`);
    };
    resolver.reverse(address, (err, names) => {
      if (err) return done(err, address);
      if (!names?.[0]) return done(null, address);
      resolver.lookup(names[0], (err, found) => done(err, err ? address : found));
    });
  }

  /** Called with DNS errors; assign your own to log them (DataStax's does nothing). */
  logError(_address: string, _err: Error): void {}
}

function noDns(): NotSupportedError {
  return new NotSupportedError("policies.addressResolution: EC2MultiRegionTranslator needs node:dns (reverse lookups), which this runtime does not have");
}

/**
 * The native translator for `translator`, or undefined for DataStax's identity (no cost at
 * all). A `TypeError` for a value that is no `AddressTranslator`, as DataStax.
 */
export function translatorOption(translator: unknown, contactPoints: string[], defaultPort: number): NativeTranslator | undefined {
  if (translator === undefined || Object.getPrototypeOf(translator) === AddressTranslator.prototype) return undefined;
  if (!(translator instanceof AddressTranslator)) throw new TypeError("Address resolution policy must be an instance of AddressTranslator");
  if (translator instanceof EC2MultiRegionTranslator && translator.translate === EC2MultiRegionTranslator.prototype.translate && dns === undefined) throw noDns();
  const given = new Set(contactPoints.map((cp) => {
    const { host, port } = parseHostPort(cp, defaultPort);
    return `${host}:${port}`;
  }));
  const name = translator.constructor?.name || "AddressTranslator";
  return (host, port) => {
    if (given.has(`${host}:${port}`)) return { host, port };
    return new Promise<string>((resolve, reject) => {
      try {
        // DataStax's callback takes the endpoint; an Error there is taken as the failure.
        translator.translate(host, port, (endpoint: unknown) => endpoint instanceof Error ? reject(endpoint) : resolve(endpoint as string));
      } catch (e) {
        reject(e);
      }
    }).catch((e) => {
      throw new Error(`${name}.translate: ${(e as Error)?.message ?? String(e)}`);
    });
  };
}
