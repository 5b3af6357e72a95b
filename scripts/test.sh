#!/usr/bin/env bash
# Builds a test preset and runs every test with CTest. Exits non-zero when
# the build or any test fails. CI runs exactly `scripts/test.sh`.
#
#   scripts/test.sh                 the `asan` preset: Debug with AddressSanitizer
#                                   and UndefinedBehaviorSanitizer, every test
#   scripts/test.sh --preset dev    the plain Debug build (faster to build and
#                                   run; for the edit-compile-test loop)
#
# Why the sanitizer build is the default rather than a second run after
# `dev`: it runs every test the plain build runs, under ASan and UBSan, so a
# plain run first would only double CI's time. On a 2-core machine with no
# compiler cache the asan build takes about 7 minutes and its suite 5-9
# (docs/README.md, "Building by hand").
# Suppressions name third-party libraries only (scripts/lsan.supp,
# scripts/asan.supp; CMakePresets.json passes them to the tests).
set -euo pipefail
cd "$(dirname "$0")/.."

preset=asan
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) preset=${2:?--preset needs a name (asan or dev)}; shift 2 ;;
    --preset=*) preset=${1#--preset=}; shift ;;
    *) echo "test: unknown option '$1' (known: --preset asan|dev)" >&2; exit 2 ;;
  esac
done
case "$preset" in
  asan | dev) ;;
  *) echo "test: unknown preset '$preset' (known: asan, dev)" >&2; exit 2 ;;
esac

# ccache hashes absolute paths; relative to the checkout, every clone (CI
# makes a fresh one) reuses the same cache entries. A Debug build (-g) also
# hashes the working directory unless told not to (hash_dir): without
# CCACHE_NOHASHDIR a clone in another folder never hits the cache. The price
# is that a cached object's debug info may name the first clone's folder.
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=true

scripts/install-deps.sh
echo "test: configuring and building preset '$preset'"
cmake --preset "$preset" --log-level=WARNING
cmake --build --preset "$preset"

log=build/$preset/Testing/test-sh.log
mkdir -p "$(dirname "$log")"
set +e
ctest --preset "$preset" --output-on-failure -j2 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
summary=$(grep -E '^[0-9]+% tests passed' "$log" | tail -n 1)
echo "test: preset '$preset': ${summary:-ctest printed no summary} (exit code $status)"
exit "$status"
