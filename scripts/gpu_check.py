#!/usr/bin/env python3
"""The in-page judge on a real GPU: one call on a machine with a GPU (scripts/gpu_check.sh runs it;
at most 5 minutes). It serves dist/ cross-origin isolated with SmolLM2-135M and the random-weight
projector of the real-engine tests from the same origin, starts Chromium (or Firefox ESR, with
`--browser firefox`) with WebGPU on the GPU, and reports:

  adapter: <vendor> <architecture>      what WebGPU offers (or "none")
  shader-f16: yes | no                  the feature llama.cpp's WebGPU backend needs
  check: <verdict>                      Automatic's check of the GPU against the CPU (a fresh
                                        profile: it runs), as the page kept it: each question's
    <question>: largest difference <d>, tolerance <e>: within | beyond
  check backend: <webgpu|cpu>           where Automatic then put the model, and the status line
  GPU run: backend <webgpu|cpu>, <s> s  one HarmonicEval evaluation with "The GPU" chosen
  CPU run: backend cpu, <s> s           the same evaluation with "The CPU" chosen
  ratings match the CPU path's: yes | no (<criterion>: <gpu rating> vs <cpu rating>, ...)
  largest probability difference: <p>

`--check-only` stops after the check (a slow adapter, such as Firefox's lavapipe here, takes
longer than the page's limit per answer on the evaluation's prompts once it reads them in small
enough steps). With no GPU (this project's machines) Chromium offers no adapter with these
switches (or SwiftShader without shader-f16 with --enable-unsafe-webgpu alone): the check does
not run, the GPU run falls back to the CPU, and the report says so: tests/e2e/test_in_page_gpu.py
runs this script for that path. Firefox here offers Mesa's Vulkan on the CPU, where the check
runs (docs/performance.md has what it said). `--json FILE` also writes the report as JSON.
HJ_GPU_FLAGS replaces the Chromium switches that select the GPU (default: Vulkan through ANGLE,
the GPU blocklist off); HJ_PAGE_CORES, the cores the page sees (one when run from a parallel
worker of the suite, whose PYTEST_XDIST_WORKER it inherits: tests/e2e/conftest.py).
"""

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "scripts"))

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

import bench_in_page  # noqa: E402
from app_page import CRITERIA, export_pattern  # noqa: E402
from conftest import CHROMEDRIVER, CHROMIUM, _png, emulate_cores  # noqa: E402
from browsers import CHECK_KEY, FIREFOX_WEBGPU  # noqa: E402

GPU_FLAGS = os.environ.get("HJ_GPU_FLAGS", "--enable-unsafe-webgpu --enable-features=Vulkan,VulkanFromANGLE "
                           "--use-angle=vulkan --use-vulkan=native --ignore-gpu-blocklist").split()
MODEL = "SmolLM2-135M-Instruct.Q4_1.gguf"


def driver(profile, downloads, browser="chromium"):
    if browser == "firefox":
        import browsers

        d = browsers.start("firefox", profile, browsers.Display(), prefs={
            **FIREFOX_WEBGPU, "browser.download.folderList": 2, "browser.download.dir": str(downloads),
            "browser.download.useDownloadDir": True, "browser.helperApps.neverAsk.saveToDisk": "application/json"})
        d.set_script_timeout(120)
        return d
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ["--headless=new", "--no-sandbox", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                "--window-size=1280,1000", f"--user-data-dir={profile}", *GPU_FLAGS]:
        opts.add_argument(arg)
    opts.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                           "download.prompt_for_download": False})
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    emulate_cores(d)  # the cores the page sees: its engine's threads (tests/e2e/conftest.py)
    d.set_page_load_timeout(60)
    d.set_script_timeout(120)
    return d


def probe(d):
    """What the page's bridge sees of WebGPU (it loads when the provider is chosen)."""
    end = time.time() + 60
    while not d.execute_script("return !!window.hjInBrowser;"):
        if time.time() > end:
            raise RuntimeError("the in-page engine's bridge did not load")
        time.sleep(0.2)
    return d.execute_async_script("""
        const done = arguments[arguments.length - 1];
        window.hjInBrowser.facts().then(f => done(f.gpu), e => done({error: String(e)}));""")


def evaluate(d, app_url, model_url, image, downloads, choice):
    """One HarmonicEval evaluation in a fresh page with the GPU setting `choice` ("gpu" or
    "cpu"): (backend, seconds, export document)."""
    page = bench_in_page.load(d, app_url, f"{model_url}/{MODEL}", f"{model_url}/projector.gguf", "",
                              before=lambda p: Select(p.el("gpu-select")).select_by_value(choice))
    backend = page.el("gpu-status").get_attribute("data-backend")
    seconds = bench_in_page.he_evaluation(d, page, image)
    page.el("export-json-button").click()
    found = page.wait_file(downloads, export_pattern("harmonic_eval"))
    doc = json.loads(found.read_text())
    found.rename(downloads / f"{choice}-{found.name}")  # the next page matches only its own
    return backend, seconds, doc


def check(d, app_url, model_url, report):
    """Automatic's check, as a first visitor's page runs it: the model loaded with Automatic in a
    fresh profile; what the page kept of it (localStorage) and where it put the model."""
    page = bench_in_page.load(d, app_url, f"{model_url}/{MODEL}", f"{model_url}/projector.gguf", "",
                              before=lambda p: Select(p.el("gpu-select")).select_by_value("auto"))
    status = page.el("gpu-status")
    kept = d.execute_script(
        "return Object.entries(localStorage).filter(([k]) => k.startsWith(arguments[0])).map(([, v]) => v);",
        CHECK_KEY)
    record = json.loads(kept[0]) if kept else None
    report["check_backend"], report["check_status"] = status.get_attribute("data-backend"), status.text
    report["check"] = record
    if record is None:
        print(f"check: not run ({status.text})")
    else:
        compared = record.get("compared", [])
        within = all(c["diff"] <= c["tolerance"] for c in compared)
        failed = record.get("failed") or record.get("failed_answering")
        verdict = (f"the GPU failed ({failed})" if failed else "no rating to compare" if not compared
                   else "every rating's probability within the tolerance" if within else "beyond the tolerance")
        print(f"check: {verdict}; questions: GPU {record['gpu_s']:.1f} s, CPU {record['cpu_s']:.1f} s")
        for c in compared:
            print(f"  {c['criterion']} ({'grounded' if c['grounded'] else 'text-only'}): largest difference "
                  f"{c['diff']:.4f}, tolerance {c['tolerance']:.4f}: {'within' if c['diff'] <= c['tolerance'] else 'beyond'}")
        report["check_within"] = bool(compared) and within and not failed
    print(f"check backend: {report['check_backend']} ({status.text})")


def rating(crit):
    dist = crit.get("distribution")
    return None if not dist else dist.index(max(dist)) + 1


def main():
    out_json = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    browser = sys.argv[sys.argv.index("--browser") + 1] if "--browser" in sys.argv else "chromium"
    if browser not in ("chromium", "firefox"):
        sys.exit(f"--browser: chromium or firefox, not {browser!r}")
    engine = Path(os.environ["HJ_ENGINE_DIR"])
    report = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        image = tmp / "small.png"
        image.write_bytes(_png(64, 48, lambda x, y: (x * 4 % 256, y * 5 % 256, 90)))
        site, app_url = bench_in_page.serve(ROOT / "dist", isolated=True)
        models, model_url = bench_in_page.serve(engine)
        downloads = tmp / "downloads"
        downloads.mkdir()
        d = driver(tmp / "profile", downloads, browser)
        report["browser"] = browser
        try:
            page = bench_in_page.AppPage(d, app_url + "/")
            Select(page.el("preset-select")).select_by_value("in_browser")
            gpu = probe(d)
            named = f"{gpu.get('vendor', '')} {gpu.get('architecture', '')}".strip() or "(unnamed)"
            report["adapter"] = named if gpu.get("adapter") else "none"
            report["shader_f16"] = "shader-f16" in gpu.get("features", [])
            print(f"adapter: {report['adapter']}")
            print(f"shader-f16: {'yes' if report['shader_f16'] else 'no'}")
            check(d, app_url + "/", model_url, report)
            if "--check-only" in sys.argv:
                return
            runs = {}
            for choice in ("gpu", "cpu"):
                backend, seconds, doc = evaluate(d, app_url + "/", model_url, image, downloads, choice)
                runs[choice] = doc
                report[f"{choice}_backend"], report[f"{choice}_seconds"] = backend, round(seconds, 1)
                print(f"{choice.upper()} run: backend {backend}, {seconds:.1f} s")
            pairs = list(zip(CRITERIA, runs["gpu"]["criteria"], runs["cpu"]["criteria"]))
            differ = [f"{c}: {rating(g)} vs {rating(p)}" for c, g, p in pairs if rating(g) != rating(p)]
            report["ratings_match"] = not differ
            print("ratings match the CPU path's: " + ("yes" if not differ else "no (" + ", ".join(differ) + ")"))
            gaps = [abs(a - b) for _, g, p in pairs if g.get("distribution") and p.get("distribution")
                    for a, b in zip(g["distribution"], p["distribution"])]
            report["largest_difference"] = max(gaps, default=None)
            print(f"largest probability difference: {report['largest_difference']}")
            report["scored"] = [c for c, g, _ in pairs if rating(g) is not None]
        finally:
            d.quit()
            site.shutdown()
            models.shutdown()
            if out_json:
                Path(out_json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
