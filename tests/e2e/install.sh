#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# install.sh - `make install` (docs/install.md): into a temporary PREFIX, then a small C program
# built with `pkg-config --cflags --libs mero` (shared, and static with --static) runs against
# it; the installed Python module loads the installed libmero.so.0; into a DESTDIR staging tree
# with PREFIX=/usr, the paths inside mero.pc and merod.service are the final ones. Also: the
# product only (no test binaries), headers, man pages, data file, unit hardening, the soname,
# and plain `make` never reaches for npm (only the test targets do). The TSan lane builds no
# libmero.so and skips. Prints TAP.
set -u
ROOT=${MERO_ROOT:?}
BUILD=${MERO_BUILD:?}
LANE=$(basename "$BUILD")
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1 # $2"; }
if [ "$LANE" = tsan ]; then
    echo "1..1"
    echo "ok 1 # skip the TSan lane builds no libmero.so"
    exit 0
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/mero-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
scripts_deps() { "$ROOT/scripts/deps.sh" "$@"; }
mk() { env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -C "$ROOT" --no-print-directory BUILD="$LANE" "$@"; }
SAN=()
if [ "$LANE" = asan ]; then
    SAN=(-fsanitize=address,undefined)
    export ASAN_OPTIONS=detect_leaks=0
fi

# ---- plain make needs no npm: the deps stamp rebuilt alone never mentions npm ----
plain=$(mk -n -W scripts/deps.sh -W tests/js/package.json all 2>&1)
tests=$(mk -n -W tests/js/package.json build/.npm-ok 2>&1)
if [[ "$plain" == *scripts/deps.sh* ]] && [[ "$plain" != *npm* ]] && [[ "$tests" == *"deps.sh --test"* ]]; then
    ok "plain make runs scripts/deps.sh without npm; the test targets' stamp adds the npm peers"
else nok "plain make without npm" "make -n all: $(grep -m2 -E 'deps|npm' <<<"$plain" | tr '\n' '|')"; fi
# issue 35 item 7: make and make run install only what building and running need; the test
# tools come with the test targets' stamp (deps.sh --test) alone
run=$(mk -n -W scripts/deps.sh -W tests/js/package.json run 2>&1)
base=" $(scripts_deps --list | tr '\n' ' ')"
full=" $(scripts_deps --list --test | tr '\n' ' ')"
testonly=
for p in chromium prometheus clang-14 clang-format cppcheck cmake mandoc strace nodejs npm; do
    [[ "$base" == *" $p "* ]] && testonly+=" $p"
done
if [[ "$run" != *"deps.sh --test"* ]] && [[ "$run" == *scripts/deps.sh* ]] && [ -z "$testonly" ] &&
    [[ "$full" == *" chromium "* ]] && [[ "$full" == *" prometheus "* ]] && [[ "$full" == *" cppcheck "* ]] &&
    [[ "$full" == *" cmake "* ]] &&
    [[ "$base" == *" libsodium-dev "* ]] && [[ "$base" == *" jq "* ]]; then
    ok "make and make run install only the build and run packages; chromium, prometheus, clang, cppcheck only with --test"
else nok "make run installs only what it needs" "base:$base test-only in base:$testonly"; fi
lacking=
for t in test lint fuzz bench; do
    [[ "$(mk -n -W scripts/deps.sh "$t" 2>&1)" == *"deps.sh --test"* ]] || lacking+=" $t"
done
[ -z "$lacking" ] && ok "make test, lint, fuzz and bench install the test tools (deps.sh --test)" ||
    nok "the test targets install the test tools" "no deps.sh --test for:$lacking"

# ---- install into a temporary prefix ----
P=$T/prefix
if mk install PREFIX="$P" >"$T/install.log" 2>&1; then ok "make install PREFIX=<tmp>"
else nok "make install PREFIX=<tmp>" "$(tail -n 5 "$T/install.log" | tr '\n' '|')"; fi
missing=
for f in bin/merod bin/meroctl bin/calimero-tee-verify lib/libmero.a lib/libmero.so.0.1.0 \
    lib/pkgconfig/mero.pc include/mero/tee_verify.h include/mero/quote.h share/man/man1/meroctl.1 \
    share/man/man1/calimero-tee-verify.1 share/man/man8/merod.8 share/mero/sigstore/trusted_root.json \
    lib/systemd/system/merod.service lib/python3/dist-packages/mero_verify.py; do
    [ -e "$P/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok "library, headers, pkg-config file, binaries, man pages, data, unit, Python module installed" ||
    nok "installed files" "missing:$missing"
nh_src=$(ls "$ROOT"/include/mero/*.h | wc -l)
nh_dst=$(ls "$P"/include/mero/*.h | wc -l)
[ "$nh_src" = "$nh_dst" ] && ok "every public header ($nh_dst)" || nok "headers" "$nh_dst of $nh_src"
[ ! -e "$P/bin/mero_p2p_test" ] && [ "$(ls "$P/bin" | wc -l)" = 3 ] &&
    ok "only the product's binaries (no mero_p2p_test)" || nok "test binaries installed" "$(ls "$P/bin" | tr '\n' ' ')"
if [ "$(readlink "$P/lib/libmero.so")" = libmero.so.0 ] && [ "$(readlink "$P/lib/libmero.so.0")" = libmero.so.0.1.0 ] &&
    readelf -d "$P/lib/libmero.so.0.1.0" | grep -q 'SONAME.*\[libmero.so.0\]'; then
    ok "libmero.so -> libmero.so.0 -> libmero.so.0.1.0, soname libmero.so.0"
else nok "soname and links" "$(readelf -d "$P/lib/libmero.so.0.1.0" | grep SONAME)"; fi
U=$P/lib/systemd/system/merod.service
hard=
for k in ProtectSystem=strict NoNewPrivileges=yes PrivateTmp=yes StateDirectory=merod ProtectHome=yes \
    "ExecStart=$P/bin/merod run --home"; do
    grep -q "^$k" "$U" || hard="$hard $k"
done
[ -z "$hard" ] && ok "merod.service: hardening, state directory, ExecStart under the prefix" || nok "unit" "missing:$hard"
cmp -s "$ROOT/share/bash-completion/meroctl" "$P/share/bash-completion/completions/meroctl" &&
    ok "meroctl bash completion installed" || nok "bash completion" "not installed or not the shipped file"
cmp -s "$ROOT/share/zsh/_meroctl" "$P/share/zsh/vendor-completions/_meroctl" &&
    cmp -s "$ROOT/share/fish/meroctl.fish" "$P/share/fish/vendor_completions.d/meroctl.fish" &&
    ok "meroctl zsh and fish completion installed" || nok "zsh/fish completion" "not installed or not the shipped files"
cmp -s "$ROOT/share/prometheus/mero-alerts.yml" "$P/share/mero/prometheus/mero-alerts.yml" &&
    ok "the example alert rules installed" || nok "alert rules" "not installed under share/mero/prometheus"

# ---- a small program against the installed library, through pkg-config ----
cat >"$T/prog.c" <<'PROG'
/* Build a mock quote, judge it with libmero, and run one request through the CLI contract. */
#include <stdio.h>
#include <string.h>

#include <mero/mock.h>
#include <mero/tee_verify.h>

int main(void)
{
    uint8_t rd[64], q[MERO_MOCK_QUOTE_LEN];
    struct mero_mock_result r;
    struct mero_err err;
    memset(rd, 0x5a, sizeof(rd));
    mero_mock_quote_create(q, rd);
    if (mero_mock_verify(q, sizeof(q), rd, rd + 32, &r, &err) != 0 || !r.nonce_verified ||
        !r.application_hash_verified || strcmp(r.tcb_status, "Mock") != 0) {
        return 3;
    }
    char *doc = NULL;
    size_t len = 0;
    int code = mero_tee_verify_json_alloc("[1]", 3, 0, &doc, &len);
    printf("mock ok, exit %d, %s\n", code, doc != NULL ? doc : "(null)");
    mero_tee_verify_free(doc);
    return code == 1 ? 0 : 4;
}
PROG
export PKG_CONFIG_PATH=$P/lib/pkgconfig
# issue 35 item 7: the paths are ${prefix}-relative, so a moved tree is found again
if grep -qx 'libdir=${prefix}/lib' "$P/lib/pkgconfig/mero.pc" && grep -qx 'includedir=${prefix}/include' "$P/lib/pkgconfig/mero.pc" &&
    [ "$(pkg-config --define-variable=prefix=/elsewhere --variable=libdir mero)" = /elsewhere/lib ]; then
    ok "mero.pc: libdir and includedir relative to \${prefix}"
else nok "mero.pc prefix-relative" "$(grep dir= "$P/lib/pkgconfig/mero.pc" | tr '\n' ' ')"; fi
cflags=$(pkg-config --cflags mero 2>"$T/pc.err")
libs=$(pkg-config --libs mero 2>>"$T/pc.err")
libdir=$(pkg-config --variable=libdir mero)
if cc "${SAN[@]}" $cflags "$T/prog.c" -o "$T/prog" $libs -Wl,-rpath,"$libdir" 2>"$T/cc.err"; then
    out=$("$T/prog" 2>&1)
    rc=$?
    if [ "$rc" = 0 ] && [[ "$out" == *'exit 1, {"error":"stdin is not JSON: expected one object"}'* ]] &&
        ldd "$T/prog" | grep -q "libmero.so.0 => $P/lib/libmero.so.0"; then
        ok "a C program built with pkg-config --cflags --libs mero runs against the installed libmero.so.0"
    else nok "the program runs" "rc=$rc $out"; fi
else nok "a C program builds with pkg-config" "$(head -c 300 "$T/cc.err" "$T/pc.err" | tr '\n' '|')"; fi
# libmero.a with its Requires.private as shared libraries (Debian ships them shared only)
slibs="$(pkg-config --libs mero | sed 's/-lmero\b/-l:libmero.a/') $(pkg-config --libs $(pkg-config --print-requires-private mero)) -lpthread -lm"
if cc "${SAN[@]}" $cflags "$T/prog.c" -o "$T/prog-static" $slibs 2>"$T/cc.err" && "$T/prog-static" >/dev/null 2>&1 &&
    ! ldd "$T/prog-static" | grep -q libmero; then
    ok "the same program links libmero.a with its Requires.private (complete)"
else nok "static link" "$(head -c 300 "$T/cc.err" | tr '\n' '|')"; fi
if [ "$LANE" != asan ]; then
    # issue 35 item 7: no LD_LIBRARY_PATH: the installed module knows the install's libdir
    got=$(cd "$T" && PYTHONPATH=$P/lib/python3/dist-packages MERO_LIBMERO= python3 -c \
        'import mero_verify as m; print(m.verify_json("[1]")[0], m.library_path())' 2>&1)
    [ "$got" = "1 $P/lib/libmero.so.0" ] && ok "the installed Python module loads libmero.so.0 from the install's libdir" ||
        nok "installed Python module" "$got"
    # under a prefix python3 searches (its own sys.prefix: /usr for Debian's), the module goes
    # where python3 finds it
    pp=$(python3 -c 'import sys; print(sys.prefix)')
    pyd=$(make -s -C "$ROOT" -n install PREFIX="$pp" BUILD="$BUILD" 2>/dev/null | sed -n "s|.*>\\($pp/[^ ]*\\)/mero_verify.py\$|\\1|p" | head -1)
    if [ -n "$pyd" ] && python3 -c 'import sys; sys.exit(0 if sys.argv[1] in sys.path else 1)' "$pyd"; then
        ok "PREFIX=$pp: the module goes to $pyd, on python3's sys.path"
    else nok "python module dir under python3's prefix" "'$pyd' not on sys.path"; fi
fi

# ---- staged: DESTDIR + PREFIX=/usr ----
S=$T/stage
if mk install DESTDIR="$S" PREFIX=/usr >"$T/stage.log" 2>&1 && [ -x "$S/usr/bin/merod" ] &&
    grep -q '^prefix=/usr$' "$S/usr/lib/pkgconfig/mero.pc" &&
    grep -q '^Requires.private: libsodium libuv libmicrohttpd jansson sqlite3 libcurl openssl$' "$S/usr/lib/pkgconfig/mero.pc" &&
    grep -q '^ExecStart=/usr/bin/merod run' "$S/usr/lib/systemd/system/merod.service" &&
    [ "$(find "$S" -path "$S/usr" -prune -o -print | wc -l)" = 1 ]; then
    ok "DESTDIR staging: everything under DESTDIR/usr, final paths inside mero.pc and merod.service"
else nok "DESTDIR staging" "$(tail -n 3 "$T/stage.log" | tr '\n' '|')"; fi
if command -v systemd-analyze >/dev/null; then
    if systemd-analyze verify --man=no "$S/usr/lib/systemd/system/merod.service" 2>&1 |
        grep -v -e 'merod is not executable' -e '^$' | grep -q .; then
        nok "systemd-analyze verify merod.service" "$(systemd-analyze verify --man=no "$S/usr/lib/systemd/system/merod.service" 2>&1 | head -3 | tr '\n' '|')"
    else ok "systemd-analyze verify: merod.service has no error beyond the staged binary's path"; fi
fi
echo "1..$n"
