#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# evidence_lifetime.sh - issue 16 "Evidence lifetime" across merod processes: a TEE (t1) whose
# own evidence passed the maximum age is refused as a voucher (with that reason) and its
# refresh loop (tee::evidence_retry) keeps prompting with a back-off; once an admitter is
# reachable again it publishes fresh TeeAuthorityEvidence for t1 (admit step 6), and t1
# vouches again. Evidence is aged without waiting through the --test knobs
# MERO_TEST_CLOCK_SKEW_FILE (seconds added to a node's wall clock for evidence decisions) and
# MERO_TEST_EVIDENCE_CHECK_MS (the refresh loop's check period); docs/admission.md.
. "$(dirname "$0")/admission_lib.bash"
AGE=$((25 * 3600)) # past MERO_GOV_EVIDENCE_MAX_AGE_SECS (24 h)
echo 0 >"$WORK/owner.skew"
echo 0 >"$WORK/t1.skew"

init_node owner
MERO_TEST_CLOCK_SKEW_FILE=$WORK/owner.skew run_node owner --mock-tee --test
O=$(p2p_addr owner)
init_node t1
MERO_TEST_CLOCK_SKEW_FILE=$WORK/t1.skew MERO_TEST_EVIDENCE_CHECK_MS=300 \
    run_node t1 --mock-tee --test --bootstrap "$O"
owner_ns_with_tee_t1
T1A=$(p2p_addr t1)

evidence_at() { sqlite3 "file:$WORK/t1/gov.db?mode=ro" "select attested_at from evidence where grp=x'$NS' and member=x'$T1'" 2>/dev/null; }
has_evidence() { [ -n "$(evidence_at)" ]; }
check "t1 holds its own evidence" wait_for 15 has_evidence
AT0=$(evidence_at)
# (a tick between t1's join op and its evidence op may prompt once for missing evidence)
prompts() { grep -c "evidence refresh: prompting on namespace" "$WORK/t1.log"; }
P0=$(prompts)
sleep 1.5 # five check periods with fresh evidence
check "fresh evidence: the refresh loop does not prompt" [ "$(prompts)" = "$P0" ]

# no admitter while t1's evidence lapses: t1 alone would have to vouch
stop_node owner
echo "$AGE" >"$WORK/t1.skew"
check "t1's refresh loop prompts once its evidence lapsed" wait_for 10 eval '[ "$(prompts)" -ge $((P0 + 1)) ]'
check "the log says the evidence lapsed" grep -q "evidence lapsed" "$WORK/t1.log"
check "t1 retries (back-off) while no admitter answers" wait_for 15 eval '[ "$(prompts)" -ge $((P0 + 2)) ]'

start_node t2 --mock-tee --bootstrap "$T1A"
fleet_join t2 "$NS" "[\"$T1A\"]"
check "t2 is not admitted by a TEE whose evidence lapsed" jq_is .data.admitted false
check "t1 refuses to vouch: its evidence is older than the maximum age" refusal_has "older than the maximum age"

# the owner is back (its clock agrees that t1's evidence is old): t1's next prompt is answered
fresh_seen() { grep -c "has fresh evidence" "$WORK/t1.log"; }
F0=$(fresh_seen)
already() { grep -c "already a member of" "$WORK/owner.log"; }
A0=$(already)
echo "$AGE" >"$WORK/owner.skew"
MERO_TEST_CLOCK_SKEW_FILE=$WORK/owner.skew run_node owner --mock-tee --test --bootstrap "$T1A"
refreshed() { local at; at=$(evidence_at); [ -n "$at" ] && [ "$at" -ge $((AT0 + AGE)) ]; }
check "the owner publishes fresh evidence for t1 (attested_at moved on by the skew)" wait_for 60 refreshed
check "t1's loop sees its fresh evidence" wait_for 10 eval '[ "$(fresh_seen)" -gt "$F0" ]'
check "the owner refreshed an already-admitted TEE" [ "$(already)" -gt "$A0" ]

fleet_join t2 "$NS" "[\"$T1A\"]"
check "with fresh evidence t1 vouches again: t2 admitted" jq_is .data.admitted true
check "t1 admitted t2" grep -q "admission (direct path): TEE .* admitted to" "$WORK/t1.log"
check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
