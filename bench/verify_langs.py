#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# verify_langs.py - the Python side of bench/verify_langs.bench.sh: python/mero_verify.py
# (ctypes over libmero.so) judging one request N times per round after a warm-up (collateral
# cached), median round. Prints `bench verify_python_json <us> us` (verify_json on the request
# text) and `bench verify_python <us> us` (verify() with Python arguments: the request is
# built and serialised on every call, as a caller would); each also as `..._cpu`, the
# process's CPU time per verification (the C call runs in this process).
# With NOCOLL.json (the same request without collateral, which is then fetched once and served
# from the fetch cache), also `bench verify_python_fetchcache`.
# Usage: verify_langs.py REQUEST.json [N [NOCOLL.json]]   (env MERO_LIBMERO, MERO_ROOT)
import base64
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.environ["MERO_ROOT"], "python"))
import mero_verify  # noqa: E402

text = open(sys.argv[1], "rb").read()
n = int(sys.argv[2]) if len(sys.argv) > 2 else 300
req = json.loads(text)
args = (base64.b64decode(req["quote_b64"]) if "quote_b64" in req else bytes.fromhex(req["quote_hex"]),
        bytes.fromhex(req["nonce_hex"]), bytes.fromhex(req["app_hash_hex"]), req["collateral"],
        req["time_unix"])


def median(fn):
    for _ in range(20):
        fn()
    per, cpu = [], []
    for _ in range(7):
        t0, c0 = time.perf_counter_ns(), time.process_time_ns()
        for _ in range(n):
            fn()
        per.append((time.perf_counter_ns() - t0) / 1000 / n)
        cpu.append((time.process_time_ns() - c0) / 1000 / n)
    return sorted(per)[len(per) // 2], sorted(cpu)[len(cpu) // 2]


assert mero_verify.verify(*args)["valid"] is True
runs = [("verify_python_json", lambda: mero_verify.verify_json(text)),
        ("verify_python", lambda: mero_verify.verify(*args))]
if len(sys.argv) > 3:
    nc = args[:3] + (None, args[4])
    assert mero_verify.verify(*nc)["valid"] is True
    runs.append(("verify_python_fetchcache", lambda: mero_verify.verify(*nc)))
for name, fn in runs:
    wall, cpu = median(fn)
    print("bench %s %.1f us" % (name, wall))
    print("bench %s_cpu %.1f us" % (name, cpu))
