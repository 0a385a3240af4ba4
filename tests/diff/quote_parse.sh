#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# quote_parse.sh - differential test: every real TDX quote parsed by `meroctl --json quote
# parse` and by @phala/dcap-qvl (tests/js/quote_fields.mjs) must give the same header, body,
# signature, attestation key, QE report, QE report signature, QE auth data and PCK chain.
set -u
ROOT=${MERO_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED=${MERO_SHARED:-$ROOT/../shared}
BIN=${MERO_BIN:-$ROOT/build/release/bin}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mero-qdiff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
quotes=("$SHARED"/testdata/tdx/*/quote.bin "$SHARED"/testdata/tdx/parse-only/*/quote.bin)
echo "1..${#quotes[@]}"
n=0
have_node=1
command -v node >/dev/null 2>&1 && [ -d "$ROOT/tests/js/node_modules/@phala/dcap-qvl" ] || have_node=0
for f in "${quotes[@]}"; do
    n=$((n + 1))
    name=${f#"$SHARED"/testdata/}
    if [ "$have_node" -eq 0 ]; then
        echo "ok $n - $name # SKIP node or @phala/dcap-qvl not installed"
        continue
    fi
    if ! timeout 30 "$BIN/meroctl" --json quote parse "$f" >"$tmp/mero.json" 2>"$tmp/err"; then
        echo "not ok $n - $name # meroctl failed: $(head -c 200 "$tmp/err")"
        continue
    fi
    if ! (cd "$ROOT/tests/js" && timeout 30 node quote_fields.mjs "$f") >"$tmp/js.json" 2>"$tmp/err"; then
        echo "not ok $n - $name # dcap-qvl failed: $(head -c 200 "$tmp/err")"
        continue
    fi
    jq -S '{kind: (if .quote.body.tdxVersion == "1.5" then "td15" else "td10" end),
            header: .quote.header, body: (.quote.body | del(.tdxVersion)),
            signature: .quote.signature, attestationKey: .quote.attestationKey,
            qeReport: .quote.certificationData.data.qeReport,
            qeReportSignature: .quote.certificationData.data.signature,
            qeAuthenticationData: .quote.certificationData.data.qeAuthenticationData,
            certificationData: .quote.certificationData.data.certificationData}' \
        "$tmp/mero.json" >"$tmp/a" 2>/dev/null
    jq -S . "$tmp/js.json" >"$tmp/b" 2>/dev/null
    if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name # fields differ: $(diff "$tmp/a" "$tmp/b" | head -c 300 | tr '\n' ' ')"
    fi
done
