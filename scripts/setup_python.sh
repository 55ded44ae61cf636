#!/usr/bin/env bash
# Installs what the Python package and its tests need, idempotently, into $LCFR_PYTHON_DEPS (a
# folder per interpreter version under $LCFR_CACHE, outside every Python environment): nanobind
# (the bindings), NumPy (the arrays), pytest (the tests), open_spiel (the OpenSpiel game and its
# tests) and gymnasium (the Gymnasium adapters, lcfr.gym), pinned. scripts/test.sh runs it; python3's headers come from python3-dev (setup.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

requirements=(nanobind==2.9.2 numpy==2.4.6 pytest==9.2.0 open_spiel==2.0.2 gymnasium==1.4.0)
stamp="$LCFR_PYTHON_DEPS/.complete-$(printf '%s ' "${requirements[@]}" | md5sum | cut -c1-12)"
[[ -f $stamp ]] && exit 0
log "installing the Python package's dependencies (${requirements[*]}) into $LCFR_PYTHON_DEPS"
partial="$LCFR_PYTHON_DEPS.partial.$$"
rm -rf "$partial"
trap 'rm -rf "$partial"' EXIT
PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet --no-cache-dir \
  --disable-pip-version-check --root-user-action=ignore --target "$partial" "${requirements[@]}" ||
  die "pip could not install ${requirements[*]} (error above)"
rm -rf "$LCFR_PYTHON_DEPS"
mv "$partial" "$LCFR_PYTHON_DEPS"
trap - EXIT
touch "$stamp"
