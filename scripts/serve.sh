#!/usr/bin/env bash
# Sets up everything, builds the site (both pages) and serves dist/ at http://127.0.0.1:8000/
# as soon as it is built
# (the batch lab at /lab/). Not `trunk serve`: its inline loader and live-reload script are
# refused by the page's Content-Security-Policy, and it would serve only the one-item page.
# It sends COOP and COEP, so the page is cross-origin isolated and the in-browser judge
# (llama.cpp in WebAssembly) runs multi-threaded. COEP is `credentialless`, not `require-corp`,
# so model URLs and judge endpoints need CORS (they do anyway) but no CORP header. Safari
# (WebKit) does not support `credentialless`: `COEP=require-corp scripts/serve.sh` sends
# `require-corp` (and CORP on its own files) instead, which isolates the page there too, but
# then every model URL on another origin must send `Cross-Origin-Resource-Policy: cross-origin`.
# It refuses other sites' frames (`frame-ancestors 'self'`: the page has a key field) except for
# the embed (embed.html, or any page with ?embed), which is made to be framed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The page first: our own llama.cpp build for the in-page judge (about 10 minutes the first
# time on 2 cores) is built beside the running server, then added to dist/; until then the
# in-page judge runs wllama's Memory32 build, and its panel says so (issue 59).
HJ_ENGINE_LATER=1 scripts/build.sh
if [[ ! -f dist/wllama/own/engine.wasm ]]; then
  log=.tools/own_engine.log
  echo "building our own llama.cpp for the in-page judge beside the server (log: $log)"
  ( if own=$(scripts/own_engine.sh 2>"$log"); then
      scripts/finish_dist.py --own-engine "$own" dist dist/lab >>"$log" \
        && echo "our own llama.cpp build is in dist/: the in-page judge runs it from its next model load"
    else
      echo "our own llama.cpp build failed (see $log): the in-page judge keeps wllama's build"
    fi ) &
fi
port="${PORT:-8000}"
echo "serving dist/ at http://127.0.0.1:$port/ (Ctrl-C stops)"
coep="${COEP:-credentialless}"
case "$coep" in credentialless|require-corp) ;; *) echo "COEP must be credentialless or require-corp" >&2; exit 2;; esac
exec python3 - "$port" "$coep" <<'PY'
import functools, sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
SimpleHTTPRequestHandler.extensions_map[".wasm"] = "application/wasm"
SimpleHTTPRequestHandler.extensions_map[".js"] = "text/javascript"
class Isolated(SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", sys.argv[2])
        path, _, query = self.path.partition("?")
        embed = path.endswith("/embed.html") or "embed" in query.split("&")
        self.send_header("Cross-Origin-Resource-Policy", "cross-origin" if embed else "same-origin")
        if not embed:
            self.send_header("Content-Security-Policy", "frame-ancestors 'self'")
            self.send_header("X-Frame-Options", "SAMEORIGIN")
        super().end_headers()
handler = functools.partial(Isolated, directory="dist")
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()
PY
