"""Issue 31: what a visitor does, in the three engines visitors have: Chromium, Firefox ESR and
WebKitGTK (the Safari engine family). Not every test in three engines: this set walks the main
paths (both pages, every gallery example, γ by keyboard and pointer, the weights readout,
Export, a share link in a fresh session, a result file, the history, a full HarmonicEval run
against the loopback OpenAI fake, the lab's import of the sample dataset and its
meta-evaluation from a results file, the in-browser judge's panel, and the layout check and
axe at 390 and 1280 px), and fails on any uncaught error or unhandled rejection in the page.
The engines and the watch on the page are tests/e2e/browsers.py.

Then one test per defect these engines exposed: Firefox without its JSPI flag downloading a
model it cannot run, WebKit's false isolation sentence, and WebKit's temporary storage
(refused Blobs) called "full" with an unhandled rejection behind it.

Each engine starts once for the module (started again if it quits: `Shared`); each test gets its
own loopback origin (so its storage starts empty) and, where it needs one, a fresh session."""

import json
import warnings

import pytest
from selenium.common.exceptions import InvalidSessionIdException
from selenium.webdriver import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

import browsers
from app_page import CRITERIA, AppPage, export_pattern, tid
from conftest import DIST
from test_layout import AXE, AXE_RUN, LAYOUT_JS, PANELS, N_RESULTS, SHOTS, lab_results

VERSIONS = {}


@pytest.fixture(scope="module")
def display():
    d = browsers.Display()
    yield d
    d.stop()


class Shared:
    """The module's one session of an engine, started again (with a fresh profile) if the
    browser quit under a test: that test fails, the ones after it get a live browser, and the run
    says so in its warnings (two CI runs saw Firefox quit during one test and every later test in
    that session fail)."""

    def __init__(self, name, display, tmp_path_factory):
        self.name, self.display, self.factory = name, display, tmp_path_factory
        self.driver = self._start()

    def _start(self):
        return browsers.start(self.name, self.factory.mktemp(f"profile-{self.name}"), self.display)

    def alive(self):
        try:
            self.driver.current_url
            return True
        except Exception:  # noqa: BLE001 - a dead session (WebDriverException) or driver (urllib3)
            return False

    def live(self):
        if not self.alive():
            warnings.warn(f"{self.name}'s shared session had quit; a new one was started for the next test")
            try:
                self.driver.quit()
            except Exception:  # noqa: BLE001 - it is gone already
                pass
            self.driver = self._start()
        return self.driver


@pytest.fixture(scope="module", params=browsers.ENGINES)
def engine(request, display, tmp_path_factory):
    name = request.param
    try:
        shared = Shared(name, display, tmp_path_factory)
    except Exception as e:  # noqa: BLE001 - say which engine and why, once
        pytest.fail(f"{name} did not start ({e.__class__.__name__}: {e}); scripts/setup.sh --test installs it")
    VERSIONS[name] = browsers.version(shared.driver)
    yield shared
    shared.driver.quit()


class XB:
    """One test in one engine: its own origin, and the watch's verdict at the end."""

    def __init__(self, shared, site, display, tmp):
        self.shared = shared
        self.d = shared.live()
        self.loaded = False
        self.engine = self.d.hj_engine
        self.site = site
        self.url = site.url
        self.display = display
        self.tmp = tmp
        self.problems = []
        self.others = []

    def page(self, path="", driver=None):
        d = driver or self.d
        self.note(d)
        try:
            page = AppPage(d, self.url + path)
        except InvalidSessionIdException as e:
            # The shared session's web process crashed or hung as the test's first page loaded,
            # before the test did anything (WebKitGTK, once in a CI run, right after the lab's
            # test; not reproduced when WebKit's tests ran again here). Loaded once more, in a
            # new session, and said in the run's warnings; a crash later in a test still fails it.
            if driver is not None or self.loaded or "crash or hang" not in str(e):
                raise
            warnings.warn(f"{self.engine}: the shared session crashed or hung as the page loaded ({e.msg}); loaded again in a new one")
            self.d = d = self.shared.live()
            page = AppPage(d, self.url + path)
        self.loaded = True
        assert browsers.errors(d) is not None, "the watch is not on the page (tests/e2e/browsers.py, inject)"
        return page

    def note(self, driver=None):
        """Keeps what the watch saw on the page about to be left."""
        found = browsers.errors(driver or self.d)
        if found:
            self.problems += found

    def fresh(self, page_load=None):
        """A second session with a fresh profile (nothing stored, no history)."""
        d = browsers.start(self.engine, self.tmp / f"fresh-{len(self.others)}", self.display, page_load=page_load)
        self.others.append(d)
        return d


@pytest.fixture
def xb(engine, display, tmp_path):
    site = browsers.Site(DIST)
    x = XB(engine, site, display, tmp_path)
    yield x
    # A shared session that quit under the test has failed it already; the next test starts a
    # new one (Shared.live) and nothing of this page can be read any more.
    alive = engine.alive()
    if alive:
        x.note()
    for d in x.others:
        x.note(d)
        d.quit()
    # Leave the shared session on a blank page, its storage no one's.
    try:
        if alive:
            x.d.get("about:blank")
    finally:
        site.stop()
    assert not x.problems, f"{x.engine}: uncaught errors or unhandled rejections in the page:\n" + "\n".join(x.problems)


def named_gammas(d):
    return {b.text: b for b in d.find_elements("css selector", ".gamma-marks button")}


def open_example(page, name):
    page.wait_for(lambda d: d.find_elements("css selector", f"[data-testid='demo-{name}']"), f"the {name} example", 30)
    page.el(f"demo-{name}").click()
    page.wait_for(lambda d: page.el("opened-note").is_displayed() and page.overall() is not None, "the example's score", 30)


def file_input(page, name, path):
    """Chooses a file in an <input type=file>, shown first where it is hidden (WebDriver types
    into visible inputs only)."""
    e = page.el(name)
    page.d.execute_script("arguments[0].style.display = 'block'; arguments[0].hidden = false;", e)
    e.send_keys(str(path))


# ------------------------------------------------------------------ the visitor's paths


def test_both_pages_load_and_every_gallery_example_opens(xb):
    page = xb.page()
    manifest = json.loads((DIST / "examples" / "manifest.json").read_text())
    for e in manifest:
        name = e["name"]
        page.wait_for(lambda d: d.find_elements("css selector", f"[data-testid='demo-{name}']"), name, 30)
        page.el(f"demo-{name}").click()
        page.wait_for(lambda d: e["title"] in page.el("opened-note").text, f"{name} to open", 30)
        if name.startswith("compare-"):
            page.wait_for(lambda d: d.find_elements("css selector", "[data-testid='ranking'][data-order*=',']"), "the ranking")
        else:
            page.wait_for(lambda d: page.overall() is not None, f"{name}'s score")
    lab = xb.page("lab/")
    lab.wait_for(lambda d: d.find_elements(*tid("dataset-input")), "the lab", 30)


def test_gamma_by_keyboard_and_pointer_and_the_weights_readout(xb):
    page = xb.page()
    open_example(page, "gamma-flip-a")
    slider = page.el("gamma-slider")
    slider.send_keys(Keys.HOME)
    page.wait_for(lambda d: page.el("gamma-value").text == "0.01", "γ at its minimum")
    low = page.overall()
    for _ in range(3):
        slider.send_keys(Keys.RIGHT)
    page.wait_for(lambda d: page.el("gamma-value").text == "0.04", "γ moved by the arrow key")
    slider.send_keys(Keys.END)
    page.wait_for(lambda d: page.el("gamma-value").text == "1.00", "γ at its maximum")
    assert page.overall() != low
    # The pointer: a named setting, then the readout of a focused band.
    named_gammas(xb.d)["selective 0.01"].click()
    page.wait_for(lambda d: page.el("gamma-value").text == "0.01", "the named γ")
    band = page.el("weights-plot").find_elements("css selector", "polygon.band")[0]
    xb.d.execute_script("arguments[0].focus()", band)
    readout = page.el("weights-readout")
    page.wait_for(lambda d: readout.text.startswith("Correctness: weight"), "the readout")
    assert "100 %" in readout.text and "σ = 0.22" in readout.text, readout.text
    named_gammas(xb.d)["uniform 1"].click()
    page.wait_for(lambda d: "20 %" in page.el("weights-readout").text, "the readout at γ = 1")
    plot = page.el("weights-plot")
    spot = xb.d.execute_script("""
        const svg = arguments[0];
        svg.scrollIntoView({block: 'center'});
        const r = svg.getBoundingClientRect();
        // The middle of the band's run at the first x that has one, not its edge: a pointer
        // rounded to whole pixels at the edge lands in the next band (Firefox did).
        for (let fx = 0.98; fx > 0.1; fx -= 0.02) {
          const hits = [];
          for (let fy = 0.05; fy < 0.8; fy += 0.01) {
            const e = document.elementFromPoint(r.left + r.width * fx, r.top + r.height * fy);
            if (e && e.classList.contains('band-2')) hits.push(fy);
          }
          if (hits.length) return [Math.round((fx - 0.5) * r.width), Math.round((hits[Math.floor(hits.length / 2)] - 0.5) * r.height)];
        }
        return null;""", plot)
    assert spot, "the clarity band is drawn"
    ActionChains(xb.d).move_to_element_with_offset(plot, *spot).perform()
    page.wait_for(lambda d: page.el("weights-readout").text.startswith("Clarity"), "the hover readout")


def test_export_and_a_share_link_opened_in_a_fresh_session(xb):
    page = xb.page()
    open_example(page, "gamma-flip-b")
    named_gammas(xb.d)["selective 0.01"].click()
    before = page.overall()
    page.el("export-json-button").click()
    files = browsers.saved(xb.d, export_pattern("harmonic_eval"))
    exported = [t for n, t in files.items() if export_pattern("harmonic_eval").fullmatch(n)]
    assert exported, files.keys()
    assert exported[0].startswith("{"), exported[0][:300]
    doc = json.loads(exported[0])
    assert doc["explanations"]["fluency"] == "Natural English."
    page.el("copy-link-button").click()
    page.wait_for(lambda d: "#r=" in page.el("share-link").text, "the link")
    link = page.el("share-link").text
    assert link.startswith(xb.url)
    fresh = xb.fresh()
    other = xb.page(link[len(xb.url):], driver=fresh)
    other.wait_for(lambda d: other.overall() is not None, "the shared result", 30)
    assert "a share link" in other.el("opened-note").text
    named_gammas(fresh)["selective 0.01"].click()
    assert other.overall() == pytest.approx(before, abs=1e-12)
    assert "Natural English." in other.card("fluency").text


def test_a_harmonic_eval_run_the_history_and_its_result_file(xb, fake, images, tmp_path):
    page = xb.page()
    page.set_backend(fake.url, "gpt-4o", "sk-xb-0123456789")
    page.upload(images / "photo.png")
    page.wait_image()
    page.fill("text-input", "A dog runs across a grassy park.")
    page.evaluate()
    page.wait_settled(timeout=60)
    assert all(page.state(c) == "done" for c in CRITERIA), [page.state(c) for c in CRITERIA]
    score = page.overall()
    assert score is not None
    assert len(fake.requests) >= 5
    # The history keeps it (IndexedDB), and reopens it after a reload.
    page.d.execute_script("document.querySelector('[data-testid=history]').open = true;")
    page.wait_for(lambda d: d.find_elements("css selector", "[data-testid='history-list'] > li"), "the run in the history")
    page.el("export-json-button").click()
    files = browsers.saved(xb.d, export_pattern("harmonic_eval", "a-dog-runs-across-a-grassy"))
    name, text = next((n, t) for n, t in files.items() if n.startswith("harmonic_eval-a-dog"))
    page = xb.page()
    page.d.execute_script("document.querySelector('[data-testid=history]').open = true;")
    page.wait_for(lambda d: d.find_elements(*tid("history-open-0")), "the history after a reload")
    page.el("history-open-0").click()
    page.wait_for(lambda d: page.overall() is not None, "the reopened run")
    assert page.overall() == pytest.approx(score, abs=1e-12)
    # The result file opens in a page that has nothing.
    path = tmp_path / name
    path.write_text(text)
    page = xb.page()
    file_input(page, "open-result-input", path)
    page.wait_for(lambda d: page.overall() is not None, "the opened result")
    assert page.el("opened-note").text.startswith(f"Opened from {name}")
    assert page.overall() == pytest.approx(score, abs=1e-12)


@pytest.mark.parametrize("late", [False, True], ids=["served", "late"])
def test_a_demo_site_opens_its_example_then_judges_the_visitors_photo_with_no_key(xb, fake, images, tmp_path, late):
    """Issue 72, docs/deploying.md's demo recipe in each engine: this exact site.json (a custom
    OpenAI-compatible judge, no key, an example opened on arrival, no lab) dropped beside the
    built files of a site served as plain static files. The example opens with its score and no
    request; then the visitor's own photo and caption go to the owner's server, five requests,
    and every criterion is done. `served`: the file is there from the first byte, and the page
    says nothing of a late arrival; `late`: the host answers for it only after the app mounted
    (issue 58's path: the judge switches and the example opens under a live page)."""
    from test_site import site_dir

    config = {"title": "Caption lab demo", "tagline": "Judged by our own proxy",
              "judge": {"provider": "custom", "base_url": fake.url, "model": "gpt-4o"},
              "metrics": ["harmonic_eval"], "open_example": "gamma-flip-b", "lab": False}
    xb.site.stop()
    xb.site = browsers.Site(site_dir(tmp_path, config, built=False))
    xb.url = xb.site.url
    if late:
        xb.site.hold("site.json")
    page = xb.page()
    if late:
        assert page.el("site-title").text == "harmonic-judge", "the app mounted before the host's answer"
        xb.site.release()
    page.wait_for(lambda d: page.el("site-title").text == "Caption lab demo", "the site's title")
    page.wait_for(lambda d: page.el("opened-note").is_displayed() and page.overall() is not None,
                  "the site's example with its score", 30)
    assert not fake.requests, "opening the example asks nothing"
    file_input(page, "image-input", images / "photo.png")
    page.wait_image()
    page.fill("text-input", "A dog runs across a grassy park.")
    page.evaluate()
    page.wait_settled(timeout=60)
    assert all(page.state(c) == "done" for c in CRITERIA), [page.card(c).text[:120] for c in CRITERIA]
    chat = [r for r in fake.requests if r["path"].endswith("/chat/completions")]
    assert len(chat) == 5, [r["path"] for r in fake.requests]
    assert all("authorization" not in r["headers"] and r["body"]["model"] == "gpt-4o" for r in chat)
    sent = json.dumps([r["body"] for r in chat])
    assert "A dog runs across a grassy park." in sent and "data:image/jpeg;base64," in sent
    assert "Two squares" not in sent, "the visitor's caption, not the example's"
    notes = xb.d.find_elements(*tid("site-changed-note"))
    if late:
        assert notes and "arrived after the page opened" in notes[0].text
    else:
        assert not notes or "arrived after" not in notes[0].text, notes[0].text


def test_the_static_shell_takes_the_image_the_text_and_evaluate_before_the_wasm(xb, fake, images):
    """Issue 43: the page is usable before its wasm arrives. With the host holding the wasm back,
    a visitor chooses an image, types the caption and clicks Evaluate in the static shell; when
    the wasm comes the app adopts all three, keeps the focus and the caret, and runs the queued
    evaluation through the judge."""
    d = xb.fresh(page_load="none")
    page = AppPage(d, xb.url)
    page.set_backend(fake.url, "gpt-4o", "sk-xb-0123456789")  # kept for the next visit
    wasm = next(p.name for p in DIST.glob("harmonic-judge-*_bg.wasm"))
    xb.site.hold(wasm)
    try:
        xb.note(d)
        # An address that opens an example (the embed's link; a site's `open_example` too): it
        # must not replace what the visitor entered in the shell.
        d.get(xb.url + "?example=gamma-flip-a")
        page.wait_for(lambda dr: dr.find_elements(*tid("shell-evaluate-button")), "the static shell")
        assert d.execute_script("return performance.getEntriesByName('hj-shell-interactive').length") == 1
        file_input(page, "shell-image-input", images / "photo.png")
        caption = d.find_element(*tid("shell-text-input"))
        caption.send_keys("A dog runs across a grassy park.")
        d.find_element(*tid("shell-evaluate-button")).click()
        page.wait_for(lambda dr: "starts as soon as" in dr.find_element(*tid("shell-status")).text, "the queued note")
        # The shell as it stands, filled in: nothing overflows or overlaps, and axe passes, at
        # a phone's width where the engine's window can be made that narrow, and at 1280.
        failures = []
        SHOTS.mkdir(parents=True, exist_ok=True)
        for width in (390, 1280):
            if _resize(d, width, 1000) == width:
                failures += _measure(xb, "the static shell", width, driver=d, least=12)
                if xb.engine != "webkit":  # WebKit's screenshot waits for the held wasm
                    d.save_screenshot(str(SHOTS / f"shell-{xb.engine}-{width}.png"))
        assert not failures, f"{xb.engine}:\n" + "\n".join(failures)
        caption.click()  # the visitor goes back to the text: the focus follows into the app
        d.execute_script("arguments[0].setSelectionRange(6, 10)", caption)
        assert not d.find_elements(*tid("metric-select")), "the app mounted while its wasm was held"
        assert fake.requests == []
    finally:
        xb.site.release()
    page.wait_for(lambda dr: dr.find_elements(*tid("metric-select")), "the app to mount", 30)
    assert not d.find_elements(*tid("static-shell"))
    assert page.el("text-input").get_attribute("value") == "A dog runs across a grassy park."
    focused = d.execute_script("const a = document.activeElement; return [a.id, a.selectionStart, a.selectionEnd]")
    assert focused == ["text-input", 6, 10], focused
    page.wait_image()
    assert page.el("image-info").text.startswith("photo.png")
    page.wait_settled(timeout=60)
    assert all(page.state(c) == "done" for c in CRITERIA), [page.state(c) for c in CRITERIA]
    assert page.overall() is not None
    assert len(fake.requests) >= 5
    sent = json.dumps([r["body"] for r in fake.requests])
    assert "A dog runs across a grassy park." in sent and "data:image/jpeg;base64," in sent
    # The gallery came (and with it the decision about the address's example), and the visitor's
    # caption and image are still what the page holds.
    assert d.find_elements(*tid("demo-gamma-flip-a"))
    assert not d.find_elements(*tid("opened-note"))
    assert page.el("text-input").get_attribute("value") == "A dog runs across a grassy park."
    assert page.el("image-info").text.startswith("photo.png")


def test_the_static_shell_says_so_when_the_evaluator_cannot_load(xb):
    """Issue 43: a shell that takes input must not promise an app that will not come. With the
    wasm refused (404), the shell's status says the evaluator did not load and how to recover,
    and what was typed stays."""
    xb.note()
    xb.site.refused = next(p.name for p in DIST.glob("harmonic-judge-*_bg.wasm"))
    xb.d.get(xb.url)
    status = xb.d.find_element(*tid("shell-status"))
    xb.d.find_element(*tid("shell-text-input")).send_keys("kept")
    WebDriverWait(xb.d, 15).until(lambda d: "did not load" in status.text, "the shell to say the evaluator did not load")
    assert "Reload the page" in status.text
    assert "error" in status.get_attribute("class")
    # In the error colour, as the app's errors are, not the loading line's muted one.
    colours = xb.d.execute_script(
        "const p = document.createElement('p'); p.className = 'error'; p.textContent = 'x';"
        "arguments[0].after(p); const c = [getComputedStyle(arguments[0]).color, getComputedStyle(p).color];"
        "p.remove(); return c;", status)
    assert colours[0] == colours[1], colours
    assert xb.d.find_element(*tid("shell-text-input")).get_attribute("value") == "kept"
    assert not xb.d.find_elements(*tid("metric-select"))
    # The loader's failure was the point of this test: the watch's record of it is not a defect.
    xb.d.execute_script("window.__hjErrors.length = 0")


def test_the_lab_imports_the_sample_dataset_and_meta_evaluates_a_results_file(xb, tmp_path):
    lab = xb.page("lab/")
    lab.wait_for(lambda d: d.find_elements(*tid("dataset-input")), "the lab", 30)
    file_input(lab, "dataset-input", DIST / "lab" / "sample-dataset.zip")
    lab.wait_for(lambda d: lab.el("batch-progress").get_attribute("data-total") == "6", "the sample to load", 30)
    assert lab.el("import-ready").get_attribute("data-left-out") == "0"
    report = lab.el("import-report").text
    # WebKit's automation session keeps storage only for the session, as a private window does,
    # and refuses files there (test_webkit_temporary_storage_is_said_as_such); elsewhere it is kept.
    if xb.engine != "webkit":
        assert report == "", report
    file_input(lab, "results-input", lab_results(tmp_path))
    lab.wait_for(lambda d: lab.el("batch-progress").get_attribute("data-total") == str(N_RESULTS), "the results", 30)
    lab.wait_for(lambda d: d.find_elements(*tid("sweep-best-gamma")), "the sweep")
    lab.wait_for(lambda d: lab.el("meta-overall-tau-b").get_attribute("data-value"), "the meta-evaluation")
    assert lab.el("gamma-sweep").get_attribute("data-points") == "100"
    svg = xb.d.find_element("css selector", '[data-testid="gamma-sweep"] svg')
    svg.send_keys(Keys.HOME)
    lab.wait_for(lambda d: lab.el("gamma-value").text == "0.01", "γ at its minimum, by keyboard")


def has_memory64_build(driver):
    """Whether this browser has what llama.cpp's Memory64 build needs (JSPI and Memory64)."""
    return driver.execute_script("""
        let m64 = true;
        try { new WebAssembly.Memory({address: 'i64', initial: BigInt(1)}); } catch (e) { m64 = false; }
        return typeof WebAssembly.Suspending === 'function' && m64;""")


def in_browser_panel(page):
    Select(page.el("preset-select")).select_by_value("in_browser")
    page.wait_for(lambda d: page.el("threads-info").text.strip(), "the engine's facts", 30)


def test_the_in_browser_judges_panel(xb):
    page = xb.page()
    in_browser_panel(page)
    status = page.el("model-load-status")
    # Every engine can load a model now (issue 42): the Memory32 build needs neither JSPI nor
    # Memory64.
    assert status.get_attribute("class") == "hint", status.text
    assert all(page.el(b).is_enabled() for b in ("load-model-button", "load-files-button"))
    build = page.el("engine-build-info")
    page.wait_for(lambda d: build.text.strip(), "the build sentence")
    # Our own build runs a model without a projector on the CPU in every engine: it needs
    # neither JSPI nor Memory64.
    assert build.text.startswith("Will run our own build of llama.cpp"), build.text
    # What the suite measured, for the browser table (docs): WebKit has no JSPI.
    if xb.engine == "webkit":
        assert not has_memory64_build(xb.d)
    else:
        assert has_memory64_build(xb.d), f"{xb.engine} ({browsers.version(xb.d)}) lacks JSPI or Memory64"
    # The isolation sentence is true here: this loopback site sends no COOP or COEP.
    assert "does not send the COOP and COEP headers" in page.el("threads-info").text


def site_with_models(tmp_path, engine_dir):
    """dist/ with the real engine's SmolLM2 and projector under models/, on one origin."""
    root = tmp_path / "site"
    root.mkdir()
    for entry in DIST.iterdir():
        (root / entry.name).symlink_to(entry)
    (root / "models").mkdir()
    for name in ("SmolLM2-135M-Instruct.Q4_1.gguf", "projector.gguf"):
        (root / "models" / name).symlink_to(engine_dir / name)
    return browsers.Site(root)


OTHER_ORIGINS_JS = """
return performance.getEntriesByType('resource').map(e => e.name)
  .filter(u => !u.startsWith(location.origin + '/') && !u.startsWith('blob:') && !u.startsWith('data:'));"""


# The engine's files each build fetches from the page's origin.
BUILD_FILES = {"ours": "/wllama/own/engine.wasm", "memory32": "/wllama/compat/wllama.wasm"}
BUILD_NAMES = {"ours": "Runs our own build of llama.cpp", "memory32": "Runs llama.cpp's Memory32 build"}


def judge_here(driver, site, image, build="ours"):
    """Loads SmolLM2 from the site's own origin in the page and scores a caption with
    HarmonicEval's clarity, through the page, on `build` (the page's own choice, `ours`, or
    forced by `hjEngineBuild`). (Clarity: a text-only criterion that this model
    rates for this caption in every engine; Chromium's own tests judge all five on an image,
    and the engine's wasm is the same in every browser.)"""
    from test_in_browser import CAPTION

    page = AppPage(driver, site.url)
    in_browser_panel(page)
    if build != "ours":
        # Firefox runs this in a sandbox: the page's own window is its wrappedJSObject.
        driver.execute_script("(window.wrappedJSObject || window).hjEngineBuild = arguments[0];", build)
    page.fill("model-url-input", site.url + "models/SmolLM2-135M-Instruct.Q4_1.gguf")
    page.el("load-model-button").click()
    progress = lambda: page.el("model-load-progress").get_attribute("data-status")  # noqa: E731
    page.wait_for(lambda d: progress() in ("ready", "error"), "the model", 300)
    assert progress() == "ready", page.el("model-load-status").text
    said = page.el("engine-build-info").text
    assert said.startswith(BUILD_NAMES[build]), said
    Select(page.el("metric-select")).select_by_value("harmonic_eval")
    page.upload(image)  # HarmonicEval asks for one; fluency alone does not send it
    page.wait_image()
    page.fill("text-input", CAPTION)
    subset = page.el("criteria-subset")
    for c in ("correctness", "completeness", "fluency", "conciseness"):
        subset.find_element("css selector", f'input[value="{c}"]').click()
    page.evaluate()
    page.wait_for(lambda d: page.state("clarity") in ("done", "error"), "clarity", 600)
    card = page.card("clarity")
    assert page.state("clarity") == "done" and card.get_attribute("data-score"), card.text
    scored = ["clarity"]
    assert ("GET", BUILD_FILES[build]) in site.log, f"the {build} build comes from this origin"
    for other in set(BUILD_FILES.values()) - {BUILD_FILES[build]}:
        assert ("GET", other) not in site.log, f"{other} was fetched, but {build} ran"
    assert driver.execute_script(OTHER_ORIGINS_JS) == []
    return said, scored


def test_the_judge_inside_the_page_scores_from_this_origin_alone(xb, engine_dir, images, tmp_path):
    """Issue 42: WebKit (Safari's engine) had no judge inside the page at all. Each engine loads
    the real SmolLM2 from the page's own origin and scores a caption.

    In a session of its own: in the session the other tests share, WebKitGTK went on compiling
    the engine's 19 MB of wasm in the background after the page was left, and the next test's
    page took over 30 s to instantiate its own (seen on this 2-core machine, every time); and
    after the tests before it, one CI run's load ended in the engine's bare abort."""
    site = site_with_models(tmp_path, engine_dir)
    try:
        build, scored = judge_here(xb.fresh(), site, images / "small.png")
        print(f"\n[{xb.engine}] {build} scored {scored}")
    finally:
        site.stop()


def _resize(driver, width, height=900):
    driver.set_window_size(width, height)
    inner = driver.execute_script("return window.innerWidth;")
    if inner != width:
        driver.set_window_size(width + (width - inner), height)
    driver.execute_script("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));")
    return driver.execute_script("return window.innerWidth;")


def _measure(xb, what, width, driver=None, least=20):
    failures = []
    d = driver or xb.d
    d.execute_script("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));")
    assert d.execute_script("return window.innerWidth;") == width
    if not d.execute_script("return typeof window.axe === 'object';"):
        d.execute_script(AXE.read_text())
    layout = d.execute_script(LAYOUT_JS, PANELS)
    assert layout["panels"] >= 3 and layout["elements"] > least, layout
    failures += [f"{what} {width}px: {p}" for p in layout["problems"]]
    for v in d.execute_async_script(AXE_RUN):
        failures.append(f"{what} {width}px axe {v['id']} ({v.get('impact')}): {v['help']}: {v['nodes']}")
    return failures


def _check(xb, what, path, prepare, widths=(390, 1280)):
    """The layout check and axe on the page at `path`, brought to its state by `prepare(page)`,
    at each width: in the window where the engine's window can be made that wide, else in an
    iframe of that width (WebKitGTK's MiniBrowser window is at least 447 px wide)."""
    failures = []
    for width in widths:
        if _resize(xb.d, width) == width:
            page = xb.page(path)
            prepare(page)
            failures += _measure(xb, what, width)
            continue
        _resize(xb.d, 1280, 1000)
        xb.note()
        xb.d.get(f"{xb.url}__hj_frame.html?w={width}&h=900&src={path}")
        xb.d.switch_to.frame("hj-frame")
        try:
            page = AppPage.__new__(AppPage)
            page.d = xb.d
            page.wait_for(lambda d: d.find_elements(*tid("metric-select")), "the page in its frame", 30)
            prepare(page)
            failures += [f + " (in an iframe)" for f in _measure(xb, what, width)]
            xb.note()
        finally:
            xb.d.switch_to.default_content()
    _resize(xb.d, 1280, 1000)
    return failures


def test_the_layout_check_and_axe_at_390_and_1280(xb, tmp_path):
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run scripts/setup.sh (it installs axe-core from npm)")
    results = lab_results(tmp_path)

    def example(page):
        open_example(page, "gamma-flip-a")

    def lab(page):
        page.wait_for(lambda d: d.find_elements(*tid("dataset-input")), "the lab", 30)
        file_input(page, "results-input", results)
        page.wait_for(lambda d: d.find_elements(*tid("sweep-best-gamma")), "the sweep", 30)

    failures = _check(xb, "evaluator", "", example) + _check(xb, "lab", "lab/", lab)
    # WebKit once scrolled the lab sideways at 390 px (scrollWidth 450): it counted the text of
    # the rating-protocol select's longest option as overflow of every box around it. Paint
    # containment on selects (style/main.css) keeps it in; this check holds WebKit to that.
    assert not failures, f"{xb.engine}:\n" + "\n".join(failures)


def test_ratings_set_by_hand_follow_and_lay_out_at_390_1024_and_1280(xb):
    """Issue 44 in each engine: the bars move by keys and by typing, the cards follow exactly
    as the core computes, and the panel and present mode pass the layout check and axe."""
    from test_by_hand import assert_cards_follow, open_hand, type_bar

    page = xb.page()
    open_hand(page)
    type_bar(page, "clarity", 2, 55)
    page.wait_for(lambda d: page.el("hand-clarity-2").get_property("value") == "55", "the typed bar")
    bar = page.el("hand-fluency-3")
    xb.d.execute_script("arguments[0].focus();", bar)
    v = int(bar.get_property("value"))
    ActionChains(xb.d).send_keys(Keys.ARROW_UP).send_keys(Keys.ARROW_UP).perform()
    page.wait_for(lambda d: int(bar.get_property("value")) == v + 2, "the bar to move by key")
    assert_cards_follow(page)
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run scripts/setup.sh (it installs axe-core from npm)")

    def by_hand(page):
        open_hand(page)

    def present(page):
        open_hand(page)
        page.el("present-button").click()
        page.wait_for(lambda d: not d.find_element(*tid("demo-gallery")).is_displayed(), "present mode")

    failures = _check(xb, "by hand", "", by_hand, widths=(390, 1024, 1280)) + _check(xb, "by hand, presented", "", present, widths=(1024,))
    assert not failures, f"{xb.engine}:\n" + "\n".join(failures)


# ------------------------------------------------------------------ what the engines exposed


def test_firefox_without_its_jspi_flag_judges_on_wllamas_memory32_build(xb, engine_dir, images, tmp_path):
    """Firefox with javascript.options.wasm_js_promise_integration off, as Firefox ESR 140 ships.
    Before issue 42 the panel refused to load anything there. Our own build needs no JSPI either
    (the test above); wllama's Memory32 build, which such a browser runs for a model with a
    projector, is forced here so that it too is judged through outside Chromium."""
    if xb.engine != "firefox":
        pytest.skip("Firefox's own flag")
    d = browsers.start("firefox", tmp_path / "nojspi", xb.display,
                       prefs={"javascript.options.wasm_js_promise_integration": False})
    xb.others.append(d)
    site = site_with_models(tmp_path, engine_dir)
    try:
        d.get(site.url)
        assert d.execute_script("return typeof WebAssembly.Suspending;") == "undefined"
        judge_here(d, site, images / "small.png", build="memory32")
    finally:
        site.stop()


def test_webkit_isolation_sentence_is_true_and_names_safaris_way(xb, display, tmp_path):
    """Served with COOP and COEP: credentialless (as scripts/serve.sh does), WebKit is still
    not isolated; before the fix the sentence said the server sends neither header."""
    if xb.engine != "webkit":
        pytest.skip("WebKit's own gap")
    site = browsers.Site(DIST, isolated=True)
    try:
        page = AppPage(xb.d, site.url)
        assert xb.d.execute_script("return crossOriginIsolated;") is False
        in_browser_panel(page)
        said = page.el("threads-info").text
        assert "does not send" not in said, said
        assert "does not support credentialless" in said and "require-corp" in said, said
        assert "Cross-Origin-Resource-Policy" in said and "scripts/serve.sh" in said, said
        xb.note()
    finally:
        site.stop()


def test_webkit_temporary_storage_is_said_as_such(xb):
    """WebKit's automation session keeps its website data only for the session (an ephemeral
    data store, as Safari's private windows have), and its IndexedDB refuses Blobs there. Before
    the fix the lab said "its storage is full or refused the write" and the page had an
    unhandled rejection ([object Event])."""
    if xb.engine != "webkit":
        pytest.skip("WebKit's temporary storage")
    lab = xb.page("lab/")
    lab.wait_for(lambda d: d.find_elements(*tid("dataset-input")), "the lab", 30)
    file_input(lab, "dataset-input", DIST / "lab" / "sample-dataset.zip")
    lab.wait_for(lambda d: lab.el("import-report").text, "the import report", 30)
    report = lab.el("import-report").text
    assert "did not store" in report and "sample-dataset.zip" in report, report
    assert "temporary" in report and "private window" in report, report
    assert "full" not in report, report
