#!/usr/bin/env python3
"""Checks that an editor follows the code into the wasm32-only modules (issue 59).

`src/ui/` and `src/web/` compile for wasm32 only (`src/lib.rs`), so rust-analyzer, which
analyses for the host by default, sees them as cfg'd out ("unlinked file"): go-to-definition
stops at the Evaluate button. `.vscode/settings.json` sets `rust-analyzer.cargo.target` to
wasm32 (a `rust-analyzer.toml` at the top was tried first: rust-analyzer 1.95 reads it but
fetches the workspace for the host all the same). This script starts rust-analyzer on a
checkout the way VS Code does with that file (its `rust-analyzer.*` settings as the
initialization options and as the answer to `workspace/configuration`, nothing else), waits
until it has loaded the project, and asks where the Evaluate button's click handler
(`crate::ui::metrics::evaluate` in `src/ui/evaluator/run_bar.rs`) is defined. It passes when the
answer is `src/ui/metrics/mod.rs`'s `pub fn evaluate`; `--without-settings` shows that without
the file there is no answer.

    scripts/check_editor.py [--without-settings] [CHECKOUT]   (default: this checkout; needs
                                     `rustup component add rust-analyzer` and the wasm32 target)

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

ARGS = [a for a in sys.argv[1:] if a != "--without-settings"]
WITH_SETTINGS = "--without-settings" not in sys.argv[1:]
ROOT = Path(ARGS[0] if ARGS else Path(__file__).resolve().parent.parent).resolve()
CALLER = ROOT / "src/ui/evaluator/run_bar.rs"
NEEDLE = "crate::ui::metrics::evaluate(state)"
WANT = ROOT / "src/ui/metrics/mod.rs"


def settings():
    """The checked-in editor settings' rust-analyzer section, nested as VS Code sends it
    ({"cargo": {"target": ...}} for "rust-analyzer.cargo.target")."""
    path = ROOT / ".vscode" / "settings.json"
    if not WITH_SETTINGS or not path.is_file():
        return {}
    out = {}
    for key, value in json.loads(path.read_text()).items():
        if key.startswith("rust-analyzer."):
            *parents, leaf = key.removeprefix("rust-analyzer.").split(".")
            node = out
            for p in parents:
                node = node.setdefault(p, {})
            node[leaf] = value
    return out


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
        elif method == "workspace/configuration":  # as VS Code answers: the checked-in settings
            self.send({"id": msg["id"], "result": [settings() for _ in msg["params"]["items"]]})
        elif "id" in msg and method:  # any other request from the server: answer it empty
            self.send({"id": msg["id"], "result": None})


def main():
    text = CALLER.read_text()
    line_no = next(i for i, l in enumerate(text.splitlines()) if NEEDLE in l)
    col = text.splitlines()[line_no].index(NEEDLE) + len("crate::ui::metrics::") + 2
    lsp = Lsp(server())
    start = time.monotonic()
    deadline = start + (900 if WITH_SETTINGS else 120)
    lsp.request("initialize", {
        "processId": os.getpid(), "rootUri": ROOT.as_uri(),
        "initializationOptions": settings(),
        "workspaceFolders": [{"uri": ROOT.as_uri(), "name": ROOT.name}],
        "capabilities": {"experimental": {"serverStatusNotification": True},
                         "textDocument": {"definition": {"linkSupport": False}}},
    }, deadline)
    lsp.send({"method": "initialized", "params": {}})
    lsp.send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": CALLER.as_uri(), "languageId": "rust", "version": 1, "text": text}}})
    while not lsp.quiescent and (msg := lsp.read(deadline)) is not None:
        lsp.handle(msg)
    print(f"rust-analyzer loaded the project in {time.monotonic() - start:.0f} s")
    found = None
    while time.monotonic() < deadline:
        answer = lsp.request("textDocument/definition", {
            "textDocument": {"uri": CALLER.as_uri()}, "position": {"line": line_no, "character": col}},
            min(deadline, time.monotonic() + 30))
        result = answer.get("result") or []
        result = [result] if isinstance(result, dict) else result
        if result:
            found = result[0]
            break
        time.sleep(2)
    lsp.p.kill()
    if not found:
        sys.exit(f"FAIL: rust-analyzer found no definition for the Evaluate button's handler "
                 f"({CALLER.relative_to(ROOT)}:{line_no + 1})")
    uri, line = found.get("uri") or found.get("targetUri"), (found.get("range") or found.get("targetRange"))["start"]["line"]
    where = Path(uri.removeprefix("file://"))
    defined = where.read_text().splitlines()[line]
    print(f"the Evaluate button's handler ({CALLER.relative_to(ROOT)}:{line_no + 1}) -> "
          f"{where.relative_to(ROOT) if where.is_relative_to(ROOT) else where}:{line + 1}: {defined.strip()}")
    if where != WANT or "fn evaluate" not in defined:
        sys.exit(f"FAIL: expected {WANT.relative_to(ROOT)}'s fn evaluate")
    print("ok")


if __name__ == "__main__":
    main()
