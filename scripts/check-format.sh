#!/usr/bin/env bash
# Checks C++ formatting against .clang-format without changing anything.
#   scripts/check-format.sh          files changed against origin/main (or HEAD~1)
#   scripts/check-format.sh BASE     files changed against BASE (a commit or branch)
#   scripts/check-format.sh --all    every tracked C++ file
# "Changed" includes uncommitted edits and new files git does not ignore.
# To fix a reported file: clang-format -i FILE
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v clang-format >/dev/null 2>&1; then
  echo "check-format: clang-format not found (sudo apt-get install clang-format)" >&2
  exit 2
fi

cxx=(':(glob)**/*.h' ':(glob)**/*.hpp' ':(glob)**/*.cpp' ':(glob)**/*.cc')
if [ "${1:-}" = "--all" ]; then
  what="all tracked C++ files"
  files=$(git ls-files -- "${cxx[@]}")
else
  if [ -n "${1:-}" ]; then
    base=$1
  elif git rev-parse -q --verify origin/main >/dev/null; then
    base=origin/main
  elif git rev-parse -q --verify HEAD~1 >/dev/null; then
    base=HEAD~1
  else
    base=$(git hash-object -t tree /dev/null) # a single commit: everything is new
  fi
  what="C++ files changed against $base"
  files=$( (git diff --name-only --diff-filter=ACMR "$base" -- "${cxx[@]}"
            git ls-files --others --exclude-standard -- "${cxx[@]}") | sort -u)
fi

if [ -z "$files" ]; then
  echo "check-format: no $what"
  exit 0
fi
count=$(wc -l <<<"$files")
if xargs -d '\n' clang-format --dry-run -Werror <<<"$files"; then
  echo "check-format: $count $what are formatted"
else
  echo "check-format: some of the $count $what need clang-format -i (see above)" >&2
  exit 1
fi
