"""A loopback server that answers like OpenAI's Chat Completions API, byte for byte in shape.

It serves the SPEC §1 test distributions: each criterion request (recognised by the rubric line
``- Correctness:`` etc. in the prompt) gets a completion whose ``logprobs.content`` carries the
rating step with ``top_logprobs`` built from the SPEC distribution. Tests can change the answer
per criterion (HTTP errors with OpenAI's error bodies, an answer with no rating token, a
response without logprobs), add latency, and inspect every request received, including how many
were in flight at once.

CORS is handled as OpenAI does for browsers: preflight answered, ``Access-Control-Allow-Origin: *``.
"""

import json
import math
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CRITERIA = ["correctness", "completeness", "clarity", "fluency", "conciseness"]

# SPEC §1 test vector: p over ratings 1..5 per criterion.
SPEC_P = {
    "correctness": [0, 0.05, 0.15, 0.6, 0.2],
    "completeness": [0.1, 0.2, 0.4, 0.2, 0.1],
    "clarity": [0, 0, 0.02, 0.18, 0.8],
    "fluency": [0, 0, 0, 0.05, 0.95],
    "conciseness": [0, 0.1, 0.3, 0.4, 0.2],
}

# How each criterion's rating is tokenised, so the app's rating finder is exercised: a bare
# digit, Markdown bold (rating is the second token), a leading space, a "Rating: " prefix, and
# a split between "4" and " 4" variants of the same rating.
LEAD_TOKENS = {
    "correctness": ["**"],
    "completeness": [],
    "clarity": ["Rating", ":"],
    "fluency": [],
    "conciseness": [],
}
SPACE_VARIANT = {"clarity": True, "fluency": False}
# Probability mass the judge put on rating tokens at the rating step.
COVERAGE = 0.97


def closed_form(gamma):
    """Independent closed-form HarmonicEval overall for SPEC_P (used to check the app)."""
    means, sigmas = [], []
    for c in CRITERIA:
        p = SPEC_P[c]
        m = sum((i + 1) * pi for i, pi in enumerate(p))
        v = sum(((i + 1) - m) ** 2 * pi for i, pi in enumerate(p))
        means.append(m)
        sigmas.append(math.sqrt(v))
    if gamma >= 1:
        w = [1 / 5] * 5
    else:
        k = 2 * (1 - gamma) / gamma
        logits = [-k * math.log(s) for s in sigmas]
        top = max(logits)
        e = [math.exp(l - top) for l in logits]
        w = [x / sum(e) for x in e]
    return sum(wi * mi for wi, mi in zip(w, means)), w, means, sigmas


def _tok(token, logprob, top=None):
    entry = {"token": token, "logprob": logprob, "bytes": list(token.encode("utf-8"))}
    if top is not None:
        entry["top_logprobs"] = top
    return entry


def rating_step(criterion):
    p = SPEC_P[criterion]
    space = SPACE_VARIANT.get(criterion)
    alts = []
    for rating, pr in enumerate(p, start=1):
        if pr <= 0:
            continue
        mass = pr * COVERAGE
        if criterion == "correctness" and rating == 4:
            # The same rating under two token spellings: the app must fold them.
            alts.append((str(rating), mass * 0.75))
            alts.append((" " + str(rating), mass * 0.25))
        else:
            alts.append(((" " if space else "") + str(rating), mass))
    alts.append(("The", 1 - COVERAGE))
    alts.sort(key=lambda a: -a[1])
    top = [_tok(t, math.log(m)) for t, m in alts]
    chosen = next(a for a in alts if a[0].strip().isdigit())
    return _tok(chosen[0], math.log(chosen[1]), top)


def completion_body(model, content, logprob_content, prompt_tokens=512):
    body = {
        "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None, "annotations": []},
                "logprobs": None if logprob_content is None else {"content": logprob_content, "refusal": None},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": max(1, len(logprob_content or [])),
            "total_tokens": prompt_tokens + max(1, len(logprob_content or [])),
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": "fp_50cad350e4",
    }
    return body


def rating_completion(model, criterion, with_logprobs=True):
    step = rating_step(criterion)
    lead = [_tok(t, -0.001, [_tok(t, -0.001)]) for t in LEAD_TOKENS[criterion]]
    trail = [_tok("**", -0.001, [_tok("**", -0.001)])] if criterion == "correctness" else []
    steps = lead + [step] + trail
    content = "".join(s["token"] for s in steps)
    if criterion == "clarity":
        content = "Rating: " + step["token"].strip()
    return completion_body(model, content, steps if with_logprobs else None)


def no_rating_completion(model):
    words = ["I", " cannot", " evaluate", " this", " text", "."]
    steps = [_tok(w, -0.01, [_tok(w, -0.01), _tok(" maybe", -5.0)]) for w in words]
    return completion_body(model, "".join(words), steps)


OPENAI_ERRORS = {
    401: {
        "error": {
            "message": "Incorrect API key provided: sk-test-***********abcd. You can find your API key at https://platform.openai.com/account/api-keys.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_api_key",
        }
    },
    404: {
        "error": {
            "message": "The model `gpt-nonexistent` does not exist or you do not have access to it.",
            "type": "invalid_request_error",
            "param": None,
            "code": "model_not_found",
        }
    },
    429: {
        "error": {
            "message": "Rate limit reached for gpt-4o in organization org-test on tokens per min (TPM): Limit 30000, Used 29876, Requested 512. Please try again in 1.2s.",
            "type": "tokens",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    },
    500: {
        "error": {
            "message": "The server had an error while processing your request. Sorry about that!",
            "type": "server_error",
            "param": None,
            "code": None,
        }
    },
}


def criterion_of(body):
    """Which criterion a request is about, from the rubric line in its first user message."""
    for msg in body.get("messages", []):
        content = msg.get("content")
        text = content if isinstance(content, str) else " ".join(
            part.get("text", "") for part in content or [] if part.get("type") == "text"
        )
        for c in CRITERIA:
            if f"- {c.capitalize()}:" in text:
                return c
    return None


class FakeOpenAI:
    """Start with ``FakeOpenAI()``; ``.url`` is the base URL (ending in /v1); ``.stop()``."""

    def __init__(self, delay=0.0, model="gpt-4o-2024-08-06", cors=True):
        self.delay = delay
        # False: answer without any CORS header, as a server not configured for browsers does.
        self.cors = cors
        self.model = model
        # criterion -> "ok" | "no_rating" | "no_logprobs" | int HTTP status
        self.behaviour = {}
        self.requests = []
        self.inflight = 0
        self.max_inflight = 0
        self.lock = threading.Lock()
        self.explanation = "The caption names the dog and the park correctly but misses the ball."
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _cors(self):
                if not server.cors:
                    return
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Access-Control-Expose-Headers", "retry-after, x-request-id")

            def _json(self, status, obj, extra=()):
                data = json.dumps(obj).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("x-request-id", "req_test")
                for k, v in extra:
                    self.send_header(k, v)
                self._cors()
                self.end_headers()
                self.wfile.write(data)

            def do_OPTIONS(self):
                self.send_response(204)
                self._cors()
                self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
                self.send_header("Access-Control-Allow-Headers", "authorization, content-type")
                self.send_header("Access-Control-Max-Age", "600")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {}
                with server.lock:
                    server.inflight += 1
                    server.max_inflight = max(server.max_inflight, server.inflight)
                    server.requests.append(
                        {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body, "time": time.time()}
                    )
                try:
                    if server.delay:
                        time.sleep(server.delay)
                    self._answer(body)
                finally:
                    with server.lock:
                        server.inflight -= 1

            def _answer(self, body):
                if self.path != "/v1/chat/completions":
                    return self._json(404, {"error": {"message": f"Invalid URL (POST {self.path})", "type": "invalid_request_error", "param": None, "code": None}})
                criterion = criterion_of(body)
                messages = body.get("messages", [])
                is_explain = len(messages) >= 3 and messages[-1].get("content") == "Why? Tell me the reason."
                if is_explain:
                    return self._json(200, completion_body(server.model, server.explanation, None))
                mode = server.behaviour.get(criterion, "ok")
                if isinstance(mode, int):
                    extra = [("retry-after", "7")] if mode == 429 else []
                    return self._json(mode, OPENAI_ERRORS[mode], extra)
                if mode == "no_rating":
                    return self._json(200, no_rating_completion(server.model))
                if mode == "no_logprobs":
                    return self._json(200, rating_completion(server.model, criterion, with_logprobs=False))
                return self._json(200, rating_completion(server.model, criterion))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def rating_requests(self):
        return [r for r in self.requests if len(r["body"].get("messages", [])) == 1]

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
