#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# verify_cases.py - the calimero-tee-verify requests the language-binding tests share
# (tests/e2e/tee_verify_serve.sh, tests/interop/verify_python.sh, tests/interop/verify_js.sh):
# every genuine TDX case under $MERO_SHARED/testdata/tdx that ships collateral, verified as of
# its fixed time with the quote's own report data as nonce and app hash, then flipped copies
# (wrong nonce, wrong app hash, a flipped byte in the signed TD report, a time 40 days after
# the collateral's), then requests that are unusable input or give no verdict.
# Prints one JSON object per line: {"name": ..., "request": {...} | "raw line"}.
# Usage: verify_cases.py [SHARED_DIR]    (default $MERO_SHARED)
import base64
import json
import os
import sys


def report_data(quote):
    """The 64 report-data bytes: v4 body at 48, v5 body after its 6-byte type/size header."""
    version = int.from_bytes(quote[0:2], "little")
    body = 48 if version == 4 else 54
    return quote[body + 520 : body + 584]


def collateral_file(folder):
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json") and "collateral" in name:
            return os.path.join(folder, name)
    return None


def cases(shared):
    out = []
    tdx = os.path.join(shared, "testdata", "tdx")
    for case in sorted(os.listdir(tdx)):
        folder = os.path.join(tdx, case)
        expected = os.path.join(folder, "expected.json")
        coll = collateral_file(folder) if os.path.isdir(folder) else None
        if coll is None or not os.path.exists(expected):
            continue
        with open(os.path.join(folder, "quote.bin"), "rb") as f:
            quote = f.read()
        with open(coll) as f:
            collateral = json.load(f)
        with open(expected) as f:
            when = json.load(f)["verify_time_unix"]
        rd = report_data(quote)
        base = {
            "nonce_hex": rd[:32].hex(),
            "app_hash_hex": rd[32:].hex(),
            "collateral": collateral,
            "time_unix": when,
        }
        # half the cases as base64, half as hex: both input forms are exercised
        if len(out) % 2 == 0:
            base = {"quote_b64": base64.b64encode(quote).decode(), **base}
        else:
            base = {"quote_hex": quote.hex(), **base}
        out.append((case, base))
        out.append((case + " wrong nonce", {**base, "nonce_hex": "00" * 32}))
        out.append((case + " wrong app hash", {**base, "app_hash_hex": "ff" * 32}))
        flipped = bytearray(quote)
        flipped[200] ^= 0x01  # inside the signed TD report
        fq = bytes(flipped)
        form = {"quote_b64": base64.b64encode(fq).decode()} if "quote_b64" in base else {
            "quote_hex": fq.hex()}
        out.append((case + " flipped report byte", {**base, **form}))
        out.append((case + " 40 days late", {**base, "time_unix": when + 40 * 86400}))
    first = out[0][1]
    out.append(("not JSON", "not json"))
    out.append(("not an object", "[1]"))
    out.append(("bad nonce hex", {**first, "nonce_hex": "xy"}))
    out.append(("unknown field", {**first, "Collateral": {}}))
    out.append(("quote deadbeef", {**first, "quote_b64": base64.b64encode(b"\xde\xad\xbe\xef").decode()}))
    mock = b"MOCK_TDX_QUOTE_V1" + bytes(64) + bytes(175)
    out.append(("mock quote", {**first, "quote_b64": base64.b64encode(mock).decode()}))
    return out


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("MERO_SHARED", "")
    for name, req in cases(shared):
        print(json.dumps({"name": name, "request": req}, separators=(",", ":")))


if __name__ == "__main__":
    main()
