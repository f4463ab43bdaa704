"""The real engine as the suite starts it: llama.cpp's llama-server (scripts/real_engine.sh
builds it) with SmolLM2-135M-Instruct on a free loopback port.

One place says how it starts (SUITE_FLAGS), so the fixtures, scripts/record_examples.py and
scripts/real_engine.sh's probe after a build all start the same server. A server that dies or
never answers raises EngineDied with one line that says why: the signal's name and, for SIGILL,
that the binary uses instructions this machine does not allow, then the last lines of its log.

Run as a script, it is the probe: `python3 tests/e2e/engine.py probe ENGINE_DIR` starts the
server with the suite's flags and no other, asks /health and one chat completion with logprobs,
and exits 0 only when both answer (only the standard library, so it runs before any venv)."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
ALIAS = "smollm2-135m"
# What every test server gets, and nothing else: a build that needs an extra flag to run here
# (say --no-repack) is a build the suite must not accept.
# Two threads, or one in each of the full run's parallel workers (pytest-xdist sets
# PYTEST_XDIST_WORKER; HJ_ENGINE_THREADS overrides): llama.cpp's threads wait for each other by
# spinning, and two servers of two threads beside a browser on two cores made the real engine's
# tests 3-5 times slower. A matrix row is computed by one thread either way: the numbers do not
# change.
THREADS = os.environ.get("HJ_ENGINE_THREADS") or ("1" if os.environ.get("PYTEST_XDIST_WORKER") else "2")
SUITE_FLAGS = ("-t", THREADS, "-c", "8192", "-np", "2")

_WHY = {
    signal.SIGILL: "the CPU advertises instructions this machine does not allow; rebuild the engine "
                   "portable (scripts/real_engine.sh does, keyed by its instruction set)",
    signal.SIGSEGV: "it crashed (a segmentation fault)",
    signal.SIGBUS: "it crashed (a bus error: a file it mapped was cut short?)",
    signal.SIGKILL: "it was killed (out of memory?)",
    signal.SIGABRT: "it aborted (an assertion in llama.cpp; see its log)",
}


class EngineDied(RuntimeError):
    """The engine could not serve; str() is the one line that says why."""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log_tail(path, lines=3):
    """The last non-empty lines of a server log, joined with ' | ' to keep the reason one line."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return ""
    kept = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
    return " | ".join(kept)


def exit_reason(returncode):
    """How a process ended, in words: 'SIGILL (the CPU advertises ...)' or 'exit status 1'."""
    if returncode is None:
        return "still running"
    # Popen reports a signal as -N; a shell that ran the binary reports 128+N.
    signum = -returncode if returncode < 0 else returncode - 128 if returncode > 128 else None
    if signum:
        try:
            sig = signal.Signals(signum)
        except ValueError:
            return f"signal {signum}"
        why = _WHY.get(sig)
        return f"{sig.name}: {why}" if why else sig.name
    return f"exit status {returncode}"


class RealLlamaServer:
    """A real llama-server on a free loopback port. With `vision`, it loads the random-weight
    projector so images take llama.cpp's real image path. `binary` replaces bin/llama-server
    (the tests of the one-line reason use it); `model` and `projector` replace the suite's
    SmolLM2 and its projector (test_vision_model.py loads the SmolVLM-256M-shaped files)."""

    def __init__(self, engine_dir, vision, extra=(), binary=None, ready_within=60.0, model=None,
                 projector=None):
        engine_dir = Path(engine_dir)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        args = [
            str(binary or engine_dir / "bin" / "llama-server"),
            "-m", str(model or engine_dir / MODEL_FILE),
            "--alias", ALIAS,
            "--host", "127.0.0.1", "--port", str(self.port),
            *SUITE_FLAGS,
            *extra,
        ]
        if projector:
            args += ["--mmproj", str(projector)]
        elif vision:
            args += ["--mmproj", str(engine_dir / "projector.gguf")]
        self.log_path = engine_dir / f"server-{self.port}.log"
        self.log = open(self.log_path, "wb")
        try:
            self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        except OSError as e:
            self.log.close()
            raise EngineDied(f"llama-server could not start: {e}") from None
        end = time.time() + ready_within
        while time.time() < end:
            if self.proc.poll() is not None:
                self._died(f"llama-server died at start-up, {exit_reason(self.proc.returncode)}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1) as r:
                    if b'"ok"' in r.read():
                        return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        self._died(f"llama-server did not become ready within {ready_within:.0f} s")

    def _died(self, head):
        self.log.close()
        tail = log_tail(self.log_path)
        raise EngineDied(f"{head}. Its log ({self.log_path}) ends: {tail or '(empty)'}")

    def chat(self, content="Rate this caption from 1 to 5: a dog on grass.", timeout=120, **extra):
        """One chat completion with logprobs, as the app asks: (HTTP status, JSON body), an
        error status with llama-server's error body. A server that dies on it raises EngineDied
        with the reason."""
        body = {"model": ALIAS, "messages": [{"role": "user", "content": content}], "max_tokens": 4,
                "temperature": 0, "logprobs": True, "top_logprobs": 5, **extra}
        req = urllib.request.Request(self.url + "/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")
        except OSError as e:
            time.sleep(0.5)
            if self.proc.poll() is not None:
                self._died(f"llama-server died on a chat completion, {exit_reason(self.proc.returncode)}")
            raise EngineDied(f"a chat completion failed: {e}") from None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if not self.log.closed:
            self.log.close()


def probe(engine_dir):
    """Start as the suite does, ask /health and one completion with logprobs: None when the
    engine serves, else the one-line reason."""
    try:
        server = RealLlamaServer(engine_dir, vision=False)
    except EngineDied as e:
        return str(e)
    try:
        status, body = server.chat()
        steps = (body.get("choices") or [{}])[0].get("logprobs", {}).get("content") or []
        if status != 200 or not steps:
            return f"a chat completion with logprobs answered {status} without token logprobs"
        return None
    except EngineDied as e:
        return str(e)
    finally:
        server.stop()
        server.log_path.unlink(missing_ok=True)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "probe":
        sys.exit("usage: engine.py probe ENGINE_DIR")
    reason = probe(sys.argv[2])
    if reason:
        print(reason, file=sys.stderr)
        sys.exit(1)
    print("llama-server serves with the suite's flags: /health ok, a completion with logprobs 200", file=sys.stderr)
