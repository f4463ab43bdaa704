"""Fixtures for the end-to-end tests: the built app served from dist/ on loopback, a fake
provider on another loopback port (so every call is cross-origin and CORS is real), and headless
Debian Chromium driven through chromedriver: one session shared by the tests that ask for
`browser`, reset between them to what a fresh profile shows (`SharedChromium`), and a session
of their own for the tests in FRESH_BROWSER and those that start one with `make_driver`."""

import functools
import os
import shutil
import struct
import subprocess
import sys
import threading
import warnings
import zlib
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.timeouts import Timeouts

sys.path.insert(0, str(Path(__file__).parent))
# The wire-format fakes are the package tests/fakes/.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakes.openai import FakeOpenAI  # noqa: E402
from fakes.llama import FakeLlamaServer  # noqa: E402
from engine import EngineDied, RealLlamaServer  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DIST = Path(os.environ.get("HJ_DIST", ROOT / "dist"))
CHROMIUM = os.environ.get("HJ_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("HJ_CHROMEDRIVER", "/usr/bin/chromedriver")
# The cores a page sees (navigator.hardwareConcurrency), which the in-page judge takes as its
# threads where the page is cross-origin isolated: one in each of the full run's parallel
# workers (HJ_PAGE_CORES overrides), for the reason engine.py gives llama-server one thread
# there: the threaded build's workers wait for each other by spinning, beside a second worker's
# browser on 2 cores. The tests that are about threads run alone, with the machine's cores.
PAGE_CORES = os.environ.get("HJ_PAGE_CORES") or ("1" if os.environ.get("PYTEST_XDIST_WORKER") else "")


def framing_headers(request_path):
    """What scripts/serve.sh and the header recipes (docs/deploy/) send: other sites may not
    frame the pages with a key field; the embed (embed.html, or ?embed) may be framed by any."""
    path, _, query = request_path.partition("?")
    if path.endswith("/embed.html") or "embed" in query.split("&"):
        return []
    return [("Content-Security-Policy", "frame-ancestors 'self'"), ("X-Frame-Options", "SAMEORIGIN")]


class _StaticHandler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm", ".js": "text/javascript"}

    def end_headers(self):
        for name, value in framing_headers(self.path):
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def app_url():
    if not (DIST / "index.html").exists():
        pytest.fail(f"{DIST}/index.html is missing: build the app first (scripts/build.sh)")
    handler = functools.partial(_StaticHandler, directory=str(DIST))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


@pytest.fixture
def fake():
    server = FakeOpenAI(delay=0.4)
    yield server
    server.stop()


@pytest.fixture
def gpt4o():
    """An OpenAI-format fake for scripted answers (FLEUR, G-VEval, MAEV)."""
    server = FakeOpenAI(delay=0.2)
    yield server
    server.stop()


@pytest.fixture
def llama():
    """A llama.cpp llama-server fake (one digit per token)."""
    server = FakeLlamaServer(delay=0.2)
    yield server
    server.stop()


@pytest.fixture
def downloads(tmp_path):
    d = tmp_path / "downloads"
    d.mkdir()
    return d


def origin_of(url):
    """The origin of an http(s) URL ("http://127.0.0.1:8000"), None for any other scheme."""
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return f"{parts.scheme}://{parts.netloc}"


class _Chrome(webdriver.Chrome):
    """chromedriver's Chrome, noting the origin of every page it is sent to (`hj_origins`): the
    shared session's reset clears what those origins stored."""

    def get(self, url):
        found = origin_of(url)
        if found:
            self.__dict__.setdefault("hj_origins", set()).add(found)
        super().get(url)


WINDOW = (1280, 1000)


def make_driver(profile, downloads, performance_log=False, extra_args=(), page_load=None):
    """Headless Debian Chromium through chromedriver; `performance_log` records every network
    event (the request-recording security test reads it); `extra_args` are more command-line
    switches (the in-page judge's recording test sends everything through a logging proxy);
    `page_load` a WebDriver page load strategy ("none": navigating returns at once)."""
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    if page_load:
        opts.page_load_strategy = page_load
    for arg in [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        f"--user-data-dir={profile}",
        *extra_args,
    ]:
        opts.add_argument(arg)
    opts.add_experimental_option(
        "prefs",
        {"download.default_directory": str(downloads), "download.prompt_for_download": False},
    )
    logs = {"browser": "ALL"}
    if performance_log:
        logs["performance"] = "ALL"
    opts.set_capability("goog:loggingPrefs", logs)
    driver = _Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(30)
    emulate_cores(driver)
    return driver


def emulate_cores(driver):
    """PAGE_CORES, where set, for the driver's current tab (kept across its navigations; a new
    tab has the machine's cores again)."""
    if PAGE_CORES:
        driver.execute_cdp_cmd("Emulation.setHardwareConcurrencyOverride", {"hardwareConcurrency": int(PAGE_CORES)})


# Tests that keep a Chromium of their own, with why ("*": every test of the file); every other
# test that asks for `browser` gets the shared session. Tests that need other switches (a
# performance log, a proxy, WebGPU, a profile kept across a restart) start theirs with
# `make_driver` and are not listed here.
FRESH_BROWSER = {
    ("test_gate.py", "*"):
        "reads the peak resident memory of the browser's renderer processes: a shared browser's "
        "earlier tests' renderers, or one reused, would be counted",
    ("test_chunks.py", "test_a_first_visit_fetches_no_chunk_and_evaluate_fetches_the_judging_code"):
        "a new visitor's first visit: what it fetches and that no worker is registered",
    ("test_site.py", "test_the_evaluators_preloads_wait_for_its_first_paint_and_each_file_is_fetched_once"):
        "counts each file's fetches on a first visit: a renderer's memory cache would hide some",
    ("test_task_first.py", "test_a_fresh_visit_sees_the_task_first_and_the_judge_in_one_line"):
        "a new visitor's first visit",
}


class SharedChromium:
    """One headless Chromium for the tests that ask for `browser`, handed to each as a fresh
    profile would show it. After a test, `reset`: every tab the test left is closed and a new
    one opened on about:blank (which also drops what a test set through the DevTools protocol
    on its tab: emulated viewports and media, scripts added to new documents, blocked URLs;
    the cores a page sees are PAGE_CORES again);
    the HTTP cache and every cookie are cleared; every origin the test used (the pages it was
    sent to, each tab's history and frames, the app's) loses all it stored (local and session
    storage, IndexedDB, Cache Storage, service workers, file systems) and any quota a test set;
    permissions are reset; the window is 1280x1000 again; the timeouts are the driver's first
    ones; the console log is drained. Before a test the profile's download folder is pointed at
    that test's own folder.
    A session that fails to reset, or that a test ended, is quit, and the next test starts a
    new one (with a warning)."""

    def __init__(self, root):
        self.root = root
        self.driver = None
        self.starts = 0
        # The profile's download folder: a link, pointed at each test's own folder in turn. The
        # DevTools protocol's download folder would do it too, but it overwrites a file of the
        # same name where the browser's own setting adds " (1)".
        self.downloads = root / "downloads"

    def take(self, downloads):
        """The session, its downloads going to `downloads`; a new one if there is none or the
        last test ended it."""
        pointer = self.root / "downloads.next"
        pointer.unlink(missing_ok=True)
        pointer.symlink_to(downloads, target_is_directory=True)
        os.replace(pointer, self.downloads)
        if self.driver is not None:
            try:
                self.driver.execute_cdp_cmd("Browser.getVersion", {})
                return self.driver
            except Exception as e:  # noqa: BLE001 - a session a test ended or broke
                warnings.warn(f"the shared Chromium no longer answered ({e.__class__.__name__}): a new one starts")
                self.quit()
        self.starts += 1
        self.driver = make_driver(self.root / f"profile-{self.starts}", self.downloads)
        return self.driver

    def reset(self, origins=()):
        if self.driver is None:
            return
        try:
            self._reset(set(origins))
        except Exception as e:  # noqa: BLE001 - whatever it was, the next test gets a new session
            warnings.warn(f"the shared Chromium could not be reset ({e.__class__.__name__}: {e}); "
                          "the next test starts a new one")
            self.quit()

    def _reset(self, origins):
        d = self.driver
        origins |= d.__dict__.pop("hj_origins", set())
        old = d.window_handles
        for handle in old:
            d.switch_to.window(handle)
            origins |= self._origins_of_tab(d)
        d.switch_to.new_window("tab")
        fresh = d.current_window_handle
        for handle in old:
            d.switch_to.window(handle)
            d.close()
        d.switch_to.window(fresh)
        d.execute_cdp_cmd("Page.bringToFront", {})  # focused, as a new session's first tab is
        emulate_cores(d)  # the new tab's cores, as make_driver sets the first tab's
        d.execute_cdp_cmd("Network.clearBrowserCache", {})
        d.execute_cdp_cmd("Network.clearBrowserCookies", {})
        for origin in sorted(o for o in origins if o):
            d.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
            d.execute_cdp_cmd("Storage.overrideQuotaForOrigin", {"origin": origin})
        d.execute_cdp_cmd("Browser.resetPermissions", {})
        if d.get_window_size() != {"width": WINDOW[0], "height": WINDOW[1]}:
            d.set_window_size(*WINDOW)
        d.timeouts = Timeouts(implicit_wait=0, page_load=30, script=30)
        d.get_log("browser")
        d.__dict__.pop("hj_origins", None)

    @staticmethod
    def _origins_of_tab(d):
        """The origins of a tab's pages: its history's and every frame's now."""
        try:
            d.switch_to.alert.dismiss()
        except NoAlertPresentException:
            pass
        found = {origin_of(e["url"]) for e in d.execute_cdp_cmd("Page.getNavigationHistory", {})["entries"]}
        frames = [d.execute_cdp_cmd("Page.getFrameTree", {})["frameTree"]]
        while frames:
            node = frames.pop()
            found.add(origin_of(node["frame"]["url"]))
            frames.extend(node.get("childFrames", []))
        return found

    def quit(self):
        if self.driver is not None:
            try:
                self.driver.quit()
            except Exception:  # noqa: BLE001 - already gone
                pass
        self.driver = None


@pytest.fixture(scope="session")
def shared_chromium(tmp_path_factory):
    shared = SharedChromium(tmp_path_factory.mktemp("shared-chromium"))
    yield shared
    shared.quit()


@pytest.fixture
def browser(request, tmp_path, downloads, app_url, shared_chromium):
    """Headless Chromium for one test: the shared session, reset after the test (see
    SharedChromium), or for the tests in FRESH_BROWSER a session of their own."""
    file, name = request.node.path.name, getattr(request.node, "originalname", request.node.name)
    why = FRESH_BROWSER.get((file, name)) or FRESH_BROWSER.get((file, "*"))
    if why:
        driver = make_driver(tmp_path / "profile", downloads)
        yield driver
        driver.quit()
        return
    driver = shared_chromium.take(downloads)
    yield driver
    shared_chromium.reset({origin_of(app_url)})


def _png(width, height, pixel):
    """A minimal RGB PNG written by hand, so the tests need no imaging library."""
    rows = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


@pytest.fixture(scope="session")
def images(tmp_path_factory):
    d = tmp_path_factory.mktemp("images")
    # A large grey-blue photo stand-in: downscaled to 1024 on its long side before upload.
    (d / "photo.png").write_bytes(_png(1600, 1200, lambda x, y: (90, 120, 160)))
    (d / "small.png").write_bytes(_png(64, 48, lambda x, y: ((x * 4) % 256, (y * 5) % 256, 128)))
    (d / "not-an-image.png").write_bytes(b"%PDF-1.4\n% this is not an image at all\n")
    (d / "empty.png").write_bytes(b"")
    # A 3-second WebM: red until 0.5 s, green until 1.5 s, blue after, so the frames at 0, ⅓
    # and ⅔ of its length are red, green and blue.
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        pytest.fail("ffmpeg is missing: run scripts/setup.sh --test")
    subprocess.run(
        [ffmpeg, "-v", "error", "-y",
         "-f", "lavfi", "-i", "color=c=red:s=320x240:r=10:d=0.5",
         "-f", "lavfi", "-i", "color=c=lime:s=320x240:r=10:d=1",
         "-f", "lavfi", "-i", "color=c=blue:s=320x240:r=10:d=1.5",
         "-filter_complex", "[0][1][2]concat=n=3:v=1:a=0",
         "-c:v", "libvpx", "-b:v", "300k", str(d / "clip.webm")],
        check=True,
    )
    return d


# --- The real engine: llama.cpp's llama-server with SmolLM2-135M-Instruct -------------------


def _start_engine(engine_dir, vision):
    """The engine as the suite starts it (engine.py); one that cannot serve fails each test that
    needs it with one line (the signal and its meaning, the log's last lines), not a traceback."""
    try:
        return RealLlamaServer(engine_dir, vision=vision)
    except EngineDied as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="session")
def engine_dir():
    """The real engine's cache folder; scripts/real_engine.sh builds or reuses it."""
    given = os.environ.get("HJ_ENGINE_DIR")
    if given:
        return Path(given)
    out = subprocess.run([str(ROOT / "scripts" / "real_engine.sh")], check=True, capture_output=True, text=True)
    return Path(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def real_vlm(engine_dir):
    """SmolLM2 with the projector: accepts images."""
    server = _start_engine(engine_dir, vision=True)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def real_text_llm(engine_dir):
    """SmolLM2 alone: answers 500 to an image, as a text-only llama-server does."""
    server = _start_engine(engine_dir, vision=False)
    yield server
    server.stop()
