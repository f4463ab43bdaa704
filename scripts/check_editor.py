#!/usr/bin/env python3
"""Checks that an editor follows the code through every package of the workspace, from the
repository's root, with no settings at all (issues 59 and 69).

The page's package compiles for the host as well as for wasm32 (src/lib.rs), so rust-analyzer,
which analyses for the host, sees `src/ui/` and `src/web/` as linked code; the core
(crates/core) and `hj` (crates/hj) are plain host crates. (Before the workspace, the page's code
was wasm32-only and a `.vscode/settings.json` had to switch the whole crate to wasm32, which hid
the native half from the editor.) This script starts rust-analyzer on a checkout as an editor
does with no configuration, waits until it has loaded the workspace, and asks where each of a
few calls is defined: one in the page, one from the page into the core (through the page's
re-export), one inside the core and one from `hj` into the core. It passes when every answer is
the expected file's definition.

    scripts/check_editor.py [CHECKOUT]   (default: this checkout; needs
                                          `rustup component add rust-analyzer`)

About a minute on 2 cores (proc macros are built first). HJ_VERBOSE=1 prints what the server says.
"""

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent).resolve()

# (the calling file, the text of the call, the name asked about in it, the file it must lead to,
# the text its definition's line holds)
PROBES = [
    ("src/ui/evaluator/run_bar.rs", "crate::ui::metrics::evaluate(state)", "evaluate",
     "src/ui/metrics/mod.rs", "fn evaluate"),
    ("src/ui/evaluator/open_result.rs", "crate::metrics::Metric::from_id(", "from_id",
     "crates/core/src/metrics/mod.rs", "fn from_id"),
    ("crates/core/src/lab/overall.rs", "use crate::scoring::weighting::Weighting;", "Weighting",
     "crates/core/src/scoring/weighting.rs", "Weighting"),
    ("crates/hj/src/report.rs", "use harmonic_judge_core::metrics::Metric;", "Metric",
     "crates/core/src/metrics/mod.rs", "enum Metric"),
]


def server():
    exe = shutil.which("rust-analyzer")
    if exe is None:
        sys.exit("rust-analyzer is not installed: rustup component add rust-analyzer")
    probe = subprocess.run([exe, "--version"], capture_output=True, text=True)
    if probe.returncode != 0:
        sys.exit("rust-analyzer is not installed: rustup component add rust-analyzer\n" + probe.stderr)
    return subprocess.Popen([exe], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)


class Lsp:
    """A minimal LSP client: a thread reads the server's messages into a queue, so that a
    request the server leaves unanswered (as rust-analyzer does for a file it does not link)
    runs into a deadline instead of blocking."""

    def __init__(self, proc):
        self.p, self.next_id = proc, 0
        self.quiescent = False
        self.inbox = queue.Queue()
        threading.Thread(target=self.reader, daemon=True).start()

    def reader(self):
        while True:
            length = 0
            while True:
                line = self.p.stdout.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            self.inbox.put(json.loads(self.p.stdout.read(length)))

    def send(self, msg):
        body = json.dumps({"jsonrpc": "2.0", **msg}).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def read(self, deadline):
        """The next message, or None once `deadline` (time.monotonic()) has passed."""
        try:
            msg = self.inbox.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            return None
        if msg is None:
            sys.exit("rust-analyzer exited")
        return msg

    def request(self, method, params, deadline):
        self.next_id += 1
        rid = self.next_id
        self.send({"id": rid, "method": method, "params": params})
        while (msg := self.read(deadline)) is not None:
            if msg.get("id") == rid and "method" not in msg:
                return msg
            self.handle(msg)
        return {}

    def handle(self, msg):
        method = msg.get("method")
        if os.environ.get("HJ_VERBOSE") and method:
            print("<-", method, json.dumps(msg.get("params"))[:300], flush=True)
        if method == "experimental/serverStatus":
            self.quiescent = msg["params"].get("quiescent", False)
        elif method == "workspace/configuration":  # no settings: every item empty
            self.send({"id": msg["id"], "result": [{} for _ in msg["params"]["items"]]})
        elif "id" in msg and method:  # any other request from the server: answer it empty
            self.send({"id": msg["id"], "result": None})


def definition(lsp, path, line_no, col, deadline):
    """The first definition rust-analyzer gives for (line_no, col) in `path`, asking again while
    it is still indexing; None at the deadline."""
    while time.monotonic() < deadline:
        answer = lsp.request("textDocument/definition", {
            "textDocument": {"uri": path.as_uri()}, "position": {"line": line_no, "character": col}},
            min(deadline, time.monotonic() + 30))
        result = answer.get("result") or []
        result = [result] if isinstance(result, dict) else result
        if result:
            return result[0]
        time.sleep(2)
    return None


def main():
    lsp = Lsp(server())
    start = time.monotonic()
    deadline = start + 900
    lsp.request("initialize", {
        "processId": os.getpid(), "rootUri": ROOT.as_uri(), "initializationOptions": {},
        "workspaceFolders": [{"uri": ROOT.as_uri(), "name": ROOT.name}],
        "capabilities": {"experimental": {"serverStatusNotification": True},
                         "textDocument": {"definition": {"linkSupport": False}}},
    }, deadline)
    lsp.send({"method": "initialized", "params": {}})
    for rel, *_ in PROBES:
        path = ROOT / rel
        lsp.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": path.as_uri(), "languageId": "rust", "version": 1, "text": path.read_text()}}})
    while not lsp.quiescent and (msg := lsp.read(deadline)) is not None:
        lsp.handle(msg)
    print(f"rust-analyzer loaded the workspace in {time.monotonic() - start:.0f} s")
    failed = []
    for rel, needle, name, want, want_text in PROBES:
        path = ROOT / rel
        lines = path.read_text().splitlines()
        hit = [i for i, l in enumerate(lines) if needle in l]
        if not hit:
            failed.append(f"{rel}: the call `{needle}` is not there any more (update PROBES)")
            continue
        line_no = hit[0]
        col = lines[line_no].index(needle) + needle.index(name) + 1
        found = definition(lsp, path, line_no, col, deadline)
        if not found:
            failed.append(f"{rel}:{line_no + 1}: no definition for `{name}`")
            continue
        uri = found.get("uri") or found.get("targetUri")
        line = (found.get("range") or found.get("targetRange"))["start"]["line"]
        where = Path(uri.removeprefix("file://")).resolve()
        defined = where.read_text().splitlines()[line]
        shown = where.relative_to(ROOT) if where.is_relative_to(ROOT) else where
        print(f"{rel}:{line_no + 1} `{name}` -> {shown}:{line + 1}: {defined.strip()}")
        if where != (ROOT / want).resolve() or want_text not in defined:
            failed.append(f"{rel}:{line_no + 1}: `{name}` led to {shown}:{line + 1}, not {want}'s {want_text}")
    lsp.p.kill()
    if failed:
        sys.exit("FAIL:\n  " + "\n  ".join(failed))
    print("ok")


if __name__ == "__main__":
    main()
