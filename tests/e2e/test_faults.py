"""The fault matrix: each fault injected into one criterion's request against a loopback server
speaking OpenAI's format. Every fault gets its exact sentence on that criterion's card; the
other four criteria finish and the overall score is computed from them (nothing finished is
thrown away); the page keeps working (the next evaluation succeeds). Retries are off so each
fault is seen as it is; retrying is tested in test_harmonic_eval.py and test_providers.py."""

import email.utils
import json
import time
from pathlib import Path

import pytest
from selenium.webdriver.support.ui import Select

from app_page import CRITERIA, AppPage, allow_storage, refuse_storage
from fakes.openai import FakeOpenAI
from fakes.gemini import FakeGemini

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bad_inputs"
CUT = "The server's answer could not be read"
NO_LOGPROBS = (
    "The response has no token probabilities (logprobs). This model or endpoint does not return "
    "them, so no smoothed score can be computed; choose a model that supports logprobs."
)

FAULTS = [
    (400, "The server refused the request (HTTP 400). The model may not accept images or one of the parameters. Server said: "),
    (403, "Access denied (HTTP 403). The key lacks permission for this model. Server said: "),
    (404, "Not found (HTTP 404). Check the model name and the base URL (it usually ends in /v1). Server said: "),
    (408, "The server timed out (HTTP 408). Try again. Server said: "),
    (413, "The request is too large (HTTP 413). Lower the image size. Server said: "),
    (422, "The server answered HTTP 422. Server said: "),
    (500, "The server failed (HTTP 500). Try again later. Server said: "),
    (503, "The server failed (HTTP 503). Try again later. Server said: "),
    (504, "The server timed out (HTTP 504). Try again. Server said: "),
    ("html_502", "The server failed (HTTP 502). Try again later."),
    ("cut_body", f"{CUT}: the connection closed before the whole answer arrived."),
    ("invalid_json", f"{CUT}: not a chat completion (EOF while parsing a string at line 1 column 102)."),
    ("wrong_shape", f"{CUT}: the response has no choices."),
    ("empty_logprobs", NO_LOGPROBS),
    ("no_logprobs", NO_LOGPROBS),
    ("no_rating", "The model's answer contains no rating from 1 to 5: \u201cI cannot evaluate this text.\u201d"),
]


@pytest.fixture
def faulty():
    server = FakeOpenAI(delay=0.05)
    yield server
    server.stop()


def ready(browser, app_url, fake):
    page = AppPage(browser, app_url)
    page.set_backend(fake.url, "gpt-4o", "sk-test-faults")
    page.set_number("retries-input", 0)
    page.upload(FIXTURES / "good.jpg")
    page.wait_image()
    page.fill("text-input", "A red rectangle and a green circle.")
    return page


@pytest.mark.parametrize("fault,message", FAULTS, ids=[str(f[0]) for f in FAULTS])
def test_one_faulty_criterion_fails_alone_with_its_sentence(browser, app_url, faulty, fault, message):
    faulty.behaviour = {"correctness": fault}
    page = ready(browser, app_url, faulty)
    page.evaluate()
    page.wait_settled()
    assert page.state("correctness") == "error"
    said = page.card("correctness").text.splitlines()[3]
    # HTTP errors end with the server's own words; the rest are whole sentences of ours.
    assert said.startswith(message) if message.endswith(": ") else said == message, said
    for c in CRITERIA[1:]:
        assert page.state(c) == "done", c
    # The overall score is computed from the four that finished.
    assert page.overall() is not None
    # The page keeps working: the same evaluation succeeds once the fault is gone.
    faulty.behaviour = {}
    page.el("fresh-run-checkbox").click()
    page.evaluate()
    page.wait_settled()
    assert all(page.state(c) == "done" for c in CRITERIA)


def test_a_slow_dribbled_answer_is_waited_for(browser, app_url, faulty):
    faulty.behaviour = {"*": "slow_body"}
    page = ready(browser, app_url, faulty)
    page.evaluate()
    page.wait_settled(timeout=30)
    assert all(page.state(c) == "done" for c in CRITERIA)


def test_retry_after_given_as_an_http_date_is_waited_for(browser, app_url, faulty):
    # RFC 9110 allows an HTTP-date instead of seconds: the retry must not come before it.
    at = int(time.time()) + 6
    when = email.utils.formatdate(at, usegmt=True)
    faulty.behaviour = {"correctness": ("fail_then_ok", 429, 1, when)}
    page = AppPage(browser, app_url)
    page.set_backend(faulty.url, "gpt-4o", "sk-test-faults")
    page.upload(FIXTURES / "good.jpg")
    page.wait_image()
    page.fill("text-input", "A red rectangle and a green circle.")
    page.evaluate()
    page.wait_settled()
    assert all(page.state(c) == "done" for c in CRITERIA)
    tries = [r["time"] for r in faulty.requests if r["criterion"] == "correctness"]
    assert len(tries) == 2
    assert tries[1] >= at - 0.05 and tries[1] - tries[0] >= 0.5, (tries, at)


# Issue 17.4: one probability rule for every wire format. Each criterion's rating step gets
# one impossible log-probability on a rating alternative (or on the printed rating itself);
# before, Gemini read "-Infinity", "NaN" and null as probability 1 and OpenAI-format servers'
# positive logprobs gave a score at 100 % coverage, and a printed 1e308 was dropped silently.
UNUSABLE = "none of this answer's token probabilities can be used"


def _is_rating(token):
    return token.strip(" *") in ("1", "2", "3", "4", "5")


class HostileOpenAI(FakeOpenAI):
    """OpenAI format: ``hostile[criterion] = (where, value)``, where "alt" poisons the first
    rating alternative other than the printed one, "chosen" the printed rating token."""

    hostile = {}

    def rating_reply(self, rec, logprobs=True):
        reply = super().rating_reply(rec, logprobs)
        where, value = self.hostile.get(rec.get("criterion"), (None, None))
        if where is None:
            return reply
        body = json.loads(reply.body)
        for step in body["choices"][0]["logprobs"]["content"]:
            if not _is_rating(step["token"]):
                continue
            if where == "chosen":
                step["logprob"] = value
                for alt in step["top_logprobs"]:
                    if alt["token"] == step["token"]:
                        alt["logprob"] = value
            else:
                alt = next(a for a in step["top_logprobs"] if _is_rating(a["token"]) and a["token"] != step["token"])
                alt["logprob"] = value
        reply.body = json.dumps(body, indent=2).encode()
        return reply


class HostileGemini(FakeGemini):
    """Gemini: the same, on ``logProbability`` of the rating step's ``topCandidates``."""

    hostile = {}

    def rating_reply(self, rec, logprobs=True):
        reply = super().rating_reply(rec, logprobs)
        value = self.hostile.get(rec.get("criterion"))
        if value is None:
            return reply
        body = json.loads(reply.body)
        result = body["candidates"][0]["logprobsResult"]
        for chosen, top in zip(result["chosenCandidates"], result["topCandidates"]):
            if _is_rating(chosen["token"]):
                alt = next(a for a in top["candidates"] if _is_rating(a["token"]) and a["token"] != chosen["token"])
                alt["logProbability"] = value
        reply.body = json.dumps(body, indent=2).encode()
        return reply


def judged_by(browser, app_url, server, wire):
    """A HarmonicEval run against `server` in `wire`'s format ("openai" or "gemini"), no
    retries, every criterion settled."""
    page = AppPage(browser, app_url)
    if wire == "openai":
        page.set_backend(server.url, "gpt-4o", "sk-test-faults")
    else:
        Select(page.el("preset-select")).select_by_value("gemini")
        page.fill("base-url-input", server.url)
        page.fill("model-input", "gemini-2.5-flash")
        page.fill("api-key-input", "gm-test-faults")
    page.set_number("retries-input", 0)
    page.upload(FIXTURES / "good.jpg")
    page.wait_image()
    page.fill("text-input", "A red rectangle and a green circle.")
    page.evaluate()
    page.wait_settled()
    return page


@pytest.mark.parametrize("wire", ["openai", "gemini"])
def test_impossible_logprobs_fail_the_criterion_with_a_sentence(browser, app_url, wire):
    if wire == "openai":
        server = HostileOpenAI(delay=0.05)
        server.hostile = {"correctness": ("alt", 0.5), "completeness": ("chosen", 1e308),
                          "clarity": ("alt", 2.0), "fluency": ("chosen", 0.01)}
    else:
        server = HostileGemini(delay=0.05)
        server.hostile = {"correctness": "-Infinity", "completeness": "NaN",
                          "clarity": 0.5, "fluency": "Infinity"}
    try:
        page = judged_by(browser, app_url, server, wire)
        for c in CRITERIA[:4]:
            assert page.state(c) == "error", (c, page.card(c).text)
            text = page.card(c).text
            assert UNUSABLE in text and "log-probability" in text, text
            assert page.card(c).get_attribute("data-score") in (None, ""), c
        # The untouched criterion is scored, and the overall comes from it alone.
        assert page.state("conciseness") == "done"
        assert page.overall() == pytest.approx(page.attr("conciseness", "score"), abs=1e-9)
    finally:
        server.stop()


def test_a_null_gemini_logprob_is_not_probability_one(browser, app_url):
    server = HostileGemini(delay=0.05)
    server.hostile = {c: None for c in CRITERIA}
    server.hostile["correctness"] = "null-marker"
    try:
        # json.dumps cannot write a null through the dict above, so swap it in the text.
        original = HostileGemini.rating_reply

        def with_null(self, rec, logprobs=True):
            reply = original(self, rec, logprobs)
            reply.body = reply.body.replace(b'"null-marker"', b"null")
            return reply

        server.rating_reply = with_null.__get__(server)
        page = judged_by(browser, app_url, server, "gemini")
        text = page.card("correctness").text
        assert page.state("correctness") == "error" and "log-probability of null" in text, text
        assert all(page.state(c) == "done" for c in CRITERIA[1:])
    finally:
        server.stop()


CACHE_NOT_KEPT = (
    "This browser did not keep the last answer in the answer cache (storage full or refused): "
    "the score stands, but asking again will send (and bill) the request again."
)
THEME_NOT_KEPT = (
    "This browser did not remember the theme (storage full or off): it applies until the page "
    "is reloaded."
)


def test_storage_refusals_are_said_and_lose_nothing(browser, app_url, faulty):
    """A full disk: the answer cache's write and the theme's are refused by the browser's own
    quota. Each gets its sentence; the scores and the theme still apply; nothing claims to be
    cached that was not."""
    page = ready(browser, app_url, faulty)
    assert page.el("storage-error").text == ""
    origin = refuse_storage(browser)
    try:
        page.evaluate()
        page.wait_settled()
        assert all(page.state(c) == "done" for c in CRITERIA)
        assert page.overall() is not None
        page.wait_for(lambda d: page.el("storage-error").text == CACHE_NOT_KEPT, "the cache sentence")
        # Not cached, so the same inputs ask the model again (five more requests).
        sent = len(faulty.requests)
        page.evaluate()
        page.wait_settled()
        assert len(faulty.requests) == sent + 5
        assert page.overall() is not None

        root_theme = "return document.documentElement.getAttribute('data-theme');"
        assert not browser.find_elements("css selector", '[data-testid="theme-not-kept"]')
        browser.find_element("css selector", ".theme-toggle").click()
        note = page.wait_for(lambda d: d.find_elements("css selector", '[data-testid="theme-not-kept"]'),
                             "the theme sentence")[0]
        assert note.text == THEME_NOT_KEPT
        assert browser.execute_script(root_theme) in ("light", "dark"), "the theme applies anyway"
        assert page.local_storage("hj.theme") is None
    finally:
        allow_storage(browser, origin)
    # Storage back: the next choice is kept and the sentence goes.
    browser.find_element("css selector", ".theme-toggle").click()
    page.wait_for(lambda d: not d.find_elements("css selector", '[data-testid="theme-not-kept"]'),
                  "the theme sentence to go")
    assert page.local_storage("hj.theme") == browser.execute_script(root_theme)


def test_a_run_whose_code_never_arrives_ends_with_a_sentence_within_the_request_time_limit(browser, fake, images):
    """Issue 72: a run never waits silently or for ever. The host holds back the code Evaluate
    needs (the `run` chunk): the form says within seconds what it waits for, and at the
    request's time limit (set to 4 s here) it ends with a sentence and sends nothing, not even
    when the code arrives afterwards. The page keeps working: the next Evaluate judges."""
    import browsers
    from conftest import DIST

    site = browsers.Site(DIST)
    run_chunk = next(p.name for p in DIST.glob("chunk-run-*.wasm"))
    try:
        page = AppPage(browser, site.url)
        page.set_backend(fake.url, "gpt-4o", "sk-faults-0123456789")
        page.set_number("timeout-input", 4)
        page.upload(images / "small.png")
        page.wait_image()
        page.fill("text-input", "A small striped square.")
        site.hold(run_chunk)
        start = time.monotonic()
        page.el("evaluate-button").click()
        problems = lambda: page.el("form-problems").text  # noqa: E731
        page.wait_for(lambda d: "Waiting for the code for judging to arrive from this site" in problems(),
                      "the sentence that says what the run waits for", 4)
        page.wait_for(lambda d: "did not arrive from this site within 4 s, so nothing was sent" in problems(),
                      "the sentence at the request's time limit", 8)
        took = time.monotonic() - start
        assert 3.5 < took < 6.5, f"the run gave up after {took:.1f} s, with a 4 s time limit"
        assert "Waiting for" not in problems(), problems()
        site.release()
        time.sleep(1.5)
        assert fake.requests == [], "the run that gave up sent nothing when its code came late"
        assert all(page.state(c) not in ("running", "retrying") for c in CRITERIA)
        page.evaluate()
        page.wait_settled()
        assert all(page.state(c) == "done" for c in CRITERIA), [page.card(c).text[:100] for c in CRITERIA]
        assert len([r for r in fake.requests if r["path"].endswith("/chat/completions")]) == 5
        assert problems() == ""
    finally:
        site.stop()
