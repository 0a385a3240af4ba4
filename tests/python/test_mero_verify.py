#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# test_mero_verify.py - python/mero_verify.py (ctypes over libmero.so) against the
# calimero-tee-verify binary on every request of tests/support/verify_cases.py: every genuine
# case, flipped copies, unusable input, no verdict. verify() must return the CLI's stdout
# document as a dict (exit 0) or raise InputError / NoVerdict carrying the CLI's exit status and
# document; verify_json() must return (exit status, document) for any request line; 8 threads
# verifying at once must get the single-thread answers. Prints TAP.
# Env: MERO_BIN (calimero-tee-verify), MERO_LIBMERO (libmero.so.0), MERO_SHARED, MERO_ROOT.
import base64
import json
import os
import subprocess
import sys
import threading

ROOT = os.environ["MERO_ROOT"]
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
import mero_verify  # noqa: E402
import verify_cases  # noqa: E402

BIN = os.path.join(os.environ["MERO_BIN"], "calimero-tee-verify")
n = 0
failed = 0


def check(cond, name, why=""):
    global n, failed
    n += 1
    if cond:
        print("ok %d - %s" % (n, name))
    else:
        failed += 1
        print("not ok %d - %s # %s" % (n, name, why[:300]))


def line_of(req):
    return req if isinstance(req, str) else json.dumps(req, separators=(",", ":"))


def one_shot(req):
    p = subprocess.run([BIN], input=(line_of(req) + "\n").encode(), capture_output=True,
                       timeout=60)
    return p.returncode, json.loads(p.stdout)


def args_of(req):
    """verify()'s arguments for a request, or None when verify() cannot express it."""
    if not isinstance(req, dict) or set(req) - {"quote_b64", "quote_hex", "nonce_hex",
                                               "app_hash_hex", "collateral", "time_unix"}:
        return None
    quote = (base64.b64decode(req["quote_b64"]) if "quote_b64" in req
             else bytes.fromhex(req["quote_hex"]))
    nonce = req["nonce_hex"]
    try:
        nonce = bytes.fromhex(nonce)  # bytes where they are bytes, else the text verbatim
    except ValueError:
        pass
    return (quote, nonce, req["app_hash_hex"], req.get("collateral"), req.get("time_unix"))


def through_verify(args):
    try:
        return 0, mero_verify.verify(*args)
    except mero_verify.VerifyError as e:
        want = mero_verify.InputError if e.exit_code == 1 else mero_verify.NoVerdict
        return (e.exit_code if isinstance(e, want) else -1), e.document


cases = verify_cases.cases(os.environ["MERO_SHARED"])
check(len(cases) >= 40, "%d shared cases" % len(cases))
check(os.path.realpath(mero_verify.library_path()) == os.path.realpath(
    os.environ["MERO_LIBMERO"]), "the library loaded is $MERO_LIBMERO", mero_verify.library_path())

expected = {}
valid = 0
for name, req in cases:
    want = one_shot(req)
    expected[name] = want
    valid += want[0] == 0 and want[1].get("valid") is True
    check(mero_verify.verify_json(line_of(req)) == want, "verify_json: " + name,
          "want %r" % (want,))
    args = args_of(req)
    if args is not None:
        got = through_verify(args)
        check(got == want, "verify(): " + name, "got %r want %r" % (got, want))
check(valid >= 5, "%d genuine cases valid through the CLI" % valid)

# the dict is the CLI's document member for member, in the CLI's order too
name, req = cases[0]
doc = mero_verify.verify(*args_of(req))
check(list(doc) == list(expected[name][1]) and doc["valid"] is True, "member order kept")

# threads: 8 threads, each verifying every verdict case 3 times, all at once
verdicts = [(name, args_of(req)) for name, req in cases
            if args_of(req) is not None and expected[name][0] == 0]
bad = []


def worker():
    for _ in range(3):
        for name, args in verdicts:
            got = through_verify(args)
            if got != expected[name]:
                bad.append(name)


threads = [threading.Thread(target=worker) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
check(not bad, "8 threads x %d verifications agree with the CLI" % (3 * len(verdicts)),
      ", ".join(sorted(set(bad))))
try:
    mero_verify.verify(b"\x00" * 10, b"\x00" * 32, b"\x00" * 31)
    check(False, "a 31-byte app hash is an InputError", "no exception")
except mero_verify.InputError as e:
    check(e.exit_code == 1 and "app_hash_hex" in str(e), "a 31-byte app hash is an InputError",
          str(e))
print("1..%d" % n)
sys.exit(1 if failed else 0)
