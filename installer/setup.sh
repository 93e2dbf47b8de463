#!/usr/bin/env bash
# Hearth set-up for Debian 12 / Ubuntu 24.04: installs the missing build and runtime packages
# (apt, as root or through sudo), configures and builds a Release build in ./build, then either
# starts the app (`setup.sh app`) or runs the whole test suite with ctest (`setup.sh test`).
# Environment: HEARTH_BUILD_DIR (default build), HEARTH_CUDA_ARCHITECTURES (e.g. "89-real" to
# build CUDA for one GPU only), HEARTH_JOBS (parallel build jobs, default: all cores).
set -euo pipefail

mode="${1:-}"
case "$mode" in
  app|test|build) ;;
  *) echo "usage: installer/setup.sh app|test|build" >&2; exit 2 ;;
esac

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${HEARTH_BUILD_DIR:-$src/build}"
jobs="${HEARTH_JOBS:-$(nproc)}"

# Build tools, engine libraries (sentencepiece, JSON), Qt 6 Quick with the QML modules the UI
# loads at run time (Debian does not pull all of them in), SQLite for the conversation store,
# md4c for the markdown of replies, QtKeychain for the Hugging Face token in the system keyring,
# and cpp-httplib for the OpenAI-compatible server (hearth-cli serve, the app's switch).
# libmd4c-html0: Debian's md4c CMake package names its HTML library among its targets, and
# find_package(md4c) fails without that file although the app does not link it.
packages=(
  build-essential cmake ninja-build pkg-config
  libsentencepiece-dev nlohmann-json3-dev libsqlite3-dev libpcre2-dev libicu-dev libmd4c-dev libmd4c-html0
  libcpp-httplib-dev
  qt6-base-dev qt6-declarative-dev qt6-declarative-dev-tools qt6-tools-dev qt6-tools-dev-tools
  qt6-l10n-tools libqt6sql6-sqlite qtkeychain-qt6-dev
  qml6-module-qtqml qml6-module-qtqml-models qml6-module-qtqml-workerscript qml6-module-qtquick
  qml6-module-qtquick-window qml6-module-qtquick-templates qml6-module-qtquick-controls
  qml6-module-qtquick-layouts qml6-module-qtquick-dialogs qml6-module-qt-labs-folderlistmodel
  qml6-module-qt-labs-settings qml6-module-qtcore qml6-module-qttest
  fonts-dejavu-core
  # Chinese glyphs for the Simplified Chinese translation (and CJK text in chats): DejaVu has none.
  fonts-noto-cjk
)

# The keyring test (app.hftoken) runs a GNOME keyring daemon in a D-Bus session of its own;
# without these it is skipped.
if [[ "$mode" == test ]]; then
  packages+=(dbus-daemon gnome-keyring)
  # The server's client tests: curl, and Node with npm for the official openai package (skipped
  # without them). A Node that brings its own npm (NodeSource) is left alone.
  packages+=(curl)
  if ! command -v npm >/dev/null 2>&1; then
    packages+=(nodejs npm)
  fi
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${#missing[@]} missing package(s): ${missing[*]}"
  if [[ $(id -u) -eq 0 ]]; then sudo=(); else sudo=(sudo); fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake_args=(-S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release)
if [[ -n "${HEARTH_CUDA_ARCHITECTURES:-}" ]]; then
  cmake_args+=("-DCMAKE_CUDA_ARCHITECTURES=${HEARTH_CUDA_ARCHITECTURES}")
fi
cmake "${cmake_args[@]}"
cmake --build "$build" -j "$jobs"

case "$mode" in
  app) exec "$build/app/hearth" ;;
  test) cd "$build" && exec ctest --output-on-failure -j "$jobs" ;;
  build) ;;
esac
