"""The lab's per-result cost against the number of results already stored (issue 17.5).

A stored run of N − K finished FLEUR results plus K items still to do (N items in all: the
import limit is 100,000) is written straight into the app's IndexedDB (the records `lab::stored_run` defines), the page is reloaded and the run
resumed against the fake OpenAI server answering at once (items in groups of five, as a
best-of-n dataset); the K results are timed from the
moment the run starts to its end. Reported per result: wall time, main-thread time (the
DevTools protocol's `TaskDuration`: every task, short or long), and the longest freeze (the
PerformanceObserver's `longtask` entries); then where the main thread went, by User Timing
measure (`hj-flush`: a showing of new results until the page settles; `hj-sweep`, `hj-rows`,
`hj-prepare`, `hj-used`, `hj-scatter`: its parts). The
baseline is the same measure at 1,000 stored results, in the same run.
"""

import base64
import io
import time
import zipfile

from app_page import AppPage, tid

SEED_JS = """
const [n, extra, zipB64, done] = arguments;
const id = "run-bench-" + n;
const open = indexedDB.open("harmonic-judge");
open.onerror = () => done("could not open the database");
open.onsuccess = () => {
  const db = open.result;
  const tx = db.transaction(["batch_items", "batch_meta"], "readwrite");
  const items = tx.objectStore("batch_items"), meta = tx.objectStore("batch_meta");
  const lines = [];
  for (let i = 0; i < n + extra; i++) {
    lines.push(JSON.stringify({id: "i" + i, task: "ic", image: "img.png", human_overall: 1 + i % 5, group: "g" + Math.floor(i / 5),
                               text: "Caption " + i + " of " + n + ": a dog runs."}));
  }
  meta.put(JSON.stringify({name: "bench.jsonl", text: lines.join("\\n")}), "dataset:" + id);
  meta.put(JSON.stringify({id, created_ms: Date.now(), dataset: "bench.jsonl", metric: "fleur",
                           total: n + extra, files: ["images.zip"]}), "run:" + id);
  const bytes = Uint8Array.from(atob(zipB64), c => c.charCodeAt(0));
  meta.put(new Blob([bytes], {type: "application/zip"}), "file:" + id + ":images.zip");
  for (let i = 0; i < n; i++) {
    items.put(JSON.stringify({id: "i" + i, metric: "fleur", task: "ic", text: "Caption " + i, image: "img.png",
                              score: (i % 97) / 97, human: {overall: [1 + i % 5]}, group: "g" + Math.floor(i / 5)}),
              id + "/i" + i);
  }
  tx.oncomplete = () => done(id);
  tx.onerror = () => done("the seed was refused");
};
"""

CLEAR_JS = """
const done = arguments[arguments.length - 1];
const open = indexedDB.open("harmonic-judge");
open.onsuccess = () => {
  const tx = open.result.transaction(["batch_items", "batch_meta"], "readwrite");
  tx.objectStore("batch_items").clear();
  tx.objectStore("batch_meta").clear();
  tx.oncomplete = () => done(true);
};
"""

OBSERVE_JS = """
window.__hjLong = [];
new PerformanceObserver(l => l.getEntries().forEach(e => window.__hjLong.push([e.startTime, e.duration])))
  .observe({type: "longtask", buffered: false});
"""


MEASURES_JS = """
const t0 = arguments[0], by = {};
for (const m of performance.getEntriesByType("measure")) {
  if (m.startTime < t0) continue;
  const e = by[m.name] || (by[m.name] = [m.name, 0, 0, 0]);
  e[1] += m.duration; e[2] += 1; e[3] = Math.max(e[3], m.duration);
}
return Object.values(by).sort((a, b) => b[1] - a[1]);
"""


def main_thread_s(d):
    """Seconds the page's main thread has spent in tasks (the DevTools protocol's TaskDuration)."""
    d.execute_cdp_cmd("Performance.enable", {})
    metrics = d.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]
    return next(m["value"] for m in metrics if m["name"] == "TaskDuration")


def tiny_zip(png):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("img.png", png)
    return base64.b64encode(out.getvalue()).decode()


def progress(page):
    e = page.el("batch-progress")
    return int(e.get_attribute("data-done")) + int(e.get_attribute("data-failed")), e.get_attribute("data-status")


def per_result(d, app_url, fake_url, n, extra, png):
    """Milliseconds of wall time and of main-thread tasks per result, and the longest task (a
    freeze: the longest `longtask` entry)."""
    page = AppPage(d, app_url + "lab/")
    d.execute_async_script(CLEAR_JS)
    page.set_backend(fake_url, "gpt-4o", "sk-bench-123456")
    seeded = d.execute_async_script(SEED_JS, n, extra, tiny_zip(png))
    assert seeded.startswith("run-bench"), seeded
    page = AppPage(d, app_url + "lab/")
    page.wait_for(lambda dd: dd.find_elements(*tid("resume-run-button")), "the offer to resume", 600)
    d.execute_script(OBSERVE_JS)
    page.el("resume-run-button").click()
    page.wait_for(lambda dd: progress(page)[1] == "running", "the run to start", 600)
    t0 = d.execute_script("return performance.now()")
    busy0 = main_thread_s(d)
    page.wait_for(lambda dd: progress(page)[1] == "finished", "the run to finish", 900)
    t1 = d.execute_script("return performance.now()")
    busy = (main_thread_s(d) - busy0) * 1000
    done = progress(page)[0]
    assert done == n + extra, (done, n + extra)
    long = [dur for (start, dur) in d.execute_script("return window.__hjLong") if start >= t0]
    print("  where the main thread went (User Timing measures since the run started, ms):")
    for name, total, count, worst in d.execute_script(MEASURES_JS, t0):
        print(f"    {name:16} {total:9.0f} in all over {count:5} times, longest {worst:6.0f}")
    return (t1 - t0) / extra, busy / extra, max(long, default=0.0)


def report(d, app_url, png, Row, sizes=(1_000, 10_000, 100_000)):
    from fakes.openai import FakeOpenAI

    fake = FakeOpenAI(delay=0.0)
    # FLEUR's score, "0.85", with probabilities on the second digit.
    fake.script = [("0", [("0", 1.0)]), (".", [(".", 1.0)]), ("85", [("85", 0.6), ("8", 0.4)])]
    try:
        figures = {}
        for n in sizes:
            # Enough new results for several showings at every size (one per 2 % of those stored).
            extra = max(400, n // 20)
            started = time.time()
            figures[n] = per_result(d, app_url, fake.url, n - extra, extra, png)
            wall, busy, worst = figures[n]
            print(f"lab scale: {n - extra:,} to {n:,} stored ({extra:,} new): {wall:.2f} ms wall and {busy:.2f} ms of main thread "
                  f"per result, longest task {worst:.0f} ms ({time.time() - started:.0f} s in all)")
        base = figures[sizes[0]]
        for n in sizes:
            wall, busy, worst = figures[n]
            Row(f"batch result at {n:,} stored: wall time per result", wall, "ms", baseline=base[0],
                ratio=wall / base[0] if base[0] else None,
                budget="≤ 2× at 1,000" if n == sizes[-1] else None,
                ok=(wall <= 2 * base[0]) if n == sizes[-1] else None)
            Row(f"  main-thread time per result; longest task {worst:.0f} ms", busy, "ms", baseline=base[1],
                ratio=busy / base[1] if base[1] else None,
                budget="≤ 2× at 1,000" if n == sizes[-1] else None,
                ok=(busy <= 2 * base[1]) if n == sizes[-1] else None)
    finally:
        fake.stop()
