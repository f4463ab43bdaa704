#!/usr/bin/env python3
"""The last build steps Trunk 0.21 cannot do, on each built page (dist/, dist/lab/):

1. Minify the wasm-bindgen JS glue with esbuild (from npm, .tools/): Trunk's minifier leaves
   that file alone; minified it is about 2 KB smaller gzipped. Its Subresource Integrity hash
   in index.html is updated to match.
2. Move Trunk's inline loader `<script type=module>` into its own file (`start-<hash>.js`,
   with an integrity hash), so the Content-Security-Policy in index.html can say
   `script-src 'self'` with no inline script allowed at all.

3. Copy the "In this browser (llama.cpp)" provider into `wllama/` of each page: @wllama/wllama's
   ES module and wasm (from npm, .tools/, pinned by scripts/setup.sh), @wllama/wllama-compat's
   Memory32 build of the same version into `wllama/compat/`, and src/web/in_browser.js, the
   bridge the app loads only when that provider is chosen. Nothing of it is in the first visit.

4. Place the on-demand wasm chunks that scripts/split/wasm-bindgen cut out of each page's wasm
   (`--chunks DIR`: DIR/<page's wasm name>/): each chunk is optimised with wasm-opt like the
   main wasm, and every file gets a short content-hashed name (`chunk-<part>-<8 hex>.wasm`), so a
   new deploy never pairs an old chunk with a new main module. The loader `split-<hash>.js`,
   its one fetcher per chunk written once (`one_chunk_loader`), is imported by the JS glue, whose
   import and integrity hash are updated to match.
   Then the wasm's imports from its glue get short names (`shorten_imports`): wasm-bindgen's
   `__wbg_<method>_<16 hex>` names cost every first visit 8.6 KB gzip, paid in both files.

5. Inline the evaluator's stylesheet into its page (`<style>`, allowed by its hash in the
   Content-Security-Policy), so its first paint waits on no second request; the lab keeps its
   linked stylesheets (issue 43).

6. Write the static shell's script (src/web/shell.js, minified by esbuild) into the evaluator's page in place of its
   `<template id="shell-script">`, allowed by its hash (`script-src … 'sha256-…'`): the shell's
   image, text and Evaluate work before the wasm arrives (issue 43). It is the page's one inline
   script, inside the shell, so the app removes it with the shell when it mounts. The page's
   preloads move into a `<template id=hj-preloads>` beside it, which the script puts into the
   head once the shell has painted (`defer_preloads`): the first paint waits on none of them.

7. Write `embed.html` beside the evaluator's index.html: the same page (its shell without the
   fields and their script), which opens as the
   embed. Hosts that set headers per path (Netlify, Cloudflare Pages) can then let any site frame
   the embed while `frame-ancestors 'self'` keeps the full evaluator unframed (docs/deploy/).

8. The site file: `public/site.json`, if there is one, is copied into dist/; dist/site.json is
   checked with scripts/check_site_json.py, and a refused one (a key in it, an unknown field,
   a bad id) fails the build with its sentence. Then it is written into every page
   (`embed_site`: index.html, embed.html, lab/index.html) as
   `<meta name="hj-site" id="hj-site" content="…">`, `null` for none, so the page needs no
   request before its first paint; the static shell shows the site's title and tagline. An
   owner who edits dist/site.json on the host without rebuilding still reaches visitors: the
   loader asks the host for it beside the wasm, and the page applies the host's copy when it
   arrives, on that same visit, and keeps it for the next (crates/core/src/files/site_fresh.rs,
   src/ui/state/site_follow.rs). `scripts/finish_dist.py --site dist` writes an edited
   dist/site.json into the pages again without a rebuild, so even the next visit has it.

Usage: scripts/finish_dist.py [--chunks DIR] dist [dist/lab ...]
       scripts/finish_dist.py --site dist
       scripts/finish_dist.py --own-engine FOLDER dist [dist/lab ...]"""

import base64
import hashlib
import html as html_text
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from wasm_sizes import _leb  # the LEB128 reader the size report already has

ESBUILD = Path(__file__).resolve().parents[1] / ".tools" / "node_modules" / ".bin" / "esbuild"
ROOT = Path(__file__).resolve().parents[1]
WLLAMA = ROOT / ".tools" / "node_modules" / "@wllama" / "wllama" / "esm"
# The same llama.cpp built for browsers without JSPI or Memory64 (Asyncify, Memory32), served from
# our own origin: wllama would otherwise fetch it from a CDN.
COMPAT = ROOT / ".tools" / "node_modules" / "@wllama" / "wllama-compat" / "wasm"
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


def externalise_loader(page_dir, html, site_path="site.json"):
    m = INLINE_LOADER.search(html)
    if not m:
        if "start-" in html:
            return html  # already done
        sys.exit(f"{page_dir}/index.html: Trunk's inline loader was not found")
    glue = re.search(r"from '\./([^']+\.js)'", m.group(1)).group(1)
    wasm = re.search(r"module_or_path: '\./([^']+\.wasm)'", m.group(1)).group(1)
    # Only what the app needs: ask the host for the site file beside the wasm (the page uses the
    # answer if it is here when the app starts, and applies it when it arrives otherwise, never
    # waiting for it: src/ui/site.rs), then
    # instantiate the wasm (its `main` mounts the page). `window.hjSite` settles to the text,
    # null for none (404), or undefined for a failure.
    site = ("window.hjSite = fetch('" + site_path + "', { cache: 'no-cache', "
            "redirect: 'error' }).then(r => r.status === 404 ? null : r.ok ? r.text() : undefined).catch(() => undefined);\n")
    # Then the isolation worker (src/web/isolation.js), which may reload the page before the
    # app starts when the site file turns it on.
    root = site_path.removesuffix("site.json")
    iso = (ROOT / "src" / "web" / "isolation.js").read_bytes()
    iso_name = f"isolation-{short_hash(iso)}.js"
    if root == "":
        (page_dir / iso_name).write_bytes(iso)
    # Written short: every first visit carries it. `hj-site` is always in the page (embed_site).
    # A wasm that cannot be fetched or compiled is announced (`hj-start-failed`, which the static
    # shell's script says in words): WebKit reports a module's rejected top-level await nowhere.
    loader = (site + f"import init from './{glue}';\n"
              "const w=navigator.serviceWorker;\n"
              "if(!(w&&(w.controller||/isolation_worker\\\\?\"\\s*:\\s*true/.test(document.getElementById('hj-site').content))"
              f"&&await(await import('./{root}{iso_name}')).default('{root}')))"
              f"await init({{ module_or_path: './{wasm}' }}).catch(e=>{{dispatchEvent(new Event('hj-start-failed'));throw e}});\n").encode()
    name = f"start-{hashlib.sha256(loader).hexdigest()[:16]}.js"
    (page_dir / name).write_bytes(loader)
    tag = f'<script type=module src=./{name} integrity={sri(loader)}></script>'
    return html[:m.start()] + tag + html[m.end():]


def allow_inline(page_dir, html, directive, text):
    """The page's Content-Security-Policy `directive` (as the source writes it) extended by the
    SHA-256 of `text`: the one inline element of that kind the page may run or apply."""
    digest = "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"
    html, n = re.subn(re.escape(directive + ";"), lambda _: f"{directive} {digest};", html, count=1)
    if n != 1:
        sys.exit(f"{page_dir}/index.html: no Content-Security-Policy {directive.split()[0]} to extend")
    return html


def inline_styles(page_dir, html):
    """The evaluator's stylesheet into its page, so the first paint waits on no request (issue 43:
    a linked stylesheet blocks rendering for one more round trip). The policy allows exactly
    this text by its hash (`style-src 'self' 'sha256-…'`), so no other inline style can apply.
    The file itself is removed when no page of `page_dir` links it any more."""
    m = re.search(r'<link\b[^>]*\brel="?stylesheet"?[^>]*>', html)
    if not m:
        if "<style>" in html:
            return html  # already done
        sys.exit(f"{page_dir}/index.html: no stylesheet to inline")
    href = re.search(r'\bhref="?\./([^" >]+\.css)', m.group(0)).group(1)
    css = (page_dir / href).read_text()
    if "</style" in css.lower():
        sys.exit(f"{page_dir}/{href}: cannot be inlined (it contains </style)")
    html = html[:m.start()] + f"<style>{css}</style>" + html[m.end():]
    html = allow_inline(page_dir, html, "style-src 'self'", css)
    (page_dir / href).unlink()
    print(f"inlined {href} ({len(css):,} bytes) into {page_dir}/index.html")
    return html


SHELL_TEMPLATE = re.compile(r'<template id="?shell-script"?></template>')
SHELL_INPUTS = re.compile(r'(<section\b[^>]*\bclass="column inputs"[^>]*>).*?(</section>)', re.S)


def inline_shell_script(page_dir, html):
    """The static shell's script into the evaluator's page, where its `<template>` is, and its
    hash into the policy's `script-src`: it is the page's only inline script."""
    source = (ROOT / "src" / "web" / "shell.js").read_text()
    # Minified: every first visit carries it (its comments stay in the source).
    js = subprocess.run([str(ESBUILD), "--minify", "--log-level=warning"], input=source,
                        capture_output=True, text=True, check=True).stdout.strip()
    if "</script" in js.lower():
        sys.exit("src/web/shell.js: cannot be inlined (it contains </script)")
    if not SHELL_TEMPLATE.search(html):
        if "hj-shell-interactive" in html:
            return html  # already done
        sys.exit(f"{page_dir}/index.html: no <template id=shell-script> in the static shell")
    preloads = defer_preloads(page_dir, html)
    html = SHELL_TEMPLATE.sub(lambda _: preloads + f"<script>{js}</script>", PRELOAD.sub("", html), count=1)
    html = allow_inline(page_dir, html, "script-src 'self' 'wasm-unsafe-eval'", js)
    print(f"wrote src/web/shell.js ({len(source):,} -> {len(js):,} bytes) into {page_dir}/index.html")
    return html


PRELOAD = re.compile(r'<link\b[^>]*\brel="?(?:module)?preload"?[^>]*>')


def defer_preloads(page_dir, html):
    """The page's preloads (the glue, its split loader, the wasm) as a `<template id=hj-preloads>`
    for the shell's script to put into the head once the shell has painted (issue 43): asked for
    in the head, they arrived and were compiled before the first frame, and the first paint came
    about a frame later (1.13–1.31× a static page against 1.00–1.15× without them, measured
    here). A template's content is inert: no browser fetches it until it is inserted."""
    links = PRELOAD.findall(html)
    if len(links) != 3:
        sys.exit(f"{page_dir}/index.html: expected the glue's, the split loader's and the wasm's preloads, found {len(links)}")
    return f"<template id=hj-preloads>{''.join(links)}</template>"


def embed_shell(html):
    """The embed's page: its static shell keeps the header and a loading line but no fields or
    script (the embed has neither image nor text to take)."""
    html = SHELL_TEMPLATE.sub("", html)
    return SHELL_INPUTS.sub(lambda m: m.group(1) + '<p class=shell-loading role=status>Loading…</p>' + m.group(2),
                            html, count=1)


WASM_OPT = ROOT / ".tools" / "node_modules" / ".bin" / "wasm-opt"


def short_hash(data):
    return hashlib.sha256(data).hexdigest()[:16]


CHUNK_FETCHER = re.compile(
    r'makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("\./([\w.-]+)\.wasm", import\.meta\.url\)\);\s*'
    r'src\.catch\(\(\) => \{\}\);\s*return async \(imports\) => \(WebAssembly\.instantiateStreaming\(src, imports\)\);\s*\}\s*,')


def one_chunk_loader(link, split_dir):
    """The split loader with its one fetcher per chunk written once (`loadChunk(name, deps)`):
    all of them are in every first visit, and gzip does not fold 126 copies away (218 B)."""
    link, n = CHUNK_FETCHER.subn(lambda m: f'loadChunk("{m.group(1)}",', link)
    if n != len([c for c in split_dir.glob("*.wasm") if c.stem != split_dir.name]):
        sys.exit(f"{split_dir}/__wasm_split.js: {n} chunk fetchers matched, not one per chunk (the generator changed?)")
    helper = ('\nconst loadChunk = (name, deps) => makeLoad(() => {\n'
              '    const src = fetch(new URL("./chunk-" + name + ".wasm", import.meta.url));\n'
              '    src.catch(() => {});\n'
              '    return async (imports) => (WebAssembly.instantiateStreaming(src, imports));\n'
              '}, deps);\n')
    at = link.index("\nfunction makeLoad(")
    return link[:at] + helper + link[at:]


def place_chunks(page_dir, html, split_root):
    glues = [js for js in page_dir.glob("*.js") if re.fullmatch(r"harmonic-judge(-lab)?-[0-9a-f]+\.js", js.name)]
    if len(glues) != 1:
        sys.exit(f"{page_dir}: expected one JS glue, found {[g.name for g in glues]}")
    glue = glues[0]
    stem = glue.name.rsplit("-", 1)[0]
    split_dir = split_root / stem
    glue_js = glue.read_text()
    if "__wasm_split.js" not in glue_js:
        return html  # no split point in this page
    link = one_chunk_loader((split_dir / "__wasm_split.js").read_text(), split_dir)
    for old in page_dir.glob("split-*.js"):
        old.unlink()
    for old in page_dir.glob("chunk-*.wasm"):
        old.unlink()
    for chunk in sorted(split_dir.glob("*.wasm")):
        if chunk.name == f"{stem}.wasm":
            continue  # the main module, which wasm-bindgen and Trunk already placed
        out = page_dir / "chunk.tmp.wasm"
        subprocess.run([str(WASM_OPT), "-Os", "--low-memory-unused", "--strip-debug", "--strip-producers",
                        "--detect-features", "--enable-bulk-memory", "--enable-sign-ext", "--enable-mutable-globals",
                        "--enable-nontrapping-float-to-int", "--enable-reference-types", "--enable-multivalue", str(chunk), "-o", str(out)], check=True)
        data = out.read_bytes()
        out.unlink()
        # Short names: the loader names all 126 in every first visit, and a hash's hex digits do
        # not compress (16 digits and `chunk_16` for `16` cost 658 B gzip more). 32 bits of
        # content hash still give each new chunk a new name.
        part = chunk.stem.removeprefix('split_').removeprefix('chunk_')
        name = f"chunk-{part}-{short_hash(data)[:8]}.wasm"
        (page_dir / name).write_bytes(data)
        if f'loadChunk("{chunk.stem}"' not in link:
            sys.exit(f"{split_dir}/__wasm_split.js does not load {chunk.name}")
        link = link.replace(f'loadChunk("{chunk.stem}"', f'loadChunk("{name.removeprefix("chunk-").removesuffix(".wasm")}"')
        print(f"chunk {name}: {len(data):,} bytes")
    if f'from "./{stem}.js"' not in link:
        sys.exit(f"{split_dir}/__wasm_split.js does not import ./{stem}.js")
    link = link.replace(f'from "./{stem}.js"', f'from "./{glue.name}"').encode()
    link_name = f"split-{short_hash(link)}.js"
    (page_dir / link_name).write_bytes(link)
    subprocess.run([str(ESBUILD), "--minify", "--format=esm", "--log-level=warning",
                    str(page_dir / link_name), f"--outfile={page_dir / link_name}", "--allow-overwrite"], check=True)
    before = glue.read_bytes()
    # Only the import's specifier: the imports object keeps the module name the wasm asks for.
    after = re.sub(r"from\s*([\"'])\./__wasm_split\.js\1", f'from"./{link_name}"', glue_js).encode()
    if after == before:
        sys.exit(f"{glue}: its import of __wasm_split.js was not found")
    glue.write_bytes(after)
    if sri(before) not in html:
        sys.exit(f"{page_dir}/index.html: no integrity hash of {glue.name} to update")
    html = html.replace(sri(before), sri(after))
    # The glue imports the loader: preloaded beside it, it is not a second round trip after the
    # glue arrives (issue 43; measured 15 ms of the start-up here).
    preload = re.search(r'<link[^>]*\bhref="?\./' + re.escape(glue.name) + r'"?[^>]*\brel="?modulepreload"?[^>]*>', html)
    if not preload:
        sys.exit(f"{page_dir}/index.html: no modulepreload of {glue.name} to put the loader's beside")
    loader = (page_dir / link_name).read_bytes()
    tag = f'<link crossorigin href="./{link_name}" integrity="{sri(loader)}" rel="modulepreload">'
    return html[:preload.end()] + tag + html[preload.end():]


def _uleb(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _name(buf, i):
    n, i = _leb(buf, i)
    return buf[i:i + n].decode(), i + n


def _skip_import_desc(buf, i):
    kind = buf[i]
    i += 1
    if kind == 0:  # a function: its type index
        return _leb(buf, i)[1]
    if kind == 1:  # a table: its element type, then limits
        i += 1
    if kind in (1, 2):  # limits: flags, minimum, maybe a maximum
        flags = buf[i]
        i = _leb(buf, i + 1)[1]
        return _leb(buf, i)[1] if flags & 1 else i
    if kind == 3:  # a global: its type and mutability
        return i + 2
    sys.exit(f"an import of kind {kind} that this step does not know")


def short_names():
    """a … z, A … Z, then two characters: identifiers no import object already uses."""
    first = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    yield from first
    for a in first:
        for b in first + "0123456789_$":
            yield a + b


def shorten_imports(page_dir, html):
    """The wasm's imports from its JS glue get short names, in the wasm's import section and in
    the glue's imports object alike. wasm-bindgen names each `__wbg_<method>_<16 hex digits>`:
    about 290 names whose digits compress in neither file, each paid twice in every first visit
    (measured on 2026-12-01: 17.5 KB of import section, 5.6 KB of it gzipped). The names say
    nothing at run time; a panic's stack names the wasm's functions, not these."""
    glues = [js for js in page_dir.glob("*.js") if re.fullmatch(r"harmonic-judge(-lab)?-[0-9a-f]+\.js", js.name)]
    if len(glues) != 1:
        sys.exit(f"{page_dir}: expected one JS glue, found {[g.name for g in glues]}")
    glue, wasm = glues[0], page_dir / (glues[0].stem + "_bg.wasm")
    data, js = wasm.read_bytes(), glue.read_text()
    i, out, renamed = 8, bytearray(data[:8]), {}
    names = short_names()
    while i < len(data):
        sid, (size, body_at) = data[i], _leb(data, i + 1)
        body = data[body_at:body_at + size]
        if sid == 2:
            count, j = _leb(body, 0)
            new = bytearray(_uleb(count))
            for _ in range(count):
                module, k = _name(body, j)
                name, k = _name(body, k)
                end = _skip_import_desc(body, k)
                if module.endswith("_bg.js") and name.startswith("__wb"):
                    short = renamed.setdefault(name, next(names))
                    name = short
                new += _uleb(len(module.encode())) + module.encode() + _uleb(len(name.encode())) + name.encode()
                new += body[k:end]
                j = end
            body = bytes(new)
        out += bytes([sid]) + _uleb(len(body)) + body
        i = body_at + size
    if not renamed:
        return html  # already done (or a glue with nothing to rename)
    for old, short in renamed.items():
        # The name is a key of the glue's imports object and nowhere else.
        if len(re.findall(r"(?<![\w$])" + re.escape(old) + r"(?![\w$])", js)) != 1:
            sys.exit(f"{glue}: the import {old} is not exactly one key of its imports object")
        js, n = re.subn(r"(?<![\w$])" + re.escape(old) + r"(?=:)", short, js)
        if n != 1:
            sys.exit(f"{glue}: the import {old} is not a key of its imports object")
    for path, before, after in [(glue, glue.read_bytes(), js.encode()), (wasm, data, bytes(out))]:
        if sri(before) not in html:
            sys.exit(f"{page_dir}/index.html: no integrity hash of {path.name} to update")
        html = html.replace(sri(before), sri(after))
        path.write_bytes(after)
    print(f"{wasm.name}: {len(renamed)} imports renamed, {len(data):,} -> {len(out):,} bytes")
    return html


def copy_in_browser_judge(page_dir):
    if not WLLAMA.is_dir():
        sys.exit(f"{WLLAMA} is missing: run scripts/setup.sh")
    out = page_dir / "wllama"
    out.mkdir(exist_ok=True)
    (out / "compat").mkdir(exist_ok=True)
    for src, name in [(WLLAMA / "index.min.js", "wllama.js"), (WLLAMA / "wasm" / "wllama.wasm", "wllama.wasm"),
                      (COMPAT / "wllama.js", "compat/wllama.js"), (COMPAT / "wllama.wasm", "compat/wllama.wasm"),
                      (ROOT / "src" / "web" / "in_browser.js", "in_browser.js")]:
        if not src.is_file():
            sys.exit(f"{src} is missing: run scripts/setup.sh")
        (out / name).write_bytes(src.read_bytes())
    copy_own_engine(out / "own")
    print(f"copied the in-browser judge into {out}")


def copy_own_engine(out):
    """Our own llama.cpp build (scripts/own_engine.sh prints its folder; build.sh passes it as
    HJ_OWN_ENGINE) and its worker and page-side client, into `wllama/own/`. HJ_OWN_ENGINE set
    but empty (build.sh with HJ_ENGINE_LATER=1): the worker and client only; the page then runs
    wllama's build and says why (src/web/in_browser.js asks for own/engine.wasm), until
    `--own-engine` adds the build."""
    name = os.environ.get("HJ_OWN_ENGINE")
    if name is None or (name and not ((Path(name) / "engine.wasm").is_file()
                                      and (Path(name) / "mt" / "engine.wasm").is_file())):
        sys.exit("HJ_OWN_ENGINE does not name a folder with engine.wasm: run scripts/own_engine.sh (build.sh does)")
    out.mkdir(exist_ok=True)
    own = ROOT / "src" / "web" / "own_engine"
    built = [Path(name) / "engine.js", Path(name) / "engine.wasm"] if name else []
    for src in [own / "worker.js", own / "client.js", *built]:
        (out / src.name).write_bytes(src.read_bytes())
    # The threaded build (a cross-origin isolated page): its engine and the script each of its
    # threads runs.
    if name:
        (out / "mt").mkdir(exist_ok=True)
        for file in ["engine.js", "engine.wasm", "engine.worker.js"]:
            (out / "mt" / file).write_bytes((Path(name) / "mt" / file).read_bytes())


def place_site_file(page_dir):
    sys.path.insert(0, str(ROOT / "scripts"))
    from check_site_json import problem

    source = ROOT / "public" / "site.json"
    if source.is_file():
        (page_dir / "site.json").write_bytes(source.read_bytes())
    placed = page_dir / "site.json"
    if placed.is_file():
        why = problem(placed.read_text(encoding="utf-8"))
        if why:
            placed.unlink()
            sys.exit(f"{source if source.is_file() else placed}: {why}")
        print(f"checked the site file {placed}")


SITE_TAG = re.compile(r'[ \t]*<meta name="hj-site" id="hj-site" content="[^"]*">\n?')


def embed_site(html, text):
    """`html` with the site file `text` (None: none) written in as
    `<meta name="hj-site" id="hj-site" content="…">`: a JSON string (`null` for none; read by
    crates/core/src/files/site_fresh.rs's `read_embedded`), escaped for the attribute, replacing any earlier
    copy. A `<meta>`, not a `<script>`: the only inline script is the static shell's, allowed
    by its hash (the CSP test holds the pages to that). The static shell takes the site's title and tagline."""
    data = "null" if text is None else json.dumps(text).replace("<", "\\u003c")
    html = SITE_TAG.sub("", html)
    tag = f'<meta name="hj-site" id="hj-site" content="{html_text.escape(data, quote=True)}">'
    html = html.replace("</head>", f"  {tag}\n  </head>", 1)
    try:  # the shell's title: only from a file that reads (the page says why one does not)
        site = json.loads(text) if text else {}
    except ValueError:
        site = {}
    site = site if isinstance(site, dict) else {}
    if isinstance(site.get("title"), str):
        html = re.sub(r"<title>.*?</title>", f"<title>{html_text.escape(site['title'])}</title>", html, count=1, flags=re.S)
        html = re.sub(r'(<div\b[^>]*\bid="?static-shell"?[^>]*>\s*<header\b[^>]*>\s*<h1>).*?(</h1>)',
                      lambda m: m.group(1) + html_text.escape(site["title"]) + m.group(2), html, count=1, flags=re.S)
    if isinstance(site.get("tagline"), str):
        html = re.sub(r'(<div\b[^>]*\bid="?static-shell"?.*?<p class="?tagline"?>).*?(</p>)',
                      lambda m: m.group(1) + html_text.escape(site["tagline"]) + m.group(2), html, count=1, flags=re.S)
    return html


def site_text(dist):
    placed = Path(dist) / "site.json"
    return placed.read_text(encoding="utf-8") if placed.is_file() else None


def embed_site_in_pages(dist):
    """Writes dist/site.json (checked) into dist's pages again: index.html, embed.html and
    lab/index.html."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from check_site_json import problem

    text = site_text(dist)
    if text is not None and (why := problem(text)):
        sys.exit(f"{Path(dist) / 'site.json'}: {why}")
    for page in [Path(dist) / "index.html", Path(dist) / "embed.html", Path(dist) / "lab" / "index.html"]:
        if page.is_file():
            page.write_text(embed_site(page.read_text(), text))
            print(f"wrote the site file into {page}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--site"]:
        embed_site_in_pages(sys.argv[2])
        sys.exit(0)
    if sys.argv[1:2] == ["--own-engine"]:
        # A site finished without our own build (build.sh with HJ_ENGINE_LATER=1): add it,
        # once scripts/own_engine.sh has built it (scripts/serve.sh does, beside the server).
        os.environ["HJ_OWN_ENGINE"] = sys.argv[2]
        for d in map(Path, sys.argv[3:]):
            copy_own_engine(d / "wllama" / "own")
            print(f"added our own llama.cpp build to {d / 'wllama' / 'own'}")
        sys.exit(0)
    args = sys.argv[1:]
    split_root = None
    if args[:1] == ["--chunks"]:
        split_root, args = Path(args[1]), args[2:]
    for d in map(Path, args):
        page = d / "index.html"
        html = page.read_text()
        html = minify_glue(d, html)
        if split_root is not None:
            html = place_chunks(d, html, split_root)
        html = shorten_imports(d, html)
        html = externalise_loader(d, html, "site.json" if d == Path(args[0]) else "../site.json")
        embed = None
        if d == Path(args[0]):
            html = inline_styles(d, html)
            embed = embed_shell(html)
            html = inline_shell_script(d, html)
        page.write_text(html)
        copy_in_browser_judge(d)
        if d == Path(args[0]):
            place_site_file(d)
            (d / "coi.js").write_bytes((ROOT / "src" / "web" / "coi.js").read_bytes())
        html = embed_site(html, site_text(args[0]))
        page.write_text(html)
        if embed is not None:
            (d / "embed.html").write_text(embed_site(embed, site_text(args[0])))
