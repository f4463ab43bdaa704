#!/usr/bin/env python3
"""Runs the own-engine timing harness (build.sh) in a worker in each browser named, over the
SmolLM2 weights of the real-engine cache (build.sh links them into WEB_DIR): a 339-token
prompt and 32 generated tokens, one thread, the model fetched from loopback into the worker's
memory first. Prints one line per browser and quantization, each the median of `RUNS` runs.

    measure.py WEB_DIR chromium,firefox,webkit
"""

import re
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

import browsers  # noqa: E402

QUANTS = ("Q8_0", "Q4_1", "Q4_0", "Q4_K_M")
RUNS = 3
RUN_JS = """
const done = arguments[arguments.length - 1];
runBench(arguments[0], '339', '32').then(done, (e) => done('error ' + e));
"""


def main():
    web, names = Path(sys.argv[1]), sys.argv[2].split(",")
    site = browsers.Site(web)  # the suite's loopback server; build.sh links the weights in
    url = site.url + "index.html"
    display = browsers.Display()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name in names:
                d = browsers.start(name, Path(tmp) / name, display)
                d.set_script_timeout(600)
                try:
                    d.get(url)
                    for q in QUANTS:
                        got = []
                        for _ in range(RUNS):
                            line = d.execute_async_script(RUN_JS, f"{q}.gguf")
                            m = re.search(r"prompt \d+ tokens ([\d.]+) tok/s; generation \d+ tokens ([\d.]+)", line or "")
                            if not m:
                                raise SystemExit(f"{name} {q}: {line!r}")
                            got.append((float(m[1]), float(m[2])))
                        p = statistics.median(g[0] for g in got)
                        g = statistics.median(g[1] for g in got)
                        print(f"{browsers.version(d)}, {q}: prompt {p:.1f} tok/s, generation {g:.1f} tok/s", flush=True)
                finally:
                    d.quit()
    finally:
        display.stop()
        site.stop()


if __name__ == "__main__":
    main()
