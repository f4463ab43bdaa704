"""Issue 30: every result from outside (a share link, a result file, a history entry, the lab's
hand-over, an example) passes one gate. Each case of the adversarial probe is replayed here and
timed with the browser's own long-task timings (a PerformanceObserver for 'longtask', installed
before the page's first script): no main-thread task of 200 ms or more, whether the input is
refused or shown. Memory is read from the renderer process (its peak resident size, VmHWM, and
its size after the refusal) and from DevTools' JS heap.

Each test waits for an outcome (a sentence, or the result shown) before it measures, so run
against an older build it prints the old timings and then fails on them (`-s` shows them)."""

import base64
import json
import os
import time
import zlib
from pathlib import Path

import pytest

from app_page import AppPage
from test_examples import _shared_doc, open_example

LONG_TASK_MS = 200
EXAMPLES = Path(__file__).resolve().parents[2] / "public" / "examples"

OBSERVER = """
window.__longtasks = [];
window.__mounted = null;
new MutationObserver((_, seen) => {
    if (document.querySelector('[data-testid="metric-select"]')) { window.__mounted = performance.now(); seen.disconnect(); }
}).observe(document, {childList: true, subtree: true});
new PerformanceObserver(list => {
    for (const e of list.getEntries()) window.__longtasks.push([Math.round(e.startTime), Math.round(e.duration)]);
}).observe({type: 'longtask', buffered: true});
"""


def watch(driver):
    """Long tasks are recorded from the start of every page this driver loads from now on."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": OBSERVER})
    driver.execute_cdp_cmd("Performance.enable", {})


def example(name):
    return json.loads((EXAMPLES / f"{name}.json").read_text())


def link(app_url, doc_text, level=9):
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    raw = c.compress(doc_text.encode()) + c.flush()
    return app_url + "#r=" + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _renderers(driver):
    """The renderer processes of this test's Chromium (descendants of its chromedriver)."""
    parent = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                stat = Path(f"/proc/{p}/stat").read_text()
                parent[int(p)] = int(stat.rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    root, mine = driver.service.process.pid, set()
    for pid in parent:
        q = pid
        while q and q in parent and q != root:
            q = parent[q]
        if q == root:
            mine.add(pid)
    out = []
    for pid in mine:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"--type=renderer" in cmd and b"--extension-process" not in cmd:
            out.append(pid)
    return out


def _status_mb(pid, field):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def measure(driver, what):
    """Long tasks, JS heap, and the renderers' peak and present resident memory, printed. The
    task that mounts the app (it starts before the app is first seen in the page) is the same
    whatever the input, and on this shared machine it alone passes 200 ms now and then: it is
    reported apart. The app opens a link or a hand-over in a task of its own after it, so none
    of their work can hide in it."""
    time.sleep(0.5)  # the observer hears of a task after it ends
    all_tasks, mounted = driver.execute_script("return [window.__longtasks || [], window.__mounted];")
    assert mounted is not None, "the app never mounted"
    mount = [d for s, d in all_tasks if s <= mounted]
    tasks = [[s, d] for s, d in all_tasks if s > mounted]
    heap = {m["name"]: m["value"] for m in driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]}
    pids = _renderers(driver)
    peak = max((_status_mb(p, "VmHWM") for p in pids), default=0.0)
    now = max((_status_mb(p, "VmRSS") for p in pids), default=0.0)
    longest = max((d for _, d in tasks), default=0)
    m = {"longest_ms": longest, "main_thread_long_ms": sum(d for _, d in tasks), "tasks": tasks,
         "js_heap_mb": round(heap.get("JSHeapUsedSize", 0) / 2**20, 1),
         "renderer_peak_mb": round(peak), "renderer_now_mb": round(now)}
    m["mount_ms"] = max(mount, default=0)
    print(f"\n[gate] {what}: longest task {longest} ms, long tasks {m['main_thread_long_ms']} ms in all"
          f" (mount {m['mount_ms']} ms),"
          f" JS heap {m['js_heap_mb']} MB, renderer peak {m['renderer_peak_mb']} MB, now {m['renderer_now_mb']} MB")
    return m


def within_bound(m):
    assert m["longest_ms"] < LONG_TASK_MS, f"a main-thread task took {m['longest_ms']} ms: {m['tasks']}"


def problems(page):
    found = page.d.find_elements("css selector", "[data-testid='form-problems']")
    return found[0].text if found else ""


def wait_outcome(page, what, timeout=120):
    """Waits for a sentence or a shown score, whichever comes (an old build shows the result)."""
    page.wait_for(lambda d: problems(page) or page.overall() is not None, what, timeout)


def fresh(driver, url):
    """A real load of `url` (a change of fragment alone does not reload the page)."""
    driver.get("about:blank")
    return AppPage(driver, url)


def text_shown(page):
    return page.d.execute_script("return document.querySelector(\"[data-testid='text-input']\").value.length;")


# --- A large text --------------------------------------------------------------------------


@pytest.mark.parametrize("megabytes", [1, 3.9])
def test_a_share_link_with_a_large_text_is_refused_within_the_time_bound(browser, app_url, megabytes):
    doc = example("gamma-flip-a")
    doc["text"] = "word " * int(megabytes * 1_000_000 / 5)
    url = link(app_url, json.dumps(doc))
    assert len(url) < 16_000, "under the app's own cap for links: the gate must not lean on it"
    watch(browser)
    page = fresh(browser, url)
    wait_outcome(page, "the link's outcome")
    m = measure(browser, f"share link, {megabytes} MB text ({len(url)} characters)")
    expected = "its text is 1,000,000 characters long" if megabytes == 1 else "unpacks to more than 2.0 MB"
    assert expected in problems(page)
    assert page.overall() is None and text_shown(page) == 0
    within_bound(m)


def test_a_file_a_history_entry_and_the_labs_hand_over_with_a_large_text_are_refused(browser, app_url, tmp_path):
    doc = example("gamma-flip-a")
    doc["text"] = "word " * 200_000  # 1 MB: 4.5 s through Open a result before the gate
    big = json.dumps(doc)
    watch(browser)
    page = fresh(browser, app_url)

    path = tmp_path / "big-text.json"
    path.write_text(big)
    page.el("open-result-input").send_keys(str(path))
    page.wait_for(lambda d: page.el("open-result-error").text or page.overall() is not None, "the file's outcome", 60)
    m = measure(browser, "result file, 1 MB text")
    assert "its text is 1,000,000 characters long" in page.el("open-result-error").text
    assert page.overall() is None and text_shown(page) == 0
    within_bound(m)

    # The history: a record written straight into the store, opened from the list.
    record = json.dumps({"name": "Big", "metric": "harmonic_eval", "saved": "2026-11-26 04:00", "file": big})
    put_history(browser, [("001779510720123-000", record)])
    page = fresh(browser, app_url)
    page.wait_for(lambda d: d.find_elements("css selector", "[data-testid='history-open-0']"), "the entry", 30)
    page.d.execute_script("document.querySelector('[data-testid=history]').open = true;")
    page.el("history-open-0").click()
    page.wait_for(lambda d: page.el("history-error").text or page.overall() is not None, "the entry's outcome", 60)
    m = measure(browser, "history entry, 1 MB text")
    assert "its text is 1,000,000 characters long" in page.el("history-error").text
    within_bound(m)

    # The lab's hand-over: 2.2 million characters (20 s before the gate).
    doc["text"] = "word " * 440_000
    browser.execute_script("localStorage.setItem('hj.open.6afd86c07fffffff', arguments[0]);", json.dumps(doc))
    page = fresh(browser, app_url + "#from-lab=6afd86c07fffffff")
    wait_outcome(page, "the hand-over's outcome")
    m = measure(browser, "lab hand-over, 2.2 M characters")
    assert "The result sent from the lab is 2.1 MB; a result is at most 2.0 MB" in problems(page)
    assert page.overall() is None and text_shown(page) == 0
    within_bound(m)


# --- A decompression bomb ------------------------------------------------------------------


@pytest.fixture(scope="module")
def bomb_data(tmp_path_factory):
    """Raw DEFLATE of 1.6 GB of zeros (about 2.08 million characters of base64url, as the
    probe's link), cached."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.txt"
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = bytes(16 << 20)
    parts = [c.compress(block) for _ in range(96)]
    raw = b"".join(parts) + c.flush()
    path.write_text(base64.urlsafe_b64encode(raw).decode().rstrip("="))
    return path.read_text()


def test_a_decompression_bomb_is_refused_before_inflating_and_memory_stays_near_its_start(browser, app_url, bomb_data):
    watch(browser)
    # What a URL of two million characters costs the browser itself, with a fragment the app
    # ignores: under chromedriver every DevTools event that names the page carries the whole
    # URL, and tasks of 100-600 ms come and go here with no work of the app's at all.
    ignored = fresh(browser, app_url + "#x=" + bomb_data)
    time.sleep(1)
    base = measure(browser, "a fragment of the same length that the app ignores")
    assert not problems(ignored)
    # A link near the largest size Chromium takes (2 MB of URL), inflating to 1.6 GB.
    url = app_url + "#r=" + bomb_data
    assert 2_000_000 < len(url) < 2 * 1024 * 1024
    page = fresh(browser, url)
    page.wait_for(lambda d: problems(page), "the sentence", 60)
    time.sleep(1)
    m = measure(browser, f"bomb link, {len(url)} characters (1.6 GB inflated)")
    assert f"This share link is {len(bomb_data):,} characters long" in problems(page)
    # Refused by its length alone: no task beyond the bound or the browser's own cost of such
    # a URL (the page before the gate spent 6 s inflating it and kept 1.8 GB).
    assert m["longest_ms"] < max(LONG_TASK_MS, 2 * base["longest_ms"] + 100), (m, base)
    assert m["renderer_now_mb"] < 800 and m["js_heap_mb"] < 100, m

    # A bomb at the app's own cap: inflated a slice at a time, stopped at the largest result.
    small = app_url + "#r=" + bomb_data[: 15_900 - len(app_url)]
    page = fresh(browser, small)
    page.wait_for(lambda d: problems(page), "the sentence", 60)
    time.sleep(1)
    m = measure(browser, f"bomb link at the cap, {len(small)} characters")
    assert "unpacks to more than 2.0 MB" in problems(page) or "damaged" in problems(page)
    within_bound(m)
    assert m["renderer_now_mb"] < 800 and m["js_heap_mb"] < 100, m


# --- An opened result keeps nothing of the one shown before --------------------------------


@pytest.mark.parametrize("image", [None, "https://images.example/cat.png"])
def test_an_opened_result_without_an_image_shows_none_and_its_link_carries_none(browser, app_url, tmp_path, image):
    watch(browser)
    page = fresh(browser, app_url)
    open_example(page, "gamma-flip-a")
    page.wait_for(lambda d: page.overall() is not None, "example A")
    a_score = page.overall()
    assert page.d.find_elements("css selector", "[data-testid='image-preview']")
    doc = example("gamma-flip-b")
    del doc["image"]
    if image:
        doc["image"] = image  # filtered out: only data URLs are shown
    path = tmp_path / "gamma-flip-b-no-image.json"
    path.write_text(json.dumps(doc))
    page.el("open-result-input").send_keys(str(path))
    page.wait_for(lambda d: page.overall() not in (None, a_score), "B's score")
    m = measure(browser, "file B without image after example A")
    assert round(page.overall(), 3) == 4.161
    assert not page.d.find_elements("css selector", "[data-testid='image-preview']"), "A's image stayed beside B's score"
    page.el("copy-link-button").click()
    page.wait_for(lambda d: "#r=" in page.el("share-link").text, "the link")
    shared = json.loads(_shared_doc(page.el("share-link").text))
    assert "image" not in shared, "B's link carried A's image"
    assert shared["text"] == doc["text"]
    within_bound(m)


# --- The history lists at most 50, whatever its store holds --------------------------------


def put_history(driver, records):
    """Writes (key, record) pairs straight into the app's IndexedDB history store."""
    result = driver.execute_async_script("""
        const [records, done] = [arguments[0], arguments[arguments.length - 1]];
        const open = indexedDB.open('harmonic-judge');
        open.onsuccess = () => {
            const db = open.result, tx = db.transaction('history', 'readwrite'), store = tx.objectStore('history');
            for (const [k, v] of records) store.put(v, k);
            tx.oncomplete = () => { db.close(); done('ok'); };
            tx.onerror = () => done('error: ' + tx.error);
        };
        open.onerror = () => done('error: ' + open.error);
    """, records)
    assert result == "ok", result


def test_a_history_store_of_5005_records_lists_the_newest_50_within_the_time_bound(browser, app_url):
    watch(browser)
    fresh(browser, app_url)  # the app makes its database
    file = json.dumps(example("gamma-flip-a"))
    records = [(f"{1_779_000_000_000 + i:015d}-000",
                json.dumps({"name": f"Run {i}", "metric": "harmonic_eval", "saved": "2026-11-26 04:00", "file": file}))
               for i in range(5_005)]
    put_history(browser, records)
    page = fresh(browser, app_url)
    page.wait_for(lambda d: d.find_elements("css selector", "[data-testid='history-item-0']"), "the list", 60)
    time.sleep(1)
    m = measure(browser, "history with 5,005 records")
    items = page.d.find_elements("css selector", "[data-testid='history-list'] > li")
    assert len(items) == 50, f"{len(items)} listed"
    page.d.execute_script("document.querySelector('[data-testid=history]').open = true;")
    assert page.el("history-name-0").get_attribute("value") == "Run 5004", "newest first"
    assert page.el("history-name-49").get_attribute("value") == "Run 4955"
    within_bound(m)
    page.el("history-open-0").click()
    page.wait_for(lambda d: page.overall() is not None, "the newest entry to open")


# --- A result file has a size limit --------------------------------------------------------


def test_a_100_mb_result_file_is_refused_before_it_is_read(browser, app_url, tmp_path):
    doc = example("gamma-flip-a")
    doc["padding"] = "x" * (100 << 20)  # a field no metric reads: the old page opened it
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(doc))
    watch(browser)
    page = fresh(browser, app_url)
    page.fill("text-input", "My own caption.")
    page.el("open-result-input").send_keys(str(path))
    page.wait_for(lambda d: page.el("open-result-error").text or page.overall() is not None, "the file's outcome", 60)
    time.sleep(1)
    m = measure(browser, "100 MB result file")
    assert page.el("open-result-error").text == "This file is 100 MB; a result is at most 2.0 MB, so it was not read."
    assert page.el("text-input").get_attribute("value") == "My own caption.", "a refusal loses nothing"
    within_bound(m)
    assert m["renderer_peak_mb"] < 600, m


# --- What a file says about itself is shown as a claim -------------------------------------


def test_a_files_provenance_is_shown_as_its_claim_apart_from_what_the_page_knows(browser, app_url):
    doc = example("gamma-flip-a")
    doc["source"] = "Recorded from gpt-4o (OpenAI) on 2026-11-20 by harmonic-judge."
    doc["model"], doc["provider"] = "gpt-4o", "openai"
    watch(browser)
    page = fresh(browser, link(app_url, json.dumps(doc)))
    page.wait_for(lambda d: page.overall() is not None, "the shared result")
    note = page.el("opened-note")
    ours = note.find_element("css selector", "p")
    assert "a share link" in ours.text and "Recorded" not in ours.text
    claims = page.el("opened-claims")
    assert claims.text.startswith("This file says")
    assert "Recorded from gpt-4o (OpenAI)" in claims.find_element("css selector", "[data-testid='opened-source']").text
    assert "judged by gpt-4o through openai" in claims.text
    # Set apart: its own box, drawn differently from the page's own line.
    style = page.d.execute_script(
        "const s = getComputedStyle(arguments[0]); return [s.borderLeftStyle, s.fontStyle];", claims)
    assert style == ["dashed", "italic"]
    within_bound(measure(browser, "claims link"))
