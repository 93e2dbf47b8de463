#!/usr/bin/env bash
# Builds Hearth's Debian packages with CPack and checks them: hearth (the app and hearth-cli) and,
# in a build with the CUDA backend, hearth-cuda (the GPU module with the CUDA runtime and cuBLAS
# beside it; see cmake/HearthPackaging.cmake). Steps: build the installed targets, `cmake --install`
# into a scratch folder and check the layout, `cpack -G DEB`, then `dpkg-deb -I/-c` and
# `apt-get install --simulate` of the packages (which must resolve every dependency).
# Usage: installer/package.sh [build-dir]   (default: $HEARTH_BUILD_DIR or ./build; a missing
# build folder is configured as Release). Packages go to <build-dir>/packages.
set -euo pipefail

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(realpath -m "${1:-${HEARTH_BUILD_DIR:-$src/build}}")"
out="$build/packages"

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cuda=0
grep -q '^HEARTH_CUDA:BOOL=ON' "$build/CMakeCache.txt" && cuda=1
targets=(hearth hearth-cli)
((cuda)) && targets+=(hearth_cuda)
cmake --build "$build" --target "${targets[@]}"

# The install tree, as cmake --install lays it out.
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cmake --install "$build" --prefix "$stage/usr" >/dev/null
expected=(usr/bin/hearth usr/bin/hearth-cli usr/share/applications/hearth.desktop
          usr/share/icons/hicolor/scalable/apps/hearth.svg)
((cuda)) && expected+=(usr/lib/hearth/libhearth_cuda.so)
for f in "${expected[@]}"; do
  [[ -e "$stage/$f" ]] || { echo "package: cmake --install did not install $f" >&2; exit 1; }
done
echo "package: cmake --install lays out:"
(cd "$stage" && find . -type f | sort | sed 's/^\./  /')

rm -rf "$out"
(cd "$build" && cpack -G DEB -B "$out")
rm -rf "$out/_CPack_Packages" # the staging copies (the CUDA libraries alone are ~600 MB)
debs=("$out"/hearth*.deb)
for deb in "${debs[@]}"; do
  echo "== $(basename "$deb") =="
  dpkg-deb -I "$deb"
  dpkg-deb -c "$deb"
done
# Every Depends must be installable from the configured archives (a simulation changes nothing).
apt-get install --simulate "${debs[@]}"
echo "package: ${debs[*]}"
