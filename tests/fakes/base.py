"""Loopback servers that answer like real model providers: what every fake shares.

The wire formats live beside it, one module per provider as in ``crates/core/src/providers/``:
``openai.py`` (``FakeOpenAI``), ``llama.py`` (``FakeLlamaServer``), ``gemini.py``
(``FakeGemini``) and ``anthropic.py`` (``FakeAnthropic``); each builds on ``FakeProvider`` below.

Shared by all fakes (``FakeProvider``):

* the SPEC §1 test distributions (``SPEC_P``) and the closed-form HarmonicEval overall used to
  check the app (``closed_form``);
* recognising which criterion a request is about (``criterion_of``: the rubric line
  ``- Correctness:`` etc. in the user text, in OpenAI/llama.cpp, Anthropic or Gemini message
  shape), and whether it is the follow-up explanation turn (last user message exactly
  ``Why? Tell me the reason.``), answered with ``fake.explanation``;
* request recording: ``fake.requests`` (POSTs, as before), ``fake.get_requests`` (GETs),
  ``fake.preflights`` (OPTIONS) and ``fake.log`` (all of them, in arrival order), each with the
  raw request target, its path and query, lower-cased headers, the parsed JSON body and the time;
* in-flight counting (``fake.inflight``, ``fake.max_inflight``), an added ``fake.delay`` per POST,
  ``fake.cors`` (False: every ``Access-Control-*`` header is left out, as a server not set up
  for browsers does), ``fake.required_key`` (set: any other key gets the provider's own
  401-class answer) and start/stop on an ephemeral 127.0.0.1 port;
* behaviours per criterion in ``fake.behaviour`` (``"*"`` sets a default for all criteria):
  ``"ok"``; ``"no_rating"`` (an answer with no rating in it); ``"no_logprobs"`` (no token
  probabilities, as that provider lacks them); an int HTTP status (that provider's error body);
  ``("fail_then_ok", status, n, retry_after)`` (the first n rating requests for the criterion
  fail with that status, with a ``retry-after`` header when retry_after is not None, later ones
  succeed); ``"hang"`` (the request is held unanswered until ``stop()`` or ``fake.hang_limit``
  seconds, 60 by default, then the connection is closed; other requests and ``stop()`` are not
  blocked); ``"no_vision"`` (a request carrying an image is refused the way that server refuses
  image input; one without an image is answered normally); the transport and format faults of
  ``fault_reply`` (``"cut_body"``, ``"slow_body"``, ``"invalid_json"``, ``"wrong_shape"``,
  ``"empty_logprobs"``, ``"html_502"``). Explanation requests are always
  answered. ``fake.count(criterion)`` says how many rating requests came for a criterion.
"""

import json
import math
import random
import socket
import string
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

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

# The follow-up turn that asks for the reason behind a rating (SPEC §1, borrowed from FLEUR).
EXPLAIN_PROMPT = "Why? Tell me the reason."
DEFAULT_EXPLANATION = "The caption names the dog and the park correctly but misses the ball."


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


def most_likely_rating(criterion):
    """The rating a greedy judge writes for the criterion: the mode of its SPEC distribution."""
    p = SPEC_P[criterion]
    return max(range(5), key=lambda i: p[i]) + 1


def f32(x):
    """x rounded to the nearest 32-bit float, as servers that keep logprobs in floats send it."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def random_id(n, alphabet=string.ascii_letters + string.digits):
    return "".join(random.choice(alphabet) for _ in range(n))


# ---------------------------------------------------------------------------------------------
# Request shapes: OpenAI/llama.cpp and Anthropic `messages`, Gemini `contents`.
# ---------------------------------------------------------------------------------------------


def _parts_text(content):
    """The text of a message's content: a string, or the text parts of a list of parts
    (OpenAI and Anthropic ``{"type": "text", "text": …}``, Gemini ``{"text": …}``)."""
    if isinstance(content, str):
        return content
    texts = []
    for part in content or []:
        if isinstance(part, dict) and part.get("type", "text") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
    return " ".join(texts)


def request_messages(body):
    """``[(role, text, parts)]`` for a chat body in any of the three shapes."""
    if not isinstance(body, dict):
        return []
    if isinstance(body.get("messages"), list):
        return [
            (m.get("role"), _parts_text(m.get("content")), m.get("content"))
            for m in body["messages"]
            if isinstance(m, dict)
        ]
    if isinstance(body.get("contents"), list):
        return [
            (c.get("role", "user"), _parts_text(c.get("parts")), c.get("parts"))
            for c in body["contents"]
            if isinstance(c, dict)
        ]
    return []


def criterion_of(body):
    """Which criterion a request is about, from the rubric line (``- Correctness:`` …) in its
    messages (OpenAI, llama.cpp, Anthropic) or contents (Gemini), or its system prompt."""
    texts = [text for _, text, _ in request_messages(body)]
    if isinstance(body, dict):
        for key in ("system", "systemInstruction", "system_instruction"):
            sys_value = body.get(key)
            if isinstance(sys_value, dict):
                sys_value = sys_value.get("parts")
            if sys_value:
                texts.append(_parts_text(sys_value))
    for text in texts:
        for c in CRITERIA:
            if f"- {c.capitalize()}:" in text:
                return c
    return None


def is_explanation(body):
    """True for the follow-up turn: a conversation whose last user message is exactly
    ``Why? Tell me the reason.``."""
    msgs = request_messages(body)
    return len(msgs) >= 2 and msgs[-1][0] == "user" and msgs[-1][1] == EXPLAIN_PROMPT


def image_parts(body):
    """``[(message_index, part_index, part)]`` for every image part in the request: OpenAI
    ``image_url``, Anthropic ``image``, Gemini ``inline_data``/``inlineData``/``file_data``."""
    found = []
    for i, (_, _, parts) in enumerate(request_messages(body)):
        if not isinstance(parts, list):
            continue
        for j, part in enumerate(parts):
            if not isinstance(part, dict):
                continue
            if part.get("type") in ("image_url", "image") or any(
                k in part for k in ("inline_data", "inlineData", "file_data", "fileData")
            ):
                found.append((i, j, part))
    return found


def prompt_text(body):
    return " ".join(text for _, text, _ in request_messages(body))


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




class Reply:
    """An HTTP answer: status, body bytes, content type and extra headers."""

    def __init__(self, status, body=b"", content_type="application/json", headers=(), cors=True,
                 cut=False, dribble=0.0):
        self.status = status
        # cut: the connection is closed halfway through the body (Content-Length promised all).
        self.cut = cut
        # dribble: the body is sent in ten pieces spread over this many seconds.
        self.dribble = dribble
        self.body = body if isinstance(body, bytes) else body.encode("utf-8")
        self.content_type = content_type
        self.headers = list(headers)
        # False: this answer carries no CORS headers even when the fake sends them elsewhere.
        self.cors = cors


# Returned by a handler to hold the request unanswered (the "hang" behaviour).
HANG = object()

STATUS_TEXT = {529: "Overloaded"}


class FakeProvider:
    """What every fake shares. Subclasses set ``base_path`` and implement ``handle_post``,
    ``handle_get``, ``handle_options``, ``cors_headers``, ``error_reply``, ``rating_reply``,
    ``no_rating_reply``, ``no_vision_reply`` and ``is_generation_route``."""

    base_path = "/v1"
    server_header = "fake"
    default_model = ""
    # Plain int behaviours: the retry-after header value sent with that status, if any.
    default_retry_after = {}

    def __init__(self, delay=0.0, model=None, cors=True, required_key=None):
        self.delay = delay
        # False: answer without any CORS header, as a server not configured for browsers does.
        self.cors = cors
        self.model = model if model is not None else self.default_model
        # None: any key (or, where the provider allows it, none) is accepted.
        self.required_key = required_key
        # criterion (or "*") -> "ok" | "no_rating" | "no_logprobs" | "no_vision" | "hang"
        #   | int HTTP status | ("fail_then_ok", status, n, retry_after)
        self.behaviour = {}
        self.explanation = DEFAULT_EXPLANATION
        # Steps ``[(chosen, [(token, p), …]), …]`` answered to every scoring request while set
        # (FLEUR's and G-VEval's prompts), instead of the criterion ratings.
        self.script = None
        self.hang_limit = 60.0
        self.requests = []  # POSTs
        self.get_requests = []  # GETs
        self.preflights = []  # OPTIONS
        self.log = []  # every request, in arrival order
        self.problems = []  # misconfigured behaviours met while answering
        self.inflight = 0
        self.max_inflight = 0
        self.lock = threading.Lock()
        self._counts = {}
        self._stopped = threading.Event()
        self._stop_lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self.url = self.origin + self.base_path
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    # -- public ------------------------------------------------------------------------------

    def count(self, criterion=None, explain=False):
        """How many rating requests (explanation requests with ``explain=True``) came for the
        criterion; for all criteria together when it is None."""
        kind = "explain" if explain else "rating"
        with self.lock:
            return sum(n for (c, k), n in self._counts.items() if k == kind and (criterion is None or c == criterion))

    def rating_requests(self):
        return [r for r in self.requests if r.get("kind") == "rating"]

    def explanation_requests(self):
        return [r for r in self.requests if r.get("kind") == "explain"]

    @property
    def stopped(self):
        return self._stopped.is_set()

    def stop(self):
        """Stops serving, as a server that dies: held ("hang") and in-flight requests, and any
        that arrive on kept-alive connections, get their connection closed unanswered."""
        with self._stop_lock:
            if self._stopped.is_set():
                return
            self._stopped.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- hooks -------------------------------------------------------------------------------

    def is_generation_route(self, route):
        raise NotImplementedError

    def handle_post(self, rec):
        raise NotImplementedError

    def handle_get(self, rec):
        raise NotImplementedError

    def handle_options(self, rec):
        raise NotImplementedError

    def cors_headers(self, rec, reply):
        return []

    def error_reply(self, status, rec, retry_after=None):
        raise NotImplementedError

    def rating_reply(self, rec, logprobs=True):
        raise NotImplementedError

    def no_rating_reply(self, rec):
        raise NotImplementedError

    def no_vision_reply(self, rec):
        raise NotImplementedError

    # -- shared logic ------------------------------------------------------------------------

    def mode_for(self, criterion):
        return self.behaviour.get(criterion, self.behaviour.get("*", "ok"))

    def behave(self, rec):
        """The answer for a rating request under the criterion's behaviour."""
        mode = self.mode_for(rec.get("criterion"))
        if mode == "hang":
            return HANG
        if isinstance(mode, (tuple, list)):
            if len(mode) != 4 or mode[0] != "fail_then_ok":
                return self._misconfigured(mode)
            _, status, n, retry_after = mode
            if rec.get("n", 0) <= n:
                return self.error_reply(int(status), rec, retry_after=None if retry_after is None else str(retry_after))
            mode = "ok"
        if isinstance(mode, int) and not isinstance(mode, bool):
            return self.error_reply(mode, rec, retry_after=self.default_retry_after.get(mode))
        if mode == "no_vision":
            if image_parts(rec["body"]):
                return self.no_vision_reply(rec)
            mode = "ok"
        if mode == "no_rating":
            return self.no_rating_reply(rec)
        fault = self.fault_reply(mode, rec)
        if fault is not None:
            return fault
        # A script answers every generation request while it is set (FLEUR and G-VEval
        # prompts may mention criterion names, e.g. ACCR's "- Completeness:").
        scripted = self.script is not None
        if mode == "no_logprobs":
            if scripted:
                return self.script_reply(rec, logprobs=False)
            return self.rating_reply(rec, logprobs=False)
        if mode == "ok":
            if scripted:
                return self.script_reply(rec, logprobs=True)
            if rec.get("criterion") is None:
                return self.no_rating_reply(rec)
            return self.rating_reply(rec, logprobs=True)
        return self._misconfigured(mode)

    def fault_reply(self, mode, rec):
        """Transport and format faults (the fault matrix): ``"cut_body"`` (a rating answer whose
        connection closes halfway), ``"slow_body"`` (one dribbled over 2 s), ``"invalid_json"``
        (200 with a truncated JSON body), ``"wrong_shape"`` (200 with valid JSON that is not a
        completion), ``"empty_logprobs"`` (a completion whose ``logprobs.content`` is empty) and
        ``"html_502"`` (a proxy's HTML error page)."""
        if mode in ("cut_body", "slow_body"):
            reply = self.rating_reply(rec, logprobs=True)
            reply.cut = mode == "cut_body"
            reply.dribble = 2.0 if mode == "slow_body" else 0.0
            return reply
        if mode == "invalid_json":
            return Reply(200, b'{"id": "chatcmpl-cut", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assi')
        if mode == "wrong_shape":
            return Reply(200, json.dumps({"object": "list", "data": [{"id": "gpt-4o", "object": "model"}]}, indent=2))
        if mode == "empty_logprobs":
            reply = self.rating_reply(rec, logprobs=True)
            body = json.loads(reply.body)
            body["choices"][0]["logprobs"] = {"content": [], "refusal": None}
            reply.body = json.dumps(body, indent=2).encode()
            return reply
        if mode == "html_502":
            page = ("<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway"
                    "</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
            return Reply(502, page, content_type="text/html")
        return None

    def script_reply(self, rec, logprobs=True):
        return self._misconfigured("script (not supported by this fake)")

    def _misconfigured(self, mode):
        self.problems.append(f"unknown behaviour {mode!r}")
        return Reply(500, f"fake provider: unknown behaviour {mode!r}", content_type="text/plain")

    def _record(self, method, target, headers, raw):
        split = urlsplit(target)
        rec = {
            "method": method,
            "path": target,
            "route": split.path,
            "query": parse_qs(split.query, keep_blank_values=True),
            "headers": {k.lower(): v for k, v in headers.items()},
            "time": time.time(),
        }
        if method == "POST":
            try:
                body = json.loads(raw) if raw else {}
            except ValueError as e:
                body = {}
                rec["json_error"] = str(e)
            rec["body"] = body
            rec["raw"] = raw
            if is_explanation(body):
                kind = "explain"
            elif self.is_generation_route(split.path):
                kind = "rating"
            else:
                kind = "other"
            rec["kind"] = kind
            rec["criterion"] = criterion_of(body)
        with self.lock:
            if method == "POST":
                key = (rec["criterion"], rec["kind"])
                self._counts[key] = self._counts.get(key, 0) + 1
                rec["n"] = self._counts[key]
                self.requests.append(rec)
            elif method == "GET":
                self.get_requests.append(rec)
            elif method == "OPTIONS":
                self.preflights.append(rec)
            self.log.append(rec)
        return rec

    def _dispatch(self, method, rec):
        if method == "OPTIONS":
            return self.handle_options(rec)
        if method == "GET":
            return self.handle_get(rec)
        return self.handle_post(rec)


def _handler_for(fake):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def version_string(self):
            return fake.server_header

        def do_OPTIONS(self):
            self._serve("OPTIONS")

        def do_GET(self):
            self._serve("GET")

        def do_POST(self):
            self._serve("POST")

        def _serve(self, method):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            rec = fake._record(method, self.path, self.headers, raw)
            counted = method == "POST"
            if counted:
                with fake.lock:
                    fake.inflight += 1
                    fake.max_inflight = max(fake.max_inflight, fake.inflight)
            try:
                if counted and fake.delay:
                    fake._stopped.wait(fake.delay)
                if fake.stopped:
                    # A stopped server has died: requests on kept-alive connections, and those
                    # in flight, get their connection closed without an answer.
                    reply = HANG
                else:
                    reply = fake._dispatch(method, rec)
                if reply is HANG:
                    fake._stopped.wait(fake.hang_limit)
                    self.close_connection = True
                    try:
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    return
                self._send(reply, rec)
            finally:
                if counted:
                    with fake.lock:
                        fake.inflight -= 1

        def _send(self, reply, rec):
            headers = list(reply.headers)
            if fake.cors and reply.cors:
                headers += fake.cors_headers(rec, reply)
            if not fake.cors or not reply.cors:
                headers = [(k, v) for k, v in headers if not k.lower().startswith("access-control-")]
            self.send_response(reply.status, STATUS_TEXT.get(reply.status))
            if reply.content_type:
                self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(reply.body)))
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            if reply.cut:
                self.wfile.write(reply.body[: len(reply.body) // 2])
                self.wfile.flush()
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            elif reply.dribble and reply.body:
                step = max(1, len(reply.body) // 10)
                for i in range(0, len(reply.body), step):
                    self.wfile.write(reply.body[i:i + step])
                    self.wfile.flush()
                    fake._stopped.wait(reply.dribble / 10)
            elif reply.body:
                self.wfile.write(reply.body)

    return Handler
