#!/usr/bin/env bash
# engine/, traversal/ and play/ never include libtorch (style.md; the CMake guard covers linking).
set -uo pipefail
src="$1"
leaks=$(grep -rnE '#include *[<"](torch|ATen|c10|caffe2)/' "$src/engine" "$src/traversal" "$src/play" 2>/dev/null)
if [[ -n "$leaks" ]]; then
  echo "libtorch included from a torch-free folder:"
  echo "$leaks"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "1 passed, 0 failed"
