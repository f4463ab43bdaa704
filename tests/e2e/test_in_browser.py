"""End-to-end: the judge inside the page ("In this browser (llama.cpp)", @wllama/wllama). The
real SmolLM2-135M-Instruct GGUF and the random-weight projector of the real-engine tests are
served from a loopback HTTP server, as a model URL on the web would be (with CORS), and the page
downloads, caches and runs them in headless Chromium. Nothing is scripted: every score must be
supported by what the model wrote (the same independent reading as test_real_engine.py).

The model host counts the requests for each file, so a reload is shown to load from the
browser's cache with no second download."""

import collections
import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from selenium.webdriver.support.ui import Select

from app_page import CRITERIA, AppPage, export_pattern
from conftest import make_driver
from test_layout import checker_for  # noqa: F401 (a fixture)
from test_real_engine import CAPTION, check_harmonic_cards, check_maev_trials, export, set_budget

MODEL = "SmolLM2-135M-Instruct.Q4_1.gguf"
LOAD = 180  # seconds: download ~100 MB from loopback and load it, on two shared cores
JUDGE = 900  # seconds for one evaluation: one WebAssembly thread on two cores shared with other jobs


class ModelHost:
    """Serves the engine folder (and test files put in it) with CORS, counting GETs per path."""

    def __init__(self, directory):
        self.gets = collections.Counter()
        host = self

        class Handler(SimpleHTTPRequestHandler):
            def end_headers(self):
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Cross-Origin-Resource-Policy", "cross-origin")
                super().end_headers()

            def do_GET(self):
                host.gets[self.path.split("?")[0]] += 1
                super().do_GET()

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(directory)))
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def stop(self):
        self.httpd.shutdown()


@pytest.fixture(scope="module")
def host(engine_dir, tmp_path_factory, images):
    d = tmp_path_factory.mktemp("models")
    for name in (MODEL, "projector.gguf"):
        (d / name).symlink_to(engine_dir / name)
    whole = (engine_dir / MODEL).read_bytes()
    (d / "truncated.gguf").write_bytes(whole[: len(whole) // 3])  # a download cut short
    (d / "corrupt.gguf").write_bytes(b"GGUF" + bytes(range(256)) * 64)  # the magic, then noise
    (d / "photo.gguf").write_bytes((images / "small.png").read_bytes())  # an image named .gguf
    server = ModelHost(d)
    yield server
    server.stop()


def in_browser(browser, app_url):
    page = AppPage(browser, app_url)
    Select(page.el("preset-select")).select_by_value("in_browser")
    page.wait_for(lambda d: page.el("threads-info").text.strip(), "the engine's facts")
    return page


def progress(page):
    return page.el("model-load-progress").get_attribute("data-status")


def load_url(page, model_url, projector_url=""):
    page.fill("model-url-input", model_url)
    page.fill("projector-url-input", projector_url)
    page.el("load-model-button").click()
    page.wait_for(lambda d: progress(page) in ("ready", "error"), "the model to load", LOAD)
    return progress(page)


def harmonic_ready(page, image):
    Select(page.el("metric-select")).select_by_value("harmonic_eval")
    page.upload(image)
    page.wait_image()
    page.fill("text-input", CAPTION)


def settle(page):
    try:
        page.wait_settled(timeout=JUDGE)
    except Exception:
        raise AssertionError([(c, page.state(c), page.card(c).text[:200]) for c in CRITERIA])


def only_fluency(page):
    """Unticks every criterion but fluency (text only: no image needed)."""
    subset = page.el("criteria-subset")
    for c in ("correctness", "completeness", "clarity", "conciseness"):
        subset.find_element("css selector", f'input[value="{c}"]').click()


def cards(page):
    return [(page.state(c), page.card(c).get_attribute("data-score"), page.card(c).get_attribute("data-sigma"),
             page.card(c).get_attribute("data-coverage")) for c in CRITERIA]


def test_harmonic_eval_on_an_image_judged_inside_the_page(browser, app_url, host, images, downloads):
    page = in_browser(browser, app_url)
    assert "not cross-origin isolated" in page.el("threads-info").text  # the test server sends no COOP/COEP
    assert load_url(page, f"{host.url}/{MODEL}", f"{host.url}/projector.gguf") == "ready", \
        page.el("model-load-status").text
    assert float(page.el("model-load-progress").get_attribute("data-value")) == 1.0
    assert "with a vision projector" in page.el("model-load-status").text
    assert "Single-threaded" in page.el("threads-info").text
    harmonic_ready(page, images / "small.png")
    assert page.el("repeatable-checkbox").is_selected(), "repeatable is the default for a local judge"
    page.evaluate()
    settle(page)
    doc = export(page, downloads, export_pattern("harmonic_eval"))
    scored = check_harmonic_cards(page, doc)
    assert scored >= 1, [page.card(c).text for c in CRITERIA]
    assert host.gets[f"/{MODEL}"] == 1 and host.gets["/projector.gguf"] == 1, host.gets
    print(f"\n[in page] HarmonicEval: {scored} of 5 criteria scored")


def test_the_same_input_gives_identical_distributions_twice_and_cancel_stops_a_run(browser, app_url, host, images):
    page = in_browser(browser, app_url)
    assert load_url(page, f"{host.url}/{MODEL}", f"{host.url}/projector.gguf") == "ready"
    harmonic_ready(page, images / "small.png")
    # Two text criteria keep this affordable on one WebAssembly thread.
    subset = page.el("criteria-subset")
    for c in ("correctness", "completeness", "clarity"):
        subset.find_element("css selector", f'input[value="{c}"]').click()
    chosen = ["fluency", "conciseness"]
    page.el("fresh-run-checkbox").click()  # ask the engine each time, not the answer cache
    page.evaluate()
    page.wait_for(lambda d: page.state("fluency") == "running", "the run to start", 10)
    page.el("cancel-button").click()
    page.wait_for(lambda d: all(page.state(c) in ("done", "error") for c in chosen), "the cancel", 60)
    assert "Cancelled." in page.card("conciseness").text, page.card("conciseness").text
    runs = []
    for _ in range(2):
        page.evaluate()
        page.wait_for(lambda d: any(page.state(c) == "running" for c in chosen), "the run to start", 10)
        page.wait_for(lambda d: all(page.state(c) in ("done", "error") for c in chosen), "the run", JUDGE)
        runs.append([r for c, r in zip(CRITERIA, cards(page)) if c in chosen])
    assert runs[0] == runs[1], runs
    assert any(s == "done" for s, *_ in runs[0]), [page.card(c).text for c in chosen]


def test_a_reload_loads_from_the_browser_cache_without_a_second_download(tmp_path, downloads, app_url, host):
    driver = make_driver(tmp_path / "profile", downloads)  # one profile across the reload
    try:
        page = in_browser(driver, app_url)
        before = host.gets[f"/{MODEL}"]
        assert load_url(page, f"{host.url}/{MODEL}") == "ready"
        assert host.gets[f"/{MODEL}"] == before + 1
        assert "no projector" in page.el("model-load-status").text
        page = in_browser(driver, app_url)  # a new visit: the page and its engine start afresh
        page.wait_for(lambda d: MODEL in page.el("model-cache-list").text, "the cache list")
        assert "98.4 MB" in page.el("model-cache-list").text
        assert load_url(page, f"{host.url}/{MODEL}") == "ready"
        assert host.gets[f"/{MODEL}"] == before + 1, "the model was downloaded again"
        page.el("clear-model-cache-button").click()
        page.wait_for(lambda d: page.el("model-cache-list").text.strip() == "", "the cache to empty")
    finally:
        driver.quit()


@pytest.mark.parametrize("name, sentence", [
    ("truncated.gguf", "damaged or cut short"),
    ("corrupt.gguf", "damaged or cut short"),
    ("photo.gguf", "not a GGUF model (it looks like an image)"),
])
def test_a_bad_model_url_gets_its_sentence(browser, app_url, host, images, name, sentence):
    page = in_browser(browser, app_url)
    assert load_url(page, f"{host.url}/{name}") == "error"
    assert sentence in page.el("model-load-status").text, page.el("model-load-status").text
    # Nothing is loaded, and judging says so instead of hanging.
    harmonic_ready(page, images / "small.png")
    only_fluency(page)
    page.evaluate()
    page.wait_for(lambda d: page.state("fluency") in ("done", "error"), "fluency", 30)
    assert "No model is loaded in this page" in page.card("fluency").text


def test_a_picked_file_of_the_wrong_type_gets_its_sentence(browser, app_url, images):
    page = in_browser(browser, app_url)
    page.el("model-file-input").send_keys(str(images / "small.png"))
    page.el("load-files-button").click()
    page.wait_for(lambda d: progress(page) == "error", "the refusal", 30)
    assert "The model file is not a GGUF model (it looks like an image)" in page.el("model-load-status").text


def test_maev_trials_and_no_vision_without_a_projector(browser, app_url, host, images, downloads):
    page = in_browser(browser, app_url)
    assert load_url(page, f"{host.url}/{MODEL}") == "ready"
    harmonic_ready(page, images / "small.png")
    subset = page.el("criteria-subset")
    for c in ("clarity", "fluency", "conciseness"):  # only the two that need the image
        subset.find_element("css selector", f'input[value="{c}"]').click()
    page.evaluate()
    page.wait_for(lambda d: all(page.state(c) in ("done", "error") for c in ("correctness", "completeness")),
                  "the grounded criteria", 60)
    for c in ("correctness", "completeness"):
        assert page.state(c) == "error" and "does not accept images" in page.card(c).text
    Select(page.el("metric-select")).select_by_value("maev")
    page.fill("question-input", "What is the dog carrying?")
    page.fill("caption-input", CAPTION)
    page.fill("reference-answer-input", "A red ball.")
    page.fill("text-input", "The dog carries a blue frisbee.")
    page.set_number("trials-input", 2)
    set_budget(page, 96)
    page.evaluate()
    page.wait_for(lambda d: all(page.el(f"trial-{i}").get_attribute("data-state") in ("done", "error")
                                for i in range(2)), "every trial", JUDGE)
    check_maev_trials(page, 2)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_in_browser_panel_layout_and_accessibility(checker_for, app_url, theme):
    driver, check = checker_for("evaluator", theme)
    page = in_browser(driver, app_url)
    check.check("in-browser")
    page.el("load-model-button").click()  # no URL: the sentence shows, nothing loads
    page.wait_for(lambda d: progress(page) == "error", "the sentence")
    check.check("in-browser-error")
    check.done(["in-browser", "in-browser-error"])


def test_a_browser_without_jspi_is_told_what_it_lacks(browser, app_url):
    # As in Firefox without its flag: WebAssembly JavaScript Promise Integration is missing.
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                            {"source": "delete WebAssembly.Suspending;"})
    page = in_browser(browser, app_url)
    page.wait_for(lambda d: progress(page) == "error", "the sentence")
    status = page.el("model-load-status").text
    assert "lacks WebAssembly JavaScript Promise Integration (JSPI)" in status, status
    assert "Memory64" not in status
