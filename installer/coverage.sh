#!/usr/bin/env bash
# Line coverage of the engine (engine/**, without engine/tools and engine/backend/cuda) by the CPU
# test suite (`ctest -L engine`), measured with gcc --coverage and gcovr. Result: docs/COVERAGE.md.
# Builds a Debug, CPU-only tree in build-coverage/ at the repository root, runs the suite, prints
# the total, the per-folder figures and the files with the most uncovered lines, and writes
# build-coverage/coverage.txt (per file) and build-coverage/coverage.json (gcovr summary).
# Environment: HEARTH_COVERAGE_DIR (default build-coverage), HEARTH_JOBS (default: all cores),
# HEARTH_TEST_DATA (default ../shared, as the tests assume; missing data fails the run),
# HEARTH_COVERAGE_FLOOR (default 89: the total may not fall below it, see docs/COVERAGE.md).
# Exit status: that of ctest when a test failed (the figures are still printed), else 3 when the
# total is under the floor, else 0.
set -euo pipefail

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${HEARTH_COVERAGE_DIR:-$src/build-coverage}"
jobs="${HEARTH_JOBS:-$(nproc)}"

# gcovr is the only extra tool; install it like setup.sh does, but only as root (no sudo
# prompt in the middle of a measurement).
if ! command -v gcovr >/dev/null; then
  if [[ $(id -u) -eq 0 ]]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcovr
  else
    echo "coverage: gcovr is missing; install it (apt-get install gcovr) or run as root" >&2
    exit 1
  fi
fi

# -O0 keeps one line one counter; the app and CUDA are outside the measured sources. No
# -fprofile-update=atomic: it made the suite 3-6 times slower (cpu.quant_error 468 s of its 600 s
# limit, and a test killed at its limit writes no counters) for 2-3 more lines (docs/COVERAGE.md).
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DHEARTH_APP=OFF -DHEARTH_CUDA=OFF \
  -DCMAKE_CXX_FLAGS="--coverage -O0" -DCMAKE_EXE_LINKER_FLAGS=--coverage
cmake --build "$build" -j "$jobs"

# A reused tree keeps the objects of moved or deleted sources, and gcovr would count their .gcno
# as uncovered code: drop what the build no longer makes. Counters add up across runs: start
# from zero so that the figures belong to this run only.
cmake --build "$build" -- -t cleandead >/dev/null
find "$build" -name '*.gcno' -print0 | while IFS= read -r -d '' f; do
  [[ -e ${f%.gcno}.o ]] || rm -f "$f"
done
find "$build" -name '*.gcda' -delete
status=0
(cd "$build" && HEARTH_REQUIRE_TEST_DATA="${HEARTH_REQUIRE_TEST_DATA:-1}" \
  ctest -L engine -j "$jobs" --output-on-failure) || status=$?

# gcovr also reads .gcno files without a .gcda, so engine files that no test runs count as 0 %.
# The thread pool's workers race on the counters, so gcov prints some negative branch and call
# counts: gcovr skips those lines (warnings in gcovr.log in the build folder). The race can also
# miscount a line; next to an atomic build it cost 2-3 of 8,613. No gcovr -j: gcovr 5.2 hangs
# instead of failing when a worker meets output it cannot parse.
cd "$src"
if ! gcovr --root . --filter '^engine/' --exclude '^engine/tools/' \
  --exclude '^engine/backend/cuda/' --gcov-ignore-parse-errors --sort-uncovered \
  --txt "$build/coverage.txt" --json-summary-pretty --json-summary "$build/coverage.json" \
  "$build" 2>"$build/gcovr.log"; then
  tail -n 20 "$build/gcovr.log" >&2
  exit 1
fi

below=0
python3 - "$build/coverage.json" "${HEARTH_COVERAGE_FLOOR:-89}" <<'EOF' || below=$?
import collections, json, sys
summary = json.load(open(sys.argv[1]))
floor = float(sys.argv[2])
folders = collections.defaultdict(lambda: [0, 0])
for f in summary["files"]:
    parts = f["filename"].split("/")  # engine/<folder>/...; a sub-folder counts with its parent
    folder = parts[1] if len(parts) > 2 else "(engine/)"
    folders[folder][0] += f["line_covered"]
    folders[folder][1] += f["line_total"]
print(f"engine total: {summary['line_percent']:.1f} % "
      f"({summary['line_covered']} of {summary['line_total']} lines)")
for name, (covered, total) in sorted(folders.items()):
    print(f"  {name:<10} {100.0 * covered / total:5.1f} %  {covered:6d} / {total:6d}")
print("most uncovered lines:")
worst = sorted(summary["files"], key=lambda f: f["line_total"] - f["line_covered"], reverse=True)
for f in worst[:5]:
    missed = f["line_total"] - f["line_covered"]
    print(f"  {missed:5d}  {f['filename']} ({f['line_percent']:.1f} %)")
if summary["line_percent"] < floor:
    total = summary["line_percent"]
    print(f"coverage: {total:.1f} % is under the floor of {floor:g} %", file=sys.stderr)
    sys.exit(3)
EOF

if ((status)); then
  echo "coverage: ctest failed (exit $status); the figures above include the failing run" >&2
  exit "$status"
fi
exit "$below"
