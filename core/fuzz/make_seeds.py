# Writes the seed corpora of the session, types and bulk targets. Run from core/fuzz: python3 make_seeds.py
import struct, os

def u16(n): return struct.pack('>H', n)
def i32(n): return struct.pack('>i', n)
def string(s): b = s.encode(); return u16(len(b)) + b
def bytes_(b): return i32(-1) if b is None else i32(len(b)) + b
def frame(version, stream, opcode, body, flags=0):
    return bytes([0x80 | version, flags]) + struct.pack('>h', stream) + bytes([opcode]) + struct.pack('>I', len(body)) + body

TEXT, UUID, INET, INT = u16(0x0D), u16(0x0C), u16(0x10), u16(0x09)
SET_TEXT = u16(0x22) + TEXT
MAP_TEXT = u16(0x21) + TEXT + TEXT

def rows(table, cols, data):
    b = i32(2) + i32(1) + i32(len(cols)) + string('system') + string(table)
    for name, ty in cols:
        b += string(name) + ty
    b += i32(len(data))
    for row in data:
        for cell in row:
            b += bytes_(cell)
    return b

def text_set(items):
    b = i32(len(items))
    for s in items: b += bytes_(s.encode())
    return b

def text_map(pairs):
    b = i32(len(pairs))
    for k, v in pairs: b += bytes_(k.encode()) + bytes_(v.encode())
    return b

def supported():
    b = u16(2) + string('CQL_VERSION') + u16(1) + string('3.4.7')
    b += string('COMPRESSION') + u16(2) + string('lz4') + string('snappy')
    return b

def local_rows(custom=None):
    cols = [('data_center', TEXT), ('rack', TEXT), ('tokens', SET_TEXT), ('host_id', UUID),
            ('release_version', TEXT), ('rpc_address', INET), ('broadcast_address', INET)]
    if custom is not None:
        cols.append(('extra', u16(0) + string(custom)))
    row = [b'dc1', b'rack1', text_set(['-3074457345618258603']), bytes([1] * 16), b'5.0.6', bytes([10, 0, 0, 1]), bytes([10, 0, 0, 1])]
    if custom is not None:
        row.append(None)
    return rows('local', cols, [row])

def peers_rows():
    cols = [('peer', INET), ('native_address', INET), ('native_port', INT), ('data_center', TEXT), ('rack', TEXT),
            ('tokens', SET_TEXT), ('host_id', UUID), ('release_version', TEXT)]
    data = []
    for i, tok in [(2, '3074457345618258602'), (3, '9000000000000000000')]:
        ip = bytes([10, 0, 0, i])
        data.append([ip, ip, i32(9042), b'dc1', b'rack1', text_set([tok]), bytes([i] * 16), b'5.0.6'])
    return rows('peers_v2', cols, data)

def keyspaces_rows():
    repl = text_map([('class', 'org.apache.cassandra.locator.SimpleStrategy'), ('replication_factor', '3')])
    return rows('keyspaces', [('keyspace_name', TEXT), ('replication', MAP_TEXT)], [[b'ks1', repl]])

def record(op, payload=b''):
    return bytes([op]) + struct.pack('<H', len(payload)) + payload

def handshake(version, conn, credentials, keyspace=False):
    out = record(conn << 4, frame(version, 0, 0x06, supported()))
    if credentials:
        out += record(conn << 4, frame(version, 0, 0x03, string('org.apache.cassandra.auth.PasswordAuthenticator')))
        out += record(conn << 4 | 8, frame(version, 0, 0x10, i32(-1)))
    else:
        # READY follows STARTUP: on v4 it may already be compressed (wrapped), on v5 not framed.
        out += record(conn << 4 | (8 if version == 4 else 0), frame(version, 0, 0x02, b''))
    if keyspace:
        out += record(conn << 4 | 8, frame(version, 0, 0x08, i32(3) + string('ks')))
    return out

def session_seed(config, local=None, peers=None, extra=b''):
    version = 5 if config & 1 else 4
    s = bytes([config]) + handshake(version, 0, bool(config & 8), bool(config & 0x20))
    control = frame(version, 1, 0x08, local or local_rows()) + frame(version, 2, 0x08, peers or peers_rows())
    control += frame(version, 3, 0x08, keyspaces_rows()) + frame(version, 4, 0x02, b'')
    s += record(8, control)
    for conn in (1, 2):
        s += handshake(version, conn, bool(config & 8), bool(config & 0x20))
    s += record(5, b'SELECT * FROM ks1.t') + record(0x15, b'INSERT INTO ks1.t (k) VALUES (?)')
    s += extra + record(4 | 0, b'')[:1] + struct.pack('<H', 100)
    return s

def write(target, name, data):
    os.makedirs(f'corpus/{target}', exist_ok=True)
    open(f'corpus/{target}/seed-{name}', 'wb').write(data)

for config, name in [(0, 'v4'), (2, 'v4-lz4'), (4, 'v4-snappy'), (1, 'v5'), (3, 'v5-lz4'), (8, 'v4-auth'), (0x30, 'v4-keyspace-two-per-node')]:
    write('session', name, session_seed(config))
zero_columns = bytes.fromhex('00000002 00000000 00000000 7fffffff'.replace(' ', ''))
write('session', 'v4-peers-zero-columns', session_seed(0, peers=zero_columns))
deep = 'FrozenType(' * 500 + 'Int32Type' + ')' * 500
write('session', 'v4-local-frozen-500', session_seed(0, local=local_rows(deep)))
# The 14-byte LZ4 bomb from issue #12 as the answer to system.local.
bomb = bytes([0x84, 0x01, 0, 1, 0x08, 0, 0, 0, 5, 0x10, 0, 0, 0, 0])
write('session', 'v4-lz4-bomb', bytes([2]) + handshake(4, 0, False) + record(0, bomb))

for name, text in [('map', 'map<text, frozen<list<int>>>'), ('udt', 'list<frozen<udt<ks.a>{x:int,"Zip Code":set<text>}>>'),
                   ('vector', "vector<frozen<tuple<int, 'x.Y'>>, 3>"),
                   ('marshal', 'org.apache.cassandra.db.marshal.MapType(org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.Int32Type))))'),
                   ('user-type', 'UserType(ks,61,78:Int32Type,79:VectorType(FloatType, 2))'),
                   ('frozen-deep', 'frozen<' * 40 + 'int' + '>' * 40)]:
    write('types', name, text.encode())

write('bulk', 'csv-header', bytes([2]) + b'bigint;text;list<int>;map<text, int>\nc0=c0,c1=c1,c2=c2,c3=c3\n'
      + b'c0,c1,c2,c3\n1,hello,"[1, 2]","{\'a\': 1}"\n2,,[],{}\n3,"quoted ""x""",[3],{\'b\': 2}\n')
write('bulk', 'csv-positional', bytes([0x20]) + b'int;timestamp;uuid;decimal\n0=c0,1=c1,2=c2,3=c3\n'
      + b'1,2024-01-02T03:04:05Z,123e4567-e89b-12d3-a456-426614174000,1.5\n2,0,,-0.0\n')
# The fuzzer's out-of-memory find (CI, 2026-11-26): a mapped field position of 77 million once sized a table.
write('bulk', 'csv-huge-position', bytes([0x20]) + b'int;timestamp;uuid;decimal\n77004558=c0,1=c1,2=c2,3=c3\n1,2024)01-0.0\n')
write('bulk', 'jsonl', bytes([1]) + b'int;frozen<list<text>>;tuple<int, text>;blob\n*\n'
      + b'{"c0": 1, "c1": ["a", "b"], "c2": [1, "x"], "c3": "0x0102"}\n{"c0": 2, "c1": null}\n{"c0": [[[[1]]]]}\n')
