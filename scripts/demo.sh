#!/usr/bin/env bash
# `npm run demo`: the whole pipeline that exists today, on the examples, with no cluster needed.
# Runs the built CLI (npm ci builds it through the prepare script).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f dist/cli.js ] || npm run --silent build
cli=bin/kubectl-gitops
step() { printf '\n\033[1m$ kubectl gitops %s\033[0m\n' "$*"; }

# The example Applications point at file:///tmp/kubectl-gitops-demo/repo: make it a Git repository
# (branch main) holding examples/repo, and keep the demo's caches out of the user's.
demo=/tmp/kubectl-gitops-demo
rm -rf "$demo" && mkdir -p "$demo"
cp -R examples/repo "$demo/repo"
git -C "$demo/repo" init -q -b main
git -C "$demo/repo" add -A
git -C "$demo/repo" -c user.name=demo -c user.email=demo@example.com commit -qm "example manifests"
export XDG_CACHE_HOME="$demo/cache"

step render -f examples/apps guestbook-staging
$cli render -f examples/apps guestbook-staging

step render -f examples/apps -o json '| (apps, revisions, object counts)'
$cli render -f examples/apps -o json | node -e '
  let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
    for (const a of JSON.parse(s).apps) console.log(`${a.name}  ${a.revision.slice(0, 12)}  ${a.objects.length} objects`);
  });'

step shards --replicas 3 --clusters-file examples/shards/clusters.yaml --apps-file examples/shards/apps.yaml
$cli shards --replicas 3 --clusters-file examples/shards/clusters.yaml --apps-file examples/shards/apps.yaml

step shards --replicas 4 --from-replicas 3 --algorithm consistent-hashing ...
$cli shards --replicas 4 --from-replicas 3 --algorithm consistent-hashing \
  --clusters-file examples/shards/clusters.yaml --apps-file examples/shards/apps.yaml
