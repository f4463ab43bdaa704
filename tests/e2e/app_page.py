"""A thin page object over the app's stable test ids (see docs/testing.md, "Test ids")."""

import re
import time

from selenium.common.exceptions import (
    NoSuchElementException,
    NoSuchFrameException,
    StaleElementReferenceException,
    TimeoutException,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

CRITERIA = ["correctness", "completeness", "clarity", "fluency", "conciseness"]

# One rating question per criterion, as text (a paraphrase of HarmonicEval's, not its prompt:
# the point is a rating token and its alternatives), sent straight to the in-page engine's
# bridge: test_in_browser.py compares its two builds with them, scripts/bench_in_page.py its
# quantizations. `ASK_ALL_JS` (execute_async_script) answers the list of parsed answers.
RATING = ('Caption: "{caption}"\nRate the {criterion} of this caption on a scale of 1 to 5. '
          'Answer with one digit.\nRating:')
ASK_ALL_JS = """
const [bodies, done] = [arguments[0], arguments[arguments.length - 1]];
(async () => {
  const out = [];
  for (const b of bodies) out.push(JSON.parse(await window.hjInBrowser.chat(b)));
  return out;
})().then(done, e => done('ERROR ' + e.message));
"""


def rating_questions(caption):
    """The request bodies of the rating questions about `caption`: one token, its 20
    alternatives, no prompt cache."""
    import json

    return [json.dumps({"messages": [{"role": "user", "content": RATING.format(caption=caption, criterion=c)}],
                        "max_tokens": 1, "temperature": 0, "logprobs": True, "top_logprobs": 20,
                        "cache_prompt": False}) for c in CRITERIA]


def top_alternatives(answer):
    """The first token's alternatives of a parsed answer: {token text stripped: logprob}."""
    first = answer["choices"][0]["logprobs"]["content"][0]
    return {t["token"].strip(): t["logprob"] for t in first["top_logprobs"]}


def tid(name):
    return (By.CSS_SELECTOR, f'[data-testid="{name}"]')


class AppPage:
    def __init__(self, driver, url):
        self.d = driver
        self.d.get(url)
        self.wait_for(lambda d: d.find_elements(*tid("metric-select")), "the app to mount")
        # The evaluator mounts in two tasks (src/ui/widgets/later.rs): wait for the second.
        self.wait_for(lambda d: d.execute_script("return performance.getEntriesByName('hj-mounted').length > 0"),
                      "the app's second start-up task")

    def wait_for(self, cond, what, timeout=15):
        """`cond(driver)` once it is true, within `timeout` seconds. It is asked every 50 ms at
        first, then less often as the wait goes on (a tenth of the time waited so far, at most
        every half second): each question is a WebDriver command or several, and asked 20 times
        a second through a long wait for an engine they took about half a core of two from it."""
        start = time.monotonic()
        end = start + timeout
        while True:
            try:
                value = cond(self.d)
                if value:
                    return value
            # A redraw between finding an element and reading it is not a failure: look again.
            # Nor is a look that lands while the old page unloads (WebKit answers "no such
            # frame" after a navigation that did not wait for the load, `page_load="none"`).
            except (NoSuchElementException, StaleElementReferenceException, NoSuchFrameException):
                pass
            now = time.monotonic()
            if now > end:
                raise TimeoutException(f"timed out waiting for {what}")
            time.sleep(min(max(0.05, (now - start) / 10), 0.5, end - now + 0.01))

    def el(self, name):
        e = self.d.find_element(*tid(name))
        # The judge's settings fold under their one-line summary: open them, as a person would,
        # to reach a field inside.
        self.d.execute_script(
            "const s = arguments[0].closest('.judge-settings');"
            "if (s && !s.classList.contains('open')) s.querySelector('[data-testid=judge-summary]').click();", e)
        return e

    def fill(self, name, text):
        e = self.el(name)
        e.clear()
        e.send_keys(text)

    def set_backend(self, base_url, model="gpt-4o", key=""):
        Select(self.el("preset-select")).select_by_value("custom")
        self.fill("base-url-input", base_url)
        self.fill("model-input", model)
        self.fill("api-key-input", key)

    def set_number(self, name, value):
        """Sets a number field, opening the collapsed section it lives in."""
        self.d.execute_script("document.querySelectorAll('details').forEach(d => d.open = true);")
        e = self.el(name)
        e.clear()
        e.send_keys(str(value))
        e.send_keys("\t")  # commit (change event)

    def upload(self, path):
        self.el("image-input").send_keys(str(path))

    def wait_image(self):
        self.wait_for(lambda d: d.find_elements(*tid("image-preview")), "the image preview")

    def select_task(self, task):
        Select(self.el("task-select")).select_by_value(task)

    def quiet(self, timeout=15):
        """Waits for the code chunks the last action fetched (the page marks them on <body>)."""
        self.wait_for(
            lambda d: not d.execute_script("return document.body.hasAttribute('data-chunks-loading');"),
            "the page's code chunks to arrive",
            timeout,
        )

    def add_candidate(self):
        """Clicks "Add a candidate" and waits for the new text box (the candidates' texts are
        fetched with their chunk the first time)."""
        rows = lambda d: len(d.find_elements("css selector", "[data-testid^='candidate-text-']"))
        before = rows(self.d)
        self.el("add-candidate-button").click()
        self.quiet()
        self.wait_for(lambda d: rows(d) > max(before, 1), "the new candidate's text box")

    def fill_candidates(self, texts):
        """The first text, then one more candidate per further text (labels A, B, C …)."""
        self.fill("text-input", texts[0])
        for _ in texts[1:]:
            self.add_candidate()
        assert not self.el("text-input").is_displayed()
        for i, t in enumerate(texts[1:], start=1):
            self.fill(f"candidate-text-{i}", t)

    def read(self, testid, name=None):
        """An attribute (or, without `name`, the text) read in one step in the page, for markup
        that is redrawn as a whole (a held element reference would go stale); None if absent."""
        return self.d.execute_script(
            "const e = document.querySelector(`[data-testid='${arguments[0]}']`);"
            " return e ? (arguments[1] === null ? e.textContent : e.getAttribute(arguments[1])) : null;",
            testid, name)

    def evaluate(self):
        self.el("evaluate-button").click()
        self.quiet()

    def card(self, criterion):
        return self.el(f"criterion-{criterion}")

    def state(self, criterion):
        return self.card(criterion).get_attribute("data-state")

    def wait_settled(self, timeout=20):
        """Every criterion's card done or failed (read in one step in the page per look)."""
        self.wait_for(
            lambda d: d.execute_script(
                "return arguments[0].every(c => ['done', 'error'].includes("
                "document.querySelector(`[data-testid='criterion-${c}']`)?.getAttribute('data-state')));",
                CRITERIA),
            "every criterion to finish",
            timeout,
        )

    def attr(self, criterion, name):
        return float(self.card(criterion).get_attribute(f"data-{name}"))

    def overall(self):
        v = self.el("overall-score").get_attribute("data-value")
        return float(v) if v else None

    def session_storage(self, key):
        return self.d.execute_script("return window.sessionStorage.getItem(arguments[0]);", key)

    def local_storage(self, key):
        return self.d.execute_script("return window.localStorage.getItem(arguments[0]);", key)

    def wait_file(self, directory, name, timeout=10):
        """The downloaded file `name`, or for a compiled pattern the first complete download
        whose name matches it in full and that this page has not returned before (exports are
        named after the time, so a test matches them by pattern; see `export_pattern`)."""
        seen = self.__dict__.setdefault("_seen_files", set())
        end = time.time() + timeout
        while time.time() < end:
            if not list(directory.glob("*.crdownload")):
                if isinstance(name, re.Pattern):
                    found = [p for p in directory.iterdir() if name.fullmatch(p.name) and p not in seen]
                else:
                    found = [directory / name] if (directory / name).exists() else []
                found = [p for p in found if p.stat().st_size > 0]
                if found:
                    seen.add(found[0])
                    return found[0]
            time.sleep(0.05)
        listing = sorted(p.name for p in directory.iterdir()) if directory.exists() else "no folder"
        raise AssertionError(f"{name} was not downloaded to {directory} (it holds: {listing})")


def export_pattern(metric, slug=r"[^.]*"):
    """An evaluator export's file name: metric id, the text's first words, local time (and the
    " (1)" Chromium adds to a second download of the same name)."""
    return re.compile(
        rf"{re.escape(metric)}(?!-candidates-)(-{slug})?-\d{{4}}-\d\d-\d\d-\d{{4}}( \(\d+\))?\.json")


def refuse_storage(driver):
    """Makes this origin's storage refuse writes as a full disk does, through the browser's own
    quota: IndexedDB gets a quota of 1 byte (its writes then fail at commit with
    QuotaExceededError; Chromium reads a quota of 0 as no limit), and localStorage is filled to
    its limit (a new key no longer fits)."""
    origin = driver.execute_script("return location.origin;")
    driver.execute_cdp_cmd("Storage.overrideQuotaForOrigin", {"origin": origin, "quotaSize": 1})
    filled = driver.execute_script("""
        let n = 0;
        for (let size = 1 << 20; size >= 1; size >>= 1) {
            try { for (;;) localStorage.setItem('hj.fill.' + n++, 'x'.repeat(size)); } catch (e) {}
        }
        try { localStorage.setItem('hj.probe', 'x'); return false; } catch (e) { return true; }
    """)
    assert filled, "localStorage did not fill up"
    return origin


def allow_storage(driver, origin):
    """Undoes refuse_storage."""
    driver.execute_cdp_cmd("Storage.overrideQuotaForOrigin", {"origin": origin})
    driver.execute_script(
        "Object.keys(localStorage).filter(k => k.startsWith('hj.fill.')).forEach(k => localStorage.removeItem(k));")
