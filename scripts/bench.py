#!/usr/bin/env python3
"""The performance benchmark: what a user downloads, waits for and pays, each figure beside a
baseline measured in the same run, and the budgets of issue 9 as pass/fail.

Run it through ``scripts/bench.sh`` (which builds the release site first). ``--smoke`` takes
fewer samples (CI). Timings are reported, never asserted: a missed budget prints "miss" and the
exit status stays 0 unless ``--strict`` is given.

Everything runs on loopback: the built site from a static server, the judge from the same fake
OpenAI server the end-to-end tests use (``tests/fakes/openai.py``), holding each request
300 ms, and Debian's headless Chromium through chromedriver.
"""

import argparse
import gzip
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "scripts"))

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

from app_page import CRITERIA, AppPage, tid  # noqa: E402
from fakes.openai import FakeOpenAI  # noqa: E402
import wasm_sizes  # noqa: E402
import bench_lab_scale  # noqa: E402
import bench_in_page  # noqa: E402
import bench_cli_memory  # noqa: E402
from conftest import _png  # noqa: E402

DIST = Path(os.environ.get("HJ_DIST", ROOT / "dist"))
CHROMIUM = os.environ.get("HJ_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("HJ_CHROMEDRIVER", "/usr/bin/chromedriver")
HOLD_S = 0.3

try:
    import brotli
except ImportError:  # the table says "n/a" rather than failing
    brotli = None


class Row:
    """One line of the table: a figure, its same-run baseline, and the budget it is held to."""

    rows = []

    def __init__(self, name, value, unit, baseline=None, ratio=None, budget=None, ok=None):
        self.name, self.value, self.unit = name, value, unit
        self.baseline, self.ratio, self.budget, self.ok = baseline, ratio, budget, ok
        Row.rows.append(self)


def fmt(v, unit):
    if v is None:
        return "n/a"
    if unit == "B":
        return f"{v:,} B"
    if unit == "ms":
        return f"{v:.1f} ms"
    if unit == "tokens":
        return f"{v:,} tok"
    if unit == "MB":
        return f"{v:,.1f} MB"
    return f"{v}"


def print_table():
    print()
    print(f"{'figure':<52} {'value':>14} {'baseline':>14} {'ratio':>7}  budget")
    print("-" * 110)
    for r in Row.rows:
        ratio = f"{r.ratio:.2f}" if r.ratio is not None else ""
        verdict = "" if r.ok is None else ("pass" if r.ok else "MISS")
        budget = f"{r.budget} {verdict}" if r.budget else ""
        print(f"{r.name:<52} {fmt(r.value, r.unit):>14} {fmt(r.baseline, r.unit) if r.baseline is not None else '':>14} {ratio:>7}  {budget}")
    print()


# ---------------------------------------------------------------- download size


def compressed(data):
    gz = len(gzip.compress(data, 9, mtime=0))
    br = len(brotli.compress(data, quality=11)) if brotli else None
    return gz, br


def sizes():
    # The wasm chunks are fetched on first use of what they hold (tests/e2e/test_chunks.py proves
    # a first visit asks for none of them); they are listed apart.
    files = [p for p in sorted(DIST.iterdir()) if p.is_file()]
    # embed.html is the embed's copy of index.html (scripts/finish_dist.py): another page.
    # coi.js and isolation-*.js are the isolation worker and its registration, fetched only where
    # site.json turns the worker on (test_chunks proves a first visit asks for neither).
    later = ("chunk-", "coi.js", "isolation-")
    first_visit = [p for p in files if not p.name.startswith(later) and p.name != "embed.html"]
    chunks = [p for p in files if p.name.startswith("chunk-")]
    totals = [0, 0, 0]
    print("Download (first visit = every file of dist/ except lab/, which the lab page loads, the chunks and the isolation worker):")
    for p in first_visit:
        data = p.read_bytes()
        gz, br = compressed(data)
        kind = p.suffix.lstrip(".")
        if p.name.endswith("_bg.wasm"):
            kind = "wasm"
        print(f"  {kind:<5} {p.name:<48} raw {len(data):>9,}  gzip {gz:>8,}  brotli {br if br is not None else 'n/a':>8}")
        totals[0] += len(data)
        totals[1] += gz
        totals[2] += br or 0
    print(f"  total{'':<49} raw {totals[0]:>9,}  gzip {totals[1]:>8,}  brotli {totals[2] if brotli else 'n/a':>8}")
    if chunks:
        sizes_gz = [compressed(p.read_bytes())[0] for p in chunks]
        print(f"  on first use: {len(chunks)} wasm chunks, gzip {sum(sizes_gz):,} in all, the largest {max(sizes_gz):,}")
    lab = sum(compressed(p.read_bytes())[0] for p in (DIST / "lab").iterdir() if p.is_file()) if (DIST / "lab").is_dir() else None
    Row("first-visit transfer, gzip -9", totals[1], "B", budget="< 300,000 B", ok=totals[1] < 300_000)
    if brotli:
        Row("first-visit transfer, brotli 11", totals[2], "B")
    if lab:
        Row("batch lab page (loaded on its own), gzip -9", lab, "B")


# ---------------------------------------------------------------- browser plumbing


def serve(directory):
    """A static server on loopback (CORS open: the photo is fetched by the app from another
    origin); its URL ends in "/"."""
    httpd, url = bench_in_page.serve(directory)
    return httpd, url + "/"


def chromium(profile):
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--window-size=1280,1000",
                f"--user-data-dir={profile}"]:
        opts.add_argument(arg)
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    d.set_page_load_timeout(60)
    d.set_script_timeout(120)
    return d


def median(xs):
    return statistics.median(xs) if xs else None


# ---------------------------------------------------------------- time to interactive

# [the static shell's mark (src/web/shell.js: its image, text and Evaluate take input), the
# app's (src/ui/mod.rs: the live page is mounted)]
TTI_JS = """
const done = arguments[arguments.length - 1];
const poll = () => {
  const s = performance.getEntriesByName('hj-shell-interactive')[0];
  const m = performance.getEntriesByName('hj-interactive')[0];
  if (m) done([s ? s.startTime : null, m.startTime]); else setTimeout(poll, 5);
};
poll();
"""

BLANK_JS = """
const done = arguments[arguments.length - 1];
const poll = () => {
  const n = performance.getEntriesByType('navigation')[0];
  if (n && n.loadEventEnd > 0) done(n.loadEventEnd); else setTimeout(poll, 5);
};
poll();
"""


FCP_JS = """
const done = arguments[arguments.length - 1];
const poll = () => {
  const p = performance.getEntriesByName('first-contentful-paint')[0];
  if (p) done(p.startTime); else setTimeout(poll, 5);
};
poll();
"""


# Installed before any of the page's scripts (CDP), so every long task of the start-up is seen.
# Beside it a heartbeat (issue 58): a timer every 20 ms from the document's start, whose longest
# gap between two ticks is how long a click or a key made during start-up would have waited.
# It counts what the longtask figure does not: tasks that run back to back, and style, layout
# and paint between them.
LONG_TASKS_EARLY = """
window.__hjStartLong = [];
new PerformanceObserver(l => l.getEntries().forEach(e => window.__hjStartLong.push(e.duration)))
  .observe({ entryTypes: ['longtask'] });
window.__hjBeat = { last: performance.now(), worst: 0, stop: false };
(function beat() {
  const b = window.__hjBeat, now = performance.now();
  b.worst = Math.max(b.worst, now - b.last);
  b.last = now;
  if (!b.stop) setTimeout(beat, 20);
})();
"""

LONGEST_JS = """
const done = arguments[arguments.length - 1];
// A little after the mounted mark (the second start-up task's), for the tasks it queued.
const wait = () => {
  if (!performance.getEntriesByName('hj-mounted').length) return setTimeout(wait, 5);
  setTimeout(() => {
    const b = window.__hjBeat || { worst: -1 };
    b.stop = true;
    done([Math.max(0, ...(window.__hjStartLong || [-1])), b.worst]);
  }, 300);
};
wait();
"""


def time_to_interactive(d, url, blank_url, loads):
    # A first visit every time: no HTTP cache, no compiled-wasm cache from the last load.
    d.execute_cdp_cmd("Network.enable", {})
    d.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    early = d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": LONG_TASKS_EARLY})
    shell, app, blank, app_fcp, blank_fcp, longest, beat = [], [], [], [], [], [], []
    for _ in range(loads):
        d.get(blank_url)
        blank.append(d.execute_async_script(BLANK_JS))
        blank_fcp.append(d.execute_async_script(FCP_JS))
        d.get(url)
        took, mounted = d.execute_async_script(TTI_JS)
        app.append(mounted)
        # Interactive: the first moment a visitor's image, text and Evaluate are taken (the shell
        # keeps them for the app, which runs a queued Evaluate), or the app's if it came first.
        shell.append(mounted if took is None else min(took, mounted))
        app_fcp.append(d.execute_async_script(FCP_JS))
        task, gap = d.execute_async_script(LONGEST_JS)
        longest.append(task)
        beat.append(gap)
    d.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
    d.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": early["identifier"]})
    # Issue 19: the static shell in index.html paints before the wasm has arrived.
    fcp, fcp_floor = median(app_fcp), median(blank_fcp)
    Row(f"first contentful paint (median of {loads} cold loads)", fcp, "ms", fcp_floor, fcp / fcp_floor,
        "< 1.3× a static page", fcp / fcp_floor < 1.3)
    # Issue 43: no task of the start-up blocks the main thread for 100 ms or more.
    Row(f"start-up's longest task (worst of {loads} cold loads)", max(longest), "ms", None, None,
        "< 100 ms", max(longest) < 100)
    print(f"start-up's longest task: {[round(x) for x in longest]} ms")
    print(f"start-up's longest heartbeat gap (20 ms timer), the same profile: {[round(x) for x in beat]} ms")
    print(f"first contentful paint: {[round(x) for x in app_fcp]} ms; a static page's: {[round(x) for x in blank_fcp]} ms")
    tti, floor = median(shell), median(blank)
    Row(f"time to interactive, the shell (median of {loads} cold loads)", tti, "ms",
        floor, tti / floor, "< 300 ms and < 2× a static page", tti < 300 and tti / floor < 2)
    mounted = median(app)
    Row(f"the app mounted (median of {loads} cold loads)", mounted, "ms", floor,
        mounted / floor, "— (reported)", None)
    print(f"time to interactive: {[round(x) for x in shell]} ms; the app mounted: {[round(x) for x in app]} ms; "
          f"a static page's load event: {[round(x) for x in blank]} ms")


def new_visitors(url, profiles, loads):
    """Issue 58: start-up as a new visitor feels it. Each load in a browser of its own with a
    new profile (no HTTP cache, no compiled code of the page's scripts or wasm), the heartbeat of
    LONG_TASKS_EARLY from the document's start to a little after the app's second start-up task:
    its longest gap is how long a click or a key made then would have waited. Met when `loads - 1`
    of `loads` stay under 100 ms (one slow load on a shared 2-core machine is not the page's);
    each load's figure is printed."""
    gaps = []
    for i in range(loads):
        d = chromium(profiles / f"new-visitor-{i}")
        try:
            d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": LONG_TASKS_EARLY})
            d.get(url)
            gaps.append(d.execute_async_script(LONGEST_JS)[1])
        finally:
            d.quit()
    met = sum(1 for g in gaps if g < 100)
    Row(f"start-up's longest heartbeat gap, new visitors (median of {loads})", median(gaps), "ms", None, None,
        f"< 100 ms in {loads - 1} of {loads}", met >= loads - 1)
    print(f"start-up's longest heartbeat gap, each load a new visitor: {[round(x) for x in gaps]} ms")


# ---------------------------------------------------------------- image preparation

NATIVE_PREP_JS = """
const [url, maxSide, done] = arguments;
(async () => {
  const blob = await (await fetch(url)).blob();
  const t0 = performance.now();
  const bmp = await createImageBitmap(blob);
  const s = Math.min(1, maxSide / Math.max(bmp.width, bmp.height));
  const c = document.createElement('canvas');
  c.width = Math.round(bmp.width * s); c.height = Math.round(bmp.height * s);
  c.getContext('2d').drawImage(bmp, 0, 0, c.width, c.height);
  bmp.close();
  const out = await new Promise(r => c.toBlob(r, 'image/jpeg', 0.9));
  done([performance.now() - t0, out.size, c.width, c.height]);
})().catch(e => done([-1, String(e)]));
"""

OURS_PREP_JS = """
const [count, done] = arguments;
const poll = () => {
  const m = performance.getEntriesByName('hj-image-prep');
  if (m.length > count) done(m[m.length - 1].duration); else setTimeout(poll, 5);
};
poll();
"""


def big_jpeg(path):
    # 4000×3000 = 12 MP with detail everywhere (test pattern plus grain), like a phone photo.
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=4000x3000:rate=1",
                    "-vf", "noise=alls=24:allf=u", "-frames:v", "1", "-q:v", "3", str(path)], check=True)


def image_preparation(d, app_url, photo_dir, photo, runs):
    page = AppPage(d, app_url)
    ours, native = [], []
    for i in range(runs):
        count = d.execute_script("return performance.getEntriesByName('hj-image-prep').length")
        d.execute_script("arguments[0].value = ''", page.el("image-input"))  # the same file again
        page.upload(photo)
        ours.append(d.execute_async_script(OURS_PREP_JS, count))
        native.append(d.execute_async_script(NATIVE_PREP_JS, photo_dir + photo.name, 1024)[0])
    o, n = median(ours), median(native)
    Row(f"image prep, 12 MP JPEG to 1024 px (median of {runs})", o, "ms", n, o / n, "<= 1.5x native", o / n <= 1.5)
    print(f"image preparation: ours {[round(x) for x in ours]} ms, createImageBitmap + canvas {[round(x) for x in native]} ms")
    return page


# ---------------------------------------------------------------- input tokens

def openai_high_tokens(w, h):
    """OpenAI's published rule for detail "high", written out here independently of crates/core/src/transport/cost.rs."""
    s = min(1.0, 2048 / max(w, h))
    w, h = w * s, h * s
    s = min(1.0, 768 / min(w, h))
    w, h = round(w * s), round(h * s)
    return 85 + 170 * (-(-w // 512)) * (-(-h // 512))


def input_tokens(page, photo):
    page.set_backend("http://127.0.0.1:9/v1", "gpt-4o", "")
    page.fill("text-input", "A dog runs across a grassy park while a child throws a red ball.")
    page.d.execute_script("document.querySelectorAll('details').forEach(d => d.open = true);")

    def estimate():
        return int(page.el("cost-estimate").get_attribute("data-input-tokens"))

    # Our low-detail extension (off by default since issue 16: the paper sends the API's default
    # detail) is how this budget is met: auto goes at low for a photo.
    page.el("ext-he-low-detail").click()
    page.wait_for(lambda d: page.el("cost-estimate").get_attribute("data-input-tokens"), "the estimate")
    ours = estimate()
    # The naive way: the full 4000×3000 photo at detail high, in all five criteria.
    Select(page.el("detail-select")).select_by_value("high")
    page.set_number("max-side-input", 4096)
    page.wait_for(lambda d: page.el("image-preview") and estimate() != ours, "the full-size estimate", 30)
    time.sleep(0.5)
    two_full = estimate()
    full = openai_high_tokens(4000, 3000)
    naive = two_full + 3 * full
    Select(page.el("detail-select")).select_by_value("auto")
    page.set_number("max-side-input", 1024)
    Row("input tokens per HarmonicEval evaluation (12 MP)", ours, "tokens", naive, ours / naive, "< 0.45x naive", ours / naive < 0.45)
    print(f"input tokens: ours {ours} (1024 px, detail auto = low for a photo with the he-low-detail extension, image in the 2 grounded criteria); "
          f"naive {naive} (full-size at high detail = {full} per image, in all 5)")


# ---------------------------------------------------------------- evaluation wall time

EVAL_JS = """
const [criteria, done] = arguments;
const state = c => document.querySelector(`[data-testid="criterion-${c}"]`).getAttribute('data-state');
const seen = new Set();
const t0 = performance.now();
document.querySelector('[data-testid="evaluate-button"]').click();
const poll = () => {
  criteria.forEach(c => { if (!['done', 'error'].includes(state(c))) seen.add(c); });
  if (seen.size === criteria.length && criteria.every(c => state(c) === 'done')) done(performance.now() - t0);
  else if (performance.now() - t0 > 60000) done(-1);
  else setTimeout(poll, 2);
};
poll();
"""

ONE_REQUEST_JS = """
const [url, body, done] = arguments;
const t0 = performance.now();
fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json', 'Authorization': 'Bearer sk-bench'}, body})
  .then(r => r.text()).then(() => done(performance.now() - t0), e => done(-1));
"""

GAMMA_JS = """
const [value, done] = arguments;
const s = document.querySelector('[data-testid="gamma-slider"]');
const t0 = performance.now();
s.value = value;
s.dispatchEvent(new Event('input', {bubbles: true}));
// Leptos runs effects in microtasks, so the next task sees the updated DOM; forcing layout there
// counts style and layout every time. (Left to itself Chromium sometimes renders inside the gap
// and sometimes after it, which made the figure bimodal; paint and the wait for the next frame
// are not counted either way.)
setTimeout(() => { document.body.offsetHeight; done(performance.now() - t0); }, 0);
"""


def gamma_changes(d, times):
    out = []
    for k in range(times):
        out.append(d.execute_async_script(GAMMA_JS, "0.50" if k % 2 else "0.75"))
    return out


def evaluation(d, app_url, image, runs, gamma_runs):
    fake = FakeOpenAI(delay=HOLD_S)
    try:
        page = AppPage(d, app_url)
        page.set_backend(fake.url, "gpt-4o", "sk-bench-0123456789")
        page.upload(image)
        page.wait_image()
        walls = []
        for i in range(runs + 1):  # the first one warms the connection and the preflight cache
            page.fill("text-input", f"A dog runs across a grassy park. (run {i})")
            t = d.execute_async_script(EVAL_JS, CRITERIA)
            if i:
                walls.append(t)
        body = fake.requests[-1]["body"]
        if not isinstance(body, str):
            body = json.dumps(body)
        one = [d.execute_async_script(ONE_REQUEST_JS, fake.url + "/chat/completions", body) for _ in range(runs + 1)][1:]
        w, o = median(walls), median(one)
        Row(f"HarmonicEval, 5 criteria, server holds {int(HOLD_S * 1000)} ms", w, "ms", o, w / o, "< 1.15x one request", w / o < 1.15)
        print(f"evaluation: {[round(x) for x in walls]} ms; one request: {[round(x) for x in one]} ms")

        # Repeatable mode: one request at a time (what makes llama.cpp's numbers identical).
        page.el("repeatable-checkbox").click()
        serial = []
        for i in range(runs):
            page.fill("text-input", f"A dog runs across a grassy park. (repeatable run {i})")
            serial.append(d.execute_async_script(EVAL_JS, CRITERIA))
        page.el("repeatable-checkbox").click()
        r = median(serial)
        Row("HarmonicEval in repeatable mode (one request at a time)", r, "ms", w, r / w)

        g = gamma_changes(d, gamma_runs)
        Row(f"γ change, 1 item, + layout (median of {gamma_runs})", median(g), "ms")
    finally:
        fake.stop()


# ---------------------------------------------------------------- 10,000 items

def results_file(path, n=10_000):
    rnd = random.Random(1)
    with open(path, "w") as f:
        for i in range(n):
            criteria = []
            for c in CRITERIA:
                p = [rnd.random() for _ in range(5)]
                t = sum(p)
                p = [x / t for x in p]
                m = sum((k + 1) * x for k, x in enumerate(p))
                v = sum(((k + 1) - m) ** 2 * x for k, x in enumerate(p))
                criteria.append({"name": c, "score": m, "sigma": v ** 0.5, "distribution": p})
            f.write(json.dumps({
                "id": f"i{i}", "metric": "harmonic_eval", "task": ["ic", "vqa", "vdu", "reg"][i % 4], "text": "t",
                "criteria": criteria, "human": {"overall": [rnd.randint(1, 5)], "correctness": [rnd.randint(1, 5)]},
                "group": f"g{i // 3}", "chosen": i % 3 == 0,
            }) + "\n")


# The last complete bootstrap of the report's intervals (issue 33): its wall time, start to
# end, yields included, and the longest task that overlapped it.
BOOTSTRAP_JS = """
const m = performance.getEntriesByName(arguments[0]);
if (!m.length) return null;
const last = m[m.length - 1], end = last.startTime + last.duration;
const long = (window.__hjLong || []).filter(([s, d]) => s + d > last.startTime && s < end).map(([, d]) => d);
return [last.duration, Math.max(0, ...long)];
"""


def intervals(d, page):
    """The report's intervals at 10,000 items: 1,000 resamples, in slices of main thread."""
    page.wait_for(lambda dd: page.el("meta-overall-tau-b").get_attribute("data-ci-low"), "the intervals", 180)
    wall, worst = d.execute_script(BOOTSTRAP_JS, "hj-bootstrap") or (None, None)
    Row(f"intervals, 1,000 resamples × 10,000 items; longest task {worst or 0:.0f} ms", wall, "ms",
        budget="< 5 s, tasks ≤ 50 ms", ok=wall is not None and wall < 5000 and worst <= 50)
    page.wait_for(lambda dd: page.el("sweep-band").get_attribute("data-points") != "0", "the sweep's band", 180)
    band, band_worst = d.execute_script(BOOTSTRAP_JS, "hj-band") or (None, None)
    Row(f"  the sweep's band, 11 γ × 1,000 resamples; longest task {band_worst or 0:.0f} ms", band, "ms")


def ten_thousand(d, app_url, tmp, gamma_runs):
    path = Path(tmp) / "results-10k.jsonl"
    results_file(path)
    page = AppPage(d, app_url + "lab/")
    page.wait_for(lambda dd: dd.find_elements(*tid("results-input")), "the lab")
    d.execute_script(bench_lab_scale.OBSERVE_JS)
    t0 = time.time()
    page.el("results-input").send_keys(str(path))
    page.wait_for(lambda dd: page.el("meta-overall-tau-b").get_attribute("data-value"), "the analysis", 180)
    load_s = time.time() - t0
    # The intervals and the sweep's band first: the γ changes are then timed on a settled page.
    intervals(d, page)
    g = gamma_changes(d, gamma_runs)
    inner = d.execute_script("return performance.getEntriesByName('hj-reaggregate').map(e => e.duration)")
    sweep = d.execute_script("return performance.getEntriesByName('hj-sweep').map(e => e.duration)")
    Row(f"γ change, 10,000 items + meta-eval + layout (median of {gamma_runs})", median(g), "ms",
        budget="< 10 ms", ok=median(g) < 10)
    Row("  of which re-aggregation + τ + pairwise (in app)", median(inner[-gamma_runs:]), "ms")
    Row("γ sweep, 100 points over 10,000 items", sweep[-1] if sweep else None, "ms",
        budget="< 300 ms", ok=bool(sweep) and sweep[-1] < 300)
    print(f"10,000 results: import and first analysis {load_s:.2f} s; γ changes {[round(x, 1) for x in g]} ms")


# ---------------------------------------------------------------- the lab at scale

def lab_sizes(args):
    if args.lab_sizes:
        return tuple(int(n) for n in args.lab_sizes.split(","))
    return (1_000, 10_000) if args.smoke else (1_000, 10_000, 100_000)


def lab_scale_only(args):
    with tempfile.TemporaryDirectory() as tmp:
        site, app_url = serve(DIST)
        d = chromium(Path(tmp) / "profile")
        d.set_script_timeout(600)
        try:
            bench_lab_scale.report(d, app_url, _png(16, 12, lambda x, y: (200, 80, 40)), Row,
                                   lab_sizes(args))
        finally:
            d.quit()
            site.shutdown()
    print_table()


# ---------------------------------------------------------------- main

def rest(d, args, tmp, app_url, photo_url, photo, small, runs, gamma_runs):
    """Everything after the start-up figures."""
    page = image_preparation(d, app_url, photo_url, photo, runs + 1)
    input_tokens(page, photo)
    evaluation(d, app_url, small, runs, gamma_runs)
    ten_thousand(d, app_url, tmp, gamma_runs)
    if args.lab_scale == "also":
        bench_lab_scale.report(d, app_url, _png(16, 12, lambda x, y: (200, 80, 40)), Row, lab_sizes(args))
    # The in-browser judge against native llama-server: minutes on two cores, so not in the
    # smoke run that CI makes.
    if os.environ.get("HJ_ENGINE_DIR") and not args.smoke:
        d.set_script_timeout(900)
        bench_in_page.in_page_vs_native(d, app_url, small, Path(os.environ["HJ_ENGINE_DIR"]), Row)
        bench_in_page.vision_vs_native(d, app_url, Path(os.environ["HJ_ENGINE_DIR"]), Row, small)
        bench_in_page.gpu_rows(app_url, Path(os.environ["HJ_ENGINE_DIR"]), Row, tmp)


def vision_only(defaults_only=False, shots=None, forms=False):
    """Issue 57's table alone (bench_in_page.vision_vs_native): about an hour on 2 cores with its
    eight rows (the F16 projector at every view on one thread in the page alone takes about 11,
    wllama's Memory64 build with 2 views about 13);
    `defaults_only`: its last row alone (the page at its default settings), about 2 minutes."""
    if not os.environ.get("HJ_ENGINE_DIR"):
        sys.exit("--vision needs HJ_ENGINE_DIR (HJ_ENGINE_DIR=$(scripts/real_engine.sh))")
    with tempfile.TemporaryDirectory() as tmp:
        photo = Path(tmp) / "small.jpg"
        subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x480:rate=1",
                        "-frames:v", "1", str(photo)], check=True)
        site, app_url = serve(DIST)
        d = chromium(Path(tmp) / "profile")
        d.set_script_timeout(900)
        try:
            if shots:
                bench_in_page.progress_screenshots(d, app_url, photo, Path(shots))
                return
            if forms:
                bench_in_page.projector_forms(d, app_url, Row, photo, tmp)
                print_table()
                return
            rows = [] if defaults_only else bench_in_page.VLM_ROWS
            bench_in_page.vision_vs_native(d, app_url, Path(os.environ["HJ_ENGINE_DIR"]), Row, photo, rows)
        finally:
            d.quit()
            site.shutdown()
    print_table()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--smoke", action="store_true", help="fewer samples (CI)")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a budget is missed")
    ap.add_argument("--lab-scale", choices=["skip", "only", "also"], default="also",
                    help="the lab's per-result cost at 1k, 10k and 100k stored results (several minutes)")
    ap.add_argument("--cli-memory", choices=["skip", "only", "also"], default="also",
                    help="hj plan's and hj score's peak memory at 1k, 10k and 100k items sharing a 1 MB "
                    "image (issue 68; builds an optimised hj, about a minute and a half; --smoke: a "
                    "few seconds on the debug build)")
    ap.add_argument("--startup-only", action="store_true",
                    help="only the start-up figures (longest task, first paint, interactive): the loop for issue 43")
    ap.add_argument("--lab-sizes", help="the stored counts to time, comma-separated (the first is the baseline)")
    ap.add_argument("--vision", action="store_true",
                    help="only the SmolVLM-shaped model in the page against native llama-server (issue 57)")
    ap.add_argument("--vision-rows", help="with --vision: the rows, e.g. Q8_0:1,F16-2:2:memory32 "
                    "(projector:threads[:build], the build ours unless named; all eight by default)")
    ap.add_argument("--vision-defaults", action="store_true",
                    help="only the SmolVLM-shaped model in the page at its default settings (issue 57's 60 s)")
    ap.add_argument("--vision-forms", action="store_true",
                    help="only one view of the photo in the page with the SmolVLM-shaped projector in Q8_0, F16 "
                    "and F32 (issue 71; about 5 minutes)")
    ap.add_argument("--vision-shots", metavar="DIR",
                    help="only screenshots of the run bar while the page reads a photo's 13 views (issue 57)")
    args = ap.parse_args()
    if args.vision_shots:
        return vision_only(shots=args.vision_shots)
    if args.vision_forms:
        return vision_only(forms=True)
    if args.vision_rows:
        bench_in_page.VLM_ROWS = bench_in_page.parse_rows(args.vision_rows)
    if args.vision or args.vision_defaults:
        return vision_only(defaults_only=args.vision_defaults)
    loads, runs, gamma_runs = (3, 2, 9) if args.smoke else (15, 7, 21)
    if args.cli_memory == "only":
        bench_cli_memory.report(Row, args.smoke)
        print_table()
        return
    if not (DIST / "index.html").exists():
        sys.exit("dist/ is missing: run scripts/bench.sh (it builds the site first)")

    if args.lab_scale == "only":
        return lab_scale_only(args)
    sizes()
    wasm_sizes.report(ROOT / "target" / "wasm32-unknown-unknown" / "release" / "harmonic-judge.wasm")
    if args.cli_memory == "also" and not args.startup_only:
        bench_cli_memory.report(Row, args.smoke)

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "blank").mkdir()
        (tmp / "blank" / "index.html").write_text("<!DOCTYPE html><title>blank</title><p>static page</p>")
        photos = tmp / "photos"
        photos.mkdir()
        photo = photos / "photo-12mp.jpg"
        big_jpeg(photo)
        small = photos / "small.jpg"
        subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x480:rate=1",
                        "-frames:v", "1", str(small)], check=True)
        site, app_url = serve(DIST)
        blank, blank_url = serve(tmp / "blank")
        photo_server, photo_url = serve(photos)
        d = chromium(tmp / "profile")
        try:
            time_to_interactive(d, app_url, blank_url, loads)
            new_visitors(app_url, tmp, 5)
            if not args.startup_only:
                rest(d, args, tmp, app_url, photo_url, photo, small, runs, gamma_runs)
        finally:
            d.quit()
            for s in (site, blank, photo_server):
                s.shutdown()

    print_table()
    missed = [r.name for r in Row.rows if r.ok is False]
    print(f"budgets met: {sum(1 for r in Row.rows if r.ok)} of {sum(1 for r in Row.rows if r.ok is not None)}"
          + (f"; missed: {', '.join(missed)}" if missed else ""))
    if args.strict and missed:
        sys.exit(1)


if __name__ == "__main__":
    main()
