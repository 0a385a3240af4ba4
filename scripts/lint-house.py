#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""lint-house.py - the three house rules `make lint` enforces over src/ and include/mero/
(docs/layers.md):

  layers   a file includes only its own module's headers and those of lower layers
           (util < crypto < attest, net < gov < node < api < cli);
  private  a private header (src/<module>/...) is included only from inside that module;
  lengths  no bare protocol length (32, 48, 96) outside include/mero/sizes.h: name it. A
           #define or _Static_assert that names a length is fine; a literal that is not a
           length carries the comment /* not a length */ on its line.

Usage: scripts/lint-house.py [PATH...]   (default: src include/mero). Exit 1 on a violation,
printing file:line: rule: what.
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
    "gov": "gov op keys identity intent",
    "node": "node",
    "api": "api",
}
OWNER = {h: m for m, hs in PUBLIC.items() for h in hs.split()}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
BARE = re.compile(r"(?<![\w.])(32|48|96)[uUlL]*(?![\w.])")
SHIFT = re.compile(r"(<<|>>)\s*$")
MARK = "/* not a length */"


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
    if path.endswith(os.path.join("mero", "sizes.h")):
        return
    code = strip_code(raw).split("\n")
    for no, (line, src) in enumerate(zip(code, lines), 1):
        if MARK in src or re.match(r"\s*#\s*(define|if|elif)\b", line) or "_Static_assert" in line:
            continue
        for m in BARE.finditer(line):
            if SHIFT.search(line[: m.start()]):
                continue
            problems.append(f"{path}:{no}: lengths: bare {m.group(1)} (name it in "
                            f"mero/sizes.h or mark it {MARK})")


def main(argv):
    roots = argv[1:] or ["src", "include/mero"]
    problems = []
    for root in roots:
        if os.path.isfile(root):
            check(root, problems)
            continue
        for d, _, files in os.walk(root):
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    check(os.path.normpath(os.path.join(d, name)), problems)
    for p in problems:
        print(p)
    if problems:
        print(f"lint-house: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
