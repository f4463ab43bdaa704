"""``FakeAnthropic`` imitates ``api.anthropic.com/v1``: ``POST /v1/messages`` and ``GET
/v1/models``. Checked against Anthropic's public docs (docs.anthropic.com/en/api/messages,
/en/api/errors, /en/api/models-list, /en/api/rate-limits): errors are
``{"type":"error","error":{"type","message"},"request_id"}``; browser calls need
``anthropic-dangerous-direct-browser-access: true`` and without it a request with an Origin
gets 401 "CORS requests must set 'anthropic-dangerous-direct-browser-access' header" with no
``Access-Control-Allow-Origin`` (so a browser sees only a CORS failure); with it, answers carry
``access-control-allow-origin: *`` and ``access-control-expose-headers: *``. There are no
logprobs: the rating comes back as text.
"""

import json

from .base import (
    SPEC_P,
    estimate_tokens,
    FakeProvider,
    image_parts,
    most_likely_rating,
    prompt_text,
    random_id,
    Reply,
)


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
