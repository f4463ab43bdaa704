"""Fast checks of the fake providers in tests/fakes (no browser): shapes, behaviours, CORS, keys,
and that the logprobs they send reproduce the SPEC distributions."""

import json
import math
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fakes.base import CRITERIA, EXPLAIN_PROMPT, SPEC_P, criterion_of  # noqa: E402
from fakes.openai import FakeOpenAI  # noqa: E402
from fakes.llama import FakeLlamaServer  # noqa: E402
from fakes.gemini import FakeGemini  # noqa: E402
from fakes.anthropic import FakeAnthropic  # noqa: E402

ORIGIN = "http://127.0.0.1:1"
IMAGE = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AKp//2Q=="
KEY = "sk-test-selftest-0123456789abcdef"

_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def call(url, method="GET", body=None, headers=None, timeout=10):
    """(status, headers, bytes) for any answer, errors included."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with _opener.open(req, timeout=timeout) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def jcall(*args, **kwargs):
    status, headers, data = call(*args, **kwargs)
    return status, headers, json.loads(data) if data else None


def rubric(criterion):
    return (
        "Evaluate the candidate caption for the given image on the following criterion.\n"
        f"- {criterion.capitalize()}: how good the caption is in this respect.\n"
        "Candidate caption: A dog runs across a grassy park.\nRating (1-5):"
    )


def acao(headers):
    return headers.get("Access-Control-Allow-Origin")


def no_access_control(headers):
    return not [k for k in headers.keys() if k.lower().startswith("access-control-")]


def renormalised(alternatives):
    """SPEC-style p over ratings 1..5 from (token, logprob) pairs, folding spellings."""
    mass = [0.0] * 5
    for token, lp in alternatives:
        t = token.strip()
        if t in ("1", "2", "3", "4", "5"):
            mass[int(t) - 1] += math.exp(lp)
    total = sum(mass)
    return [m / total for m in mass], total


# ---------------------------------------------------------------------------------------------
# Per-format request builders, so the behaviour tests can run over every fake.
# ---------------------------------------------------------------------------------------------


def openai_body(criterion, image=False, explain=False, logprobs=True):
    text = rubric(criterion)
    content = [{"type": "text", "text": text}, {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64," + IMAGE}}] if image else text
    messages = [{"role": "user", "content": content}]
    if explain:
        messages += [{"role": "assistant", "content": "3.95"}, {"role": "user", "content": EXPLAIN_PROMPT}]
    body = {"model": "gpt-4o", "messages": messages, "temperature": 0, "max_tokens": 20}
    if logprobs and not explain:
        body.update(logprobs=True, top_logprobs=20)
    return body


def gemini_body(criterion, image=False, explain=False, logprobs=True, k=20):
    parts = [{"text": rubric(criterion)}]
    if image:
        parts.append({"inline_data": {"mime_type": "image/jpeg", "data": IMAGE}})
    contents = [{"role": "user", "parts": parts}]
    if explain:
        contents += [{"role": "model", "parts": [{"text": "3.95"}]}, {"role": "user", "parts": [{"text": EXPLAIN_PROMPT}]}]
    config = {"temperature": 0, "maxOutputTokens": 20, "thinkingConfig": {"thinkingBudget": 0}}
    if logprobs and not explain:
        config.update(responseLogprobs=True, logprobs=k)
    return {"contents": contents, "generationConfig": config}


def anthropic_body(criterion, image=False, explain=False, model="claude-sonnet-4-5"):
    content = [{"type": "text", "text": rubric(criterion)}]
    if image:
        content.append({"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": IMAGE}})
    messages = [{"role": "user", "content": content}]
    if explain:
        messages += [{"role": "assistant", "content": "3.95"}, {"role": "user", "content": EXPLAIN_PROMPT}]
    return {"model": model, "max_tokens": 20, "temperature": 0, "messages": messages}


ANTHROPIC_HEADERS = {
    "x-api-key": KEY,
    "anthropic-version": "2023-06-01",
    "anthropic-dangerous-direct-browser-access": "true",
    "Origin": ORIGIN,
}


class Client:
    """Sends the app's kind of request to one fake."""

    def __init__(self, fake):
        self.fake = fake

    def rate(self, criterion, image=False, explain=False, headers=None, **kw):
        f = self.fake
        if isinstance(f, FakeGemini):
            h = {"x-goog-api-key": KEY, "Origin": ORIGIN}
            h.update(headers or {})
            return jcall(f.url + "/models/gemini-2.5-flash:generateContent", "POST", gemini_body(criterion, image, explain, **kw), h)
        if isinstance(f, FakeAnthropic):
            h = dict(ANTHROPIC_HEADERS)
            h.update(headers or {})
            return jcall(f.url + "/messages", "POST", anthropic_body(criterion, image, explain, **kw), h)
        h = {"Authorization": "Bearer " + KEY, "Origin": ORIGIN}
        h.update(headers or {})
        return jcall(f.url + "/chat/completions", "POST", openai_body(criterion, image, explain, **kw), h)

    def text_of(self, body):
        f = self.fake
        if isinstance(f, FakeGemini):
            return "".join(p.get("text", "") for p in body["candidates"][0]["content"].get("parts", []))
        if isinstance(f, FakeAnthropic):
            return "".join(b["text"] for b in body["content"] if b["type"] == "text")
        return body["choices"][0]["message"]["content"]


FAKES = {
    "openai": FakeOpenAI,
    "llama": FakeLlamaServer,
    "gemini": FakeGemini,
    "anthropic": FakeAnthropic,
}


@pytest.fixture(params=list(FAKES))
def any_fake(request):
    fake = FAKES[request.param]()
    yield fake
    fake.stop()


@pytest.fixture
def openai():
    fake = FakeOpenAI()
    yield fake
    fake.stop()


@pytest.fixture
def llama():
    fake = FakeLlamaServer()
    yield fake
    fake.stop()


@pytest.fixture
def gemini():
    fake = FakeGemini()
    yield fake
    fake.stop()


@pytest.fixture
def anthropic():
    fake = FakeAnthropic()
    yield fake
    fake.stop()


# ---------------------------------------------------------------------------------------------
# Behaviours shared by every fake.
# ---------------------------------------------------------------------------------------------


def test_urls_are_what_a_user_types(any_fake):
    suffix = {"openai": "/v1", "llama": "/v1", "gemini": "/v1beta", "anthropic": "/v1"}
    name = next(k for k, v in FAKES.items() if type(any_fake) is v)
    assert any_fake.url == f"http://127.0.0.1:{any_fake.port}{suffix[name]}"


def test_ok_and_explanation_and_recording(any_fake):
    c = Client(any_fake)
    status, _, body = c.rate("fluency")
    assert status == 200, body
    assert "5" in c.text_of(body)
    any_fake.explanation = "Because <b>reasons</b>."
    status, _, body = c.rate("fluency", explain=True)
    assert status == 200, body
    assert c.text_of(body) == "Because <b>reasons</b>."
    assert any_fake.count("fluency") == 1
    assert any_fake.count("fluency", explain=True) == 1
    assert [r["kind"] for r in any_fake.requests] == ["rating", "explain"]
    assert len(any_fake.rating_requests()) == 1 and len(any_fake.explanation_requests()) == 1
    rec = any_fake.requests[0]
    assert rec["method"] == "POST" and rec["criterion"] == "fluency" and rec["body"]
    assert all(k == k.lower() for k in rec["headers"])
    assert rec["headers"]["origin"] == ORIGIN
    assert abs(rec["time"] - time.time()) < 5


def test_every_criterion_is_recognised_in_every_shape(any_fake):
    c = Client(any_fake)
    for crit in CRITERIA:
        status, _, body = c.rate(crit, image=crit in ("correctness", "completeness"))
        assert status == 200, (crit, body)
    assert [r["criterion"] for r in any_fake.requests] == CRITERIA
    assert all(any_fake.count(crit) == 1 for crit in CRITERIA)


@pytest.mark.parametrize("retry_after", [3, None])
def test_fail_then_ok(any_fake, retry_after):
    status_code = 529 if isinstance(any_fake, FakeAnthropic) else 503 if isinstance(any_fake, FakeLlamaServer) else 429
    any_fake.behaviour = {"fluency": ("fail_then_ok", status_code, 2, retry_after)}
    c = Client(any_fake)
    for i in range(2):
        status, headers, body = c.rate("fluency")
        assert status == status_code, body
        assert "error" in json.dumps(body).lower()
        if retry_after is None:
            assert headers.get("retry-after") is None
        else:
            assert headers.get("retry-after") == str(retry_after)
    status, headers, body = c.rate("fluency")
    assert status == 200, body
    assert any_fake.count("fluency") == 3
    # Other criteria are not affected and keep their own count.
    assert c.rate("clarity")[0] == 200
    assert any_fake.count("clarity") == 1 and any_fake.count() == 4


def test_plain_status_behaviours_use_the_providers_error_shape(any_fake):
    c = Client(any_fake)
    any_fake.behaviour = {"correctness": 500, "fluency": "no_rating"}
    status, headers, body = c.rate("correctness")
    assert status == 500
    if isinstance(any_fake, FakeAnthropic):
        assert body["type"] == "error" and body["error"]["type"] == "api_error" and body["request_id"].startswith("req_")
    elif isinstance(any_fake, FakeGemini):
        assert body["error"]["code"] == 500 and body["error"]["status"] == "INTERNAL"
    elif isinstance(any_fake, FakeLlamaServer):
        assert list(body["error"]) == ["code", "message", "type"] and body["error"]["type"] == "server_error"
    else:
        assert body["error"]["type"] == "server_error" and "param" in body["error"]
    status, _, body = c.rate("fluency")
    assert status == 200
    assert not any(ch in c.text_of(body) for ch in "12345")


def test_hang_holds_without_blocking_others_and_releases_on_stop(any_fake):
    any_fake.behaviour = {"correctness": "hang"}
    c = Client(any_fake)
    outcome = {}

    def hung():
        started = time.time()
        try:
            outcome["result"] = c.rate("correctness")
        except Exception as e:  # connection closed without an answer
            outcome["error"] = e
        outcome["after"] = time.time() - started

    t = threading.Thread(target=hung, daemon=True)
    t.start()
    deadline = time.time() + 5
    while any_fake.inflight < 1 and time.time() < deadline:
        time.sleep(0.01)
    assert any_fake.inflight == 1
    # Others are answered while one hangs.
    assert c.rate("fluency")[0] == 200
    time.sleep(0.2)
    assert t.is_alive()
    started = time.time()
    any_fake.stop()
    assert time.time() - started < 2
    t.join(3)
    assert not t.is_alive()
    assert "error" in outcome, outcome
    assert outcome["after"] < 5


def test_hang_gives_up_after_its_limit(openai):
    openai.behaviour = {"clarity": "hang"}
    openai.hang_limit = 0.3
    with pytest.raises(Exception):
        Client(openai).rate("clarity")
    deadline = time.time() + 2
    while openai.inflight and time.time() < deadline:
        time.sleep(0.01)
    assert openai.inflight == 0


def test_delay_and_concurrency_are_counted(any_fake):
    any_fake.delay = 0.3
    c = Client(any_fake)
    threads = [threading.Thread(target=c.rate, args=(crit,)) for crit in CRITERIA[:3]]
    started = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.time() - started
    assert 0.3 <= took < 0.85
    assert any_fake.max_inflight == 3
    # The server thread counts a request out just after writing its answer, which the client
    # may read first: give it a moment.
    deadline = time.time() + 1.0
    while any_fake.inflight and time.time() < deadline:
        time.sleep(0.01)
    assert any_fake.inflight == 0


def test_no_vision_refuses_only_requests_with_an_image(any_fake):
    any_fake.behaviour = {"*": "no_vision"}
    c = Client(any_fake)
    status, _, body = c.rate("correctness", image=True)
    text = json.dumps(body)
    if isinstance(any_fake, FakeOpenAI):
        assert status == 400
        assert body == {"error": {
            "message": "Invalid content type. image_url is only supported by certain models.",
            "type": "invalid_request_error",
            "param": "messages.[0].content.[1].type",
            "code": None,
        }}
    elif isinstance(any_fake, FakeLlamaServer):
        assert status == 500 and "you may need to provide the mmproj" in text
    elif isinstance(any_fake, FakeGemini):
        assert status == 400 and body["error"]["message"] == "Image input modality is not enabled for models/gemini-2.5-flash"
    else:
        assert status == 400 and body["error"]["type"] == "invalid_request_error"
    assert c.rate("fluency")[0] == 200


def test_unknown_behaviour_is_reported(openai):
    openai.behaviour = {"fluency": "teapot"}
    status, _, _ = call(openai.url + "/chat/completions", "POST", openai_body("fluency"))
    assert status == 500
    assert openai.problems == ["unknown behaviour 'teapot'"]


def test_cors_off_sends_no_access_control_headers(any_fake):
    any_fake.cors = False
    status, headers, _ = call(any_fake.url + "/chat/completions", "OPTIONS", headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type",
    })
    assert no_access_control(headers)
    status, headers, _ = Client(any_fake).rate("fluency")
    assert status == 200 and no_access_control(headers)
    assert len(any_fake.preflights) == 1


# ---------------------------------------------------------------------------------------------
# OpenAI.
# ---------------------------------------------------------------------------------------------


def test_openai_distribution_models_and_get_recording(openai):
    for crit in CRITERIA:
        _, _, body = Client(openai).rate(crit)
        steps = body["choices"][0]["logprobs"]["content"]
        step = next(s for s in steps if s["token"].strip().isdigit())
        p, total = renormalised((a["token"], a["logprob"]) for a in step["top_logprobs"])
        assert p == pytest.approx(SPEC_P[crit], abs=1e-12)
        assert total == pytest.approx(0.97, abs=1e-12)
    status, headers, body = jcall(openai.url + "/models", headers={"Authorization": "Bearer x", "Origin": ORIGIN})
    assert status == 200 and body["object"] == "list"
    assert {"id": "gpt-4o", "object": "model", "created": 1715367049, "owned_by": "system"} in body["data"]
    assert acao(headers) == "*"
    assert len(openai.requests) == 5  # GETs are kept apart
    assert [r["route"] for r in openai.get_requests] == ["/v1/models"]
    assert openai.get_requests[0]["headers"]["authorization"] == "Bearer x"
    assert [r["method"] for r in openai.log] == ["POST"] * 5 + ["GET"]
    status, _, body = jcall(openai.url + "/nope", "POST", {})
    assert status == 404 and body["error"]["message"] == "Invalid URL (POST /v1/nope)"


def test_openai_errors_and_preflight(openai):
    openai.behaviour = {"correctness": 401, "completeness": 429, "clarity": 404}
    c = Client(openai)
    status, headers, body = c.rate("correctness")
    assert status == 401 and body["error"]["code"] == "invalid_api_key"
    status, headers, body = c.rate("completeness")
    assert status == 429 and headers["retry-after"] == "7" and body["error"]["code"] == "rate_limit_exceeded"
    status, headers, body = c.rate("clarity")
    assert status == 404 and "does not exist" in body["error"]["message"]
    status, headers, _ = call(openai.url + "/chat/completions", "OPTIONS", headers={"Origin": ORIGIN})
    assert status == 204
    assert acao(headers) == "*"
    assert "authorization" in headers["Access-Control-Allow-Headers"]


def test_openai_required_key(openai):
    openai.required_key = KEY
    status, _, body = jcall(openai.url + "/chat/completions", "POST", openai_body("fluency"))
    assert status == 401 and body["error"]["message"].startswith("You didn't provide an API key.")
    wrong = "sk-test-wrong-0123456789abcdef"
    status, _, body = jcall(openai.url + "/chat/completions", "POST", openai_body("fluency"), {"Authorization": "Bearer " + wrong})
    assert status == 401 and body["error"]["code"] == "invalid_api_key"
    assert "Incorrect API key provided: sk-test-" in body["error"]["message"] and wrong not in body["error"]["message"]
    assert body["error"]["message"].split(":")[1].split(".")[0].strip().endswith("cdef")
    assert jcall(openai.url + "/models", headers={"Authorization": "Bearer " + wrong})[0] == 401
    assert Client(openai).rate("fluency")[0] == 200


def test_criterion_of_reads_every_shape():
    for crit in CRITERIA:
        assert criterion_of(openai_body(crit)) == crit
        assert criterion_of(openai_body(crit, image=True)) == crit
        assert criterion_of(gemini_body(crit, image=True)) == crit
        assert criterion_of(anthropic_body(crit, image=True)) == crit
        assert criterion_of({"system": rubric(crit), "messages": [{"role": "user", "content": "x"}]}) == crit
    assert criterion_of({"messages": [{"role": "user", "content": "hello"}]}) is None


# ---------------------------------------------------------------------------------------------
# llama.cpp llama-server.
# ---------------------------------------------------------------------------------------------


def test_llama_chat_completion_shape(llama):
    status, headers, body = Client(llama).rate("clarity")
    assert status == 200
    assert headers["Content-Type"] == "application/json; charset=utf-8"
    assert headers["Server"] == "llama.cpp"
    assert acao(headers) == ORIGIN
    assert list(body) == ["choices", "created", "model", "system_fingerprint", "object", "usage", "id", "timings"]
    assert body["object"] == "chat.completion"
    assert body["model"] == "SmolVLM-500M-Instruct-Q8_0.gguf"  # the requested "gpt-4o" is ignored
    assert body["system_fingerprint"] == llama.build_info
    assert body["id"].startswith("chatcmpl-") and len(body["id"]) == len("chatcmpl-") + 32
    choice = body["choices"][0]
    assert list(choice) == ["finish_reason", "index", "message", "logprobs"]
    assert choice["message"] == {"role": "assistant", "content": "Rating: 5"}
    entries = choice["logprobs"]["content"]
    assert [e["token"] for e in entries] == ["Rating", ":", " ", "5"]
    for e in entries:
        assert list(e) == ["id", "token", "bytes", "logprob", "top_logprobs"]
        assert e["bytes"] == list(e["token"].encode())
        assert len(e["top_logprobs"]) == 20
        assert all(list(a) == ["id", "token", "bytes", "logprob"] for a in e["top_logprobs"])
        assert e["top_logprobs"][0]["token"] == e["token"]
    assert set(body["usage"]) == {"completion_tokens", "prompt_tokens", "total_tokens", "prompt_tokens_details"}
    assert list(body["timings"]) == [
        "cache_n", "prompt_n", "prompt_ms", "prompt_per_token_ms", "prompt_per_second",
        "predicted_n", "predicted_ms", "predicted_per_token_ms", "predicted_per_second",
    ]
    # Compact JSON, as nlohmann's dump() writes it.
    raw = call(llama.url + "/chat/completions", "POST", openai_body("fluency"))[2]
    assert b'{"choices":[{"finish_reason":"stop","index":0,' in raw


@pytest.mark.parametrize("float32", [False, True])
def test_llama_distributions_reproduce_spec(float32):
    fake = FakeLlamaServer(float32_logprobs=float32)
    try:
        for crit in CRITERIA:
            _, _, body = Client(fake).rate(crit)
            step = next(e for e in body["choices"][0]["logprobs"]["content"] if e["token"].isdigit())
            p, total = renormalised((a["token"], a["logprob"]) for a in step["top_logprobs"])
            assert p == pytest.approx(SPEC_P[crit], abs=1e-6 if float32 else 1e-12)
            assert total == pytest.approx(0.97, abs=1e-6)
            assert int(step["token"]) == max(range(1, 6), key=lambda r: SPEC_P[crit][r - 1])
    finally:
        fake.stop()


def test_llama_logprob_options(llama):
    body = openai_body("fluency")
    body["top_logprobs"] = 3
    _, _, out = jcall(llama.url + "/chat/completions", "POST", body)
    assert all(len(e["top_logprobs"]) == 3 for e in out["choices"][0]["logprobs"]["content"])
    _, _, out = jcall(llama.url + "/chat/completions", "POST", openai_body("fluency", logprobs=False))
    assert "logprobs" not in out["choices"][0]
    body = openai_body("fluency", logprobs=False)
    body["top_logprobs"] = 5
    status, _, out = jcall(llama.url + "/chat/completions", "POST", body)
    assert status == 400
    assert out == {"error": {"code": 400, "message": "top_logprobs requires logprobs to be set to true", "type": "invalid_request_error"}}
    llama.behaviour = {"fluency": "no_logprobs"}
    _, _, out = jcall(llama.url + "/chat/completions", "POST", openai_body("fluency"))
    assert "logprobs" not in out["choices"][0] and out["choices"][0]["message"]["content"] == "5"


def test_llama_props_models_health(llama):
    status, headers, props = jcall(llama.root + "/props")
    assert status == 200
    for key in ("default_generation_settings", "total_slots", "model_path", "modalities", "build_info", "chat_template"):
        assert key in props
    assert props["default_generation_settings"]["n_ctx"] == 4096
    assert props["default_generation_settings"]["params"]["top_p"] == pytest.approx(0.95, abs=1e-7)
    assert props["modalities"]["vision"] is True and props["modalities"]["audio"] is False
    assert props["model_path"].endswith("SmolVLM-500M-Instruct-Q8_0.gguf")
    status, _, models = jcall(llama.url + "/models")
    assert status == 200 and models["object"] == "list"
    assert models["data"][0]["id"] == llama.model and models["data"][0]["owned_by"] == "llamacpp"
    assert models["models"][0]["capabilities"] == ["completion", "multimodal"]
    assert jcall(llama.root + "/models")[2]["data"][0]["id"] == llama.model
    assert jcall(llama.root + "/health")[1:] and jcall(llama.root + "/health")[2] == {"status": "ok"}
    status, _, body = jcall(llama.root + "/nope")
    assert status == 404 and body == {"error": {"message": "File Not Found", "type": "not_found_error", "code": 404}}
    assert [r["route"] for r in llama.get_requests][:2] == ["/props", "/v1/models"]


def test_llama_without_mmproj():
    fake = FakeLlamaServer(vision=False)
    try:
        props = jcall(fake.root + "/props")[2]
        assert props["modalities"]["vision"] is False
        assert jcall(fake.url + "/models")[2]["models"][0]["capabilities"] == ["completion"]
        status, headers, body = Client(fake).rate("correctness", image=True)
        assert status == 500
        assert body == {"error": {
            "code": 500,
            "message": "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj",
            "type": "server_error",
        }}
        assert acao(headers) == ORIGIN
        assert Client(fake).rate("fluency")[0] == 200
    finally:
        fake.stop()


def test_llama_api_key_and_loading(llama):
    llama.required_key = KEY
    for headers in ({}, {"Authorization": "Bearer nope"}):
        status, _, body = jcall(llama.url + "/chat/completions", "POST", openai_body("fluency"), headers)
        assert status == 401
        assert body == {"error": {"message": "Invalid API Key", "type": "authentication_error", "code": 401}}
    assert jcall(llama.root + "/props")[0] == 401  # /props is not public
    assert jcall(llama.root + "/props", headers={"X-Api-Key": KEY})[0] == 200
    assert jcall(llama.url + "/models")[0] == 200 and jcall(llama.root + "/health")[0] == 200
    assert Client(llama).rate("fluency")[0] == 200
    llama.loading = True
    for url in (llama.root + "/health", llama.root + "/props", llama.url + "/models"):
        status, _, body = jcall(url)
        assert status == 503
        assert body == {"error": {"message": "Loading model", "type": "unavailable_error", "code": 503}}


def test_llama_cors(llama):
    status, headers, body = call(llama.url + "/chat/completions", "OPTIONS", headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type",
    })
    assert status == 200 and body == b""
    assert acao(headers) == ORIGIN
    assert headers["Access-Control-Allow-Credentials"] == "true"
    assert headers["Access-Control-Allow-Methods"] == "GET, POST"
    assert headers["Access-Control-Allow-Headers"] == "*"
    llama.behaviour = {"fluency": 503}
    status, headers, _ = Client(llama).rate("fluency")
    assert status == 503 and acao(headers) == ORIGIN


# ---------------------------------------------------------------------------------------------
# Gemini.
# ---------------------------------------------------------------------------------------------


def gemini_post(fake, body, headers=None, model="gemini-2.5-flash", query=""):
    return jcall(f"{fake.url}/models/{model}:generateContent{query}", "POST", body, headers if headers is not None else {"x-goog-api-key": KEY})


def test_gemini_response_shape_and_distributions(gemini):
    for crit in CRITERIA:
        status, headers, body = gemini_post(gemini, gemini_body(crit, image=crit == "correctness"))
        assert status == 200, body
        assert headers["Content-Type"] == "application/json; charset=UTF-8"
        assert list(body) == ["candidates", "usageMetadata", "modelVersion", "responseId"]
        assert body["modelVersion"] == "gemini-2.5-flash"
        cand = body["candidates"][0]
        assert cand["content"]["role"] == "model" and cand["finishReason"] == "STOP"
        result = cand["logprobsResult"]
        chosen, tops = result["chosenCandidates"], result["topCandidates"]
        assert len(chosen) == len(tops)
        assert cand["avgLogprobs"] == pytest.approx(sum(c.get("logProbability", 0) for c in chosen) / len(chosen))
        i = next(i for i, c in enumerate(chosen) if c["token"].isdigit())
        assert len(tops[i]["candidates"]) == 20
        p, total = renormalised((a["token"], a["logProbability"]) for a in tops[i]["candidates"])
        assert p == pytest.approx(SPEC_P[crit], abs=1e-12)
        assert total == pytest.approx(0.97, abs=1e-12)
        assert int(chosen[i]["token"]) == max(range(1, 6), key=lambda r: SPEC_P[crit][r - 1])
        usage = body["usageMetadata"]
        assert usage["totalTokenCount"] == usage["promptTokenCount"] + usage["candidatesTokenCount"]
        assert ("IMAGE" in json.dumps(usage["promptTokensDetails"])) == (crit == "correctness")
    # One lead token: certain, so proto3 JSON leaves out its logProbability.
    _, _, body = gemini_post(gemini, gemini_body("correctness"))
    cand = body["candidates"][0]
    assert cand["content"]["parts"][0]["text"] == "**4**"
    assert cand["logprobsResult"]["chosenCandidates"][0] == {"token": "**"}
    _, _, body = gemini_post(gemini, gemini_body("clarity"))
    assert body["candidates"][0]["content"]["parts"][0]["text"] == "Rating: 5"


def test_gemini_logprobs_only_when_asked(gemini):
    _, _, body = gemini_post(gemini, gemini_body("fluency", logprobs=False))
    assert "logprobsResult" not in body["candidates"][0]
    _, _, body = gemini_post(gemini, gemini_body("fluency", k=5))
    assert all(len(t["candidates"]) == 5 for t in body["candidates"][0]["logprobsResult"]["topCandidates"])
    gemini.behaviour = {"fluency": "no_logprobs"}
    status, _, body = gemini_post(gemini, gemini_body("fluency"))
    assert status == 400
    assert body == {"error": {"code": 400, "message": "Logprobs is not supported for the current model.", "status": "INVALID_ARGUMENT"}}
    status, _, body = gemini_post(gemini, gemini_body("fluency", logprobs=False))
    assert status == 200 and "logprobsResult" not in body["candidates"][0]


def test_gemini_key_only_from_the_header(gemini):
    gemini.required_key = KEY
    status, _, body = gemini_post(gemini, gemini_body("fluency"), headers={}, query="?key=" + KEY)
    assert status == 403 and body["error"]["status"] == "PERMISSION_DENIED"
    assert len(gemini.url_key_requests()) == 1
    assert gemini.requests[0]["query"] == {"key": [KEY]}
    status, _, body = gemini_post(gemini, gemini_body("fluency"), headers={"x-goog-api-key": "AIza-wrong"})
    assert status == 400
    assert body["error"]["message"] == "API key not valid. Please pass a valid API key."
    assert body["error"]["status"] == "INVALID_ARGUMENT"
    assert body["error"]["details"][0]["reason"] == "API_KEY_INVALID"
    assert body["error"]["details"][0]["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
    status, _, body = gemini_post(gemini, gemini_body("fluency"), headers={"Authorization": "Bearer " + KEY})
    assert status == 401 and body["error"]["status"] == "UNAUTHENTICATED"
    assert gemini_post(gemini, gemini_body("fluency"))[0] == 200
    status, _, _ = jcall(gemini.url + "/models?pageSize=1000", headers={"x-goog-api-key": "AIza-wrong"})
    assert status == 400
    assert len(gemini.url_key_requests()) == 1


def test_gemini_models_and_errors(gemini):
    status, _, body = gemini_post(gemini, gemini_body("fluency"), model="gemini-x")
    assert status == 404
    assert body["error"] == {
        "code": 404,
        "message": "models/gemini-x is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.",
        "status": "NOT_FOUND",
    }
    assert gemini_post(gemini, gemini_body("fluency"), model="text-embedding-004")[0] == 404
    status, _, body = jcall(gemini.url + "/models?pageSize=1000", headers={"x-goog-api-key": KEY})
    names = [m["name"] for m in body["models"]]
    assert "models/gemini-2.5-flash" in names and "nextPageToken" not in body
    assert all("supportedGenerationMethods" in m for m in body["models"])
    status, _, page = jcall(gemini.url + "/models?pageSize=2", headers={"x-goog-api-key": KEY})
    assert len(page["models"]) == 2 and page["nextPageToken"]
    _, _, page2 = jcall(gemini.url + "/models?pageSize=2&pageToken=" + page["nextPageToken"], headers={"x-goog-api-key": KEY})
    assert [m["name"] for m in page["models"] + page2["models"]] == names[:4]
    gemini.behaviour = {"correctness": 429, "completeness": 500, "clarity": 503}
    c = Client(gemini)
    status, headers, body = c.rate("correctness")
    assert status == 429 and body["error"]["status"] == "RESOURCE_EXHAUSTED"
    assert {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"} in body["error"]["details"]
    assert headers.get("retry-after") is None
    assert c.rate("completeness")[2]["error"]["status"] == "INTERNAL"
    assert c.rate("clarity")[2]["error"]["status"] == "UNAVAILABLE"
    # Pretty-printed as Google sends it.
    raw = call(gemini.url + "/models/gemini-x:generateContent", "POST", gemini_body("fluency"), {"x-goog-api-key": KEY})[2]
    assert raw.startswith(b'{\n  "error": {\n    "code": 404,')


def test_gemini_thinking_can_use_the_whole_budget(gemini):
    body = gemini_body("fluency")
    del body["generationConfig"]["thinkingConfig"]
    status, _, out = gemini_post(gemini, body)
    assert status == 200
    cand = out["candidates"][0]
    assert cand["finishReason"] == "MAX_TOKENS" and "parts" not in cand["content"]
    assert out["usageMetadata"]["thoughtsTokenCount"] == 20
    body["generationConfig"]["maxOutputTokens"] = 1024
    _, _, out = gemini_post(gemini, body, model="gemini-2.5-pro")
    assert out["candidates"][0]["content"]["parts"][0]["text"] == "5"
    assert out["usageMetadata"]["thoughtsTokenCount"] == gemini.thinking_tokens
    body["generationConfig"]["thinkingConfig"] = {"thinkingBudget": 0}
    assert gemini_post(gemini, body, model="gemini-2.5-pro")[0] == 400


def test_gemini_cors(gemini):
    status, headers, _ = call(gemini.url + "/models/gemini-2.5-flash:generateContent", "OPTIONS", headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,x-goog-api-key",
    })
    assert status == 200
    assert acao(headers) == ORIGIN
    assert headers["Access-Control-Allow-Headers"] == "content-type,x-goog-api-key"
    assert "POST" in headers["Access-Control-Allow-Methods"]
    status, headers, _ = Client(gemini).rate("fluency")
    assert acao(headers) == ORIGIN
    gemini.behaviour = {"fluency": 400}
    status, headers, _ = Client(gemini).rate("fluency")
    assert status == 400 and acao(headers) == ORIGIN


# ---------------------------------------------------------------------------------------------
# Anthropic.
# ---------------------------------------------------------------------------------------------


def test_anthropic_browser_header_rule(anthropic):
    headers = dict(ANTHROPIC_HEADERS)
    del headers["anthropic-dangerous-direct-browser-access"]
    status, h, body = jcall(anthropic.url + "/messages", "POST", anthropic_body("fluency"), headers)
    assert status == 401
    assert body["type"] == "error"
    assert body["error"] == {"type": "authentication_error", "message": "CORS requests must set 'anthropic-dangerous-direct-browser-access' header"}
    assert acao(h) is None  # a browser sees only a CORS failure
    # A server-side caller (no Origin) needs no such header, and gets no CORS headers.
    del headers["Origin"]
    status, h, body = jcall(anthropic.url + "/messages", "POST", anthropic_body("fluency"), headers)
    assert status == 200 and acao(h) is None
    status, h, body = Client(anthropic).rate("fluency")
    assert status == 200
    assert acao(h) == "*" and h["access-control-expose-headers"] == "*"
    status, h, _ = call(anthropic.url + "/messages", "OPTIONS", headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "anthropic-dangerous-direct-browser-access,anthropic-version,content-type,x-api-key",
    })
    assert status == 204 and acao(h) == "*"
    assert "x-api-key" in h["access-control-allow-headers"]


def test_anthropic_messages(anthropic):
    c = Client(anthropic)
    expected = {"correctness": "4", "completeness": "3", "clarity": "Rating: 5", "fluency": "5", "conciseness": "4"}
    for crit in CRITERIA:
        status, headers, body = c.rate(crit, image=crit == "correctness")
        assert status == 200
        assert body["type"] == "message" and body["role"] == "assistant"
        assert body["model"] == "claude-sonnet-4-5-20250929"
        assert body["id"].startswith("msg_01")
        assert body["content"] == [{"type": "text", "text": expected[crit]}]
        assert body["stop_reason"] == "end_turn" and body["stop_sequence"] is None
        assert body["usage"]["input_tokens"] > 0 and body["usage"]["output_tokens"] > 0
        assert headers["request-id"].startswith("req_")
        assert "logprobs" not in json.dumps(body)
    raw = call(anthropic.url + "/messages", "POST", anthropic_body("fluency"), ANTHROPIC_HEADERS)[2]
    assert raw.startswith(b'{"model":"claude-sonnet-4-5-20250929","id":"msg_01')


def test_anthropic_errors(anthropic):
    h = dict(ANTHROPIC_HEADERS)
    del h["x-api-key"]
    status, _, body = jcall(anthropic.url + "/messages", "POST", anthropic_body("fluency"), h)
    assert status == 401 and body["error"]["message"] == "x-api-key header is required"
    anthropic.required_key = KEY
    h["x-api-key"] = "sk-ant-wrong"
    status, _, body = jcall(anthropic.url + "/messages", "POST", anthropic_body("fluency"), h)
    assert status == 401 and body["error"] == {"type": "authentication_error", "message": "invalid x-api-key"}
    assert body["request_id"].startswith("req_")
    h = dict(ANTHROPIC_HEADERS)
    del h["anthropic-version"]
    status, _, body = jcall(anthropic.url + "/messages", "POST", anthropic_body("fluency"), h)
    assert status == 400 and body["error"]["message"] == "anthropic-version: header is required"
    status, _, body = jcall(anthropic.url + "/messages", "POST", anthropic_body("fluency", model="claude-x"), ANTHROPIC_HEADERS)
    assert status == 404 and body["error"] == {"type": "not_found_error", "message": "model: claude-x"}
    anthropic.behaviour = {"correctness": 429, "completeness": 529, "clarity": 500}
    c = Client(anthropic)
    status, headers, body = c.rate("correctness")
    assert status == 429 and body["error"]["type"] == "rate_limit_error" and headers["retry-after"] == "7"
    assert headers["access-control-expose-headers"] == "*"
    status, _, body = c.rate("completeness")
    assert status == 529 and body["error"] == {"type": "overloaded_error", "message": "Overloaded"}
    status, _, body = c.rate("clarity")
    assert status == 500 and body["error"]["type"] == "api_error"


def test_anthropic_models(anthropic):
    status, headers, body = jcall(anthropic.url + "/models", headers=ANTHROPIC_HEADERS)
    assert status == 200
    assert set(body) == {"data", "has_more", "first_id", "last_id"}
    assert body["first_id"] == body["data"][0]["id"] and body["last_id"] == body["data"][-1]["id"]
    assert body["has_more"] is False
    assert set(body["data"][0]) == {"type", "id", "display_name", "created_at"}
    status, _, page = jcall(anthropic.url + "/models?limit=2", headers=ANTHROPIC_HEADERS)
    assert len(page["data"]) == 2 and page["has_more"] is True
    _, _, page2 = jcall(anthropic.url + "/models?limit=2&after_id=" + page["last_id"], headers=ANTHROPIC_HEADERS)
    assert [m["id"] for m in page["data"] + page2["data"]] == [m["id"] for m in body["data"][:4]]


# ---------------------------------------------------------------------------------------------
# OpenAI Files and Batch APIs.
# ---------------------------------------------------------------------------------------------


def multipart(fields, boundary="----WebKitFormBoundary7MA4YWxkTrZu0gW"):
    """A browser-style multipart/form-data body: ``{name: str | (filename, bytes)}``."""
    out = b""
    for name, value in fields.items():
        out += f"--{boundary}\r\n".encode()
        if isinstance(value, tuple):
            filename, data = value
            out += f'Content-Disposition: form-data; name="{name}"; filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
            out += data + b"\r\n"
        else:
            out += f'Content-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
    out += f"--{boundary}--\r\n".encode()
    return out, f"multipart/form-data; boundary={boundary}"


AUTH = {"Authorization": "Bearer " + KEY, "Origin": ORIGIN}


def upload(fake, content, purpose="batch", filename="harmonic-judge-batch.jsonl", headers=None):
    body, content_type = multipart({"purpose": purpose, "file": (filename, content)})
    req = urllib.request.Request(fake.url + "/files", data=body, method="POST", headers=dict(headers or AUTH))
    req.add_header("Content-Type", content_type)
    try:
        with _opener.open(req, timeout=10) as r:
            return r.status, r.headers, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, e.headers, json.loads(e.read())


def batch_line(custom_id, body, **over):
    line = {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": body}
    line.update(over)
    return json.dumps(line)


def jsonl(lines):
    return ("\n".join(lines) + "\n").encode()


def start_batch(fake, lines):
    status, _, file_obj = upload(fake, jsonl(lines))
    assert status == 200, file_obj
    status, _, batch = jcall(fake.url + "/batches", "POST", {"input_file_id": file_obj["id"], "endpoint": "/v1/chat/completions", "completion_window": "24h", "metadata": {"source": "harmonic-judge"}}, AUTH)
    assert status == 200, batch
    return batch


def poll(fake, batch_id):
    status, headers, batch = jcall(fake.url + "/batches/" + batch_id, headers=AUTH)
    assert status == 200 and acao(headers) == "*"
    return batch


def file_lines(fake, file_id):
    status, headers, data = call(fake.url + f"/files/{file_id}/content", headers=AUTH)
    assert status == 200 and headers["Content-Type"] == "application/octet-stream" and acao(headers) == "*"
    return [json.loads(line) for line in data.decode().splitlines()]


def test_openai_batch_round_trip(openai):
    openai.behaviour = {"clarity": 429}
    lines = [batch_line(f"item1/{c}", openai_body(c)) for c in CRITERIA]
    lines.append(batch_line("item1/correctness/why", openai_body("correctness", explain=True)))
    content = jsonl(lines)

    status, headers, file_obj = upload(openai, content)
    assert status == 200 and acao(headers) == "*"
    assert file_obj["id"].startswith("file-") and file_obj["object"] == "file"
    assert file_obj["purpose"] == "batch" and file_obj["filename"] == "harmonic-judge-batch.jsonl"
    assert file_obj["bytes"] == len(content) and isinstance(file_obj["created_at"], int)
    assert openai.files[file_obj["id"]]["content"] == content
    assert openai.requests[-1]["kind"] == "other" and "json_error" not in openai.requests[-1]
    assert openai.requests[-1]["body"]["purpose"] == "batch"
    assert jcall(openai.url + "/files/" + file_obj["id"], headers=AUTH)[2] == file_obj
    assert call(openai.url + f"/files/{file_obj['id']}/content", headers=AUTH)[2] == content

    status, headers, batch = jcall(openai.url + "/batches", "POST", {"input_file_id": file_obj["id"], "endpoint": "/v1/chat/completions", "completion_window": "24h", "metadata": {"source": "harmonic-judge"}}, AUTH)
    assert status == 200 and acao(headers) == "*"
    assert batch["id"].startswith("batch_") and batch["object"] == "batch"
    assert batch["status"] == "validating" and batch["errors"] is None
    assert batch["input_file_id"] == file_obj["id"] and batch["endpoint"] == "/v1/chat/completions"
    assert batch["completion_window"] == "24h" and batch["metadata"] == {"source": "harmonic-judge"}
    assert batch["output_file_id"] is None and batch["error_file_id"] is None
    assert batch["request_counts"] == {"total": 0, "completed": 0, "failed": 0}
    assert batch["expires_at"] == batch["created_at"] + 86400

    # One step per poll: in_progress is answered batch_polls_to_finish (2) times.
    seen = [poll(openai, batch["id"]) for _ in range(3)]
    assert [b["status"] for b in seen] == ["in_progress", "in_progress", "completed"]
    assert seen[0]["request_counts"]["total"] == 6
    done = seen[-1]
    assert done["request_counts"] == {"total": 6, "completed": 5, "failed": 1}
    assert done["completed_at"] and done["in_progress_at"] and done["usage"]["input_tokens"] == 5 * 512
    assert poll(openai, batch["id"])["status"] == "completed"  # stays

    outputs = file_lines(openai, done["output_file_id"])
    assert [o["custom_id"] for o in outputs] == [f"item1/{c}" for c in CRITERIA if c != "clarity"] + ["item1/correctness/why"]
    for o in outputs:
        assert set(o) == {"id", "custom_id", "response", "error"} and o["error"] is None
        assert o["id"].startswith("batch_req_") and o["response"]["status_code"] == 200
        assert o["response"]["request_id"].startswith("req_")
    # The same answers as synchronous requests: the SPEC distribution, the explanation.
    step = next(s for s in outputs[0]["response"]["body"]["choices"][0]["logprobs"]["content"] if s["token"].strip().isdigit())
    p, _ = renormalised((a["token"], a["logprob"]) for a in step["top_logprobs"])
    assert p == pytest.approx(SPEC_P["correctness"], abs=1e-12)
    assert outputs[-1]["response"]["body"]["choices"][0]["message"]["content"] == openai.explanation
    (err,) = file_lines(openai, done["error_file_id"])
    assert err["custom_id"] == "item1/clarity" and err["error"] is None
    assert err["response"]["status_code"] == 429 and err["response"]["body"]["error"]["code"] == "rate_limit_exceeded"

    # Batched requests are kept apart from synchronous ones.
    assert openai.count() == 0 and openai.rating_requests() == []
    assert {r["kind"] for r in openai.requests} == {"other"}
    assert len(openai.batch_requests) == 6 and openai.batch_requests[0] == openai_body("correctness")
    assert openai.batch_count() == 5 and openai.batch_count("clarity") == 1 and openai.batch_count(explain=True) == 1
    assert [r["custom_id"] for r in openai.batch_records][:2] == ["item1/correctness", "item1/completeness"]
    assert openai.batch_records[2]["status"] == 429
    assert [r["route"] for r in openai.get_requests].count("/v1/batches/" + batch["id"]) == 4
    assert openai.problems == []

    status, _, listed = jcall(openai.url + "/batches", headers=AUTH)
    assert status == 200 and listed["object"] == "list" and [b["id"] for b in listed["data"]] == [batch["id"]]


def test_openai_batch_counts_fail_then_ok_and_order_apart(openai):
    openai.behaviour = {"fluency": ("fail_then_ok", 500, 1, None)}
    openai.batch_polls_to_finish = 1
    openai.batch_reverse_output = True
    assert Client(openai).rate("fluency")[0] == 500  # the synchronous first failure
    batch = start_batch(openai, [batch_line(f"item{i}/fluency", openai_body("fluency")) for i in (1, 2, 3)])
    assert [poll(openai, batch["id"])["status"] for _ in range(2)] == ["in_progress", "completed"]
    done = openai.batches[batch["id"]]
    assert done["request_counts"] == {"total": 3, "completed": 2, "failed": 1}
    assert [o["custom_id"] for o in file_lines(openai, done["output_file_id"])] == ["item3/fluency", "item2/fluency"]
    (err,) = file_lines(openai, done["error_file_id"])
    assert err["custom_id"] == "item1/fluency" and err["response"]["status_code"] == 500
    assert openai.count("fluency") == 1 and openai.batch_count("fluency") == 3


def test_openai_batch_validation_failures(openai):
    good = openai_body("fluency")
    lines = [
        batch_line("a", good),
        "{not json",
        batch_line("a", good),
        batch_line("b", good, url="/v1/embeddings"),
        batch_line("c", dict(good, model="gpt-4o-mini")),
        json.dumps({"method": "POST", "url": "/v1/chat/completions", "body": good}),
        batch_line("d", good, method="GET"),
    ]
    batch = start_batch(openai, lines)
    failed = poll(openai, batch["id"])
    assert failed["status"] == "failed" and failed["failed_at"]
    data = failed["errors"]["data"]
    assert [(e["line"], e["code"]) for e in data] == [
        (2, "invalid_json_line"),
        (3, "duplicate_custom_id"),
        (4, "invalid_url"),
        (5, "mismatched_model"),
        (6, "missing_required_parameter"),
        (7, "invalid_method"),
    ]
    assert all(set(e) == {"code", "message", "param", "line"} for e in data)
    assert poll(openai, batch["id"])["status"] == "failed" and openai.batch_requests == []

    openai.batch_fail = True
    batch = start_batch(openai, [batch_line("a", good)])
    failed = poll(openai, batch["id"])
    assert failed["status"] == "failed" and failed["errors"]["data"][0]["code"] == "token_limit_exceeded"
    assert failed["output_file_id"] is None and openai.batch_requests == []
    openai.batch_fail = False

    status, _, file_obj = upload(openai, b"")
    assert status == 200
    _, _, empty = jcall(openai.url + "/batches", "POST", {"input_file_id": file_obj["id"], "endpoint": "/v1/chat/completions", "completion_window": "24h"}, AUTH)
    assert poll(openai, empty["id"])["errors"]["data"][0]["code"] == "empty_file"

    create = lambda body: jcall(openai.url + "/batches", "POST", body, AUTH)
    status, _, body = create({"input_file_id": "file-nope", "endpoint": "/v1/chat/completions", "completion_window": "24h"})
    assert status == 404 and body["error"]["message"] == "No such File object: file-nope"
    status, _, body = create({"input_file_id": file_obj["id"], "endpoint": "/v1/chat/completions", "completion_window": "1h"})
    assert status == 400 and body["error"]["param"] == "completion_window"
    status, _, body = create({"input_file_id": file_obj["id"], "endpoint": "/v1/images", "completion_window": "24h"})
    assert status == 400 and body["error"]["param"] == "endpoint"
    status, _, body = create({"endpoint": "/v1/chat/completions", "completion_window": "24h"})
    assert status == 400 and body["error"]["message"] == "Missing required parameter: 'input_file_id'."
    status, _, other = upload(openai, b"{}\n", purpose="user_data", filename="x.jsonl")
    assert status == 200
    status, _, body = create({"input_file_id": other["id"], "endpoint": "/v1/chat/completions", "completion_window": "24h"})
    assert status == 400 and "purpose 'batch'" in body["error"]["message"]

    status, _, body = upload(openai, b"{}\n", filename="batch.txt")
    assert status == 400 and body["error"]["message"] == "Invalid file format for Batch API. Must be .jsonl"
    status, _, body = upload(openai, b"{}\n", purpose="nonsense")
    assert status == 400 and body["error"]["param"] == "purpose"
    status, _, body = jcall(openai.url + "/files", "POST", {"purpose": "batch"}, AUTH)
    assert status == 400 and "multipart/form-data" in body["error"]["message"]
    for route in ("/files/file-nope", "/files/file-nope/content"):
        status, _, body = jcall(openai.url + route, headers=AUTH)
        assert status == 404 and body["error"]["message"] == "No such File object: file-nope"
    status, _, body = jcall(openai.url + "/batches/batch_nope", headers=AUTH)
    assert status == 404 and "batch_nope" in body["error"]["message"]


def test_openai_batch_cancel_and_expiry(openai):
    batch = start_batch(openai, [batch_line("a", openai_body("fluency"))])
    status, headers, cancelling = jcall(openai.url + f"/batches/{batch['id']}/cancel", "POST", {}, AUTH)
    assert status == 200 and acao(headers) == "*"
    assert cancelling["status"] == "cancelling" and cancelling["cancelling_at"]
    cancelled = poll(openai, batch["id"])
    assert cancelled["status"] == "cancelled" and cancelled["cancelled_at"] and cancelled["output_file_id"] is None
    status, _, body = jcall(openai.url + f"/batches/{batch['id']}/cancel", "POST", {}, AUTH)
    assert status == 409 and "cancelled" in body["error"]["message"]
    assert openai.batch_requests == []
    assert openai.requests[-1]["kind"] == "other" and openai.requests[-1]["route"].endswith("/cancel")

    # A hanging criterion never finishes: the batch expires with the others done.
    openai.behaviour = {"clarity": "hang"}
    openai.batch_polls_to_finish = 1
    batch = start_batch(openai, [batch_line(c, openai_body(c)) for c in ("fluency", "clarity")])
    assert [poll(openai, batch["id"])["status"] for _ in range(2)] == ["in_progress", "expired"]
    done = openai.batches[batch["id"]]
    assert done["expired_at"] and done["request_counts"] == {"total": 2, "completed": 1, "failed": 1}
    assert [o["custom_id"] for o in file_lines(openai, done["output_file_id"])] == ["fluency"]
    (err,) = file_lines(openai, done["error_file_id"])
    assert err["custom_id"] == "clarity" and err["response"] is None and err["error"]["code"] == "batch_expired"

    openai.behaviour = {}
    openai.batch_expire = True
    batch = start_batch(openai, [batch_line("x", openai_body("fluency"))])
    poll(openai, batch["id"])
    done = poll(openai, batch["id"])
    assert done["status"] == "expired" and done["output_file_id"] is None and done["request_counts"]["failed"] == 1


def test_openai_batch_calls_need_the_key_and_allow_browsers(openai):
    openai.required_key = KEY
    status, _, body = upload(openai, b"{}\n", headers={"Origin": ORIGIN})
    assert status == 401 and body["error"]["message"].startswith("You didn't provide an API key.")
    for route in ("/batches/batch_x", "/files/file-x/content", "/batches"):
        assert jcall(openai.url + route, headers={"Authorization": "Bearer sk-wrong-0123456789abcdef"})[0] == 401
    assert jcall(openai.url + "/batches/batch_x/cancel", "POST", {})[0] == 401
    batch = start_batch(openai, [batch_line("a", openai_body("fluency"))])  # with the key
    assert poll(openai, batch["id"])["status"] == "in_progress"
    status, headers, _ = call(openai.url + "/files", "OPTIONS", headers={"Origin": ORIGIN, "Access-Control-Request-Method": "POST"})
    assert status == 204 and acao(headers) == "*" and "content-type" in headers["Access-Control-Allow-Headers"]
