#!/usr/bin/env python3
"""The in-browser judge against the native llama-server, measured in one run on this machine:
prompt and generation tokens per second (llama.cpp's own `timings` of one identical chat
request) for each quantization of SmolLM2-135M-Instruct, each of the page's two builds of
llama.cpp (Memory64 with JSPI, Memory32 with Asyncify) and 1 and 2 threads, each as a ratio
page / native with the same threads; then the wall time of one HarmonicEval evaluation (5
criteria, an image, the random-weight projector of the real-engine tests) in the page against
native, with 1 and 2 threads, for the shipped Q4_1 weights and the quantization fastest in the
page; and that fastest setting against the single-thread Memory64 Q4_1 evaluation the page ran
before issue 42. One thread: the page is served without COOP/COEP (not cross-origin isolated,
so wllama runs single-threaded); two: with them, as scripts/serve.sh serves it.

The native side is the engine folder's own binary, built portable (x86-64-v3 on x86-64, no
AVX-512 or AMX; scripts/real_engine.sh says why): every row names that build and the flags it
ran with, from bin/BUILD. `--native-only` measures only the native side, for comparing builds
(HJ_NATIVE_FLAGS adds flags, e.g. --no-repack for a native build that dies without it).

scripts/bench.py calls `in_page_vs_native` when HJ_ENGINE_DIR names the engine folder
(scripts/real_engine.sh); run alone: HJ_ENGINE_DIR=... .venv/bin/python scripts/bench_in_page.py
(`--ratings`: only whether each quantization keeps the Q4_1 weights' most likely ratings;
`--gpu`: only the GPU rows, in Firefox ESR on its WebGPU adapter, for the record).
"""

import functools
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from selenium.webdriver.support.ui import Select  # noqa: E402

from app_page import ASK_ALL_JS, CRITERIA, AppPage, rating_questions, top_alternatives  # noqa: E402

MODEL = "SmolLM2-135M-Instruct.Q4_1.gguf"
# The same weights in each quantization scripts/real_engine.sh makes: Q4_1 as published, Q8_0
# (scripts/requant_q8.py), Q4_0 and Q4_K_M (llama-quantize from the same llama.cpp source).
QUANTS = ["Q4_1", "Q8_0", "Q4_0", "Q4_K_M"]
MODELS = [f"SmolLM2-135M-Instruct.{q}.gguf" for q in QUANTS]
# The three builds of llama.cpp the page carries (src/web/in_browser.js): ours (on threads where
# the page is cross-origin isolated), which the page picks by itself on the CPU, and wllama's two;
# `globalThis.hjEngineBuild` forces any for the comparison.
BUILDS = ["ours", "memory64", "memory32"]
SAID = {"ours": "Runs our own build of llama.cpp", "memory64": "Runs llama.cpp's Memory64 build",
        "memory32": "Runs llama.cpp's Memory32 build"}
PROMPT = ("Judge this caption of a photo of a park on a scale of 1 to 5 and explain why. " * 12).strip()
# hj_fresh: our build reads the whole prompt again (it would take all but its last 64 tokens
# from its cache of earlier prompts, issue 71); the other engines ignore the field.
REQUEST = {"messages": [{"role": "user", "content": PROMPT}], "max_tokens": 32, "temperature": 0,
           "ignore_eos": True, "cache_prompt": False, "hj_fresh": True}

CHAT_JS = """
const [body] = arguments;
window.__benchAnswer = null;
window.hjInBrowser.chat(body).then(t => { window.__benchAnswer = t; }, e => { window.__benchAnswer = 'ERROR ' + e.message; });
"""

EVAL_JS = """
const [criteria] = arguments;
window.__benchWall = null;
const done = ms => { window.__benchWall = ms; };
const state = c => document.querySelector(`[data-testid="criterion-${c}"]`).getAttribute('data-state');
window.__benchFirstWord = null;
window.__benchFirstLine = null;
// The run bar's progress line (the in-page judge's): the first time it says something new.
const progress = () => {
  const el = document.querySelector('[data-testid="judge-timing"]');
  return el && !el.hidden ? el.textContent : '';
};
const before = progress();
const t0 = performance.now();
document.querySelector('[data-testid="evaluate-button"]').click();
let started = false;
const poll = () => {
  const now = progress();
  if (window.__benchFirstWord === null && now && now !== before) {
    window.__benchFirstWord = performance.now() - t0;
    window.__benchFirstLine = now;
  }
  if (criteria.some(c => !['done', 'error'].includes(state(c)))) started = true;
  if (started && criteria.every(c => ['done', 'error'].includes(state(c)))) done(performance.now() - t0);
  else if (performance.now() - t0 > 1800000) done(-1);
  else setTimeout(poll, 20);
};
poll();
"""


class Cors(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm", ".js": "text/javascript"}

    def log_message(self, *args):
        pass

    def end_headers(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()


class Isolated(Cors):
    """As scripts/serve.sh serves dist/: cross-origin isolated, so the engine may use threads."""

    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "credentialless")
        super().end_headers()


def serve(directory, isolated=False):
    handler = Isolated if isolated else Cors
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


NATIVE_FLAGS = ["-c", "4096", "-np", "1", *os.environ.get("HJ_NATIVE_FLAGS", "").split()]


def native_build(engine):
    """Which build the native side is and how it runs: 'x86-64-v3, -c 4096 -np 1'."""
    try:
        line = (engine / "bin" / "BUILD").read_text().strip()
        isa = line.split(":", 1)[0].split(", ", 1)[-1]
    except OSError:
        isa = "unknown build (no bin/BUILD: an engine folder from before builds were recorded)"
    return f"{isa}, {' '.join(NATIVE_FLAGS)}"


def native_server(engine, model=MODEL, threads=1, projector=None):
    """llama-server from the engine folder, on `model` (a name in the folder, or a path) and
    `projector` (a path; the folder's projector.gguf by default)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(engine / f"server-bench-{port}.log", "wb")
    proc = subprocess.Popen([str(engine / "bin" / "llama-server"), "-m", str(engine / model), "--mmproj",
                             str(projector or engine / "projector.gguf"), "--host", "127.0.0.1", "--port", str(port),
                             "-t", str(threads), *NATIVE_FLAGS], stdout=log, stderr=subprocess.STDOUT)
    end = time.time() + 60
    while time.time() < end:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as r:
                if b'"ok"' in r.read():
                    return proc, log, f"http://127.0.0.1:{port}/v1"
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("llama-server did not start")


def native_timings(url):
    import json

    req = urllib.request.Request(url + "/chat/completions", json.dumps(REQUEST).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as r:
        return json.loads(r.read())["timings"]


def he_wall(page, d, wait_for):
    Select(page.el("metric-select")).select_by_value("harmonic_eval")
    d.execute_script(EVAL_JS, CRITERIA)
    wait_for(lambda _: d.execute_script("return window.__benchWall;") is not None, "the evaluation", 1800)
    return d.execute_script("return window.__benchWall;") / 1000


def in_page_vs_native(d, app_url, image, engine, report):
    """Adds the rows through `report(name, value, unit, baseline, ratio)`: for each quantization
    the engine folder has, each build and 1 and 2 threads, prompt and generation tok/s in the
    page against native llama-server with the same threads; then one HarmonicEval evaluation in
    the page (the build the page picks) against native, with 1 and 2 threads, for the shipped
    weights (Q4_1) and the fastest quantization in the page. `app_url` is a page that is not
    cross-origin isolated (1 thread); an isolated copy of dist/ is served for 2."""
    iso, iso_url = serve(ROOT / "dist", isolated=True)
    models, model_url = serve(engine)
    urls = {1: app_url, 2: iso_url + "/"}
    speeds = {}
    try:
        for model in [m for m in MODELS if (engine / m).exists()]:
            quant = model.rsplit(".", 2)[-2]
            for threads in (1, 2):
                proc, log, native = native_server(engine, model, threads)
                try:
                    native_t = native_timings(native)
                    for build in BUILDS:
                        page = load(d, urls[threads], f"{model_url}/{model}", f"{model_url}/projector.gguf", build)
                        assert page.el("engine-build-info").text.startswith(SAID[build])
                        runs = threads
                        assert f"{runs} thread" in page.el("gpu-status").text, page.el("gpu-status").text
                        page_t = page_timings(d, page)
                        speeds[(quant, build, threads)] = page_t["prompt_per_second"]
                        for key, name in [("prompt_per_second", "prompt"), ("predicted_per_second", "generation")]:
                            report(f"in-page {name} tok/s, {build}, {quant}, {threads} thread{'s' * (threads > 1)} "
                                   f"vs native ({native_build(engine)}, -t {threads})",
                                   page_t[key], "tok/s", native_t[key], page_t[key] / native_t[key])
                finally:
                    stop(proc, log)
        fastest = max((q for (q, b, t) in speeds if b == "ours" and t == 1),
                      key=lambda q: speeds[(q, "ours", 1)], default="Q4_1")
        walls = {}
        for quant in dict.fromkeys(["Q4_1", fastest]):
            model = f"SmolLM2-135M-Instruct.{quant}.gguf"
            for threads in (1, 2):
                page = load(d, urls[threads], f"{model_url}/{model}", f"{model_url}/projector.gguf", "")
                in_page = he_evaluation(d, page, image)
                proc, log, native = native_server(engine, model, threads)
                try:
                    native_s = he_native(d, page, native)
                finally:
                    stop(proc, log)
                walls[(quant, threads)] = in_page
                report(f"HarmonicEval, 5 criteria, one image, in the page ({quant}, {threads} "
                       f"thread{'s' * (threads > 1)}, the build it picks) vs native ({native_build(engine)}, -t {threads})",
                       in_page, "s", native_s, in_page / native_s)
        # Today's single-thread evaluation before issue 42: the Memory64 build, Q4_1, 1 thread.
        page = load(d, urls[1], f"{model_url}/{MODEL}", f"{model_url}/projector.gguf", "memory64")
        before = he_evaluation(d, page, image)
        best = min(walls.values())
        report("HarmonicEval in the page: the fastest setting here vs the Memory64 build, Q4_1, 1 thread",
               best, "s", before, best / before)
        return speeds, walls
    finally:
        models.shutdown()
        iso.shutdown()


# The SmolVLM-256M-shaped test model (scripts/smolvlm_model.sh): the text model with SmolVLM's
# image tokens, and its projector in F16 (as converted) and in Q8_0.
VLM_TEXT = "SmolLM2-135M-Instruct-smolvlm.Q4_1.gguf"
VLM_PROJECTORS = {"F16": "smolvlm-projector.gguf", "Q8_0": "smolvlm-projector-q8_0.gguf",
                  # the F16 file without clip.vision.preproc_image_size: 2 views of the photo, not 13
                  "F16-2": "smolvlm-projector-nopreproc.gguf"}


def smolvlm_dir():
    """The folder of the SmolVLM-shaped model (made once, cached: scripts/smolvlm_model.sh)."""
    return Path(subprocess.run([str(ROOT / "scripts" / "smolvlm_model.sh")], check=True, capture_output=True,
                               text=True).stdout.strip())


def detail(value):
    """A `before` for load(): sets the judge's image detail (stored in the profile)."""
    return lambda page: Select(page.el("detail-select")).select_by_value(value)


def seconds_said(text):
    """Seconds in the page's words: "0.9 s", "17 s", "3 min 05 s"."""
    import re

    m = re.fullmatch(r"(?:(\d+) min )?([\d.]+) s", text.strip())
    return int(m.group(1) or 0) * 60 + float(m.group(2))


def image_figures(line):
    """(views encoded, their seconds, views from memory) from the run bar's line."""
    import re

    m = re.search(r"(\d+) views? encoded \(([^)]*)\), (\d+) taken from memory", line)
    assert m, line
    return int(m.group(1)), seconds_said(m.group(2)), int(m.group(3))


def native_image_prompts(log_path, least=500):
    """llama-server's requests whose prompts carried the image (more than `least` tokens: 13
    views are 862 image tokens) and their prompt seconds, from its log ("prompt eval time = N ms
    / T tokens"; this build does not log each view's encode)."""
    import re

    found = re.findall(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens", Path(log_path).read_text(errors="replace"))
    ms = [float(m) for m, t in found if int(t) > least]
    return len(ms), sum(ms) / 1000


# The rows of issue 57's table: (projector, threads, build). Two threads are the page
# cross-origin isolated against llama-server -t 2. Our build reads every view of the projector's
# file (image detail high: 13 views with F16 and Q8_0) once for both grounded criteria; wllama's
# builds have no image detail and no memory of images, and read the image again for each of them,
# so their rows use the file that makes 2 views (F16-2), as do ours beside them.
VLM_ROWS = [("F16-2", 1, "memory64"), ("F16-2", 2, "memory32"), ("F16-2", 1, "ours"), ("F16-2", 2, "ours"),
            ("Q8_0", 1, "ours"), ("Q8_0", 2, "ours"), ("F16", 2, "ours"), ("F16", 1, "ours")]


def parse_rows(spec):
    """"Q8_0:1,F16-2:2:memory32" -> rows (the build is ours unless named)."""
    rows = []
    for r in spec.split(","):
        form, threads, *build = r.split(":")
        assert form in VLM_PROJECTORS, f"{form}: not one of {', '.join(VLM_PROJECTORS)}"
        rows.append((form, int(threads), build[0] if build else "ours"))
    return rows


def vision_vs_native(d, app_url, engine, report, photo, rows=VLM_ROWS):
    """Issue 57's table: one HarmonicEval evaluation (5 criteria, 2 of them with the image) of
    a 640x480 photo with the SmolVLM-256M-shaped model, in the page for each row of `rows`
    (projector, threads, build; image detail high: every view the file asks for), against native
    llama-server with the same files, views and threads (which encodes the image again for each
    grounded criterion: the app sends cache_prompt false); each with its encoding's share where
    the build reports it; then the page at its default settings (image detail auto, one thread)
    with the Q8_0 projector, whose budget is 60 s, and how soon its first word of progress came
    (budget 1 s); then three other candidates of the same photo in one evaluation, against the
    one candidate (budget 1.6x, issue 71: their shared prompt prefixes come from the engine's
    cache), with its first answer's time and the prompt tokens taken from the cache. `rows`: []
    for the defaults' figures alone. A row that fails is reported as
    failed, with why, and the next row runs."""
    table = report

    def report(name, value, *rest, **kw):  # each row as soon as it is measured, and in the table
        print(f"row: {value:.1f} s{f' against {rest[1]:.1f} s' if len(rest) > 1 and rest[1] else ''}: {name}",
              flush=True)
        table(name, value, *rest, **kw)
    vlm = smolvlm_dir()
    files, files_url = serve(vlm)
    iso, iso_url = serve(ROOT / "dist", isolated=True)
    urls = {1: app_url, 2: iso_url + "/"}
    try:
        for form, threads, build in rows:
            projector = VLM_PROJECTORS[form]
            views = "2 views" if form == "F16-2" else "every view (13)"
            t = f"{threads} thread{'s' * (threads > 1)}"
            name = f"SmolVLM-shaped HarmonicEval, 640x480 photo, {views}, projector {form.split('-')[0]}, {t}, {build}"
            try:
                def high(page):
                    detail("high")(page)
                    # wllama's builds tell no progress, so their limit counts from each request's
                    # start: a grounded criterion reads 2 F16 views for minutes.
                    page.set_number("timeout-input", 300 if build != "ours" else 120)
                page = load(d, urls[threads], f"{files_url}/{VLM_TEXT}", f"{files_url}/{projector}", build, high)
                said = page.el("threads-info").text
                assert said.startswith(f"Multi-threaded: {threads} threads" if threads > 1 else "Single-threaded"), said
                in_page = he_evaluation(d, page, photo)
                time.sleep(1.5)  # the line is told once more after the last answer
                line = page.el("judge-timing").text
                if build == "ours":
                    encoded, enc_s, reused = image_figures(line)
                    page_image = f"{encoded} views encoded in {enc_s:.0f} s, {reused} from memory"
                else:
                    page_image = "views not reported by wllama's builds"
                proc, log, native = native_server(engine, vlm / VLM_TEXT, threads, vlm / projector)
                try:
                    native_s = he_native(d, page, native)
                finally:
                    stop(proc, log)
                if form == "F16-2":  # 2 views: the image prompts are not told apart by length
                    native_image = "the image's share not told apart"
                else:
                    n_image, image_s = native_image_prompts(log.name)
                    native_image = f"{n_image} prompts with the image read in {image_s:.0f} s"
                report(f"{name}: in the page ({page_image}) vs native ({native_build(engine)}, -t {threads}; "
                       f"{native_image})",
                       in_page, "s", native_s, in_page / native_s, budget="≤ 3× native" if build == "ours" else None,
                       ok=in_page / native_s <= 3 if build == "ours" else None)
            except Exception as e:  # noqa: BLE001 - a row that fails says why; the table goes on
                report(f"{name}: FAILED ({type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''})",
                       -1, "s", None, None)
        # the rows above left "high" stored in this profile
        page = load(d, app_url, f"{files_url}/{VLM_TEXT}", f"{files_url}/{VLM_PROJECTORS['Q8_0']}", "", detail("auto"))
        started = time.time()
        proc, log, _ = native_server(engine, vlm / VLM_TEXT, 1, projector=vlm / VLM_PROJECTORS["Q8_0"])
        native_start = time.time() - started
        stop(proc, log)
        report("SmolVLM-shaped model and Q8_0 projector (98 + 104 MB) in the page: from the Load click to ready "
               "(fetched from loopback or the browser's cache, read into our build) vs native llama-server's start "
               "with the same files (to its first healthy answer)",
               page.load_s, "s", native_start, page.load_s / native_start)
        default = he_evaluation(d, page, photo)
        first = d.execute_script("return window.__benchFirstWord;")
        time.sleep(1.5)
        line = page.el("judge-timing").text
        encoded, enc_s, reused = image_figures(line)
        # "The image: 13 views read" or "The image: 1 of its 13 views read (the global view alone"
        views = "every view" if "The image: 13 views read" in line else "the global view alone"
        report(f"SmolVLM-shaped HarmonicEval in the page at its defaults (image detail auto: {views}; "
               f"{encoded} encoded in {enc_s:.0f} s, {reused} from memory), projector Q8_0, 1 thread",
               default, "s", None, None, budget="≤ 60 s", ok=default <= 60)
        report("the same evaluation: from the click to the run bar's first word of progress (the judge-timing "
               f"line, first: \"{(d.execute_script('return window.__benchFirstLine;') or '')[:70]}…\")",
               (first or -1) / 1000, "s", None, None, budget="≤ 1 s", ok=first is not None and 0 <= first <= 1000)
        # Three candidates of the same photo (issue 71): their prompts share the rubric up to the
        # candidate, taken from the engine's cache of earlier prompts; budget 1.6x one candidate.
        three, first_answer = he_candidates(d, page, THREE)
        time.sleep(1.5)
        line = page.el("judge-timing").text
        said = re.search(r"Prompts: (\d+) of (\d+) tokens taken from memory", line)
        cached = f"{said.group(1)} of {said.group(2)} prompt tokens from memory" if said else "no prompt tokens from memory"
        report(f"the same photo, three other candidates in one evaluation (15 requests; {cached}; first answer "
               f"after {first_answer:.1f} s), vs the one-candidate evaluation above",
               three, "s", default, three / default, budget="≤ 1.6× one", ok=three / default <= 1.6)
    finally:
        files.shutdown()
        iso.shutdown()


def f32_projector(src, out):
    """`src` (a projector) with its F16 tensors stored as F32, the same values (gguf-py): the
    form issue 71 measures beside F16 and Q8_0 (never shipped; written into the benchmark's
    temporary folder)."""
    import numpy as np
    from gguf import GGMLQuantizationType, GGUFReader, GGUFValueType, GGUFWriter

    r = GGUFReader(src)
    w = GGUFWriter(str(out), "clip")
    for f in r.fields.values():
        if f.name.startswith("GGUF.") or f.name == "general.architecture":
            continue
        vtype = f.types[0]
        value = 0 if f.name == "general.file_type" else f.contents()  # ALL_F32
        w.add_key_value(f.name, value, vtype, sub_type=f.types[-1] if vtype == GGUFValueType.ARRAY else None)
    for t in r.tensors:
        a = np.array(t.data)
        w.add_tensor(t.name, a.astype(np.float32) if t.tensor_type == GGMLQuantizationType.F16 else a)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def projector_forms(d, app_url, report, photo, tmp):
    """Issue 71's projector forms: one HarmonicEval evaluation of the benchmark's photo with the
    SmolVLM-shaped model in the page (our build, one thread, image detail low: the global view
    alone, encoded once), with the projector in Q8_0, in F16 (which our build holds as F32 as it
    loads) and in F32; each form's one view against Q8_0's in the same run (budget for F16: at most
    1.5x), with the load's time."""
    vlm = smolvlm_dir()
    folder = Path(tmp) / "forms"
    folder.mkdir()
    (folder / VLM_TEXT).symlink_to(vlm / VLM_TEXT)
    for form in ("Q8_0", "F16"):
        (folder / VLM_PROJECTORS[form]).symlink_to(vlm / VLM_PROJECTORS[form])
    f32_projector(vlm / VLM_PROJECTORS["F16"], folder / "smolvlm-projector-f32.gguf")
    files, files_url = serve(folder)
    try:
        views = {}
        for form, name in (("Q8_0", VLM_PROJECTORS["Q8_0"]), ("F16", VLM_PROJECTORS["F16"]),
                           ("F32", "smolvlm-projector-f32.gguf")):
            page = load(d, app_url, f"{files_url}/{VLM_TEXT}", f"{files_url}/{name}", "ours", detail("low"))
            said = page.el("model-load-status").text
            held = " (held as F32 as it loaded)" if "held as F32" in said else ""
            wall = he_evaluation(d, page, photo)
            time.sleep(1.5)
            encoded, enc_s, _ = image_figures(page.el("judge-timing").text)
            assert encoded == 1, page.el("judge-timing").text
            views[form] = enc_s
            report(f"SmolVLM-shaped projector {form}{held}: one view encoded in the page (our build, 1 thread; "
                   f"the evaluation {wall:.1f} s, the load {page.load_s:.1f} s), vs Q8_0's in the same run",
                   enc_s, "s", views["Q8_0"], enc_s / views["Q8_0"],
                   budget="≤ 1.5× Q8_0" if form == "F16" else None,
                   ok=enc_s / views["Q8_0"] <= 1.5 if form == "F16" else None)
    finally:
        files.shutdown()

def progress_screenshots(d, app_url, photo, out):
    """Issue 57's screenshots of the run bar while the page reads a photo's views: the
    SmolVLM-shaped model (Q8_0 projector, one thread, image detail high: 13 views) in our build,
    caught while it reads view 3 or later, at 1280 and 390 px wide, light and dark; written to
    `out` as progress-<width>-<scheme>.png."""
    vlm = smolvlm_dir()
    files, files_url = serve(vlm)
    out.mkdir(parents=True, exist_ok=True)
    try:
        page = load(d, app_url, f"{files_url}/{VLM_TEXT}", f"{files_url}/{VLM_PROJECTORS['Q8_0']}", "ours",
                    detail("high"))
        page.upload(photo)
        page.wait_image()
        page.fill("text-input", "A dog runs across a grassy park.")
        page.el("fresh-run-checkbox").click()
        Select(page.el("metric-select")).select_by_value("harmonic_eval")
        d.execute_script(EVAL_JS, CRITERIA)
        line = lambda: page.el("judge-timing").text  # noqa: E731
        page.wait_for(lambda _: re.search(r"view ([3-9]|1\d) of 13", line()), "view 3 of 13", 300)
        # where a visitor who clicked Evaluate looks: the run bar, under the button
        d.execute_script("arguments[0].scrollIntoView({block: 'center'});", page.el("judge-timing"))
        for width, height, mobile in ((1280, 900, False), (390, 844, True)):
            d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                              {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
            for scheme in ("light", "dark"):
                d.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                  {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
                time.sleep(0.4)
                d.execute_script("arguments[0].scrollIntoView({block: 'center'});", page.el("judge-timing"))
                d.save_screenshot(str(out / f"progress-{width}-{scheme}.png"))
                print(f"progress-{width}-{scheme}.png: {line()}")
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    finally:
        files.shutdown()


def stop(proc, log):
    proc.terminate()
    proc.wait(10)
    log.close()


def load(d, app_url, model_url, projector_url, build, before=None):
    """A fresh page at `app_url` with the model loaded in the in-page engine; `build` forces
    one of BUILDS ("" lets the page pick); `before(page)` sets anything else first."""
    d.get("about:blank")
    page = AppPage(d, app_url)
    Select(page.el("preset-select")).select_by_value("in_browser")
    page.wait_for(lambda _: page.el("threads-info").text.strip(), "the engine's facts", 30)
    d.execute_script("globalThis.hjEngineBuild = arguments[0] || undefined;", build)
    if before:
        before(page)
    page.fill("model-url-input", model_url)
    page.fill("projector-url-input", projector_url)
    clicked = time.time()
    page.el("load-model-button").click()
    page.wait_for(lambda _: page.el("model-load-progress").get_attribute("data-status") in ("ready", "error"),
                  "the model", 300)
    page.load_s = time.time() - clicked  # from the click to "ready": fetched, read into the engine
    assert page.el("model-load-progress").get_attribute("data-status") == "ready", page.el("model-load-status").text
    page.wait_for(lambda _: page.el("engine-build-info").text.startswith("Runs"), "the build sentence", 30)
    return page


def page_timings(d, page, request=REQUEST):
    import json

    d.execute_script(CHAT_JS, json.dumps(request))  # polled: one request may outlast WebDriver's own timeout
    page.wait_for(lambda _: d.execute_script("return window.__benchAnswer;"), "the in-page answer", 900)
    answer = d.execute_script("return window.__benchAnswer;")
    assert not answer.startswith("ERROR"), answer
    return json.loads(answer)["timings"]


def he_evaluation(d, page, image):
    page.upload(image)
    page.wait_image()
    page.fill("text-input", "A dog runs across a grassy park.")
    page.el("fresh-run-checkbox").click()
    return he_wall(page, d, page.wait_for)


# Three captions of the benchmark's photo, none the one-candidate evaluation's.
THREE = ["A colourful test pattern with circles and bars.", "A park with a dog on the grass.",
         "Bright stripes of colour on a screen."]
CANDIDATE_STATES_JS = """
return arguments[0].map(id => {
  const el = document.querySelector(`[data-testid="${id}"]`);
  return el ? el.getAttribute('data-state') : null;
});
"""


def he_candidates(d, page, texts):
    """One HarmonicEval evaluation of `texts` as candidates of the image in the form (answers
    asked afresh): its wall time and its first answer's, in seconds."""
    page.fill_candidates(texts)
    states = [f"candidate-{i}-{c}" for i in range(len(texts)) for c in CRITERIA]
    started, first = time.time(), None
    page.evaluate()
    while time.time() - started < 1800:
        done = [s in ("done", "error") for s in d.execute_script(CANDIDATE_STATES_JS, states)]
        if first is None and any(done):
            first = time.time() - started
        if all(done):
            return time.time() - started, first
        time.sleep(0.2)
    raise AssertionError("the candidates' evaluation did not end in 30 minutes")


def he_native(d, page, native):
    Select(page.el("preset-select")).select_by_value("llama_server")
    page.fill("base-url-input", native)
    page.fill("model-input", "smollm2-135m")
    return he_wall(page, d, page.wait_for)


# The GPU rows' request: the benchmark's prompt, 8 tokens written (on lavapipe each written token
# is a queue submission of several seconds).
GPU_REQUEST = dict(REQUEST, max_tokens=8)


def gpu_rows(app_url, engine, report, tmp):
    """Issue 70's rows, for the record only: the in-page judge on Firefox ESR's WebGPU adapter,
    which on this project's machines is Mesa's lavapipe, a CPU emulating a GPU (its speed says
    nothing of a real GPU's). In a fresh profile the model is loaded with Automatic (its check of
    the GPU against the CPU runs: the load's time includes it); where Automatic chose the GPU, one
    request's prompt and generation tok/s there against the same request on the CPU (the page's
    CPU path, our build) in the same browser. Where Firefox offers no usable adapter, the row says
    where the model went."""
    import browsers

    models, model_url = serve(engine)
    d = browsers.start("firefox", Path(tmp) / "firefox-gpu", browsers.Display(), prefs=browsers.FIREFOX_WEBGPU)
    d.set_script_timeout(900)
    choose = lambda value: lambda p: Select(p.el("gpu-select")).select_by_value(value)  # noqa: E731
    files = (f"{model_url}/{MODEL}", f"{model_url}/projector.gguf")
    try:
        page = load(d, app_url, *files, "", before=choose("auto"))
        status = page.el("gpu-status")
        backend = status.get_attribute("data-backend")
        report(f"Firefox, WebGPU (lavapipe, for the record): load with Automatic's check, now on {backend}",
               page.load_s, "s", None, None)
        if backend != "webgpu":
            print(f"  (no GPU row: {status.text})")
            return
        gpu = page_timings(d, page, GPU_REQUEST)
        page = load(d, app_url, *files, "", before=choose("cpu"))
        cpu = page_timings(d, page, GPU_REQUEST)
        for key, name in [("prompt_per_second", "prompt"), ("predicted_per_second", "generation")]:
            report(f"Firefox, WebGPU (lavapipe, for the record): {name} tok/s on the GPU vs the page's CPU path",
                   gpu[key], "tok/s", cpu[key], gpu[key] / cpu[key])
    finally:
        browsers.quit_within(d)
        models.shutdown()


def ratings_by_quant(d, app_url, engine, report):
    """Whether each quantization keeps the published Q4_1 weights' ratings: the most likely
    rating digit of five rating questions, in the page (the build it picks), against Q4_1's."""
    bodies = rating_questions("A brown dog runs across a grassy field with a red ball in its mouth.")
    models, model_url = serve(engine)
    out = {}
    try:
        for model in [m for m in MODELS if (engine / m).exists()]:
            quant = model.rsplit(".", 2)[-2]
            load(d, app_url, f"{model_url}/{model}", "", "")
            got = d.execute_async_script(ASK_ALL_JS, bodies)
            assert not isinstance(got, str), got
            tops = []
            for a in got:
                alts = top_alternatives(a)
                digits = {k: v for k, v in alts.items() if k in "12345" and k}
                tops.append(max(digits, key=digits.get) if digits else None)
            out[quant] = tops
        for quant, tops in out.items():
            kept = sum(1 for a, b in zip(tops, out["Q4_1"]) if a == b)
            report(f"{quant} keeps Q4_1's most likely rating ({', '.join(str(t) for t in tops)})",
                   kept, f"of {len(tops)}", None, None)
        return out
    finally:
        models.shutdown()


def native_only(engine, runs=3):
    """Native prompt and generation tok/s for each model, the median of `runs` requests."""
    import statistics

    print(f"native llama-server: {native_build(engine)} ({engine})")
    for model in MODELS:
        if not (engine / model).exists():
            continue
        proc, log, url = native_server(engine, model)
        try:
            native_timings(url)  # warm-up
            got = [native_timings(url) for _ in range(runs)]
        finally:
            stop(proc, log)
        med = {k: statistics.median(t[k] for t in got) for k in ("prompt_per_second", "predicted_per_second")}
        print(f"  {model}: prompt {med['prompt_per_second']:.1f} tok/s, generation {med['predicted_per_second']:.1f} tok/s")


def main():
    engine = Path(os.environ["HJ_ENGINE_DIR"])
    if "--native-only" in sys.argv[1:]:
        native_only(engine)
        return
    ratings_only = "--ratings" in sys.argv[1:]
    gpu_only = "--gpu" in sys.argv[1:]
    print(f"native llama-server: {native_build(engine)}")
    from conftest import _png, make_driver

    def report(name, value, unit, baseline, ratio):
        # The baseline is the one the row's name gives after "vs" (native llama-server, or the
        # page's CPU path for the GPU rows).
        extra = f" (baseline {baseline:.1f} {unit}; ratio {ratio:.2f})" if baseline else ""
        print(f"{name}: {value:.1f} {unit}{extra}")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        image = tmp / "small.png"
        image.write_bytes(_png(64, 48, lambda x, y: (x * 4 % 256, y * 5 % 256, 90)))
        site, app_url = serve(ROOT / "dist")
        d = make_driver(tmp / "profile", tmp)
        d.set_script_timeout(900)
        try:
            if gpu_only:
                gpu_rows(app_url + "/", engine, report, tmp)
            elif ratings_only:
                ratings_by_quant(d, app_url + "/", engine, report)
            else:
                in_page_vs_native(d, app_url + "/", image, engine, report)
                ratings_by_quant(d, app_url + "/", engine, report)
        finally:
            d.quit()
            site.shutdown()


if __name__ == "__main__":
    main()
