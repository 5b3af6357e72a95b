#!/usr/bin/env bash
# Enforces the include layering of DESIGN.md ("dependencies point downward"):
#   - LLVM headers (<llvm/...>, <llvm-c/...>) only under engine/codegen/;
#   - no Qt header (<QString>, <QtCore/...>) under engine/ or tuner/.
# Usage: scripts/check-layering.sh [REPO_ROOT]   (exit 1 and a list on violation)
set -euo pipefail

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

# The files of the tree: tracked plus new-but-not-ignored when this is a git
# checkout (build trees and third-party caches stay out), else a plain walk.
list_sources() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files --cached --others --exclude-standard -z -- "$@"
  else
    find "$@" -type f -not -path '*/build*/*' -print0 2>/dev/null
  fi
}
cxx='\.(h|hh|hpp|hxx|c|cc|cpp|cxx|inc|ipp)$'

# grep_includes PATTERN: `file:line: text` for each matching #include in the
# NUL-separated file list on stdin (no match is not an error).
grep_includes() {
  xargs -0 -r grep -HnE "^\s*#\s*include\s*[<\"]$1" || [ $? -eq 123 ]
}

failed=0
report() { # $1 = rule, $2 = hits
  if [ -n "$2" ]; then
    echo "check-layering: $1:"
    printf '%s\n' "$2" | sed 's/^/  /'
    failed=1
  fi
}

hits=$(list_sources . | tr '\0' '\n' | grep -E "$cxx" | grep -vE '^(\./)?engine/codegen/' \
  | tr '\n' '\0' | grep_includes 'llvm(-c)?/')
report "LLVM headers outside engine/codegen (keep LLVM behind engine/codegen's LLVM-free headers)" "$hits"

dirs=()
for d in engine tuner; do [ -d "$d" ] && dirs+=("$d"); done
if [ ${#dirs[@]} -gt 0 ]; then
  hits=$(list_sources "${dirs[@]}" | tr '\0' '\n' | grep -E "$cxx" \
    | tr '\n' '\0' | grep_includes '(Q[A-Z][A-Za-z0-9]*|Qt[A-Za-z0-9]*/[^>"]*)[>"]')
  report "Qt headers under engine/ or tuner/ (both must stay Qt-free)" "$hits"
fi

if [ "$failed" -ne 0 ]; then
  exit 1
fi
echo "check-layering: ok (LLVM only in engine/codegen, no Qt in engine/ or tuner/)"
