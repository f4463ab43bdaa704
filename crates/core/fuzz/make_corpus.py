"""Writes the seed corpus of each fuzz target (crates/core/fuzz/corpus/<target>/), realistic inputs that the
mutations of crates/core/tests/fuzz_smoke.rs and cargo-fuzz start from. Run from the repository root;
the files are committed."""

import io
import json
import shutil
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fuzz" / "corpus"


def steps(*steps):
    """Steps in the harness format: token\\x01<byte>\\t<alt>\\x01<byte>..., one per line."""
    return "\n".join("\t".join(f"{t}\x01{chr(b)}" for t, b in step) for step in steps).encode("latin-1", "replace")


def openai(content, top):
    return json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o", "choices": [{
        "index": 0, "message": {"role": "assistant", "content": content},
        "logprobs": {"content": [{"token": t, "logprob": -0.1, "bytes": list(t.encode()),
                                  "top_logprobs": [{"token": a, "logprob": lp, "bytes": list(a.encode())} for a, lp in top]}
                                 for t in [content]]},
        "finish_reason": "stop"}], "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}}, indent=2)


CORPUS = {
    "response_parsers": {
        "openai.json": openai("4", [("4", -0.1), ("5", -2.5), ("3", -3.0)]),
        "openai_error.json": json.dumps({"error": {"message": "Incorrect API key provided: sk-***", "type": "invalid_request_error", "param": None, "code": "invalid_api_key"}}, indent=4),
        "gemini.json": json.dumps({"candidates": [{"content": {"parts": [{"text": "4"}], "role": "model"}, "finishReason": "STOP",
                                                   "logprobsResult": {"topCandidates": [{"candidates": [{"token": "4", "logProbability": -0.1}, {"token": "5", "logProbability": -2.4}]}],
                                                                      "chosenCandidates": [{"token": "4", "logProbability": -0.1}]}}],
                                   "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 1}}),
        "anthropic.json": json.dumps({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [{"type": "text", "text": "Rating: 4"}],
                                      "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 3}}),
        "models.json": json.dumps({"object": "list", "data": [{"id": "gpt-4o", "object": "model", "created": 1, "owned_by": "openai"}]}),
    },
    "rating": {
        "digit": steps([("4", 1), ("5", 25), ("3", 30)]),
        "prefixed": steps([("Rating", 1)], [(":", 0)], [(" 4", 2), (" 5", 12), ("4", 40)]),
        "bold": steps([("**", 0)], [("5", 3), ("4", 9)], [("**", 0)]),
        "text": b"The text is clear. Rating: 3",
    },
    "fleur_smoothing": {
        "per_digit": steps([("0", 1), ("1", 40)], [(".", 0)], [("8", 2), ("9", 8), ("7", 20)], [("5", 3), ("0", 9)]),
        "multi_digit": steps([("0", 1)], [(".", 0)], [("85", 2), ("80", 9), ("9", 20)]),
        "one": steps([("1", 2), ("0", 9)], [(".", 0)], [("0", 1)]),
    },
    "g_veval_extract": {
        "final": steps([("The final score is $", 0)], [("85", 2), ("90", 10), ("80", 12)], [("$", 0)]),
        "split": steps([("The final score is $", 0)], [("8", 2), ("9", 10)], [("5", 3)], [("$", 0)]),
        "accr": "Accuracy: α4α Completeness: β5β Conciseness: ψ3ψ Relevance: δ4δ".encode(),
    },
    "maev_trial": {
        "json": steps([('{"Evaluation Evidence": "matches the reference", "Assistant Score": ', 0)], [("2", 1), ("1", 20), ("0", 40)], [("}", 0)]),
        "plain": b"Evaluation Evidence: the answer invents a dog.\nAssistant Score: 0",
    },
    "dataset_import": {
        "rows.jsonl": "\n".join(json.dumps(r) for r in [
            {"id": "a", "task": "ic", "text": "A dog.", "image": "a.png", "human_overall": 4, "group": "g", "chosen": True},
            {"id": "b", "task": "vqa", "question": "What?", "text": "A cat.", "image": "b.png", "human": {"overall": [3, 4]}, "group": "g"},
            {"id": "c", "task": "reg", "text": "the left one", "image": "c.png", "box": [0.1, 0.1, 0.5, 0.5]},
        ]).encode(),
        "rows.csv": b'id,task,text,image,human_overall\n1,ic,"A dog, running.",a.png,4\n2,vdu,"He said ""yes""",b.png,2|3\n',
        "results.jsonl": json.dumps({"id": "a", "metric": "harmonic_eval", "task": "ic", "text": "t",
                                     "criteria": [{"name": "correctness", "score": 4.2, "sigma": 0.5, "distribution": [0, 0.1, 0.1, 0.3, 0.5]}],
                                     "human": {"overall": [4]}}).encode(),
    },
}


def main():
    for target, files in CORPUS.items():
        d = OUT / target
        d.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("images/a.png", b"\x89PNG\r\n\x1a\n" + bytes(40))
        z.writestr("b.txt", "hello " * 20)
    (OUT / "dataset_import" / "images.zip").write_bytes(archive.getvalue())
    d = OUT / "image_sniff"
    d.mkdir(parents=True, exist_ok=True)
    for f in ["animated.gif", "cmyk.jpg", "exif-rotated.jpg", "sixteen-bit.png", "zero-width.png", "drawing.svg", "report.pdf.png"]:
        shutil.copy(ROOT / "tests" / "fixtures" / "bad_inputs" / f, d / f)


if __name__ == "__main__":
    main()
