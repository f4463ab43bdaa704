"""``FakeLlamaServer`` imitates ``llama-server`` (OpenAI-compatible ``POST /v1/chat/completions``
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

Built on the shared ``FakeProvider`` of ``base.py`` (recording, in-flight counting, delay, CORS
switch, required key, behaviours per criterion, start/stop; see that module).
"""

import json
import math
import time
import zlib

from .base import (
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
