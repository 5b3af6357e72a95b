#!/usr/bin/env bash
# Tests scripts/check-layering.sh on small trees made here: it must pass a
# tree that follows the engine/README.md table, and name file:line and the
# rule for each kind of violation (an upward include between engine folders,
# an engine file including views/, a tuner file including app/, a folder
# missing from the table, Qt and LLVM headers where they do not belong).
# Usage: check_layering_test.sh REPO_ROOT
set -euo pipefail
repo=$(cd "$1" && pwd)
script="$repo/scripts/check-layering.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*"; exit 1; }

# A tree with the real table and one well-layered include per folder pair.
make_tree() {
  rm -rf "$work/tree" && mkdir -p "$work/tree/engine/ir" "$work/tree/engine/transform" \
    "$work/tree/engine/codegen" "$work/tree/tuner"
  cp "$repo/engine/README.md" "$work/tree/engine/README.md"
  printf '#pragma once\n#include "engine/support/error.h"\n' >"$work/tree/engine/ir/node.h"
  printf '#include "engine/ir/node.h"\n#include "engine/runtime/module.h"\n' \
    >"$work/tree/engine/transform/pass.cpp"
  printf '#include "engine/transform/pass.h"\n#include <llvm/IR/Module.h>\n' \
    >"$work/tree/engine/codegen/emit.cpp"
  printf '#include "engine/build.h"\n' >"$work/tree/tuner/search.cpp"
}

# expect_violation FILE LINE TEXT: the script fails and reports FILE:LINE with TEXT.
expect_violation() {
  local out rc=0
  out=$("$script" "$work/tree" 2>&1) || rc=$?
  [ "$rc" -eq 1 ] || fail "expected exit 1 for $1:$2, got $rc; output:"$'\n'"$out"
  grep -qF -- "$1:$2: " <<<"$out" || fail "no '$1:$2: ' in:"$'\n'"$out"
  grep -qF -- "$3" <<<"$out" || fail "no '$3' in:"$'\n'"$out"
}

make_tree
out=$("$script" "$work/tree") || fail "a well-layered tree was rejected:"$'\n'"$out"
grep -q '^check-layering: ok' <<<"$out" || fail "no ok line: $out"

# ir is below codegen: an include upward is named with the row's allowance.
make_tree
printf '#pragma once\n#include "engine/support/error.h"\n#include "engine/codegen/codegen.h"\n' \
  >"$work/tree/engine/ir/node.h"
expect_violation engine/ir/node.h 3 \
  'engine/ir/ may not include "engine/codegen/codegen.h" (its row in engine/README.md allows: support)'

# The driver (engine root) may not be included from below.
make_tree
printf '#include "engine/build.h"\n' >>"$work/tree/engine/transform/pass.cpp"
expect_violation engine/transform/pass.cpp 3 'may not include "engine/build.h"'

make_tree
printf '#include "views/session.h"\n' >>"$work/tree/engine/codegen/emit.cpp"
expect_violation engine/codegen/emit.cpp 3 'engine/ must not include views/'

make_tree
printf '#include "app/cli/commands.h"\n' >>"$work/tree/tuner/search.cpp"
expect_violation tuner/search.cpp 2 'tuner/ includes views/ or app/'

make_tree
mkdir -p "$work/tree/engine/gpu"
printf '#include "engine/ir/node.h"\n' >"$work/tree/engine/gpu/kernel.cpp"
expect_violation engine/gpu/kernel.cpp 1 'engine/gpu/ has no row in the layering table'

make_tree
printf '#include <QString>\n' >>"$work/tree/engine/ir/node.h"
expect_violation engine/ir/node.h 3 'Qt headers under engine/ or tuner/'

make_tree
printf '#include <llvm/IR/Module.h>\n' >>"$work/tree/engine/transform/pass.cpp"
expect_violation engine/transform/pass.cpp 3 'LLVM headers outside engine/codegen'

# Without the table there is nothing to check against: that is an error too.
make_tree
printf '# engine\n' >"$work/tree/engine/README.md"
expect_violation engine/README.md 1 'has no layering table'

echo "check_layering_test: ok"
