/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit_html.c - issue 36 (docs/audit.md): report.html of an audit export. One self-contained
 * page in the fleet page's look (the same colours and system fonts): per TEE an SVG timeline
 * (admitted, refresh, due, lapsed, converted, removed, left on one time axis) and a table of
 * every event with its checks, laid out to print.
 *
 * Invariant: no script, no external resource, no URL; every text from the log is escaped
 * (ids are hex, but check messages carry verifier reasons).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gov/audit_internal.h"

#define SVG_W      900
#define SVG_H      56
#define SVG_MARGIN 20

static const char *const colours[MERO_AUDIT_KINDS] = {"#1a7f37", "#2f6fb3", "#6f42c1", "#b42318",
                                                      "#b42318", "#9a6700", "#b42318", "#66707a"};
static const char *const verdict_text[] = {"-", "ok", "FAIL", "mock: not hardware-backed"};
static const char *const verdict_class[] = {"muted", "ok", "bad", "amber"};

static int esc(struct mero_buf *b, const char *s)
{
    for (; *s != '\0'; s++) {
        const char *r = *s == '<'   ? "&lt;"
                        : *s == '>' ? "&gt;"
                        : *s == '&' ? "&amp;"
                        : *s == '"' ? "&quot;"
                                    : NULL;
        MERO_TRY(r != NULL ? mero_buf_append_str(b, r) : mero_buf_append(b, s, 1));
    }
    return 0;
}

static void fmt_time(char *out, size_t cap, uint64_t t, bool exact)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (t == 0 || gmtime_r(&tt, &tm) == NULL) {
        snprintf(out, cap, "%s", "-");
        return;
    }
    size_t n = strftime(out, cap, "%Y-%m-%d %H:%M:%SZ", &tm);
    if (!exact && n + 2 < cap) {
        memmove(out + 2, out, n + 1);
        out[0] = '~';
        out[1] = ' ';
    }
}

static int svg(struct mero_buf *b, const struct mero_audit_tee *t, uint64_t lo, uint64_t hi)
{
    double span = hi > lo ? (double)(hi - lo) : 1.0;
    MERO_TRY(mero_buf_printf(b,
                             "<svg viewBox=\"0 0 %d %d\" width=\"100%%\" role=\"img\">"
                             "<line x1=\"%d\" y1=\"28\" x2=\"%d\" y2=\"28\" stroke=\"#d9dee3\" "
                             "stroke-width=\"2\"/>",
                             SVG_W, SVG_H, SVG_MARGIN, SVG_W - SVG_MARGIN));
    for (size_t k = 0; k < t->nev; k++) {
        const struct mero_audit_event *e = &t->ev[k];
        double x =
            SVG_MARGIN + (double)(e->at > lo ? e->at - lo : 0) / span * (SVG_W - 2 * SVG_MARGIN);
        bool mark = e->kind == MERO_AUDIT_DUE || e->kind == MERO_AUDIT_LAPSED;
        char when[40];
        fmt_time(when, sizeof(when), e->at, e->at_exact);
        if (mark) {
            MERO_TRY(mero_buf_printf(b,
                                     "<line x1=\"%.1f\" y1=\"14\" x2=\"%.1f\" y2=\"42\" "
                                     "stroke=\"%s\" stroke-dasharray=\"3 2\"><title>%s %s</title>"
                                     "</line>",
                                     x, x, colours[e->kind], mero_audit_kind_name(e->kind), when));
        } else {
            MERO_TRY(mero_buf_printf(b,
                                     "<circle cx=\"%.1f\" cy=\"28\" r=\"%d\" fill=\"%s\"><title>"
                                     "%s %s</title></circle>",
                                     x, e->kind == MERO_AUDIT_REFRESH ? 4 : 7, colours[e->kind],
                                     mero_audit_kind_name(e->kind), when));
        }
    }
    return mero_buf_append_str(b, "</svg>\n");
}

static int cell_check(struct mero_buf *b, const struct mero_audit_check *c)
{
    int v = c->verdict & 3;
    MERO_TRY(mero_buf_printf(b, "<td class=\"%s\">%s", verdict_class[v], verdict_text[v]));
    if (c->msg[0] != '\0' && v != MERO_AUDIT_MOCK) {
        MERO_TRY(mero_buf_append_str(b, "<br><small>"));
        MERO_TRY(esc(b, c->msg));
        MERO_TRY(mero_buf_append_str(b, "</small>"));
    }
    return mero_buf_append_str(b, "</td>");
}

static int table(struct mero_buf *b, const struct mero_audit_log *log,
                 const struct mero_audit_tee *t)
{
    char when[40], h[MERO_HEX_SIZE(MERO_SHA256_LEN)];
    MERO_TRY(mero_buf_append_str(b, "<table><tr><th>when (UTC)</th><th>event</th><th>op</th>"
                                    "<th>group</th><th>TCB</th><th>DCAP</th><th>binding</th>"
                                    "<th>policy</th></tr>\n"));
    for (size_t k = 0; k < t->nev; k++) {
        const struct mero_audit_event *e = &t->ev[k];
        fmt_time(when, sizeof(when), e->at, e->at_exact);
        MERO_TRY(mero_buf_printf(b, "<tr><td>%s</td><td style=\"color:%s\">%s", when,
                                 colours[e->kind], mero_audit_kind_name(e->kind)));
        if (e->kind == MERO_AUDIT_REFUSED) {
            MERO_TRY(mero_buf_append_str(b, "<br><small>"));
            MERO_TRY(esc(b, log->ops[e->op].reason));
            MERO_TRY(mero_buf_append_str(b, "</small>"));
        }
        MERO_TRY(mero_buf_append_str(b, "</td>"));
        if (e->op != MERO_AUDIT_NONE) {
            mero__audit_hex(h, log->ops[e->op].hash);
            MERO_TRY(mero_buf_printf(b, "<td class=\"mono\">%.16s</td>", h));
            mero__audit_hex(h, e->group);
            MERO_TRY(mero_buf_printf(b, "<td class=\"mono\">%.16s</td><td>", h));
            MERO_TRY(esc(b, e->tcb_status[0] != '\0' ? e->tcb_status : "-"));
            MERO_TRY(mero_buf_append_str(b, "</td>"));
            MERO_TRY(cell_check(b, &e->dcap));
            MERO_TRY(cell_check(b, &e->binding));
            MERO_TRY(cell_check(b, &e->policy));
        } else {
            MERO_TRY(mero_buf_append_str(b, "<td>-</td><td>-</td><td>-</td><td class=\"muted\">"
                                            "-</td><td class=\"muted\">-</td><td class=\"muted\">"
                                            "-</td>"));
        }
        MERO_TRY(mero_buf_append_str(b, "</tr>\n"));
    }
    return mero_buf_append_str(b, "</table>\n");
}

/* The signed releases exported for release-form policies, with the offline verdict. */
static int releases(struct mero_buf *b, const struct mero_audit_log *log)
{
    char name[MERO_AUDIT_PATH_MAX], when[40];
    if (log->nrels == 0) {
        return 0;
    }
    MERO_TRY(mero_buf_append_str(b, "<section><h2>Signed releases</h2><table><thead><tr>"
                                    "<th>File</th><th>Release</th><th>Signed</th><th>Verified"
                                    "</th></tr></thead><tbody>\n"));
    for (size_t i = 0; i < log->nrels; i++) {
        const struct mero_audit_release *r = &log->rels[i];
        mero_audit_release_file(r, 0, name);
        fmt_time(when, sizeof(when), r->signed_at > 0 ? (uint64_t)r->signed_at : 0, true);
        MERO_TRY(mero_buf_printf(b, "<tr><td class=\"mono\">%s</td><td>", name));
        MERO_TRY(esc(b, r->rel != NULL ? r->rel->tag : "-"));
        MERO_TRY(mero_buf_printf(b, "</td><td>%s</td><td class=\"%s\">", r->verified ? when : "-",
                                 r->verified ? "ok" : "bad"));
        MERO_TRY(esc(b, r->verified ? "ok (Sigstore, node-release identity)" : r->reason));
        MERO_TRY(mero_buf_append_str(b, "</td></tr>\n"));
    }
    return mero_buf_append_str(b, "</tbody></table></section>\n");
}

int mero_audit_html(const struct mero_audit_log *log, struct mero_buf *b)
{
    char ns[MERO_HEX_SIZE(MERO_NS_ID_LEN)], when[40], id[MERO_HEX_SIZE(MERO_IDENTITY_LEN)];
    uint64_t lo = 0, hi = log->exported_at;
    for (size_t t = 0; t < log->ntees; t++) {
        for (size_t k = 0; k < log->tees[t].nev; k++) {
            uint64_t a = log->tees[t].ev[k].at;
            lo = a != 0 && (lo == 0 || a < lo) ? a : lo;
            hi = a > hi ? a : hi;
        }
    }
    mero__audit_hex(ns, log->ns);
    fmt_time(when, sizeof(when), log->exported_at, true);
    MERO_TRY(mero_buf_printf(
        b,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>Fleet audit %.16s</title><style>\n"
        ":root{--fg:#1d232a;--muted:#66707a;--line:#d9dee3;--head:#f4f6f8;--ok:#1a7f37;"
        "--amber:#9a6700;--red:#b42318}\n"
        "body{margin:0 1em 2em;font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",sans-serif;"
        "color:var(--fg)}\nheader{padding:.6em 0;border-bottom:1px solid var(--line)}\n"
        "h1{font-size:1.15em;margin:0}h2{font-size:1em;margin:1.4em 0 .4em}\n"
        ".mono{font-family:ui-monospace,\"DejaVu Sans Mono\",monospace}.muted{color:var(--muted)}"
        "\n.ok{color:var(--ok)}.bad{color:var(--red);font-weight:600}.amber{color:var(--amber)}\n"
        "table{border-collapse:collapse;width:100%%}th,td{border-bottom:1px solid var(--line);"
        "padding:.25em .5em;text-align:left;vertical-align:top}th{background:var(--head)}\n"
        "section{break-inside:avoid}@media print{svg{max-height:4em}}\n</style></head><body>\n"
        "<header><h1>Fleet audit of namespace <span class=\"mono\">%s</span></h1>"
        "<div class=\"muted\">exported %s; evidence refresh due after %u s, lapsed after %u s;"
        " %zu ops, %zu TEEs%s. Verify offline: <span class=\"mono\">meroctl audit verify "
        "DIR</span></div></header>\n"
        "<p class=\"muted\">Legend: <span style=\"color:%s\">admitted</span>, "
        "<span style=\"color:%s\">refresh</span>, <span style=\"color:%s\">converted</span>, "
        "<span style=\"color:%s\">removed / left / lapsed</span>, <span style=\"color:%s\">"
        "due</span>, <span style=\"color:%s\">refused</span> (an op the log gave no effect). Times "
        "marked ~ are estimated from the log (only evidence carries a "
        "time).</p>\n",
        ns, ns, when, MERO_GOV_EVIDENCE_REFRESH_SECS, MERO_GOV_EVIDENCE_MAX_AGE_SECS, log->nops,
        log->ntees, log->sealed > 0 ? ", some sealed ops not readable offline" : "",
        colours[MERO_AUDIT_ADMITTED], colours[MERO_AUDIT_REFRESH], colours[MERO_AUDIT_CONVERTED],
        colours[MERO_AUDIT_REMOVED], colours[MERO_AUDIT_DUE], colours[MERO_AUDIT_REFUSED]));
    for (size_t t = 0; t < log->ntees; t++) {
        mero__audit_hex(id, log->tees[t].id);
        MERO_TRY(mero_buf_printf(b,
                                 "<section id=\"tee-%s\"><h2>TEE <span class=\"mono\">%s</span>"
                                 " <span class=\"muted\">(%s)</span></h2>\n",
                                 id, id, log->tees[t].member ? "member" : "no longer a member"));
        MERO_TRY(svg(b, &log->tees[t], lo, hi));
        MERO_TRY(table(b, log, &log->tees[t]));
        MERO_TRY(mero_buf_append_str(b, "</section>\n"));
    }
    if (log->ntees == 0) {
        MERO_TRY(mero_buf_append_str(b, "<p>No TEE was ever a member of this namespace.</p>\n"));
    }
    MERO_TRY(releases(b, log));
    return mero_buf_append_str(b, "</body></html>\n");
}
