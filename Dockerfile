# Relaybox's image. Two stages: the dependencies installed and pruned in the first (build tools, npm, TypeScript and
# anvil stay there), the service run from the second as a non-root user under tini, which forwards SIGTERM so the
# service drains as it does outside a container. The layout is the OpenZeppelin Relayer's: working directory /app,
# the config folder at /app/config, plugins at /app/plugins, and here the SQLite data at /app/data.
#
#   scripts/build-image.sh -t relaybox        # Node at .nvmrc's exact version (it passes NODE_VERSION from there)
#   docker build -t relaybox .                  # the same Node: NODE_VERSION defaults to it too (test/operations/node-version.test.ts)
#
# NODE_IMAGE replaces the base of both stages: any Debian bookworm image with Node at /usr/local (and npm) will do.
ARG NODE_VERSION=24.22.3
ARG NODE_IMAGE=node:${NODE_VERSION}-bookworm-slim

FROM ${NODE_IMAGE} AS build
COPY package.json package-lock.json /build/
# One layer for all of it (each layer is a full copy on some storage drivers). pkcs11js compiles (python3, make, g++;
# npm_config_nodedir: Node's own headers, nothing downloaded); the other native modules ship prebuilt binaries.
# tini-static: the init, copied alone into the runtime stage. Then what the service never reads goes: TypeScript
# sources and declarations (Node does not strip types under node_modules), source maps, other platforms' binaries,
# the native modules' sources, anvil (the devnet is for development) and TypeScript itself.
RUN cd /build && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ tini ca-certificates \
 && npm_config_nodedir=/usr/local npm ci --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/@foundry-rs node_modules/typescript node_modules/@typescript \
 && find node_modules -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.map' -o -name '*.md' -o -name '*.tgz' \) -delete \
 && find node_modules -path '*/prebuilds/*' ! -path '*/prebuilds/linux-x64*' -prune -exec rm -rf {} + \
 && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src node_modules/isolated-vm/src node_modules/isolated-vm/vendor \
           node_modules/isolated-vm/native-example node_modules/pkcs11js/src node_modules/pkcs11js/build/Release/obj.target \
 && mkdir -p /out/root/app /out/root/usr/bin /out/writable/config /out/writable/data /out/writable/plugins /out/writable/logs \
 && mv node_modules /out/root/app/ && cp /usr/bin/tini-static /out/root/usr/bin/tini \
 && rm -rf /root/.npm /var/lib/apt/lists/*
# The service itself: what .dockerignore lets through (package.json, bin/, src/, runtime/, console/, the Node check).
COPY . /out/root/app/

FROM ${NODE_IMAGE}
# The settings first, the files last: each step of the classic builder copies the whole image on some storage
# drivers (vfs), so the steps before the application's files copy only the base, and are cached with it.
WORKDIR /app
# HOST=0.0.0.0: reached through the container's ports (the reference listens there too). CONFIG_DIR: the
# reference's default, ./config from /app; relative paths in the config resolve from /app as in its examples.
# PORT is left unset (8080), so the reference's APP_PORT applies when a compose file gives it.
ENV NODE_ENV=production HOST=0.0.0.0 CONFIG_DIR=./config
EXPOSE 8080 8081
# The liveness route, with the Node already there (the slim image has no curl).
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || process.env.APP_PORT || 8080}/api/v1/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# tini is PID 1: it forwards SIGTERM/SIGINT to the service and reaps what exits. Arguments are relaybox's commands:
# `docker run relaybox check`, `docker run -v ./config:/app/config relaybox keystore create …`.
ENTRYPOINT ["/usr/bin/tini", "--", "/app/bin/relaybox"]
# The official image's user (uid 1000, `node`). COPY itself runs as root: the code and tini stay root's, and only the
# folders the service writes (data, logs, plugins, config for `keystore create`) are the user's.
USER 1000:1000
COPY --from=build /out/root/ /
COPY --from=build --chown=1000:1000 /out/writable/ /app/
