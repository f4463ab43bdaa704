"""End-to-end: several candidates for one image (issue 21), against the loopback OpenAI fake.

Three candidates whose rating distributions make the ranking flip at a γ known in closed form:
A is sure of two low criteria and unsure of three high ones, B is the same middling
distribution on all five (its score does not move with γ), C is low everywhere.
"""

import json
import math
import time

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from app_page import CRITERIA, AppPage, tid, export_pattern
from fakes.base import prompt_text

KEY = "sk-test-cand-0123456789abcdef"
TEXTS = {
    "A": "A brown dog leaps over a red ball on wet grass.",
    "B": "Some animal is outside near a toy.",
    "C": "Two cats sleep on a sofa indoors.",
}
SURE_LOW = [0, 0.9, 0.1, 0, 0]  # mean 2.1, σ 0.3
UNSURE_HIGH = [0, 0, 0.1, 0.3, 0.6]  # mean 4.5, σ √0.45
FLAT = [0, 0.2, 0.4, 0.3, 0.1]  # mean 3.3, σ 0.9
LOW = [0.4, 0.5, 0.1, 0, 0]  # mean 1.7
DISTS = {
    "A": {"correctness": SURE_LOW, "completeness": SURE_LOW, "clarity": UNSURE_HIGH, "fluency": UNSURE_HIGH, "conciseness": UNSURE_HIGH},
    "B": {c: FLAT for c in CRITERIA},
    "C": {c: LOW for c in CRITERIA},
}


def attr(page, testid, name):
    return page.read(testid, name)


def text(page, testid):
    return page.read(testid)


def candidate_of(body):
    text = prompt_text(body)
    found = [k for k, t in TEXTS.items() if t in text]
    assert len(found) == 1, text
    return found[0]


def opinion(body, criterion):
    return DISTS[candidate_of(body)][criterion]


def overall(label, gamma):
    """Closed-form HarmonicEval overall (SPEC §1) of a candidate."""
    ms, ss = [], []
    for c in CRITERIA:
        p = DISTS[label][c]
        m = sum((i + 1) * q for i, q in enumerate(p))
        ms.append(m)
        ss.append(math.sqrt(sum(((i + 1) - m) ** 2 * q for i, q in enumerate(p))))
    if gamma >= 1:
        return sum(ms) / 5
    k = 2 * (1 - gamma) / gamma
    w = [s ** -k for s in ss]
    return sum(wi * mi for wi, mi in zip(w, ms)) / sum(w)


# Where S_A = S_B: (2·2.1·r + 3·4.5) / (2r + 3) = 3.3 with r = (0.3/√0.45)^(−k), γ = 2/(k + 2).
R = 3 * (3.3 - 4.5) / (2 * (2.1 - 3.3))
K = -math.log(R) / math.log(0.3 / math.sqrt(0.45))
FLIP = 2 / (K + 2)


def order_at(gamma):
    return ",".join(sorted(TEXTS, key=lambda l: -overall(l, gamma)))


def set_gamma(page, gamma):
    slider = page.el("gamma-slider")
    slider.send_keys(Keys.HOME)
    for _ in range(round((gamma - 0.01) / 0.01)):
        slider.send_keys(Keys.RIGHT)
    assert float(slider.get_attribute("value")) == pytest.approx(gamma)


def comparison(browser, app_url, fake, images):
    """The evaluator with A, B and C judged (15 requests)."""
    fake.dist_for = opinion
    page = AppPage(browser, app_url)
    page.set_backend(fake.url, "gpt-4o", KEY)
    page.upload(images / "photo.png")
    page.wait_image()
    page.fill_candidates([TEXTS[k] for k in "ABC"])
    assert page.el("candidate-text-0").get_attribute("value") == TEXTS["A"]
    assert [page.el(f"candidate-label-{i}").get_attribute("value") for i in range(3)] == ["A", "B", "C"]
    page.evaluate()
    page.wait_for(
        lambda d: all(attr(page, f"candidate-{i}-{c}", "data-state") == "done" for i in range(3) for c in CRITERIA),
        "all three candidates to be scored on every criterion",
        60,
    )
    return page


def test_ranking_follows_gamma_and_flips_where_the_closed_form_says(browser, app_url, fake, images, downloads):
    assert 0.75 < FLIP < 0.85 and order_at(FLIP - 0.02) != order_at(FLIP + 0.02)
    page = comparison(browser, app_url, fake, images)
    # One request per criterion and candidate; the image went only with the grounded criteria.
    assert len(fake.requests) == 15
    assert sorted(candidate_of(r["body"]) for r in fake.requests) == sorted("ABC" * 5)

    assert attr(page, "ranking", "data-order") == order_at(0.75) == "B,A,C"
    for i, label in enumerate("ABC"):
        assert float(attr(page, f"candidate-result-{i}", "data-overall")) == pytest.approx(overall(label, 0.75), abs=1e-9)
    assert [attr(page, f"candidate-result-{i}", "data-rank") for i in range(3)] == ["2", "1", "3"]
    assert [attr(page, f"candidate-{i}-fluency", "data-state") for i in range(3)] == ["done"] * 3
    assert text(page, "candidates-best-fluency") == "A" and text(page, "candidates-best-correctness") == "B"

    values = [float(v) for v in attr(page, "flip-points", "data-values").split(",")]
    assert len(values) == 1 and values[0] == pytest.approx(FLIP, abs=0.01)
    assert f"A overtakes B at γ = {FLIP:.2f}" in text(page, "flip-points")
    assert page.el("candidates-plot").is_displayed()

    # The chart's readout, with the keys and the pointer: every candidate's score at the γ
    # pointed at, best first; the page's γ and ranking stay where they were.
    def expected_readout(g):
        return f"At γ = {g:.2f}: " + ", ".join(f"{l} {overall(l, g):.2f}" for l in order_at(g).split(","))
    chart = browser.execute_script("return arguments[0].parentElement;", page.el("candidates-plot"))
    chart.send_keys(Keys.END)
    assert text(page, "candidates-readout") == expected_readout(1.0)
    chart.send_keys(Keys.HOME)
    assert text(page, "candidates-readout") == expected_readout(0.01)
    ActionChains(browser).move_to_element(chart).perform()  # the middle of the axis
    shown = text(page, "candidates-readout")
    g = float(shown.split("γ = ")[1].split(":")[0])
    assert 0.3 < g < 0.7 and shown == expected_readout(g), shown
    assert attr(page, "ranking", "data-order") == "B,A,C"

    # Across the flip and back with the keyboard: the order follows, no request is sent.
    before = len(fake.requests)
    page.el("gamma-slider").click()
    set_gamma(page, 0.90)
    assert attr(page, "ranking", "data-order") == order_at(0.90) == "A,B,C"
    assert float(attr(page, "candidate-result-0", "data-overall")) == pytest.approx(overall("A", 0.90), abs=1e-9)
    set_gamma(page, 0.70)
    assert attr(page, "ranking", "data-order") == "B,A,C"

    # The human prefers A: the metric disagrees at 0.70 and agrees from the flip up.
    assert attr(page, "agreement", "data-value") == ""
    page.el("prefer-0").click()
    assert attr(page, "agreement", "data-value") == "disagree"
    assert attr(page, "agreement", "data-range") == f"{FLIP:.2f}-1.00"
    set_gamma(page, 0.90)
    assert attr(page, "agreement", "data-value") == "agree"
    assert page.el("prefer-0").is_selected()
    time.sleep(0.3)
    assert len(fake.requests) == before

    # The export carries the candidates, the choice and the agreement, and never the key.
    page.el("export-json-button").click()
    path = page.wait_file(downloads, export_pattern("harmonic_eval-candidates"))
    raw = path.read_text()
    assert KEY not in raw
    doc = json.loads(raw)
    assert [c["label"] for c in doc["candidates"]] == ["A", "B", "C"]
    assert [c["text"] for c in doc["candidates"]] == [TEXTS[l] for l in "ABC"]
    assert doc["chosen"] == "A" and doc["ranking"] == ["A", "B", "C"]
    assert doc["agreement"]["at_gamma"] is True
    assert doc["agreement"]["ranges"][0][0] == pytest.approx(FLIP, abs=1e-6)
    assert doc["candidates"][1]["result"]["criteria"][0]["score"] == pytest.approx(3.3, abs=1e-9)


def test_the_same_three_in_the_lab_give_the_closed_form_pairwise_accuracy(browser, app_url, fake, images):
    page = comparison(browser, app_url, fake, images)
    page.el("prefer-0").click()
    page.el("send-to-lab-button").click()
    page.wait_for(lambda d: "Sent to the lab" in page.el("send-to-lab-message").text, "the hand-over")
    asked = len(fake.requests)

    lab = AppPage(browser, app_url + "lab/")
    lab.wait_for(lambda d: d.find_elements(*tid("meta-pairwise-accuracy")), "the pairwise accuracy")

    def expected(gamma):
        # A is chosen: its pairs are (A, B) and (A, C); a pair counts when A is strictly higher.
        wins = sum(overall("A", gamma) > overall(o, gamma) for o in "BC")
        return 100 * wins / 2

    acc = lab.el("meta-pairwise-accuracy")
    assert float(acc.get_attribute("data-value")) == pytest.approx(expected(0.75)) == pytest.approx(50.0)
    lab.el("gamma-slider").click()
    set_gamma(lab, 0.90)
    assert float(lab.el("meta-pairwise-accuracy").get_attribute("data-value")) == pytest.approx(expected(0.90)) == pytest.approx(100.0)
    # The lab asked the model nothing: the scores came with the group.
    assert len(fake.requests) == asked


def test_one_text_is_todays_page_and_removing_goes_back(browser, app_url, fake, images):
    page = AppPage(browser, app_url)
    # A backend with a key, so the form's own problems are what Evaluate says.
    page.set_backend(fake.url, "gpt-4o", KEY)
    page.fill("text-input", "only one")
    assert not browser.find_elements(*tid("candidate-text-0"))
    page.add_candidate()
    assert page.el("candidate-text-0").get_attribute("value") == "only one"
    page.evaluate()  # B is empty, and there is no image: said, nothing sent
    problems = page.el("form-problems").text
    assert "Candidate B: Enter the caption to judge." in problems
    assert problems.count("Add an image") == 1
    assert fake.requests == []
    page.el("remove-candidate-1").click()
    assert not browser.find_elements(*tid("candidate-text-0"))
    assert page.el("text-input").is_displayed()
    assert page.el("text-input").get_attribute("value") == "only one"


def test_the_cost_estimate_counts_every_candidate(browser, app_url, fake, images):
    """Item 2: with three copies of one text the estimate is three times the one-text one (for
    HarmonicEval's five requests per text and FLEUR's one); nothing is sent to estimate."""
    from selenium.webdriver.support.ui import Select

    page = AppPage(browser, app_url)
    page.set_backend(fake.url, "gpt-4o", KEY)
    page.upload(images / "photo.png")
    page.wait_image()
    page.fill("text-input", TEXTS["A"])

    def estimate():
        return (int(attr(page, "cost-estimate", "data-input-tokens")),
                int(attr(page, "cost-estimate", "data-output-tokens")),
                attr(page, "cost-estimate", "data-candidates"))

    singles = {}
    for metric in ("harmonic_eval", "fleur"):
        Select(page.el("metric-select")).select_by_value(metric)
        page.wait_for(lambda d: estimate()[0] > 0, "the estimate")
        singles[metric] = estimate()
        assert singles[metric][2] == "1"
    assert singles["harmonic_eval"][0] > singles["fleur"][0]

    page.add_candidate()
    page.add_candidate()
    page.fill("candidate-text-1", TEXTS["A"])
    page.fill("candidate-text-2", TEXTS["A"])
    for metric in ("fleur", "harmonic_eval"):
        Select(page.el("metric-select")).select_by_value(metric)
        tokens_in, tokens_out, _ = singles[metric]
        page.wait_for(lambda d: estimate() == (3 * tokens_in, 3 * tokens_out, "3"), f"three times {metric}'s estimate")
    assert "of 3 candidates" in text(page, "cost-estimate")
    # A longer text for C costs more than a third copy of A.
    page.fill("candidate-text-2", TEXTS["A"] + " Two children watch it from a wooden bench nearby.")
    page.wait_for(lambda d: estimate()[0] > 3 * singles["harmonic_eval"][0], "a longer C to cost more")
    assert fake.requests == []


def _shared_doc(link):
    """The document a share link carries (base64url of raw deflate, as crates/core/src/files/share.rs writes it)."""
    import base64
    import zlib

    data = link.split("#r=", 1)[1]
    raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    return zlib.decompress(raw, -15).decode()


def test_copy_link_shares_the_comparison_and_it_opens_in_a_fresh_context(browser, app_url, fake, images, tmp_path, downloads):
    """Item 3: in candidates mode "Copy link" shares the comparison (candidates, distributions,
    pick), not the stale one-text result; it opens elsewhere with the same ranking and no request."""
    from conftest import make_driver

    page = comparison(browser, app_url, fake, images)
    page.el("gamma-slider").click()
    set_gamma(page, 0.90)
    page.el("prefer-0").click()
    keys = [("ranking", "data-order"), ("agreement", "data-value"), ("agreement", "data-range"), ("flip-points", "data-values")]
    shown = {(k, a): attr(page, k, a) for k, a in keys}
    results = [(attr(page, f"candidate-result-{i}", "data-overall"), attr(page, f"candidate-result-{i}", "data-rank")) for i in range(3)]
    assert shown[keys[0]] == "A,B,C" and shown[keys[1]] == "agree"

    page.el("copy-link-button").click()
    page.wait_for(lambda d: "#r=" in page.el("share-link").text, "the link")
    link = page.el("share-link").text
    text = _shared_doc(link)
    doc = json.loads(text)
    assert KEY not in text and "base_url" not in text and fake.url not in text
    assert doc["kind"] == "candidates" and doc["chosen"] == "A" and doc["ranking"] == ["A", "B", "C"]
    assert [c["text"] for c in doc["candidates"]] == [TEXTS[k] for k in "ABC"]
    assert doc["image"].startswith("data:image/jpeg;base64,")
    asked = len(fake.requests)

    fresh = make_driver(tmp_path / "fresh-profile", downloads)
    try:
        other = AppPage(fresh, link)
        other.wait_for(lambda d: attr(other, "ranking", "data-order") == "A,B,C", "the shared comparison")
        assert "a share link" in other.el("opened-note").text
        assert float(other.el("gamma-slider").get_attribute("value")) == pytest.approx(0.90)
        assert {(k, a): attr(other, k, a) for k, a in keys} == shown
        assert [(attr(other, f"candidate-result-{i}", "data-overall"), attr(other, f"candidate-result-{i}", "data-rank")) for i in range(3)] == results
        assert other.el("prefer-0").is_selected()
        assert [other.el(f"candidate-text-{i}").get_attribute("value") for i in range(3)] == [TEXTS[k] for k in "ABC"]
        # Moving γ back re-ranks the opened comparison as it did the original.
        other.el("gamma-slider").click()
        set_gamma(other, 0.70)
        assert attr(other, "ranking", "data-order") == "B,A,C"
        assert attr(other, "agreement", "data-value") == "disagree"
    finally:
        fresh.quit()
    assert len(fake.requests) == asked


def test_the_compare_example_opens_in_candidates_mode_with_no_request(browser, app_url, fake):
    """Item 4: the gallery's constructed comparison opens as three candidates; its ranking at each
    γ and the γ values where it changes are those of its distributions in closed form."""
    from pathlib import Path

    doc = json.loads((Path(__file__).resolve().parents[2] / "public" / "examples" / "compare-constructed.json").read_text())
    assert doc["source"].startswith("Constructed for illustration")

    def score(result, gamma):
        ms, ss = [], []
        for c in result["criteria"]:
            p = c["distribution"]
            m = sum((i + 1) * q for i, q in enumerate(p))
            ms.append(m)
            ss.append(math.sqrt(sum(((i + 1) - m) ** 2 * q for i, q in enumerate(p))))
        if gamma >= 1:
            return sum(ms) / len(ms)
        k = 2 * (1 - gamma) / gamma
        logs = [-k * math.log(s) for s in ss]
        w = [math.exp(x - max(logs)) for x in logs]
        return sum(a * b for a, b in zip(w, ms)) / sum(w)

    labels = [c["label"] for c in doc["candidates"]]

    def order(gamma):
        return ",".join(sorted(labels, key=lambda l: -score(doc["candidates"][labels.index(l)]["result"], gamma)))

    flips = []
    grid = [0.01 + 0.99 * i / 2000 for i in range(2001)]
    for a in range(3):
        for b in range(a + 1, 3):
            d = [score(doc["candidates"][a]["result"], g) - score(doc["candidates"][b]["result"], g) for g in grid]
            flips += [grid[i] for i in range(2000) if d[i] * d[i + 1] < 0]

    page = AppPage(browser, app_url)
    page.wait_for(lambda d: d.find_elements(*tid("demo-compare-constructed")), "the gallery", 20)
    page.el("demo-compare-constructed").click()
    page.wait_for(lambda d: attr(page, "ranking", "data-order"), "the comparison")
    assert "Constructed for illustration" in page.el("opened-source").text
    assert attr(page, "ranking", "data-order") == order(0.75) == "B,A,C"
    assert [page.el(f"candidate-text-{i}").get_attribute("value") for i in range(3)] == [c["text"] for c in doc["candidates"]]
    values = sorted(float(v) for v in attr(page, "flip-points", "data-values").split(","))
    assert len(values) == len(flips) == 2
    assert values == pytest.approx(sorted(flips), abs=0.01)
    page.el("gamma-slider").click()
    set_gamma(page, 0.40)
    assert attr(page, "ranking", "data-order") == order(0.40) == "A,B,C"
    assert attr(page, "agreement", "data-value") == ""
    page.el("prefer-2").click()
    assert attr(page, "agreement", "data-value") == "disagree" and attr(page, "agreement", "data-range") == ""
    assert fake.requests == []
