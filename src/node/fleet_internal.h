/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fleet_internal.h - what the rest of src/node feeds the fleet view (fleet.c): the admission
 * attempts it decides or hears of (recorded in node.db through attempts.c) and when it last
 * heard from a member (memory only: lost at restart). Private to src/node; loop thread only.
 */
#ifndef MERO_NODE_FLEET_H
#define MERO_NODE_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mero/gov.h"
#include "mero/node.h"

#define MERO_FLEET_SEEN_MAX 256u /* (namespace, identity) pairs remembered; oldest reused */

struct mero_fleet_seen {
    bool used;
    uint8_t ns[MERO_NS_ID_LEN];
    uint8_t identity[MERO_IDENTITY_LEN];
    char peer[MERO_PEER_ID_STR_MAX];   /* "" while its peer is not known */
    uint64_t at;                       /* unix seconds; 0 = not seen yet */
    int via;                           /* enum mero_fleet_seen_via */
    char name[MERO_MEMBER_LABEL_SIZE]; /* issue 35: the name its HELLO announced ("" none) */
};

/* identity of ns speaks from peer (learned at an admission): later traffic from it counts. */
void mero__node_seen_peer(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                          const uint8_t identity[MERO_IDENTITY_LEN], const char *peer);
/* Issue 35: peer proved (a signed sync HELLO) that it speaks for identity of ns and runs under
 * `name` (checked, may be ""): seen now, and its later traffic counts. */
void mero__node_seen_hello(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN],
                           const uint8_t identity[MERO_IDENTITY_LEN], const char *peer,
                           const char *name);
/* A gossip message or sync answer arrived from peer: every identity it speaks for is seen. */
void mero__node_seen_from_peer(struct mero_node *node, const char *peer, int via);
/* A signed governance op (encoded bytes, applied or already stored, so its signature holds)
 * arrived by gossip: its signer is seen. */
void mero__node_seen_op(struct mero_node *node, const uint8_t *op, size_t len);

/* Issue 35 item 6 (labels.c): member's label in ns into out ("" and -MERO_ENOTFOUND when it has
 * none), and a self-purge forgetting every label of ns. */
struct sqlite3;
MERO_MUST_CHECK int mero__node_label_get(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN],
                                         const uint8_t member[MERO_IDENTITY_LEN],
                                         char out[MERO_MEMBER_LABEL_SIZE]);
MERO_MUST_CHECK int mero__node_labels_purge(struct sqlite3 *db, const uint8_t ns[MERO_NS_ID_LEN]);

/*
 * The admitter's own verify-and-admit decision on a claim (identity, peer) in ns: verdict,
 * reason ("" when admitted), the measurements and TCB status when the quote got that far
 * (m NULL otherwise), and the release profile it matched (NULL or "" when none was named).
 * Records it (failures are logged, never fatal), keeps an admitted member's profile for the
 * fleet view, and remembers the peer.
 */
struct mero_fleet_decision {
    const uint8_t *ns;
    const uint8_t *identity;
    const char *peer;
    int path; /* enum mero_fleet_path */
    bool admitted;
    const char *reason;
    const struct mero_measurements *m; /* NULL: not read */
    const char *tcb_status;
    const char *matched_profile; /* the release profile a signed-release admission matched */
};
void mero__node_fleet_decided(struct mero_node *node, const struct mero_fleet_decision *d);
/* The joiner side: an admitter's answer to our own attempt in ns (verdict as the enum). */
void mero__node_fleet_heard(struct mero_node *node, const uint8_t ns[MERO_NS_ID_LEN], int path,
                            int verdict, const char *reason);
/* A governance event: a TEE admission applied here that another member decided is recorded. */
void mero__node_fleet_on_event(struct mero_node *node, const struct mero_gov_event *ev);
/*
 * Which policy entry measurements m match under policy p (found false: none): the MRTD list
 * entry for the measurement form; for the signed-release form kind profile with no name (the
 * release check names it only to the admitter, which fills it in from its decision; a mock
 * quote, tcb_status "Mock", matched no profile: none).
 */
void mero__node_fleet_match(const struct mero_tee_policy *p, bool found,
                            const struct mero_measurements *m, const char *tcb_status,
                            struct mero_fleet_match *out);

#endif
