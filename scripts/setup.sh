#!/usr/bin/env bash
# Installs what the build needs, idempotently: Debian packages (apt-get) and libtorch (the
# `torch` wheel from PyPI, pinned, unpacked once per machine into a versioned folder outside
# the checkout). Prints nothing but progress; safe to run again (it then does nothing).
#
# Environment:
#   LCFR_CACHE          where libtorch goes (default ~/.cache/lcfr)
#   CMAKE_PREFIX_PATH   if it already holds a libtorch (share/cmake/Torch), no wheel is installed
#   LCFR_SKIP_TORCH=1   do not install libtorch (torch-free builds only)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

apt_packages=(
  g++ cmake ninja-build ccache git python3 python3-pip python3-dev clang-format clang
  libboost-context-dev libabsl-dev libyaml-cpp-dev catch2 libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev gnuplot-nox libgloo-dev zlib1g-dev
)

missing=()
for pkg in "${apt_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

if [[ "${LCFR_SKIP_TORCH:-0}" == 1 ]]; then
  exit 0
fi
if user_torch=$(find_user_torch); then
  log "using the libtorch on CMAKE_PREFIX_PATH: $user_torch"
  exit 0
fi
if [[ -f "$LCFR_TORCH_HOME/.complete" ]]; then
  exit 0
fi

log "installing libtorch: torch==$LCFR_TORCH_VERSION from PyPI into $LCFR_TORCH_HOME (about 5 GB, once per machine)"
mkdir -p "$LCFR_CACHE"
partial="$LCFR_TORCH_HOME.partial.$$"
rm -rf "$partial"
trap 'rm -rf "$partial"' EXIT
# --target keeps it out of every Python environment; the wheel's CUDA libraries (nvidia-*)
# come along, since libtorch_cuda links against them.
if ! PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet --no-cache-dir \
      --disable-pip-version-check --target "$partial" "torch==$LCFR_TORCH_VERSION"; then
  die "pip could not install torch==$LCFR_TORCH_VERSION (error above). Install libtorch yourself \
and pass it with CMAKE_PREFIX_PATH=/path/to/libtorch (README.md, 'Your own libtorch')."
fi
[[ -f "$partial/torch/share/cmake/Torch/TorchConfig.cmake" ]] ||
  die "the torch wheel has no share/cmake/Torch/TorchConfig.cmake"
rm -rf "$LCFR_TORCH_HOME"
mv "$partial" "$LCFR_TORCH_HOME"
trap - EXIT
touch "$LCFR_TORCH_HOME/.complete"
log "libtorch ready: $LCFR_TORCH_HOME/torch"
