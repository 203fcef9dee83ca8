#!/usr/bin/env bash
# Installs the renderers Argo CD 3.6's repo-server runs, built from the Go module proxy by package name
# (`go install`), into a per-user cache shared by every clone and by .ci/run's copy of the checkout:
#
#   ${KUBECTL_GITOPS_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-gitops/tools}/
#     helm-v4.2.4/helm          Argo CD 3.6's helm (its hack/tool-versions.sh)
#     helm-v3.22.0/helm         the last helm 3.x (many users still pin it)
#     kustomize-v5.8.1/kustomize  Argo CD 3.6's kustomize
#
# The versions are read from src/source/render/tool-versions.ts, the file the code and tests read too.
# A tool whose binary already reports its version is not built again, so a second run takes a moment.
# Without Go: a loud note and exit 0 on a developer machine (the real-binary tests then say they are missing),
# exit 1 under CI=true (CI must run them). Usage: bash scripts/tools.sh   (or: npm run tools)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dir="${KUBECTL_GITOPS_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-gitops/tools}"
versions="$here/src/source/render/tool-versions.ts"

fail() {
  echo "error: scripts/tools.sh: $*" >&2
  if [ "${CI:-}" = true ]; then exit 1; fi
  echo "note: scripts/tools.sh: the real helm/kustomize tests will report the binaries missing" >&2
  exit 0
}

command -v go >/dev/null || fail "failed to find go on PATH: it builds helm and kustomize from the Go module proxy (apt-get install golang-go, or Go >= 1.24)"
field() { sed -n "s/^ *$1: '\\(v[0-9][^']*\\)',\\?\$/\\1/p" "$versions"; }
helm4="$(field helm)"
helm3="$(field helm3)"
kustomize="$(field kustomize)"
[ -n "$helm4" ] && [ -n "$helm3" ] && [ -n "$kustomize" ] || fail "failed to read the tool versions from $versions"

mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9 # two clones running this at once build each tool once

installed() { [ -x "$dir/$1-$2/$1" ] && "$dir/$1-$2/$1" version 2>/dev/null | grep -q -- "$2"; }

# install NAME VERSION PACKAGE LDFLAGS: go install PACKAGE@VERSION into $dir/NAME-VERSION/NAME.
install_tool() {
  local name="$1" version="$2" pkg="$3" ldflags="$4"
  local dest="$dir/$name-$version"
  echo "scripts/tools.sh: $name $version: go install $pkg@$version (a few minutes on 2 cores the first time)"
  local tmp
  tmp="$(mktemp -d "$dir/.build-XXXXXX")"
  # CGO off and -trimpath as the projects' release builds; the version stamped as their Makefiles stamp it.
  if ! CGO_ENABLED=0 GOBIN="$tmp" go install -trimpath -ldflags "-w -s $ldflags" "$pkg@$version"; then
    rm -rf "$tmp"
    fail "failed to build $name $version ($pkg@$version) from the Go module proxy"
  fi
  rm -rf "$dest"
  mv "$tmp" "$dest"
  "$dest/$name" version
}

if installed helm "$helm4"; then echo "scripts/tools.sh: helm $helm4: installed"; else
  install_tool helm "$helm4" helm.sh/helm/v4/cmd/helm "-X helm.sh/helm/v4/internal/version.version=$helm4"
fi
if installed helm "$helm3"; then echo "scripts/tools.sh: helm $helm3: installed"; else
  # helm 3 stamps the Kubernetes version it defaults to from its client-go (its Makefile: client-go v0.X -> 1.X).
  mod="$(go mod download -json "helm.sh/helm/v3@$helm3" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')"
  minor="$(sed -n 's/^\tk8s.io\/client-go v0\.\([0-9]*\)\..*/\1/p' "$mod")"
  [ -n "$minor" ] || fail "failed to read helm $helm3's client-go version from the Go module proxy"
  h3="helm.sh/helm/v3"
  install_tool helm "$helm3" "$h3/cmd/helm" "-X $h3/internal/version.version=$helm3 \
-X $h3/pkg/lint/rules.k8sVersionMajor=1 -X $h3/pkg/lint/rules.k8sVersionMinor=$minor \
-X $h3/pkg/chartutil.k8sVersionMajor=1 -X $h3/pkg/chartutil.k8sVersionMinor=$minor"
fi
if installed kustomize "$kustomize"; then echo "scripts/tools.sh: kustomize $kustomize: installed"; else
  install_tool kustomize "$kustomize" sigs.k8s.io/kustomize/kustomize/v5 ""
fi
echo "scripts/tools.sh: helm $helm4, helm $helm3 and kustomize $kustomize in $dir"
