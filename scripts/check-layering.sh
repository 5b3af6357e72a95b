#!/usr/bin/env bash
# Enforces the include layering of DESIGN.md ("dependencies point downward"):
#   - the engine's folder graph: the table between the `layering-table`
#     markers of engine/README.md says, per folder of engine/, which other
#     folders it may include; every `#include "engine/..."` of a file under
#     engine/ is checked against it (files at the engine root, build.h and
#     build.cpp, belong to the row `build`);
#   - engine/ never includes tuner/, views/ or app/; tuner/ never includes
#     views/ or app/;
#   - LLVM headers (<llvm/...>, <llvm-c/...>) only under engine/codegen/;
#   - no Qt header (<QString>, <QtCore/...>) under engine/ or tuner/.
# Each violation is printed as `file:line: rule`.
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

# sources DIR...: the C/C++ files under the existing DIRs, NUL-separated.
sources() {
  local dirs=()
  for d in "$@"; do [ -d "$d" ] && dirs+=("$d"); done
  [ ${#dirs[@]} -gt 0 ] || return 0
  list_sources "${dirs[@]}" | tr '\0' '\n' | grep -E "$cxx" | tr '\n' '\0' || true
}

# grep_includes PATTERN: `file:line: text` for each matching #include in the
# NUL-separated file list on stdin (no match is not an error).
grep_includes() {
  { xargs -0 -r grep -HnE "^\s*#\s*include\s*[<\"]$1" || [ $? -eq 123 ]; } \
    | sed -E 's/^([^:]*:[0-9]+):/\1: /'
}

failed=0
report() { # $1 = rule, $2 = hits (file:line: text)
  if [ -n "$2" ]; then
    echo "check-layering: $1:"
    printf '%s\n' "$2" | sed 's/^/  /'
    failed=1
  fi
}

# --- the engine's folder graph, read from engine/README.md -------------------
readme=engine/README.md
if [ -d engine ]; then
  # Rows `| \`folder/\` | \`dep\`, \`dep\` | ... |` between the markers become
  # lines "folder dep dep ..." ("—" or no backticks: no dependency).
  table=$(awk '
    /<!-- layering-table/ { on = 1; next }
    /<!-- \/layering-table/ { on = 0 }
    on && /^\|/ {
      n = split($0, cell, "|")
      if (n < 4 || cell[2] !~ /`/) next
      key = cell[2]; sub(/^[^`]*`/, "", key); sub(/`.*$/, "", key); sub(/\/$/, "", key)
      deps = ""; rest = cell[3]
      while (match(rest, /`[^`]+`/)) {
        d = substr(rest, RSTART + 1, RLENGTH - 2); sub(/\/$/, "", d)
        deps = deps " " d; rest = substr(rest, RSTART + RLENGTH)
      }
      print key deps
    }' "$readme" 2>/dev/null || true)
  if [ -z "$table" ]; then
    report "engine/README.md has no layering table (rows between <!-- layering-table --> and <!-- /layering-table -->)" \
      "$readme:1: no table"
  else
    hits=$(sources engine | grep_includes '(engine|tuner|views|app)/' | awk -v table="$table" '
      BEGIN {
        n = split(table, rows, "\n")
        for (i = 1; i <= n; ++i) {
          m = split(rows[i], f, " ")
          known[f[1]] = 1; allowed[f[1], f[1]] = 1; list[f[1]] = ""
          for (j = 2; j <= m; ++j) { allowed[f[1], f[j]] = 1; list[f[1]] = list[f[1]] (j > 2 ? ", " : "") f[j] }
        }
      }
      # The row of an engine path: its first folder, or `build` at the root.
      function part(path,   p) {
        sub(/^(\.\/)?engine\//, "", path)
        return index(path, "/") ? substr(path, 1, index(path, "/") - 1) : "build"
      }
      {
        split($0, loc, ":"); file = loc[1]; line = loc[2]
        inc = $0; sub(/^[^:]*:[^:]*:[^<"]*[<"]/, "", inc); sub(/[>"].*$/, "", inc)
        where = file ":" line
        from = part(file)
        if (inc ~ /^(tuner|views|app)\//) {
          top = substr(inc, 1, index(inc, "/") - 1)
          print where ": engine/ must not include " top "/ (\"" inc "\"): the engine sits below tuner/, views/ and app/"
          next
        }
        if (!(from in known)) {
          print where ": engine/" from "/ has no row in the layering table of engine/README.md"
          next
        }
        to = part(inc)
        if (!allowed[from, to]) {
          deps = list[from] == "" ? "nothing" : list[from]
          print where ": engine/" (from == "build" ? "build.*" : from "/") " may not include \"" inc "\" (" \
                (to in known ? "" : "unknown folder; ") "its row in engine/README.md allows: " deps ")"
        }
      }')
    report "engine include graph (the table in engine/README.md)" "$hits"
  fi
fi

hits=$(sources tuner | grep_includes '(views|app)/')
report "tuner/ includes views/ or app/ (the tuner is below the GUI and the executables)" "$hits"

hits=$(list_sources . | tr '\0' '\n' | grep -E "$cxx" | grep -vE '^(\./)?engine/codegen/' \
  | tr '\n' '\0' | grep_includes 'llvm(-c)?/')
report "LLVM headers outside engine/codegen (keep LLVM behind engine/codegen's LLVM-free headers)" "$hits"

hits=$(sources engine tuner | grep_includes '(Q[A-Z][A-Za-z0-9]*|Qt[A-Za-z0-9]*/[^>"]*)[>"]')
report "Qt headers under engine/ or tuner/ (both must stay Qt-free)" "$hits"

if [ "$failed" -ne 0 ]; then
  exit 1
fi
echo "check-layering: ok (engine folders follow engine/README.md; engine/ and tuner/ below views/ and app/; LLVM only in engine/codegen; no Qt in engine/ or tuner/)"
