#!/usr/bin/env bash
# The three single-node clusters the secure suite needs, beside the default one on 127.0.0.1:
#   secure-tls   127.0.0.11:9042, client TLS only; CA in .cache/cassandra/secure-tls/tls/ca.pem
#   secure-auth  127.0.0.21:9042, PasswordAuthenticator, superuser cassandra/cassandra
#   secure-mtls  127.0.0.31:9042, TLS requiring a client certificate (mutual TLS); CA and
#                client certificate in .cache/cassandra/secure-mtls/tls/{ca.pem,client/}
#
#   bash tests/secure/clusters.sh start|stop|status
# `start` is idempotent: a running cluster is left as it is.
set -euo pipefail
ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
CASSANDRA="$ROOT/scripts/cassandra"
# Three more JVMs on a shared machine: a smaller heap than the default cluster's is plenty.
HEAP="${CQLWIRE_SECURE_HEAP:-512M}"

case "${1:-}" in
  start)
    "$CASSANDRA" start --name secure-tls --ip 11 --tls --heap "$HEAP"
    "$CASSANDRA" start --name secure-auth --ip 21 --auth --heap "$HEAP"
    "$CASSANDRA" start --name secure-mtls --ip 31 --tls-client-auth --heap "$HEAP"
    ;;
  stop)
    "$CASSANDRA" stop --name secure-tls
    "$CASSANDRA" stop --name secure-auth
    "$CASSANDRA" stop --name secure-mtls
    ;;
  status)
    "$CASSANDRA" status --name secure-tls
    "$CASSANDRA" status --name secure-auth
    "$CASSANDRA" status --name secure-mtls
    ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
