// cqlwire/compat's policies.addressResolution over the native addressTranslator: which addresses
// reach the user's translate (not contact points, as DataStax), its callback and errors, and
// EC2MultiRegionTranslator's two lookups through the runtime's node:dns.
// Run: deno test -A tests/ts/compat_address_resolution_test.ts
import { assertExact } from "../exact.mjs";
import { AddressTranslator, EC2MultiRegionTranslator, setDns, translatorOption } from "../../driver/compat/address_resolution.ts";
import { translateAddress } from "../../driver/src/address_translator.ts";
import { NotSupportedError } from "../../driver/src/errors.ts";

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
  return "resolved";
}

Deno.test("compat translator: contact points dialed as given, other addresses through translate's callback", async () => {
  const calls: unknown[] = [];
  class ToPublic extends AddressTranslator {
    override translate(address: string, port: number, callback: (endpoint: string) => void): void {
      calls.push([address, port]);
      setTimeout(() => callback(`203.0.113.7:${port + 1}`), 1);
    }
  }
  const native = translatorOption(new ToPublic(), ["10.0.0.1", "db2:9043"], 9042)!;
  assertExact(await native("10.0.0.1", 9042), { host: "10.0.0.1", port: 9042 });
  assertExact(await native("db2", 9043), { host: "db2", port: 9043 });
  assertExact(await translateAddress(native, "10.0.0.2", 9042), { host: "203.0.113.7", port: 9043 });
  assertExact(calls, [["10.0.0.2", 9042]]);
});

Deno.test("compat translator: a throw or an Error in the callback fails, naming the translator's class", async () => {
  class Throws extends AddressTranslator {
    override translate(): void {
      throw new Error("no map");
    }
  }
  class CallsBackError extends AddressTranslator {
    override translate(_a: string, _p: number, callback: (endpoint: string) => void): void {
      // Untyped DataStax code may call back with an error.
      (callback as (e: unknown) => void)(new Error("lookup failed"));
    }
  }
  assertExact(await failure(translateAddress(translatorOption(new Throws(), [], 9042)!, "10.0.0.2", 9042)), "Error: address translator failed for 10.0.0.2:9042: Throws.translate: no map");
  assertExact(await failure(translateAddress(translatorOption(new CallsBackError(), [], 9042)!, "10.0.0.2", 9042)), "Error: address translator failed for 10.0.0.2:9042: CallsBackError.translate: lookup failed");
});

Deno.test("compat translator: DataStax's identity costs nothing; anything else is DataStax's TypeError", () => {
  assertExact(translatorOption(undefined, [], 9042), undefined);
  assertExact(translatorOption(new AddressTranslator(), [], 9042), undefined);
  let error: unknown;
  try {
    translatorOption({ translate() {} }, [], 9042);
  } catch (e) {
    error = e;
  }
  assertExact([(error as Error).constructor, (error as Error).message], [TypeError, "Address resolution policy must be an instance of AddressTranslator"]);
});

Deno.test("EC2MultiRegionTranslator: reverse then forward lookup; a DNS error keeps the address; no node:dns is NotSupportedError", async () => {
  const translate = (t: EC2MultiRegionTranslator, address: string) => new Promise<string>((resolve) => t.translate(address, 9042, resolve));
  setDns({
    reverse: (address, cb) => address === "54.1.2.3" ? cb(null, ["ec2-54-1-2-3.compute.amazonaws.com"]) : cb(Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" }), []),
    lookup: (name, cb) => cb(null, name.startsWith("ec2-54-1-2-3") ? "10.0.0.9" : "?"),
  });
  try {
    const t = new EC2MultiRegionTranslator();
    const logged: unknown[] = [];
    t.logError = (address, err) => logged.push([address, err.message]);
    assertExact([await translate(t, "54.1.2.3"), await translate(t, "54.9.9.9")], ["10.0.0.9:9042", "54.9.9.9:9042"]);
    assertExact(logged, [["54.9.9.9", "ENOTFOUND"]]);
    assertExact(typeof translatorOption(t, [], 9042), "function");
  } finally {
    setDns(undefined);
  }
  let error: unknown;
  try {
    translatorOption(new EC2MultiRegionTranslator(), [], 9042);
  } catch (e) {
    error = e;
  }
  assertExact([error instanceof NotSupportedError, (error as Error).message], [true, "policies.addressResolution: EC2MultiRegionTranslator needs node:dns (reverse lookups), which this runtime does not have"]);
});
