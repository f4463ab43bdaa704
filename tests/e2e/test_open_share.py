"""Issue 19, items 2 and 3 beyond HarmonicEval: a FLEUR / RefFLEUR or G-VEval result, exported
then opened from its file, or opened from its share link in a fresh browser, shows as if it
had just run (the metric's own panel, the same score, its explanation, Export again), with no
request to any host but the page's. So does MAEV, with each trial's score and evidence.

The runs go to the loopback fakes of test_fleur.py and test_g_veval.py: their exact token
probabilities are what make "the same score" a sharp check, and no real engine here prints
them on demand."""

import json

import pytest
from selenium.webdriver.support.ui import Select

from app_page import AppPage, export_pattern, tid
from conftest import DIST
from fakes.openai import sure
from test_examples import _shared_doc, other_origins

import test_fleur
import test_g_veval
import test_maev

KEY = "sk-open-share-secret-0123456789"


def run_fleur(browser, app_url, images, llama, metric):
    llama.script = [sure("0"), sure("."), test_fleur.digits_step("8", test_fleur.P), test_fleur.digits_step("5", test_fleur.Q)]
    page = test_fleur.ready(browser, app_url, images, llama, "llama_server", "local", metric)
    if metric == "ref_fleur":
        page.fill("references-input", "\n".join(test_fleur.REFERENCES))
    page.evaluate()
    test_fleur.wait_score(page)
    return page


def run_gveval(browser, app_url, images, gpt4o):
    alts = [("85", 0.6), ("80", 0.25), ("90", 0.1), ("The", 0.05)]
    gpt4o.script = test_g_veval.words("Accurate. The final score is") + [sure(" $"), ("85", alts), sure("$.")]
    page = test_g_veval.ready(browser, app_url, gpt4o, "openai", "gpt-4o", "ref_free", images / "photo.png")
    page.fill("api-key-input", KEY)
    # An output budget of the user's own: an opened file's export must record it again.
    page.set_number("max-tokens-input", 700)
    page.evaluate()
    test_g_veval.wait_score(page)
    return page


def run_maev(browser, app_url, gpt4o):
    gpt4o.script = [sure("'Evaluation Evidence': The answer says a dog, the caption a cat.\n'Assistant Score': "),
                   ("0", [("0", 0.7), ("2", 0.3)])]
    page = test_maev.ready(browser, app_url, gpt4o, "openai", "gpt-4o")
    page.fill("api-key-input", KEY)
    page.evaluate()
    test_maev.wait_trials(page, 5)
    return page


def trials(page):
    rows = page.d.find_elements("css selector", "[data-testid^='trial-']")
    return [(r.get_attribute("data-testid"), r.get_attribute("data-state"), r.get_attribute("data-score"), r.text) for r in rows]


def shown(page):
    """What the metric's panel shows: its score, its note and its explanation."""
    if page.d.find_elements("css selector", "[data-testid='trial-0']"):
        return (page.overall(), page.el("verdict").get_attribute("data-value"), trials(page))
    note = page.d.find_elements("css selector", "[data-testid='fleur-scheme'], [data-testid='g-veval-method']")
    return (page.overall(), note[0].get_attribute("data-value") if note else None, page.el("explanation").text)


@pytest.mark.parametrize("metric", ["fleur", "ref_fleur", "g_veval", "maev"])
def test_an_exported_result_opens_from_its_file_and_its_link_as_if_just_run(browser, app_url, images, llama, gpt4o, downloads, tmp_path, metric):
    from conftest import make_driver
    if metric == "g_veval":
        page, server = run_gveval(browser, app_url, images, gpt4o), gpt4o
    elif metric == "maev":
        page, server = run_maev(browser, app_url, gpt4o), gpt4o
    else:
        page, server = run_fleur(browser, app_url, images, llama, metric), llama
    if metric == "fleur":
        page.el("explain-button").click()
        page.wait_for(lambda d: page.el("explanation").text == llama.explanation, "the explanation")
    before = shown(page)
    assert before[0] is not None and (metric == "ref_fleur" or before[2])
    sent = len(server.requests)

    # Export, then open the file on a fresh page: the metric's own panel, the same numbers.
    page.el("export-json-button").click()
    exported = page.wait_file(downloads, export_pattern(metric))
    browser.execute_script("localStorage.clear(); sessionStorage.clear();")
    fresh = AppPage(browser, app_url)
    fresh.el("open-result-input").send_keys(str(exported))
    fresh.wait_for(lambda d: fresh.overall() is not None, "the opened result")
    assert Select(fresh.el("metric-select")).first_selected_option.get_attribute("value") == metric
    assert shown(fresh) == before
    assert not fresh.d.find_elements("css selector", "[data-testid='opened-summary']")
    if metric == "maev":
        assert fresh.el("question-input").get_attribute("value") == test_maev.QUESTION
        assert fresh.el("reference-answer-input").get_attribute("value") == test_maev.REFERENCE
    if metric == "ref_fleur":
        assert fresh.el("references-input").get_attribute("value") == "\n".join(test_fleur.REFERENCES)
    # Export again: the same document, request settings included (the backend's output
    # budget and image detail come back from the file), but for the base URL, which an opened
    # file does not keep.
    fresh.el("export-json-button").click()
    again = json.loads(fresh.wait_file(downloads, export_pattern(metric)).read_text())
    first = json.loads(exported.read_text())
    if metric == "g_veval":
        assert first["settings"]["max_tokens"] == 700
    for doc in (first, again):
        doc.pop("base_url")
    assert again == first

    # Copy link: a fresh browser opens it with no request to anyone but the page.
    fresh.el("copy-link-button").click()
    fresh.wait_for(lambda d: "#r=" in fresh.el("share-link").text, "the link")
    link = fresh.el("share-link").text
    text = _shared_doc(link)
    assert KEY not in text and "base_url" not in json.loads(text)
    other_browser = make_driver(tmp_path / "fresh-profile", downloads)
    try:
        other = AppPage(other_browser, link)
        other.wait_for(lambda d: other.overall() is not None, "the shared result")
        assert "a share link" in other.el("opened-note").text
        assert shown(other) == before
        assert other_origins(other_browser, app_url) == []
    finally:
        other_browser.quit()
    assert len(server.requests) == sent, "opening sends nothing"


def test_a_result_file_of_an_unknown_provider_opens_with_a_sentence_not_as_openai(browser, app_url, downloads, tmp_path):
    """Issue 69: a result file that names a provider the page does not know opens with its scores
    and a sentence that says so; the file's own claim is quoted as it is, never as OpenAI, and
    an export of it names that provider again."""
    doc = json.loads((DIST / "examples" / "gamma-flip-a.json").read_text())
    doc["provider"] = "mistral"
    path = tmp_path / "unknown-provider.json"
    path.write_text(json.dumps(doc))
    page = AppPage(browser, app_url)
    page.el("open-result-input").send_keys(str(path))
    page.wait_for(lambda d: page.overall() is not None, "the opened result")
    said = page.el("opened-provider-unknown").text
    assert "\u201cmistral\u201d, which is not one this page knows" in said, said
    assert "through mistral" in page.el("opened-model").text
    # Exported again, the result still names its own provider, not the protocol it is shown with.
    page.el("export-json-button").click()
    again = json.loads(page.wait_file(downloads, export_pattern("harmonic_eval")).read_text())
    assert again["provider"] == "mistral", again["provider"]
    known = tmp_path / "known.json"
    known.write_text(json.dumps({**doc, "provider": "gemini"}))
    page = AppPage(browser, app_url)
    page.el("open-result-input").send_keys(str(known))
    page.wait_for(lambda d: page.overall() is not None, "the opened result")
    assert not browser.find_elements(*tid("opened-provider-unknown"))
