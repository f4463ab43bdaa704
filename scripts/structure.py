#!/usr/bin/env python3
"""Structure report for every package's sources (src/, crates/*/src/): largest files, longest functions, import cycles, and the rooms
(flat aliases, pages named from outside, metrics named outside their folders).

    python3 scripts/structure.py            # report
    python3 scripts/structure.py --check    # exit 1 on a cycle (of files, or of ui/ folders
                                            # importing each other), a file over 600 lines of code,
                                            # a function over 80, a flat alias in ui/mod.rs,
                                            # a page named from outside it, or a metric named
                                            # outside its room (by path, variant, id or
                                            # identifier)

Lines of code: lines holding code, not blank, not only a comment, not only the inside of a
string literal (quoted prompt text), not inside a `#[cfg(test)]` item. A function's length is
its lines from `fn` to the closing brace, counted the same way.

Cycles (test code left out): an edge A -> B for every `crate::B` path written in a file of top-level module A
(`src/A.rs` or `src/A/...`), and, inside one top-level module, an edge between its
submodules for every `crate::A::b` or `super::b` path; in ui/, an edge between two files for
every `crate::ui::<path>` written in one that names the other (`crate::ui::evaluator::runner`,
`crate::ui::metrics::fleur::panel`, `crate::ui::metrics` for ui/metrics/mod.rs). Cycles are
reported at each level. In ui/, two folders (or top-level files) importing each other are a
cycle too, except the one edge in ALLOWED_BACK.

Real paths (--check exits 1 otherwise): ui/mod.rs declares its submodules and re-exports none of
them under flat names (no `use evaluator::{runner, ...};`, no `use metrics as metric_ui;`), so a
path in ui/ says where the thing it names lives. A page folder (ui/evaluator/, ui/lab/) is
named only from inside it and by ui/mod.rs: what the metrics' folders or the other page share
with it lives in ui/run/ or ui/widgets/.

A metric is one room (--check exits 1 otherwise): its names appear only in its two folders
(crates/core/src/metrics/<m>/, src/ui/metrics/<m>/) and the registries (crates/core/src/metrics/mod.rs,
src/ui/metrics/mod.rs and its rooms' state, src/ui/metrics/state.rs). Its names are its module as a path segment (`maev::`,
`crate::metrics::maev`, `use crate::metrics::{maev}`), its variants after `::`
(`Metric::Maev`, `Reopened::Maev`, `CandidateBase::Maev`; FLEUR's room holds `Fleur` and
`RefFleur`) and its ids as string literals in code (`"maev"`, `"ref_fleur"`). Not names:
comments, other strings, identifiers that merely contain one (`MaevSettings`, a field
`maev`), and test code (`#[cfg(test)]` items and `*tests.rs` files, which may build any
metric's input). No file outside them names a metric (--check fails on one); there is no allowlist.
Identifiers are held apart: one in code outside the rooms and registries that contains a metric's
name (`harmonic_weights`, `he_criteria`, `fleur_digits`; see IDENT_PARTS) fails --check too.
Standard library only.
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import metric_list  # noqa: E402

TOP = Path(__file__).resolve().parent.parent
SRC = TOP / "src"  # the page: ui/, web/, its entry points
CORE = TOP / "crates" / "core" / "src"  # the pure core, re-exported by the page under the same names
# Every package's sources, each with the prefix its paths get here. The page and the core share
# one namespace (src/lib.rs re-exports the core's rooms, so the page writes `crate::metrics`);
# `hj` and the Python binding are crates of their own, checked for size and names.
ROOTS = [(SRC, ""), (CORE, ""), (TOP / "crates" / "hj" / "src", "hj"),
         (TOP / "crates" / "python" / "src", "python")]


def sources(roots=ROOTS):
    """The Rust sources of every package, without build outputs."""
    for root, _ in roots:
        yield from (p for p in sorted(root.rglob("*.rs")) if "target" not in p.relative_to(root).parts)


def rel_of(path):
    """A source's path as this report writes it: `metrics/maev/room.rs`, `ui/state.rs`,
    `hj/run.rs`."""
    for root, prefix in ROOTS:
        if path.is_relative_to(root):
            return Path(prefix) / path.relative_to(root)
    raise ValueError(path)


MAX_FILE = 600
MAX_FN = 80


def mask(text):
    """Returns (code, kinds): code has every string/char literal and comment replaced by
    spaces (newlines kept); kinds[i] is 'c' (code), 's' (string) or 'm' (comment)."""
    out = list(text)
    kinds = ["c"] * len(text)
    i, n = 0, len(text)

    def blank(a, b, kind):
        for k in range(a, b):
            kinds[k] = kind
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        ch = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j, "m")
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j, "m")
            i = j
        elif re.match(r'b?r#*"', text[i:i + 40]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'(b?r)(#*)"', text[i:])
            end = '"' + m.group(2)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            blank(i + len(m.group(1)) + len(m.group(2)) + 1, j - len(end), "s")
            i = j
        elif ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, j, "s")
            i = j + 1
        elif ch == "'":
            m = re.match(r"'(\\.[^']*|[^'\\])'", text[i:])
            if m:
                blank(i + 1, i + len(m.group(0)) - 1, "s")
                i += len(m.group(0))
            else:
                i += 1  # a lifetime
        else:
            i += 1
    return "".join(out), kinds


def closing(code, open_at):
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


def analyse(path):
    text = path.read_text()
    code, kinds = mask(text)
    counted = [False] * (text.count("\n") + 1)
    line = 0
    for k, ch in enumerate(text):
        if ch == "\n":
            line += 1
        elif kinds[k] == "c" and not ch.isspace():
            counted[line] = True
    # Lines only inside a string literal or a comment do not count; drop #[cfg(test)] items
    # (and leave them out of the import edges: a test may use any module).
    tests = []
    for m in re.finditer(r"#\[cfg\(test\)\]", code):
        brace = code.find("{", m.end())
        semi = code.find(";", m.end())
        if semi != -1 and semi < brace:
            end = semi
        else:
            end = closing(code, brace)
        tests.append((m.start(), end))
        for ln in range(code.count("\n", 0, m.start()), code.count("\n", 0, end) + 1):
            counted[ln] = False
    loc = sum(counted)
    fns = []
    for m in re.finditer(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)", code):
        # The body starts at the first `{` at paren depth 0 after the name; `;` first = no body.
        depth, j = 0, m.end()
        while j < len(code):
            c = code[j]
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            if depth == 0 and c in "{;":
                break
            j += 1
        if j >= len(code) or code[j] == ";":
            continue
        end = closing(code, j)
        a, b = code.count("\n", 0, m.start()), code.count("\n", 0, end)
        length = sum(counted[a:b + 1])
        if any(counted[a:b + 1]):
            fns.append((length, m.group(1), a + 1))
    for a, b in reversed(tests):
        code = code[:a] + re.sub(r"[^\n]", " ", code[a:b + 1]) + code[b + 1:]
    return loc, fns, code


def top(rel):
    return rel.parts[0].removesuffix(".rs")


def sub(rel):
    if len(rel.parts) < 2:
        return None
    return rel.parts[1].removesuffix(".rs")


def ui_module(parts):
    """The file under src/ui/ that a path `crate::ui::<parts...>` names: the longest prefix of
    its parts that is a module (`evaluator/runner`, `metrics/fleur/panel`, `metrics` for
    ui/metrics/mod.rs); None when its first part is no module of ui/."""
    found = None
    for k in range(1, len(parts) + 1):
        base = SRC / "ui" / Path(*parts[:k])
        if base.with_suffix(".rs").exists() or (base / "mod.rs").exists():
            found = "/".join(parts[:k])
        else:
            break
    return found


def flat_aliases(mod_rs):
    """`use` items of ui/mod.rs that re-export its submodules (or their parts) under flat
    names (`use evaluator::{runner, ...};`, `use metrics as metric_ui;`): one line each."""
    text = analyse(mod_rs)[2] if mod_rs.exists() else ""
    children = set(re.findall(r"(?m)^\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;", text))
    bad = []
    for m in re.finditer(r"(?m)^\s*(?:pub(?:\([a-z]+\))?\s+)?use\s+(?:self::|crate::ui::)?([a-z_][a-z0-9_]*)\b[^;]*;", text):
        if m.group(1) in children:
            line = text.count("\n", 0, m.start()) + 1
            bad.append(f"ui/mod.rs:{line}: {' '.join(m.group(0).split())}")
    return bad


# A metric's names: its module (as a path segment: `maev::`, `metrics::maev`, `use
# crate::metrics::{maev}`), its variants (after `::`: `Metric::Maev`, `Reopened::Maev`; the
# room as `CandidateBase::Maev`) and its ids (as a string literal: `"maev"`). Each metric's
# room is its two folders; the registries are the one core file and the one page file that
# write out everything per metric (the metrics read by metric_list.py).
METRICS = {
    room: (variants + [room.replace("_", "").capitalize()], [metric_list.snake(v) for v in variants])
    for room, variants in metric_list.rooms()
}
REGISTRIES = {"metrics/mod.rs", "ui/metrics/mod.rs", "ui/metrics/state.rs"}
def metric_names(rel, text, code):
    """The metrics whose names `rel` uses outside their rooms (code only: comments, string
    literals other than the ids, and test code are left out; so are files of tests,
    `*tests.rs`)."""
    if rel in REGISTRIES or rel.endswith("tests.rs"):
        return set()
    found = set()
    for m, (variants, ids) in METRICS.items():
        if rel.startswith((f"metrics/{m}/", f"ui/metrics/{m}/")):
            continue
        alts = "|".join(variants)
        if re.search(rf"::\s*(?:{alts})\b", code) or re.search(rf"(?:::\s*{m}\b|\b{m}\s*::)", code) \
                or any(re.search(rf"\buse\b[^;]*[{{,]\s*{m}\b", code) for _ in [0]):
            found.add(m)
            continue
        for i in ids:
            for s in re.finditer(rf'"{i}"', text):
                if code[s.start()] == '"':  # in code, not in a comment or test
                    found.add(m)
    return found


IDENT_PARTS = re.compile(r"harmonic|^he_|_he_|fleur|maev|gveval|g_veval", re.I)
NOT_A_METRIC = {"harmonic_judge", "harmonic_judge_core"}  # the crates' own names


def metric_identifiers():
    """Files outside the rooms and registries (tests aside) with an identifier, in code, that
    contains a metric's name (`harmonic`, `he_`, `fleur`, `maev`, `gveval`, `g_veval`)."""
    out = []
    for path in sources():
        rel = str(rel_of(path))
        if rel in REGISTRIES or rel.endswith("tests.rs"):
            continue
        if any(rel.startswith((f"metrics/{m}/", f"ui/metrics/{m}/")) for m in METRICS):
            continue
        code = analyse(path)[2]
        names = sorted({w for w in re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", code)
                        if IDENT_PARTS.search(w) and w not in NOT_A_METRIC})
        if names:
            out.append((rel, names))
    return out


def cycles(edges):
    """Every elementary cycle, found by DFS from each node over nodes ordered after it."""
    nodes = sorted(set(edges) | {b for bs in edges.values() for b in bs})
    found = []

    def dfs(start, node, path, seen):
        for nxt in sorted(edges.get(node, ())):
            if nxt == start:
                found.append(path + [start])
            elif nxt not in seen and nodes.index(nxt) > nodes.index(start):
                dfs(start, nxt, path + [nxt], seen | {nxt})

    for s in nodes:
        dfs(s, s, [s], {s})
    return found


def ui_folder(module):
    """The folder of ui/ a module (`run/chunks`, `metrics/fleur/panel`, `state`) is in; a file at
    ui/'s top level is its own node."""
    return module.split("/")[0]


# The one import from a lower folder of ui/ into a higher one: `AppState` (ui/state.rs) holds
# each room's state through the registry's ui/metrics/state.rs, which takes no `AppState` and
# names only the rooms' `state.rs` and `settings.rs` (DESIGN.md, "Why do ui/state.rs and
# ui/metrics/ import each other?"). Any other edge back makes a pair.
ALLOWED_BACK = {("state", "metrics/state")}


def ui_folder_pairs(ui_edges):
    """Pairs of ui/ folders that import each other, with the file-level edges each way."""
    why = {}
    for a, ts in ui_edges.items():
        for t in ts:
            if (a, t) in ALLOWED_BACK:
                continue
            fa, ft = ui_folder(a), ui_folder(t)
            if fa != ft and "mod" not in (fa, ft):
                why.setdefault((fa, ft), []).append(f"{a}->{t}")
    pairs = sorted({tuple(sorted(k)) for k in why if (k[1], k[0]) in why})
    return [((a, b), (sorted(why[(a, b)]), sorted(why[(b, a)]))) for a, b in pairs]


def main():
    check = "--check" in sys.argv
    files, fns = [], []
    top_edges, sub_edges = {}, {}
    naming = {}
    tops = {top(p.relative_to(r)) for r in (SRC, CORE) for p in r.glob("*") if p.suffix == ".rs" or p.is_dir()}
    for path in sources():
        rel = rel_of(path)
        loc, f, code = analyse(path)
        files.append((loc, str(rel)))
        named = metric_names(str(rel), path.read_text(), code)
        if named:
            naming[str(rel)] = named
        fns += [(n, name, f"{rel}:{ln}") for n, name, ln in f]
        a = top(rel)
        for m in re.finditer(r"\bcrate::([a-z_][a-z0-9_]*)(?:::([a-z_][a-z0-9_]*))?", code):
            b = m.group(1)
            if b in tops and b != a:
                top_edges.setdefault(a, set()).add(b)
            elif b == a and m.group(2) and sub(rel) and m.group(2) != sub(rel):
                sub_edges.setdefault(a, {}).setdefault(sub(rel), set()).add(m.group(2))
        modpath = [p.removesuffix(".rs") for p in rel.parts if p != "mod.rs"]
        for m in re.finditer(r"\b((?:super::)+)([a-z_][a-z0-9_]*)", code):
            target = modpath[: len(modpath) - m.group(1).count("super")] + [m.group(2)]
            if len(modpath) >= 2 and len(target) >= 2 and target[0] == a and target[1] != modpath[1]:
                if any((r / a / (target[1] + ".rs")).exists() or (r / a / target[1]).is_dir() for r in (SRC, CORE)):
                    sub_edges.setdefault(a, {}).setdefault(modpath[1], set()).add(target[1])
    # ui/: components name each other by real paths (`crate::ui::evaluator::runner::…`); an
    # edge from a file to the file such a path names.
    ui_edges = {}
    for path in sorted((SRC / "ui").rglob("*.rs")):
        me = str(path.relative_to(SRC / "ui")).removesuffix(".rs").removesuffix("/mod")
        code = analyse(path)[2]
        for m in re.finditer(r"\bcrate::ui((?:::[a-z_][a-z0-9_]*)+)", code):
            target = ui_module(m.group(1).strip(":").split("::"))
            if target and target != me:
                ui_edges.setdefault(me, set()).add(target)
    aliases = flat_aliases(SRC / "ui" / "mod.rs")
    # A page folder (evaluator/, lab/) is named only from inside it (and by ui/mod.rs, which
    # mounts it): what a metric's folder, the other page or a shared part needs from it goes
    # into ui/run/ (the runner, the actions, the inputs' and candidates' state) or widgets/.
    pages = ("evaluator", "lab")
    into_page = sorted(
        f"ui/{me}.rs -> ui/{t}" for me, ts in ui_edges.items() for t in ts
        if t.split("/")[0] in pages and me.split("/")[0] != t.split("/")[0] and me != "mod"
    )
    files.sort(reverse=True)
    fns.sort(reverse=True)
    print(f"files over {MAX_FILE} lines of code (of {len(files)}):")
    big = [f for f in files if f[0] > MAX_FILE]
    for loc, name in files[:8]:
        print(f"  {loc:5d}  {name}{'  <-- over' if loc > MAX_FILE else ''}")
    long = [f for f in fns if f[0] > MAX_FN]
    print(f"functions over {MAX_FN} lines: {len(long)} (longest shown)")
    for n, name, where in fns[:max(8, len(long))]:
        print(f"  {n:5d}  {name}  {where}")
    found = [("crate", c) for c in cycles(top_edges)]
    for a, e in sorted(sub_edges.items()):
        # ui/'s folders (the pages, metrics/, widgets/, state.rs naming every state) name each
        # other by design; in ui/ the rule is no cycle between files (below).
        if a != "ui":
            found += [(a, c) for c in cycles(e)]
    found += [("ui files", c) for c in cycles(ui_edges)]
    print(f"import cycles: {len(found)}")
    for scope, c in found:
        print(f"  {scope}: {' -> '.join(c)}")
    # ui/'s folders (and its top-level files) as the nodes: two that import each other, each
    # with the files that do it (--check fails on one).
    two_way = ui_folder_pairs(ui_edges)
    print(f"ui folders importing each other: {len(two_way)}")
    for (a, b), (ab, ba) in two_way:
        print(f"  {a} <-> {b}: {', '.join(ab[:2])}{' …' if len(ab) > 2 else ''} | {', '.join(ba[:2])}{' …' if len(ba) > 2 else ''}")
    print(f"files outside a page folder naming it: {len(into_page)}")
    for e in into_page:
        print(f"  {e}")
    # Every metric room (a folder of crates/core/src/metrics/) must be in the registry's list (METRICS is
    # read from it), or the check above would not hold it to its room.
    rooms = sorted(d.name for d in (CORE / "metrics").iterdir() if d.is_dir())
    unlisted = [r for r in rooms if r not in METRICS]
    for r in unlisted:
        print(f"metric room crates/core/src/metrics/{r}/ is not in the registry (`pub enum Metric` and `Metric::info` in crates/core/src/metrics/mod.rs)")
    per_metric = {m: sorted(f for f, ms in naming.items() if m in ms) for m in METRICS}
    print("files naming a metric outside its room: " + ", ".join(f"{m} {len(fs)}" for m, fs in per_metric.items()))
    for f, ms in sorted(naming.items()):
        print(f"  {f}: {', '.join(sorted(ms))}  <-- outside its room and the registries")
    naming_bad = sorted(naming)
    print(f"flat aliases re-exported by ui/mod.rs: {len(aliases)}")
    for a in aliases:
        print(f"  {a}")
    # Identifiers (fields, functions, variables) that name a metric outside its room and the
    # registries (--check fails on one): shared code asks a metric through its traits
    # (`MetricCore`, `MetricUi`, `Weighting`), never by a name of its own.
    idents = metric_identifiers()
    print(f"files with an identifier naming a metric outside its room: {len(idents)}")
    for f, names in idents:
        print(f"  {f}: {', '.join(names[:6])}  <-- outside its room and the registries")
    if check and (big or long or found or aliases or into_page or naming_bad or unlisted or two_way or idents):
        sys.exit(1)


if __name__ == "__main__":
    main()
