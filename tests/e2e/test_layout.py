"""End-to-end checks that look at the page: both pages at 360, 390, 768, 1024, 1440, 1920 and 2560 px wide,
before and after a run, in light and dark. Bounding boxes (measured in the page) show that
nothing sticks out of the viewport or out of its panel, that the page never scrolls sideways,
that no two panels overlap and that no table cell's content spills into the next; axe-core
(from npm, `.tools/node_modules/axe-core`) finds no accessibility violation; every state is
saved as `target/screenshots/<page>-<state>-<width>-<theme>.png` (CI keeps them as artefacts).

Plus the keyboard: a results row opens with Enter and gives focus back on Escape, sorted
headers carry aria-sort, and the arrow keys move γ along the sweep."""

import base64
import io
import json
import zipfile
from pathlib import Path

import pytest
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from app_page import CRITERIA, AppPage, tid, allow_storage, refuse_storage
from conftest import ROOT, _png, make_driver, origin_of
from fakes.openai import FakeOpenAI

# The widths the issue names, plus the ends of the range the layout promises (360 to 2560).
WIDTHS = [360, 390, 768, 1024, 1440, 1920, 2560]
HEIGHT = 900
THEMES = ["light", "dark"]
AXE = ROOT / ".tools" / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = ROOT / "target" / "screenshots"

# Boxes that hold a piece of the page: nothing inside one may stick out of it, and no two of
# them (neither inside the other) may overlap.
PANELS = ", ".join([
    "header.topbar", "nav.tabs", "main > section.column", "fieldset", ".gamma", ".overall", ".card",
    "section.meta", "section.results-table", ".dropzone", "figure.sweep", ".table-scroll",
    ".batch-progress", ".resume-banner", "details",
])

LAYOUT_JS = """
const PANELS = arguments[0];
const vw = document.documentElement.clientWidth;
const problems = [];
const se = document.scrollingElement;
if (se.scrollWidth > window.innerWidth) problems.push(`the page scrolls sideways: ${se.scrollWidth} > ${window.innerWidth}`);
const name = (e) => {
  const t = e.getAttribute('data-testid');
  const c = (e.getAttribute('class') || '').trim().split(/\\s+/)[0];
  return e.tagName.toLowerCase() + (t ? `[${t}]` : '') + (c ? '.' + c : '') + ` "${(e.textContent || '').trim().slice(0, 40)}"`;
};
const shown = (e) => {
  const r = e.getBoundingClientRect();
  if (r.width < 1 || r.height < 1) return false;
  const s = getComputedStyle(e);
  if (s.visibility === 'hidden') return false;
  // Screen-reader-only text is clipped to a pixel on purpose.
  if (e.closest('.visually-hidden')) return false;
  // Closed <details>: its content (but not its summary) is not drawn.
  const d = e.parentElement && e.parentElement.closest('details:not([open])');
  if (d && !e.closest('summary') && e !== d) return false;
  return true;
};
// The nearest ancestor (below `stop`) that clips or scrolls its content sideways.
const clipper = (e, stop) => {
  for (let a = e.parentElement; a && a !== stop && a !== document.body; a = a.parentElement) {
    const o = getComputedStyle(a).overflowX;
    if (o !== 'visible') return a;
  }
  return null;
};
const all = Array.from(document.body.querySelectorAll('*')).filter(shown);
for (const e of all) {
  if (e.closest('svg') && e.tagName.toLowerCase() !== 'svg') continue;
  const r = e.getBoundingClientRect();
  if (!clipper(e, null)) {
    if (r.left < -1 || r.right > vw + 1) problems.push(`${name(e)} sticks out of the viewport: ${Math.round(r.left)}..${Math.round(r.right)} of ${vw}`);
  }
  const panel = e.parentElement && e.parentElement.closest(PANELS);
  // A panel that scrolls sideways (a table's box) may hold wider content: that is the point.
  if (panel && getComputedStyle(panel).overflowX === 'visible' && !clipper(e, panel)) {
    const p = panel.getBoundingClientRect();
    if (r.left < p.left - 1 || r.right > p.right + 1) problems.push(`${name(e)} sticks out of ${name(panel)}: ${Math.round(r.left)}..${Math.round(r.right)} outside ${Math.round(p.left)}..${Math.round(p.right)}`);
  }
}
// Table cells: the content of a cell stays inside it (headers do not run together).
for (const c of document.querySelectorAll('th, td')) {
  if (!shown(c)) continue;
  if (c.scrollWidth > c.clientWidth + 1) problems.push(`${name(c)} spills out of its cell: ${c.scrollWidth} > ${c.clientWidth}`);
}
// Column headers break only between words or at a soft hyphen, never inside a word
// ("Complet|eness"): where a header's text moves to a new line, the character before is a
// space or a soft hyphen.
for (const th of document.querySelectorAll('thead th')) {
  if (!shown(th)) continue;
  const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
  let top = null, before = null;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (let i = 0; i < n.length; i++) {
      const range = document.createRange();
      range.setStart(n, i);
      range.setEnd(n, i + 1);
      // After a soft hyphen the character's range also holds the drawn hyphen: its last box
      // is the character's own.
      const boxes = range.getClientRects();
      const box = boxes[boxes.length - 1];
      if (box && box.width > 0) {
        if (top !== null && box.top > top + 2 && !/[\\s\\u00ad\\-–\\/]/.test(before)) {
          problems.push(`${name(th)} breaks inside a word, before "${n.data.slice(i, i + 6)}"`);
          break;
        }
        top = box.top;
      }
      before = n.data[i];
    }
  }
}
// A chart's labels: no two texts of one <svg> overlap (a label over a title, ticks run
// together).
for (const svg of document.querySelectorAll('svg')) {
  if (!shown(svg)) continue;
  const texts = Array.from(svg.querySelectorAll('text')).filter(shown);
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const ra = texts[i].getBoundingClientRect(), rb = texts[j].getBoundingClientRect();
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (w > 1 && h > 1) problems.push(`${name(texts[i])} and ${name(texts[j])} overlap in a chart by ${Math.round(w)}x${Math.round(h)} px`);
    }
  }
}
// No two panels overlap unless one holds the other.
const panels = Array.from(document.querySelectorAll(PANELS)).filter(shown);
for (let i = 0; i < panels.length; i++) {
  for (let j = i + 1; j < panels.length; j++) {
    const a = panels[i], b = panels[j];
    if (a.contains(b) || b.contains(a)) continue;
    const ra = a.getBoundingClientRect(), rb = b.getBoundingClientRect();
    const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
    const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
    if (w > 1 && h > 1) problems.push(`${name(a)} and ${name(b)} overlap by ${Math.round(w)}x${Math.round(h)} px`);
  }
}
return {problems: problems.slice(0, 25), panels: panels.length, elements: all.length};
"""

AXE_RUN = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ['violations']}).then(
  r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ' :: ' + (n.failureSummary || '').replace(/\\s+/g, ' '))}))),
  e => done([{id: 'axe-error', help: String(e), nodes: []}]));
"""


class Checker:
    """One browser for one page in one theme; the window is resized, not reopened."""

    def __init__(self, driver, page, theme):
        self.d = driver
        self.page = page
        self.theme = theme
        self.checked = []
        self.failures = []
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": theme}]})
        # Overlay scrollbars, as on a phone: the layout width is the window's width, and a
        # full-page screenshot shows exactly what was measured.
        driver.execute_cdp_cmd("Emulation.setScrollbarsHidden", {"hidden": True})

    def resize(self, width):
        self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
        self.d.execute_script("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));")

    def axe(self):
        if not self.d.execute_script("return typeof window.axe === 'object';"):
            # Through the DevTools protocol, so the page's Content-Security-Policy (scripts only
            # from this site) does not apply to the injected script.
            self.d.execute_script(AXE.read_text())
            assert self.d.execute_script("return typeof window.axe === 'object';"), "axe-core did not load"
        self.d.set_script_timeout(60)
        return self.d.execute_async_script(AXE_RUN)

    def check(self, state, widths=None):
        """Checks one state at every width (or those given); failures are collected, and `done` asserts."""
        failures = self.failures
        for width in widths or WIDTHS:
            self.resize(width)
            assert self.d.execute_script("return window.innerWidth;") == width
            # The theme really is the one asked for.
            dark = self.d.execute_script("return matchMedia('(prefers-color-scheme: dark)').matches;")
            assert dark == (self.theme == "dark")
            shot = SHOTS / f"{self.page}-{state}-{width}-{self.theme}.png"
            shot.parent.mkdir(parents=True, exist_ok=True)
            # Encoded for speed (still a lossless PNG, a larger file): 49 shots a test, a third less time.
            png = self.d.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                                   "optimizeForSpeed": True})
            shot.write_bytes(base64.b64decode(png["data"]))
            layout = self.d.execute_script(LAYOUT_JS, PANELS)
            assert layout["panels"] >= 3 and layout["elements"] > 20, layout
            for p in layout["problems"]:
                failures.append(f"{state} {width}px: {p}")
            for v in self.axe():
                failures.append(f"{state} {width}px axe {v['id']} ({v.get('impact')}): {v['help']}: {v['nodes']}")
            self.checked.append((state, width))

    def done(self, states, widths=None):
        assert [s for s, _ in self.checked] == [s for s in states for _ in widths or WIDTHS]
        assert not self.failures, f"{self.page} {self.theme}:\n" + "\n".join(self.failures)


@pytest.fixture
def checker_for(tmp_path, downloads, app_url, shared_chromium):
    """make(page, theme) -> (driver, Checker): the first in the shared Chromium (its tab's
    emulated media and viewport go with the tab at the reset), any further one in a Chromium of
    its own."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run scripts/setup.sh (it installs axe-core from npm)")
    drivers = []

    def make(page, theme):
        if drivers:
            d = make_driver(tmp_path / f"profile-{page}-{theme}", downloads)
        else:
            d = shared_chromium.take(downloads)
        drivers.append(d)
        return d, Checker(d, page, theme)

    yield make
    for d in drivers[1:]:
        d.quit()
    if drivers:
        shared_chromium.reset({origin_of(app_url)})


def body_background(driver):
    return driver.execute_script("return getComputedStyle(document.body).backgroundColor;")


# ------------------------------------------------------------------ the lab

N_DATA = 6
N_RESULTS = 24


def lab_dataset(tmp_path):
    """Six good rows (one of whose images is missing from the ZIP) and one bad row in between:
    five items are ready, and the report lists line 4 (the missing image) before line 5 (the
    bad row), though they are found by different checks."""
    archive = io.BytesIO()
    rows = []
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(N_DATA):
            if i != 3:
                z.writestr(f"img{i}.png", _png(8, 6, lambda x, y, i=i: (40 * i % 256, 90, 160)))
            rows.append(json.dumps({"id": f"photo-{i}", "task": "ic", "text": f"A long caption number {i} about a dog that runs across a very wide park, to see it wrap.",
                                    "image": f"img{i}.png", "human_overall": i % 5 + 1}))
    rows.insert(4, json.dumps({"task": "ic", "text": "This row has no id at all.", "image": "img0.png"}))
    data = tmp_path / "layout-dataset.jsonl"
    data.write_text("\n".join(rows) + "\n")
    images = tmp_path / "layout-images.zip"
    images.write_bytes(archive.getvalue())
    return data, images


def lab_results(tmp_path):
    """A HarmonicEval results file with human ratings and best-of-N groups, as the lab exports."""
    lines = []
    for i in range(N_RESULTS):
        human = i % 5 + 1
        crits = []
        for k, c in enumerate(CRITERIA):
            p = [0.05] * 5
            p[(human + k) % 5 if k else human - 1] = 0.8
            mean = sum((j + 1) * q for j, q in enumerate(p))
            var = sum((j + 1 - mean) ** 2 * q for j, q in enumerate(p))
            crits.append({"name": c, "score": mean, "sigma": var ** 0.5, "distribution": p})
        record = {
            "id": f"an-item-with-a-rather-long-identifier-{i:02d}", "metric": "harmonic_eval", "task": "ic",
            "text": f"Caption {i}: a dog runs across the park.", "image": f"img{i:02d}.png", "criteria": crits,
            "human": {"overall": [human]}, "group": f"g{i // 4}", "chosen": i % 4 == 3,
        }
        if i == 7:
            crits[2] = {"name": "clarity", "error": "The server answered 500."}
            # What the lab keeps to open an item in the evaluator: its details offer the button.
            record["kept"] = {"model": "gpt-4o", "provider": "openai",
                              "coverage": {c["name"]: 0.9 for c in crits if "score" in c}}
        lines.append(json.dumps(record))
    path = tmp_path / "layout-results.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def open_lab(driver, app_url):
    page = AppPage(driver, app_url + "lab/")
    page.wait_for(lambda d: d.find_elements(*tid("dataset-input")), "the batch view")
    return page


def import_results(page, path):
    page.d.execute_script("arguments[0].style.display='block'", page.el("results-input"))
    page.el("results-input").send_keys(str(path))
    page.wait_for(lambda d: page.el("batch-progress").get_attribute("data-total") == str(N_RESULTS), "the results to load")
    page.wait_for(lambda d: d.find_elements(*tid("sweep-best-gamma")), "the sweep")


@pytest.mark.parametrize("theme", THEMES)
def test_lab_layout_and_accessibility(checker_for, app_url, tmp_path, theme):
    driver, check = checker_for("lab", theme)
    page = open_lab(driver, app_url)
    light_bg = body_background(driver)
    assert light_bg == ("rgb(20, 21, 28)" if theme == "dark" else "rgb(247, 247, 251)")
    # OpenAI itself: the longest button (the Batch API) is on the page.
    Select(page.el("preset-select")).select_by_value("openai")
    assert driver.find_elements(*tid("submit-openai-batch-button"))
    check.check("before")

    data, images = lab_dataset(tmp_path)
    page.el("dataset-input").send_keys(f"{data}\n{images}")
    page.wait_for(lambda d: page.el("import-report").text, "the import report")
    page.wait_for(lambda d: page.el("batch-progress").get_attribute("data-total") == str(N_DATA - 1), "the dataset to load")
    check.check("dataset")

    results = lab_results(tmp_path)
    import_results(page, results)
    # A second run to compare with (one item's score moved), and a row opened: the comparison
    # tables and the details are part of the page that is checked.
    lines = [json.loads(l) for l in results.read_text().splitlines()]
    lines[3]["criteria"] = [dict(c, score=1.5) for c in lines[3]["criteria"]]
    other = tmp_path / "layout-second-run.jsonl"
    other.write_text("".join(json.dumps(l) + "\n" for l in lines))
    page.el("lab-compare-input").send_keys(str(other))
    page.wait_for(lambda d: d.find_elements(*tid("compare-changes")), "the comparison")
    # Issue 33: the intervals, the paired comparison and judge against judge are on the page checked.
    page.wait_for(lambda d: page.el("meta-overall-tau-b").get_attribute("data-ci-low"), "the intervals")
    page.wait_for(lambda d: d.find_elements(*tid("compare-tau-b")) and page.el("compare-tau-b").get_attribute("data-p"),
                  "the paired comparison")
    assert driver.find_elements(*tid("judge-agreement-overall"))
    driver.find_element("css selector", '[data-testid="result-an-item-with-a-rather-long-identifier-07"]').click()
    page.wait_for(lambda d: d.find_elements(*tid("result-detail")), "the detail")
    assert driver.find_elements(*tid("open-in-evaluator-an-item-with-a-rather-long-identifier-07"))
    check.check("results")
    check.done(["before", "dataset", "results"])


def test_the_import_report_counts_only_ready_items_in_line_order(browser, app_url, tmp_path):
    page = open_lab(browser, app_url)
    data, images = lab_dataset(tmp_path)
    page.el("dataset-input").send_keys(f"{data}\n{images}")
    page.wait_for(lambda d: page.el("batch-progress").get_attribute("data-total") == str(N_DATA - 1), "the dataset to load")
    report = [li.text for li in page.el("import-report").find_elements("css selector", "li")]
    assert [r.split(":")[0] for r in report] == ["Line 4", "Line 5"], report
    assert "img3.png" in report[0] and "left out" in report[0] and "missing id" in report[1]
    ready = page.el("import-ready")
    assert (ready.get_attribute("data-ready"), ready.get_attribute("data-left-out")) == (str(N_DATA - 1), "1")
    assert ready.text.startswith(f"{N_DATA - 1} items ready, 1 left out")


def test_the_best_gamma_label_stays_clear_of_the_panel_title(browser, app_url, tmp_path):
    """Judge and humans agree perfectly: τ-b is 100 at every γ, so the best γ's diamond sits on
    the top edge of the τ panel, right under the panel's title. Its label goes below it."""
    lines = []
    for i in range(10):
        human = i % 5 + 1
        p = [0.05] * 5
        p[human - 1] = 0.8
        mean = sum((j + 1) * q for j, q in enumerate(p))
        sd = sum((j + 1 - mean) ** 2 * q for j, q in enumerate(p)) ** 0.5
        crits = [{"name": c, "score": mean, "sigma": sd, "distribution": p} for c in CRITERIA]
        lines.append(json.dumps({"id": f"item-{i}", "metric": "harmonic_eval", "task": "ic", "text": f"Caption {i}.",
                                 "image": f"img{i}.png", "criteria": crits, "human": {"overall": [human]}}))
    path = tmp_path / "agreeing-results.jsonl"
    path.write_text("\n".join(lines) + "\n")
    page = open_lab(browser, app_url)
    page.d.execute_script("arguments[0].style.display='block'", page.el("results-input"))
    page.el("results-input").send_keys(str(path))
    page.wait_for(lambda d: d.find_elements(*tid("sweep-best-gamma")), "the sweep")
    for width in (390, 1280):
        browser.set_window_size(width, 900)
        boxes = browser.execute_script("""
            const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
            const svg = document.querySelector('[data-testid=gamma-sweep] svg');
            return {label: box(svg.querySelector('.best-label')), titles: [...svg.querySelectorAll('.panel-title')].map(box),
                    mark: box(svg.querySelector('.best-mark'))};""")
        l = boxes["label"]
        for t in boxes["titles"]:
            apart = l[2] <= t[0] or t[2] <= l[0] or l[3] <= t[1] or t[3] <= l[1]
            assert apart, f"at {width} px the best-γ label {l} overlaps a panel title {t}"
        assert l[1] >= boxes["mark"][1], f"at {width} px the label sits below the diamond: {boxes}"


def test_the_batch_api_is_offered_only_for_openai(browser, app_url):
    page = open_lab(browser, app_url)
    for preset, offered in [("openai", True), ("llama_server", False), ("ollama", False), ("vllm", False), ("custom", False), ("openai", True)]:
        Select(page.el("preset-select")).select_by_value(preset)
        page.wait_for(lambda d: bool(d.find_elements(*tid("submit-openai-batch-button"))) == offered, f"the Batch API button for {preset}")


def test_the_lab_works_from_the_keyboard(browser, app_url, tmp_path):
    page = open_lab(browser, app_url)
    import_results(page, lab_results(tmp_path))
    d = browser
    active = lambda: d.switch_to.active_element  # noqa: E731

    # Sorting: the sorted header says how, the others say nothing.
    sort = page.el("sort-overall")
    sort.send_keys(Keys.ENTER)
    th = lambda c: page.el(f"sort-{c}").find_element("xpath", "..")  # noqa: E731
    page.wait_for(lambda _: th("overall").get_attribute("aria-sort") == "descending", "aria-sort on Overall")
    assert th("id").get_attribute("aria-sort") is None
    page.el("sort-overall").send_keys(Keys.ENTER)
    page.wait_for(lambda _: th("overall").get_attribute("aria-sort") == "ascending", "ascending")

    # A row opens with Enter: the details take focus, the row is marked; Escape gives it back.
    rid = "an-item-with-a-rather-long-identifier-05"
    button = d.find_element("css selector", f'[data-testid="result-{rid}"] button.row-open')
    assert button.get_attribute("aria-expanded") == "false"
    button.send_keys(Keys.ENTER)
    page.wait_for(lambda _: d.find_elements(*tid("result-detail")), "the detail")
    page.wait_for(lambda _: active().get_attribute("id") == "result-detail-panel", "focus in the detail")
    assert rid in page.el("result-detail").text
    row = page.el(f"result-{rid}")
    assert "selected" in row.get_attribute("class") and row.get_attribute("aria-current") == "true"
    assert button.get_attribute("aria-expanded") == "true"
    # The selection is visible: the row's background differs from an unselected row's.
    other = page.el("result-an-item-with-a-rather-long-identifier-06")
    bg = lambda e: d.execute_script("return getComputedStyle(arguments[0]).backgroundColor;", e)  # noqa: E731
    assert bg(row) != bg(other)
    active().send_keys(Keys.ESCAPE)
    page.wait_for(lambda _: not d.find_elements(*tid("result-detail")), "the detail to close")
    page.wait_for(lambda _: active().get_attribute("data-id") == rid, "focus back on the row")
    # Space opens it too; a mouse click on the row still does.
    active().send_keys(Keys.SPACE)
    page.wait_for(lambda _: d.find_elements(*tid("result-detail")), "the detail (Space)")
    cell = other.find_elements("css selector", "td")[1]
    d.execute_script("arguments[0].scrollIntoView({block: 'center'});", cell)
    cell.click()
    page.wait_for(lambda _: "identifier-06" in page.el("result-detail").text, "the clicked row's detail")

    # The sweep: focusable, the arrow keys move γ, the readout follows; the best γ is marked.
    best = page.el("sweep-best-gamma")
    g_best = float(best.get_attribute("data-value"))
    assert 0.01 <= g_best <= 1 and f"{g_best:.2f}" in best.text
    table_rows = d.find_elements("css selector", '[data-testid="sweep-table"] tbody tr')
    assert len(table_rows) == 100
    svg = d.find_element("css selector", '[data-testid="gamma-sweep"] svg')
    gamma = lambda: float(page.el("gamma-value").text)  # noqa: E731
    before = gamma()
    svg.send_keys(Keys.ARROW_RIGHT)
    page.wait_for(lambda _: abs(gamma() - (before + 0.01)) < 1e-9, "γ + 0.01")
    svg.send_keys(Keys.PAGE_DOWN)
    page.wait_for(lambda _: abs(gamma() - (before - 0.09)) < 1e-9, "γ − 0.1")
    svg.send_keys(Keys.HOME)
    page.wait_for(lambda _: gamma() == 0.01, "γ at its minimum")
    assert svg.get_attribute("aria-valuenow") == "0.01"
    assert page.el("sweep-readout").text.startswith("γ = 0.01: τ-b ")
    assert "γ = 0.01" in svg.get_attribute("aria-valuetext")
    # The best γ, one press away.
    best.find_element("css selector", "button").send_keys(Keys.ENTER)
    page.wait_for(lambda _: abs(gamma() - g_best) < 1e-9, "γ at the best value")


# ------------------------------------------------------------------ the evaluator


@pytest.mark.parametrize("theme", THEMES)
def test_evaluator_layout_and_accessibility(checker_for, app_url, tmp_path, theme):
    fake = FakeOpenAI(delay=0.05)
    try:
        driver, check = checker_for("evaluator", theme)
        page = AppPage(driver, app_url)
        check.check("before")
        page.set_backend(fake.url, "gpt-4o", "sk-test-layout-0123456789")
        photo = tmp_path / "photo.png"
        photo.write_bytes(_png(160, 120, lambda x, y: (90, 120, 160)))
        page.upload(photo)
        page.wait_image()
        page.fill("text-input", "A dog runs across a grassy park.")
        page.evaluate()
        page.wait_settled()
        assert page.overall() is not None
        # The γ plot is on the full 1–5 scale, not zoomed to the curve.
        plot = page.el("gamma-plot")
        assert (plot.get_attribute("data-y-min"), plot.get_attribute("data-y-max")) == ("1", "5")
        ticks = [t.text for t in plot.find_elements("css selector", "text.tick")]
        assert ["1", "2", "3", "4", "5"] == ticks[:5]
        # Its numbers as a table: γ = 0.01, 0.1, …, 1, the row at 0.75 being the score shown.
        cells = driver.execute_script(
            "return [...document.querySelectorAll('[data-testid=gamma-table] tbody tr')].map(r => [...r.cells].map(c => c.textContent));")
        assert [c[0] for c in cells] == ["0.01"] + [f"{i / 10:.2f}" for i in range(1, 11)]
        assert all(1 <= float(c[1]) <= 5 for c in cells)
        check.check("after")
        # Issue 19: an example from the gallery, with the weights chart and its table open.
        page.el("demo-gamma-flip-a").click()
        page.wait_for(lambda d: page.el("opened-note").is_displayed(), "the example")
        driver.execute_script("document.querySelectorAll('details').forEach(d => d.open = true);")
        check.check("example")
        # Issue 29: present mode, for a projector (only the score, γ and its charts).
        page.el("present-button").click()
        check.check("present")
        page.el("present-button").click()
        # A full disk: the storage sentence under the run bar (here a setting's; the cache's,
        # which needs an origin that has not written yet, is in test_faults) and the theme's
        # beside the switch (switched there and back, so the emulated theme still shows).
        origin = refuse_storage(driver)
        try:
            page.fill("model-input", "gpt-4o-mini")
            page.wait_for(lambda d: page.el("storage-error").text, "the storage sentence")
            for _ in range(2):
                driver.find_element("css selector", ".theme-toggle").click()
            page.wait_for(lambda d: d.find_elements("css selector", '[data-testid="theme-not-kept"]'), "the theme sentence")
            check.check("storage-refused")
        finally:
            allow_storage(driver, origin)
        # Three candidates compared (issue 21): table, plot, flips, the pick and the agreement.
        from test_candidates import TEXTS, opinion

        fake.dist_for = opinion
        page.add_candidate()
        page.add_candidate()
        for i, label in enumerate("ABC"):
            page.fill(f"candidate-text-{i}", TEXTS[label])
        page.evaluate()
        from test_candidates import attr as cand_attr

        cells = [f"candidate-{i}-{c}" for i in range(3) for c in ("correctness", "completeness", "clarity", "fluency", "conciseness")]
        page.wait_for(lambda d: all(cand_attr(page, t, "data-state") == "done" for t in cells), "the three candidates", 30)
        assert cand_attr(page, "ranking", "data-order") == "B,A,C"
        page.el("prefer-0").click()
        assert cand_attr(page, "agreement", "data-value") == "disagree"
        check.check("candidates")
        # The same for a metric without γ: scores with the judge's uncertainty, differences.
        from test_candidates_plain import FLEUR_TEXTS, fleur_script

        fake.script = fleur_script
        Select(page.el("metric-select")).select_by_value("fleur")
        for i, label in enumerate("ABC"):
            page.fill(f"candidate-text-{i}", FLEUR_TEXTS[label])
        page.evaluate()
        page.wait_for(lambda d: all(cand_attr(page, f"candidate-result-{i}", "data-state") == "done" for i in range(3)), "the FLEUR candidates", 30)
        assert cand_attr(page, "ranking", "data-order") == "A,B,C"
        assert cand_attr(page, "difference-0", "data-exceeds") == "no"
        page.el("prefer-1").click()
        check.check("candidates-fleur")
        check.done(["before", "after", "example", "present", "storage-refused", "candidates", "candidates-fleur"])
    finally:
        fake.stop()


@pytest.mark.parametrize("theme", THEMES)
def test_ratings_set_by_hand_layout_and_accessibility(checker_for, app_url, theme):
    """Issue 44: the by-hand panel, a refused criterion and present mode at 390, 1024 and 1280 px."""
    from test_by_hand import open_hand, type_bar

    widths = [390, 1024, 1280]
    driver, check = checker_for("evaluator", theme)
    page = AppPage(driver, app_url)
    open_hand(page)
    page.el("hand-step-3").click()
    check.check("by-hand", widths)
    for k in range(1, 6):
        type_bar(page, "conciseness", k, 0)
    page.wait_for(lambda d: page.el("hand-refused-conciseness").text, "the refusal")
    check.check("by-hand-refused", widths)
    page.el("present-button").click()
    check.check("by-hand-present", widths)
    check.done(["by-hand", "by-hand-refused", "by-hand-present"], widths)


# ------------------------------------------------------------------ scatter, comparison, sample


def test_scatter_comparison_and_sample_dataset(browser, app_url, tmp_path, downloads):
    page = open_lab(browser, app_url)
    d = browser

    # The sample dataset is a download from the import box, and it imports as it is.
    link = page.el("sample-dataset-link")
    assert link.get_attribute("download") == "sample-dataset.zip"
    link.click()
    sample = page.wait_file(downloads, "sample-dataset.zip")
    with zipfile.ZipFile(sample) as z:
        names = set(z.namelist())
        rows = [json.loads(l) for l in z.read("dataset.jsonl").decode().splitlines() if l.strip()]
    assert "dataset.jsonl" in names and {r["image"] for r in rows} <= names
    page.el("dataset-input").send_keys(str(sample))
    page.wait_for(lambda _: page.el("batch-progress").get_attribute("data-total") == str(len(rows)), "the sample to load")
    assert page.el("import-ready").get_attribute("data-left-out") == "0"
    assert page.el("import-report").text == ""

    # The scatter plot shows every item that has a score and a human rating.
    path = lab_results(tmp_path)
    import_results(page, path)
    scatter = page.el("scatter-plot")
    page.wait_for(lambda _: scatter.get_attribute("data-points") == str(N_RESULTS - 1), "the scatter")
    dots = scatter.find_element(*tid("scatter-dots"))
    assert dots.get_attribute("d").count("M") == N_RESULTS - 1, "one dot per item, all in one path"
    assert scatter.get_attribute("data-drawn") == str(N_RESULTS - 1), "every item is drawn"
    assert 1 <= len(scatter.find_elements("css selector", "circle.dot")) <= 6, "only the clickable ones are elements"
    table_ids = d.execute_script("return [...document.querySelectorAll('[data-testid=scatter-table] tbody th')].map(c => c.textContent);")
    assert len(table_ids) == N_RESULTS - 1 and "an-item-with-a-rather-long-identifier-07" not in table_ids, "the partial item is left out"
    # Sorting by disagreement puts the items they disagree on most first, with the gap the list
    # below gives for the worst one.
    worst = page.el("disagreements").find_element("css selector", "li").text
    page.el("sort-disagreement").click()
    page.wait_for(lambda _: page.el("sort-disagreement").find_element("xpath", "..").get_attribute("aria-sort") == "descending", "the sort")
    gaps = d.execute_script("return [...document.querySelectorAll('tbody tr[data-testid^=result-] [data-testid=result-gap]')].map(c => c.textContent);")
    numbers = [float(g.rstrip(" %")) for g in gaps if g != "–"]
    assert numbers == sorted(numbers, reverse=True) and len(numbers) == N_RESULTS - 1, gaps
    assert worst.endswith(f"rank gap {numbers[0]:.0f} %"), (worst, numbers[0])
    assert numbers[0] > numbers[-1]
    # The item they disagree on most is one press away.
    first = page.el("disagreements").find_element("css selector", "li button")
    first.send_keys(Keys.ENTER)
    page.wait_for(lambda _: first.text in page.el("result-detail").text, "the disagreeing item's details")

    # A second run of the same dataset: two items' scores moved, one lost its score.
    lines = [json.loads(l) for l in path.read_text().splitlines()]
    lines[0]["criteria"] = [dict(c, score=1.0) for c in lines[0]["criteria"]]
    lines[1]["criteria"] = [dict(c, score=5.0, sigma=0.2) for c in lines[1]["criteria"]]
    lines[2]["criteria"] = [{"name": c["name"], "error": "timed out"} for c in lines[2]["criteria"]]
    other = tmp_path / "second-run.jsonl"
    other.write_text("".join(json.dumps(l) + "\n" for l in lines))
    page.el("lab-compare-input").send_keys(str(other))
    page.wait_for(lambda _: d.find_elements(*tid("compare-table")), "the comparison")
    changes = page.el("compare-changes")
    assert changes.get_attribute("data-changed") == "3"
    listed = [r.get_attribute("data-testid") for r in changes.find_elements("css selector", "tbody tr")]
    assert listed[0] == "compare-" + lines[2]["id"], "a lost score is the largest change"
    assert set(listed) == {"compare-" + lines[i]["id"] for i in range(3)}
    # Issue 33: the paired comparison, once this page's results have rested for a second.
    page.wait_for(lambda _: d.find_elements(*tid("compare-tau-b")) and page.el("compare-tau-b").get_attribute("data-diff"),
                  "the paired comparison")
    row = page.el("compare-tau-b")
    tau = [c.text for c in row.find_elements("css selector", "td")]
    assert "–" not in tau[:2]
    assert float(row.get_attribute("data-diff")) == pytest.approx(float(tau[1]) - float(tau[0]), abs=0.11)
