"""A logging HTTP proxy on loopback for the request-recording test of the in-page judge.

Chromium started with `--proxy-server=http://127.0.0.1:<port>` and
`--proxy-bypass-list=<-loopback>` (which removes its built-in "never proxy localhost" rule)
sends every request of the page, its workers included, through here. Each request is recorded
as (method, scheme, host, port, path) before anything else happens, CONNECT tunnels included,
and then forwarded, only to a loopback target: this machine has no internet, and a request for
anywhere else is answered 403 after it is recorded, so the test sees it and fails."""

import http.client
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}
# Headers that belong to one hop (RFC 9110 7.6.1), never forwarded.
HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate",
       "te", "trailer", "transfer-encoding", "upgrade"}


class RecordingProxy:
    def __init__(self):
        self.seen = []  # (method, scheme, host, port, path), in arrival order
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # one request per connection: nothing to frame

            def log_message(self, *args):
                pass

            def _forward(self):
                url = urlsplit(self.path)
                if not url.scheme:  # origin-form: someone talked to the proxy as a server
                    proxy._record(self.command, "direct", "", 0, self.path)
                    self.send_error(400, "absolute URL expected")
                    return
                port = url.port or (443 if url.scheme == "https" else 80)
                proxy._record(self.command, url.scheme, url.hostname or "", port, url.path)
                if url.scheme != "http" or url.hostname not in LOOPBACK:
                    self._refuse()
                    return
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
                upstream = http.client.HTTPConnection(url.hostname, port, timeout=900)
                try:
                    target = url.path + (f"?{url.query}" if url.query else "")
                    upstream.request(self.command, target or "/", body=body, headers=headers)
                    resp = upstream.getresponse()
                    self.send_response_only(resp.status, resp.reason)
                    for k, v in resp.getheaders():
                        if k.lower() not in HOP:
                            self.send_header(k, v)
                    self.send_header("Connection", "close")
                    self.end_headers()
                    while chunk := resp.read(1 << 20):
                        self.wfile.write(chunk)
                except (ConnectionError, socket.timeout, http.client.HTTPException):
                    pass  # the browser gave up (a cancelled request) or the target closed
                finally:
                    upstream.close()
                    self.close_connection = True

            def _refuse(self):
                try:
                    self.send_error(403, "this proxy goes to loopback only")
                except OSError:
                    pass  # the browser did not wait for the answer
                self.close_connection = True

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _forward

            def do_CONNECT(self):
                host, _, port = self.path.rpartition(":")
                proxy._record("CONNECT", "connect", host, int(port or 0), "")
                if host not in LOOPBACK:
                    self._refuse()
                    return
                upstream = socket.create_connection((host.strip("[]"), int(port)))
                self.send_response_only(200, "Connection established")
                self.end_headers()
                pump = threading.Thread(target=_relay, args=(upstream, self.connection), daemon=True)
                pump.start()
                _relay(self.connection, upstream)
                pump.join(5)
                self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.port = self.httpd.server_address[1]

    def _record(self, method, scheme, host, port, path):
        with self._lock:
            self.seen.append((method, scheme, host, port, path))

    def chromium_args(self):
        return [f"--proxy-server=http://127.0.0.1:{self.port}", "--proxy-bypass-list=<-loopback>"]

    def origins(self):
        """Every origin a request went to, as scheme://host:port."""
        with self._lock:
            return {f"{s}://{h}:{p}" for _, s, h, p, _ in self.seen}

    def requests(self):
        with self._lock:
            return list(self.seen)

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def _relay(src, dst):
    try:
        while data := src.recv(1 << 16):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass
