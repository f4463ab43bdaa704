"""End-to-end: MAEV in headless Chromium against loopback servers: five text-only trials with
the paper's few-shot sampling averaged into a verdict, the caption helper, reproducible
sampling, and trials that cannot be read."""

import json

import pytest
from selenium.webdriver.support.ui import Select

from app_page import AppPage, export_pattern
from fakes.openai import sure
from fakes.anthropic import FakeAnthropic

QUESTION = "What animal is on the sofa?"
CAPTION = "A grey cat sleeps on a red sofa."
REFERENCE = "A cat is sleeping on the sofa."
ANSWER = "A brown dog is sitting on the sofa."


def ready(browser, app_url, server, preset, model):
    page = AppPage(browser, app_url)
    Select(page.el("metric-select")).select_by_value("maev")
    Select(page.el("preset-select")).select_by_value(preset)
    page.fill("base-url-input", server.url)
    page.fill("model-input", model)
    page.fill("api-key-input", "sk-test-maev-123456")
    page.fill("question-input", QUESTION)
    page.fill("caption-input", CAPTION)
    page.fill("reference-answer-input", REFERENCE)
    page.fill("text-input", ANSWER)
    return page


def prompt_of(req):
    content = req["body"]["messages"][0]["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def wait_trials(page, n):
    page.wait_for(
        lambda d: all(
            page.el(f"trial-{i}").get_attribute("data-state") in ("done", "error") for i in range(n)
        ),
        "every trial",
    )


def test_five_trials_average_into_a_verdict_with_no_image_sent(browser, app_url, images, gpt4o, downloads):
    # The caption helper first: the chosen VLM describes the dropped image.
    page = ready(browser, app_url, gpt4o, "openai", "gpt-4o")
    page.upload(images / "photo.png")
    page.wait_image()
    page.el("caption-image-button").click()
    page.wait_for(lambda d: page.el("caption-input").get_attribute("value") != CAPTION, "the caption")
    (caption_req,) = gpt4o.requests
    assert "image_url" in json.dumps(caption_req["body"])
    page.fill("caption-input", CAPTION)

    gpt4o.script = [sure("'Evaluation Evidence': The answer says a dog, the caption a cat.\n'Assistant Score': "),
                   ("0", [("0", 0.7), ("2", 0.3)])]
    before = len(gpt4o.requests)
    assert Select(page.el("fidelity-select")).first_selected_option.get_attribute("value") == "paper"
    assert not page.el("ext-maev-expected-score").is_selected()
    page.evaluate()
    wait_trials(page, 5)
    trials = gpt4o.requests[before:]
    assert len(trials) == 5
    for req in trials:
        body = req["body"]
        assert "image_url" not in json.dumps(body), "the MAEV judge is text-only"
        assert body["top_p"] == 0.2
        # The paper: "Temperature: Default API value", and the printed score only.
        assert "temperature" not in body
        assert "logprobs" not in body and "top_logprobs" not in body
        text = prompt_of(req)
        assert text.startswith(f"\n[Question]\n{QUESTION}\n[Image Caption]\n{CAPTION}\n[Reference Answer]\n{REFERENCE}\n[Assistant Answer]\n{ANSWER}\n[Instruction]\n")
        assert text.count("\n\n[Example]\n") == 2
        assert text.index('Assistant Score: "0"') < text.index('Assistant Score: "2"')

    # The paper's reading (issue 16 changed the default): the printed 0, not an expected value.
    for i in range(5):
        assert float(page.el(f"trial-{i}").get_attribute("data-score")) == 0.0
    assert float(page.el("overall-score").get_attribute("data-value")) == 0.0
    assert page.el("verdict").get_attribute("data-value") == "hallucination"
    assert "The answer says a dog" in page.el("trial-0").text

    page.el("export-json-button").click()
    doc = json.loads(page.wait_file(downloads, export_pattern("maev")).read_text())
    assert doc["metric"] == "maev" and doc["verdict"] == "hallucination"
    assert doc["mean"] == 0.0
    assert len(doc["trials"]) == 5
    assert all([e["score"] for e in t["examples"]] == [0, 2] for t in doc["trials"])
    assert all(t["source"] == "printed" and t["evidence"] for t in doc["trials"])
    assert doc["fidelity"] == "paper" and doc["extensions"] == []
    assert doc["settings"]["temperature"] is None and doc["settings"]["top_p"] == 0.2
    assert doc["settings"]["top_logprobs"] is None and doc["settings"]["distinct_pairs"] is True
    assert "sk-test-maev" not in json.dumps(doc)


def test_sampling_is_reproducible_and_trials_are_settable(browser, app_url, gpt4o):
    gpt4o.script = [sure("Evaluation Evidence: Matches.\nAssistant Score: \"2\"")]
    page = ready(browser, app_url, gpt4o, "openai", "gpt-4o")
    page.set_number("trials-input", 3)
    page.set_number("seed-input", 11)
    page.evaluate()
    wait_trials(page, 3)
    first = sorted(prompt_of(r) for r in gpt4o.requests)
    assert len(first) == 3
    assert page.el("verdict").get_attribute("data-value") == "accurate"
    assert float(page.el("overall-score").get_attribute("data-value")) == 2.0
    page.el("fresh-run-checkbox").click()
    page.evaluate()
    wait_trials(page, 3)
    assert sorted(prompt_of(r) for r in gpt4o.requests[3:]) == first, "same seed, same examples"


def test_unreadable_trials_are_reported_not_dropped(browser, app_url):
    claude = FakeAnthropic()
    try:
        page = ready(browser, app_url, claude, "anthropic", "claude-sonnet-4-5")
        page.evaluate()
        wait_trials(page, 5)
        for i in range(5):
            trial = page.el(f"trial-{i}")
            assert trial.get_attribute("data-state") == "error"
            assert "No \u201cAssistant Score\u201d" in trial.text
        assert page.el("overall-score").get_attribute("data-value") == ""
        assert page.el("verdict").get_attribute("data-value") == ""
        assert "0 of 5 trials read, 5 failed" in page.el("overall-score").text
    finally:
        claude.stop()


def test_expected_score_extension_asks_for_alternatives_and_is_exported(browser, app_url, gpt4o, downloads):
    gpt4o.script = [sure("'Evaluation Evidence': The answer says a dog, the caption a cat.\n'Assistant Score': "),
                   ("0", [("0", 0.7), ("2", 0.3)])]
    page = ready(browser, app_url, gpt4o, "openai", "gpt-4o")
    page.el("ext-maev-expected-score").click()
    assert Select(page.el("fidelity-select")).first_selected_option.get_attribute("value") == "extended"
    page.evaluate()
    wait_trials(page, 5)
    assert len(gpt4o.requests) == 5
    for req in gpt4o.requests:
        body = req["body"]
        assert body["logprobs"] is True and body["top_logprobs"] == 5
        assert "temperature" not in body, "the extension changes the reading, not the sampling"
        assert body["top_p"] == 0.2
    for i in range(5):
        assert float(page.el(f"trial-{i}").get_attribute("data-score")) == pytest.approx(0.6, abs=1e-12)
    assert float(page.el("overall-score").get_attribute("data-value")) == pytest.approx(0.6, abs=1e-12)

    page.el("export-json-button").click()
    doc = json.loads(page.wait_file(downloads, export_pattern("maev")).read_text())
    assert doc["fidelity"] == "extended" and doc["extensions"] == ["maev-expected-score"]
    assert doc["settings"]["top_logprobs"] == 5 and doc["settings"]["temperature"] is None
    assert all(t["source"] == "probabilities" for t in doc["trials"])

    # Back to the paper: the select switches the extension off again.
    Select(page.el("fidelity-select")).select_by_value("paper")
    assert not page.el("ext-maev-expected-score").is_selected()
    page.el("fresh-run-checkbox").click()
    page.evaluate()
    wait_trials(page, 5)
    assert all("top_logprobs" not in r["body"] for r in gpt4o.requests[5:])
    assert float(page.el("overall-score").get_attribute("data-value")) == 0.0


def test_a_printed_one_is_not_a_paper_score_and_pairs_do_not_repeat(browser, app_url, gpt4o):
    gpt4o.script = [sure("Evaluation Evidence: Partly right.\nAssistant Score: 1")]
    page = ready(browser, app_url, gpt4o, "openai", "gpt-4o")
    page.set_number("trials-input", 4)
    page.evaluate()
    wait_trials(page, 4)
    for i in range(4):
        trial = page.el(f"trial-{i}")
        assert trial.get_attribute("data-state") == "error"
        assert "not on the paper's scale" in trial.text
    assert page.el("verdict").get_attribute("data-value") == ""
    # The printed pool has 2 × 2 pairs: four trials use each exactly once.
    prompts = [prompt_of(r) for r in gpt4o.requests]
    assert len(prompts) == 4 and len(set(prompts)) == 4
    # With the extension a printed 1 counts as 1.
    page.el("ext-maev-expected-score").click()
    page.el("fresh-run-checkbox").click()
    page.evaluate()
    wait_trials(page, 4)
    assert float(page.el("overall-score").get_attribute("data-value")) == 1.0
