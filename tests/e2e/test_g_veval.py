"""End-to-end: G-VEval in headless Chromium: an image scored from GPT-4o-format integer tokens,
a video turned into the 1536×512 three-frame composite and scored with ACCR, and
reference-only on a llama.cpp-format server whose model writes one digit per token."""

import json

import pytest
from selenium.webdriver.support.ui import Select

from app_page import AppPage, tid, export_pattern
from fakes.openai import sure

CAPTION = "A man plays a red guitar on a stage."
REFERENCES = ["A man is playing the guitar.", "A musician strums a guitar on stage."]

# Reads the sent image back in the page: its size and the colour at given points.
PIXELS = """
const [url, points, done] = arguments;
const img = new Image();
img.onload = () => {
  const c = document.createElement('canvas');
  c.width = img.width; c.height = img.height;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  done({w: img.width, h: img.height,
        px: points.map(([x, y]) => Array.from(g.getImageData(x, y, 1, 1).data.slice(0, 3)))});
};
img.src = url;
"""


def words(text):
    """One token per word, each keeping the space after it."""
    parts = text.split(" ")
    return [sure(p + " ") for p in parts[:-1]] + ([sure(parts[-1])] if parts[-1] else [])


def ready(browser, app_url, server, preset, model, mode, upload=None):
    page = AppPage(browser, app_url)
    Select(page.el("metric-select")).select_by_value("g_veval")
    Select(page.el("mode-select")).select_by_value(mode)
    Select(page.el("preset-select")).select_by_value(preset)
    page.fill("base-url-input", server.url)
    page.fill("model-input", model)
    if upload is not None:
        page.upload(upload)
        page.wait_image()
    page.fill("text-input", CAPTION)
    return page


def wait_score(page):
    page.wait_for(
        lambda d: page.el("overall-score").get_attribute("data-state") in ("done", "error"),
        "the G-VEval score",
    )


def test_image_reference_free_integer_tokens(browser, app_url, images, gpt4o):
    reasoning = "The caption names the man and the guitar; a $5 detail aside, it is accurate. The final score is"
    alts = [("85", 0.6), ("80", 0.25), ("90", 0.1), ("The", 0.05)]
    gpt4o.script = words(reasoning) + [sure(" $"), ("85", alts), sure("$.")]
    page = ready(browser, app_url, gpt4o, "openai", "gpt-4o", "ref_free", images / "photo.png")
    assert not page.el("references-input").is_displayed()
    page.evaluate()
    wait_score(page)

    expected = (85 * 0.6 + 80 * 0.25 + 90 * 0.1) / 0.95
    assert float(page.el("overall-score").get_attribute("data-value")) == pytest.approx(expected, abs=1e-9)
    assert page.el("g-veval-method").get_attribute("data-value") == "integer_tokens"
    assert "The final score is $85$." in page.el("explanation").text

    (req,) = gpt4o.requests
    body = req["body"]
    assert body["temperature"] == 1 and body["logprobs"] is True
    assert body["top_logprobs"] == 5, "the authors' code asks for 5 alternatives"
    (message,) = body["messages"]
    assert message["role"] == "user"
    text, image = message["content"]
    assert text["text"].startswith("You will be given one sentence of visual caption generated from one image.")
    assert f"Generated captions:\n{CAPTION}" in text["text"]
    assert "The final score is ${{score}}$." in text["text"], "the literal the authors' GPT-4o saw"
    assert image["image_url"]["detail"] == "low", "the authors sent images at low detail"


def test_video_becomes_a_labelled_composite_and_accr_scores_four_dimensions(browser, app_url, images, gpt4o, downloads):
    tail = []
    values = {"Accuracy": ("α", "80"), "Completeness": ("β", "60"), "Conciseness": ("ψ", "90"), "Relevance": ("δ", "70")}
    for name, (letter, value) in values.items():
        tail += words(f" ..... The {name} score is ")
        tail += [sure(letter), (value, [(value, 0.5), ("100", 0.5)]), sure(letter), sure(".")]
    gpt4o.script = words("The caption matches the frames.") + tail
    page = ready(browser, app_url, gpt4o, "openai", "gpt-4o", "combined", images / "clip.webm")
    assert "video 320×240" in page.el("image-info").text and "1536×512" in page.el("image-info").text
    page.el("accr-checkbox").click()
    page.fill("references-input", "\n".join(REFERENCES))
    page.evaluate()
    wait_score(page)

    scores = {n: (float(v) + 100) / 2 for n, (_, v) in values.items()}
    for name, expected in scores.items():
        bar = page.el(f"accr-{name.lower()}")
        assert float(bar.get_attribute("data-value")) == pytest.approx(expected, abs=1e-9)
    mean = sum(scores.values()) / 4
    assert float(page.el("overall-score").get_attribute("data-value")) == pytest.approx(mean, abs=1e-9)

    (req,) = gpt4o.requests
    text, image = req["body"]["messages"][0]["content"]
    assert "Wrap Accuracy score in α" in text["text"]
    # The authors' joining: quoted, "; "-separated, last quote left open.
    assert f"Reference Captions:\n'{REFERENCES[0]}'; '{REFERENCES[1]}\n" in text["text"]
    assert image["image_url"]["detail"] == "high", "the composite goes at high detail"
    url = image["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    # One 1536×512 image: frames at 0, ⅓, ⅔ of the clip are red, green, blue; white label band.
    points = [[256, 200], [768, 200], [1280, 200], [500, 500]]
    got = browser.execute_async_script(PIXELS, url, points)
    assert (got["w"], got["h"]) == (1536, 512)
    red, green, blue, band = got["px"]
    assert red[0] > 200 and red[1] < 60 and red[2] < 60, red
    assert green[1] > 200 and green[0] < 60 and green[2] < 60, green
    assert blue[2] > 200 and blue[0] < 60 and blue[1] < 60, blue
    assert min(band) > 220, band
    # What is sent is what the page shows.
    assert page.el("image-preview").get_attribute("src") == url

    page.el("export-json-button").click()
    doc = json.loads(page.wait_file(downloads, export_pattern("g_veval")).read_text())
    assert doc["metric"] == "g_veval" and doc["mode"] == "combined" and doc["medium"] == "video"
    assert doc["accr"] is True
    assert [a["name"] for a in doc["accr_scores"]] == ["accuracy", "completeness", "conciseness", "relevance"]
    assert doc["score"] == pytest.approx(mean, abs=1e-9)
    assert "The Relevance score is δ70δ" in doc["reasoning"]


def test_reference_only_sends_no_image_and_chains_split_digits(browser, app_url, images, llama):
    d7 = [("7", 0.6), ("8", 0.4)]
    d5 = [("5", 0.5), ("0", 0.5)]
    llama.script = words("It covers the references well. The final score is") + [sure(" $"), ("7", d7), ("5", d5), sure("$")]
    page = ready(browser, app_url, llama, "llama_server", "local", "ref_only", images / "photo.png")
    page.fill("references-input", "\n".join(REFERENCES))
    page.evaluate()
    wait_score(page)
    assert float(page.el("overall-score").get_attribute("data-value")) == pytest.approx(10 * 7.4 + 2.5, abs=1e-9)
    assert page.el("g-veval-method").get_attribute("data-value") == "chained_digits"
    (req,) = llama.requests
    (message,) = req["body"]["messages"]
    assert message["role"] == "system", "reference-only goes as a system message, as the authors did"
    assert "data:image" not in json.dumps(req["body"])


def test_missing_inputs_are_named(browser, app_url, images, gpt4o):
    page = ready(browser, app_url, gpt4o, "openai", "gpt-4o", "combined")
    page.el("accr-checkbox").click()
    page.evaluate()
    problems = page.el("form-problems").text
    assert "Add an image or a video" in problems
    assert "reference captions" in problems
    assert "ACCR scores videos" in problems
    assert gpt4o.requests == []


def test_top20_extension_asks_for_20_alternatives_and_changes_the_expectation(browser, app_url, images, gpt4o, downloads):
    # Seven integer alternatives: the authors' 5 see the first five, the extension all seven.
    alts = [("85", 0.4), ("80", 0.2), ("90", 0.15), ("75", 0.1), ("70", 0.05), ("95", 0.05), ("60", 0.05)]
    gpt4o.script = words("Accurate and complete. The final score is") + [sure(" $"), ("85", alts), sure("$.")]
    page = ready(browser, app_url, gpt4o, "openai", "gpt-4o", "ref_free", images / "photo.png")
    assert Select(page.el("fidelity-select")).first_selected_option.get_attribute("value") == "paper"
    page.evaluate()
    wait_score(page)
    top5 = alts[:5]
    paper = sum(int(t) * p for t, p in top5) / sum(p for _, p in top5)
    assert float(page.el("overall-score").get_attribute("data-value")) == pytest.approx(paper, abs=1e-9)
    assert gpt4o.requests[0]["body"]["top_logprobs"] == 5

    Select(page.el("fidelity-select")).select_by_value("extended")
    assert page.el("ext-gveval-top20").is_selected(), "extended switches the metric's extension on"
    page.evaluate()
    wait_score(page)
    assert len(gpt4o.requests) == 2
    paper_body, ext_body = (r["body"] for r in gpt4o.requests)
    assert ext_body["top_logprobs"] == 20
    assert {k: v for k, v in ext_body.items() if k != "top_logprobs"} == {k: v for k, v in paper_body.items() if k != "top_logprobs"}
    extended = sum(int(t) * p for t, p in alts) / sum(p for _, p in alts)
    assert float(page.el("overall-score").get_attribute("data-value")) == pytest.approx(extended, abs=1e-9)
    assert abs(extended - paper) > 0.1

    page.el("export-json-button").click()
    doc = json.loads(page.wait_file(downloads, export_pattern("g_veval")).read_text())
    assert doc["fidelity"] == "extended" and doc["extensions"] == ["gveval-top20"]
    assert doc["settings"]["temperature"] == 1.0 and doc["settings"]["top_logprobs"] == 20


def kendall_tau_b(x, y):
    """Kendall's tau-b by its definition, O(n^2): (C - D) / sqrt((n0 - n1)(n0 - n2))."""
    c = d = n1 = n2 = n0 = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            n0 += 1
            dx, dy = x[i] - x[j], y[i] - y[j]
            n1 += dx == 0
            n2 += dy == 0
            if dx * dy > 0:
                c += 1
            elif dx * dy < 0:
                d += 1
    return (c - d) / ((n0 - n1) * (n0 - n2)) ** 0.5


def test_lab_offers_g_vevals_averaged_rating_protocol(browser, app_url, tmp_path):
    scores = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
    ratings = [[1, 2, 4], [2, 2, 1], [3, 1, 3], [4, 4, 2], [5, 3, 5], [2, 5, 4]]
    path = tmp_path / "results.jsonl"
    path.write_text("".join(
        json.dumps({"id": f"c{i}", "metric": "g_veval", "score": s, "human": {"overall": r}}) + "\n"
        for i, (s, r) in enumerate(zip(scores, ratings))
    ))
    page = AppPage(browser, app_url)
    page.el("tab-batch").click()
    page.wait_for(lambda d: d.find_elements(*tid("results-input")), "the batch view")
    page.d.execute_script("arguments[0].style.display='block'", page.el("results-input"))
    page.el("results-input").send_keys(str(path))
    page.wait_for(lambda d: page.el("meta-overall-tau-b").get_attribute("data-value"), "the meta-evaluation")
    select = Select(page.el("rating-protocol-select"))
    assert select.first_selected_option.get_attribute("value") == "repeated"
    flat_scores = [s for s, r in zip(scores, ratings) for _ in r]
    flat_ratings = [v for r in ratings for v in r]
    repeated = 100 * kendall_tau_b(flat_scores, flat_ratings)
    assert float(page.el("meta-overall-tau-b").get_attribute("data-value")) == pytest.approx(repeated, abs=1e-9)

    select.select_by_value("averaged")
    averaged = 100 * kendall_tau_b(scores, [sum(r) / 3 for r in ratings])
    assert abs(averaged - repeated) > 1
    page.wait_for(
        lambda d: abs(float(page.el("meta-overall-tau-b").get_attribute("data-value")) - averaged) < 1e-9,
        "tau against the mean ratings",
    )
