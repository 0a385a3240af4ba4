#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# demo.sh BUILD_DIR - `make run`: the fleet-admission story on loopback, told step by step.
# (Filled in by the admission work; until then it shows the library's first layer.)
set -eu
B=${1:-build/release}
echo "mero: the fleet demo needs merod; see README.md for what is built so far."
"$B/bin/meroctl" version
