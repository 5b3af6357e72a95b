#!/usr/bin/env bash
# Builds the `dev` preset (Debug, tests on) and runs every test with CTest.
# Exits non-zero when the build or any test fails. CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache hashes absolute paths; relative to the checkout, every clone (CI
# makes a fresh one) reuses the same cache entries. A Debug build (-g) also
# hashes the working directory unless told not to (hash_dir): without
# CCACHE_NOHASHDIR a clone in another folder never hits the cache. The price
# is that a cached object's debug info may name the first clone's folder.
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=true

scripts/install-deps.sh
echo "test: configuring and building preset 'dev'"
cmake --preset dev --log-level=WARNING
cmake --build --preset dev

log=build/dev/Testing/test-sh.log
mkdir -p "$(dirname "$log")"
set +e
ctest --preset dev --output-on-failure -j2 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
summary=$(grep -E '^[0-9]+% tests passed' "$log" | tail -n 1)
echo "test: ${summary:-ctest printed no summary} (exit code $status)"
exit "$status"
