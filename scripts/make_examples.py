#!/usr/bin/env python3
"""Writes the constructed examples of the gallery into public/examples/ (one result file each,
in the evaluator's export format plus `image`, `explanations`, `source` and `title`).

Constructed means: the distributions were chosen by hand to illustrate something (each file's
`source` says so); nothing here was answered by a model. Recorded examples are exports of real
runs, dropped into the same folder (docs/user-guide.md, "Examples"). The image is a small JPEG drawn with
ffmpeg (Debian), so the files need nothing else.

Usage: scripts/make_examples.py"""

import base64
import json
import subprocess
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "public" / "examples"
CRITERIA = ["correctness", "completeness", "clarity", "fluency", "conciseness"]
CONSTRUCTED = ("Constructed for illustration: these probabilities were chosen by hand to show {what}; "
               "no model was asked.")


def thumbnail():
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "t.jpg"
        subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=0x87ceeb:s=160x120",
                        "-vf", "drawbox=x=20:y=30:w=56:h=56:color=red:t=fill,drawbox=x=96:y=40:w=40:h=40:color=yellow:t=fill",
                        "-frames:v", "1", "-q:v", "4", str(out)], check=True)
        return "data:image/jpeg;base64," + base64.b64encode(out.read_bytes()).decode()


def criterion(name, p, coverage):
    score = sum((i + 1) * x for i, x in enumerate(p))
    sigma = sum(((i + 1) - score) ** 2 * x for i, x in enumerate(p)) ** 0.5
    return {"name": name, "distribution": p, "score": round(score, 12), "sigma": sigma, "coverage": coverage,
            "smoothed": True, "answer": f"Rating: {max(range(5), key=lambda i: p[i]) + 1}"}


def harmonic(title, text, dists, explanations, what, image):
    return {
        "title": title, "metric": "harmonic_eval", "gamma": 0.75, "task": "ic", "text": text, "question": "",
        "provider": "openai", "model": "(none: constructed)", "base_url": "", "fidelity": "paper", "extensions": [],
        "settings": {"temperature": 0.0, "top_logprobs": 20, "max_tokens": 1, "image_detail": "auto", "criteria": CRITERIA},
        "criteria": [criterion(c, p, 0.97) for c, p in zip(CRITERIA, dists)],
        "image": image, "explanations": dict(zip(CRITERIA, explanations)), "source": CONSTRUCTED.format(what=what),
    }


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    img = thumbnail()
    flip = "how γ changes which of two texts ranks first (open both and move γ)"
    files = {
        # Sure of one excellent criterion, unsure of the rest: first when γ is small (selective),
        # second when γ = 1 (uniform).
        "gamma-flip-a": harmonic(
            "γ flip, text A: confident on one criterion", "A red square and a yellow square on a blue background.",
            [[0.0, 0.0, 0.0, 0.05, 0.95], [0.2, 0.2, 0.2, 0.2, 0.2], [0.25, 0.15, 0.2, 0.15, 0.25],
             [0.1, 0.3, 0.2, 0.2, 0.2], [0.3, 0.2, 0.1, 0.2, 0.2]],
            ["Both squares and the blue background are named; nothing is wrong.",
             "The judge is unsure whether sizes and positions should be mentioned.",
             "Unclear to the judge whether 'on a blue background' is precise enough.",
             "The judge spreads its vote: the sentence is plain but short.",
             "The judge is torn between 'just right' and 'too terse'."], flip, img),
        # Good everywhere with moderate certainty: the same score at every γ, roughly.
        "gamma-flip-b": harmonic(
            "γ flip, text B: good on every criterion", "Two squares, one red and one yellow, float on a light blue background.",
            [[0.0, 0.0, 0.1, 0.6, 0.3], [0.0, 0.0, 0.1, 0.6, 0.3], [0.0, 0.0, 0.1, 0.6, 0.3],
             [0.0, 0.0, 0.1, 0.6, 0.3], [0.0, 0.0, 0.2, 0.6, 0.2]],
            ["Correct, though 'float' reads a little more into the picture than is there.",
             "Colours, count and background are all there.", "Easy to follow.", "Natural English.",
             "No word is wasted."], flip, img),
    }
    # Several candidates compared (issue 21): A and B above and a terse C, as one comparison
    # that opens in candidates mode (each candidate's result is its own export).
    c = harmonic("", "Two squares.",
                 [[0.0, 0.0, 0.2, 0.6, 0.2], [0.1, 0.5, 0.3, 0.1, 0.0], [0.0, 0.0, 0.3, 0.5, 0.2],
                  [0.0, 0.0, 0.1, 0.5, 0.4], [0.0, 0.0, 0.1, 0.3, 0.6]], [""] * 5, "", img)

    def candidate(label, doc):
        result = {k: v for k, v in doc.items() if k not in ("title", "image", "source", "explanations")}
        return {"label": label, "text": doc["text"], "result": result}

    files["compare-constructed"] = {
        "title": "Compare: three captions of one image, ranked as γ moves", "metric": "harmonic_eval",
        "kind": "candidates", "gamma": 0.75, "chosen": None, "image": img,
        "candidates": [candidate("A", files["gamma-flip-a"]), candidate("B", files["gamma-flip-b"]), candidate("C", c)],
        "source": CONSTRUCTED.format(what="several captions compared: the ranking, the γ where it changes, "
                                          "and whether the metric agrees with your pick (mark one)")}
    opened = "what this metric's result looks like when opened (no γ here: one score)"
    base = {"provider": "openai", "model": "(none: constructed)", "fidelity": "paper", "extensions": [], "image": img}
    files["fleur-constructed"] = {
        **base, "title": "FLEUR: a score from 0 to 1", "metric": "fleur", "caption": "A red square and a yellow square on a blue background.",
        "settings": {}, "printed": "0.8", "raw_score": 0.8, "smoothed_score": 0.784, "scheme": "per_digit",
        # FLEUR's smoothing: 0.1 · Σ i·p(i) at the tenths step = 0.1 · (7·0.16 + 8·0.84) = 0.784.
        "places": [{"place": "tenths", "step": 2, "token": "8",
                    "digits": [0, 0, 0, 0, 0, 0, 0, 0.16, 0.84, 0]}],
        "answer": "0.8",
        "explanation": "Both squares and their colours are right; the background is named.",
        "source": CONSTRUCTED.format(what=opened)}
    files["g-veval-constructed"] = {
        **base, "title": "G-VEval: a score from 0 to 100", "metric": "g_veval", "medium": "image", "mode": "ref_free", "accr": False,
        "caption": "A red square and a yellow square on a blue background.", "references": [], "settings": {},
        # The expectation over the score tokens: 80·0.3 + 85·0.7 = 83.5.
        "score": 83.5, "method": "integer_tokens",
        "final_score": {"printed": 85, "score": 83.5, "method": "integer_tokens", "distribution": [[80, 0.3], [85, 0.7]]},
        "reasoning": "The caption names both squares and the background correctly; it says nothing about their sizes. Final score: 85",
        "source": CONSTRUCTED.format(what=opened)}
    shots = [{"score": 0, "question": "Describe the emotion conveyed in the painting.",
               "assistant": "The painting, with its bright reds and yellows, depicts a sense of intense passion and joy."},
              {"score": 2, "question": "What's the mood in the picture?",
               "assistant": "The photo captures a joyful day, sunshine illuminating the park, while individuals\nenjoy picnics and games in the warmth."}]
    files["maev-constructed"] = {
        **base, "title": "MAEV: is an answer about the image accurate?", "metric": "maev",
        "question": "What colour is the square on the left?", "caption": "A red square and a yellow square on a blue background.",
        "reference_answer": "Red.", "answer": "The square on the left is green.", "seed": 1, "threshold": 1.25,
        # Each trial with the two few-shot examples it was shown (from the paper's pool).
        "trials": [{"examples": shots, "evidence": "The reference says red; the answer says green.",
                    "printed": 1, "score": 1.0, "source": "printed"},
                   {"examples": shots, "evidence": "Green contradicts the image, which shows a red square on the left.",
                    "printed": 1, "score": 1.0, "source": "printed"}],
        "mean": 1.0, "verdict": "hallucination", "source": CONSTRUCTED.format(what=opened)}
    for name, doc in files.items():
        (OUT / f"{name}.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {OUT / name}.json")


if __name__ == "__main__":
    main()
