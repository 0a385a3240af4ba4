#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pcs_server.py - a local stand-in for Intel PCS / a PCCS, for tests only.

Serves one case's collateral (a QuoteCollateralV3 JSON file from ../shared) in PCS v4 form on
127.0.0.1 (ephemeral port, written to --port-file):
  GET /sgx/certification/v4/pckcrl?ca=...&encoding=der   DER body, SGX-PCK-CRL-Issuer-Chain
  GET /tdx/certification/v4/tcb?fmspc=...                {"tcbInfo":...,"signature":...},
                                                          TCB-Info-Issuer-Chain
  GET /tdx/certification/v4/qe/identity?update=standard  {"enclaveIdentity":...,"signature":...},
                                                          SGX-Enclave-Identity-Issuer-Chain
  GET /sgx/certification/v4/rootcacrl                    hex of the root CA CRL (PCCS form)
  GET /_count                                            requests served so far (not counted)
Issuer chains are URL-encoded like PCS does. --mode 404|500|garbage|slow makes every
collateral request fail that way (slow: sleeps --delay seconds first); --mode sigfirst serves
the signed bodies with "signature" first and extra whitespace.
"""
import argparse
import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--collateral", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--mode", default="ok")
    ap.add_argument("--delay", type=float, default=5.0)
    a = ap.parse_args()
    c = json.load(open(a.collateral))
    fmspc = json.loads(c["tcb_info"])["fmspc"].lower()
    count = [0]
    lock = threading.Lock()

    def signed(key, text, sig):
        if a.mode == "sigfirst":  # another PCCS's order, with whitespace (openenclave#4308)
            return ('{ "signature" : "%s" ,\n  "%s" :  %s }\n' % (sig, key, text)).encode()
        return ('{"%s":%s,"signature":"%s"}' % (key, text, sig)).encode()

    class H(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send(self, code, body, headers=()):
            self.send_response(code)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            u = urllib.parse.urlparse(self.path)
            q = urllib.parse.parse_qs(u.query)
            if u.path == "/_count":
                with lock:
                    n = count[0]
                return self.send(200, str(n).encode())
            with lock:
                count[0] += 1
            if a.mode == "404":
                return self.send(404, b"not found")
            if a.mode == "500":
                return self.send(500, b"internal error")
            if a.mode == "garbage":
                return self.send(200, b"\x00garbage{]not collateral")
            if a.mode == "slow":
                time.sleep(a.delay)
            qc = lambda s: urllib.parse.quote(s, safe="")
            if u.path == "/sgx/certification/v4/pckcrl":
                if q.get("encoding") != ["der"] or q.get("ca", [""])[0] not in ("platform",
                                                                                 "processor"):
                    return self.send(400, b"bad request")
                return self.send(200, bytes.fromhex(c["pck_crl"]),
                                 [("SGX-PCK-CRL-Issuer-Chain", qc(c["pck_crl_issuer_chain"]))])
            if u.path == "/tdx/certification/v4/tcb":
                if q.get("fmspc", [""])[0].lower() != fmspc:
                    return self.send(404, b"no such fmspc")
                return self.send(200, signed("tcbInfo", c["tcb_info"], c["tcb_info_signature"]),
                                 [("TCB-Info-Issuer-Chain", qc(c["tcb_info_issuer_chain"]))])
            if u.path == "/tdx/certification/v4/qe/identity":
                return self.send(200, signed("enclaveIdentity", c["qe_identity"],
                                             c["qe_identity_signature"]),
                                 [("SGX-Enclave-Identity-Issuer-Chain",
                                   qc(c["qe_identity_issuer_chain"]))])
            if u.path == "/sgx/certification/v4/rootcacrl":
                return self.send(200, c["root_ca_crl"].encode())
            return self.send(404, b"unknown path")

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    srv.daemon_threads = True
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(a.port_file + ".tmp", a.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
