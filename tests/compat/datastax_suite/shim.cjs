/**
 * Loaded by mocha (`--require`) before the vendored DataStax tests: it makes their
 * `require('../../../index')` and `require('../../../lib/...')` load the driver under test
 * (DSX_DRIVER=cqlwire: dist/compat-node.cjs; DSX_DRIVER=datastax: node_modules/cassandra-driver),
 * and points their test-helper at the Cassandra node already running (no ccm).
 *
 * A test file's path under this folder stands where it stands in the DataStax repository, so
 * `../../../lib/types` from test/integration/short names `<this folder>/lib/types`, which does
 * not exist: Module._load is asked for it and answers from the map below.
 */
'use strict';

const Module = require('module');
const path = require('path');

const { fixedKeyspaces } = require('./suite.cjs');

const ROOT = __dirname;
const REPO = path.resolve(ROOT, '../../..');
const DATASTAX_DIR = path.join(REPO, 'node_modules/cassandra-driver');
const which = process.env.DSX_DRIVER || 'cqlwire';
if (which !== 'cqlwire' && which !== 'datastax') {
  throw new Error(`DSX_DRIVER must be cqlwire or datastax, not ${which}`);
}
const driver = which === 'cqlwire'
  ? require(path.join(REPO, 'dist/compat-node.cjs'))
  : require(DATASTAX_DIR);

/** The public API the tests reach through a file path, read off the driver's exports. */
const PUBLIC = {
  'index': () => driver,
  'lib/client': () => driver.Client,
  'lib/types': () => driver.types,
  'lib/errors': () => driver.errors,
  'lib/auth': () => driver.auth,
  'lib/policies': () => driver.policies,
  'lib/policies/load-balancing': () => driver.policies.loadBalancing,
  'lib/policies/retry': () => driver.policies.retry,
  'lib/policies/reconnection': () => driver.policies.reconnection,
  'lib/policies/speculative-execution': () => driver.policies.speculativeExecution,
  'lib/policies/timestamp-generation': () => driver.policies.timestampGeneration,
  'lib/execution-profile': () => ({ ExecutionProfile: driver.ExecutionProfile }),
  'lib/types/vector': () => driver.types.Vector,
  'lib/mapping': () => driver.mapping,
  'lib/mapping/mapper': () => driver.mapping.Mapper,
  'lib/mapping/result': () => driver.mapping.Result,
  'lib/mapping/model-mapper': () => driver.mapping.ModelMapper,
  'lib/mapping/q': () => ({ q: driver.mapping.q }),
  'lib/mapping/table-mappings': () => ({
    TableMappings: driver.mapping.TableMappings,
    DefaultTableMappings: driver.mapping.DefaultTableMappings,
    UnderscoreCqlToCamelCaseMappings: driver.mapping.UnderscoreCqlToCamelCaseMappings,
  }),
  'lib/concurrent': () => driver.concurrent,
  'lib/token': () => driver.token,
  'lib/metadata': () => driver.metadata && driver.metadata.Metadata,
  'lib/tracker': () => driver.tracker,
  'lib/metrics': () => driver.metrics,
  'lib/execution-options': () => ({ ExecutionOptions: driver.ExecutionOptions }),
};

/**
 * The DataStax driver's own helpers the test code uses as a library (control flow such as
 * utils.series, test doubles in test-helper): always the real driver's files. Nothing under
 * test comes from them.
 */
const HARNESS = new Set(['lib/utils', 'lib/promise-utils', 'lib/host', 'lib/operation-state', 'lib/client-options', 'package.json']);

/** Internals a selected file requires at its top for describes the run leaves out (README). */
const INTERNAL_AT_LOAD = new Set([
  'lib/encoder', 'lib/writers',
]);

function libKey(request, parent) {
  if (!parent || !parent.filename || !request.startsWith('.')) return null;
  const abs = path.resolve(path.dirname(parent.filename), request);
  const rel = path.relative(ROOT, abs).split(path.sep).join('/');
  if (rel.startsWith('..') || rel.startsWith('test/')) return null;
  return rel.replace(/\.js$/, '').replace(/\/index$/, '');
}

const originalLoad = Module._load;
Module._load = function load(request, parent, isMain) {
  if (request === 'temp') return { track: () => ({}) }; // only the ccm paths of test-helper use it
  const key = libKey(request, parent);
  if (key === null) {
    const loaded = originalLoad.apply(this, arguments);
    if (parent && /test-helper(\.js)?$/.test(request)) patchHelper(loaded);
    return loaded;
  }
  if (PUBLIC[key]) {
    const value = PUBLIC[key]();
    if (value === undefined) throw new Error(`${which} does not export ${key}`);
    return value;
  }
  if (HARNESS.has(key) || INTERNAL_AT_LOAD.has(key) || which === 'datastax') {
    return originalLoad.call(this, path.join(DATASTAX_DIR, key), parent, isMain);
  }
  throw new Error(`${key} is an internal of the DataStax driver: out of scope for cqlwire (see README)`);
};

let patched = false;
/** test-helper without ccm: the one node at DSX_CONTACT (default 127.0.0.1), datacenter1. */
function patchHelper(helper) {
  if (patched || !helper || !helper.ccm) return;
  patched = true;
  const contact = process.env.DSX_CONTACT || '127.0.0.1';
  // ccm names its data centre dc1; the node here is a stock one. The base options' retry policy
  // (RetryMultipleTimes, a RetryPolicy subclass, only for resilience) is left out: cqlwire
  // refuses a policy whose JavaScript would have to run (README, known differences).
  helper.baseOptions = { contactPoints: [contact], localDataCenter: 'datacenter1' };
  // The helper's FallthroughRetryPolicy is a RetryPolicy subclass that rethrows every error:
  // the driver's own FallthroughRetryPolicy does the same, and cqlwire takes only its own.
  helper.FallthroughRetryPolicy = driver.policies.retry.FallthroughRetryPolicy;
  const created = new Set();
  const createKeyspaceCql = helper.createKeyspaceCql;
  helper.createKeyspaceCql = function (keyspace, replicationFactor, durableWrites) {
    created.add(keyspace);
    // One node here: a replication factor of 3 would fail every QUORUM read and write.
    return createKeyspaceCql.call(this, keyspace, 1, durableWrites);
  };
  // Keyspaces and tables of this run carry the helper's name (rules of the shared node).
  const getRandomName = helper.getRandomName;
  helper.getRandomName = (prefix) => (process.env.DSX_PREFIX || 'dsx_') + getRandomName.call(helper, prefix);

  // Any node count and yaml are taken (the tests that need several hosts, a yaml setting, a
  // tracing delay are listed out in suite.cjs); a cluster that changes what every test sees
  // (TLS, another partitioner, DSE workloads, failing writes) is refused.
  const fits = (nodeLength, options) => {
    const o = options || {};
    const jvm = (o.jvmArgs || []).filter((a) => !a.startsWith('-Dcassandra.wait_for_tracing_events_timeout_secs'));
    return !o.ssl && !o.partitioner && !(o.workloads && o.workloads.length) && jvm.length === 0;
  };
  helper.ccm.startAll = function (nodeLength, options, callback) {
    if (!fits(nodeLength, options)) {
      return callback(new Error(`needs a ccm cluster (${JSON.stringify(nodeLength)} nodes, ${JSON.stringify(options)}): not selected`));
    }
    callback();
  };
  helper.ccm.start = (nodeLength, options) => (next) => helper.ccm.startAll(nodeLength, options, next);
  // ccm remove ends a suite: drop the keyspaces it made instead.
  helper.ccm.remove = function (callback) {
    const names = [...created, ...fixedKeyspaces];
    created.clear();
    if (names.length === 0) return callback();
    const client = new driver.Client(helper.baseOptions);
    const drop = async () => {
      for (const ks of names) await client.execute(`DROP KEYSPACE IF EXISTS ${ks}`);
    };
    drop().then(() => client.shutdown(), (e) => client.shutdown().then(() => { throw e; })).then(() => callback(), callback);
  };
  helper.ccm.removeIfAny = (callback) => helper.ccm.remove(() => callback());
  helper.ccm.exec = function (params, callback) {
    callback(new Error(`ccm ${params.join(' ')}: no ccm here (a test needing it is not selected)`));
  };
}

module.exports = { driver, which };
