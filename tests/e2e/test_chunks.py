"""The evaluator's code arrives in parts: a first visit fetches the page's wasm and no chunk;
the first image fetches the code that reads images; the first Evaluate, Explain, export, example or connection check fetches the chunk that does it;
a chunk that cannot be fetched gets a sentence, keeps the form, and is fetched again on the next
try (scripts/split/wasm-bindgen, src/ui/lazy.rs, and the Evaluate, Explain and Export entries
in src/ui/metrics/mod.rs)."""

import re
import time

from selenium.webdriver.support.ui import Select

from app_page import CRITERIA, AppPage

KEY = "sk-test-chunks-0123456789"


def chunk_requests(d):
    return d.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(n => /\\/chunk-[^/]*\\.wasm$/.test(n))"
    )


def fill_form(page, fake, images):
    page.set_backend(fake.url, "gpt-4o", KEY)
    page.upload(images / "photo.png")
    page.wait_image()
    page.fill("text-input", "A dog runs across a grassy park.")


def test_a_first_visit_fetches_no_chunk_and_evaluate_fetches_the_judging_code(browser, app_url, fake, images):
    page = AppPage(browser, app_url)
    time.sleep(1.0)  # anything a first visit would prefetch has had time to start
    assert chunk_requests(browser) == []
    # The first image brings the code that reads images (with the numbered parts it shares with
    # other chunks), and no other action's.
    fill_form(page, fake, images)
    named = [n for n in chunk_requests(browser) if re.search(r"/chunk-[a-z_]+-[0-9a-f]+\.wasm$", n)]
    assert len(named) == 1 and "/chunk-image-" in named[0], named
    # Nor the isolation worker, which only a site file that turns it on registers (scripts/bench.py
    # leaves both files out of the first visit's bytes on this word).
    names = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert not [n for n in names if "/coi.js" in n or "/isolation-" in n], names
    workers = browser.execute_async_script(
        "navigator.serviceWorker.getRegistrations().then(r => arguments[0](r.length), e => arguments[0](String(e)))")
    assert workers == 0, workers
    page.evaluate()
    page.wait_settled()
    assert all(page.state(c) == "done" for c in CRITERIA)
    fetched = chunk_requests(browser)
    assert any("/chunk-run-" in n for n in fetched), fetched
    # The in-page judge's panel, the other metrics and the candidates were not needed.
    assert not any(k in n for n in fetched for k in ("/chunk-in_browser-", "/chunk-maev-", "/chunk-candidates-")), fetched
    # Choosing a metric fetches its panel, once.
    Select(page.el("metric-select")).select_by_value("maev")
    page.quiet()
    page.wait_for(lambda d: any("/chunk-maev-" in n for n in chunk_requests(d)), "MAEV's chunk")


def test_a_chunk_that_cannot_be_fetched_gets_a_sentence_keeps_the_form_and_is_tried_again(browser, app_url, fake, images):
    page = AppPage(browser, app_url)
    fill_form(page, fake, images)
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*chunk-*"]})
    page.evaluate()
    problems = page.el("form-problems").text
    assert "could not be loaded from this site" in problems, problems
    assert len(fake.requests) == 0
    # Nothing typed is lost, and the page still answers.
    assert page.el("text-input").get_attribute("value") == "A dog runs across a grassy park."
    assert page.el("evaluate-button").is_enabled()
    # The connection back: the next click fetches the chunk and judges.
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    page.evaluate()
    page.wait_settled()
    assert all(page.state(c) == "done" for c in CRITERIA)
    assert page.el("form-problems").text == ""
    assert len(fake.requests) == 5


def test_an_image_whose_reading_code_cannot_be_fetched_gets_a_sentence_and_the_next_try_reads_it(browser, app_url, images):
    page = AppPage(browser, app_url)
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*chunk-*"]})
    page.upload(images / "photo.png")
    page.wait_for(lambda d: "could not be loaded from this site" in page.el("image-error").text, "the sentence")
    assert "reading images" in page.el("image-error").text
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    page.upload(images / "small.png")
    page.wait_image()
    assert page.el("image-error").text == ""
