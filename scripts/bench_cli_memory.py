"""Peak memory of ``hj plan`` and ``hj score`` against the dataset's size (issue 68).

Datasets of N items sharing one image (1 MB of incompressible PNG), and a batch's answers to
every planned request, are written to a temporary folder; each command runs alone and its peak
resident memory is the kernel's ``ru_maxrss`` for that one child (``os.wait4``). The baseline of
each row is the same command at the smallest N, in the same run, so a ratio near 1 means memory
flat in the item count.

* ``hj plan --provider openai``: refused before writing at 100,000 items (OpenAI's 50,000
  requests, counted first); at 1,000 and 10,000 it writes until the file would pass OpenAI's
  200 MB and is refused there. Held to 200 MB at 100,000 items (issue 68's budget).
* ``hj plan --provider vllm``: no limit, so it writes the whole file, about 2.8 MB per item with
  the 1 MB image (it goes with some of each item's five requests): 100 and 1,000 items only;
  10,000 and 100,000 would write about 28 and 280 GB.
* ``hj score``: every answer read against the plan, a results line per item: its results are
  the work, so its memory grows with the items; printed per item.

The full run builds ``hj`` optimised (opt-level 2, no LTO: the Python package's profile) into
``target/bench``, a couple of minutes the first time; the page's release profile (size first,
LTO) is not what is measured. ``--smoke`` (CI) uses the debug ``hj`` the tests built, a 1 KB
image and 100 and 1,000 items: a check that the rows are made, a few seconds, not the figures.
"""

import json
import os
import struct
import subprocess
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def build_hj(smoke):
    """The hj binary measured, and how it was built."""
    if smoke:
        subprocess.run(["cargo", "build", "--quiet", "--locked", "-p", "hj"], cwd=ROOT, check=True)
        return ROOT / "target" / "debug" / "hj", "debug"
    subprocess.run(["cargo", "build", "--quiet", "--locked", "--profile", "native", "-p", "hj"],
                   cwd=ROOT, check=True)
    return ROOT / "target" / "native" / "hj", "the native profile (opt-level 2)"


def png(width, height):
    """An RGB PNG of random pixels stored uncompressed: about width × height × 3 bytes."""
    rows = b"".join(b"\x00" + os.urandom(width * 3) for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 0)) + chunk(b"IEND", b"")


def dataset(folder, n):
    path = folder / f"d{n}.jsonl"
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"i{i}", "task": "ic", "text": f"Caption {i}: a dog runs on grass.",
                                "image": "p.png"}) + "\n")
    return path


def answers(folder, n, slots):
    """A batch's output answering every planned request (`slots`: one item's, in plan order)."""
    path = folder / f"a{n}.jsonl"
    with open(path, "w") as f:
        for i in range(n):
            for k, slot in enumerate(slots):
                r = str(1 + (i + k) % 5)
                body = {"model": "judge", "choices": [{"index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": r},
                        "logprobs": {"content": [{"token": r, "logprob": -0.105, "top_logprobs": [
                            {"token": r, "logprob": -0.105}, {"token": "2", "logprob": -2.3}]}]}}]}
                f.write(json.dumps({"custom_id": f"{i}:{slot}", "response": {"status_code": 200, "body": body},
                                    "error": None}) + "\n")
    return path


def peak(cmd, folder):
    """Runs `cmd` alone: (exit status, seconds, peak resident memory in MB, its last words).

    Through GNU time where there is one: Linux starts a child's ``ru_maxrss`` at its parent's
    (the high-water mark survives ``exec``), so a child of this Python would never read below
    Python's own; GNU time's child is forked from a process of a megabyte or two. Without it,
    ``os.wait4``'s figure, which has this Python's resident size as its floor."""
    err_path, rss_path = folder / "stderr.txt", folder / "rss.txt"
    timed = [TIME, "-f", "%M", "-o", str(rss_path)] if TIME else []
    with open(err_path, "w") as err:
        start = time.perf_counter()
        p = subprocess.Popen(timed + [str(c) for c in cmd], stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        seconds = time.perf_counter() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    kb = usage.ru_maxrss
    if TIME:
        # GNU time writes "Command exited with non-zero status N" first when it did.
        kb = int(rss_path.read_text().split()[-1])
    words = err_path.read_text(errors="replace").strip().splitlines()
    return p.returncode, seconds, kb / 1024, (words[-1] if words else "")


def outcome(code, words, out):
    if code == 0 and out.exists():
        return f"wrote {out.stat().st_size / 2**20:,.0f} MB"
    if "at most 50000" in words:
        return "refused: over 50,000 requests"
    if "over 200 MB" in words:
        return "refused: file over 200 MB"
    return f"exit {code}: {words[:80]}"


def report(Row, smoke):
    hj, build = build_hj(smoke)
    sizes = (100, 1_000) if smoke else (1_000, 10_000, 100_000)
    vllm_sizes = (100, 1_000)
    image = png(16, 20) if smoke else png(600, 580)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "p.png").write_bytes(image)
        label = f"{len(image) / 2**20:.1f} MB image" if len(image) > 2**20 * 0.9 else f"{len(image) // 1024} KB image"
        print(f"hj's peak memory ({build} build, one {label} shared by every item):")
        sets = {n: dataset(folder, n) for n in sorted(set(sizes) | set(vllm_sizes))}
        out = folder / "requests.jsonl"

        def plan(provider, n):
            if out.exists():
                out.unlink()
            code, s, mb, words = peak([hj, "plan", sets[n], "--provider", provider, "--out", out], folder)
            said = outcome(code, words, out)
            if out.exists():
                out.unlink()
            print(f"  hj plan --provider {provider}, {n:,} items: {mb:.1f} MB peak, {s:.1f} s, {said}")
            return mb

        rows = [("openai", sizes), ("vllm", vllm_sizes)]
        for provider, ns in rows:
            base = None
            for n in ns:
                mb = plan(provider, n)
                base = base or mb
                budget = "< 200 MB" if n == 100_000 else None
                Row(f"hj plan {provider}, {n:,} items ({build}): peak", round(mb, 1), "MB",
                    baseline=round(base, 1), ratio=mb / base, budget=budget,
                    ok=None if budget is None else mb < 200)
        # One item's slots, as the plan names them.
        code, _, _, words = peak([hj, "plan", dataset(folder, 1), "--provider", "vllm", "--out", out], folder)
        assert code == 0, words
        with open(out) as f:
            slots = [json.loads(line)["custom_id"].split(":", 1)[1] for line in f]
        out.unlink()
        base = None
        for n in sizes:
            given = answers(folder, n, slots)
            results = folder / "results.jsonl"
            code, s, mb, words = peak([hj, "score", sets[n], given, "--provider", "vllm", "--out", results], folder)
            assert code == 0 and results.exists(), words
            per_item = (mb - (base or mb)) * 2**20 / (n - sizes[0]) if base else None
            print(f"  hj score, {n:,} items ({given.stat().st_size / 2**20:,.0f} MB of answers): {mb:.1f} MB peak, "
                  f"{s:.1f} s" + (f", {per_item / 1024:.1f} KB more per item" if per_item else ""))
            base = base or mb
            Row(f"hj score, {n:,} items ({build}): peak", round(mb, 1), "MB", baseline=round(base, 1),
                ratio=mb / base)
            given.unlink()
            results.unlink()
        if not smoke:
            print("  (hj plan --provider vllm at 10,000 and 100,000 items would write about "
                  "28 and 280 GB with this image: not run.)")


if __name__ == "__main__":
    import argparse
    import sys

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "scripts"))

    class Row:
        def __init__(self, name, value, unit, baseline=None, ratio=None, budget=None, ok=None):
            verdict = "" if ok is None else (" pass" if ok else " MISS")
            print(f"{name:<52} {value:>10} {unit} (baseline {baseline}, ratio {ratio:.2f}) {budget or ''}{verdict}")

    report(Row, args.smoke)
