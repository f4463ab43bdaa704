"""``FakeOpenAI`` imitates ``POST /v1/chat/completions`` and ``GET /v1/models`` of
api.openai.com. Each criterion request gets a completion whose ``logprobs.content`` carries the
rating step with ``top_logprobs`` built from the SPEC distribution, tokenised differently per
criterion (a bare digit, Markdown bold, a leading space, a "Rating: " prefix, and one rating
split between "4" and " 4"). Formats checked against OpenAI's public API reference
(platform.openai.com/docs/api-reference/chat/object, /models/list, error codes guide):
success bodies are indented by 2 spaces, error bodies by 4, as OpenAI sends them. CORS is
handled as OpenAI does for browsers: preflight answered, ``Access-Control-Allow-Origin: *``.
"""

import json
import math
import re
import threading
import time
from email import policy as email_policy
from email.parser import BytesParser

from .base import (
    COVERAGE,
    HANG,
    LEAD_TOKENS,
    SPACE_VARIANT,
    SPEC_P,
    criterion_of,
    FakeProvider,
    image_parts,
    is_explanation,
    random_id,
    Reply,
)


# ---------------------------------------------------------------------------------------------
# OpenAI response bodies.
# ---------------------------------------------------------------------------------------------


def _tok(token, logprob, top=None):
    entry = {"token": token, "logprob": logprob, "bytes": list(token.encode("utf-8"))}
    if top is not None:
        entry["top_logprobs"] = top
    return entry


def sure(token):
    """A scripted step (``fake.script``) whose token is certain."""
    return (token, [(token, 1.0)])


def rating_step(criterion, p=None):
    p = SPEC_P[criterion] if p is None else p
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


def rating_completion(model, criterion, with_logprobs=True, p=None):
    # A request that is no criterion's (the app's connection probe) is answered like Fluency.
    criterion = criterion or "fluency"
    step = rating_step(criterion, p)
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
    503: {
        "error": {
            "message": "The server is overloaded or not ready yet.",
            "type": "server_error",
            "param": None,
            "code": None,
        }
    },
}

OPENAI_NO_KEY = (
    "You didn't provide an API key. You need to provide your API key in an Authorization header "
    "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank "
    "username) if you're accessing the API from your browser and are prompted for a username and "
    "password. You can obtain an API key from https://platform.openai.com/account/api-keys."
)

# What GET /v1/models lists (a slice of the real list; `created` as OpenAI reports them).
OPENAI_MODELS = [
    ("gpt-4o", 1715367049, "system"),
    ("gpt-4o-2024-08-06", 1722814719, "system"),
    ("gpt-4o-mini", 1721172741, "system"),
    ("gpt-4.1", 1744316542, "system"),
    ("gpt-4.1-mini", 1744318173, "system"),
    ("o3", 1744225308, "system"),
    ("text-embedding-3-small", 1705948997, "system"),
    ("whisper-1", 1677532384, "openai-internal"),
    ("dall-e-3", 1698785189, "system"),
]


def mask_key(key):
    """How OpenAI echoes a wrong key: its start, asterisks, its last four characters."""
    if len(key) <= 8:
        return "*" * len(key)
    head = key[:8] if len(key) > 16 else key[:3]
    return head + "*" * (len(key) - len(head) - 4) + key[-4:]


class FakeOpenAI(FakeProvider):
    """Start with ``FakeOpenAI()``; ``.url`` is the base URL (ending in /v1); ``.stop()``.

    Besides chat completions and the model list it imitates the Files and Batch APIs
    (platform.openai.com/docs/api-reference/files and /batch), every call key-checked like the
    others and recorded in ``requests``/``get_requests`` with kind ``"other"``:

    * ``POST /v1/files`` (multipart/form-data: ``purpose``, ``file``) stores the file in
      ``fake.files`` (id -> the file object's fields plus ``"content"``, the bytes) and answers
      the file object; a batch file must be named ``*.jsonl``;
    * ``GET /v1/files/{id}`` the file object, ``GET /v1/files/{id}/content`` its bytes
      (``application/octet-stream``);
    * ``POST /v1/batches`` checks the body and that the input file exists with purpose
      ``batch``, reads its lines and answers a batch object with status ``validating``; it is
      kept in ``fake.batches`` (id -> the batch object as last answered);
    * ``GET /v1/batches/{id}`` advances one step per poll: ``validating`` -> ``failed`` (bad
      lines, each in ``errors.data`` with its line number: not JSON, no custom_id, a duplicate
      custom_id, a method or url other than POST /v1/chat/completions, no body or model, a
      model other than the first line's; or ``fake.batch_fail``) or ``in_progress``, which is
      answered ``fake.batch_polls_to_finish`` times (default 2, at least 1) before the batch
      runs: every line goes through ``chat_reply``, the same logic that answers
      ``/v1/chat/completions`` (``behaviour``, ``script``, ``dist_for``, explanations, unknown
      models), but not through the key check or ``delay``. 200 answers go to the output file
      (``output_file_id``), others to the error file (``error_file_id``), each line
      ``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error": null}``;
      the batch ends ``completed``. A ``"hang"`` criterion's lines never finish: the batch
      ends ``expired`` and they go to the error file as ``"response": null, "error":
      {"code": "batch_expired", …}``; ``fake.batch_expire`` does that to every line.
      ``fake.batch_reverse_output`` writes result lines in reverse input order (OpenAI does
      not keep the order). ``fake.batch_drop`` (a set of ``custom_id``s) leaves those lines out
      of both files, as a user scoring the output file alone meets them; ``fake.batch_extra``
      (``(custom_id, copied_from)`` pairs) appends to the output file a copy of the answer to
      ``copied_from`` under ``custom_id`` (a second answer, or one to no planned request).
      ``fake.batch_fail`` (checked at the next poll) ends the batch
      ``failed`` with an enqueued-token-limit error;
    * ``POST /v1/batches/{id}/cancel`` answers ``cancelling``; the next poll ``cancelled``
      (nothing run). A finished batch cannot be cancelled (409);
    * ``GET /v1/batches`` lists them, newest first.

    Batched chat requests are kept apart from synchronous ones: ``fake.requests``,
    ``fake.count()`` and ``fail_then_ok`` counting see only HTTP requests, while
    ``fake.batch_requests`` holds the body of every chat request a batch ran,
    ``fake.batch_records`` a record for each (``batch_id``, ``custom_id``, ``line``, ``kind``,
    ``criterion``, ``n``, ``body``, ``status``) and ``fake.batch_count(criterion, explain)`` counts
    them as ``count`` does; ``fail_then_ok`` counts batched requests on their own.
    """

    base_path = "/v1"
    server_header = "cloudflare"
    default_model = "gpt-4o-2024-08-06"
    default_retry_after = {429: "7"}

    def __init__(self, delay=0.0, model="gpt-4o-2024-08-06", cors=True, required_key=None):
        # Files and Batch APIs (set before the server starts answering).
        self.files = {}  # file id -> file object fields + "content" (bytes)
        self.batches = {}  # batch id -> batch object, as last answered
        self.batch_requests = []  # body of every chat request a batch ran
        self.batch_records = []  # one record per batched chat request
        self.batch_polls_to_finish = 2
        self.batch_fail = False
        self.batch_expire = False
        self.batch_reverse_output = False
        self.batch_drop = set()
        self.batch_extra = []
        self._batch_lines = {}  # batch id -> [(line, custom_id, body)]
        self._batch_problems = {}  # batch id -> errors.data entries found while reading lines
        self._batch_progress = {}  # batch id -> how many polls answered in_progress
        self._batch_counts = {}
        self._batch_lock = threading.Lock()
        super().__init__(delay=delay, model=model, cors=cors, required_key=required_key)

    # -- encoding ----------------------------------------------------------------------------

    def ok(self, obj, headers=()):
        return Reply(200, json.dumps(obj, indent=2), headers=[("x-request-id", "req_test")] + list(headers))

    def error(self, status, obj, headers=()):
        return Reply(status, json.dumps(obj, indent=4), headers=[("x-request-id", "req_test")] + list(headers))

    def cors_headers(self, rec, reply):
        if rec["method"] == "OPTIONS":
            return [
                ("Access-Control-Allow-Origin", "*"),
                ("Access-Control-Expose-Headers", "retry-after, x-request-id"),
                ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
                ("Access-Control-Allow-Headers", "authorization, content-type"),
                ("Access-Control-Max-Age", "600"),
            ]
        return [
            ("Access-Control-Allow-Origin", "*"),
            ("Access-Control-Expose-Headers", "retry-after, x-request-id"),
        ]

    # -- routes ------------------------------------------------------------------------------

    def is_generation_route(self, route):
        return route == "/v1/chat/completions"

    def handle_options(self, rec):
        return Reply(204, b"", content_type=None)

    def check_key(self, rec):
        if self.required_key is None:
            return None
        auth = rec["headers"].get("authorization", "")
        if not auth:
            return self.error(401, {"error": {"message": OPENAI_NO_KEY, "type": "invalid_request_error", "param": None, "code": None}})
        key = auth[len("Bearer "):] if auth.startswith("Bearer ") else auth
        if key != self.required_key:
            return self.error(401, {"error": {
                "message": f"Incorrect API key provided: {mask_key(key)}. You can find your API key at https://platform.openai.com/account/api-keys.",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_api_key",
            }})
        return None

    def invalid_url(self, rec):
        return self.error(404, {"error": {"message": f"Invalid URL ({rec['method']} {rec['route']})", "type": "invalid_request_error", "param": None, "code": None}})

    def handle_get(self, rec):
        route = rec["route"]
        if route == "/v1/models" or route.startswith("/v1/models/"):
            refused = self.check_key(rec)
            if refused:
                return refused
            entries = [{"id": i, "object": "model", "created": c, "owned_by": o} for i, c, o in OPENAI_MODELS]
            if route == "/v1/models":
                return self.ok({"object": "list", "data": entries})
            wanted = route[len("/v1/models/"):]
            for e in entries:
                if e["id"] == wanted:
                    return self.ok(e)
            return self.error(404, {"error": {"message": f"The model '{wanted}' does not exist", "type": "invalid_request_error", "param": "model", "code": "model_not_found"}})
        if route == "/v1/batches" or route.startswith("/v1/batches/") or route.startswith("/v1/files/"):
            refused = self.check_key(rec)
            if refused:
                return refused
            if route == "/v1/batches":
                return self.list_batches(rec)
            m = re.fullmatch(r"/v1/batches/([^/]+)", route)
            if m:
                return self.poll_batch(m.group(1))
            m = re.fullmatch(r"/v1/files/([^/]+)(/content)?", route)
            if m:
                return self.file_reply(m.group(1), content=bool(m.group(2)))
        return self.invalid_url(rec)

    def handle_post(self, rec):
        route = rec["route"]
        if route == "/v1/chat/completions":
            refused = self.check_key(rec)
            if refused:
                return refused
            return self.chat_reply(rec)
        m = re.fullmatch(r"/v1/batches/([^/]+)/cancel", route)
        if route in ("/v1/files", "/v1/batches") or m:
            refused = self.check_key(rec)
            if refused:
                return refused
            if route == "/v1/files":
                return self.upload_file(rec)
            if route == "/v1/batches":
                return self.create_batch(rec)
            return self.cancel_batch(m.group(1))
        return self.invalid_url(rec)

    def chat_reply(self, rec):
        """The answer to one chat completion, the key already checked: what
        ``/v1/chat/completions`` answers, and what a batch line gets."""
        wanted = (rec.get("body") or {}).get("model")
        if wanted not in {m[0] for m in OPENAI_MODELS}:
            # OpenAI answers an unknown or inaccessible model with 404 model_not_found.
            return self.error(404, {"error": {"message": f"The model `{wanted}` does not exist or you do not have access to it.", "type": "invalid_request_error", "param": None, "code": "model_not_found"}})
        if rec["kind"] == "explain":
            return self.ok(completion_body(self.model, self.explanation, None))
        return self.behave(rec)

    # -- answers -----------------------------------------------------------------------------

    def error_reply(self, status, rec, retry_after=None):
        body = OPENAI_ERRORS.get(status) or {
            "error": {"message": f"The server returned HTTP {status}.", "type": "server_error", "param": None, "code": None}
        }
        extra = [("retry-after", retry_after)] if retry_after is not None else []
        return self.error(status, body, extra)

    def rating_reply(self, rec, logprobs=True):
        # `dist_for(body, criterion)` may give this request its own p(1..5) (batch tests vary
        # the judge's opinion per item); None keeps the SPEC distribution.
        p = self.dist_for(rec["body"], rec["criterion"]) if getattr(self, "dist_for", None) else None
        return self.ok(rating_completion(self.model, rec["criterion"], with_logprobs=logprobs, p=p))

    def script_reply(self, rec, logprobs=True):
        n = int(rec["body"].get("top_logprobs") or 0)
        # A callable script answers each request with its own steps (several candidates in one
        # run, each judged differently): ``script(body) -> steps``.
        script = self.script(rec["body"]) if callable(self.script) else self.script
        steps = []
        for token, alts in script:
            alts = sorted(alts, key=lambda a: -a[1])
            p = dict(alts)[token]
            steps.append(_tok(token, math.log(p), [_tok(t, math.log(q)) for t, q in alts[:n]]))
        content = "".join(t for t, _ in script)
        return self.ok(completion_body(self.model, content, steps if logprobs else None))

    def no_rating_reply(self, rec):
        return self.ok(no_rating_completion(self.model))

    def no_vision_reply(self, rec):
        i, j, _ = image_parts(rec["body"])[0]
        return self.error(400, {"error": {
            "message": "Invalid content type. image_url is only supported by certain models.",
            "type": "invalid_request_error",
            "param": f"messages.[{i}].content.[{j}].type",
            "code": None,
        }})

    # -- Files and Batch APIs ----------------------------------------------------------------

    BATCH_ENDPOINTS = ("/v1/chat/completions", "/v1/embeddings", "/v1/completions", "/v1/responses")
    FILE_PURPOSES = ("assistants", "batch", "fine-tune", "vision", "user_data", "evals")
    BATCH_MAX_REQUESTS = 50_000

    def invalid_request(self, message, param=None, code=None, status=400):
        return self.error(status, {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}})

    def _file_object(self, file_id):
        return {k: v for k, v in self.files[file_id].items() if k != "content"}

    def _store_file(self, content, filename, purpose):
        file_id = "file-" + random_id(22)
        self.files[file_id] = {
            "object": "file",
            "id": file_id,
            "purpose": purpose,
            "filename": filename,
            "bytes": len(content),
            "created_at": int(time.time()),
            "expires_at": None,
            "status": "processed",
            "status_details": None,
            "content": content,
        }
        return file_id

    def upload_file(self, rec):
        """``POST /v1/files``: a multipart form with ``purpose`` and ``file``."""
        content_type = rec["headers"].get("content-type", "")
        if not content_type.lower().startswith("multipart/form-data"):
            return self.invalid_request(f"Invalid Content-Type header ({content_type or 'none'}), expected multipart/form-data.")
        head = b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n"
        msg = BytesParser(policy=email_policy.HTTP).parsebytes(head + rec.get("raw", b""))
        fields = {}
        if msg.is_multipart():
            for part in msg.iter_parts():
                name = part.get_param("name", header="content-disposition")
                if name:
                    fields[name] = (part.get_filename(), part.get_payload(decode=True) or b"", part.get_content_type())
        # Not JSON, and not an error: record the form instead.
        rec.pop("json_error", None)
        rec["body"] = {k: (v[1].decode("utf-8", "replace") if v[0] is None else {"filename": v[0], "bytes": len(v[1]), "content_type": v[2]}) for k, v in fields.items()}
        if "purpose" not in fields:
            return self.invalid_request("Missing required parameter: 'purpose'.", "purpose", "missing_required_parameter")
        purpose = fields["purpose"][1].decode("utf-8", "replace").strip()
        if purpose not in self.FILE_PURPOSES:
            return self.invalid_request(f"'{purpose}' is not one of {list(self.FILE_PURPOSES)} - 'purpose'", "purpose", "invalid_value")
        if "file" not in fields or fields["file"][0] is None:
            return self.invalid_request("Missing required parameter: 'file'.", "file", "missing_required_parameter")
        filename, content, _ = fields["file"]
        if purpose == "batch" and not filename.endswith(".jsonl"):
            return self.invalid_request("Invalid file format for Batch API. Must be .jsonl", "file")
        with self._batch_lock:
            file_id = self._store_file(content, filename, purpose)
            return self.ok(self._file_object(file_id))

    def file_reply(self, file_id, content=False):
        """``GET /v1/files/{id}`` and ``/content``."""
        with self._batch_lock:
            if file_id not in self.files:
                return self.invalid_request(f"No such File object: {file_id}", "id", status=404)
            if content:
                return Reply(200, self.files[file_id]["content"], content_type="application/octet-stream", headers=[("x-request-id", "req_test")])
            return self.ok(self._file_object(file_id))

    def _read_batch_lines(self, content):
        """``([(line, custom_id, body)], [errors.data entries], model)`` for an input file."""
        lines, problems, seen, model = [], [], set(), None

        def problem(code, message, line, param=None):
            problems.append({"code": code, "message": message, "param": param, "line": line})

        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            problem("invalid_file_encoding", "The input file is not UTF-8 encoded.", None)
            return lines, problems, model
        for number, raw in enumerate(text.splitlines(), start=1):
            if not raw.strip():
                continue
            try:
                entry = json.loads(raw)
            except ValueError:
                problem("invalid_json_line", "This line is not parseable as valid JSON.", number)
                continue
            if not isinstance(entry, dict):
                problem("invalid_json_line", "This line is not a JSON object.", number)
                continue
            custom_id = entry.get("custom_id")
            body = entry.get("body")
            if not isinstance(custom_id, str):
                problem("missing_required_parameter", "Missing required parameter: 'custom_id'.", number, "custom_id")
            elif custom_id in seen:
                problem("duplicate_custom_id", "The custom_id for this request is a duplicate of another request. The custom_id parameter must be unique for each request in a batch.", number, "custom_id")
            elif entry.get("method") != "POST":
                problem("invalid_method", "The method for this request must be POST.", number, "method")
            elif entry.get("url") != "/v1/chat/completions":
                problem("invalid_url", "The URL provided for this request does not match the batch endpoint.", number, "url")
            elif not isinstance(body, dict):
                problem("missing_required_parameter", "Missing required parameter: 'body'.", number, "body")
            elif not isinstance(body.get("model"), str):
                problem("missing_required_parameter", "Missing required parameter: 'body.model'.", number, "body.model")
            elif model is not None and body["model"] != model:
                problem("mismatched_model", f"The provided model '{body['model']}' does not match the model '{model}' of the other requests in this batch.", number, "body.model")
            else:
                seen.add(custom_id)
                model = model or body["model"]
                lines.append((number, custom_id, body))
        if not lines and not problems:
            problem("empty_file", "The batch input file is empty.", None)
        if len(lines) > self.BATCH_MAX_REQUESTS:
            problem("too_many_tasks", f"The batch input file has {len(lines)} requests; the limit is {self.BATCH_MAX_REQUESTS}.", None)
        return lines, problems, model

    def create_batch(self, rec):
        """``POST /v1/batches``."""
        if "json_error" in rec:
            return self.invalid_request("We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)")
        body = rec.get("body")
        if not isinstance(body, dict):
            return self.invalid_request("Invalid type for request body: expected an object.")
        for name in ("input_file_id", "endpoint", "completion_window"):
            if not isinstance(body.get(name), str) or not body.get(name):
                return self.invalid_request(f"Missing required parameter: '{name}'.", name, "missing_required_parameter")
        if body["endpoint"] not in self.BATCH_ENDPOINTS:
            return self.invalid_request(f"Invalid value: '{body['endpoint']}'. Supported values are: {', '.join(repr(e) for e in self.BATCH_ENDPOINTS)}.", "endpoint", "invalid_value")
        if body["completion_window"] != "24h":
            return self.invalid_request(f"Invalid value: '{body['completion_window']}'. Supported values are: '24h'.", "completion_window", "invalid_value")
        metadata = body.get("metadata")
        if metadata is not None and (not isinstance(metadata, dict) or len(metadata) > 16 or not all(isinstance(v, str) for v in metadata.values())):
            return self.invalid_request("Invalid 'metadata': expected an object of at most 16 string values.", "metadata", "invalid_value")
        with self._batch_lock:
            file_id = body["input_file_id"]
            if file_id not in self.files:
                return self.invalid_request(f"No such File object: {file_id}", "input_file_id", status=404)
            if self.files[file_id]["purpose"] != "batch":
                return self.invalid_request(f"The input file {file_id} must be uploaded with purpose 'batch'.", "input_file_id")
            lines, problems, model = self._read_batch_lines(self.files[file_id]["content"])
            if body["endpoint"] != "/v1/chat/completions":
                problems.append({"code": "invalid_url", "message": "This fake runs only /v1/chat/completions batches.", "param": "endpoint", "line": None})
            now = int(time.time())
            batch_id = "batch_" + random_id(32, "0123456789abcdef")
            batch = {
                "id": batch_id,
                "object": "batch",
                "endpoint": body["endpoint"],
                "model": model,
                "errors": None,
                "input_file_id": file_id,
                "completion_window": "24h",
                "status": "validating",
                "output_file_id": None,
                "error_file_id": None,
                "created_at": now,
                "in_progress_at": None,
                "expires_at": now + 24 * 3600,
                "finalizing_at": None,
                "completed_at": None,
                "failed_at": None,
                "expired_at": None,
                "cancelling_at": None,
                "cancelled_at": None,
                "request_counts": {"total": 0, "completed": 0, "failed": 0},
                "usage": {
                    "input_tokens": 0,
                    "output_tokens": 0,
                    "total_tokens": 0,
                    "input_tokens_details": {"cached_tokens": 0},
                    "output_tokens_details": {"reasoning_tokens": 0},
                },
                "metadata": metadata,
            }
            self.batches[batch_id] = batch
            self._batch_lines[batch_id] = lines
            self._batch_problems[batch_id] = problems
            self._batch_progress[batch_id] = 0
            return self.ok(batch)

    def list_batches(self, rec):
        """``GET /v1/batches`` (newest first; ``limit`` honoured, no paging)."""
        try:
            limit = max(1, min(100, int((rec["query"].get("limit") or ["20"])[0])))
        except ValueError:
            return self.invalid_request("Invalid 'limit': expected an integer.", "limit", "invalid_value")
        with self._batch_lock:
            data = list(reversed(list(self.batches.values())))[:limit]
            return self.ok({
                "object": "list",
                "data": data,
                "first_id": data[0]["id"] if data else None,
                "last_id": data[-1]["id"] if data else None,
                "has_more": len(self.batches) > limit,
            })

    def poll_batch(self, batch_id):
        """``GET /v1/batches/{id}``: one step further per poll."""
        with self._batch_lock:
            batch = self.batches.get(batch_id)
            if batch is None:
                return self.invalid_request(f"No batch found with id '{batch_id}'.", status=404)
            status = batch["status"]
            now = int(time.time())
            if status == "cancelling":
                batch.update(status="cancelled", cancelled_at=now)
            elif status == "validating":
                problems = self._batch_problems[batch_id]
                if problems or self.batch_fail:
                    self._fail_batch(batch, problems or None)
                else:
                    total = len(self._batch_lines[batch_id])
                    batch.update(status="in_progress", in_progress_at=now)
                    batch["request_counts"] = {"total": total, "completed": 0, "failed": 0}
                    self._batch_progress[batch_id] = 1
            elif status == "in_progress":
                if self.batch_fail:
                    self._fail_batch(batch, None)
                elif self._batch_progress[batch_id] >= max(1, int(self.batch_polls_to_finish)):
                    self._run_batch(batch)
                else:
                    self._batch_progress[batch_id] += 1
                    total = batch["request_counts"]["total"]
                    done = total * (self._batch_progress[batch_id] - 1) // max(1, int(self.batch_polls_to_finish))
                    batch["request_counts"] = {"total": total, "completed": done, "failed": 0}
            return self.ok(batch)

    def _fail_batch(self, batch, problems):
        if problems is None:
            problems = [{
                "code": "token_limit_exceeded",
                "message": f"Enqueued token limit reached for {batch.get('model') or 'gpt-4o'} in organization org-test. Limit: 90,000 enqueued tokens. Please try again once some in_progress batches have been completed.",
                "param": None,
                "line": None,
            }]
        batch.update(status="failed", failed_at=int(time.time()), errors={"object": "list", "data": problems})

    def batch_count(self, criterion=None, explain=False):
        """As ``count``, for the chat requests batches ran."""
        kind = "explain" if explain else "rating"
        with self.lock:
            return sum(n for (c, k), n in self._batch_counts.items() if k == kind and (criterion is None or c == criterion))

    def _run_batch(self, batch):
        """Runs every line through ``chat_reply`` and writes the output and error files."""
        batch_id = batch["id"]
        outputs, errors = [], []
        usage = {"input": 0, "output": 0}
        expired = False
        for number, custom_id, body in self._batch_lines[batch_id]:
            kind = "explain" if is_explanation(body) else "rating"
            criterion = criterion_of(body)
            line_id = "batch_req_" + random_id(32, "0123456789abcdef")
            if self.batch_expire or (kind == "rating" and self.mode_for(criterion) == "hang"):
                expired = True
                errors.append({"id": line_id, "custom_id": custom_id, "response": None, "error": {
                    "code": "batch_expired",
                    "message": "This request could not be executed before the completion window expired.",
                }})
                continue
            with self.lock:
                key = (criterion, kind)
                self._batch_counts[key] = self._batch_counts.get(key, 0) + 1
                n = self._batch_counts[key]
            rec = {
                "method": "POST",
                "path": "/v1/chat/completions",
                "route": "/v1/chat/completions",
                "query": {},
                "headers": {},
                "time": time.time(),
                "body": body,
                "raw": json.dumps(body).encode(),
                "kind": kind,
                "criterion": criterion,
                "n": n,
                "batch_id": batch_id,
                "custom_id": custom_id,
                "line": number,
            }
            reply = self.chat_reply(rec)
            if reply is HANG:  # e.g. a script that hangs: never finishes in time
                expired = True
                errors.append({"id": line_id, "custom_id": custom_id, "response": None, "error": {
                    "code": "batch_expired",
                    "message": "This request could not be executed before the completion window expired.",
                }})
                continue
            try:
                answer = json.loads(reply.body)
            except ValueError:
                answer = reply.body.decode("utf-8", "replace")
            rec["status"] = reply.status
            self.batch_requests.append(body)
            self.batch_records.append(rec)
            line = {"id": line_id, "custom_id": custom_id, "response": {
                "status_code": reply.status,
                "request_id": "req_" + random_id(32, "0123456789abcdef"),
                "body": answer,
            }, "error": None}
            if reply.status == 200:
                outputs.append(line)
                u = (answer.get("usage") or {}) if isinstance(answer, dict) else {}
                usage["input"] += u.get("prompt_tokens", 0)
                usage["output"] += u.get("completion_tokens", 0)
            else:
                errors.append(line)
        if self.batch_reverse_output:
            outputs.reverse()
            errors.reverse()
        for custom_id, copied_from in self.batch_extra:
            source = next(x for x in outputs if x["custom_id"] == copied_from)
            outputs.append({**source, "custom_id": custom_id})
        outputs = [x for x in outputs if x["custom_id"] not in self.batch_drop]
        errors = [x for x in errors if x["custom_id"] not in self.batch_drop]
        now = int(time.time())
        if outputs:
            content = "".join(json.dumps(x) + "\n" for x in outputs).encode()
            batch["output_file_id"] = self._store_file(content, f"{batch_id}_output.jsonl", "batch_output")
        if errors:
            content = "".join(json.dumps(x) + "\n" for x in errors).encode()
            batch["error_file_id"] = self._store_file(content, f"{batch_id}_error.jsonl", "batch_output")
        batch["request_counts"] = {"total": len(outputs) + len(errors), "completed": len(outputs), "failed": len(errors)}
        batch["usage"] = {
            "input_tokens": usage["input"],
            "output_tokens": usage["output"],
            "total_tokens": usage["input"] + usage["output"],
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        }
        batch["finalizing_at"] = now
        if expired:
            batch.update(status="expired", expired_at=now)
        else:
            batch.update(status="completed", completed_at=now)

    def cancel_batch(self, batch_id):
        """``POST /v1/batches/{id}/cancel``."""
        with self._batch_lock:
            batch = self.batches.get(batch_id)
            if batch is None:
                return self.invalid_request(f"No batch found with id '{batch_id}'.", status=404)
            if batch["status"] in ("completed", "failed", "expired", "cancelled"):
                return self.invalid_request(f"Cannot cancel a batch with status '{batch['status']}'.", status=409)
            if batch["status"] != "cancelling":
                batch.update(status="cancelling", cancelling_at=int(time.time()))
            return self.ok(batch)
