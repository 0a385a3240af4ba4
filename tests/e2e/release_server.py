#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# release_server.py SHARED - a local stand-in for the mero-tee GitHub release download path,
# bound to 127.0.0.1 on an ephemeral port (printed as the first stdout line). It serves the
# real release assets from SHARED/testdata/mero-tee under /<scenario>/mero-tee-v<ver>/<asset>:
#   good        v2.3.87 as published
#   tampered    v2.3.87-tampered_fail (file changed by one byte, genuine .sig and bundle)
#   nobundle    good, but .bundle.json answers 404
#   nosig       good, but .sig answers 404
#   provenance  release-provenance.json served as published-mrtds.json (right signer, wrong file)
#   kms         kms-attestation-policy.json (signed by the KMS workflow)
#   slow        good, each response delayed by 3 s
#   anything else, or another version: 404.   GET /count answers the number of asset requests.
import base64
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SHARED = sys.argv[1]
MT = os.path.join(SHARED, "testdata", "mero-tee")
ASSET = "published-mrtds.json"
count = 0
lock = threading.Lock()


def read(*p):
    with open(os.path.join(MT, *p), "rb") as f:
        return f.read()


def sig_of(bundle):
    return json.loads(bundle)["base64Signature"].encode()


def scenario(name):
    good = {
        ASSET: read("v2.3.87", ASSET),
        ASSET + ".sig": read("v2.3.87", ASSET + ".sig"),
        ASSET + ".bundle.json": read("v2.3.87", ASSET + ".bundle.json"),
    }
    if name in ("good", "slow"):
        return good
    if name == "tampered":
        d = "v2.3.87-tampered_fail"
        return {a: read(d, a) for a in good}
    if name == "nobundle":
        return {k: v for k, v in good.items() if not k.endswith(".bundle.json")}
    if name == "nosig":
        return {k: v for k, v in good.items() if not k.endswith(".sig")}
    if name == "provenance":
        b = read("v2.3.87-release-provenance", "release-provenance.json.bundle.json")
        return {ASSET: read("v2.3.87-release-provenance", "release-provenance.json"),
                ASSET + ".sig": sig_of(b), ASSET + ".bundle.json": b}
    if name == "kms":
        d = "kms-v2.3.87-wrong-identity_fail"
        b = read(d, "kms-attestation-policy.json.bundle.json")
        return {ASSET: read(d, "kms-attestation-policy.json"), ASSET + ".sig": sig_of(b),
                ASSET + ".bundle.json": b}
    return {}


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def send(self, code, body):
        try:
            self.send_response(code)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            pass  # the client gave up (the slow scenario)

    def do_GET(self):
        global count
        parts = self.path.strip("/").split("/")
        if parts == ["count"]:
            with lock:
                return self.send(200, str(count).encode())
        with lock:
            count += 1
        if len(parts) != 3 or parts[1] != "mero-tee-v2.3.87":
            return self.send(404, b"not found")
        if parts[0] == "slow":
            time.sleep(3)
        files = scenario(parts[0])
        if parts[2] not in files:
            return self.send(404, b"not found")
        self.send(200, files[parts[2]])


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
print(srv.server_address[1], flush=True)
srv.serve_forever()
