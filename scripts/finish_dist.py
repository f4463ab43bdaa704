#!/usr/bin/env python3
"""The last build steps Trunk 0.21 cannot do, on each built page (dist/, dist/lab/):

1. Minify the wasm-bindgen JS glue with esbuild (from npm, .tools/): Trunk's minifier leaves
   that file alone; minified it is about 2 KB smaller gzipped. Its Subresource Integrity hash
   in index.html is updated to match.
2. Move Trunk's inline loader `<script type=module>` into its own file (`start-<hash>.js`,
   with an integrity hash), so the Content-Security-Policy in index.html can say
   `script-src 'self'` with no inline script allowed at all.

3. Copy the "In this browser (llama.cpp)" provider into `wllama/` of each page: @wllama/wllama's
   ES module and wasm (from npm, .tools/, pinned by scripts/setup.sh) and src/web/in_browser.js, the
   bridge the app loads only when that provider is chosen. Nothing of it is in the first visit.

Usage: scripts/finish_dist.py dist [dist/lab ...]"""

import base64
import hashlib
import re
import subprocess
import sys
from pathlib import Path

ESBUILD = Path(__file__).resolve().parents[1] / ".tools" / "node_modules" / ".bin" / "esbuild"
ROOT = Path(__file__).resolve().parents[1]
WLLAMA = ROOT / ".tools" / "node_modules" / "@wllama" / "wllama" / "esm"
INLINE_LOADER = re.compile(r"<script type=\"?module\"?>(.*?)</script>", re.S)


def sri(data):
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()


def minify_glue(page_dir, html):
    for js in page_dir.glob("*.js"):
        if js.name.startswith("start-"):
            continue
        before = js.read_bytes()
        subprocess.run([str(ESBUILD), "--minify", "--format=esm", "--log-level=warning",
                        str(js), f"--outfile={js}", "--allow-overwrite"], check=True)
        after = js.read_bytes()
        if sri(before) in html:
            html = html.replace(sri(before), sri(after))
        elif sri(after) not in html:
            sys.exit(f"{page_dir}/index.html: no integrity hash of {js.name} to update")
        print(f"minified {js}: {len(before):,} -> {len(after):,} bytes")
    return html


def externalise_loader(page_dir, html):
    m = INLINE_LOADER.search(html)
    if not m:
        if "start-" in html:
            return html  # already done
        sys.exit(f"{page_dir}/index.html: Trunk's inline loader was not found")
    glue = re.search(r"from '\./([^']+\.js)'", m.group(1)).group(1)
    wasm = re.search(r"module_or_path: '\./([^']+\.wasm)'", m.group(1)).group(1)
    # Only what the app needs: instantiate the wasm (its `main` mounts the page).
    loader = f"import init from './{glue}';\nawait init({{ module_or_path: './{wasm}' }});\n".encode()
    name = f"start-{hashlib.sha256(loader).hexdigest()[:16]}.js"
    (page_dir / name).write_bytes(loader)
    tag = f'<script type=module src=./{name} integrity={sri(loader)}></script>'
    return html[:m.start()] + tag + html[m.end():]


def copy_in_browser_judge(page_dir):
    if not WLLAMA.is_dir():
        sys.exit(f"{WLLAMA} is missing: run scripts/setup.sh")
    out = page_dir / "wllama"
    out.mkdir(exist_ok=True)
    for src, name in [(WLLAMA / "index.min.js", "wllama.js"), (WLLAMA / "wasm" / "wllama.wasm", "wllama.wasm"),
                      (ROOT / "src" / "web" / "in_browser.js", "in_browser.js")]:
        (out / name).write_bytes(src.read_bytes())
    print(f"copied the in-browser judge into {out}")


if __name__ == "__main__":
    for d in map(Path, sys.argv[1:]):
        page = d / "index.html"
        html = page.read_text()
        html = minify_glue(d, html)
        html = externalise_loader(d, html)
        page.write_text(html)
        copy_in_browser_judge(d)
