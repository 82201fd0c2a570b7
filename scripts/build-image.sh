#!/bin/sh
# Builds the image at the Node version the project is tested on, .nvmrc's (the Dockerfile's own default is the major).
# Arguments go to docker build: scripts/build-image.sh -t relaybox:latest
set -eu
cd "$(dirname "$0")/.."
exec docker build --build-arg NODE_VERSION="$(tr -d ' \nv' < .nvmrc)" "$@" .
