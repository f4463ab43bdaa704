"""Issue 44: γ by hand. A teacher sets each criterion's five rating bars (drag, keys, typing,
presets) and every number follows exactly as the core computes it for that distribution; a
criterion with all five at zero is refused in words; the same distribution everywhere makes γ
do nothing; a certain criterion takes all the weight below γ = 1; the export, the result file
and the share link carry the bars, say "set by hand" and open again to the same numbers; present
mode at 1024×768 shows the bars, the scores and the weights, and a focused bar keeps its keys."""

import json
import math

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from app_page import CRITERIA, AppPage, export_pattern, tid
from conftest import ROOT, make_driver

SAID = "Set by hand, no model was asked."


# ---- the core's arithmetic, written again from SPEC §1 (HarmonicEval Eqs. 1-4)

def distribution(bars):
    s = sum(bars)
    return [b / s for b in bars]


def score(p):
    t = 0.0
    for i, pi in enumerate(p):
        t += (i + 1) * pi
    return t


def sigma(p):
    m = score(p)
    v = 0.0
    for i, pi in enumerate(p):
        d = (i + 1) - m
        v += d * d * pi
    return math.sqrt(max(v, 0.0))


def weights(sigmas, g):
    n = len(sigmas)
    if g >= 1:
        return [1 / n] * n
    m = min(sigmas)
    if m <= 0 or g <= 0:
        k = sigmas.count(m)
        return [1 / k if s == m else 0.0 for s in sigmas]
    e = 2 * (1 - g) / g
    u = [math.exp(-e * math.log(s / m)) for s in sigmas]
    h = sum(u)
    return [x / h for x in u]


def overall(all_bars, g):
    ps = [distribution(b) for b in all_bars if sum(b) > 0]
    w = weights([sigma(p) for p in ps], g)
    return sum(wi * score(p) for wi, p in zip(w, ps))


# ---- the page

def open_hand(page):
    page.wait_for(lambda d: d.find_elements(*tid("hand-button")), "the gallery's by-hand button", 20)
    page.el("hand-button").click()
    page.quiet()
    page.wait_for(lambda d: d.find_elements(*tid("hand-panel")) and page.overall() is not None, "the by-hand panel")


def bar_values(page):
    return page.d.execute_script(
        "return arguments[0].map(c => [1,2,3,4,5].map(k => Number(document.querySelector(`[data-testid=hand-${c}-${k}]`).value)));",
        CRITERIA)


def gamma(page):
    return float(page.d.find_element(*tid("gamma-slider")).get_property("value"))


def set_gamma(page, g):
    page.d.execute_script(
        "const s = document.querySelector('[data-testid=gamma-slider]'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('input', {bubbles: true}));", str(g))
    page.wait_for(lambda d: gamma(page) == pytest.approx(g), f"γ = {g}")


def card_numbers(page, c):
    return (float(page.read(f"criterion-{c}", "data-score")), float(page.read(f"criterion-{c}", "data-sigma")))


def assert_cards_follow(page):
    """Every card's score and σ, and the overall score, are the core's for the bars shown."""
    all_bars = bar_values(page)
    for c, b in zip(CRITERIA, all_bars):
        if sum(b) == 0:
            assert page.read(f"criterion-{c}", "data-state") == "error", c
            continue
        p = distribution(b)
        page.wait_for(lambda d: card_numbers(page, c) == (score(p), sigma(p)), f"{c}'s card to follow {b}")
    g = gamma(page)
    page.wait_for(lambda d: page.overall() == pytest.approx(overall(all_bars, g), abs=1e-12), "the overall score")
    return all_bars


def preset(page, c, value):
    from selenium.webdriver.support.ui import Select
    Select(page.el(f"hand-preset-{c}")).select_by_value(value)


def type_bar(page, c, k, value):
    e = page.el(f"hand-{c}-{k}-typed")
    e.send_keys(Keys.CONTROL, "a")
    e.send_keys(str(value))
    e.send_keys("\t")


def test_bars_set_by_drag_keys_and_typing_move_every_number_as_the_core_does(browser, app_url):
    page = AppPage(browser, app_url)
    chunks = "return performance.getEntriesByType('resource').map(e => e.name).filter(n => /\\/chunk-hand-[^/]*\\.wasm$/.test(n))"
    assert browser.execute_script(chunks) == [], "the by-hand code is not part of the first visit"
    open_hand(page)
    assert len(browser.execute_script(chunks)) == 1, "the by-hand code arrives in its own chunk"
    assert SAID in page.el("hand-note").text
    assert page.el("overall-hand").text == SAID
    for c in CRITERIA:
        assert page.el(f"criterion-{c}").find_element("css selector", ".badge").text == "set by hand"
        assert not page.el(f"explain-{c}").is_enabled(), "no model to ask why"
    start = assert_cards_follow(page)

    # Keyboard: three steps up on Clarity's rating 3.
    bar = page.el("hand-clarity-3")
    bar.click()
    before = int(bar.get_property("value"))
    ActionChains(browser).send_keys(Keys.ARROW_UP * 3).perform()
    page.wait_for(lambda d: int(bar.get_property("value")) == min(100, before + 3), "the bar to move by key")
    assert bar_values(page)[2] != start[2]
    assert_cards_follow(page)

    # Typing into the bar's field.
    type_bar(page, "clarity", 1, 40)
    page.wait_for(lambda d: page.el("hand-clarity-1").get_property("value") == "40", "the typed value on the bar")
    assert_cards_follow(page)

    # Pointer: drag Correctness's rating 1 from the bottom to the top.
    bar = page.el("hand-correctness-1")
    h = bar.size["height"]
    ActionChains(browser).move_to_element_with_offset(bar, 0, h // 2 - 2).click_and_hold() \
        .move_by_offset(0, -(h // 2)).move_by_offset(0, -(h // 2) + 4).release().perform()
    page.wait_for(lambda d: int(page.el("hand-correctness-1").get_property("value")) >= 85, "the dragged bar near the top")
    shown = assert_cards_follow(page)
    assert shown[0][0] >= 85

    # The sentence names the criterion that carries the weight, and why.
    set_gamma(page, 0.3)
    assert_cards_follow(page)
    sigmas = [sigma(distribution(b)) for b in shown]
    w = weights(sigmas, 0.3)
    top = CRITERIA[w.index(max(w))].capitalize()
    said = page.el("hand-sentence").text
    assert top in said and "σ" in said and "smallest" in said, said


def test_a_criterion_with_all_five_at_zero_is_refused_in_words(browser, app_url):
    page = AppPage(browser, app_url)
    open_hand(page)
    for k in range(1, 6):
        type_bar(page, "fluency", k, 0)
    page.wait_for(lambda d: page.read("criterion-fluency", "data-state") == "error", "Fluency refused")
    refused = page.el("hand-refused-fluency").text
    assert "zero" in refused and "Fluency" in refused, refused
    assert "4 of 5" in page.el("overall-score").text
    assert math.isfinite(page.overall())
    assert_cards_follow(page)
    preset(page, "fluency", "sure-4")
    page.wait_for(lambda d: page.read("criterion-fluency", "data-score") == "4", "Fluency back, sure of 4")
    assert page.el("hand-refused-fluency").text == ""


def test_the_same_distribution_everywhere_makes_gamma_do_nothing(browser, app_url):
    page = AppPage(browser, app_url)
    open_hand(page)
    for c in CRITERIA:
        preset(page, c, "split-1-5")
    assert_cards_follow(page)
    seen = set()
    for g in [0.01, 0.2, 0.5, 0.75, 1.0]:
        set_gamma(page, g)
        seen.add(page.overall())
        assert [float(page.read(f"criterion-{c}", "data-weight")) for c in CRITERIA] == [0.2] * 5
    assert len(seen) == 1 and seen.pop() == pytest.approx(3.0)
    assert "equally sure" in page.el("hand-sentence").text


def test_a_certain_criterion_carries_all_the_weight_below_gamma_one(browser, app_url):
    page = AppPage(browser, app_url)
    open_hand(page)
    for c in CRITERIA:
        preset(page, c, "flat")
    preset(page, "completeness", "sure-2")
    for g in [0.01, 0.5, 0.9]:
        set_gamma(page, g)
        page.wait_for(lambda d: page.read("criterion-completeness", "data-weight") == "1", f"all the weight at γ = {g}")
        assert page.overall() == 2.0
        assert "Completeness carries all the weight" in page.el("hand-sentence").text
    set_gamma(page, 1.0)
    page.wait_for(lambda d: page.read("criterion-completeness", "data-weight") == "0.2", "a fifth at γ = 1")
    # The guided steps: step 2 makes Fluency certain.
    page.el("hand-step-2").click()
    page.wait_for(lambda d: page.read("criterion-fluency", "data-weight") == "1", "step 2")
    assert "Fluency is certain" in page.el("hand-lesson").text


def test_the_file_and_the_share_link_carry_the_bars_and_open_again_to_the_same_numbers(browser, app_url, downloads, tmp_path):
    page = AppPage(browser, app_url)
    open_hand(page)
    type_bar(page, "conciseness", 2, 73)
    preset(page, "clarity", "split-1-5")
    set_gamma(page, 0.42)
    shown = assert_cards_follow(page)
    numbers = {c: card_numbers(page, c) for c in CRITERIA}
    total = page.overall()

    page.el("export-json-button").click()
    doc_path = page.wait_file(downloads, export_pattern("harmonic_eval"))
    doc = json.loads(doc_path.read_text())
    assert doc["model"] == "(none: set by hand)" and "Set by hand" in doc["source"]
    assert [doc["by_hand"][c] for c in CRITERIA] == shown
    assert doc["gamma"] == 0.42

    def same(other):
        other.wait_for(lambda d: other.d.find_elements(*tid("hand-panel")), "the bars again")
        assert bar_values(other) == shown
        assert {c: card_numbers(other, c) for c in CRITERIA} == numbers
        assert other.overall() == total
        assert SAID in other.el("hand-note").text and other.el("overall-hand").text == SAID

    other_browser = make_driver(tmp_path / "other-profile", downloads)
    try:
        other = AppPage(other_browser, app_url)
        other.el("open-result-input").send_keys(str(doc_path))
        other.quiet()
        same(other)
        assert "set by hand" in other.el("opened-note").text
    finally:
        other_browser.quit()

    page.el("copy-link-button").click()
    page.wait_for(lambda d: "#r=" in page.el("share-link").text, "the link")
    link = page.el("share-link").text
    linked_browser = make_driver(tmp_path / "linked-profile", downloads)
    try:
        linked = AppPage(linked_browser, link)
        linked.quiet()
        same(linked)
    finally:
        linked_browser.quit()


def test_change_these_ratings_starts_from_the_result_shown(browser, app_url):
    page = AppPage(browser, app_url)
    page.wait_for(lambda d: d.find_elements(*tid("demo-gamma-flip-a")), "the gallery", 20)
    page.el("demo-gamma-flip-a").click()
    page.wait_for(lambda d: page.overall() is not None, "the example")
    example = json.loads((ROOT / "public" / "examples" / "gamma-flip-a.json").read_text())
    ps = {e["name"]: e["distribution"] for e in example["criteria"]}
    # The largest probability becomes 100, the rest in proportion, rounded half away from 0.
    expected = [[math.floor(x / max(ps[c]) * 100 + 0.5) for x in ps[c]] for c in CRITERIA]
    assert page.el("hand-change-button").is_displayed()
    page.el("hand-change-button").click()
    page.quiet()
    page.wait_for(lambda d: d.find_elements(*tid("hand-panel")), "the bars")
    assert not page.el("hand-change-button").is_displayed()
    shown = assert_cards_follow(page)
    assert shown == expected
    # A run replaces the bars: Leave goes back to an empty result.
    page.el("hand-leave").click()
    page.wait_for(lambda d: not d.find_elements(*tid("hand-panel")), "the bars to go")
    assert page.overall() is None


def test_present_mode_shows_the_bars_scores_and_weights_and_a_focused_bar_keeps_its_keys(browser, app_url):
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 1024, "height": 768, "deviceScaleFactor": 1, "mobile": False})
    page = AppPage(browser, app_url)
    open_hand(page)
    page.el("present-button").click()
    page.wait_for(lambda d: not d.find_element(*tid("demo-gallery")).is_displayed(), "present mode")

    def in_view(name):
        r = browser.execute_script(
            "const r = document.querySelector(`[data-testid='${arguments[0]}']`).getBoundingClientRect();"
            "return [r.top, r.bottom, r.left, r.right, innerHeight, innerWidth];", name)
        assert r[1] > r[0] and r[0] >= -1 and r[1] <= r[4] + 1 and r[2] >= -1 and r[3] <= r[5] + 1, f"{name} at {r}"

    for name in ["overall-score", "gamma-slider", "hand-sentence"] + [f"hand-{c}-{k}" for c in CRITERIA for k in (1, 5)] \
            + [f"hand-score-{c}" for c in CRITERIA] + [f"hand-weight-{c}" for c in CRITERIA]:
        in_view(name)
    for hidden in ["hand-clarity-1-typed", "hand-preset-clarity", "criterion-clarity"]:
        assert not page.el(hidden).is_displayed(), hidden
    size = browser.execute_script(
        "return parseFloat(getComputedStyle(document.querySelector('[data-testid=hand-score-clarity]')).fontSize);")
    assert size >= 18
    # Nothing focused: the arrow keys move γ.
    browser.execute_script("document.activeElement && document.activeElement.blur();")
    g = gamma(page)
    ActionChains(browser).send_keys(Keys.ARROW_LEFT).perform()
    page.wait_for(lambda d: gamma(page) == pytest.approx(g - 0.01), "γ to move by key")
    # A focused bar keeps its own keys: the bar moves, γ does not.
    bar = page.el("hand-fluency-4")
    browser.execute_script("arguments[0].focus();", bar)
    v, g = int(bar.get_property("value")), gamma(page)
    ActionChains(browser).send_keys(Keys.ARROW_UP).perform()
    page.wait_for(lambda d: int(bar.get_property("value")) == v + 1, "the bar to move")
    assert gamma(page) == g
    assert_cards_follow(page)


def test_a_comparison_set_by_hand_reranks_live_and_its_link_opens_again(browser, app_url, downloads, tmp_path):
    page = AppPage(browser, app_url)
    page.wait_for(lambda d: d.find_elements(*tid("demo-compare-constructed")), "the gallery", 20)
    page.el("demo-compare-constructed").click()
    page.wait_for(lambda d: "," in (page.read("ranking", "data-order") or ""), "the ranking")
    order = page.read("ranking", "data-order").split(",")
    last = order[-1]
    labels = ["A", "B", "C"]
    page.el("hand-change-button").click()
    page.quiet()
    page.wait_for(lambda d: d.find_elements(*tid("hand-candidate-0")), "the candidates' bars")
    assert SAID in page.el("hand-note").text
    # The candidate ranked last becomes sure of 5 everywhere: first at every γ.
    page.el(f"hand-candidate-{labels.index(last)}").click()
    for c in CRITERIA:
        preset(page, c, "sure-5")
    page.wait_for(lambda d: page.read("ranking", "data-order").split(",")[0] == last, f"{last} ranked first")
    assert page.el("hand-score-clarity").text.startswith("5.00")
    ranking = page.read("ranking", "data-order")
    page.el("copy-link-button").click()
    page.wait_for(lambda d: "#r=" in page.el("share-link").text, "the link")
    link = page.el("share-link").text
    other_browser = make_driver(tmp_path / "other-profile", downloads)
    try:
        other = AppPage(other_browser, link)
        other.quiet()
        other.wait_for(lambda d: d.find_elements(*tid("hand-candidate-0")), "the bars again")
        assert other.read("ranking", "data-order") == ranking
        assert SAID in other.el("hand-note").text
        other.el(f"hand-candidate-{labels.index(last)}").click()
        assert bar_values(other) == [[0, 0, 0, 0, 100]] * 5
    finally:
        other_browser.quit()
