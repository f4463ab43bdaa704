"""End-to-end: the built app in headless Chromium against a loopback OpenAI-format server."""

import json
import math
import time

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from app_page import CRITERIA, AppPage, export_pattern
from fakes.base import closed_form, criterion_of

SPEC = {0.75: 4.3398, 0.5: 4.7546, 1.0: 4.0760}
KEY = "sk-test-e2e-0123456789abcdef"


def ready(browser, app_url, fake, images, key=KEY, text="A dog runs across a grassy park.", task="ic"):
    page = AppPage(browser, app_url)
    page.set_backend(fake.url, "gpt-4o", key)
    page.select_task(task)
    page.upload(images / "photo.png")
    page.wait_image()
    page.fill("text-input", text)
    return page


def test_spec_vector_gamma_slider_and_request_shape(browser, app_url, fake, images):
    page = ready(browser, app_url, fake, images)
    page.evaluate()
    # Each card shows its own progress while the server holds the requests.
    assert [page.state(c) for c in CRITERIA] == ["running"] * 5
    assert page.el("evaluate-button").text == "Evaluating…"
    page.wait_settled()
    assert all(page.state(c) == "done" for c in CRITERIA)

    # The SPEC's overall score at the default γ, to full precision against a closed form.
    expected, weights, means, sigmas = closed_form(0.75)
    assert page.overall() == pytest.approx(expected, abs=1e-9)
    assert page.overall() == pytest.approx(SPEC[0.75], abs=5e-5)
    for i, c in enumerate(CRITERIA):
        assert page.attr(c, "score") == pytest.approx(means[i], abs=1e-9)
        assert page.attr(c, "sigma") == pytest.approx(sigmas[i], abs=1e-9)
        assert page.attr(c, "weight") == pytest.approx(weights[i], abs=1e-9)
        assert page.attr(c, "coverage") == pytest.approx(0.97, abs=1e-9)

    # The five criteria were requested concurrently (the server holds each for 0.4 s).
    assert len(fake.requests) == 5
    assert fake.max_inflight == 5

    # Text-only criteria carry no image; the grounded ones carry exactly one JPEG data URL.
    for req in fake.requests:
        body = req["body"]
        assert body["temperature"] == 0
        assert body["logprobs"] is True and body["top_logprobs"] == 20
        assert req["headers"]["authorization"] == f"Bearer {KEY}"
        content = body["messages"][0]["content"]
        crit = criterion_of(body)
        if crit in ("correctness", "completeness"):
            images_sent = [p for p in content if p.get("type") == "image_url"]
            assert len(images_sent) == 1
            assert images_sent[0]["image_url"]["url"].startswith("data:image/jpeg;base64,")
        else:
            assert isinstance(content, str) and "image_url" not in json.dumps(body)
            assert "A dog runs across a grassy park." in content

    # Move γ with the keyboard: 25 steps left from 0.75 is 0.50, End is 1.00.
    slider = page.el("gamma-slider")
    slider.click()  # focus; clicking moves the thumb, so set a known value first
    slider.send_keys(Keys.HOME)
    for _ in range(74):
        slider.send_keys(Keys.RIGHT)
    assert float(slider.get_attribute("value")) == pytest.approx(0.75)
    assert page.overall() == pytest.approx(SPEC[0.75], abs=5e-5)
    for _ in range(25):
        slider.send_keys(Keys.LEFT)
    assert page.overall() == pytest.approx(closed_form(0.5)[0], abs=1e-9)
    assert page.overall() == pytest.approx(SPEC[0.5], abs=5e-5)
    slider.send_keys(Keys.END)
    assert page.overall() == pytest.approx(SPEC[1.0], abs=5e-5)
    for c in CRITERIA:
        assert page.attr(c, "weight") == pytest.approx(0.2, abs=1e-12)

    # Moving γ asked the model nothing.
    time.sleep(0.3)
    assert len(fake.requests) == 5


def test_named_gamma_points_and_plot(browser, app_url, fake, images):
    page = ready(browser, app_url, fake, images)
    page.evaluate()
    page.wait_settled()
    buttons = {b.text: b for b in browser.find_elements("css selector", ".gamma-marks button")}
    buttons["selective 0.01"].click()
    assert page.overall() == pytest.approx(4.95, abs=5e-5)
    buttons["inverse-variance 0.5"].click()
    assert page.overall() == pytest.approx(SPEC[0.5], abs=5e-5)
    plot = page.el("gamma-plot")
    assert len(plot.find_element("css selector", "polyline").get_attribute("points").split()) == 100
    # Clicking the right end of the plot sets γ = 1.
    ActionChains(browser).move_to_element_with_offset(plot, plot.size["width"] // 2 - 2, 0).click().perform()
    assert page.el("gamma-value").text == "1.00"
    assert page.overall() == pytest.approx(SPEC[1.0], abs=5e-5)
    assert len(fake.requests) == 5


def test_401_and_missing_rating_fail_only_their_own_cards(browser, app_url, fake, images):
    fake.behaviour = {"correctness": 401, "fluency": "no_rating"}
    page = ready(browser, app_url, fake, images)
    page.evaluate()
    page.wait_settled()
    assert page.state("correctness") == "error"
    assert "API key was rejected (HTTP 401)" in page.card("correctness").text
    assert "Incorrect API key provided" in page.card("correctness").text
    assert page.state("fluency") == "error"
    assert "no rating from 1 to 5" in page.card("fluency").text
    assert "I cannot evaluate this text." in page.card("fluency").text
    for c in ("completeness", "clarity", "conciseness"):
        assert page.state(c) == "done"
        assert "error" not in page.card(c).get_attribute("class")
    # The overall score is the harmonic combination of the three that succeeded.
    _, _, means, sigmas = closed_form(0.75)
    idx = [1, 2, 4]
    k = 2 * (1 - 0.75) / 0.75
    raw = [sigmas[i] ** -k for i in idx]
    expected = sum(r / sum(raw) * means[i] for r, i in zip(raw, idx))
    assert page.overall() == pytest.approx(expected, abs=1e-9)
    assert "from 3 of 5 criteria (2 failed" in page.el("overall-score").text
    # Never the key in what is shown.
    assert KEY not in browser.find_element("css selector", "body").text


def test_http_error_classes_each_get_their_own_sentence(browser, app_url, fake, images):
    fake.behaviour = {"correctness": 404, "completeness": 429, "clarity": 500}
    page = ready(browser, app_url, fake, images)
    page.set_number("retries-input", 0)  # the messages themselves, not the retrying
    page.evaluate()
    page.wait_settled()
    assert "Not found (HTTP 404). Check the model name" in page.card("correctness").text
    assert "does not exist or you do not have access" in page.card("correctness").text
    assert "Rate limited or out of quota (HTTP 429)" in page.card("completeness").text
    assert "retry after 7 s" in page.card("completeness").text
    assert "The server failed (HTTP 500)" in page.card("clarity").text
    assert page.state("fluency") == "done" and page.state("conciseness") == "done"
    assert "from 2 of 5 criteria" in page.el("overall-score").text


def test_missing_cors_headers_are_reported_not_hung(browser, app_url, images):
    from fakes.openai import FakeOpenAI

    server = FakeOpenAI(cors=False)
    try:
        page = ready(browser, app_url, server, images)
        page.evaluate()
        page.wait_settled()
        for c in CRITERIA:
            assert page.state(c) == "error"
            assert "does not allow requests from this page (CORS)" in page.card(c).text
    finally:
        server.stop()


def test_endpoint_without_logprobs_explains_itself(browser, app_url, fake, images):
    fake.behaviour = {c: "no_logprobs" for c in CRITERIA}
    page = ready(browser, app_url, fake, images)
    page.evaluate()
    page.wait_settled()
    for c in CRITERIA:
        assert page.state(c) == "error"
        assert "no token probabilities (logprobs)" in page.card(c).text
    assert page.overall() is None


def test_server_not_running_is_a_network_message(browser, app_url, fake, images):
    page = ready(browser, app_url, fake, images)
    page.fill("base-url-input", "http://127.0.0.1:9/v1")
    page.evaluate()
    page.wait_settled()
    for c in CRITERIA:
        assert "Could not reach http://127.0.0.1:9/v1/chat/completions" in page.card(c).text


def test_explain_and_export(browser, app_url, fake, images, downloads):
    page = ready(browser, app_url, fake, images)
    page.evaluate()
    page.wait_settled()
    page.el("explain-correctness").click()
    page.wait_for(lambda d: fake.explanation in page.el("explanation-correctness").text, "the explanation")
    explain = fake.requests[-1]["body"]
    assert [m["role"] for m in explain["messages"]] == ["user", "assistant", "user"]
    assert explain["messages"][1]["content"] == "3.95"
    assert explain["messages"][2]["content"] == "Why? Tell me the reason."

    page.el("export-json-button").click()
    path = page.wait_file(downloads, export_pattern("harmonic_eval"))
    raw = path.read_text()
    assert KEY not in raw
    doc = json.loads(raw)
    assert doc["metric"] == "harmonic_eval"
    assert doc["gamma"] == 0.75
    assert doc["task"] == "ic"
    assert doc["model"] == "gpt-4o"
    assert doc["base_url"] == fake.url
    assert doc["text"] == "A dog runs across a grassy park."
    assert [c["name"] for c in doc["criteria"]] == CRITERIA
    assert doc["criteria"][0]["distribution"] == pytest.approx([0, 0.05, 0.15, 0.6, 0.2], abs=1e-12)
    # Issue 18: the bars are hidden from screen readers, which read the same numbers as a table.
    card = page.card("correctness")
    assert card.find_element("css selector", ".bars").get_attribute("aria-hidden") == "true"
    spoken = page.d.execute_script(
        "return document.querySelector('[data-testid=distribution-text-correctness]').textContent;")
    assert spoken == "Probability of each rating: 1: 0.0 %, 2: 5.0 %, 3: 15.0 %, 4: 60.0 %, 5: 20.0 %."
    assert sum(c["weight"] for c in doc["criteria"]) == pytest.approx(1.0)
    assert doc["overall"] == pytest.approx(SPEC[0.75], abs=5e-5)


def test_api_key_stays_in_session_storage_unless_remembered(browser, app_url, fake, images):
    page = ready(browser, app_url, fake, images)
    page.evaluate()
    page.wait_settled()
    assert page.session_storage("hj.custom.api_key") == KEY
    assert page.local_storage("hj.custom.api_key") is None
    assert KEY not in browser.current_url
    page.el("remember-key-checkbox").click()
    assert page.local_storage("hj.custom.api_key") == KEY
    assert page.session_storage("hj.custom.api_key") is None
    # A reload restores the remembered key; the settings come back too.
    browser.refresh()
    page = AppPage(browser, app_url)
    assert page.el("api-key-input").get_attribute("value") == KEY
    assert page.el("base-url-input").get_attribute("value") == fake.url
    # The key was only ever sent to the configured endpoint, as a header.
    for entry in browser.get_log("browser"):
        assert KEY not in entry["message"]


def test_bad_image_shows_reason_and_page_keeps_working(browser, app_url, fake, images):
    page = AppPage(browser, app_url)
    page.upload(images / "not-an-image.png")
    page.wait_for(lambda d: page.el("image-error").is_displayed(), "the image error")
    assert "This is a PDF document, not an image" in page.el("image-error").text
    page.upload(images / "empty.png")
    page.wait_for(lambda d: "empty (0 bytes)" in page.el("image-error").text, "the empty-file error")
    page.upload(images / "small.png")
    page.wait_image()
    page.wait_for(lambda d: not page.el("image-error").is_displayed(), "the error to clear")
    assert "64×48 → sent as 64×48 JPEG" in page.el("image-info").text


def test_missing_inputs_are_named_before_any_request(browser, app_url, fake):
    page = AppPage(browser, app_url)
    page.set_backend(fake.url)
    page.select_task("vqa")
    page.evaluate()
    problems = page.el("form-problems").text
    assert "Add an image" in problems
    assert "Enter the answer to judge" in problems
    assert "needs the question" in problems
    assert fake.requests == []


def test_vqa_sends_question_to_grounded_criteria_only(browser, app_url, fake, images):
    page = ready(browser, app_url, fake, images, key="", text="A red ball.", task="vqa")
    page.fill("question-input", "What is the dog chasing?")
    page.evaluate()
    page.wait_settled()
    for req in fake.requests:
        text = json.dumps(req["body"])
        crit = criterion_of(req["body"])
        assert ("What is the dog chasing?" in text) == (crit in ("correctness", "completeness"))
        if crit == "correctness":
            assert "candidate answer for the given image and question" in text
    assert "authorization" not in fake.requests[0]["headers"]


RED_PIXELS_JS = """
const [url, x, y] = arguments;
const done = arguments[arguments.length - 1];
const img = new Image();
img.onload = () => {
  const c = document.createElement('canvas');
  c.width = img.width; c.height = img.height;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  done({w: img.width, h: img.height, px: Array.from(g.getImageData(x, y, 1, 1).data)});
};
img.src = url;
"""


def test_reg_box_is_drawn_in_red_into_the_sent_pixels(browser, app_url, fake, images):
    page = ready(browser, app_url, fake, images, text="the dog on the left", task="reg")
    page.evaluate()
    assert "Drag a box" in page.el("form-problems").text
    # Drag a box over the middle of the preview with the mouse.
    preview = page.el("image-preview")
    # In view, as a person would scroll to it before dragging.
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", preview)
    w, h = preview.size["width"], preview.size["height"]
    ActionChains(browser).move_to_element_with_offset(preview, -w // 4, -h // 4).click_and_hold().move_by_offset(
        w // 2, h // 2
    ).release().perform()
    page.wait_for(lambda d: page.el("box-left").get_attribute("value") not in ("", None), "the box")
    left = float(page.el("box-left").get_attribute("value"))
    assert 20 <= left <= 30
    page.evaluate()
    page.wait_settled()
    grounded = [r for r in fake.requests if r["body"]["messages"][0]["content"].__class__ is list]
    assert len(grounded) == 2
    url = grounded[0]["body"]["messages"][0]["content"][1]["image_url"]["url"]
    top = float(page.el("box-top").get_attribute("value"))
    x, y = int(1024 * left / 100), int(768 * (top + 10) / 100)
    on_edge = browser.execute_async_script(RED_PIXELS_JS, url, x, y)
    assert (on_edge["w"], on_edge["h"]) == (1024, 768)
    r, g, b, _ = on_edge["px"]
    assert r > 200 and g < 60 and b < 60, on_edge
    inside = browser.execute_async_script(RED_PIXELS_JS, url, 512, 384)["px"]
    assert abs(inside[0] - 90) < 12 and abs(inside[2] - 160) < 12, inside
    # Text-only criteria still get no image.
    assert sum("image_url" in json.dumps(r["body"]) for r in fake.requests) == 2


SYNTHETIC_FILE_EVENT_JS = """
const [kind, target] = arguments;
const done = arguments[arguments.length - 1];
const c = document.createElement('canvas');
c.width = 300; c.height = 200;
const g = c.getContext('2d');
g.fillStyle = '#2a7'; g.fillRect(0, 0, 300, 200);
c.toBlob((blob) => {
  const dt = new DataTransfer();
  dt.items.add(new File([blob], kind + '.png', {type: 'image/png'}));
  const el = document.querySelector(target);
  const ev = kind === 'drop'
    ? new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true})
    : new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true});
  el.dispatchEvent(ev);
  done(true);
}, 'image/png');
"""


@pytest.mark.parametrize("kind,target", [("drop", ".dropzone"), ("paste", '[data-testid="text-input"]')])
def test_image_by_drop_and_by_paste(browser, app_url, kind, target):
    page = AppPage(browser, app_url)
    browser.execute_async_script(SYNTHETIC_FILE_EVENT_JS, kind, target)
    page.wait_image()
    assert page.el("image-info").text.startswith(f"{kind}.png · 300×200")


def test_model_text_is_shown_as_text_never_as_html(browser, app_url, fake, images):
    payload = '<img src=x onerror="document.title=\'pwned\'"><b>bold</b>'
    fake.explanation = payload
    page = ready(browser, app_url, fake, images, text=payload)
    page.evaluate()
    page.wait_settled()
    page.el("explain-fluency").click()
    page.wait_for(lambda d: payload in page.el("explanation-fluency").text, "the explanation")
    assert page.el("explanation-fluency").find_elements("css selector", "img, b") == []
    assert browser.title != "pwned"


def test_silent_server_times_out_instead_of_spinning(browser, app_url, fake, images):
    fake.delay = 3.0
    page = ready(browser, app_url, fake, images)
    page.set_number("timeout-input", 1)
    started = time.time()
    page.evaluate()
    page.wait_settled(timeout=10)
    assert time.time() - started < 2.8
    for c in CRITERIA:
        assert page.state(c) == "error"
        assert "did not answer within 1 s" in page.card(c).text


def grounded_details(requests):
    """The `detail` of each image sent (None: no field, i.e. the API's `auto`), per criterion."""
    out = []
    for req in requests:
        content = req["body"]["messages"][0]["content"]
        if isinstance(content, list):
            for part in content:
                if part.get("type") == "image_url":
                    out.append((criterion_of(req["body"]), part["image_url"].get("detail")))
    return sorted(out)


def test_paper_detail_by_default_low_detail_extension_and_criteria_subset(browser, app_url, fake, images, downloads):
    page = ready(browser, app_url, fake, images)
    assert Select(page.el("fidelity-select")).first_selected_option.get_attribute("value") == "paper"
    assert not page.el("ext-he-low-detail").is_selected()
    page.evaluate()
    page.wait_settled()
    # The paper names no detail: the user's choice (auto, the API default) for every grounded criterion.
    assert grounded_details(fake.requests) == [("completeness", None), ("correctness", None)]

    page.el("ext-he-low-detail").click()
    assert Select(page.el("fidelity-select")).first_selected_option.get_attribute("value") == "extended"
    page.evaluate()
    page.wait_for(lambda d: len(fake.requests) == 7, "the two grounded criteria again")
    page.wait_settled()
    # Only the image requests changed (the text-only ones were answered from the cache).
    assert grounded_details(fake.requests[5:]) == [("completeness", "low"), ("correctness", "low")]

    # Table 7's subset, back on the paper's detail: only two criteria are requested and weighed.
    Select(page.el("fidelity-select")).select_by_value("paper")
    assert not page.el("ext-he-low-detail").is_selected()
    subset = page.el("criteria-subset")
    for c in ("clarity", "fluency", "conciseness"):
        subset.find_element("css selector", f'input[value="{c}"]').click()
    page.el("fresh-run-checkbox").click()
    page.evaluate()
    page.wait_for(lambda d: len(fake.requests) == 9, "the two chosen criteria")
    page.wait_for(lambda d: all(page.state(c) == "done" for c in ("correctness", "completeness")), "the two cards")
    assert sorted(criterion_of(r["body"]) for r in fake.requests[7:]) == ["completeness", "correctness"]
    assert [page.state(c) for c in ("clarity", "fluency", "conciseness")] == ["idle"] * 3
    _, _, means, sigmas = closed_form(0.75)
    k = 2 * (1 - 0.75) / 0.75
    w = [s ** -k for s in sigmas[:2]]
    expected = (w[0] * means[0] + w[1] * means[1]) / sum(w)
    assert page.overall() == pytest.approx(expected, abs=1e-9)
    assert "from 2 of 5 criteria" in page.el("overall-score").text

    page.el("export-json-button").click()
    doc = json.loads(page.wait_file(downloads, export_pattern("harmonic_eval")).read_text())
    assert doc["fidelity"] == "paper" and doc["extensions"] == []
    assert doc["settings"]["criteria"] == ["correctness", "completeness"]
    assert doc["settings"]["image_detail"] == "auto"
    assert [("score" in c) for c in doc["criteria"]] == [True, True, False, False, False]
    assert doc["overall"] == pytest.approx(expected, abs=1e-9)
