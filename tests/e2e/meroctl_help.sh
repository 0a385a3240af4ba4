#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# meroctl_help.sh - help that explains and completion for every shell (issue 35 items 2-3),
# offline (no node). For every command: `meroctl CMD --help` and `meroctl help CMD` print the
# same text, exit 0, and describe every --flag the usage line names (the option table and the
# usage agree both ways); man/meroctl.1 has an entry for the command whose synopsis names every
# option of the table as `Fl`, and its allowed values as `Ar` (never a bare word after `Fl`,
# which renders a stray '-'); `merod --help` describes each of its flags. Completion: the
# scripts equal the committed share/ files; each is run in its own shell (bash, zsh with
# compadd/_files recorded, fish's `complete -C`) for every command, and none offers an option
# twice; an option's allowed values follow it. mandoc -T lint passes on the pages. Prints TAP.
set -u
M=${MERO_BIN:?}/meroctl
D=${MERO_BIN:?}/merod
ROOT=${MERO_ROOT:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/meroctl-help.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1 # $2"; }

# every command path, from `meroctl --help` (two-space indent, then the path and its usage)
"$M" --help >"$T/top" || nok "meroctl --help" "exit $?"
mapfile -t CMDS < <("$M" --json completion bash | jq -r .script | sed -n "s/^        '\([^|]*\)|.*/\1/p")
[ "${#CMDS[@]}" -gt 30 ] && ok "the registry lists ${#CMDS[@]} commands" || nok "commands" "${#CMDS[@]}"

bad_help= bad_man= bad_stray=
for c in "${CMDS[@]}"; do
    read -ra w <<<"$c"
    a=$("$M" "${w[@]}" --help 2>&1); rc1=$?
    b=$("$M" help "${w[@]}" 2>&1); rc2=$?
    if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ] || [ "$a" != "$b" ]; then bad_help+=" [$c: --help/help differ or fail]"; continue; fi
    usage=$(head -1 <<<"$a")
    # flags named in the usage line, and flags described under "options:"
    used=$(grep -oE '(^| |\[|\(|\|)--[a-z0-9-]+' <<<"${usage#usage: meroctl }" | sed 's/^[ [(|]//' | sort -u)
    desc=$(sed -n '/^options:/,/^$/p' <<<"$a" | grep -oE '^  --[a-z0-9-]+' | sed 's/^  //' | sort -u)
    [ "$used" = "$desc" ] || bad_help+=" [$c: usage names {$(echo $used)} but options describe {$(echo $desc)}]"
    # the man page: an entry for the command naming each option
    line=$(grep -E "^\.It Cm $c( |$)" "$ROOT/man/meroctl.1" | head -1)
    if [ -z "$line" ]; then bad_man+=" [$c: no .It Cm entry]"; continue; fi
    for f in $desc; do
        all=$(grep -E "^\.It Cm $c( |$)" "$ROOT/man/meroctl.1" | tr '\n' ' ')
        grep -qE -- "Fl ${f#-}( |$)" <<<"$all" || bad_man+=" [$c: man synopsis lacks $f]"
    done
done
[ -z "$bad_help" ] && ok "every command: CMD --help = help CMD, and every usage flag is described" || nok "help" "$bad_help"
[ -z "$bad_man" ] && ok "man/meroctl.1 has every command with every option of its table" || nok "man" "$bad_man"
# Fl followed by a bare word (not a flag, not a macro) renders as a stray '-' before it
stray=$(grep -nE '(^|[ .])Fl -[a-z0-9-]+ [A-Za-z][A-Za-z|]*( |$)' "$ROOT"/man/*.[18] | grep -vE 'Fl -[a-z0-9-]+ (Ar|Oc|Op|Oo|Fl|Cm|Ns|No|Li|Pq|Ql|Sh|Xr|Nm|Ic|Ev|Pa) ' || true)
[ -z "$stray" ] && ok "man pages: no bare word after Fl (a stray '-')" || nok "stray Fl" "$stray"
unclosed=$(mandoc -T utf8 "$ROOT/man/meroctl.1" | col -b | grep -E '\[[^]]*\[' | grep -v -- '--watch \[secs\]' || true)
[ -z "$unclosed" ] && ok "man/meroctl.1 synopses: no option nested in another's brackets" || nok "nested brackets" "$unclosed"
grep -q 'Xr calimero-tee-verify 1' "$ROOT/man/meroctl.1" && grep -q 'Xr calimero-tee-verify 1' "$ROOT/man/merod.8" &&
    grep -q 'Xr meroctl 1' "$ROOT/man/calimero-tee-verify.1" && grep -q 'Xr merod 8' "$ROOT/man/meroctl.1" &&
    ok "SEE ALSO lists the other pages" || nok "SEE ALSO" "a page is missing"
lint=$(mandoc -T lint -W warning "$ROOT"/man/*.[18] 2>&1) && ok "mandoc -T lint -W warning: clean" || nok "mandoc lint" "$lint"
"$M" help no-such-command >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && ok "help of an unknown command: exit 1" || nok "help unknown" "exit $rc"
out=$("$M" help group 2>&1) && grep -q "group members add" <<<"$out" && ok "help GROUP-PREFIX lists the commands below it" || nok "help prefix" "$out"
out=$("$M" group members add --help)
grep -q "one of: Admin|Member|ReadOnly; default: Member" <<<"$out" && ok "an option's allowed values and default are shown" || nok "values/default" "$out"

# merod --help describes each flag its synopsis names
out=$("$D" --help); rc=$?
miss=
for f in $(grep -oE -- '--[a-z-]+' <<<"$(sed -n '/^usage/,/^$/p' <<<"$out")" | sort -u); do
    [ "$f" = --version ] && continue
    grep -qE "^  $f( |$)" <<<"$out" || miss+=" $f"
done
[ $rc -eq 0 ] && [ -z "$miss" ] && ok "merod --help describes every flag (--test, --announce, ...)" || nok "merod --help" "rc=$rc missing:$miss"
out=$("$D" run --help | sed '1,/^$/d') && grep -q -- "--announce MULTIADDR" <<<"$out" && ! grep -q -- "--listen" <<<"$out" &&
    ok "merod run --help: run's flags only" || nok "merod run --help" "$out"

# ---- completion ----
for sh in bash zsh fish; do
    case $sh in bash) f=share/bash-completion/meroctl ;; zsh) f=share/zsh/_meroctl ;; fish) f=share/fish/meroctl.fish ;; esac
    "$M" completion $sh >"$T/c.$sh"
    cmp -s "$T/c.$sh" "$ROOT/$f" && ok "completion $sh equals the committed $f" || nok "completion $sh" "differs from $f"
done
# candidates: one per line, for the words given (the last one is being completed)
cand_bash() { bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _meroctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$T/c.bash" "$@"; }
cand_zsh() {
    zsh -f -c 'compadd() { local a; for a in "$@"; do [[ $a == -- || $a != "$PREFIX"* ]] || print -r -- $a; done }
        _files() { :; }; compdef() { :; }; source "$1"; shift; words=("$@"); CURRENT=$#; PREFIX=${words[CURRENT]}; _meroctl' _ "$T/c.zsh" "$@"
}
cand_fish() { local l="$*"; fish -N -c "source $T/c.fish; complete -C '$l'" | cut -f1; }
for sh in bash zsh fish; do
    if ! command -v $sh >/dev/null; then echo "ok $((n += 1)) - # SKIP $sh not installed"; continue; fi
    dup= none=
    for c in "${CMDS[@]}"; do
        read -ra w <<<"$c"
        got=$(cand_$sh meroctl "${w[@]}" -- 2>/dev/null | grep -- '^-' | sort)
        [ -n "$got" ] || none+=" [$c]"
        d=$(uniq -d <<<"$got")
        [ -z "$d" ] || dup+=" [$c: $(echo $d)]"
        for f in $("$M" "${w[@]}" --help | sed -n '/^options:/,/^$/p' | grep -oE '^  --[a-z0-9-]+'); do
            grep -qx -- "$f" <<<"$got" || dup+=" [$c: $f not offered]"
        done
    done
    [ -z "$dup" ] && [ -z "$none" ] && ok "$sh: every command's options offered, none twice" || nok "$sh options" "dup/missing:$dup none:$none"
    got=$(cand_$sh meroctl group members add G I --role "" 2>/dev/null | sort | tr '\n' ' ')
    [ "$got" = "Admin Member ReadOnly " ] && ok "$sh: --role is followed by its values only" || nok "$sh --role values" "$got"
    got=$(cand_$sh meroctl --node U gr 2>/dev/null | tr '\n' ' ')
    [ "$got" = "group " ] && ok "$sh: a command word after a global option's value" || nok "$sh command word" "$got"
done
echo "1..$n"
