#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# readme.sh - the README runs as written (issue 18). Every block fenced ```sh in README.md is
# extracted and the blocks run in order, unchanged, in one `bash -e -o pipefail` from the
# repository's root with TMPDIR set to a fresh temporary directory (mock TEE, loopback only, so
# no network), in a process group of its own that is ended afterwards. Each block is one TAP
# line: ok when it exited 0. Blocks fenced otherwise are skipped and named below with the
# reason, and an unexpected unrunnable block fails the test, so a new example must be either
# runnable or listed here:
#   ```shell "make run …"                  make itself: running it would recurse into make test
#   ```shell "echo '{\"quote_b64\":\"…\"…"  placeholders (a real quote, nonce and app hash)
#   ```shell "meroctl quote parse quote.bin" files that exist only on a TDX host or a release
#   ```shell "meroctl --json quote parse"  a real TDX quote, a network fetch of a signed release
. "$(dirname "$0")/node_lib.bash"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
STATUS= RESP=
SKIP_OK=("make run" "echo '{\"quote_b64\"" "meroctl quote parse quote.bin" "meroctl --json quote parse")

# split README.md into $WORK/block.N (runnable) and $WORK/skip.N (the rest, first line kept)
python3 - "$ROOT/README.md" "$WORK" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
n = s = 0
for m in re.finditer(r'^```([^\n]*)\n(.*?)^```\s*$', text, re.S | re.M):
    lang, body = m.group(1).strip(), m.group(2)
    if lang == 'sh':
        n += 1
        open(f'{sys.argv[2]}/block.{n}', 'w').write(body)
    elif lang in ('shell', 'bash', 'console'):
        s += 1
        open(f'{sys.argv[2]}/skip.{s}', 'w').write(body.splitlines()[0] if body else '')
PY
NB=$(ls "$WORK"/block.* 2>/dev/null | wc -l)
check "the README has runnable sh blocks" test "$NB" -ge 3

# issue 35 item 7: the README's summary of `make run` names every step scripts/demo.sh shows
# (the name before the colon of each `say "N. NAME: ..."`, the relay step included, and the
# fleet view it ends with), and the number of steps it gives
summary=$(sed -n '/`make run` starts an owner node/,/`make run KEEP=1`/p' "$ROOT/README.md" | tr '\n' ' ' |
    tr -s ' ' | tr '[:upper:]' '[:lower:]')
unnamed=
nsteps=0
while IFS= read -r step; do
    nsteps=$((nsteps + 1))
    [[ "$summary" == *"$(tr '[:upper:]' '[:lower:]' <<<"$step")"* ]] || unnamed+=" [$step]"
done < <(sed -n 's/^say "[0-9]*\. \([^:"]*\):.*/\1/p' "$ROOT/scripts/demo.sh")
[[ "$summary" == *"the fleet view"* ]] || unnamed+=" [the fleet view]"
words=(zero one two three four five six seven eight nine ten eleven twelve)
check "the README's make run summary names all $nsteps demo steps (relay included) and the fleet view" \
    eval '[ "$nsteps" -ge 10 ] && [ -z "$unnamed" ] && [[ "$summary" == *"in ${words[$nsteps]} steps"* ]] && [[ "$summary" == *"a write carried by a relay"* ]]'
[ -z "$unnamed" ] || echo "# not named in README.md:$unnamed"

for f in "$WORK"/skip.*; do
    [ -e "$f" ] || continue
    first=$(cat "$f")
    known=no
    for k in "${SKIP_OK[@]}"; do
        case $first in "$k"*) known=yes ;; esac
    done
    check "skipped block is a known one: ${first:0:50}" test $known = yes
done

# one shell runs every block, each followed by a marker with its exit status
T=$WORK/tmp
mkdir -p "$T"
{
    echo 'set -o pipefail'
    for i in $(seq "$NB"); do
        echo "set -e"
        cat "$WORK/block.$i"
        echo "set +e"
        echo "echo \"__block $i ok\" >>\"\$README_MARKS\""
    done
} >"$WORK/readme-run.sh"
(
    cd "$ROOT" || exit 1
    export TMPDIR=$T README_ROOT=$ROOT README_MARKS=$WORK/marks
    exec setsid timeout 300 bash "$WORK/readme-run.sh" >"$WORK/readme.out" 2>&1
) &
RUNNER=$!
wait "$RUNNER"
RC=$?
for i in $(seq "$NB"); do
    check "README block $i ran as written ($(head -c 60 "$WORK/block.$i" | head -1))" grep -qx "__block $i ok" "$WORK/marks"
done
check "the README's shell exited 0" test "$RC" -eq 0
check "the walkthrough replicated: node 2 read the greeting" grep -q "value: hello" "$WORK/readme.out"
check "the mock replica was admitted by fleet-join" grep -q "fleet-join: admitted" "$WORK/readme.out"
if [ "$FAILS" -gt 0 ]; then
    echo "# README output:"
    sed 's/^/#   /' "$WORK/readme.out" | tail -40
fi
# the README's last block stops its nodes; whatever a failed run left behind ends here
no_run_json() { ! ls "$T"/tmp.*/n*/run.json >/dev/null 2>&1; }
check "the README's nodes stopped (each removed its run.json)" wait_for 10 no_run_json
kill -KILL -- -"$RUNNER" 2>/dev/null
finish
