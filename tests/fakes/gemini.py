"""``FakeGemini`` imitates ``generativelanguage.googleapis.com/v1beta``: ``POST
/v1beta/models/{model}:generateContent`` and ``GET /v1beta/models``. Checked against Google's
public API reference (ai.google.dev/api/generate-content: ``GenerateContentResponse``,
``Candidate``, ``LogprobsResult``, ``UsageMetadata``; ai.google.dev/api/models;
ai.google.dev/gemini-api/docs/troubleshooting for the error statuses) and error bodies as
Google returns them (``{"error": {"code", "message", "status", "details"}}``, 2-space indent).
Proto3 JSON leaves out a ``logProbability`` of exactly 0, and so does this fake for one lead
token. The key is read only from the ``x-goog-api-key`` header: a ``?key=`` in the URL is
recorded (``fake.url_key_requests()``) but never accepted, unlike the real service.
"""

import base64
import json
import math

from .base import (
    FILLERS,
    estimate_tokens,
    f32,
    FakeProvider,
    image_parts,
    near_certain,
    prompt_text,
    random_id,
    rating_alternatives,
    Reply,
    words_of,
)


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
