"""The shared Chromium (conftest.py, `SharedChromium`): after its reset a test sees what a fresh
profile shows it. One test leaves behind everything a test could (storage of every kind on the
app's origin, on a page's origin met only in the tab's history and on a framed origin, a second
tab, an emulated viewport, colour scheme and number of cores, a window of another size, a long script timeout, a
storage quota, a granted permission, a console message), the session is reset, and each origin
then reads the same as in a new session with a profile of its own."""

import functools
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from conftest import WINDOW, make_driver, origin_of

# What a page reads of its origin's storage and of its window: the same in a fresh profile.
SNAPSHOT_JS = """
const done = arguments[arguments.length - 1];
const request = (r) => new Promise((ok, bad) => { r.onsuccess = () => ok(r.result); r.onerror = () => bad(r.error); });
(async () => {
  const seen = {
    local: Object.keys(localStorage).sort(), session: Object.keys(sessionStorage).sort(), cookie: document.cookie,
    databases: (await indexedDB.databases()).map(d => d.name).sort(), caches: (await caches.keys()).sort(),
    workers: (await navigator.serviceWorker.getRegistrations()).length,
    usage: (await navigator.storage.estimate()).usage, persisted: await navigator.storage.persisted(),
    notifications: (await navigator.permissions.query({name: 'notifications'})).state,
    inner: [innerWidth, innerHeight], outer: [outerWidth, outerHeight], ratio: devicePixelRatio,
    dark: matchMedia('(prefers-color-scheme: dark)').matches, history: history.length,
    visible: document.visibilityState, focused: document.hasFocus(), cores: navigator.hardwareConcurrency,
  };
  // Whether a write fits the origin's quota (a test may have set it to a byte), then gone again.
  const probe = indexedDB.open('hj-probe', 1);
  probe.onupgradeneeded = () => probe.result.createObjectStore('s');
  const db = await request(probe);
  seen.writes = await new Promise((ok) => {
    const t = db.transaction('s', 'readwrite');
    t.objectStore('s').put('x'.repeat(10000), 'k');
    t.oncomplete = () => ok('ok');
    t.onabort = () => ok(t.error ? t.error.name : 'aborted');
  });
  db.close();
  await request(indexedDB.deleteDatabase('hj-probe'));
  return seen;
})().then(done, e => done('ERROR ' + e));
"""

# Everything a page can store for its origin.
DIRTY_JS = """
const done = arguments[arguments.length - 1];
(async () => {
  localStorage.setItem('hj.left', '1');
  sessionStorage.setItem('hj.left', '1');
  document.cookie = 'hj_left=1; max-age=3600; path=/';
  await new Promise((ok, bad) => {
    const r = indexedDB.open('hj-left', 1);
    r.onupgradeneeded = () => r.result.createObjectStore('s').put('x'.repeat(100000), 'k');
    r.onsuccess = () => { r.result.close(); ok(); };
    r.onerror = () => bad(r.error);
  });
  await (await caches.open('hj-left')).put('/hj-left', new Response('x'.repeat(100000)));
  return 'ok';
})().then(done, e => done('ERROR ' + e));
"""

PAGE = "<!doctype html><title>{title}</title><body>{body}</body>"


class _Quiet(SimpleHTTPRequestHandler):
    """A host that lets any site frame its pages."""

    def log_message(self, *args):
        pass


@pytest.fixture
def other_origins(tmp_path):
    """Three more loopback origins: `framing` (its page frames `framed`), `framed` and `quota`."""
    servers = {}
    for name in ("framing", "framed", "quota"):
        d = tmp_path / name
        d.mkdir()
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(d)))
        httpd.daemon_threads = True
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        servers[name] = (d, f"http://127.0.0.1:{httpd.server_address[1]}/")
    for name in ("framed", "quota"):
        (servers[name][0] / "index.html").write_text(PAGE.format(title=name, body=""))
    (servers["framing"][0] / "index.html").write_text(
        PAGE.format(title="framing", body=f'<iframe id="f" src="{servers["framed"][1]}"></iframe>'))
    yield {name: url for name, (_, url) in servers.items()}


def dirty(driver):
    assert driver.execute_async_script(DIRTY_JS) == "ok"


def snapshot(driver, url, frame=False):
    driver.get(url)
    if frame:
        driver.switch_to.frame(driver.find_element("id", "f"))
    try:
        return driver.execute_async_script(SNAPSHOT_JS)
    finally:
        driver.switch_to.default_content()


def test_the_shared_session_after_its_reset_shows_what_a_fresh_profile_shows(
        browser, shared_chromium, app_url, other_origins, tmp_path, downloads):
    framing, quota = other_origins["framing"], other_origins["quota"]
    places = [(app_url + "coi.js", False), (framing, False), (framing, True), (quota, False)]

    # What a new session with a profile of its own reads at each place.
    fresh = make_driver(tmp_path / "fresh-profile", downloads)
    try:
        expected = [snapshot(fresh, url, frame) for url, frame in places]
        fresh_timeouts = fresh.timeouts
    finally:
        fresh.quit()
    assert not any(isinstance(s, str) for s in expected), expected

    # A test that leaves everything behind. The framed origin and the framing page's origin are
    # met only in a frame and in the tab's history, not in a page the driver was sent to now.
    d = browser
    d.get(quota)
    d.execute_cdp_cmd("Storage.overrideQuotaForOrigin", {"origin": origin_of(quota), "quotaSize": 1})
    for _ in range(50):  # the quota reaches the storage a moment after the command returns
        if snapshot(d, quota)["writes"] != "ok":
            break
        time.sleep(0.1)
    assert snapshot(d, quota)["writes"] == "QuotaExceededError"
    d.get(framing)
    dirty(d)
    d.switch_to.frame(d.find_element("id", "f"))
    dirty(d)
    d.switch_to.default_content()
    d.get(app_url + "coi.js")
    dirty(d)
    registered = d.execute_async_script(
        "navigator.serviceWorker.register('/coi.js').then(() => arguments[0]('ok'), e => arguments[0]('' + e))")
    assert registered == "ok"
    for origin in (origin_of(app_url), origin_of(framing)):
        d.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": ["notifications"]})
    d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    left = snapshot(d, app_url + "coi.js")
    assert left["local"] and left["workers"] and left["notifications"] == "granted" and left["dark"], left
    d.execute_script("console.error('left behind')")
    d.set_window_size(700, 500)
    d.set_script_timeout(600)
    d.switch_to.new_window("tab")
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 600, "deviceScaleFactor": 2,
                                                             "mobile": True})
    d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    d.execute_cdp_cmd("Emulation.setHardwareConcurrencyOverride", {"hardwareConcurrency": 7})
    left = snapshot(d, app_url + "coi.js")
    assert left["local"] and left["inner"][0] == 980 and left["dark"] and left["cores"] == 7, left
    d.get(framing)  # the app's origin now in this tab's history only, the frame's in its page
    d.__dict__.pop("hj_origins", None)  # as if every page had been reached by a link

    shared_chromium.reset()

    assert d.get_log("browser") == [], "the console log was not drained"
    assert len(d.window_handles) == 1
    assert d.get_window_size() == {"width": WINDOW[0], "height": WINDOW[1]}
    assert d.timeouts.script == fresh_timeouts.script and d.timeouts.page_load == fresh_timeouts.page_load
    assert d.timeouts.implicit_wait == fresh_timeouts.implicit_wait
    seen = [snapshot(d, url, frame) for url, frame in places]
    assert seen == expected

    # The next test's downloads go to that test's own folder, a second file of the same name
    # beside the first as in a fresh profile.
    elsewhere = tmp_path / "next-downloads"
    elsewhere.mkdir()
    assert shared_chromium.take(elsewhere) is d
    d.get(quota)
    for text in ("first", "second"):
        link = d.execute_script(
            "const a = document.createElement('a'); a.href = URL.createObjectURL(new Blob([arguments[0]]));"
            "a.download = 'saved.txt'; a.textContent = 'Save'; document.body.prepend(a); return a;", text)
        link.click()
        for _ in range(100):
            names = sorted(p.name for p in elsewhere.iterdir())
            # Chromium writes a download to a hidden temporary file first, then renames it
            busy = any(n.endswith(".crdownload") or n.startswith(".org.chromium.") for n in names)
            if len(names) == (1 if text == "first" else 2) and not busy:
                break
            time.sleep(0.05)
    assert (elsewhere / "saved.txt").read_text() == "first"
    assert (elsewhere / "saved (1).txt").exists(), sorted(p.name for p in elsewhere.iterdir())
    assert (elsewhere / "saved (1).txt").read_text() == "second"
    assert not list(downloads.iterdir())


def test_every_test_kept_on_a_browser_of_its_own_exists():
    """FRESH_BROWSER names tests by file and function: a name that went stale would quietly put
    its test on the shared session."""
    from conftest import FRESH_BROWSER

    here = Path(__file__).parent
    for (file, name), why in FRESH_BROWSER.items():
        text = (here / file).read_text()
        assert why and (name == "*" or f"\ndef {name}(" in text), (file, name)
