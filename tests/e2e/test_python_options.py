"""The Python package's options are declared once (issue 69): `plan` and `score` take the
binding's list (`_core.OPTIONS`, from crates/python/src/options.rs), `__init__.py`'s signatures
and `Options` show that list, `_core.pyi` says what the binding takes; γ's default and the rating
protocol's are the core's, and γ, the protocol and the image detail are checked by the core with
a sentence. Uses test_cli.py's `package` fixture (a fresh virtualenv with `pip install .`)."""

import ast
import json
import subprocess

from conftest import ROOT
from test_cli import make_dataset, package  # noqa: F401 (a fixture)

STUB = ROOT / "crates" / "python" / "harmonic_judge" / "_core.pyi"
REQUIRED = "(no default)"

# Run in the package's interpreter: what the binding and the Python layer say about themselves,
# and the sentences they raise.
PROBE = r"""
import inspect, json, sys, harmonic_judge as hj
from harmonic_judge import _core

def params(f):
    out = []
    for p in inspect.signature(f).parameters.values():
        if p.name == "self":
            continue
        default = None if p.default is inspect.Parameter.empty else p.default
        out.append([p.name, p.kind.name, repr(default), p.default is inspect.Parameter.empty])
    return out

def raised(call):
    try:
        call()
    except (ValueError, TypeError) as e:
        return [type(e).__name__, str(e)]
    return None

data = hj.Dataset(sys.argv[1], images=sys.argv[2])
empty = hj.Results.read_jsonl("")
print(json.dumps({
    "options": [[name, repr(default)] for name, default in _core.OPTIONS],
    "typed": list(hj.Options.__annotations__),
    "gamma_default": [hj.GAMMA_DEFAULT, _core.GAMMA_DEFAULT],
    "protocol_default": [hj.PROTOCOL_DEFAULT, _core.PROTOCOL_DEFAULT],
    "public": {"plan": params(hj.plan), "score": params(hj.score),
               "to_jsonl": params(hj.Results.to_jsonl), "overall": params(hj.Results.overall),
               "agreement": params(hj.Results.agreement)},
    "binding": {"plan": params(_core.plan), "score": params(_core.score),
                "to_jsonl": params(_core.Results.to_jsonl), "overall": params(_core.Results.overall),
                "agreement": params(_core.Results.agreement), "metrics": params(_core.metrics),
                "providers": params(_core.providers), "read_jsonl": params(_core.Results.read_jsonl),
                "read_file": params(_core.Results.read_file), "to_json": params(_core.Results.to_json)},
    "at_default": [empty.overall(), empty.to_jsonl(), hj.plan(data, provider="vllm").requests,
                   hj.plan(data, **{name: default for name, default in _core.OPTIONS},
                           ).requests],
    "refused": {
        "gamma": [raised(lambda g=g: empty.overall(g)) for g in (1.5, 0.0, float("nan"))],
        "gamma_agreement": raised(lambda: empty.agreement(gamma=-1)),
        "protocol": raised(lambda: empty.agreement(protocol="mean")),
        "detail": raised(lambda: hj.plan(data, provider="vllm", image_detail="max")),
        "detail_score": raised(lambda: hj.score(data, "", provider="vllm", image_detail="max")),
        "unknown": raised(lambda: hj.plan(data, provider="vllm", temperature=0)),
        "wrong_type": raised(lambda: hj.score(data, "", provider="vllm", max_tokens="many")),
    },
}))
"""


def stub_functions():
    """The stub's functions and methods: name -> [(parameter, kind, default or REQUIRED)]."""
    tree = ast.parse(STUB.read_text())
    out = {}

    def add(f):
        a = f.args
        positional = a.posonlyargs + a.args
        defaults = [REQUIRED] * (len(positional) - len(a.defaults)) + list(a.defaults)
        ps = [(p.arg, "POSITIONAL_OR_KEYWORD", d) for p, d in zip(positional, defaults) if p.arg != "self"]
        ps += [(p.arg, "KEYWORD_ONLY", REQUIRED if d is None else d) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
        if a.kwarg:
            ps.append((a.kwarg.arg, "VAR_KEYWORD", REQUIRED))
        out[f.name] = [(n, k, d if d is REQUIRED else ast.literal_eval(d)) for n, k, d in ps]

    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            add(node)
        elif isinstance(node, ast.ClassDef):
            for f in node.body:
                if isinstance(f, ast.FunctionDef) and not f.name.startswith("__"):
                    add(f)
    names = {t.target.id for t in tree.body if isinstance(t, ast.AnnAssign)}
    return out, names


def test_python_options_are_declared_once_and_every_layer_agrees(tmp_path, package):
    data, images = make_dataset(tmp_path, n=2)
    out = subprocess.run([str(package), "-c", PROBE, str(data), str(images)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    names = [n for n, _ in got["options"]]
    assert names[:2] == ["metric", "provider"] and "boxes_drawn" in names, names
    assert dict(got["options"])["provider"] == "'openai'", got["options"]

    # __init__.py: `Options` types every option, and plan's and score's keyword-only parameters
    # are the binding's list with its defaults.
    assert got["typed"] == names
    for f, fixed in (("plan", ["dataset"]), ("score", ["dataset", "answers"])):
        public = got["public"][f]
        assert [p[0] for p in public if p[1] != "KEYWORD_ONLY"] == fixed, public
        assert [[p[0], p[2]] for p in public if p[1] == "KEYWORD_ONLY"] == got["options"], public
        binding = got["binding"][f]
        assert [p[0] for p in binding] == fixed + ["options"] and binding[-1][1] == "VAR_KEYWORD", binding

    # γ's default and the protocol's are the core's; the wrappers' parameters are the binding's.
    assert got["gamma_default"] == [0.75, 0.75]
    assert got["protocol_default"] == ["repeated", "repeated"]
    for method in ("to_jsonl", "overall", "agreement"):
        assert [p[0] for p in got["public"][method]] == [p[0] for p in got["binding"][method]], method
    assert dict((p[0], p[2]) for p in got["public"]["agreement"]) == {
        "gamma": "0.75", "protocol": "'repeated'", "keep_partial": "False"}
    # At the defaults: the same as giving none.
    assert got["at_default"][0] == [] and got["at_default"][1] == ""
    assert got["at_default"][2] > 0 and got["at_default"][3] > 0, got["at_default"]

    # _core.pyi: every function and method the binding has, with its parameters and defaults,
    # and the constants the Python layer reads.
    stub, constants = stub_functions()
    assert {"OPTIONS", "GAMMA_DEFAULT", "PROTOCOL_DEFAULT"} <= constants, constants
    for name, params in got["binding"].items():
        assert name in stub, name
        said = [(p[0], p[1], REQUIRED if p[3] else ast.literal_eval(p[2])) for p in params]
        assert stub[name] == said, (name, stub[name], said)

    # The core's checks, with their sentences.
    refused = got["refused"]
    for r in refused["gamma"] + [refused["gamma_agreement"]]:
        assert r[0] == "ValueError" and r[1].startswith("\u03b3 is between 0.01 and 1, as on the lab's slider"), r
    assert refused["protocol"] == ["ValueError", "protocol is repeated or averaged, not \u201cmean\u201d."]
    detail = ["ValueError", "image_detail is auto, low or high, not \u201cmax\u201d."]
    assert refused["detail"] == detail and refused["detail_score"] == detail
    assert refused["unknown"][0] == "TypeError", refused["unknown"]
    assert "unexpected keyword argument \u2018temperature\u2019" in refused["unknown"][1], refused["unknown"]
    assert "metric, provider" in refused["unknown"][1], refused["unknown"]
    assert refused["wrong_type"][0] == "TypeError" and "max_tokens" in refused["wrong_type"][1], refused
