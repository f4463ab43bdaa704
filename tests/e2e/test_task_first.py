"""Issue 29: the evaluator built around the task. A first visit sees the image, the text and
Evaluate without scrolling, with the judge in one line that opens its settings; the result
stands beside what it judged; the gallery says where each example's numbers come from; an
opened result keeps its stored explanation; Copy link says what it did; present mode shows only
the score, γ and its charts in large type."""

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from app_page import AppPage, tid

KEY = "sk-test-task-first-0123456789"


def viewport(d, width, height):
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def box(d, el):
    r = d.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return [r.top, r.bottom, r.left, r.right, innerHeight, innerWidth];", el)
    return dict(zip(["top", "bottom", "left", "right", "height", "width"], r))


def assert_in_view(d, el, what):
    b = box(d, el)
    assert b["bottom"] > b["top"], f"{what} is not shown: {b}"
    # A pixel's slack: scrolling to an element can leave it a fraction of a pixel above the top.
    assert b["top"] >= -1 and b["bottom"] <= b["height"] + 1 and b["left"] >= -1 and b["right"] <= b["width"] + 1, \
        f"{what} lies at {b['top']:.0f}–{b['bottom']:.0f} px of a {b['height']} px viewport"


def open_example(page, name):
    page.wait_for(lambda d: d.find_elements(*tid(f"demo-{name}")), f"the {name} example", 20)
    page.d.find_element(*tid(f"demo-{name}")).click()
    page.wait_for(lambda d: d.find_element(*tid("opened-note")).is_displayed() and page.overall() is not None,
                  "the example's score")


def test_a_fresh_visit_sees_the_task_first_and_the_judge_in_one_line(browser, app_url):
    viewport(browser, 1280, 800)
    page = AppPage(browser, app_url)
    d = browser
    dropzone = d.find_element(*tid("image-input")).find_element("xpath", "ancestor::div[contains(@class,'dropzone')]")
    for el, what in [(dropzone, "the image drop zone"), (d.find_element(*tid("text-input")), "the text to judge"),
                     (d.find_element(*tid("evaluate-button")), "Evaluate"), (d.find_element(*tid("judge-summary")), "the judge's line")]:
        assert_in_view(d, el, what)
    # The judge in one line: provider · model · key · procedure; its settings folded until asked.
    summary = d.find_element(*tid("judge-summary")).text
    assert "OpenAI" in summary and "key needed" in summary and "paper procedure" in summary, summary
    assert not d.find_element(*tid("base-url-input")).is_displayed()
    assert not d.find_element(*tid("fidelity-select")).is_displayed()
    d.find_element(*tid("judge-summary")).click()
    assert d.find_element(*tid("base-url-input")).is_displayed()
    page.fill("api-key-input", KEY)
    page.wait_for(lambda d: "key set" in d.find_element(*tid("judge-summary")).text, "the line to say the key is set")
    # The results column says what will appear, and points to one example to start with.
    assert d.find_element(*tid("empty-state")).is_displayed()
    page.wait_for(lambda d: d.find_elements("css selector", ".demo-buttons button"), "the gallery")
    starts = d.find_elements("css selector", ".demo-buttons button.start")
    assert [b.get_attribute("data-testid") for b in starts] == ["demo-gamma-flip-a"]
    assert "start here" in starts[0].text.lower() and "Start here" in d.find_element(*tid("empty-state")).text


def test_each_example_says_where_its_numbers_come_from(browser, app_url):
    page = AppPage(browser, app_url)
    page.wait_for(lambda d: len(d.find_elements("css selector", ".demo-buttons button")) == 7, "the seven examples")
    gallery = browser.find_element(*tid("demo-gallery"))
    assert "Recorded results" not in gallery.text
    labels = {b.get_attribute("data-testid"): b.text for b in gallery.find_elements("css selector", ".demo-buttons button")}
    constructed = [k for k, t in labels.items() if "Constructed by hand" in t]
    assert len(constructed) == 6, labels
    assert "Recorded from smollm2-135m" in labels["demo-recorded-smollm2-harmonic-eval"]


def test_an_opened_example_stands_beside_what_it_judged(browser, app_url):
    viewport(browser, 1280, 800)
    page = AppPage(browser, app_url)
    open_example(page, "gamma-flip-a")
    assert not browser.find_element(*tid("empty-state")).is_displayed()
    assert_in_view(browser, browser.find_element(*tid("overall-score")), "the score")
    assert_in_view(browser, browser.find_element(*tid("image-preview")), "the image it judged")


def test_on_a_phone_the_score_comes_into_view_after_a_run(browser, app_url, fake, images):
    viewport(browser, 390, 844)
    page = AppPage(browser, app_url)
    page.set_backend(fake.url, "gpt-4o", KEY)
    page.upload(images / "photo.png")
    page.wait_image()
    page.fill("text-input", "A dog runs across a grassy park.")
    page.evaluate()
    page.wait_settled()
    page.wait_for(lambda d: box(d, d.find_element(*tid("overall-score")))["top"] >= -1, "the score to scroll into view")
    assert_in_view(browser, browser.find_element(*tid("overall-score")), "the score after the run")


@pytest.mark.parametrize("example,button,shown,note", [
    ("gamma-flip-a", "explain-clarity", "explanation-clarity", "explain-note-clarity"),
    ("fleur-constructed", "explain-button", "explanation", "explain-note"),
])
def test_explain_on_an_opened_example_keeps_the_stored_explanation(browser, app_url, fake, example, button, shown, note):
    page = AppPage(browser, app_url)
    open_example(page, example)
    stored = browser.find_element(*tid(shown)).text
    assert stored, "the example carries an explanation"
    browser.find_element(*tid(button)).click()
    page.wait_for(lambda d: d.find_element(*tid(note)).text, "the reason it was not asked again")
    assert browser.find_element(*tid(shown)).text == stored
    said = browser.find_element(*tid(note)).text
    assert "API key" in said and "stored explanation" in said, said
    assert "base URL" not in said
    # With a judge set up, Explain asks it again (the page's own backend, not the file's).
    page.set_backend(fake.url, "gpt-4o", KEY)
    browser.find_element(*tid(button)).click()
    page.wait_for(lambda d: d.find_element(*tid(shown)).text == fake.explanation, "the judge's new explanation")
    assert browser.find_element(*tid(note)).text == ""


def test_copy_link_says_copied(browser, app_url):
    page = AppPage(browser, app_url)
    origin = app_url.rstrip("/")
    browser.execute_cdp_cmd("Browser.grantPermissions",
                            {"origin": origin, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    open_example(page, "gamma-flip-a")
    browser.find_element(*tid("copy-link-button")).click()
    page.wait_for(lambda d: d.find_element(*tid("copy-status")).text, "what Copy link did")
    assert browser.find_element(*tid("copy-status")).text == "Copied the link."
    link = browser.find_element(*tid("share-link")).text
    browser.set_script_timeout(10)
    assert browser.execute_async_script("navigator.clipboard.readText().then(arguments[0], e => arguments[0](String(e)));") == link


def test_a_refused_clipboard_selects_the_link_and_says_so(browser, app_url):
    page = AppPage(browser, app_url)
    open_example(page, "gamma-flip-a")
    # The browser refuses, as one without the permission does.
    browser.execute_script(
        "navigator.clipboard.writeText = () => Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError'));")
    browser.find_element(*tid("copy-link-button")).click()
    page.wait_for(lambda d: d.find_element(*tid("copy-status")).text, "what Copy link did")
    said = browser.find_element(*tid("copy-status")).text
    assert "selected" in said and "Ctrl+C" in said, said
    link = browser.find_element(*tid("share-link")).text
    assert link and browser.execute_script("return String(getSelection());") == link


@pytest.mark.parametrize("width,height", [(1024, 768), (1280, 720)])
def test_present_mode_shows_the_score_gamma_and_its_charts_in_large_type(browser, app_url, width, height):
    viewport(browser, width, height)
    page = AppPage(browser, app_url)
    open_example(page, "gamma-flip-a")
    page.wait_for(lambda d: d.find_elements(*tid("weights-plot")), "the weights chart")
    browser.find_element(*tid("present-button")).click()
    page.wait_for(lambda d: not d.find_element(*tid("demo-gallery")).is_displayed(), "present mode")
    for name in ["overall-score", "gamma-slider", "gamma-plot", "weights-plot", "image-preview"]:
        assert_in_view(browser, browser.find_element(*tid(name)), name)
    size = browser.execute_script(
        "return parseFloat(getComputedStyle(document.querySelector('[data-testid=overall-score] .overall-value')).fontSize);")
    assert size >= 20
    for hidden in ["criterion-correctness", "copy-link-button", "judge-summary", "history"]:
        found = browser.find_elements(*tid(hidden))
        assert not found or not found[0].is_displayed(), hidden
    # γ on the arrow keys, from anywhere on the page; Escape leaves.
    before = float(browser.find_element(*tid("gamma-value")).text)
    # Nothing focused (a click could land in the text box, which keeps its own keys).
    browser.execute_script("document.activeElement && document.activeElement.blur();")
    ActionChains(browser).send_keys(Keys.ARROW_LEFT).send_keys(Keys.ARROW_LEFT).perform()
    page.wait_for(lambda d: float(d.find_element(*tid("gamma-value")).text) == pytest.approx(before - 0.02), "γ to move by key")
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    page.wait_for(lambda d: d.find_element(*tid("demo-gallery")).is_displayed(), "present mode to end")
    assert browser.find_element(*tid("present-button")).get_attribute("aria-pressed") == "false"
