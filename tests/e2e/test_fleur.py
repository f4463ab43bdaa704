"""End-to-end: FLEUR and RefFLEUR in headless Chromium against loopback servers in llama.cpp's
format (one digit per token, SPEC §2's test vector) and OpenAI's (GPT-4o's multi-digit tokens)."""

import json

import pytest
from selenium.webdriver.support.ui import Select

from spec_vectors import P, Q
from app_page import AppPage, export_pattern
from fakes.openai import sure

CAPTION = "A brown dog runs across a grassy park."
REFERENCES = ["A dog running on grass.", "A brown dog plays in a park."]


def digits_step(chosen, p):
    alts = [(str(i), pi) for i, pi in enumerate(p)]
    alts.append(("</s>", max(1e-9, 1 - sum(p))))  # the rest of the vocabulary's mass
    return (chosen, alts)


def ready(browser, app_url, images, server, preset, model, metric):
    page = AppPage(browser, app_url)
    Select(page.el("metric-select")).select_by_value(metric)
    Select(page.el("preset-select")).select_by_value(preset)
    page.fill("base-url-input", server.url)
    page.fill("model-input", model)
    page.upload(images / "photo.png")
    page.wait_image()
    page.fill("text-input", CAPTION)
    return page


def wait_score(page):
    page.wait_for(
        lambda d: page.el("overall-score").get_attribute("data-state") in ("done", "error"),
        "the FLEUR score",
    )


def user_text(body):
    content = body["messages"][0]["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def test_fleur_on_llama_server_reproduces_the_papers_example(browser, app_url, images, llama):
    llama.script = [sure("0"), sure("."), digits_step("8", P), digits_step("5", Q)]
    page = ready(browser, app_url, images, llama, "llama_server", "local", "fleur")
    # HarmonicEval's controls are out of the way; there is no reference box for FLEUR.
    assert not page.el("task-select").is_displayed()
    assert not page.el("references-input").is_displayed()
    page.evaluate()
    wait_score(page)

    expected = 0.1 * sum(i * p for i, p in enumerate(P)) + 0.01 * sum(i * q for i, q in enumerate(Q))
    smoothed = float(page.el("overall-score").get_attribute("data-value"))
    assert smoothed == pytest.approx(expected, abs=1e-12)
    assert smoothed == pytest.approx(0.806172, abs=5e-7)
    assert float(page.el("raw-score").get_attribute("data-value")) == 0.85
    assert page.el("fleur-scheme").get_attribute("data-value") == "per_digit"
    assert "Lee et al." in page.d.page_source

    (req,) = llama.requests
    body = req["body"]
    assert body["logprobs"] is True and body["top_logprobs"] == 20 and body["temperature"] == 0
    content = body["messages"][0]["content"]
    assert content[0]["type"] == "image_url", "the image comes first, as in the authors' code"
    assert content[1]["text"] == (
        "Your task is to evaluate and rate the caption on a scale of 0.0 to 1.0 based on the given "
        "Grading Criteria. (Print Real Number Score ONLY)\n\nGrading Criteria:\n\n"
        "0.0: The caption does not describe the image at all.\n"
        "1.0: The caption accurately and clearly describes the image.\n\n"
        f"Caption: {CAPTION}\n\nScore(Choose a rating from 0.0 to 1.0):"
    )

    page.el("explain-button").click()
    page.wait_for(lambda d: page.el("explanation").text == llama.explanation, "the explanation")
    explain = llama.requests[-1]["body"]["messages"]
    assert [m["role"] for m in explain] == ["user", "assistant", "user"]
    assert float(explain[1]["content"]) == smoothed
    assert explain[2]["content"] == "Why? Tell me the reason."


def test_ref_fleur_on_gpt4o_multi_digit_tokens_and_export(browser, app_url, images, gpt4o, downloads):
    alts = [("85", 0.5), ("8", 0.2), ("9", 0.1), ("75", 0.1), ("90", 0.05), ("\n", 0.05)]
    gpt4o.script = [sure("0"), sure("."), ("85", alts)]
    page = ready(browser, app_url, images, gpt4o, "openai", "gpt-4o", "ref_fleur")
    page.fill("references-input", "\n".join(REFERENCES) + "\n\n")
    page.evaluate()
    wait_score(page)

    expected = 0.5 * 0.85 + 0.2 * 0.8 + 0.1 * 0.9 + 0.1 * 0.75 + 0.05 * 0.9
    assert float(page.el("overall-score").get_attribute("data-value")) == pytest.approx(expected, abs=1e-12)
    assert float(page.el("raw-score").get_attribute("data-value")) == 0.85
    assert page.el("fleur-scheme").get_attribute("data-value") == "multi_digit"
    text = user_text(gpt4o.requests[0]["body"])
    assert "rate the candidate caption" in text
    assert f"Reference Captions: {REFERENCES[0]}\n{REFERENCES[1]}\n\nCandidate Caption: {CAPTION}" in text

    page.el("explain-button").click()
    page.wait_for(lambda d: page.el("explanation").text == gpt4o.explanation, "the explanation")
    assert float(gpt4o.requests[-1]["body"]["messages"][1]["content"]) == pytest.approx(expected, abs=1e-15)

    page.el("export-json-button").click()
    doc = json.loads(page.wait_file(downloads, export_pattern("ref_fleur")).read_text())
    assert doc["metric"] == "ref_fleur"
    assert doc["raw_score"] == 0.85
    assert doc["smoothed_score"] == pytest.approx(expected, abs=1e-12)
    assert doc["references"] == REFERENCES
    assert doc["places"][0]["place"] == "tenths"
    assert doc["places"][0]["digits"][8] == pytest.approx(0.7, abs=1e-12)
    assert {r["token"] for r in doc["places"][0]["readings"]} == {"85", "8", "9", "75", "90"}
    assert doc["explanation"] == gpt4o.explanation
    # The multi-digit reading is ours, applied because the tokenizer needed it, and named.
    assert doc["fidelity"] == "extended" and doc["extensions"] == ["fleur-multi-digit"]
    assert doc["settings"]["temperature"] == 0 and doc["settings"]["top_logprobs"] == 20
    assert "Extension of ours" in page.el("fleur-scheme").text
    assert Select(page.el("fidelity-select")).first_selected_option.get_attribute("value") == "paper"
    assert not page.el("fidelity-select").is_enabled(), "FLEUR has nothing to switch"


def test_invalid_and_missing_scores_are_explained(browser, app_url, images, llama):
    llama.script = [sure("1"), sure("."), sure("5")]
    page = ready(browser, app_url, images, llama, "llama_server", "local", "fleur")
    page.evaluate()
    wait_score(page)
    assert "printed 1.5, outside the score range 0.0 to 1.0" in page.d.find_element("css selector", ".card.fleur").text
    assert page.el("overall-score").get_attribute("data-value") == ""

    llama.behaviour = {"*": "no_logprobs"}
    page.el("fresh-run-checkbox").click()  # the 1.5 answer is cached; ask again
    page.evaluate()
    wait_score(page)
    assert "no token probabilities (logprobs)" in page.d.find_element("css selector", ".card.fleur").text


def test_ref_fleur_without_references_is_stopped_before_sending(browser, app_url, images, llama):
    page = ready(browser, app_url, images, llama, "llama_server", "local", "ref_fleur")
    page.evaluate()
    assert "at least one reference caption" in page.el("form-problems").text
    assert llama.requests == []


def test_a_printed_zero_follows_the_authors_str_path(browser, app_url, images, llama, downloads):
    # fleur.py: str(0.0) is "0.0", whose tenths digit 0 is found at the step that printed "0":
    # the score is 0.1 * E[digit] there.
    alts = [("0", 0.6), ("1", 0.3), ("5", 0.1)]
    llama.script = [("0", alts)]
    page = ready(browser, app_url, images, llama, "llama_server", "local", "fleur")
    page.evaluate()
    wait_score(page)
    expected = 0.1 * (1 * 0.3 + 5 * 0.1)
    assert float(page.el("overall-score").get_attribute("data-value")) == pytest.approx(expected, abs=1e-12)
    assert page.el("fleur-scheme").get_attribute("data-value") == "units"
    page.el("export-json-button").click()
    doc = json.loads(page.wait_file(downloads, export_pattern("fleur")).read_text())
    assert doc["fidelity"] == "paper" and doc["extensions"] == []
