#!/usr/bin/env python3
"""Writes <dir>/manifest.json, the gallery's list of examples, from the result files in <dir>
(each `*.json` but the manifest itself): name (the file's stem, the `demo-<name>` test id),
title (its `title`, else the stem), file, and where its numbers come from: origin "constructed"
(chosen by hand: its `source` says "Constructed…" or its model is "(none: constructed)"),
"recorded" (its `source` says "Recorded…") or "file" (it does not say), with the model it
names. One example is marked `start`, the place a first visit is pointed to: `--start NAME`,
else gamma-flip-a when present, else the first. A file that is not a JSON object with a `metric`
is left out with a warning, so a site owner's stray file cannot break the gallery.

Usage: scripts/examples_manifest.py dist/examples [--start NAME]"""

import json
import re
import sys
from pathlib import Path


def manifest(folder):
    entries = []
    for f in sorted(folder.glob("*.json")):
        if f.name == "manifest.json":
            continue
        try:
            doc = json.loads(f.read_text())
        except (ValueError, UnicodeDecodeError):
            doc = None
        if not isinstance(doc, dict) or "metric" not in doc or not re.fullmatch(r"[A-Za-z0-9_-]+", f.stem):
            print(f"warning: {f} is not a result file with a plain name; left out of the gallery", file=sys.stderr)
            continue
        entries.append({"name": f.stem, "title": doc.get("title") or f.stem, "metric": doc["metric"], "file": f.name,
                        "origin": origin(doc), "model": str(doc.get("model") or "")[:80]})
    return entries


def origin(doc):
    """Where the file says its numbers come from (the gallery's label says it as a claim)."""
    source = str(doc.get("source") or "").lstrip().lower()
    if source.startswith("constructed") or str(doc.get("model") or "").startswith("(none: constructed)"):
        return "constructed"
    if source.startswith("recorded"):
        return "recorded"
    return "file"


def mark_start(entries, start=None):
    names = [e["name"] for e in entries]
    chosen = start if start in names else "gamma-flip-a" if "gamma-flip-a" in names else names[0] if names else None
    for e in entries:
        e["start"] = e["name"] == chosen
    return entries


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    start = sys.argv[sys.argv.index("--start") + 1] if "--start" in sys.argv[2:-1] else None
    entries = mark_start(manifest(folder), start)
    (folder / "manifest.json").write_text(json.dumps(entries, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {folder / 'manifest.json'}: {len(entries)} examples")
