"""Issue 19: a first visit that works without a key. The examples gallery (recorded result files
fetched from the page's own origin), opening an exported result from its file, the static shell
in index.html, the key a provider needs said before sending, one shared failure shown once, and
the result brought into view with focus on the score."""

import json
import re
from html import unescape
from pathlib import Path
from urllib.parse import urlparse

import pytest
from selenium.webdriver.support.ui import Select

from app_page import CRITERIA, AppPage, export_pattern
from fakes.openai import FakeOpenAI

DIST = Path(__file__).resolve().parents[2] / "dist"


def named_gamma_buttons(d):
    return {b.text: b for b in d.find_elements("css selector", ".gamma-marks button")}


def open_example(page, name):
    page.wait_for(lambda d: d.find_elements("css selector", f"[data-testid='demo-{name}']"), f"the {name} example", 20)
    page.el(f"demo-{name}").click()
    page.wait_for(lambda d: page.el("opened-note").is_displayed() and page.overall() is not None, "the example's score")


def overall_at_named_gammas(page):
    out = {}
    for label in named_gamma_buttons(page.d):
        named_gamma_buttons(page.d)[label].click()
        out[label] = page.overall()
    return out


def local_stamp(d):
    """The browser's local time as export names write it (2026-11-23-0412)."""
    return d.execute_script(
        "const t = new Date(), p = n => String(n).padStart(2, '0');"
        "return `${t.getFullYear()}-${p(t.getMonth() + 1)}-${p(t.getDate())}-${p(t.getHours())}${p(t.getMinutes())}`;")


def other_origins(d, app_url):
    origin = urlparse(app_url).netloc
    names = d.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    return [n for n in names if urlparse(n).netloc not in (origin, "")]


def test_examples_open_with_no_key_move_gamma_explain_export_and_ask_no_one(browser, app_url, downloads):
    page = AppPage(browser, app_url)
    assert page.el("demo-gallery").is_displayed()
    open_example(page, "gamma-flip-a")
    assert "Constructed for illustration" in page.el("opened-source").text
    for c in CRITERIA:
        assert page.state(c) == "done", c
    assert page.el("image-preview").get_attribute("src").startswith("data:image/jpeg")
    assert "opened from a result file" in page.el("image-info").text
    a = overall_at_named_gammas(page)
    # Explain shows the stored answer without asking anyone.
    assert "nothing is wrong" in page.card("correctness").text
    open_example(page, "gamma-flip-b")
    b = overall_at_named_gammas(page)
    assert set(a) >= {"selective 0.01", "uniform 1"}, a
    # The teacher's case: A leads when γ is selective, B when it is uniform.
    assert a["selective 0.01"] > b["selective 0.01"] and a["uniform 1"] < b["uniform 1"], (a, b)
    before = local_stamp(browser)
    page.el("export-json-button").click()
    exported = page.wait_file(downloads, export_pattern("harmonic_eval"))
    # Named after the metric, the text's first six words and the browser's local time.
    stamps = {before, local_stamp(browser)}
    assert exported.name in {f"harmonic_eval-two-squares-one-red-and-one-{t}.json" for t in stamps}, exported.name
    doc = json.loads(exported.read_text())
    assert doc["text"].startswith("Two squares") and doc["explanations"]["clarity"] == "Easy to follow."
    assert other_origins(browser, app_url) == []


def test_an_exported_result_opens_from_its_file_with_the_same_scores(browser, app_url, downloads):
    page = AppPage(browser, app_url)
    open_example(page, "gamma-flip-a")
    named_gamma_buttons(browser)["inverse-variance 0.5"].click()
    before = overall_at_named_gammas(page)
    page.el("export-json-button").click()
    exported = page.wait_file(downloads, export_pattern("harmonic_eval"))
    browser.delete_all_cookies()
    browser.execute_script("localStorage.clear(); sessionStorage.clear();")
    page = AppPage(browser, app_url)  # a fresh page: nothing shown
    page.el("open-result-input").send_keys(str(exported))
    page.wait_for(lambda d: page.overall() is not None, "the opened result")
    assert page.el("opened-note").text.startswith(f"Opened from {exported.name}")
    assert overall_at_named_gammas(page) == pytest.approx(before, abs=1e-12)
    assert "nothing is wrong" in page.card("correctness").text
    assert other_origins(browser, app_url) == []


def test_a_damaged_result_file_gets_a_sentence_and_the_page_keeps_what_it_had(browser, app_url, tmp_path):
    page = AppPage(browser, app_url)
    page.fill("text-input", "My own caption.")
    bad = tmp_path / "bad.json"
    doc = json.loads((DIST / "examples" / "gamma-flip-a.json").read_text())
    doc["criteria"][0]["score"] = 1.0  # a score its distribution does not give
    bad.write_text(json.dumps(doc))
    page.el("open-result-input").send_keys(str(bad))
    page.wait_for(lambda d: page.el("open-result-error").text, "the refusal")
    assert "score its probabilities do not give" in page.el("open-result-error").text
    assert page.el("text-input").get_attribute("value") == "My own caption."
    assert page.overall() is None


def test_the_static_shell_shows_before_the_wasm_and_matches_the_app(browser, app_url):
    html = (DIST / "index.html").read_text()
    shell = re.search(r'<div[^>]*\bid="?static-shell"?.*?</main>', html, re.S)
    assert shell, "index.html carries the static shell"
    page = AppPage(browser, app_url)
    page.wait_for(lambda d: not d.find_elements("id", "static-shell"), "the shell to go")
    # The shell's header and tabs say what the live page says.
    for sel in [".topbar h1", ".tagline", "[data-testid='tab-single']", "[data-testid='tab-batch']",
                "label[for='image-input']", ".dropzone .hint", "label[for='text-input']",
                "[data-testid='evaluate-button']"]:
        text = browser.find_element("css selector", sel).text
        assert text and text in unescape(shell.group(0)), sel
    # And its fields are the app's (issue 43: the app adopts what was entered in them).
    assert browser.find_element("id", "text-input").get_attribute("placeholder") in unescape(shell.group(0))
    # With scripts off, the shell is what a visitor sees at once.
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.get(app_url)
        assert browser.find_element("css selector", "#static-shell .topbar h1").text == "harmonic-judge"
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})


def test_a_provider_that_needs_a_key_says_so_before_sending(browser, app_url, images):
    page = AppPage(browser, app_url)
    Select(page.el("preset-select")).select_by_value("openai")
    page.fill("api-key-input", "")
    assert "needs an API key" in page.el("key-needed").text
    page.upload(images / "photo.png")
    page.wait_image()
    page.fill("text-input", "A dog runs across a grassy park.")
    page.evaluate()
    assert "needs an API key" in page.el("form-problems").text
    for c in CRITERIA:
        assert page.state(c) == "idle"
    assert other_origins(browser, app_url) == []
    # Pointed at another server (a proxy, a local one speaking OpenAI's format), the preset no
    # longer says whether a key is needed: nothing is refused before sending.
    own = page.el("base-url-input").get_attribute("value")
    page.fill("base-url-input", "http://127.0.0.1:9/v1")
    page.wait_for(lambda d: not page.el("key-needed").is_displayed(), "the note to go for another host")
    page.fill("base-url-input", own)
    page.wait_for(lambda d: page.el("key-needed").is_displayed(), "the note to come back")
    page.fill("api-key-input", "sk-something")
    page.wait_for(lambda d: not page.el("key-needed").is_displayed(), "the note to go")


def test_one_failure_shared_by_every_criterion_is_shown_once_and_focus_goes_to_the_score(browser, app_url, images):
    fake = FakeOpenAI(delay=0.05, required_key="sk-right")
    try:
        page = AppPage(browser, app_url)
        page.set_backend(fake.url, "gpt-4o", "sk-wrong")
        page.set_number("retries-input", 0)
        page.upload(images / "photo.png")
        page.wait_image()
        page.fill("text-input", "A dog runs across a grassy park.")
        page.evaluate()
        page.wait_settled()
        shared = page.el("shared-failure")
        assert "Every criterion failed for the same reason" in shared.text
        alerts = [e for e in browser.find_elements("css selector", ".cards [role='alert']") if e.text]
        assert alerts == [], "the cards do not announce it five more times"
        assert browser.execute_script("return document.activeElement.id") == "overall-score"
        # A working key: the shared message goes, the scores come, focus is on the score.
        page.fill("api-key-input", "sk-right")
        page.evaluate()
        page.wait_settled()
        assert shared.text == "" and page.overall() is not None
        assert browser.execute_script("return document.activeElement.id") == "overall-score"
    finally:
        fake.stop()


def test_the_weights_chart_teaches_gamma_with_a_readout_a_table_and_a_glossary(browser, app_url):
    page = AppPage(browser, app_url)
    open_example(page, "gamma-flip-a")
    plot = page.el("weights-plot")
    assert plot.get_attribute("data-points") == "21"
    bands = plot.find_elements("css selector", "polygon.band")
    assert len(bands) == 5
    named_gamma_buttons(browser)["selective 0.01"].click()
    # Keyboard focus on the first band reads it out: correctness (the surest) takes the weight.
    # (The chart is redrawn on every γ change: look the bands up again.)
    bands = page.el("weights-plot").find_elements("css selector", "polygon.band")
    browser.execute_script("arguments[0].focus()", bands[0])
    readout = page.el("weights-readout")
    page.wait_for(lambda d: readout.text.startswith("Correctness: weight"), "the readout")
    assert "100 %" in readout.text and "σ = 0.22" in readout.text, readout.text
    named_gamma_buttons(browser)["uniform 1"].click()
    page.wait_for(lambda d: "20 %" in readout.text, "the readout at γ = 1")
    from selenium.webdriver import ActionChains
    plot = page.el("weights-plot")
    # Hovering reads another band: find a point of the clarity band and move the mouse there.
    spot = browser.execute_script("""
        const svg = arguments[0], r = svg.getBoundingClientRect();
        for (let fx = 0.98; fx > 0.1; fx -= 0.02) for (let fy = 0.05; fy < 0.8; fy += 0.02) {
          const e = document.elementFromPoint(r.left + r.width * fx, r.top + r.height * fy);
          if (e && e.classList.contains('band-2')) return [Math.round((fx - 0.5) * r.width), Math.round((fy - 0.5) * r.height)];
        }
        return null;""", plot)
    assert spot, "the clarity band is drawn"
    ActionChains(browser).move_to_element_with_offset(plot, *spot).perform()
    page.wait_for(lambda d: readout.text.startswith("Clarity"), "the hover readout")
    # The table: γ from 0.01 to 1, each row's weights adding up to 100 %.
    browser.execute_script("document.querySelector('.weights-data').open = true")
    rows = browser.execute_script(
        "return [...document.querySelectorAll('[data-testid=weights-table] tbody tr')].map(r => [...r.cells].map(c => c.textContent));")
    assert rows[0][0] == "0.01" and rows[-1][0] == "1.00"
    for r in rows:
        assert abs(sum(float(c.rstrip(" %")) for c in r[1:]) - 100) <= 3, r
    glossary = browser.find_element("css selector", ".weights .glossary").text
    for term in ["σ", "Coverage", "Selective", "Inverse-variance", "Uniform"]:
        assert term in glossary


def _shared_doc(link):
    import base64
    import zlib
    data = link.split("#r=", 1)[1]
    raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    return zlib.decompress(raw, -15).decode()


def test_a_share_link_opens_the_result_in_a_fresh_context_without_key_or_base_url(browser, app_url, tmp_path, downloads):
    from conftest import make_driver
    page = AppPage(browser, app_url)
    Select(page.el("preset-select")).select_by_value("openai")
    page.fill("api-key-input", "sk-share-secret-0123456789")
    open_example(page, "gamma-flip-b")
    named_gamma_buttons(browser)["selective 0.01"].click()
    before = overall_at_named_gammas(page)
    page.el("copy-link-button").click()
    page.wait_for(lambda d: "#r=" in page.el("share-link").text, "the link")
    link = page.el("share-link").text
    assert link.startswith(app_url) and browser.current_url == link
    text = _shared_doc(link)
    doc = json.loads(text)
    assert "sk-share-secret" not in text and "base_url" not in doc
    assert doc["image"].startswith("data:image/jpeg;base64,") and doc["explanations"]["fluency"] == "Natural English."
    page.el("copy-embed-button").click()
    # The embed code frames the embed (embed.html?embed, which other sites may frame), not the
    # full evaluator, with the same result.
    embed = link.replace("/#r=", "/embed.html?embed#r=", 1)
    assert embed != link and page.el("embed-code").text.startswith(f'<iframe src="{embed}"')
    fresh = make_driver(tmp_path / "fresh-profile", downloads)
    try:
        other = AppPage(fresh, link)
        other.wait_for(lambda d: other.overall() is not None, "the shared result")
        assert "a share link" in other.el("opened-note").text
        assert overall_at_named_gammas(other) == pytest.approx(before, abs=1e-12)
        assert "Natural English." in other.card("fluency").text
        assert other.el("image-preview").get_attribute("src").startswith("data:image/jpeg")
        assert other_origins(fresh, app_url) == []
        # A damaged link gets a sentence, not a blank or a crash.
        fresh.get(app_url + "#r=%%%")
        fresh.refresh()  # a change of fragment alone does not reload the page
        other.wait_for(lambda d: d.find_elements("css selector", "[data-testid='form-problems']"), "the app")
        other.wait_for(lambda d: "share link is damaged" in other.el("form-problems").text, "the sentence")
    finally:
        fresh.quit()


def test_a_result_too_large_for_a_link_says_so(browser, app_url, tmp_path):
    page = AppPage(browser, app_url)
    doc = json.loads((DIST / "examples" / "gamma-flip-a.json").read_text())
    # Noise does not compress: 40 KB of it in the answers cannot fit a 16,000-character link.
    import os
    import base64
    doc["criteria"][0]["answer"] = base64.b64encode(os.urandom(30000)).decode()
    big = tmp_path / "big.json"
    big.write_text(json.dumps(doc))
    page.el("open-result-input").send_keys(str(big))
    page.wait_for(lambda d: page.overall() is not None, "the opened result")
    page.el("copy-link-button").click()
    page.wait_for(lambda d: page.el("share-error").text, "the message")
    assert page.el("share-error").text.startswith("This result is too large for a link")
    assert not page.el("share-link").is_displayed()


def test_every_example_opens_and_says_where_its_numbers_come_from(browser, app_url):
    """The gallery covers every metric, and each opens as if just run, in its own panel; the
    recorded one names its model and server."""
    page = AppPage(browser, app_url)
    manifest = json.loads((DIST / "examples" / "manifest.json").read_text())
    assert {e["metric"] for e in manifest} == {"harmonic_eval", "fleur", "g_veval", "maev"}
    for e in manifest:
        open_name = e["name"]
        page.wait_for(lambda d: d.find_elements("css selector", f"[data-testid='demo-{open_name}']"), open_name, 20)
        page.el(f"demo-{open_name}").click()
        page.wait_for(lambda d: e["title"] in page.el("opened-note").text, f"{open_name} to open")
        source = page.el("opened-source").text
        assert source.startswith("Recorded on") or source.startswith("Constructed for illustration"), source
        doc = json.loads((DIST / "examples" / e["file"]).read_text())
        if e["name"].startswith("compare-"):
            # A comparison opens as candidates: a ranking, not one overall score.
            page.wait_for(lambda d: page.d.find_elements("css selector", "[data-testid='ranking'][data-order*=',']"), "the ranking")
        elif e["metric"] == "harmonic_eval":
            assert page.overall() is not None
        else:
            # Opened as if just run: the metric's own panel, its score checked against the file.
            recorded = doc.get("smoothed_score", doc.get("score", doc.get("mean")))
            page.wait_for(lambda d: page.overall() is not None, f"{open_name}'s score")
            assert page.overall() == pytest.approx(recorded, abs=1e-9)
    recorded = next(e for e in manifest if e["name"].startswith("recorded-"))
    page.el(f"demo-{recorded['name']}").click()
    page.wait_for(lambda d: "SmolLM2-135M-Instruct" in page.el("opened-source").text, "the recorded example")
    assert "llama-server" in page.el("opened-source").text
    assert other_origins(browser, app_url) == []


def test_the_gallery_is_above_the_inputs_on_a_phone_and_tops_the_results_on_a_wide_screen(browser, app_url):
    page = AppPage(browser, app_url)
    page.wait_for(lambda d: d.find_elements("css selector", "[data-testid='demo-gamma-flip-a']"), "the examples", 20)
    rect = lambda sel: browser.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height};", sel)
    for width in (390, 1440):
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        gallery, inputs, results = (rect(s) for s in (
            "[data-testid='demo-gallery']", "section.column.inputs", "section.column.results"))
        if width == 390:
            # A phone: the gallery first, in full view without scrolling, then the inputs.
            assert gallery["y"] + gallery["h"] <= inputs["y"] and gallery["y"] < 900, (gallery, inputs)
        else:
            # Wide: beside the inputs, above the results, its top level with the inputs' top.
            assert gallery["x"] >= inputs["x"] + inputs["w"], (gallery, inputs)
            assert abs(gallery["y"] - inputs["y"]) < 2 and gallery["y"] + gallery["h"] <= results["y"], (gallery, results)
            # No empty band between the gallery and the results however tall the inputs are.
            assert results["y"] - (gallery["y"] + gallery["h"]) < 40, (gallery, results)
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_opened_note_goes_when_a_candidate_is_added(browser, app_url):
    # "Opened from …: no request was sent" describes the opened result; once a candidate is
    # added the page shows a comparison being set up, which the note does not describe.
    page = AppPage(browser, app_url)
    open_example(page, "gamma-flip-a")
    page.add_candidate()
    page.wait_for(lambda d: not d.find_elements("css selector", "[data-testid='opened-note']"), "the note to go")


def test_the_opened_note_goes_when_a_run_starts(browser, app_url, fake, images):
    # After Evaluate the page shows a run of its own, sent to a backend: "no request was sent"
    # would be false.
    page = AppPage(browser, app_url)
    open_example(page, "gamma-flip-a")
    assert page.d.find_elements("css selector", "[data-testid='opened-note']")
    page.set_backend(fake.url, "gpt-4o", "sk-test-opened-note")
    page.upload(images / "photo.png")
    page.wait_image()
    page.evaluate()
    page.wait_settled(60)
    assert not page.d.find_elements("css selector", "[data-testid='opened-note']")
    assert len(fake.requests) == 5
