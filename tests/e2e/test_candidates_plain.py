"""End-to-end: several candidates for the metrics without γ (issue 21): FLEUR, G-VEval and MAEV
against the loopback OpenAI fake, which answers each candidate with its own token
probabilities. The ranking, each score, the judge's uncertainty and whether each difference
exceeds it are computed here in closed form."""

import json
import math
import threading
import time

import pytest
from selenium.webdriver.support.ui import Select

from spec_vectors import P, Q
from app_page import AppPage
from fakes.base import prompt_text
from fakes.openai import sure

KEY = "sk-test-plain-0123456789abcdef"


def attr(page, testid, name):
    return page.read(testid, name)


def text(page, testid):
    return page.read(testid)


def candidate_of(body, texts):
    found = [k for k, t in texts.items() if t in prompt_text(body)]
    assert len(found) == 1, prompt_text(body)
    return found[0]


def judged(browser, app_url, fake, metric, texts, fill, mode=None):
    """The evaluator with `metric` chosen, `fill(page)` for the metric's own inputs, the three
    candidates written and all three judged."""
    page = AppPage(browser, app_url)
    Select(page.el("metric-select")).select_by_value(metric)
    if mode:
        Select(page.el("mode-select")).select_by_value(mode)
    page.set_backend(fake.url, "gpt-4o", KEY)
    fill(page)
    page.fill_candidates([texts[k] for k in "ABC"])
    page.evaluate()
    wait_all(page)
    return page


def with_photo(images):
    def fill(page):
        page.upload(images / "photo.png")
        page.wait_image()
    return fill


def wait_all(page, n=3):
    page.wait_for(
        lambda d: all(attr(page, f"candidate-result-{i}", "data-state") in ("done", "error") for i in range(n)),
        "every candidate to be judged",
        60,
    )


def result(page, i):
    return (float(attr(page, f"candidate-result-{i}", "data-overall")),
            attr(page, f"candidate-result-{i}", "data-uncertainty"),
            attr(page, f"candidate-result-{i}", "data-rank"))


def differences(scores, sds):
    """Down the ranking: (higher, lower, diff, combined uncertainty or None)."""
    order = sorted(scores, key=lambda k: -scores[k])
    out = []
    for h, l in zip(order, order[1:]):
        u = None if sds[h] is None or sds[l] is None else math.hypot(sds[h], sds[l])
        out.append((h, l, scores[h] - scores[l], u))
    return order, out


def check_differences(page, expected, decimals):
    for k, (h, l, d, u) in enumerate(expected):
        assert float(attr(page, f"difference-{k}", "data-diff")) == pytest.approx(d, abs=1e-9)
        sentence = text(page, f"difference-{k}")
        if u is None:
            assert attr(page, f"difference-{k}", "data-exceeds") == ""
            assert f"{h} is ahead of {l} by {d:.{decimals}f}; the metric gives no uncertainty" in sentence
        elif d > u:
            assert attr(page, f"difference-{k}", "data-exceeds") == "yes"
            assert float(attr(page, f"difference-{k}", "data-uncertainty")) == pytest.approx(u, abs=1e-9)
            assert sentence == f"{h} is ahead of {l} by {d:.{decimals}f}, more than the judge's uncertainty {u:.{decimals}f}."
        else:
            assert attr(page, f"difference-{k}", "data-exceeds") == "no"
            assert sentence == (f"{h} is ahead of {l} by {d:.{decimals}f}, within the judge's uncertainty "
                                f"{u:.{decimals}f} — not a reliable difference.")


# --- FLEUR ---------------------------------------------------------------------------------

# A gets SPEC §2's vector (P, Q; printed "0.85"); B and C print one decimal.
B_TENTHS = [0, 0, 0, 0, 0, 0, 0, 0.5, 0.5, 0]
C_TENTHS = [0, 0, 0.9, 0.1, 0, 0, 0, 0, 0, 0]
FLEUR_TEXTS = {
    "A": "A brown dog runs across a grassy park.",
    "B": "A dog is outside on some grass.",
    "C": "Two cats sleep on a sofa indoors.",
}


def digits_step(chosen, p):
    alts = [(str(i), pi) for i, pi in enumerate(p) if pi > 0]
    alts.append(("</s>", max(1e-9, 1 - sum(p))))
    return (chosen, alts)


def fleur_script(body):
    c = candidate_of(body, FLEUR_TEXTS)
    head = [sure("0"), sure(".")]
    if c == "A":
        return head + [digits_step("8", P), digits_step("5", Q)]
    return head + [digits_step("7", B_TENTHS) if c == "B" else digits_step("2", C_TENTHS)]


def mean(p):
    return sum(i * q for i, q in enumerate(p))


def var(p):
    """Variance of the digit, the mass elsewhere counting as 0 (FLEUR does not renormalise)."""
    return sum(i * i * q for i, q in enumerate(p)) - mean(p) ** 2


FLEUR_SCORES = {"A": 0.1 * mean(P) + 0.01 * mean(Q), "B": 0.1 * mean(B_TENTHS), "C": 0.1 * mean(C_TENTHS)}
FLEUR_SDS = {"A": math.sqrt(0.01 * var(P) + 0.0001 * var(Q)), "B": 0.1 * math.sqrt(var(B_TENTHS)),
             "C": 0.1 * math.sqrt(var(C_TENTHS))}


def test_fleur_candidates_rank_and_weigh_differences_against_the_digit_spread(browser, app_url, images, gpt4o, downloads):
    gpt4o.script = fleur_script
    page = judged(browser, app_url, gpt4o, "fleur", FLEUR_TEXTS, with_photo(images))

    # One request per candidate through the same runner; the image prepared once, sent to each.
    assert len(gpt4o.requests) == 3
    assert sorted(candidate_of(r["body"], FLEUR_TEXTS) for r in gpt4o.requests) == ["A", "B", "C"]
    urls = {json.dumps([p for p in r["body"]["messages"][0]["content"] if p["type"] == "image_url"]) for r in gpt4o.requests}
    assert len(urls) == 1 and "data:image/" in urls.pop()

    order, expected = differences(FLEUR_SCORES, FLEUR_SDS)
    assert order == ["A", "B", "C"] and FLEUR_SCORES["A"] == pytest.approx(0.806172, abs=5e-7)
    assert attr(page, "ranking", "data-order") == "A,B,C"
    for i, label in enumerate("ABC"):
        score, sd, rank = result(page, i)
        assert score == pytest.approx(FLEUR_SCORES[label], abs=1e-9)
        assert float(sd) == pytest.approx(FLEUR_SDS[label], abs=1e-9)
        assert rank == str(order.index(label) + 1)
    # A's lead over B is within the spread of the judge's digits; B's over C is not.
    assert [d[2] > d[3] for d in expected] == [False, True]
    check_differences(page, expected, 3)
    assert not page.d.find_elements("css selector", "[data-testid='flip-points']")

    # The pick: no γ, so agreement is one answer and no range.
    assert attr(page, "agreement", "data-value") == ""
    page.el("prefer-2").click()
    assert attr(page, "agreement", "data-value") == "disagree" and attr(page, "agreement", "data-range") == ""
    page.el("prefer-1").click()
    assert attr(page, "agreement", "data-value") == "disagree"
    page.el("prefer-0").click()
    assert attr(page, "agreement", "data-value") == "agree"
    assert "agrees with your pick, A" in text(page, "agreement")

    page.el("export-json-button").click()
    raw = page.wait_file(downloads, "fleur-candidates.json").read_text()
    assert KEY not in raw
    doc = json.loads(raw)
    assert doc["metric"] == "fleur" and doc["kind"] == "candidates"
    assert doc["ranking"] == ["A", "B", "C"] and doc["chosen"] == "A" and doc["agrees"] is True
    assert [c["text"] for c in doc["candidates"]] == [FLEUR_TEXTS[k] for k in "ABC"]
    assert doc["candidates"][0]["uncertainty"] == pytest.approx(FLEUR_SDS["A"], abs=1e-12)
    assert [d["exceeds"] for d in doc["differences"]] == [False, True]
    assert doc["candidates"][0]["result"]["metric"] == "fleur"

    # Into the lab with B marked: its pairs are (B, A), lost, and (B, C), won.
    page.el("prefer-1").click()
    page.el("send-to-lab-button").click()
    page.wait_for(lambda d: "Sent to the lab" in page.el("send-to-lab-message").text, "the hand-over")
    asked = len(gpt4o.requests)
    lab = AppPage(browser, app_url + "lab/")
    lab.wait_for(lambda d: d.find_elements("css selector", "[data-testid='meta-pairwise-accuracy']"), "the pairwise accuracy")
    assert float(lab.el("meta-pairwise-accuracy").get_attribute("data-value")) == pytest.approx(50.0)
    assert len(gpt4o.requests) == asked


# --- G-VEval -------------------------------------------------------------------------------

GV_TEXTS = {
    "A": "A man plays a guitar on a stage.",
    "B": "A person holds something.",
    "C": "A man plays an acoustic guitar under stage lights.",
}
GV_DISTS = {"A": [("85", 0.6), ("80", 0.4)], "B": [("70", 1.0)], "C": [("90", 0.5), ("80", 0.5)]}


def gv_script(body):
    alts = GV_DISTS[candidate_of(body, GV_TEXTS)]
    return [sure("The "), sure("final "), sure("score "), sure("is"), sure(" $"), (alts[0][0], alts), sure("$.")]


def gv_stats(label):
    d = [(int(t), p) for t, p in GV_DISTS[label]]
    m = sum(v * p for v, p in d)
    return m, math.sqrt(sum(p * (v - m) ** 2 for v, p in d))


def test_g_veval_candidates_use_the_spread_of_the_integer_tokens(browser, app_url, images, gpt4o):
    gpt4o.script = gv_script
    page = judged(browser, app_url, gpt4o, "g_veval", GV_TEXTS, with_photo(images), mode="ref_free")
    assert len(gpt4o.requests) == 3

    scores = {k: gv_stats(k)[0] for k in "ABC"}
    sds = {k: gv_stats(k)[1] for k in "ABC"}
    order, expected = differences(scores, sds)
    assert order == ["C", "A", "B"]
    assert attr(page, "ranking", "data-order") == "C,A,B"
    for i, label in enumerate("ABC"):
        score, sd, rank = result(page, i)
        assert score == pytest.approx(scores[label], abs=1e-9)
        assert float(sd) == pytest.approx(sds[label], abs=1e-9)
        assert rank == str(order.index(label) + 1)
    # C is ahead of A by 2 within √(5² + 6); A ahead of B by 13, more than √6.
    assert [d[2] > d[3] for d in expected] == [False, True]
    check_differences(page, expected, 1)


# --- MAEV ----------------------------------------------------------------------------------

MAEV_TEXTS = {
    "A": "A grey cat is sleeping on the sofa.",
    "B": "A brown dog is sitting on the sofa.",
    "C": "A cat, or maybe a small dog, lies on the sofa.",
}
# Printed scores of each candidate's five trials (any order: the mean and its standard error
# do not depend on it).
MAEV_PRINTED = {"A": [2, 2, 2, 2, 2], "B": [0, 0, 0, 0, 0], "C": [2, 2, 0, 0, 0]}


def test_maev_candidates_average_trials_and_weigh_differences_by_their_standard_error(browser, app_url, gpt4o, downloads):
    lock = threading.Lock()
    served = {k: 0 for k in MAEV_TEXTS}

    def script(body):
        c = candidate_of(body, MAEV_TEXTS)
        with lock:
            k = served[c]
            served[c] += 1
        return [sure("'Evaluation Evidence': judged.\n'Assistant Score': "), sure(str(MAEV_PRINTED[c][k]))]

    gpt4o.script = script
    def inputs(page):
        page.fill("question-input", "What animal is on the sofa?")
        page.fill("caption-input", "A grey cat sleeps on a red sofa.")
        page.fill("reference-answer-input", "A cat is sleeping on the sofa.")

    page = judged(browser, app_url, gpt4o, "maev", MAEV_TEXTS, inputs)
    assert len(gpt4o.requests) == 15 and served == {"A": 5, "B": 5, "C": 5}

    def stats(xs):
        m = sum(xs) / len(xs)
        return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs))

    scores = {k: stats(v)[0] for k, v in MAEV_PRINTED.items()}
    sds = {k: stats(v)[1] for k, v in MAEV_PRINTED.items()}
    order, expected = differences(scores, sds)
    assert order == ["A", "C", "B"] and attr(page, "ranking", "data-order") == "A,C,B"
    for i, label in enumerate("ABC"):
        score, sd, _ = result(page, i)
        assert score == pytest.approx(scores[label], abs=1e-9)
        assert float(sd) == pytest.approx(sds[label], abs=1e-9)
    assert sds["C"] == pytest.approx(math.sqrt(1.2 / 5))
    check_differences(page, expected, 2)
    page.el("prefer-1").click()
    assert attr(page, "agreement", "data-value") == "disagree"
    time.sleep(0.2)
    assert len(gpt4o.requests) == 15

    page.el("export-json-button").click()
    doc = json.loads(page.wait_file(downloads, "maev-candidates.json").read_text())
    assert doc["metric"] == "maev" and doc["chosen"] == "B" and doc["agrees"] is False
    assert [len(c["result"]["trials"]) for c in doc["candidates"]] == [5, 5, 5]
    assert "sk-test-plain" not in json.dumps(doc)
