#!/usr/bin/env bash
# Sets up everything, builds the site (both pages) and serves dist/ at http://127.0.0.1:8000/
# (the batch lab at /lab/). Not `trunk serve`: its inline loader and live-reload script are
# refused by the page's Content-Security-Policy, and it would serve only the one-item page.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
port="${PORT:-8000}"
echo "serving dist/ at http://127.0.0.1:$port/ (Ctrl-C stops)"
exec python3 - "$port" <<'PY'
import functools, sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
SimpleHTTPRequestHandler.extensions_map[".wasm"] = "application/wasm"
SimpleHTTPRequestHandler.extensions_map[".js"] = "text/javascript"
handler = functools.partial(SimpleHTTPRequestHandler, directory="dist")
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()
PY
