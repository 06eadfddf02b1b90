// The DataStax Node.js driver (npm cassandra-driver), one connection, protocol v4.
import cassandra from "cassandra-driver";
import { contractOp, measure, parseArgs, VALUE_BYTES } from "../harness.mjs";

const args = parseArgs(process.argv.slice(2));
const client = new cassandra.Client({
  contactPoints: [`${args.host}:${args.port}`],
  localDataCenter: "datacenter1",
  protocolOptions: { port: args.port, maxVersion: cassandra.types.protocolVersion.v4 },
  pooling: { coreConnectionsPerHost: { [cassandra.types.distance.local]: 1, [cassandra.types.distance.remote]: 1 } },
  // BigInt in and out, as cqlwire takes it, instead of the driver's Long objects.
  encoding: { useBigIntAsLong: true },
});
await client.connect();
const value = Buffer.alloc(VALUE_BYTES, 0xab);
const op = contractOp(client, args.mode, value);
const result = await measure("datastax-node", args, op);
console.log(JSON.stringify(result));
await client.shutdown();
