#!/usr/bin/env bash
# The layering of ARCHITECTURE.md: the torch-free folders include no libtorch header (the CMake
# guard, lcfr_forbid_torch, covers linking), and each folder includes only its own headers and
# those of the folders below it.
set -uo pipefail
src="$1"
failures=0 passes=0
torch_free=(base engine traversal play io search)
leaks=$(cd "$src" && grep -rnE '#include *[<"](torch|ATen|c10|caffe2)/' "${torch_free[@]}" 2>/dev/null)
if [[ -n "$leaks" ]]; then
  echo "libtorch included from a torch-free folder:"
  echo "$leaks"
  failures=$((failures + 1))
else
  passes=$((passes + 1))
fi
# folder: the folders its files may include from (itself first).
declare -A allowed=(
  [base]="base"
  [engine]="engine base"
  [traversal]="traversal engine base"
  [play]="play traversal engine base"
  [io]="io play traversal engine base"
  [search]="search play traversal engine base"
  [inference]="inference traversal engine base"
  [training]="training search io play inference traversal engine base"
  [python]="python training search io play inference traversal engine base"
)
for folder in "${!allowed[@]}"; do
  pattern=$(echo "${allowed[$folder]}" | tr ' ' '|')
  bad=$(cd "$src" && grep -rnE '#include "[a-z_]+/' "$folder" --include='*.h' --include='*.cc' |
    grep -vE "#include \"($pattern)/" | grep -vE '#include "(absl|fmt|nlohmann|yaml-cpp|CLI|benchmark|catch2|generated|nanobind)/')
  if [[ -n "$bad" ]]; then
    echo "$folder/ includes from a folder above it or beside it (allowed: ${allowed[$folder]}):"
    echo "$bad"
    failures=$((failures + 1))
  else
    passes=$((passes + 1))
  fi
done
echo "$passes passed, $failures failed"
[[ $failures -eq 0 ]]
