#!/usr/bin/env bash
# Sets up everything, builds the site (both pages) and serves dist/ at http://127.0.0.1:8000/
# (the batch lab at /lab/). For live rebuilds of the one-item page while editing, run
# `trunk serve --release --offline` instead (it serves only that page).
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
