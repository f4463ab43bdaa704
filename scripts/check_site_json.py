#!/usr/bin/env python3
"""Checks a site file (site.json) at build time with the rules the page applies when it loads
one (crates/core/src/files/site.rs, `site::parse`): one JSON object with only the known fields, a preset provider,
http(s) URLs, known metric ids, an example's file stem, and never a key. A key-like field name
(`key`, `api_key`, `apiKey`, `authorization`, `token`, `secret`, `password`, ...) anywhere in it,
or a key-like value (`sk-...`, `Bearer ...`, a URL with a user name or a `key=` parameter),
refuses it. The metric ids are the registry's (scripts/metric_list.py reads them from
crates/core/src/metrics/mod.rs); crates/core/src/files/site.rs's tests check that this file knows every preset and
metric id.

Usage: scripts/check_site_json.py FILE...   (exit 1 with one sentence per refused file)
As a module: `problem(text)` returns that sentence, or None when the file is valid."""

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import metric_list  # noqa: E402

PRESETS = ["openai", "gemini", "anthropic", "openrouter", "llama_server", "in_browser", "ollama", "vllm", "custom"]
METRICS = metric_list.ids()
FIELDS = ["title", "tagline", "judge", "metrics", "open_example", "lab", "isolation_worker"]
JUDGE_FIELDS = ["provider", "base_url", "model", "model_url", "projector_url"]
KEY_WORDS = ["key", "authorization", "auth", "token", "secret", "password", "passwd", "bearer", "credential", "cookie"]


class Refused(Exception):
    pass


def refuse(why):
    raise Refused(f"This site's site.json was not used ({why}); the page keeps its defaults.")


def key_like_name(name):
    n = re.sub(r"[^a-z0-9]", "", name.lower())
    return any(w in n for w in KEY_WORDS)


def key_like_value(s):
    t = s.strip()
    low = t.lower()
    if low.startswith(("sk-", "bearer ", "aiza")):
        return True
    if low.startswith(("http://", "https://")):
        host = re.split(r"[/?#]", t)[2] if len(re.split(r"[/?#]", t)) > 2 else ""
        if "@" in host:
            return True
        if "?" in t:
            query = t.split("?", 1)[1]
            return any(key_like_name(p.split("=")[0]) for p in re.split(r"[&#]", query))
    return False


def find_key(v, path=""):
    if isinstance(v, dict):
        for k, x in v.items():
            here = f"{path}.{k}" if path else k
            if key_like_name(k):
                return here
            found = find_key(x, here)
            if found is not None:
                return found
    elif isinstance(v, list):
        for i, x in enumerate(v):
            found = find_key(x, f"{path}[{i}]")
            if found is not None:
                return found
    elif isinstance(v, str) and key_like_value(v):
        return path
    return None


def only(m, known, within=""):
    for k in m:
        if k not in known:
            refuse(f'it has an unknown field "{within}{k}"; known: {", ".join(known)}')


def text(m, name, limit):
    v = m.get(name)
    if v is None:
        return None
    if not isinstance(v, str):
        refuse(f'"{name}" must be text')
    if len(v) > limit:
        refuse(f'"{name}" is longer than {limit} characters')
    return v.strip() or None


def is_http(u):
    return bool(re.match(r"(?i)https?://.", u))


def is_file_url(u):
    return is_http(u) or (u != "" and ":" not in u and not u.startswith("//") and not re.search(r"\s", u))


def check_judge(j):
    only(j, JUDGE_FIELDS, "judge.")
    provider = text(j, "provider", 2000)
    if provider is None:
        refuse('"judge" needs a "provider"')
    if provider not in PRESETS:
        refuse(f'"judge.provider" "{provider}" is not one of {", ".join(PRESETS)}')
    base, model_url, proj = (text(j, n, 2000) for n in ("base_url", "model_url", "projector_url"))
    text(j, "model", 2000)
    in_browser = provider == "in_browser"
    if base is not None and not is_http(base):
        refuse(f'"judge.base_url" "{base}" is not an http(s) URL')
    if in_browser and base is not None:
        refuse('"judge.base_url" does not apply to in_browser, whose judge runs in the page')
    if not in_browser and (model_url is not None or proj is not None):
        refuse('"judge.model_url" and "judge.projector_url" apply only to the provider in_browser')
    for name, u in (("model_url", model_url), ("projector_url", proj)):
        if u is not None and not is_file_url(u):
            refuse(f'"judge.{name}" "{u}" is neither an http(s) URL nor a path on this site')
    if proj is not None and model_url is None:
        refuse('"judge.projector_url" needs a "judge.model_url"')


def check_metrics(v):
    bad = f'"metrics" must be a non-empty list of metric ids ({", ".join(METRICS)})'
    if v is None:
        return
    if not isinstance(v, list) or not v:
        refuse(bad)
    seen = []
    for m in v:
        if not isinstance(m, str):
            refuse(bad)
        if m not in METRICS:
            refuse(f'"metrics" names "{m}", which is not one of {", ".join(METRICS)}')
        if m in seen:
            refuse(f'"metrics" names "{m}" twice')
        seen.append(m)


def problem(source):
    """The sentence that says why this site file is refused, or None."""
    try:
        try:
            v = json.loads(source)
        except ValueError as e:
            refuse(f"it is not valid JSON: {e}")
        at = find_key(v)
        if at is not None:
            refuse(f'it must never hold a key, and "{at}" looks like one: keep keys on your proxy\'s side')
        if not isinstance(v, dict):
            refuse("it must be one JSON object")
        only(v, FIELDS)
        judge = v.get("judge")
        if judge is not None and not isinstance(judge, dict):
            refuse('"judge" must be an object')
        if judge is not None:
            check_judge(judge)
        text(v, "title", 80)
        text(v, "tagline", 200)
        check_metrics(v.get("metrics"))
        ex = v.get("open_example")
        if ex is not None and not (isinstance(ex, str) and re.fullmatch(r"[A-Za-z0-9_-]{1,100}", ex)):
            refuse('"open_example" must be an example\'s file stem (letters, digits, - and _, such as gamma-flip-a '
                   'for examples/gamma-flip-a.json)')
        if v.get("lab") is not None and not isinstance(v.get("lab"), bool):
            refuse('"lab" must be true or false')
        if v.get("isolation_worker") is not None and not isinstance(v.get("isolation_worker"), bool):
            refuse('"isolation_worker" must be true or false')
    except Refused as e:
        return str(e)
    return None


if __name__ == "__main__":
    failed = False
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            p = problem(f.read())
        if p:
            print(f"{path}: {p}", file=sys.stderr)
            failed = True
        else:
            print(f"{path}: a valid site file")
    sys.exit(1 if failed else 0)
