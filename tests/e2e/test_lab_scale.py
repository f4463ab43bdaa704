"""End-to-end: the lab at scale (issue 17.5). A run of a 100,000-item dataset with about 98,000
results already stored stays responsive while results arrive from a loopback OpenAI-format
server answering at once (a click on a sort button is handled within a bound, and no task
freezes the page for long); a results file of a million JSONL lines, or a quarter of a
million CSV records, is read in pieces with a progress bar that moves, no task longer than a
second while it is read, and every result is loaded; and a 100,000-line dataset import says
what it is doing. The stored run is written straight into the app's
IndexedDB with the records `lab::stored_run` defines (as `scripts/bench_lab_scale.py` does)."""
import sys
import time
from pathlib import Path

import pytest

from app_page import AppPage, tid
from conftest import _png
from fakes.openai import FakeOpenAI

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import bench_lab_scale as scale  # noqa: E402

ITEMS = 100_000
NEW = 1_500
MILLION = 1_000_000
CSV_LINES = 250_000

LONG_TASKS_SINCE = """
const t0 = arguments[0];
return window.__hjLong.filter(([start]) => start >= t0).map(([, d]) => d);
"""


# What a person feels of a click: from the input event (its timeStamp, when the browser took it)
# to the first frame after the header says the new order and the rows have been redrawn. Timed
# in the page: a WebDriver round trip waits for a busy main thread too, so timing the clicks
# from Python measured the driver's polling (1.8-3.1 s where the page took 0.3 s).
PROBE_JS = """
const p = window.__hjProbe = {};
const body = document.querySelector('[data-testid=results-table] tbody');
document.addEventListener('click', e => {
  if (e.target.closest('.sort')) p.input = e.timeStamp;
}, {capture: true, once: true});
const framed = () => requestAnimationFrame(() => setTimeout(() => {
  if (p.header !== undefined && p.rows !== undefined && p.shown === undefined) p.shown = performance.now();
}));
const watch = new MutationObserver(records => {
  if (p.input === undefined) return;
  for (const r of records) {
    if (r.type === 'attributes' && p.header === undefined) p.header = performance.now();
    if (r.type === 'childList' && p.rows === undefined) p.rows = performance.now();
  }
  if (p.header !== undefined && p.rows !== undefined) { watch.disconnect(); framed(); }
});
watch.observe(document.querySelector('[data-testid=results-table]'),
  {attributes: true, subtree: true, attributeFilter: ['aria-sort']});
watch.observe(body, {childList: true});
"""


def sort_latency(page, column, descending):
    """Seconds from a click on a sort button (the input event) to the first frame showing the
    new order, timed in the page."""
    want = "descending" if descending else "ascending"
    header = lambda: page.el(f"sort-{column}").find_element("xpath", "..")  # noqa: E731
    page.d.execute_script(PROBE_JS)
    page.el(f"sort-{column}").click()
    page.wait_for(lambda d: header().get_attribute("aria-sort") == want, f"the {column} sort", 60)
    page.wait_for(lambda d: d.execute_script("return window.__hjProbe.shown !== undefined"),
                  f"the {column} sort's rows on screen", 60)
    p = page.d.execute_script("return window.__hjProbe")
    return (p["shown"] - p["input"]) / 1000


def test_a_100k_item_run_stays_responsive_while_results_arrive(browser, app_url):
    d = browser
    fake = FakeOpenAI(delay=0.0)
    fake.script = [("0", [("0", 1.0)]), (".", [(".", 1.0)]), ("85", [("85", 0.6), ("8", 0.4)])]
    try:
        page = AppPage(d, app_url + "lab/")
        d.set_script_timeout(600)
        d.execute_async_script(scale.CLEAR_JS)
        page.set_backend(fake.url, "gpt-4o", "sk-scale-123456")
        seeded = d.execute_async_script(scale.SEED_JS, ITEMS - NEW, NEW, scale.tiny_zip(_png(16, 12, lambda x, y: (200, 80, 40))))
        assert seeded.startswith("run-bench"), seeded
        page = AppPage(d, app_url + "lab/")
        page.wait_for(lambda dd: dd.find_elements(*tid("resume-run-button")), "the offer to resume", 300)
        d.execute_script(scale.OBSERVE_JS)
        page.el("resume-run-button").click()
        page.wait_for(lambda dd: scale.progress(page)[1] == "running", "the run to start", 300)
        t0 = d.execute_script("return performance.now()")
        started = time.monotonic()
        latencies = []
        # Clicks while results arrive and are shown (a showing at 100k stored is the costly part).
        for k in range(4):
            page.wait_for(lambda dd: scale.progress(page)[0] >= ITEMS - NEW + 200 * (k + 1) or scale.progress(page)[1] != "running",
                          "more results", 120)
            if scale.progress(page)[1] != "running":
                break
            latencies.append(sort_latency(page, "overall" if k % 2 == 0 else "id", k % 2 == 0))
        page.wait_for(lambda dd: scale.progress(page)[1] == "finished", "the run to finish", 600)
        wall = time.monotonic() - started
        assert scale.progress(page)[0] == ITEMS
        long = d.execute_script(LONG_TASKS_SINCE, t0)
        print(f"100k run: {NEW} results in {wall:.1f} s; click latencies {[round(x, 2) for x in latencies]} s; "
              f"longest task {max(long, default=0):.0f} ms; long tasks {sum(long) / 1000:.1f} s in all")
        assert len(latencies) >= 2, "clicks were made while the run was going"
        # The probe's tab was frozen 47 of 53 s at 100k, with single tasks of seconds. Here a
        # click was on screen 0.3-0.4 s after the input, and the longest task was 0.3-0.9 s on
        # the shared 2-core machine, 1.7 s when it was loaded; the bounds leave room for that load.
        assert max(latencies) < 1.5, latencies
        assert max(long, default=0) < 2500, max(long)
        assert sum(long) / 1000 < 0.5 * wall, (sum(long), wall)
        # Every number is the full recomputation's: the sweep has all its points over all items.
        page.wait_for(lambda dd: page.el("gamma-sweep").get_attribute("data-points") == "100", "the sweep", 60)
        assert page.el("meta-items").get_attribute("data-used") == str(ITEMS)
    finally:
        fake.stop()


@pytest.fixture(scope="session")
def million_results(tmp_path_factory):
    """A results JSONL file of a million FLEUR results with human ratings (written once)."""
    path = tmp_path_factory.mktemp("million") / "results.jsonl"
    started = time.monotonic()
    with path.open("w") as f:
        for i in range(MILLION):
            f.write(f'{{"id":"r{i:07d}","metric":"fleur","task":"ic","score":{(i % 997) / 997:.4f},'
                    f'"human":{{"overall":[{1 + i % 5}]}}}}\n')
    print(f"the million-line file: {path.stat().st_size:,} bytes in {time.monotonic() - started:.1f} s")
    return path


@pytest.fixture(scope="session")
def csv_results(tmp_path_factory):
    """A results CSV of a quarter of a million FLEUR results with human ratings, one of whose
    texts holds a quoted line end (so the file cannot be cut at line ends)."""
    path = tmp_path_factory.mktemp("csv") / "results.csv"
    with path.open("w", newline="") as f:
        f.write("id,metric,task,text,score,human_overall\r\n")
        for i in range(CSV_LINES):
            text = '"two\nlines, ""quoted"""' if i == 7 else f"caption {i}"
            f.write(f"r{i:07d},fleur,ic,{text},{(i % 997) / 997:.4f},{1 + i % 5}\r\n")
    return path


SHARES_JS = """
window.__hjShares = [];
const bar = () => document.querySelector('[data-testid="results-import-progress"]');
window.__hjShareObserver = new MutationObserver(() => {
  const b = bar();
  const v = b ? parseFloat(b.getAttribute('data-share')) : NaN;
  if (!Number.isNaN(v)) window.__hjShares.push(v);
});
window.__hjShareObserver.observe(document.body, {subtree: true, childList: true, attributes: true,
                                                attributeFilter: ['data-share']});
"""


@pytest.mark.parametrize("kind", ["jsonl", "csv"])
def test_a_large_result_import_shows_progress_and_finishes(browser, app_url, kind, request):
    """A million JSONL results, or a quarter of a million CSV ones (read in one step before)."""
    d = browser
    million_results = request.getfixturevalue("million_results" if kind == "jsonl" else "csv_results")
    expected = MILLION if kind == "jsonl" else CSV_LINES
    page = AppPage(d, app_url + "lab/")
    page.wait_for(lambda dd: dd.find_elements(*tid("results-input")), "the lab")
    d.execute_script(scale.OBSERVE_JS)
    t0 = d.execute_script("return performance.now()")
    started = time.monotonic()
    # Every share the bar shows, recorded in the page as it changes: polling from here saw only
    # two of them when the machine read the CSV in under 2 s (a CI run).
    d.execute_script(SHARES_JS)
    page.el("results-input").send_keys(str(million_results))
    page.wait_for(lambda dd: "Loaded" in page.el("batch-message").text, "the results to load", 600)
    loaded = time.monotonic() - started
    shares = d.execute_script("window.__hjShareObserver.disconnect(); return window.__hjShares;")
    long = d.execute_script(LONG_TASKS_SINCE, t0)
    print(f"{kind} import of {expected:,}: loaded in {loaded:.1f} s; the bar showed {len(shares)} shares, {sorted(set(shares))[:3]}…"
          f"{sorted(set(shares))[-3:]}; longest task {max(long, default=0):.0f} ms")
    for name, total, count, worst in d.execute_script(scale.MEASURES_JS, t0):
        print(f"    {name:16} {total:9.0f} in all over {count:5} times, longest {worst:6.0f}")
    # While the file is read (the measure the page takes around it), no task holds the page
    # long; the one-step reading was a single task of many seconds.
    read_end = d.execute_script("const m = performance.getEntriesByName('hj-read-results'); return m.length ? m[m.length - 1].startTime + m[m.length - 1].duration : null")
    assert read_end is not None
    reading_tasks = [dur for (start, dur) in d.execute_script("return window.__hjLong") if t0 <= start and start + dur <= read_end]
    after = [dur for (start, dur) in d.execute_script("return window.__hjLong") if start + dur > read_end]
    print(f"  longest task while reading {max(reading_tasks, default=0):.0f} ms; first analysis {max(after, default=0):.0f} ms")
    assert max(reading_tasks, default=0) < 1000, reading_tasks
    # The first analysis of a million results is still one task: 1.6 s here, 5 s with the
    # machine loaded (it was 3-5 s unloaded before the analysis stopped copying every result;
    # the probe's tab froze 17-33 s).
    assert max(after, default=0) < 10000, after
    assert f"Loaded {expected} results" in page.el("batch-message").text
    assert not d.find_elements(*tid("results-import-progress")), "the bar goes once read"
    moving = sorted(set(s for s in shares if 0 < s < 1))
    assert len(moving) >= 3, f"the bar moved while reading: {shares[:20]}"
    assert shares == sorted(shares), "the bar never goes back"
    e = page.el("batch-progress")
    assert int(e.get_attribute("data-done")) == expected


def test_a_100k_line_dataset_import_says_what_it_is_doing(browser, app_url, tmp_path):
    """Importing the largest dataset allowed holds the tab for a moment while its lines and
    images are checked: the page says so (a status line that names the number of lines) before
    that, and clears it once the items are ready."""
    import io
    import zipfile
    d = browser
    rows = [f'{{"id":"item-{i:06d}","task":"ic","text":"Caption {i}: a dog runs.","image":"img.png"}}'
            for i in range(ITEMS)]
    data = tmp_path / "big.jsonl"
    data.write_text("\n".join(rows) + "\n")
    images = tmp_path / "images.zip"
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("img.png", _png(16, 12, lambda x, y: (200, 80, 40)))
    images.write_bytes(archive.getvalue())
    page = AppPage(d, app_url + "lab/")
    page.wait_for(lambda dd: dd.find_elements(*tid("dataset-input")), "the lab")
    d.execute_script("""
        window.__hjSaid = [];
        const el = document.querySelector('[data-testid=dataset-import-progress]');
        new MutationObserver(() => { const t = el.textContent.trim(); if (t) window.__hjSaid.push([performance.now(), t]); })
            .observe(el, {childList: true, characterData: true, subtree: true});
    """)
    started = time.monotonic()
    page.el("dataset-input").send_keys(f"{data}\n{images}")
    page.wait_for(lambda dd: page.el("import-ready").get_attribute("data-ready") == str(ITEMS), "the dataset to load", 300)
    wall = time.monotonic() - started
    said = [t for _, t in d.execute_script("return window.__hjSaid")]
    print(f"100k-line import: {wall:.1f} s; said {said}")
    assert said and said[0] == "Reading the chosen files\u2026", said
    assert "Checking 100,000 lines and their images\u2026" in said, said
    page.wait_for(lambda dd: page.el("dataset-import-progress").text == "", "the status to clear", 30)
    assert page.el("import-report").text == ""
