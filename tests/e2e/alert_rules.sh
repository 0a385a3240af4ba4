#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# alert_rules.sh - the example alerting rules shipped in share/prometheus/mero-alerts.yml
# (issue 35 item 5): `promtool check rules` accepts them; `promtool test rules` runs
# tests/e2e/alert_rules.test.yml (evidence lapsing fires after its `for`, not before; fresh
# evidence and an UpToDate TCB fire nothing); every metric the rules name is one merod exports
# (docs/metrics.md lists it), so a renamed metric cannot leave a rule silently matching
# nothing. Offline: nothing is started. Prints TAP.
set -u
ROOT=${MERO_ROOT:?}
R=$ROOT/share/prometheus/mero-alerts.yml
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1 # $2"; }
if ! command -v promtool >/dev/null; then nok "promtool is installed (scripts/deps.sh)" "missing"; echo "1..$n"; exit 1; fi
out=$(promtool check rules "$R" 2>&1) && ok "promtool check rules: $(grep -o '[0-9]* rules found' <<<"$out")" || nok "promtool check rules" "$out"
out=$(cd "$ROOT/tests/e2e" && promtool test rules alert_rules.test.yml 2>&1) && ok "promtool test rules: the alerts fire when they should, not before" || nok "promtool test rules" "$out"
miss=
for m in $(grep -oE '\bmero_[a-z_]+' "$R" | sort -u); do
    grep -q "\`$m\`" "$ROOT/docs/metrics.md" || miss+=" $m"
done
[ -z "$miss" ] && ok "every mero_* metric the rules use is documented in docs/metrics.md" || nok "rules name unknown metrics" "$miss"
echo "1..$n"
