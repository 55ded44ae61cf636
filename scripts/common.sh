# Shared by the scripts in this folder (sourced, not run).
LCFR_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LCFR_TORCH_VERSION="2.11.0"
LCFR_CACHE="${LCFR_CACHE:-$HOME/.cache/lcfr}"
LCFR_TORCH_HOME="$LCFR_CACHE/torch-$LCFR_TORCH_VERSION"

log() { printf '[lcfr] %s\n' "$*" >&2; }
die() { printf '[lcfr] error: %s\n' "$*" >&2; exit 1; }

# Prints the first CMAKE_PREFIX_PATH entry that holds a libtorch CMake config, if any.
find_user_torch() {
  local entry
  IFS=':;' read -ra entries <<<"${CMAKE_PREFIX_PATH:-}"
  for entry in "${entries[@]}"; do
    [[ -n "$entry" ]] || continue
    if [[ -f "$entry/share/cmake/Torch/TorchConfig.cmake" || -f "$entry/TorchConfig.cmake" ||
          -f "$entry/lib/cmake/Torch/TorchConfig.cmake" ]]; then
      printf '%s\n' "$entry"
      return 0
    fi
  done
  return 1
}

# The CMAKE_PREFIX_PATH to build with: the user's, plus the project's libtorch unless the
# user's already has one.
torch_prefix_path() {
  if find_user_torch >/dev/null; then
    printf '%s\n' "$CMAKE_PREFIX_PATH"
  else
    printf '%s\n' "$LCFR_TORCH_HOME/torch${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  fi
}

# configure_and_build BUILD_DIR [cmake args...]: Release by default, Ninja, ccache if present.
configure_and_build() {
  local dir="$1"
  shift
  mkdir -p "$dir"
  cmake -S "$LCFR_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="${LCFR_BUILD_TYPE:-Release}" \
    "$@" >"$dir/configure.log" 2>&1 || { cat "$dir/configure.log" >&2; die "cmake configure failed ($dir)"; }
  cmake --build "$dir" -j "$(nproc)"
}

# The Python package's dependencies (nanobind, NumPy, pytest, OpenSpiel), installed by
# scripts/setup_python.sh outside the checkout, one folder per interpreter version.
python_tag() { python3 -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")'; }
LCFR_PYTHON_DEPS="$LCFR_CACHE/python-$(python_tag 2>/dev/null || echo none)"
# The CMake arguments that build the Python package into BUILD/python (python/CMakeLists.txt).
python_cmake_args() {
  printf '%s\n' -DLCFR_PYTHON=ON "-DPython_EXECUTABLE=$(command -v python3)" \
    "-Dnanobind_DIR=$LCFR_PYTHON_DEPS/nanobind/cmake" "-DLCFR_PYTHON_DEPS=$LCFR_PYTHON_DEPS"
}
