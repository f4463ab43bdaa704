"""Loopback fakes of llama.cpp's ``llama-server``, Google's Gemini API and Anthropic's Messages
API, built on the shared ``FakeProvider`` of ``fake_openai.py`` (recording, in-flight counting,
delay, CORS switch, required key, behaviours per criterion, start/stop; see that module).

``FakeLlamaServer`` imitates ``llama-server`` (OpenAI-compatible ``POST /v1/chat/completions``
plus ``GET /props``, ``GET /v1/models``, ``GET /health``). Checked against the llama.cpp sources
(github.com/ggml-org/llama.cpp):

* ``tools/server/server-task.cpp``: ``to_json_oaicompat_chat`` (key order ``choices, created,
  model, system_fingerprint, object, usage, id, timings``; a choice is ``finish_reason, index,
  message, logprobs`` and has no ``logprobs`` key at all when none were asked for),
  ``completion_token_output::probs_vector_to_json`` (``id, token, bytes, logprob,
  top_logprobs``; pre-sampling probabilities over the whole vocabulary, exactly ``n_probs``
  alternatives), ``result_timings::to_json``, ``usage_json_oaicompat`` (``prompt_tokens_details``);
* ``tools/server/server-context.cpp``: ``handle_completions_impl`` sets the response ``model`` to
  the server's own model name (the requested name is ignored), ``get_res_props``,
  ``get_res_models`` (an Ollama-style ``models`` array next to the OpenAI ``data`` array),
  ``get_health`` (``{"status":"ok"}``), ``server_res_generator::error`` (status = ``code``);
* ``tools/server/server-common.cpp``: ``format_error_response`` (``{"error": {"code", "message",
  "type"}}``), ``oaicompat_chat_params_parse`` (``n_probs = top_logprobs`` or 20; an image
  without ``--mmproj`` throws ``runtime_error`` "image input is not supported - hint: if this is
  unexpected, you may need to provide the mmproj", which ``ex_wrapper`` in
  ``tools/server/server.cpp`` turns into HTTP 500 ``server_error``), ``gen_chatcmplid``;
* ``tools/server/server-http.cpp``: the pre-routing handler (every answer carries
  ``Access-Control-Allow-Origin: <the request's Origin>``; OPTIONS gets 200 with
  ``Access-Control-Allow-Credentials: true``, ``Access-Control-Allow-Methods: GET, POST``,
  ``Access-Control-Allow-Headers: *``), the API-key middleware (``Authorization: Bearer`` or
  ``X-Api-Key``; public ``/health``, ``/v1/health``, ``/models``, ``/v1/models``; 401
  ``{"error":{"message":"Invalid API Key","type":"authentication_error","code":401}}``), the
  loading state (503 ``"Loading model"``, ``unavailable_error``, on every route) and the 404
  ``"File Not Found"`` ``not_found_error`` for unknown routes; ``Server: llama.cpp``;
  JSON is compact (nlohmann ``dump()``) with ``application/json; charset=utf-8``.

``FakeGemini`` imitates ``generativelanguage.googleapis.com/v1beta``: ``POST
/v1beta/models/{model}:generateContent`` and ``GET /v1beta/models``. Checked against Google's
public API reference (ai.google.dev/api/generate-content: ``GenerateContentResponse``,
``Candidate``, ``LogprobsResult``, ``UsageMetadata``; ai.google.dev/api/models;
ai.google.dev/gemini-api/docs/troubleshooting for the error statuses) and error bodies as
Google returns them (``{"error": {"code", "message", "status", "details"}}``, 2-space indent).
Proto3 JSON leaves out a ``logProbability`` of exactly 0, and so does this fake for one lead
token. The key is read only from the ``x-goog-api-key`` header: a ``?key=`` in the URL is
recorded (``fake.url_key_requests()``) but never accepted, unlike the real service.

``FakeAnthropic`` imitates ``api.anthropic.com/v1``: ``POST /v1/messages`` and ``GET
/v1/models``. Checked against Anthropic's public docs (docs.anthropic.com/en/api/messages,
/en/api/errors, /en/api/models-list, /en/api/rate-limits): errors are
``{"type":"error","error":{"type","message"},"request_id"}``; browser calls need
``anthropic-dangerous-direct-browser-access: true`` and without it a request with an Origin
gets 401 "CORS requests must set 'anthropic-dangerous-direct-browser-access' header" with no
``Access-Control-Allow-Origin`` (so a browser sees only a CORS failure); with it, answers carry
``access-control-allow-origin: *`` and ``access-control-expose-headers: *``. There are no
logprobs: the rating comes back as text.
"""

import base64
import json
import math
import time
import zlib

from fake_openai import (
    COVERAGE,
    CRITERIA,
    EXPLAIN_PROMPT,
    SPEC_P,
    FakeProvider,
    Reply,
    f32,
    image_parts,
    most_likely_rating,
    prompt_text,
    random_id,
)

__all__ = ["FakeLlamaServer", "FakeGemini", "FakeAnthropic", "rating_alternatives", "CRITERIA", "SPEC_P", "EXPLAIN_PROMPT"]

# Tokens a judge might put probability on instead of a rating (no digits among them).
FILLERS = [
    "The", "**", "I", "\n", "Rating", "Based", "Score", "This", " The", "My", "Answer", "A",
    "#", "-", "Overall", "Correct", "It", "(", "Caption", "Here", "To", "In", "As", "Given",
    "Sure", "After", "On", "For",
]


def rating_alternatives(criterion, fillers=FILLERS, exclude=()):
    """The rating step's distribution as ``[(token, p)]``, most likely first: the SPEC ratings
    as bare digits carrying COVERAGE of the mass, then filler tokens carrying 90 % of the rest
    (the remaining 0.3 % lies outside any top-k list, as in a real vocabulary)."""
    alts = [(str(r), pr * COVERAGE) for r, pr in enumerate(SPEC_P[criterion], start=1) if pr > 0]
    pool = [t for t in fillers if t not in exclude]
    weights = [0.7 ** i for i in range(len(pool))]
    rest = (1 - COVERAGE) * 0.9
    alts += [(t, rest * w / sum(weights)) for t, w in zip(pool, weights)]
    alts.sort(key=lambda a: -a[1])
    return alts


def near_certain(token, fillers=FILLERS, p=0.9995):
    """A step where the judge is all but sure of ``token``."""
    pool = [t for t in fillers if t != token]
    rest = (1 - p) * 0.9
    weights = [0.5 ** i for i in range(len(pool))]
    return [(token, p)] + [(t, rest * w / sum(weights)) for t, w in zip(pool, weights)]


def words_of(text):
    """Split text into word-like tokens (" word" style), enough for a plausible logprob list."""
    out, cur = [], ""
    for ch in text:
        if ch == " " and cur:
            out.append(cur)
            cur = ch
        else:
            cur += ch
    if cur:
        out.append(cur)
    return out


def estimate_tokens(text):
    return max(1, len(text) // 4)


# =============================================================================================
# llama.cpp llama-server
# =============================================================================================

LLAMA_LEAD = {"clarity": ["Rating", ":", " "]}
LLAMA_NO_MMPROJ = "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"
LLAMA_PUBLIC = {"/health", "/v1/health", "/models", "/v1/models", "/"}

SMOLVLM_TEMPLATE = (
    "<|im_start|>{% for message in messages %}{{message['role'] | capitalize}}"
    "{% if message['content'][0]['type'] == 'image' %}{{':'}}{% else %}{{': '}}{% endif %}"
    "{% for line in message['content'] %}{% if line['type'] == 'text' %}{{line['text']}}"
    "{% elif line['type'] == 'image' %}{{ '<image>' }}{% endif %}{% endfor %}<end_of_utterance>\n"
    "{% endfor %}{% if add_generation_prompt %}{{ 'Assistant:' }}{% endif %}"
)


def llama_token_id(token):
    """A stable vocabulary id: GPT-2-style ids for single printable bytes, a hash otherwise."""
    if len(token) == 1 and 33 <= ord(token) < 127:
        return ord(token) - 33
    return 300 + zlib.crc32(token.encode("utf-8")) % 49000


class FakeLlamaServer(FakeProvider):
    """``FakeLlamaServer(vision=True)``; ``.url`` ends in /v1, ``.root`` is the server root
    (``/props``, ``/health`` live there).

    Ratings: bare digit tokens whose ``top_logprobs`` carry SPEC_P x 0.97 plus filler tokens,
    exactly ``top_logprobs`` (default 20) alternatives; clarity comes as "Rating", ":", " ", "5".
    ``vision=False`` is a server started without ``--mmproj``: ``/props`` says
    ``modalities.vision: false`` and any ``image_url`` gets HTTP 500 "image input is not
    supported …". ``loading=True`` answers 503 "Loading model" everywhere. ``required_key``
    works as ``--api-key`` (Bearer or X-Api-Key; /health and /v1/models stay public)."""

    base_path = "/v1"
    server_header = "llama.cpp"
    default_model = "SmolVLM-500M-Instruct-Q8_0.gguf"

    def __init__(
        self,
        delay=0.0,
        model="SmolVLM-500M-Instruct-Q8_0.gguf",
        cors=True,
        required_key=None,
        vision=True,
        loading=False,
        model_path=None,
        n_ctx=4096,
        total_slots=4,
        build_info="b6715-ee09828c",
        float32_logprobs=False,
    ):
        # The name llama-server reports: its --alias, else the GGUF file name.
        super().__init__(delay=delay, model=model, cors=cors, required_key=required_key)
        self.vision = vision
        # True: every route answers 503 "Loading model", as while the GGUF is being loaded.
        self.loading = loading
        self.model_path = model_path or f"/models/{model if model.endswith('.gguf') else 'model.gguf'}"
        self.n_ctx = n_ctx
        self.total_slots = total_slots
        self.build_info = build_info
        # True: logprobs rounded to 32-bit floats, as llama-server keeps them.
        self.float32_logprobs = float32_logprobs
        self.root = self.origin

    # -- encoding ----------------------------------------------------------------------------

    def json(self, status, obj, headers=()):
        data = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
        return Reply(status, data, content_type="application/json; charset=utf-8", headers=headers)

    def fmt_error(self, message, type_, code, **extra):
        """``format_error_response``: code, message, type (then any extra fields)."""
        err = {"code": code, "message": message, "type": type_}
        err.update(extra)
        return self.json(code, {"error": err})

    def middleware_error(self, message, type_, code):
        """The errors written by server-http.cpp's middlewares: message, type, code."""
        return self.json(code, {"error": {"message": message, "type": type_, "code": code}})

    def cors_headers(self, rec, reply):
        headers = [("Access-Control-Allow-Origin", rec["headers"].get("origin", ""))]
        if rec["method"] == "OPTIONS":
            headers += [
                ("Access-Control-Allow-Credentials", "true"),
                ("Access-Control-Allow-Methods", "GET, POST"),
                ("Access-Control-Allow-Headers", "*"),
            ]
        return headers

    # -- routing -----------------------------------------------------------------------------

    def is_generation_route(self, route):
        return route in ("/v1/chat/completions", "/chat/completions")

    def handle_options(self, rec):
        return Reply(200, b"", content_type="text/html")

    def _pre_routing(self, rec):
        if self.loading:
            return self.middleware_error("Loading model", "unavailable_error", 503)
        if self.required_key is not None and rec["route"] not in LLAMA_PUBLIC:
            key = rec["headers"].get("authorization", "") or rec["headers"].get("x-api-key", "")
            if key.startswith("Bearer "):
                key = key[len("Bearer "):]
            if key != self.required_key:
                return self.middleware_error("Invalid API Key", "authentication_error", 401)
        return None

    def not_found(self):
        return self.middleware_error("File Not Found", "not_found_error", 404)

    def handle_get(self, rec):
        refused = self._pre_routing(rec)
        if refused:
            return refused
        route = rec["route"]
        if route in ("/health", "/v1/health"):
            return self.json(200, {"status": "ok"})
        if route == "/props":
            return self.json(200, self.props())
        if route in ("/models", "/v1/models"):
            return self.json(200, self.models())
        return self.not_found()

    def handle_post(self, rec):
        refused = self._pre_routing(rec)
        if refused:
            return refused
        if not self.is_generation_route(rec["route"]):
            return self.not_found()
        if "json_error" in rec:
            return self.fmt_error(
                "[json.exception.parse_error.101] parse error at line 1, column 1: syntax error "
                "while parsing value - invalid literal; last read: '" + rec["raw"][:1].decode("utf-8", "replace") + "'",
                "server_error",
                500,
            )
        body = rec["body"]
        if "messages" not in body:
            return self.fmt_error("'messages' is required", "invalid_request_error", 400)
        images = image_parts(body)
        if images and not self.vision:
            return self.no_vision_reply(rec)
        for _, _, part in images:
            url = (part.get("image_url") or {}).get("url", "")
            if url.startswith("http"):
                continue
            pieces = url.split(",")
            if len(pieces) != 2:
                return self.fmt_error("Invalid url value", "server_error", 500)
            if not pieces[0].startswith("data:image/"):
                return self.fmt_error("Invalid url format: " + pieces[0], "server_error", 500)
            if not pieces[0].endswith("base64"):
                return self.fmt_error("url must be base64 encoded", "server_error", 500)
        if not body.get("logprobs") and body.get("top_logprobs") is not None:
            return self.fmt_error("top_logprobs requires logprobs to be set to true", "invalid_request_error", 400)
        if rec["kind"] == "explain":
            return self.completion(rec, self._text_steps(self.explanation))
        return self.behave(rec)

    # -- bodies ------------------------------------------------------------------------------

    def n_probs(self, body):
        if not body.get("logprobs"):
            return 0
        return int(body.get("top_logprobs", 20) if body.get("top_logprobs") is not None else 20)

    def _lp(self, p):
        lp = math.log(p)
        return f32(lp) if self.float32_logprobs else lp

    def _entry(self, token, p):
        return {"id": llama_token_id(token), "token": token, "bytes": list(token.encode("utf-8")), "logprob": self._lp(p)}

    def _text_steps(self, text):
        return [(w, near_certain(w)) for w in words_of(text)]

    def _rating_steps(self, criterion):
        steps = [(t, near_certain(t)) for t in LLAMA_LEAD.get(criterion, [])]
        alts = rating_alternatives(criterion)
        chosen = next(t for t, _ in alts if t.isdigit())
        steps.append((chosen, alts))
        return steps

    def completion(self, rec, steps, logprobs=True):
        """``to_json_oaicompat_chat`` for a non-streamed answer made of ``steps``, each
        ``(chosen_token, [(token, p), …])``."""
        body = rec["body"]
        n_probs = self.n_probs(body) if logprobs else 0
        content = "".join(t for t, _ in steps)
        choice = {
            "finish_reason": "stop",
            "index": 0,
            "message": {"role": "assistant", "content": content},
        }
        if n_probs > 0:
            entries = []
            for token, alts in steps:
                p = dict(alts)[token]
                entry = self._entry(token, p)
                entry["top_logprobs"] = [self._entry(t, q) for t, q in alts[:n_probs]]
                entries.append(entry)
            choice["logprobs"] = {"content": entries}
        prompt_n = estimate_tokens(prompt_text(body)) + 64 * len(image_parts(body))
        predicted_n = len(steps)
        prompt_ms = prompt_n * 0.412
        predicted_ms = predicted_n * 9.87
        return self.json(200, {
            "choices": [choice],
            "created": int(time.time()),
            "model": self.model,
            "system_fingerprint": self.build_info,
            "object": "chat.completion",
            "usage": {
                "completion_tokens": predicted_n,
                "prompt_tokens": prompt_n,
                "total_tokens": predicted_n + prompt_n,
                "prompt_tokens_details": {"cached_tokens": 0},
            },
            "id": "chatcmpl-" + random_id(32),
            "timings": {
                "cache_n": 0,
                "prompt_n": prompt_n,
                "prompt_ms": prompt_ms,
                "prompt_per_token_ms": prompt_ms / prompt_n,
                "prompt_per_second": 1000.0 * prompt_n / prompt_ms,
                "predicted_n": predicted_n,
                "predicted_ms": predicted_ms,
                "predicted_per_token_ms": predicted_ms / predicted_n,
                "predicted_per_second": 1000.0 * predicted_n / predicted_ms,
            },
        })

    def rating_reply(self, rec, logprobs=True):
        return self.completion(rec, self._rating_steps(rec["criterion"]), logprobs=logprobs)

    def script_reply(self, rec, logprobs=True):
        steps = [(t, sorted(alts, key=lambda a: -a[1])) for t, alts in self.script]
        return self.completion(rec, steps, logprobs=logprobs)

    def no_rating_reply(self, rec):
        return self.completion(rec, self._text_steps("I cannot evaluate this text."))

    def no_vision_reply(self, rec):
        return self.fmt_error(LLAMA_NO_MMPROJ, "server_error", 500)

    def error_reply(self, status, rec, retry_after=None):
        extra = [("retry-after", retry_after)] if retry_after is not None else []
        if status == 401:
            reply = self.middleware_error("Invalid API Key", "authentication_error", 401)
        elif status == 404:
            reply = self.not_found()
        elif status == 503:
            reply = self.middleware_error("Loading model", "unavailable_error", 503)
        elif status == 400:
            n_prompt = self.n_ctx + 904
            reply = self.fmt_error(
                f"request ({n_prompt} tokens) exceeds the available context size ({self.n_ctx} tokens), try increasing it",
                "exceed_context_size_error", 400, n_prompt_tokens=n_prompt, n_ctx=self.n_ctx,
            )
        elif status == 501:
            reply = self.fmt_error("This server does not support embeddings. Start it with `--embeddings`", "not_supported_error", 501)
        elif status == 500:
            reply = self.fmt_error("context shift is disabled", "server_error", 500)
        else:
            # llama-server has no such status of its own (e.g. 429): the generic server shape.
            reply = self.fmt_error(f"HTTP {status}", "server_error", status)
        reply.headers += extra
        return reply

    def props(self):
        f = f32
        params = {
            "seed": 4294967295, "temperature": f(0.8), "dynatemp_range": 0.0, "dynatemp_exponent": 1.0,
            "top_k": 40, "top_p": f(0.95), "min_p": f(0.05), "top_n_sigma": -1.0,
            "xtc_probability": 0.0, "xtc_threshold": f(0.1), "typical_p": 1.0,
            "repeat_last_n": 64, "repeat_penalty": 1.0, "presence_penalty": 0.0, "frequency_penalty": 0.0,
            "dry_multiplier": 0.0, "dry_base": 1.75, "dry_allowed_length": 2, "dry_penalty_last_n": self.n_ctx,
            "mirostat": 0, "mirostat_tau": 5.0, "mirostat_eta": f(0.1),
            "max_tokens": -1, "n_predict": -1, "n_keep": 0, "n_discard": 0, "ignore_eos": False,
            "stream": True, "n_probs": 0, "min_keep": 0, "chat_format": "Content-only",
            "reasoning_format": "auto", "reasoning_in_content": False, "thinking_forced_open": False,
            "samplers": ["penalties", "dry", "top_n_sigma", "top_k", "typ_p", "top_p", "min_p", "xtc", "temperature"],
            "speculative.n_max": 16, "speculative.n_min": 0, "speculative.p_min": f(0.75),
            "timings_per_token": False, "post_sampling_probs": False, "lora": [],
        }
        return {
            "default_generation_settings": {"params": params, "n_ctx": self.n_ctx},
            "total_slots": self.total_slots,
            "model_alias": self.model,
            "model_ftype": "Q8_0",
            "model_path": self.model_path,
            "modalities": {"vision": bool(self.vision), "video": False, "audio": False},
            "media_marker": "<__media__>",
            "endpoint_slots": True,
            "endpoint_props": False,
            "endpoint_metrics": False,
            "ui": True,
            "ui_settings": {},
            "chat_template": SMOLVLM_TEMPLATE,
            "chat_template_caps": {
                "supports_object_arguments": False, "supports_parallel_tool_calls": False,
                "supports_preserve_reasoning": False, "supports_string_content": True,
                "supports_system_role": True, "supports_tool_calls": False, "supports_tools": False,
                "supports_typed_content": False,
            },
            "bos_token": "<|im_start|>",
            "eos_token": "<end_of_utterance>",
            "build_info": self.build_info,
            "is_sleeping": False,
            "cors_proxy_enabled": False,
        }

    def models(self):
        created = int(time.time())
        return {
            "models": [{
                "name": self.model,
                "model": self.model,
                "modified_at": "",
                "size": "",
                "digest": "",
                "type": "model",
                "description": "",
                "tags": [""],
                "capabilities": ["completion", "multimodal"] if self.vision else ["completion"],
                "parameters": "",
                "details": {
                    "parent_model": "", "format": "gguf", "family": "", "families": [""],
                    "parameter_size": "", "quantization_level": "",
                },
            }],
            "object": "list",
            "data": [{
                "id": self.model,
                "aliases": [],
                "tags": [],
                "object": "model",
                "created": created,
                "owned_by": "llamacpp",
                "meta": {
                    "vocab_type": 2, "n_vocab": 49280, "n_ctx": self.n_ctx, "n_ctx_train": 8192,
                    "n_embd": 960, "n_params": 409253568, "size": 436808704, "ftype": "Q8_0",
                },
            }],
        }


# =============================================================================================
# Google Gemini
# =============================================================================================

GEMINI_LEAD = {"correctness": ["**"], "clarity": ["Rating", ":", " "]}
GEMINI_TRAIL = {"correctness": ["**"]}
# Lead tokens the model is certain of: Google's proto3 JSON then leaves out logProbability.
GEMINI_CERTAIN = {("correctness", "**")}

GEMINI_STATUS = {
    400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
    409: "ABORTED", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 500: "INTERNAL",
    501: "NOT_IMPLEMENTED", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}
GEMINI_MESSAGES = {
    400: "Request contains an invalid argument.",
    403: "The caller does not have permission",
    500: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
    503: "The model is overloaded. Please try again later.",
    504: "The request timed out. Please try again.",
}
GEMINI_BAD_KEY = "API key not valid. Please pass a valid API key."
GEMINI_NO_KEY = (
    "Method doesn't allow unregistered callers (callers without established identity). "
    "Please use API Key or other form of API consumer identity to call this API."
)
GEMINI_BEARER = (
    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie "
    "or other valid authentication credential. See "
    "https://developers.google.com/identity/sign-in/web/devconsole-project."
)
GEMINI_NO_LOGPROBS = "Logprobs is not supported for the current model."

_CONTENT_METHODS = ["generateContent", "countTokens", "createCachedContent", "batchGenerateContent"]
GEMINI_MODELS = [
    {
        "name": "models/gemini-2.5-flash", "version": "001", "displayName": "Gemini 2.5 Flash",
        "description": "Stable version of Gemini 2.5 Flash, our mid-size multimodal model that supports up to 1 million tokens, released in June of 2025.",
        "inputTokenLimit": 1048576, "outputTokenLimit": 65536, "supportedGenerationMethods": _CONTENT_METHODS,
        "temperature": 1, "topP": 0.95, "topK": 64, "maxTemperature": 2, "thinking": True,
    },
    {
        "name": "models/gemini-2.5-flash-lite", "version": "001", "displayName": "Gemini 2.5 Flash-Lite",
        "description": "Stable version of Gemini 2.5 Flash-Lite, released in July of 2025",
        "inputTokenLimit": 1048576, "outputTokenLimit": 65536, "supportedGenerationMethods": _CONTENT_METHODS,
        "temperature": 1, "topP": 0.95, "topK": 64, "maxTemperature": 2, "thinking": True,
    },
    {
        "name": "models/gemini-2.5-pro", "version": "2.5", "displayName": "Gemini 2.5 Pro",
        "description": "Stable release (June 17th, 2025) of Gemini 2.5 Pro",
        "inputTokenLimit": 1048576, "outputTokenLimit": 65536, "supportedGenerationMethods": _CONTENT_METHODS,
        "temperature": 1, "topP": 0.95, "topK": 64, "maxTemperature": 2, "thinking": True,
    },
    {
        "name": "models/gemini-2.0-flash", "version": "2.0", "displayName": "Gemini 2.0 Flash",
        "description": "Gemini 2.0 Flash",
        "inputTokenLimit": 1048576, "outputTokenLimit": 8192, "supportedGenerationMethods": _CONTENT_METHODS,
        "temperature": 1, "topP": 0.95, "topK": 40, "maxTemperature": 2,
    },
    {
        "name": "models/gemma-3-27b-it", "version": "001", "displayName": "Gemma 3 27B",
        "inputTokenLimit": 131072, "outputTokenLimit": 8192, "supportedGenerationMethods": ["generateContent", "countTokens"],
        "temperature": 1, "topP": 0.95, "topK": 64,
    },
    {
        "name": "models/gemini-embedding-001", "version": "001", "displayName": "Gemini Embedding 001",
        "description": "Obtain a distributed representation of a text.",
        "inputTokenLimit": 2048, "outputTokenLimit": 1,
        "supportedGenerationMethods": ["embedContent", "countTextTokens", "countTokens", "asyncBatchEmbedContent"],
    },
    {
        "name": "models/text-embedding-004", "version": "004", "displayName": "Text Embedding 004",
        "description": "Obtain a distributed representation of a text.",
        "inputTokenLimit": 2048, "outputTokenLimit": 1, "supportedGenerationMethods": ["embedContent"],
    },
]

GOOGLE_NOT_FOUND_HTML = """<!DOCTYPE html>
<html lang=en>
  <meta charset=utf-8>
  <meta name=viewport content="initial-scale=1, minimum-scale=1, width=device-width">
  <title>Error 404 (Not Found)!!1</title>
  <p><b>404.</b> <ins>That\u2019s an error.</ins>
  <p>The requested URL <code>{path}</code> was not found on this server.  <ins>That\u2019s all we know.</ins>
"""


class FakeGemini(FakeProvider):
    """``FakeGemini()``; ``.url`` ends in /v1beta.

    Ratings: digit tokens ("4"), ``topCandidates`` with ``generationConfig.logprobs``
    alternatives built from SPEC_P x 0.97 plus fillers, ``chosenCandidates`` the greedy choice;
    correctness comes as "**4**" (the leading "**" certain, so without ``logProbability``),
    clarity as "Rating: 5". ``logprobsResult`` only when ``responseLogprobs`` is true.
    Thinking models (gemini-2.5*/3*, unless a Flash model gets ``thinkingBudget: 0``) spend
    ``fake.thinking_tokens`` (180) hidden tokens; when that uses up ``maxOutputTokens`` the answer
    is empty with ``finishReason: MAX_TOKENS``. ``models``: what ``GET /v1beta/models`` lists and
    ``generateContent`` accepts. Keys: a missing ``x-goog-api-key`` gets 403 PERMISSION_DENIED,
    a Bearer token 401 UNAUTHENTICATED, a key other than ``required_key`` 400 API_KEY_INVALID."""

    base_path = "/v1beta"
    server_header = "scaffolding on HTTPServer2"
    default_model = "gemini-2.5-flash"

    def __init__(self, delay=0.0, model="gemini-2.5-flash", cors=True, required_key=None, models=None, float32_logprobs=False):
        super().__init__(delay=delay, model=model, cors=cors, required_key=required_key)
        # What GET /v1beta/models lists and generateContent accepts (`models/…` entries).
        self.models = [dict(m) for m in (models if models is not None else GEMINI_MODELS)]
        if not any(m["name"] == "models/" + model for m in self.models):
            self.models.insert(0, {
                "name": "models/" + model, "version": "001", "displayName": model,
                "inputTokenLimit": 1048576, "outputTokenLimit": 65536,
                "supportedGenerationMethods": list(_CONTENT_METHODS), "temperature": 1, "topP": 0.95, "topK": 64,
            })
        # Hidden thinking tokens a thinking model spends before it answers.
        self.thinking_tokens = 180
        self.float32_logprobs = float32_logprobs

    def url_key_requests(self):
        """Every recorded request that carried ``key=`` in its URL (should be none)."""
        return [r for r in self.log if "key" in r["query"]]

    # -- encoding ----------------------------------------------------------------------------

    def json(self, status, obj, headers=()):
        data = json.dumps(obj, indent=2, ensure_ascii=False)
        base = [
            ("Vary", "Origin"), ("Vary", "X-Origin"), ("Vary", "Referer"),
            ("X-XSS-Protection", "0"), ("X-Frame-Options", "SAMEORIGIN"), ("X-Content-Type-Options", "nosniff"),
            ("Server-Timing", "gfet4t7; dur=412"),
        ]
        return Reply(status, data, content_type="application/json; charset=UTF-8", headers=base + list(headers))

    def google_error(self, status, message, details=None, headers=()):
        err = {"code": status, "message": message, "status": GEMINI_STATUS.get(status, "UNKNOWN")}
        if details:
            err["details"] = details
        return self.json(status, {"error": err}, headers)

    def cors_headers(self, rec, reply):
        origin = rec["headers"].get("origin")
        if not origin:
            return []
        headers = [("Access-Control-Allow-Origin", origin)]
        if rec["method"] == "OPTIONS":
            headers += [
                ("Access-Control-Allow-Methods", "DELETE,GET,OPTIONS,PATCH,POST,PUT"),
                ("Access-Control-Max-Age", "3600"),
            ]
            asked = rec["headers"].get("access-control-request-headers")
            if asked:
                headers.append(("Access-Control-Allow-Headers", asked))
        return headers

    # -- routing -----------------------------------------------------------------------------

    def _model_of(self, route):
        prefix = "/v1beta/models/"
        if not route.startswith(prefix) or ":" not in route[len(prefix):]:
            return None, None
        name, method = route[len(prefix):].rsplit(":", 1)
        return name, method

    def is_generation_route(self, route):
        return self._model_of(route)[1] == "generateContent"

    def handle_options(self, rec):
        return Reply(200, b"", content_type="text/html; charset=UTF-8")

    def check_key(self, rec):
        key = rec["headers"].get("x-goog-api-key")
        if not key:
            if rec["headers"].get("authorization"):
                return self.google_error(401, GEMINI_BEARER, [{
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "ACCESS_TOKEN_TYPE_UNSUPPORTED",
                    "metadata": {"method": "google.ai.generativelanguage.v1beta.GenerativeService.GenerateContent", "service": "generativelanguage.googleapis.com"},
                }])
            return self.google_error(403, GEMINI_NO_KEY, [{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "CONSUMER_INVALID",
                "domain": "googleapis.com",
                "metadata": {"service": "generativelanguage.googleapis.com", "consumer": "projects/0"},
            }])
        if self.required_key is not None and key != self.required_key:
            return self.bad_key()
        return None

    def bad_key(self):
        return self.google_error(400, GEMINI_BAD_KEY, [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "API_KEY_INVALID",
                "domain": "googleapis.com",
                "metadata": {"service": "generativelanguage.googleapis.com"},
            },
            {
                "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
                "locale": "en-US",
                "message": GEMINI_BAD_KEY,
            },
        ])

    def not_found_html(self, rec):
        html = GOOGLE_NOT_FOUND_HTML.format(path=rec["route"])
        return Reply(404, html, content_type="text/html; charset=UTF-8")

    def model_not_found(self, name, method="generateContent"):
        return self.google_error(
            404,
            f"models/{name} is not found for API version v1beta, or is not supported for {method}. "
            "Call ListModels to see the list of available models and their supported methods.",
        )

    def find_model(self, name):
        for m in self.models:
            if m["name"] == "models/" + name:
                return m
        return None

    def handle_get(self, rec):
        if not rec["route"].startswith("/v1beta/models"):
            return self.not_found_html(rec)
        refused = self.check_key(rec)
        if refused:
            return refused
        if rec["route"] in ("/v1beta/models", "/v1beta/models/"):
            return self.list_models(rec)
        name = rec["route"][len("/v1beta/models/"):]
        model = self.find_model(name)
        if model is None:
            return self.google_error(404, f"models/{name} is not found for API version v1beta, or is not supported for get. Call ListModels to see the list of available models and their supported methods.")
        return self.json(200, model)

    def list_models(self, rec):
        q = rec["query"]
        try:
            size = int((q.get("pageSize") or q.get("page_size") or ["50"])[0])
        except ValueError:
            return self.google_error(400, "Invalid value at 'page_size' (TYPE_INT32)")
        size = 50 if size <= 0 else min(size, 1000)
        token = (q.get("pageToken") or q.get("page_token") or [""])[0]
        try:
            start = int(base64.urlsafe_b64decode(token.encode()).decode()) if token else 0
        except ValueError:
            return self.google_error(400, "Invalid page token.")
        page = self.models[start:start + size]
        out = {"models": page}
        if start + size < len(self.models):
            out["nextPageToken"] = base64.urlsafe_b64encode(str(start + size).encode()).decode()
        return self.json(200, out)

    def handle_post(self, rec):
        name, method = self._model_of(rec["route"])
        if name is None or method not in ("generateContent", "streamGenerateContent", "countTokens"):
            return self.not_found_html(rec)
        refused = self.check_key(rec)
        if refused:
            return refused
        model = self.find_model(name)
        if model is None or method not in model.get("supportedGenerationMethods", []):
            return self.model_not_found(name, method)
        if method != "generateContent":
            return self.google_error(501, f"{method} is not implemented by this fake.")
        if "json_error" in rec:
            return self.google_error(400, 'Invalid JSON payload received. Unexpected token.\n' + rec["raw"][:20].decode("utf-8", "replace") + "\n^")
        body = rec["body"]
        if not body.get("contents"):
            return self.google_error(400, "* GenerateContentRequest.contents: contents is not specified\n")
        config = body.get("generationConfig") or body.get("generation_config") or {}
        thinking = self._thinking(name, config)
        if thinking == "invalid":
            return self.google_error(400, "Budget 0 is invalid. This model only works in thinking mode.")
        if rec["kind"] == "explain":
            return self.generate(rec, name, self._text_steps(self.explanation))
        return self.behave(rec)

    def _thinking(self, name, config):
        budget = (config.get("thinkingConfig") or config.get("thinking_config") or {}).get("thinkingBudget")
        if not (name.startswith("gemini-2.5") or name.startswith("gemini-3")):
            return False
        if budget == 0:
            return False if "flash" in name else "invalid"
        return True

    # -- bodies ------------------------------------------------------------------------------

    def _lp(self, p):
        lp = math.log(p)
        return f32(lp) if self.float32_logprobs else lp

    def _cand(self, token, p):
        lp = 0.0 if p >= 1 else self._lp(p)
        return {"token": token} if lp == 0.0 else {"token": token, "logProbability": lp}

    def _text_steps(self, text):
        return [(w, near_certain(w)) for w in words_of(text)]

    def _rating_steps(self, criterion):
        steps = []
        for t in GEMINI_LEAD.get(criterion, []):
            if (criterion, t) in GEMINI_CERTAIN:
                alts = [(t, 1.0)] + [(f, math.exp(-16.0 - i)) for i, f in enumerate(x for x in FILLERS if x != t)]
                steps.append((t, alts))
            else:
                steps.append((t, near_certain(t)))
        alts = rating_alternatives(criterion)
        steps.append((next(t for t, _ in alts if t.isdigit()), alts))
        steps += [(t, near_certain(t)) for t in GEMINI_TRAIL.get(criterion, [])]
        return steps

    def generate(self, rec, name, steps, logprobs=True):
        body = rec["body"]
        config = body.get("generationConfig") or body.get("generation_config") or {}
        want = bool(config.get("responseLogprobs", config.get("response_logprobs", False))) and logprobs
        k = config.get("logprobs")
        thinking = self._thinking(name, config) is True
        max_out = config.get("maxOutputTokens", config.get("max_output_tokens"))
        n_images = len(image_parts(body))
        text_tokens = estimate_tokens(prompt_text(body))
        prompt_tokens = text_tokens + 258 * n_images
        details = [{"modality": "TEXT", "tokenCount": text_tokens}]
        if n_images:
            details.append({"modality": "IMAGE", "tokenCount": 258 * n_images})
        usage = {"promptTokenCount": prompt_tokens}
        new_style = not name.startswith("gemini-2.0") and not name.startswith("gemini-1")
        if thinking and max_out is not None and self.thinking_tokens >= int(max_out):
            # The thinking used the whole output budget: no answer at all.
            usage.update({"totalTokenCount": prompt_tokens + int(max_out), "promptTokensDetails": details, "thoughtsTokenCount": int(max_out)})
            candidate = {"content": {"role": "model"}, "finishReason": "MAX_TOKENS", "index": 0}
            return self.json(200, {"candidates": [candidate], "usageMetadata": usage, "modelVersion": name, "responseId": random_id(22)})
        text = "".join(t for t, _ in steps)
        chosen = []
        for token, alts in steps:
            chosen.append(self._cand(token, dict(alts)[token]))
        avg = sum(c.get("logProbability", 0.0) for c in chosen) / len(chosen)
        candidate = {"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP"}
        if want or not new_style:
            candidate["avgLogprobs"] = avg
        if want:
            result = {}
            if k:
                result["topCandidates"] = [{"candidates": [self._cand(t, p) for t, p in alts[:int(k)]]} for _, alts in steps]
            result["chosenCandidates"] = chosen
            result["logProbabilitySum"] = sum(c.get("logProbability", 0.0) for c in chosen)
            candidate["logprobsResult"] = result
        if new_style:
            candidate["index"] = 0
        thoughts = self.thinking_tokens if thinking else 0
        usage.update({
            "candidatesTokenCount": len(steps),
            "totalTokenCount": prompt_tokens + len(steps) + thoughts,
            "promptTokensDetails": details,
        })
        if thoughts:
            usage["thoughtsTokenCount"] = thoughts
        return self.json(200, {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": name,
            "responseId": random_id(22, alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
        })

    def _name(self, rec):
        return self._model_of(rec["route"])[0]

    def rating_reply(self, rec, logprobs=True):
        if not logprobs:
            config = rec["body"].get("generationConfig") or rec["body"].get("generation_config") or {}
            if config.get("responseLogprobs") or config.get("response_logprobs"):
                return self.google_error(400, GEMINI_NO_LOGPROBS)
        return self.generate(rec, self._name(rec), self._rating_steps(rec["criterion"]), logprobs=logprobs)

    def no_rating_reply(self, rec):
        return self.generate(rec, self._name(rec), self._text_steps("I cannot evaluate this text."))

    def no_vision_reply(self, rec):
        return self.google_error(400, f"Image input modality is not enabled for models/{self._name(rec)}")

    def error_reply(self, status, rec, retry_after=None):
        headers = [("retry-after", retry_after)] if retry_after is not None else []
        name = self._name(rec) or self.model
        if status == 400:
            return self.google_error(400, GEMINI_MESSAGES[400], headers=headers)
        if status == 404:
            reply = self.model_not_found(name)
            reply.headers += headers
            return reply
        if status == 429:
            delay = f"{retry_after}s" if retry_after is not None else "7s"
            message = (
                "You exceeded your current quota, please check your plan and billing details. For more "
                "information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. "
                "To monitor your current usage, head to: https://ai.dev/usage?tab=rate-limit. \n"
                "* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, "
                f"limit: 10, model: {name}\nPlease retry in {delay[:-1]}.0s."
            )
            return self.google_error(429, message, [
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [{
                        "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                        "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                        "quotaDimensions": {"location": "global", "model": name},
                        "quotaValue": "10",
                    }],
                },
                {
                    "@type": "type.googleapis.com/google.rpc.Help",
                    "links": [{"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}],
                },
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay},
            ], headers=headers)
        if status == 401:
            reply = self.check_key({"headers": {"authorization": "Bearer x"}})
            reply.headers += headers
            return reply
        if status == 403:
            return self.google_error(403, GEMINI_NO_KEY, headers=headers)
        return self.google_error(status, GEMINI_MESSAGES.get(status, f"HTTP {status}"), headers=headers)


# =============================================================================================
# Anthropic
# =============================================================================================

ANTHROPIC_MODELS = [
    # id, display name, created_at, aliases
    ("claude-haiku-4-5-20251001", "Claude Haiku 4.5", "2025-10-15T00:00:00Z", ["claude-haiku-4-5"]),
    ("claude-sonnet-4-5-20250929", "Claude Sonnet 4.5", "2025-09-29T00:00:00Z", ["claude-sonnet-4-5"]),
    ("claude-opus-4-1-20250805", "Claude Opus 4.1", "2025-08-05T00:00:00Z", ["claude-opus-4-1"]),
    ("claude-opus-4-20250514", "Claude Opus 4", "2025-05-22T00:00:00Z", ["claude-opus-4-0"]),
    ("claude-sonnet-4-20250514", "Claude Sonnet 4", "2025-05-22T00:00:00Z", ["claude-sonnet-4-0"]),
    ("claude-3-7-sonnet-20250219", "Claude Sonnet 3.7", "2025-02-24T00:00:00Z", ["claude-3-7-sonnet-latest"]),
    ("claude-3-5-haiku-20241022", "Claude Haiku 3.5", "2024-10-22T00:00:00Z", ["claude-3-5-haiku-latest"]),
    ("claude-3-haiku-20240307", "Claude Haiku 3", "2024-03-07T00:00:00Z", []),
]

# How the judge writes each rating (the mode of SPEC_P), in a realistic form for clarity.
ANTHROPIC_FORMS = {"clarity": "Rating: {r}"}

ANTHROPIC_CORS = "CORS requests must set 'anthropic-dangerous-direct-browser-access' header"
ANTHROPIC_RATE = (
    "This request would exceed the rate limit for your organization (5c9a1f0e-0000-4000-8000-000000000000) of "
    "50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can "
    "see the response headers for current usage. Please reduce the prompt length or the maximum tokens "
    "requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to "
    "discuss your options for a rate limit increase."
)
ANTHROPIC_ERRORS = {
    400: ("invalid_request_error", "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."),
    401: ("authentication_error", "invalid x-api-key"),
    403: ("permission_error", "Your API key does not have permission to use the specified resource."),
    413: ("request_too_large", "Request exceeds the maximum allowed number of bytes."),
    429: ("rate_limit_error", ANTHROPIC_RATE),
    500: ("api_error", "Internal server error"),
    529: ("overloaded_error", "Overloaded"),
}
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def anthropic_rating_text(criterion):
    r = most_likely_rating(criterion)
    return ANTHROPIC_FORMS.get(criterion, "{r}").format(r=r)


class FakeAnthropic(FakeProvider):
    """``FakeAnthropic()``; ``.url`` ends in /v1.

    Ratings come as text only, the mode of SPEC_P (correctness "4", completeness "3", clarity
    "Rating: 5", fluency "5", conciseness "4"); "no_logprobs" is the same as "ok". Checks in
    Anthropic's order: browser header (when an Origin is sent), ``x-api-key`` (and
    ``required_key``), ``anthropic-version``, required fields, known model (aliases such as
    ``claude-sonnet-4-5`` answer with the dated id)."""

    base_path = "/v1"
    server_header = "cloudflare"
    default_model = "claude-sonnet-4-5"
    default_retry_after = {429: "7"}

    def __init__(self, delay=0.0, model="claude-sonnet-4-5", cors=True, required_key=None, models=None):
        super().__init__(delay=delay, model=model, cors=cors, required_key=required_key)
        # (id, display_name, created_at, aliases), newest first.
        self.models = list(models if models is not None else ANTHROPIC_MODELS)
        if self.canonical(model) is None:
            self.models.insert(0, (model, model, "2025-01-01T00:00:00Z", []))

    def canonical(self, name):
        for mid, _, _, aliases in self.models:
            if name == mid or name in aliases:
                return mid
        return None

    # -- encoding ----------------------------------------------------------------------------

    def json(self, status, obj, headers=(), cors=True):
        data = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
        base = [("request-id", "req_011C" + random_id(20, BASE58)), ("anthropic-organization-id", "5c9a1f0e-0000-4000-8000-000000000000")]
        return Reply(status, data, headers=base + list(headers), cors=cors)

    def api_error(self, status, type_, message, headers=(), cors=True):
        return self.json(status, {"type": "error", "error": {"type": type_, "message": message}, "request_id": "req_011C" + random_id(20, BASE58)}, headers, cors)

    def cors_headers(self, rec, reply):
        if rec["method"] == "OPTIONS":
            headers = [
                ("access-control-allow-origin", "*"),
                ("access-control-allow-methods", "GET, POST, OPTIONS"),
                ("access-control-max-age", "86400"),
            ]
            asked = rec["headers"].get("access-control-request-headers")
            if asked:
                headers.append(("access-control-allow-headers", asked))
            return headers
        if rec["headers"].get("anthropic-dangerous-direct-browser-access") == "true":
            return [("access-control-allow-origin", "*"), ("access-control-expose-headers", "*")]
        return []

    # -- routing -----------------------------------------------------------------------------

    def is_generation_route(self, route):
        return route == "/v1/messages"

    def handle_options(self, rec):
        return Reply(204, b"", content_type=None)

    def gate(self, rec):
        h = rec["headers"]
        if "origin" in h and h.get("anthropic-dangerous-direct-browser-access") != "true":
            return self.api_error(401, "authentication_error", ANTHROPIC_CORS, cors=False)
        key = h.get("x-api-key")
        if not key:
            return self.api_error(401, "authentication_error", "x-api-key header is required")
        if self.required_key is not None and key != self.required_key:
            return self.api_error(401, "authentication_error", "invalid x-api-key")
        if not h.get("anthropic-version"):
            return self.api_error(400, "invalid_request_error", "anthropic-version: header is required")
        return None

    def handle_get(self, rec):
        route = rec["route"]
        if not (route == "/v1/models" or route.startswith("/v1/models/")):
            return self.api_error(404, "not_found_error", "Not Found")
        refused = self.gate(rec)
        if refused:
            return refused
        entries = [{"type": "model", "id": i, "display_name": d, "created_at": c} for i, d, c, _ in self.models]
        if route != "/v1/models":
            wanted = route[len("/v1/models/"):]
            mid = self.canonical(wanted)
            for e in entries:
                if e["id"] == mid:
                    return self.json(200, e)
            return self.api_error(404, "not_found_error", f"model: {wanted}")
        q = rec["query"]
        try:
            limit = max(1, min(1000, int((q.get("limit") or ["20"])[0])))
        except ValueError:
            return self.api_error(400, "invalid_request_error", "limit: Input should be a valid integer")
        start = 0
        after = (q.get("after_id") or [None])[0]
        before = (q.get("before_id") or [None])[0]
        ids = [e["id"] for e in entries]
        if after in ids:
            start = ids.index(after) + 1
        end = len(entries)
        if before in ids:
            end = ids.index(before)
            start = max(0, end - limit)
        page = entries[start:min(end, start + limit)]
        return self.json(200, {
            "data": page,
            "has_more": start + limit < end,
            "first_id": page[0]["id"] if page else None,
            "last_id": page[-1]["id"] if page else None,
        })

    def handle_post(self, rec):
        if rec["route"] != "/v1/messages":
            return self.api_error(404, "not_found_error", "Not Found")
        refused = self.gate(rec)
        if refused:
            return refused
        if "json_error" in rec:
            return self.api_error(400, "invalid_request_error", "There was an error parsing the body of your request. Please make sure it is valid JSON.")
        body = rec["body"]
        for field in ("model", "messages", "max_tokens"):
            if field not in body:
                return self.api_error(400, "invalid_request_error", f"{field}: Field required")
        if self.canonical(body["model"]) is None:
            return self.api_error(404, "not_found_error", f"model: {body['model']}")
        if rec["kind"] == "explain":
            return self.message(rec, self.explanation)
        return self.behave(rec)

    # -- bodies ------------------------------------------------------------------------------

    def message(self, rec, text):
        body = rec["body"]
        n_images = len(image_parts(body))
        usage = {
            "input_tokens": estimate_tokens(prompt_text(body)) + 1200 * n_images,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "output_tokens": max(1, len(text) // 3),
            "service_tier": "standard",
        }
        return self.json(200, {
            "model": self.canonical(body.get("model", self.model)) or self.model,
            "id": "msg_01" + random_id(22, BASE58),
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": usage,
        })

    def rating_reply(self, rec, logprobs=True):
        # Anthropic has no logprobs at all: "no_logprobs" answers like "ok".
        return self.message(rec, anthropic_rating_text(rec["criterion"]))

    def no_rating_reply(self, rec):
        return self.message(rec, "I cannot evaluate this text.")

    def no_vision_reply(self, rec):
        i, j, _ = image_parts(rec["body"])[0]
        model = rec["body"].get("model", self.model)
        return self.api_error(400, "invalid_request_error", f"messages.{i}.content.{j}.image: Image input is not supported by {model}.")

    def error_reply(self, status, rec, retry_after=None):
        headers = [("retry-after", retry_after)] if retry_after is not None else []
        if status in (429, 500, 529):
            headers.append(("x-should-retry", "true"))
        if status == 404:
            return self.api_error(404, "not_found_error", f"model: {rec['body'].get('model', self.model)}", headers)
        type_, message = ANTHROPIC_ERRORS.get(status, ("api_error", f"HTTP {status}"))
        return self.api_error(status, type_, message, headers)

