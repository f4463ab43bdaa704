#!/usr/bin/env python3
"""Writes <dir>/manifest.json, the gallery's list of examples, from the result files in <dir>
(each `*.json` but the manifest itself): name (the file's stem, the `demo-<name>` test id),
title (its `title`, else the stem) and file. A file that is not a JSON object with a `metric`
is left out with a warning, so a site owner's stray file cannot break the gallery.

Usage: scripts/examples_manifest.py dist/examples"""

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
        entries.append({"name": f.stem, "title": doc.get("title") or f.stem, "metric": doc["metric"], "file": f.name})
    return entries


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    entries = manifest(folder)
    (folder / "manifest.json").write_text(json.dumps(entries, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {folder / 'manifest.json'}: {len(entries)} examples")
