#!/usr/bin/env bash
# Prepares .gpu_bundle/ for scripts/gpu_check.sh: the Debian packages the build needs besides
# libtorch and CUDA (Boost.Context, Abseil, fmt, CLI11, nlohmann-json, Google Benchmark),
# downloaded with apt-get and unpacked into .gpu_bundle/prefix, trimmed to fit the device
# tool's 64 MiB transfer limit (Boost: only the headers Boost.Context includes). Run it here,
# where Debian's archive is reachable; then carry .gpu_bundle to the GPU machine.
#
#   scripts/gpu_bundle.sh            (idempotent: reuses the downloaded .deb files)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

bundle="$LCFR_ROOT/.gpu_bundle"
prefix="$bundle/prefix"
packages=(libboost1.74-dev libboost-context1.74-dev libboost-context1.74.0 libabsl-dev
          libabsl20220623 libfmt-dev libfmt9 libcli11-dev nlohmann-json3-dev libbenchmark-dev
          libbenchmark1debian libgloo-dev catch2)
mkdir -p "$bundle/debs"
(
  cd "$bundle/debs"
  for p in "${packages[@]}"; do
    ls "${p}"_*.deb > /dev/null 2>&1 || apt-get download "$p" > /dev/null ||
      die "apt-get download $p failed (is Debian's archive reachable?)"
  done
)
rm -rf "$prefix"
mkdir -p "$prefix"
for deb in "$bundle"/debs/*.deb; do dpkg -x "$deb" "$prefix"; done

# Boost: keep the CMake package files and only the headers that Boost.Context pulls in.
probe=$(mktemp --suffix=.cc)
printf '#include <boost/context/fiber.hpp>\n#include <boost/context/fixedsize_stack.hpp>\n#include <boost/context/protected_fixedsize_stack.hpp>\n#include <boost/context/preallocated.hpp>\n#include <boost/context/stack_traits.hpp>\n' > "$probe"
headers=$(g++ -std=c++20 -nostdinc++ -I"$prefix/usr/include" -isystem /usr/include/c++/12 \
            -isystem /usr/include/x86_64-linux-gnu/c++/12 -M "$probe" |
          tr ' \\' '\n\n' | grep "^$prefix/usr/include/boost/" | sort -u)
rm -f "$probe"
kept=$(mktemp -d)
for h in $headers; do
  rel=${h#"$prefix/usr/include/"}
  mkdir -p "$kept/$(dirname "$rel")"
  cp "$h" "$kept/$rel"
done
rm -rf "$prefix/usr/include/boost"
mv "$kept/boost" "$prefix/usr/include/boost"
rm -rf "$kept" "$prefix/usr/share/doc" "$prefix/usr/share/man" "$prefix/usr/share/lintian"
size=$(du -sm "$prefix" | cut -f1)
log "bundle ready: $prefix (${size} MiB; $(find "$prefix/usr/include/boost" -type f | wc -l) Boost headers)"
[[ $size -lt 60 ]] || die "the bundle is ${size} MiB: over the device tool's 64 MiB limit"
