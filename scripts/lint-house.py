#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""lint-house.py - the house rules `make lint` enforces over src/ and include/mero/
(docs/layers.md, docs/errors.md):

  layers   a file includes only its own module's headers and those of lower layers
           (util < crypto < attest, net < gov < node < api < cli);
  private  a private header (src/<module>/...) is included only from inside that module;
  lengths  no bare protocol length (32, 48, 64, 96) outside include/mero/sizes.h: name it. A
           #define or _Static_assert that names a length is fine; a literal that is not a
           length carries the comment /* not a length */ on its line;
  bufmax   mero_buf_init's maximum is a name, never a bare literal (0, a buffer that holds
           nothing until it is given its maximum, is allowed);
  return   one error style (docs/errors.md): no bare `return -1;` (return -MERO_E<x>);
  goto     and no hand-written `goto out;` (MERO_TRY_OUT / MERO_ENSURE_OUT jump to `out:`);
  status   in src/api, an error reply's HTTP status comes from the one table (errmap.c): no
           other file writes a 4xx or 5xx number in code (mero__api_refuse takes a mero_err
           code; an array's size in brackets and a #define are not statuses);
  prefix   a function defined outside a public header's promise is private: a non-static
           function named mero_<x> (one underscore) must be declared in include/mero/, and
           the house's private ones are mero__<x> (docs/layers.md);
  floors   inside src/gov and src/net, a file calls only functions defined on its own floor
           or below (GOV_FLOORS, NET_FLOORS; docs/layers.md "gov's floors", docs/network.md
           "The floors of src/net"), and every file of those modules has a floor.

The code that predates a rule is counted in ALLOWED below, per rule and file: a file may keep
at most that many findings of the rule, so a count that grows or a new file fails; a count
that shrank is reported (on stderr, not failing) so that its allowance can be lowered.

Usage: scripts/lint-house.py [PATH...]   (default: src include/mero). Exit 1 on a violation,
printing file:line: rule: what. scripts/lint-house.py --counts [PATH...] prints every finding's
count per rule and file, ALLOWED or not, in ALLOWED's form.
"""
import os
import re
import sys

LEVEL = {"util": 0, "crypto": 1, "attest": 2, "net": 2, "gov": 3, "node": 4, "api": 5, "cli": 6}

# Public headers (include/mero/<name>.h) and the module that owns each.
PUBLIC = {
    "util": "buf borsh clock encoding err log sizes",
    "crypto": "crypto",
    "attest": "binding collateral dcap eventlog mock pcs policy quote release sigstore tee_verify "
              "trust_rules tsm",
    "net": "net sealed",
    "gov": "audit gov op keys identity intent",
    "node": "node",
    "api": "api",
}
OWNER = {h: m for m, hs in PUBLIC.items() for h in hs.split()}

# gov's floors (issue 34 item 3, docs/layers.md): codec < store < query/project < rules <
# apply < actions/admit/reach/maint < audit. A file may call what its own floor and the floors
# below define; a call up a floor is a problem, as is a gov file missing from this table.
GOV_FLOORS = {
    0: "op op_codec op_seal identity keys",
    1: "store secrets",
    2: "query project purge_marks reach_role fold_table",
    3: "admission_rules fold_commute fold_replay release_hook warrant",
    4: "apply apply_ev apply_tee apply_sealed fold fold_diff intent",
    5: "actions admit reach maint",
    6: "audit_check audit_dir audit_html audit_log audit_manifest audit_release audit_timeline",
}
GOV_FLOOR = {f"src/gov/{n}.c": fl for fl, ns in GOV_FLOORS.items() for n in ns.split()}

# net's floors (issue 34, docs/network.md "The floors of src/net"): codecs < transport <
# budgets/dialing < the router's state < protocols < connection manager < the face. The
# transport reports upward through struct mero__conn_ops, which net.c sets.
NET_FLOORS = {
    0: "peerid multiaddr protobuf multistream noise_sym noise sealed_noise sealed_envelope "
       "peer_record gossip_rpc gossip_score gossip_cache frame_cache",
    1: "conn yamux",
    2: "budget dial",
    3: "gossip_mesh",
    4: "identify reqresp gossip_px gossipsub",
    5: "connmgr",
    6: "net gossip_api",
}
NET_FLOOR = {f"src/net/{n}.c": fl for fl, ns in NET_FLOORS.items() for n in ns.split()}
FUNC_DEF = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b(mero_\w+)\s*\([^;]*$")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
BARE = re.compile(r"(?<![\w.])(32|48|64|96)[uUlL]*(?![\w.])")
SHIFT = re.compile(r"(<<|>>)\s*$")
MARK = "/* not a length */"
BUFINIT = re.compile(r"\bmero_buf_init\s*\(([^;]*)\)\s*;")
LITERAL = re.compile(r"^[\s()0-9xXa-fA-FuUlL+*<>-]+$")
BARE_RETURN = re.compile(r"\breturn\s+-1\s*;")
GOTO_OUT = re.compile(r"\bgoto\s+out\s*;")
HTTP_STATUS = re.compile(r"(?<![\w.\[])([45][0-9][0-9])[uUlL]*(?![\w.])(?!\s*\])")
STATUS_TABLE = os.path.join("src", "api", "errmap.c")

# Findings that predate a rule, per rule and file (see the docstring): {rule: {path: count}}.
# Issue 34 took the last of them away; a future rule's older findings would be counted here.
ALLOWED = {}


def module_of(path):
    parts = path.split(os.sep)
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[:2] == ["include", "mero"]:
        return OWNER.get(os.path.splitext(parts[2])[0])
    return None


def strip_code(text):
    """Blank out comments and string/char literals, keeping line structure."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + (c if j - i >= 2 else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def macro_args(text):
    """Split the argument text of a call at its top-level commas."""
    args, depth, cur = [], 0, ""
    for c in text:
        if c == "," and depth == 0:
            args.append(cur)
            cur = ""
            continue
        depth += c == "("
        depth -= c == ")"
        cur += c
    return args + [cur]


def check(path, problems):
    mod = module_of(path)
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    lines = raw.split("\n")
    for no, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if not m or mod is None:
            continue
        inc = m.group(1)
        if inc.startswith("mero/"):
            owner = OWNER.get(os.path.splitext(inc[5:])[0])
            if owner is None:
                problems.append(f"{path}:{no}: layers: {inc} is not a known public header")
            elif owner != mod and LEVEL[owner] >= LEVEL[mod]:
                problems.append(f"{path}:{no}: layers: {mod} must not include {inc} ({owner} is "
                                f"not below {mod})")
        elif "/" in inc:
            owner = inc.split("/")[0]
            if owner != mod:
                problems.append(f"{path}:{no}: private: {inc} is private to src/{owner}")
    code = strip_code(raw).split("\n")
    in_macro = False  # a jump macro's own `goto out;` (MERO_TRY_OUT, GOV_SQL_TRY_OUT) is allowed
    for no, line in enumerate(code, 1):
        macro_line = in_macro or re.match(r"\s*#\s*define\b", line) is not None
        in_macro = macro_line and line.rstrip().endswith("\\")
        if BARE_RETURN.search(line):
            problems.append(f"{path}:{no}: return: bare `return -1;` (return -MERO_E<x>, "
                            f"docs/errors.md)")
        if GOTO_OUT.search(line) and not macro_line:
            problems.append(f"{path}:{no}: goto: hand-written `goto out;` (MERO_TRY_OUT / "
                            f"MERO_ENSURE_OUT, docs/errors.md)")
        if mod == "api" and path != STATUS_TABLE and not macro_line:
            for m in HTTP_STATUS.finditer(line):
                problems.append(f"{path}:{no}: status: the HTTP status {m.group(1)} written by "
                                f"hand (mero__api_refuse with a MERO_E<x> code; the one "
                                f"table is {STATUS_TABLE})")
        for m in BUFINIT.finditer(line):
            args = macro_args(m.group(1))
            if len(args) == 2 and LITERAL.match(args[1]) and args[1].strip() != "0":
                problems.append(f"{path}:{no}: bufmax: mero_buf_init with the literal maximum "
                                f"{args[1].strip()} (name it)")
    if path.endswith(os.path.join("mero", "sizes.h")):
        return
    for no, (line, src) in enumerate(zip(code, lines), 1):
        if MARK in src or re.match(r"\s*#\s*(define|if|elif)\b", line) or "_Static_assert" in line:
            continue
        for m in BARE.finditer(line):
            if SHIFT.search(line[: m.start()]):
                continue
            problems.append(f"{path}:{no}: lengths: bare {m.group(1)} (name it in "
                            f"mero/sizes.h or mark it {MARK})")


def check_floors(problems, module, floor_of, table):
    """The floors rule over every src/<module>/*.c (see GOV_FLOORS, NET_FLOORS)."""
    files = sorted(os.path.join("src", module, n) for n in os.listdir(os.path.join("src", module))
                   if n.endswith(".c"))
    code, owner = {}, {}
    for path in files:
        if path not in floor_of:
            problems.append(f"{path}:1: floors: no floor in {table} (scripts/lint-house.py)")
            continue
        with open(path, encoding="utf-8") as f:
            code[path] = strip_code(f.read()).split("\n")
        for line in code[path]:
            m = FUNC_DEF.match(line)
            if m:
                owner[m.group(1)] = path
    for path, lines in code.items():
        for no, line in enumerate(lines, 1):
            for name in set(re.findall(r"\b(mero_\w+)\s*\(", line)):
                where = owner.get(name)
                if where is not None and floor_of[where] > floor_of[path]:
                    problems.append(f"{path}:{no}: floors: calls {name} of {where}, a floor "
                                    f"above (floor {floor_of[where]} over {floor_of[path]})")


def check_prefix(problems):
    """The prefix rule: every non-static mero_<x> defined in src/ is declared in include/mero/."""
    public = set()
    for d, _, files in os.walk(os.path.join("include", "mero")):
        for name in files:
            if name.endswith(".h"):
                with open(os.path.join(d, name), encoding="utf-8") as f:
                    public.update(re.findall(r"\b(mero_[a-z0-9]\w*)\s*\(", strip_code(f.read())))
    for d, _, files in os.walk("src"):
        for name in sorted(files):
            if not name.endswith(".c"):
                continue
            path = os.path.normpath(os.path.join(d, name))
            with open(path, encoding="utf-8") as f:
                lines = strip_code(f.read()).split("\n")
            for no, line in enumerate(lines, 1):
                m = FUNC_DEF.match(line)
                if m and not m.group(1).startswith("mero__") and m.group(1) not in public:
                    problems.append(f"{path}:{no}: prefix: {m.group(1)} is not in include/mero/: "
                                    f"a private function is mero__{m.group(1)[5:]}")


def apply_allowed(problems):
    """Drop the findings ALLOWED still covers; report allowances that are now too large."""
    found = {}
    for p in problems:
        path, _, rule = p.split(":", 3)[:3]
        found.setdefault((rule.strip(), path), []).append(p)
    kept = []
    for (rule, path), ps in sorted(found.items()):
        allowed = ALLOWED.get(rule, {}).get(path, 0)
        if len(ps) > allowed:
            if allowed:
                kept.append(f"{path}: {rule}: {len(ps)} findings, {allowed} allowed (the file "
                            f"may not gain new ones):")
            kept.extend(ps)
    for rule, files in ALLOWED.items():
        for path, allowed in files.items():
            n = len(found.get((rule, path), []))
            if n < allowed and os.path.exists(path):
                print(f"lint-house: note: {path} has {n} {rule} finding(s), {allowed} allowed: "
                      f"lower its allowance", file=sys.stderr)
    return kept


def main(argv):
    counts = len(argv) > 1 and argv[1] == "--counts"
    roots = argv[1 + counts:] or ["src", "include/mero"]
    problems = []
    for root in roots:
        if os.path.isfile(root):
            check(root, problems)
            continue
        for d, _, files in os.walk(root):
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    check(os.path.normpath(os.path.join(d, name)), problems)
    if counts:
        found = {}
        for p in problems:
            path, _, rule = p.split(":", 3)[:3]
            found.setdefault(rule.strip(), {}).setdefault(path, 0)
            found[rule.strip()][path] += 1
        for rule, files in sorted(found.items()):
            print(f'    "{rule}": {{')
            for path, n in sorted(files.items()):
                print(f'        "{path}": {n},')
            print("    },")
        return 0
    if not argv[1 + counts:] and os.path.isdir(os.path.join("src", "gov")):
        check_floors(problems, "gov", GOV_FLOOR, "GOV_FLOORS")
    if not argv[1 + counts:] and os.path.isdir(os.path.join("src", "net")):
        check_floors(problems, "net", NET_FLOOR, "NET_FLOORS")
    if not argv[1 + counts:] and os.path.isdir("src"):
        check_prefix(problems)
    problems = apply_allowed(problems)
    for p in problems:
        print(p)
    if problems:
        print(f"lint-house: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
