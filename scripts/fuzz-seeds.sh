#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# fuzz-seeds.sh TARGET SHARED DEST - copies the real-data seeds a fuzz target lists in
# tests/fuzz/seeds/TARGET.txt (globs relative to ../shared) into DEST, a build-only corpus
# folder. Real data is read from ../shared at run time and never committed.
set -eu
t=$1 shared=$2 dest=$3
list="$(cd "$(dirname "$0")/.." && pwd)/tests/fuzz/seeds/$t.txt"
mkdir -p "$dest"
[ -f "$list" ] || exit 0
while IFS= read -r line; do
    [ -z "$line" ] || [ "${line:0:1}" = "#" ] && continue
    for f in $shared/$line; do
        [ -f "$f" ] && cp -f "$f" "$dest/seed-$(echo "${f#$shared/}" | tr '/' '_')"
    done
done <"$list"
exit 0
