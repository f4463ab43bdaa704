"""Issue 19, item 4: the history of single evaluations, kept in IndexedDB. A finished run is
listed newest first, reopens exactly as its exported file does (same overall score at every
named γ, Explain's answers, export), can be renamed and deleted, is seen by a second tab after
a reload, and its record holds neither the key nor the base URL. A refused write is said.

The runs go to the loopback OpenAI-format fake: a history entry needs a run with a score to
show, which the real SmolLM2 engine does not promise (it may print no rating at all)."""

import json

import pytest

from app_page import AppPage, allow_storage, export_pattern, refuse_storage

KEY = "sk-history-secret-0123456789"


def ready(browser, app_url, fake, images, text):
    page = AppPage(browser, app_url)
    page.set_backend(fake.url, "gpt-4o", KEY)
    page.upload(images / "photo.png")
    page.wait_image()
    page.fill("text-input", text)
    return page


def at_named_gammas(page):
    out = {}
    for label in [b.text for b in page.d.find_elements("css selector", ".gamma-marks button")]:
        page.d.find_element("xpath", f"//*[contains(@class,'gamma-marks')]//button[.='{label}']").click()
        out[label] = page.overall()
    return out


def open_history(page):
    page.d.execute_script("document.querySelector('[data-testid=history]').open = true;")


def items(page):
    return page.d.find_elements("css selector", "[data-testid='history-list'] > li")


def stored_records(driver):
    """Every record of the history store, read straight from IndexedDB."""
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const open = indexedDB.open('harmonic-judge');
        open.onsuccess = () => {
            const tx = open.result.transaction('history', 'readonly');
            const all = tx.objectStore('history').getAll();
            all.onsuccess = () => { done(JSON.stringify(all.result)); open.result.close(); };
            all.onerror = () => done('error: ' + all.error);
        };
        open.onerror = () => done('error: ' + open.error);
    """)


def test_a_run_is_kept_reopened_renamed_and_deleted_and_a_second_tab_sees_it(browser, app_url, fake, images, downloads):
    page = ready(browser, app_url, fake, images, "A dog runs across a grassy park.")
    open_history(page)
    assert items(page) == []
    page.evaluate()
    page.wait_settled()
    page.wait_for(lambda d: len(items(page)) == 1, "the run in the history")
    first = at_named_gammas(page)
    # Explain's answer, given after the run, is kept with it.
    page.el("explain-correctness").click()
    page.wait_for(lambda d: fake.explanation in page.el("explanation-correctness").text, "the explanation")
    page.wait_for(lambda d: fake.explanation in stored_records(browser), "the explanation kept")
    records = stored_records(browser)
    assert KEY not in records and fake.url.split("//")[1] not in records and "base_url" not in records
    assert page.el("history-name-0").get_attribute("value") == "HarmonicEval: A dog runs across a grassy park."

    # A second tab sees it after its own load, and adds a newer run above it.
    browser.switch_to.new_window("tab")
    other = ready(browser, app_url, fake, images, "Two dogs sleep.")
    open_history(other)
    other.wait_for(lambda d: len(items(other)) == 1, "the first tab's run")
    other.evaluate()
    other.wait_settled()
    other.wait_for(lambda d: len(items(other)) == 2, "the second run")
    assert other.el("history-name-0").get_attribute("value") == "HarmonicEval: Two dogs sleep."
    assert other.el("history-name-1").get_attribute("value").startswith("HarmonicEval: A dog runs")

    # Rename the older one; the name survives a reload.
    other.fill("history-name-1", "  Class   demo ")
    other.el("history-rename-1").click()
    other.wait_for(lambda d: other.el("history-name-1").get_attribute("value") == "Class demo", "the new name, trimmed")
    other.d.refresh()
    other.wait_for(lambda d: d.find_elements("css selector", "[data-testid='history-item-1']"), "the list after reload")
    open_history(other)
    assert other.el("history-name-1").get_attribute("value") == "Class demo"

    # Reopened, it is the result as it was: score at every named γ, Explain's answer, export.
    other.el("history-open-1").click()
    other.wait_for(lambda d: "Opened from Class demo" in other.el("opened-note").text, "the reopened run")
    assert at_named_gammas(other) == pytest.approx(first, abs=1e-12)
    assert fake.explanation in other.el("explanation-correctness").text
    requests_before = len(fake.requests)
    other.el("export-json-button").click()
    doc = json.loads(other.wait_file(downloads, export_pattern("harmonic_eval", "a-dog-runs-across-a-grassy")).read_text())
    assert doc["text"] == "A dog runs across a grassy park."
    assert len(fake.requests) == requests_before, "reopening sends nothing"

    # Delete the newer one: the older is item 0 now, here and after a reload.
    other.el("history-delete-0").click()
    other.wait_for(lambda d: len(items(other)) == 1, "the deletion")
    assert other.el("history-name-0").get_attribute("value") == "Class demo"
    other.d.refresh()
    other.wait_for(lambda d: d.find_elements("css selector", "[data-testid='history-item-0']"), "the list after reload")
    assert len(items(other)) == 1


def test_a_refused_write_is_said_and_an_empty_name_is_refused(browser, app_url, fake, images):
    page = ready(browser, app_url, fake, images, "A cat on a mat.")
    open_history(page)
    # A full disk (before this origin has written anything, as the cache's own test does).
    origin = refuse_storage(browser)
    try:
        page.evaluate()
        page.wait_settled()
        page.wait_for(lambda d: page.el("history-error").text, "the refusal")
        assert "did not keep the evaluation in the history" in page.el("history-error").text
        assert page.overall() is not None, "the result on screen stands"
    finally:
        allow_storage(browser, origin)
    page.evaluate()
    page.wait_settled()
    page.wait_for(lambda d: len(items(page)) == 1, "the run kept once storage is back")
    assert page.el("history-error").text == ""
    page.fill("history-name-0", "   ")
    page.el("history-rename-0").click()
    assert "cannot be empty" in page.el("history-error").text
    assert page.el("history-name-0").get_attribute("value") == "   ", "what was typed stays to be fixed"


def test_a_newer_version_of_the_page_is_not_blocked_and_this_one_then_says_so(browser, app_url, fake, images):
    """The history added a version of the app's IndexedDB. A page holding the database open
    lets a newer version upgrade it (it closes its connection), and a page older than the
    database says so in words instead of waiting for ever."""
    page = ready(browser, app_url, fake, images, "A cat on a mat.")
    open_history(page)
    page.evaluate()
    page.wait_settled()
    page.wait_for(lambda d: len(items(page)) == 1, "the run in the history")
    upgraded = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const r = indexedDB.open('harmonic-judge', 1000);
        r.onblocked = () => done('blocked');
        r.onsuccess = () => { r.result.close(); done('upgraded'); };
        r.onerror = () => done('error: ' + r.error);
    """)
    assert upgraded == "upgraded"
    page.fill("text-input", "A dog on a mat.")
    page.evaluate()
    page.wait_settled()
    page.wait_for(lambda d: page.el("history-error").text, "the sentence")
    assert "newer version of this page open in another tab" in page.el("history-error").text
    assert page.overall() is not None, "the result on screen stands"
