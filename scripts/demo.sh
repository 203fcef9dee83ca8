#!/usr/bin/env bash
# `npm run demo`: the whole pipeline that exists today, on the examples, with no cluster needed.
# Runs the built CLI (npm ci builds it through the prepare script).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f dist/cli.js ] || npm run --silent build
cli=bin/kubectl-gitops
step() { printf '\n\033[1m$ kubectl gitops %s\033[0m\n' "$*"; }

step shards --replicas 3 --clusters-file examples/shards/clusters.yaml --apps-file examples/shards/apps.yaml
$cli shards --replicas 3 --clusters-file examples/shards/clusters.yaml --apps-file examples/shards/apps.yaml

step shards --replicas 4 --from-replicas 3 --algorithm consistent-hashing ...
$cli shards --replicas 4 --from-replicas 3 --algorithm consistent-hashing \
  --clusters-file examples/shards/clusters.yaml --apps-file examples/shards/apps.yaml
