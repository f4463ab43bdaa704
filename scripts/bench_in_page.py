#!/usr/bin/env python3
"""The in-browser judge against the native llama-server, measured in one run on this machine:
prompt and generation tokens per second (llama.cpp's own `timings` of one identical chat
request) and the wall time of one HarmonicEval evaluation (5 criteria, an image), each as a
ratio page / native. Both run SmolLM2-135M-Instruct Q4_1 with the random-weight projector of
the real-engine tests, on one thread: the page is served without COOP/COEP (not cross-origin
isolated, so wllama runs single-threaded) and llama-server gets `-t 1`.

The native side is the engine folder's own binary, built portable (x86-64-v3 on x86-64, no
AVX-512 or AMX; scripts/real_engine.sh says why): every row names that build and the flags it
ran with, from bin/BUILD. `--native-only` measures only the native side, for comparing builds
(HJ_NATIVE_FLAGS adds flags, e.g. --no-repack for a native build that dies without it).

scripts/bench.py calls `in_page_vs_native` when HJ_ENGINE_DIR names the engine folder
(scripts/real_engine.sh); run alone: HJ_ENGINE_DIR=... .venv/bin/python scripts/bench_in_page.py
"""

import functools
import os
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

from app_page import CRITERIA, AppPage  # noqa: E402

MODEL = "SmolLM2-135M-Instruct.Q4_1.gguf"
# The same weights in Q8_0 (scripts/requant_q8.py, made by scripts/real_engine.sh): llama.cpp's
# WebAssembly build has SIMD kernels for Q8_0 and none for Q4_1, so the ratio differs by
# quantization, and both are measured.
MODELS = [MODEL, "SmolLM2-135M-Instruct.Q8_0.gguf"]
PROMPT = ("Judge this caption of a photo of a park on a scale of 1 to 5 and explain why. " * 12).strip()
REQUEST = {"messages": [{"role": "user", "content": PROMPT}], "max_tokens": 64, "temperature": 0,
           "ignore_eos": True, "cache_prompt": False}

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
const t0 = performance.now();
document.querySelector('[data-testid="evaluate-button"]').click();
let started = false;
const poll = () => {
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


def serve(directory):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Cors, directory=str(directory)))
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


NATIVE_FLAGS = ["-t", "1", "-c", "4096", "-np", "1", *os.environ.get("HJ_NATIVE_FLAGS", "").split()]


def native_build(engine):
    """Which build the native side is and how it runs: 'x86-64-v3, -t 1 -c 4096 -np 1'."""
    try:
        line = (engine / "bin" / "BUILD").read_text().strip()
        isa = line.split(":", 1)[0].split(", ", 1)[-1]
    except OSError:
        isa = "unknown build (no bin/BUILD: an engine folder from before builds were recorded)"
    return f"{isa}, {' '.join(NATIVE_FLAGS)}"


def native_server(engine, model=MODEL):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(engine / f"server-bench-{port}.log", "wb")
    proc = subprocess.Popen([str(engine / "bin" / "llama-server"), "-m", str(engine / model), "--mmproj",
                             str(engine / "projector.gguf"), "--host", "127.0.0.1", "--port", str(port),
                             *NATIVE_FLAGS], stdout=log, stderr=subprocess.STDOUT)
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
    """Adds the rows through `report(name, value, unit, baseline, ratio)`, for each model of
    MODELS the engine folder has."""
    out = {}
    for model in MODELS:
        if (engine / model).exists():
            out[model] = one_model(d, app_url, image, engine, report, model)
    return out


def one_model(d, app_url, image, engine, report, model):
    import json

    quant = model.rsplit(".", 2)[-2]
    models, model_url = serve(engine)
    proc, log, native = native_server(engine, model)
    try:
        d.get("about:blank")
        page = AppPage(d, app_url)
        Select(page.el("preset-select")).select_by_value("in_browser")
        page.wait_for(lambda _: page.el("threads-info").text.strip(), "the engine's facts", 30)
        page.fill("model-url-input", f"{model_url}/{model}")
        page.fill("projector-url-input", f"{model_url}/projector.gguf")
        t0 = time.time()
        page.el("load-model-button").click()
        page.wait_for(lambda _: page.el("model-load-progress").get_attribute("data-status") in ("ready", "error"),
                      "the model", 300)
        load_s = time.time() - t0
        assert page.el("model-load-progress").get_attribute("data-status") == "ready", page.el("model-load-status").text
        d.execute_script(CHAT_JS, json.dumps(REQUEST))  # polled: one request may outlast WebDriver's own timeout
        page.wait_for(lambda _: d.execute_script("return window.__benchAnswer;"), "the in-page answer", 900)
        page_t = json.loads(d.execute_script("return window.__benchAnswer;"))["timings"]
        native_t = native_timings(native)
        for key, name in [("prompt_per_second", "prompt"), ("predicted_per_second", "generation")]:
            report(f"in-page judge, {name} tokens/s (SmolLM2-135M {quant}, 1 thread) vs native llama-server "
                   f"({native_build(engine)})",
                   page_t[key], "tok/s", native_t[key], page_t[key] / native_t[key])
        page.upload(image)
        page.wait_image()
        page.fill("text-input", "A dog runs across a grassy park.")
        page.el("fresh-run-checkbox").click()
        in_page = he_wall(page, d, page.wait_for)
        Select(page.el("preset-select")).select_by_value("llama_server")
        page.fill("base-url-input", native)
        page.fill("model-input", "smollm2-135m")
        native_s = he_wall(page, d, page.wait_for)
        report(f"HarmonicEval, 5 criteria, one image ({quant}): in the page vs native llama-server "
               f"({native_build(engine)})", in_page, "s",
               native_s, in_page / native_s)
        report(f"in-page model download (loopback) and load ({quant})", load_s, "s", None, None)
        return page_t, native_t
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()
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
            proc.terminate()
            proc.wait(10)
            log.close()
        med = {k: statistics.median(t[k] for t in got) for k in ("prompt_per_second", "predicted_per_second")}
        print(f"  {model}: prompt {med['prompt_per_second']:.1f} tok/s, generation {med['predicted_per_second']:.1f} tok/s")


def main():
    engine = Path(os.environ["HJ_ENGINE_DIR"])
    if "--native-only" in sys.argv[1:]:
        native_only(engine)
        return
    print(f"native llama-server: {native_build(engine)}")
    from conftest import _png, make_driver

    def report(name, value, unit, baseline, ratio):
        extra = f" (native {baseline:.1f} {unit}; ratio {ratio:.2f})" if baseline else ""
        print(f"{name}: {value:.1f} {unit}{extra}")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        image = tmp / "small.png"
        image.write_bytes(_png(64, 48, lambda x, y: (x * 4 % 256, y * 5 % 256, 90)))
        site, app_url = serve(ROOT / "dist")
        d = make_driver(tmp / "profile", tmp)
        d.set_script_timeout(900)
        try:
            in_page_vs_native(d, app_url + "/", image, engine, report)
        finally:
            d.quit()
            site.shutdown()


if __name__ == "__main__":
    main()
