#!/usr/bin/env bash
# Idempotent set-up: Debian's LLVM 22 toolchain (when missing) and the project's .venv.
# Usage: scripts/setup.sh [EXTRAS]   (EXTRAS: comma list of pyproject extras, default "dev")
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${1:-dev}"
# Debian packages the project and its tests need (checked with dpkg, installed when missing)
APT_PKGS=(
  clang-22 llvm-22 flang-22 lld-22   # the front ends and tools irgrad drives (LLVM 22)
  make cmake ninja-build binutils    # tests/build: make and CMake projects, ar
  libclang-rt-22-dev                 # irgrad cc -fsanitize=address/undefined, tests/fuzz
  libboost-dev libeigen3-dev         # tests/realworld: Boost.Odeint and Eigen programs
  libopenblas-dev liblapack-dev liblapacke-dev  # tests/blas: programs calling CBLAS, Fortran BLAS/LAPACK, LAPACKE
  libomp-22-dev                      # irgrad cc -fopenmp: LLVM's OpenMP runtime (tests/ad_programs/openmp_*)
)

need_apt=()
for pkg in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
    || need_apt+=("$pkg")
done
if [ "${#need_apt[@]}" -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} with apt-get" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
      echo "setup: error: ${need_apt[*]} are missing and apt-get needs root (no sudo found)." >&2
      echo "setup: install them by hand: apt-get install ${need_apt[*]}" >&2
      exit 1
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: error: ${need_apt[*]} are missing and this machine has no apt-get." >&2
    echo "setup: install LLVM 22 (clang, flang, lld, llvm tools) and put clang-22 etc. on PATH." >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=".venv/.irgrad-installed-$EXTRAS-$(cat pyproject.toml scripts/constraints.txt | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  # the extras state ranges; the constraints file pins what CI tests
  .venv/bin/python -m pip install -q -c scripts/constraints.txt -e ".[$EXTRAS]"
  rm -f .venv/.irgrad-installed-*
  touch "$stamp"
fi
