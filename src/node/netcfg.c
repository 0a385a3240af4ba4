/* SPDX-License-Identifier: Apache-2.0 */
/*
 * netcfg.c - the optional "net" object of DIR/config.json: the network's connection budgets
 * (docs/network.md, "Connection budgets") and the connection manager's watermarks (issue 33,
 * "lowWater"/"highWater"), e.g. {"net": {"maxInboundPerIp": 64}}. Absent
 * fields keep the net layer's defaults.
 *
 * Invariants: fail closed: an unknown field, a value that is not an integer in [1, 65535] or a
 * "net" that is not an object refuses the whole configuration, naming the file and the field.
 */
#include <jansson.h>
#include <string.h>

#include "mero/net.h"
#include "node/node_internal.h"
#include "node/service_internal.h"

int mero__node_netcfg_parse(const json_t *cfg, const char *path, struct mero_node_config *out,
                            struct mero_err *err)
{
    static const char *const names[] = {"maxInbound",      "maxOutbound", "maxPending",
                                        "maxInboundPerIp", "lowWater",    "highWater"};
    uint32_t *fields[] = {&out->net_max_inbound,    &out->net_max_outbound,
                          &out->net_max_pending,    &out->net_max_inbound_per_ip,
                          &out->net_conn_low_water, &out->net_conn_high_water};
    const json_t *net = json_object_get(cfg, "net");
    const char *key;
    const json_t *v;
    if (net == NULL) {
        return 0;
    }
    if (!json_is_object(net)) {
        return mero_err_set(err, MERO_EINVAL, "%s: \"net\" must be an object", path);
    }
    json_object_foreach((json_t *)net, key, v)
    {
        size_t i = 0;
        while (i < sizeof(names) / sizeof(names[0]) && strcmp(names[i], key) != 0) {
            i++;
        }
        if (i == sizeof(names) / sizeof(names[0])) {
            return mero_err_set(err, MERO_EINVAL,
                                "%s: unknown field \"net.%.64s\" (known: maxInbound, maxOutbound, "
                                "maxPending, maxInboundPerIp, lowWater, highWater)",
                                path, key);
        }
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 65535) {
            return mero_err_set(err, MERO_EINVAL, "%s: \"net.%s\" must be an integer in [1, 65535]",
                                path, names[i]);
        }
        *fields[i] = (uint32_t)json_integer_value(v);
    }
    if (out->net_conn_low_water && out->net_conn_high_water &&
        out->net_conn_low_water > out->net_conn_high_water) {
        return mero_err_set(err, MERO_EINVAL, "%s: \"net.lowWater\" is above \"net.highWater\"",
                            path);
    }
    return 0;
}

void mero__node_netcfg_apply(const struct mero_node_config *in, struct mero_net_config *out)
{
    mero_net_config_default(out);
    if (in->net_max_inbound) {
        out->max_inbound = in->net_max_inbound;
    }
    if (in->net_max_outbound) {
        out->max_outbound = in->net_max_outbound;
    }
    if (in->net_max_pending) {
        out->max_pending = in->net_max_pending;
    }
    if (in->net_max_inbound_per_ip) {
        out->max_inbound_per_ip = in->net_max_inbound_per_ip;
    }
    if (in->net_conn_high_water) {
        out->conn_high_water = in->net_conn_high_water;
    }
    if (in->net_conn_low_water) {
        out->conn_low_water = in->net_conn_low_water;
    } else if (out->conn_low_water > out->conn_high_water) {
        out->conn_low_water =
            out->conn_high_water / 2; /* only highWater given, below the default low */
    }
}
