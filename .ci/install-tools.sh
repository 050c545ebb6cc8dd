#!/usr/bin/env bash
# Installs the tools the tests need, from Debian's packages, only when
# they are missing:
#   kubectl            <- kubernetes-client  (kubectl kustomize renders deploy/k8s)
#   promtool, prometheus <- prometheus       (rule checks and the live scrape test)
#   redis-server, redis-cli <- redis-server  (the shared Redis; the fault and cluster tests start their own)
#   nats-server        <- nats-server        (the shared NATS; the fault and cluster tests start their own)
# Idempotent and quiet: nothing is fetched when every tool is already there.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive

need=()
# Debian puts nats-server in /usr/sbin, which a non-root PATH may lack.
has() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }
command -v kubectl >/dev/null 2>&1 || need+=(kubernetes-client)
if ! has redis-server || ! has redis-cli; then need+=(redis-server); fi
has nats-server || need+=(nats-server)
if ! command -v promtool >/dev/null 2>&1 || ! command -v prometheus >/dev/null 2>&1; then
  need+=(prometheus)
fi

if [ "${#need[@]}" -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-tools: need ${need[*]} but not root; install them with apt-get" >&2
  exit 1
fi

# Keep the packages' maintainer scripts from starting services: the tests
# start their own prometheus on a loopback port. policy-rc.d answering 101
# tells invoke-rc.d "not allowed"; we only add one if none is there.
policy=/usr/sbin/policy-rc.d
added_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  added_policy=1
fi
cleanup() {
  if [ "$added_policy" -eq 1 ]; then rm -f "$policy"; fi
}
trap cleanup EXIT

echo "install-tools: installing ${need[*]}"
log=$(mktemp)
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  echo "install-tools: apt-get failed installing ${need[*]}" >&2
  exit 1
fi
rm -f "$log"

# Should a service have started anyway (an init without policy-rc.d support),
# stop the daemons (prometheus, prometheus-node-exporter) the package runs as
# its own 'prometheus' system user: only processes of that user, by process id.
if id prometheus >/dev/null 2>&1; then
  for pid in $(pgrep -u prometheus || true); do
    kill "$pid" 2>/dev/null || true
  done
fi

for tool in kubectl promtool prometheus redis-server redis-cli nats-server; do
  has "$tool" || { echo "install-tools: $tool still missing after install" >&2; exit 1; }
done
