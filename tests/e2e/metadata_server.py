#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# metadata_server.py IMAGE_PATH - a local stand-in for the GCP metadata server, bound to
# 127.0.0.1 on an ephemeral port (printed as the first stdout line). GET
# /computeMetadata/v1/instance/image answers IMAGE_PATH when the request carries
# `Metadata-Flavor: Google` (403 without it, as the real server does); anything else is 404.
# GET /count answers how many image requests were made.
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

IMAGE = sys.argv[1].encode()
count = 0
lock = threading.Lock()


class H(BaseHTTPRequestHandler):
    def reply(self, code, body):
        self.send_response(code)
        self.send_header("Content-Type", "application/text")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        global count
        if self.path == "/count":
            with lock:
                n = count
            self.reply(200, str(n).encode())
        elif self.path == "/computeMetadata/v1/instance/image":
            with lock:
                count += 1
            if self.headers.get("Metadata-Flavor") != "Google":
                self.reply(403, b"Missing Metadata-Flavor:Google header.")
            else:
                self.reply(200, IMAGE)
        else:
            self.reply(404, b"not found")

    def log_message(self, *a):
        pass


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
