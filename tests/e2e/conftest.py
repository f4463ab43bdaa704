"""Fixtures for the end-to-end tests: the built app served from dist/ on loopback, a fake
provider on another loopback port (so every call is cross-origin and CORS is real), and a fresh
headless Debian Chromium per test driven through chromedriver."""

import functools
import os
import shutil
import struct
import subprocess
import sys
import threading
import zlib
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

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
        "--window-size=1280,1000",
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
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(30)
    if PAGE_CORES:  # kept by this tab across navigations
        driver.execute_cdp_cmd("Emulation.setHardwareConcurrencyOverride", {"hardwareConcurrency": int(PAGE_CORES)})
    return driver


@pytest.fixture
def browser(tmp_path, downloads):
    driver = make_driver(tmp_path / "profile", downloads)
    yield driver
    driver.quit()


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
