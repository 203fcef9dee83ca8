#!/usr/bin/env bash
# `npm run demo`: the whole pipeline on the examples (render, shards, diff, sync, drift, diff, sync, sync --watch
# healing a drift), no cluster needed.
# Runs the built CLI (npm ci builds it through the prepare script).
#
# Every command runs through `step TITLE EXPECTED CMD...`: it prints the title, runs CMD and stops the demo
# with "demo: step '<title>' failed: exit N (expected ...)" when CMD's exit status is not among EXPECTED
# (a comma-separated list: `diff` exits 1 when it finds differences). A command with a pipe is written as
# a shell function and passed by name (pipefail makes any failing part fail the step). To add a step:
# one `step` line.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f dist/cli.js ] || npm run --silent build
cli=bin/kubectl-gitops

step() {
  local title=$1 expected=$2 rc=0
  shift 2
  printf '\n\033[1m$ %s\033[0m\n' "$title"
  "$@" || rc=$?
  case ",$expected," in
    *",$rc,"*) [ "$rc" = 0 ] || echo "(exit $rc, as expected)" ;;
    *)
      printf "\ndemo: step '%s' failed: exit %s (expected %s)\n" "$title" "$rc" "$expected" >&2
      exit 1
      ;;
  esac
}

# The example Applications point at file:///tmp/kubectl-gitops-demo/repo: make it a Git repository
# (branch main) holding examples/repo, and keep the demo's caches out of the user's.
demo=/tmp/kubectl-gitops-demo
rm -rf "$demo" && mkdir -p "$demo"
cp -R examples/repo "$demo/repo"
git -C "$demo/repo" init -q -b main
git -C "$demo/repo" add -A
git -C "$demo/repo" -c user.name=demo -c user.email=demo@example.com commit -qm "example manifests"
export XDG_CACHE_HOME="$demo/cache"

render_summary() {
  $cli render -f examples/apps -o json | node -e '
    let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
      for (const a of JSON.parse(s).apps) console.log(`${a.name}  ${a.revision.slice(0, 12)}  ${a.objects.length} objects`);
    });'
}

step 'kubectl gitops render -f examples/apps guestbook-staging' 0 \
  $cli render -f examples/apps guestbook-staging
step 'kubectl gitops render -f examples/apps -o json | (apps, revisions, object counts)' 0 render_summary
step 'kubectl gitops shards --replicas 3 --clusters-file examples/shards/clusters.yaml --apps-file examples/shards/apps.yaml' 0 \
  $cli shards --replicas 3 --clusters-file examples/shards/clusters.yaml --apps-file examples/shards/apps.yaml
step 'kubectl gitops shards --replicas 4 --from-replicas 3 --algorithm consistent-hashing ...' 0 \
  $cli shards --replicas 4 --from-replicas 3 --algorithm consistent-hashing \
  --clusters-file examples/shards/clusters.yaml --apps-file examples/shards/apps.yaml

# diff and sync need a cluster: start the embedded API server in the background (no real cluster involved).
kc="$demo/embedded.kubeconfig"
$cli embedded-cluster --simulate-workloads --kubeconfig-out "$kc" >"$demo/embedded.log" 2>&1 &
embedded=$!
trap 'kill "$embedded" 2>/dev/null || true' EXIT
wait_for_embedded() {
  for _ in $(seq 100); do
    [ -s "$kc" ] && return 0
    kill -0 "$embedded" 2>/dev/null || break
    sleep 0.1
  done
  cat "$demo/embedded.log" >&2
  return 1
}
step 'kubectl gitops embedded-cluster --kubeconfig-out embedded.kubeconfig &' 0 wait_for_embedded

step 'kubectl gitops diff -f examples/apps guestbook -o name   (nothing applied yet: every resource missing)' 0,1 \
  $cli diff -f examples/apps guestbook --kubeconfig "$kc" -o name

# sync: Argo CD's sync operation (every task dry-run first, then waves and kinds in order, waiting for
# health). The embedded server's --simulate-workloads rolls the Deployment out, as a kubelet would.
step 'kubectl gitops sync -f examples/apps guestbook' 0 \
  $cli sync -f examples/apps guestbook --kubeconfig "$kc"
step 'kubectl gitops diff -f examples/apps guestbook   (right after the sync: no differences)' 0 \
  $cli diff -f examples/apps guestbook --kubeconfig "$kc"

if command -v kubectl >/dev/null; then
  # Drift by hand, see it in diff, and sync it back.
  export KUBECONFIG="$kc"
  step 'kubectl -n guestbook patch deployment guestbook (replicas: 5)' 0 \
    kubectl -n guestbook patch deployment guestbook --type merge -p '{"spec":{"replicas":5}}'
  step 'kubectl gitops diff -f examples/apps guestbook   (after the manual change of replicas)' 1 \
    $cli diff -f examples/apps guestbook
  step 'kubectl gitops sync -f examples/apps guestbook   (again: only the drifted Deployment is patched)' 0 \
    $cli sync -f examples/apps guestbook
  step 'kubectl gitops diff -f examples/apps guestbook   (in sync again)' 0 \
    $cli diff -f examples/apps guestbook
  unset KUBECONFIG
fi

step 'kubectl gitops diff -f examples/apps guestbook -o markdown --no-exit-code   (a pull-request comment)' 0 \
  $cli diff -f examples/apps guestbook --kubeconfig "$kc" -o markdown --no-exit-code

# sync --watch: keep guestbook in sync in the background (one line per event: stdout is a file here), change
# the live Deployment by hand, wait for the line saying it was healed, then stop the watch with SIGTERM (exit 0).
watch_log="$demo/watch.log"
wait_for_line() { # FILE PATTERN PID: until FILE has a line matching PATTERN (the watch must still run)
  for _ in $(seq 600); do
    grep -Eq -- "$2" "$1" && return 0
    kill -0 "$3" 2>/dev/null || break
    sleep 0.1
  done
  cat "$1" >&2
  return 1
}
edit_live() { # what `kubectl edit` would send: a merge patch of the live Deployment (replicas: 5)
  if command -v kubectl >/dev/null; then
    kubectl --kubeconfig "$kc" -n guestbook patch deployment guestbook --type merge -p '{"spec":{"replicas":5}}'
  else
    node -e '
      const server = /server: (\S+)/.exec(require("fs").readFileSync(process.argv[1], "utf8"))[1];
      fetch(`${server}/apis/apps/v1/namespaces/guestbook/deployments/guestbook`, {
        method: "PATCH", headers: { "Content-Type": "application/merge-patch+json" },
        body: JSON.stringify({ spec: { replicas: 5 } }),
      }).then((r) => { console.log(`deployment.apps/guestbook patched (${r.status})`); process.exit(r.ok ? 0 : 1); });' "$kc"
  fi
}
watch_heal() {
  $cli sync -f examples/apps guestbook --kubeconfig "$kc" --watch --self-heal --poll-interval 1m >"$watch_log" 2>&1 &
  local watch=$! rc=0
  # Edit once the watch has compared the app (it was synced above: Synced Healthy) and polls Git.
  wait_for_line "$watch_log" 'watching 1 app' "$watch" || return 1
  wait_for_line "$watch_log" 'guestbook Synced Healthy .*\(refresh: initial\)' "$watch" || return 1
  edit_live || return 1
  # Healed: auto-sync (the first sync this watch makes of the app) or self-heal (drift after one), then
  # compared again: Synced.
  wait_for_line "$watch_log" 'guestbook Synced Healthy .*\(refresh: (operation-done|live change)\)' "$watch" || return 1
  kill -TERM "$watch"
  wait "$watch" || rc=$?
  sed -E 's/^[0-9:]{8} //' "$watch_log"
  return "$rc"
}
step 'kubectl gitops sync -f examples/apps guestbook --watch --self-heal &   (then: replicas: 5 by hand, SIGTERM)' 0 \
  watch_heal

kill "$embedded" && wait "$embedded" 2>/dev/null || true
