#!/usr/bin/env bash
# The formatting check of scripts/test.sh: every tracked C++ file is as clang-format (the
# root's .clang-format, Google style at 100 columns) writes it. Prints the files that are not
# and exits 1; `scripts/format_check.sh --fix` rewrites them in place.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
command -v clang-format > /dev/null || die "clang-format is missing (scripts/setup.sh installs it)"
cd "$LCFR_ROOT"
mapfile -t files < <(git ls-files '*.cc' '*.h' 2>/dev/null || find apps benchmarks engine inference tests training traversal -name '*.cc' -o -name '*.h')
if [[ ${1:-} == --fix ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run -Werror "$f" > /dev/null 2>&1 || bad+=("$f")
done
if (( ${#bad[@]} )); then
  log "not formatted (scripts/format_check.sh --fix): ${bad[*]}"
  exit 1
fi
log "formatting: ${#files[@]} files as clang-format writes them"
