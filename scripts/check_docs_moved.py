#!/usr/bin/env python3
"""Checks that splitting the README into docs/ lost nothing (issue #28): every non-blank line and
every heading of the README as it was at REV is found in README.md, DESIGN.md or docs/*.md now
(a heading at any level). Prints what is missing; exits 1 if a heading is.

    python3 scripts/check_docs_moved.py [REV]    # REV: a commit with the old README (a30eb1d)

The lines it lists were edited on purpose, at the split or by the features of the same round:
six in-page links ("#fidelity", "see below") now point at the file their section moved to;
security's "There is no share link" now says what a share link holds, and its `frame-ancestors
'none'` advice became the framing policy the embed needs; Firefox's JSPI flag, the embed code,
the old size figures, the lab's old "Compare two runs" paragraph and `compare-table` id, and
DESIGN's old meta/ and lab/ lines were rewritten for what the code does now (22 lines in all)."""

import subprocess
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[1]
rev = sys.argv[1] if len(sys.argv) > 1 else "a30eb1d"
old = subprocess.run(["git", "show", f"{rev}:README.md"], cwd=root, check=True,
                     capture_output=True, text=True).stdout.split("\n")
files = [root / "README.md", root / "DESIGN.md", *sorted((root / "docs").glob("*.md"))]
new = "\n".join(p.read_text() for p in files)
bare = lambda line: line.strip().lstrip("#").strip()  # noqa: E731
new_lines = {bare(line) for line in new.split("\n")}
missing = [(i + 1, line) for i, line in enumerate(old)
           if line.strip() and line.strip() not in new and bare(line) not in new_lines]
heads = [bare(line) for line in old if line.startswith("#")]
new_heads = {bare(line) for line in new.split("\n") if line.startswith("#")}
lost = [h for h in heads if h not in new_heads]
print(f"{sum(1 for line in old if line.strip())} non-blank lines and {len(heads)} headings at {rev}: "
      f"{len(missing)} lines not found verbatim, {len(lost)} headings lost")
for n, line in missing:
    print(f"  line {n}: {line[:100]}")
for h in lost:
    print(f"  heading: {h}")
sys.exit(1 if lost else 0)
