#!/usr/bin/env python3
"""Checks a deployed harmonic-judge site from the outside, as a browser would fetch it:

- every file the pages load is reachable (index.html, embed.html, lab/, the loaders, the JS
  glue, the wasm, every on-demand chunk `chunk-*.wasm` the split loaders name, the in-page
  judge's wllama/ files (both builds), the isolation worker, the examples and their manifest);
- each is served with the MIME type the browser insists on (`.wasm` as application/wasm, or
  WebAssembly.instantiateStreaming refuses it; `.js` as JavaScript; `.css`, `.html`, `.json`);
- the isolation headers (Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-
  Policy: credentialless or require-corp) that let the in-page judge run multi-threaded;
- the framing policy: the full evaluator and the lab refuse other sites' frames
  (`Content-Security-Policy: frame-ancestors 'self'`, or X-Frame-Options), while embed.html,
  made to be framed, does not;
- `site.json`, if the site has one, is valid (scripts/check_site_json.py; a 404 means none).

Usage: scripts/check_site.py URL [--no-headers]
  --no-headers: for hosts that cannot send headers (GitHub Pages): missing isolation and
  framing headers are warnings, not failures (the page then refuses other sites' frames by
  script, and the in-page judge runs on one thread).
Exit 0 when nothing failed; otherwise 1, each failure named on its own line."""

import re
import sys
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urljoin, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_site_json import problem as site_json_problem  # noqa: E402

MIME = {
    ".wasm": ("application/wasm",),
    ".js": ("text/javascript", "application/javascript"),
    ".css": ("text/css",),
    ".html": ("text/html",),
    ".json": ("application/json",),
    ".svg": ("image/svg+xml",),
}
# What the page loads only on demand, by a name written inside the wasm: the in-page judge.
ON_DEMAND = ["wllama/in_browser.js", "wllama/wllama.js", "wllama/wllama.wasm",
             "wllama/compat/wllama.js", "wllama/compat/wllama.wasm",
             "wllama/own/client.js", "wllama/own/worker.js", "wllama/own/engine.js", "wllama/own/engine.wasm",
             "wllama/own/mt/engine.js", "wllama/own/mt/engine.wasm", "wllama/own/mt/engine.worker.js"]
# The isolation worker, at the site's root only (registered where site.json turns it on).
ROOT_ONLY = ["coi.js"]
# What a script really loads: its imports, the wasm the loader starts (`module_or_path`), and
# the chunks the split loader names. (The glue also holds names it never fetches, such as the
# wasm's import module names and wasm-bindgen's default file name.)
ASSET = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*|module_or_path\s*:\s*)["'`]([^"'`]+\.(?:js|wasm))["'`]"""
                   r"""|["'`](\./chunk-[A-Za-z0-9_.-]+\.wasm)["'`]""")
# The split loader builds each chunk's URL from its short name (`"./chunk-" + name + ".wasm"`,
# scripts/finish_dist.py's one_chunk_loader): in a file that does, each `"<part>-<8 hex>"`.
CHUNK_NAME = re.compile(r"""["'`]([A-Za-z0-9_]+-[0-9a-f]{8})["'`]""")
ATTR = re.compile(r"""(?:src|href)=["']?([^"' >]+)""")


class Report:
    def __init__(self, lenient):
        self.lenient = lenient
        self.failures = 0

    def ok(self, what):
        print(f"ok    {what}")

    def fail(self, what):
        self.failures += 1
        print(f"FAIL  {what}")

    def header_problem(self, what):
        if self.lenient:
            print(f"warn  {what}")
        else:
            self.fail(what)


def get(url):
    """(status, headers, body); status 0 when the server could not be reached."""
    req = urllib.request.Request(url, headers={"User-Agent": "harmonic-judge check_site"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, b""
    except OSError as e:
        return 0, {}, str(e).encode()


def mime_of(headers):
    return (headers.get("Content-Type") or "").split(";")[0].strip().lower()


def check_file(rep, url, seen):
    """Fetches one file, checks its status and MIME type; returns its body (None if failed)."""
    if url in seen:
        return seen[url]
    status, headers, body = get(url)
    path = urlsplit(url).path
    seen[url] = None
    if status != 200:
        rep.fail(f"{path}: HTTP {status or 'unreachable'} (a file the page loads is missing)")
        return None
    ext = next((e for e in MIME if path.endswith(e)), ".html" if path.endswith("/") else None)
    got = mime_of(headers)
    if ext and got not in MIME[ext]:
        rep.fail(f"{path}: served as {got or 'no Content-Type'}, must be {MIME[ext][0]}")
        return None
    rep.ok(f"{path} ({got}, {len(body):,} bytes)")
    seen[url] = body
    return body


def crawl_page(rep, page_url, seen):
    """A page and everything its HTML and scripts name, chunks included."""
    html = check_file(rep, page_url, seen)
    if html is None:
        return None
    queue = [urljoin(page_url, a) for a in ATTR.findall(html.decode("utf-8", "replace"))
             if not re.match(r"(?i)[a-z]+:|#|//", a) and a.rsplit(".", 1)[-1] in ("js", "wasm", "css", "svg")]
    chunks = 0
    while queue:
        url = queue.pop(0)
        body = check_file(rep, url, seen)
        if body is None or not url.endswith(".js"):
            continue
        text = body.decode("utf-8", "replace")
        named = [g[0] or g[1] for g in ASSET.findall(text)]
        if '"./chunk-"+' in text.replace(" ", ""):
            named += [f"./chunk-{n}.wasm" for n in CHUNK_NAME.findall(text)]
        for name in named:
            target = urljoin(url, name)
            if target not in seen and target not in queue and urlsplit(target).netloc == urlsplit(page_url).netloc:
                chunks += "/chunk-" in target
                queue.append(target)
    rep.ok(f"{urlsplit(page_url).path}: {chunks} on-demand chunks named by its loaders") if chunks else None
    return True


def check_headers(rep, base):
    status, h, _ = get(base)
    coop, coep = h.get("Cross-Origin-Opener-Policy", ""), h.get("Cross-Origin-Embedder-Policy", "")
    if coop.strip() == "same-origin" and coep.strip() in ("credentialless", "require-corp"):
        rep.ok(f"isolation headers: COOP {coop}, COEP {coep} (the in-page judge can run multi-threaded)")
    else:
        rep.header_problem(f"isolation headers missing (COOP {coop or 'none'}, COEP {coep or 'none'}): "
                           "the in-page judge runs on one thread")
    for path in ("", "lab/"):
        _, h, _ = get(urljoin(base, path))
        csp = h.get("Content-Security-Policy", "")
        fa = re.search(r"frame-ancestors\s+([^;]+)", csp)
        xfo = h.get("X-Frame-Options", "").strip().upper()
        if (fa and fa.group(1).strip() in ("'self'", "'none'")) or (not fa and xfo in ("DENY", "SAMEORIGIN")):
            rep.ok(f"framing policy of /{path}: {fa.group(0) if fa else 'X-Frame-Options ' + xfo}")
        else:
            rep.header_problem(f"framing policy of /{path} missing: any site may frame the page with the key field "
                               "(the page's script fallback still refuses to show itself)")
    for path in ("embed.html?embed", "?embed"):
        _, h, _ = get(urljoin(base, path))
        csp = h.get("Content-Security-Policy", "")
        fa = re.search(r"frame-ancestors\s+([^;]+)", csp)
        xfo = h.get("X-Frame-Options", "").strip()
        blocked = (fa and "*" not in fa.group(1)) or (not fa and xfo)
        if path == "embed.html?embed":
            (rep.fail if blocked else rep.ok)(f"framing of /{path}: " + (
                "refused by a header, so other sites cannot embed it" if blocked else "allowed, as an embed must be"))
        elif not blocked:
            rep.ok(f"framing of /{path}: allowed")


def check_site_json(rep, base):
    status, headers, body = get(urljoin(base, "site.json"))
    host = None
    if status == 404:
        rep.ok("site.json: none (the page uses its defaults)")
    elif status != 200:
        rep.fail(f"site.json: HTTP {status or 'unreachable'}")
        return
    else:
        host = body.decode("utf-8", "replace")
        why = site_json_problem(host)
        (rep.fail if why else rep.ok)(f"site.json: {why or 'valid'}")
    # The copy the build wrote into the page (scripts/finish_dist.py): a different host file is
    # an owner's edit without a rebuild, which visitors get at once or from their next visit.
    _, _, page = get(base)
    m = re.search(r'<meta name="hj-site" id="hj-site" content="([^"]*)">', page.decode("utf-8", "replace"))
    if not m:
        print("warn  index.html holds no built-in site file (not built by scripts/build.sh?): the page fetches site.json first")
        return
    import json
    try:
        import html
        built = json.loads(html.unescape(m.group(1)))
    except ValueError:
        rep.fail("index.html: its built-in site file is not readable")
        return
    if (built or "").strip() != (host or "").strip():
        print("warn  site.json differs from the copy built into the pages: visitors get the host's at once or from "
              "their next visit; `python3 scripts/finish_dist.py --site dist` writes it into the pages")
    elif host is not None:
        rep.ok("site.json: the same as the copy built into the pages")


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 1:
        sys.exit(__doc__)
    base = args[0] if args[0].endswith("/") else args[0] + "/"
    rep = Report("--no-headers" in argv)
    seen = {}
    if crawl_page(rep, base, seen) is None:
        print(f"FAIL  {base} is not a harmonic-judge site (its index.html could not be read)")
        return 1
    crawl_page(rep, urljoin(base, "embed.html"), seen)
    crawl_page(rep, urljoin(base, "lab/"), seen)
    for path in ON_DEMAND + [f"lab/{p}" for p in ON_DEMAND] + ROOT_ONLY:
        check_file(rep, urljoin(base, path), seen)
    manifest = check_file(rep, urljoin(base, "examples/manifest.json"), seen)
    if manifest is not None:
        import json
        try:
            for ex in json.loads(manifest):
                check_file(rep, urljoin(base, "examples/" + ex["file"]), seen)
        except (ValueError, KeyError, TypeError):
            rep.fail("examples/manifest.json: not the gallery's list")
    check_headers(rep, base)
    check_site_json(rep, base)
    print(f"{rep.failures} problem(s)" if rep.failures else "the site serves what the page needs")
    return 1 if rep.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
