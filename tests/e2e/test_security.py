"""Security properties, proven in the browser: the Content-Security-Policy holds and nothing
the app does violates it; every request goes to the app's own origin or the endpoint the user
chose; the API key is sent only there, only as a header, and is found nowhere else (URL,
storage it was not allowed into, the response cache, exports, logs, error messages)."""

import base64
import hashlib
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.support.ui import Select

from app_page import CRITERIA, AppPage, tid, export_pattern
from conftest import DIST, make_driver
from fakes.openai import FakeOpenAI

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bad_inputs"
KEY = "sk-test-SECRET-0123456789abcdef"
CSP = (
    "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; "
    "style-src-attr 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' blob:; "
    "worker-src 'self' blob:; connect-src *; base-uri 'none'; form-action 'none'; object-src 'none'"
)
WATCH_CSP = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
  e => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
"""


def sha256(text):
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def shell_script():
    """The static shell's script as the build wrote it into index.html (src/web/shell.js,
    minified): the page's one inline script."""
    inline = re.findall(r"<script>(.*?)</script>", (DIST / "index.html").read_text(), re.S)
    assert len(inline) == 1, f"index.html should carry exactly one inline script, not {len(inline)}"
    assert "hj-shell-interactive" in inline[0]
    return inline[0]


def evaluator_csp(driver):
    """The evaluator's policy: CSP, with its one inline stylesheet (scripts/finish_dist.py inlines
    style/main.css so the first paint waits on no request) allowed by the hash of exactly that
    text, and the static shell's script (src/web/shell.js, removed with the shell when the app
    mounts) by the hash of its text; nothing else."""
    styles = driver.execute_script("return [...document.querySelectorAll('style')].map(s => s.textContent)")
    assert len(styles) == 1, f"the evaluator should carry exactly one inline stylesheet, not {len(styles)}"
    shell = shell_script()
    return (CSP.replace("style-src 'self';", f"style-src 'self' {sha256(styles[0])};")
            .replace("'wasm-unsafe-eval';", f"'wasm-unsafe-eval' {sha256(shell)};"))


def test_the_only_inline_script_is_the_static_shells_inside_the_shell():
    """Built pages: index.html's one inline script is src/web/shell.js (minified), as its hash in the
    policy says, inside the static shell (so it leaves with the shell); embed.html and the lab
    have none."""
    shell = shell_script()
    html = (DIST / "index.html").read_text()
    # Minified: the source's comments are not shipped.
    assert "static-shell" in shell and "event replay" not in shell
    # After the shell's columns, before the shell's end (the <noscript> follows the shell).
    assert html.index("</main>") < html.index("<script>") < html.index("</script></div><noscript>")
    policy = re.search(r"<meta\b[^>]*Content-Security-Policy[^>]*>", html).group(0)
    assert f"script-src 'self' 'wasm-unsafe-eval' {sha256(shell)};" in policy, policy
    for other in [DIST / "embed.html", DIST / "lab" / "index.html"]:
        assert re.findall(r"<script>", other.read_text()) == [], other


def origin(url):
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc}"


@pytest.fixture
def recorder(tmp_path, downloads):
    """A browser that logs every network event and every CSP violation from the first byte."""
    driver = make_driver(tmp_path / "profile", downloads, performance_log=True)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH_CSP})
    # Drop what the browser itself fetched at start-up (its new-tab page), before the app.
    driver.get("about:blank")
    driver.get_log("performance")
    yield driver
    driver.quit()


def requests_made(driver):
    """(url, headers, body) of every request the page made, from Chromium's network log."""
    out = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent":
            r = msg["params"]["request"]
            out.append((r["url"], r.get("headers", {}), r.get("postData", "")))
        elif msg["method"] == "Network.requestWillBeSentExtraInfo":
            out.append(("", msg["params"].get("headers", {}), ""))
    return out


def full_session(page, fake, downloads, tmp_path):
    """Everything a user does on both pages: set up, check, upload, draw, evaluate, explain,
    export, fail with a wrong key, then the lab with a results file."""
    page.set_backend(fake.url, "gpt-4o", KEY)
    page.el("check-connection-button").click()
    page.wait_for(lambda d: page.el("connection-report").get_attribute("data-status") in ("ok", "problem"), "the check", 20)
    page.upload(FIXTURES / "good.jpg")
    page.wait_image()
    page.select_task("reg")
    preview = page.el("image-preview")
    w, h = preview.size["width"], preview.size["height"]
    ActionChains(page.d).move_to_element_with_offset(preview, -w // 4, -h // 4).click_and_hold().move_by_offset(
        w // 3, h // 3).release().perform()
    page.fill("text-input", "the red rectangle on the left")
    page.evaluate()
    page.wait_settled()
    assert all(page.state(c) == "done" for c in CRITERIA)
    # A server that echoes the key in a successful answer (issue 17.8): it is redacted before
    # the answer is shown, cached or exported (the callers check the cache and the export).
    fake.explanation = f"The text is fluent. Your key {KEY} was received."
    page.el("explain-fluency").click()
    page.wait_for(lambda d: "fluent" in page.el("explanation-fluency").text, "the explanation")
    shown = page.el("explanation-fluency").text
    assert KEY not in shown and "[API key]" in shown, shown
    page.el("export-json-button").click()
    exported = page.wait_file(downloads, export_pattern("harmonic_eval"))
    # A rejected key: the error shown must not carry it.
    fake.required_key = "sk-other"
    page.fill("text-input", "another text, so the cache does not answer")
    page.evaluate()
    page.wait_settled()
    errors = [page.card(c).text for c in CRITERIA]
    assert all("rejected" in e.lower() or "incorrect api key" in e.lower() for e in errors), errors
    fake.required_key = None
    # The lab, with a results file exported by the lab format.
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps({"id": "a", "metric": "harmonic_eval", "task": "ic", "text": "<b>x</b>",
                                   "criteria": [{"name": c, "score": 4.0, "sigma": 0.5} for c in CRITERIA],
                                   "human": {"overall": [4]}}) + "\n")
    lab = AppPage(page.d, page.d.current_url.split("#")[0].rstrip("/") + "/lab/")
    lab.d.execute_script("arguments[0].style.display='block'", lab.el("results-input"))
    lab.el("results-input").send_keys(str(results))
    lab.wait_for(lambda d: d.find_elements(*tid("result-a")), "the imported result")
    # Dataset text is shown as text.
    lab.el("result-a").click()
    detail = lab.el("result-detail")
    assert "<b>x</b>" in detail.text and detail.find_elements("css selector", "b") == []
    return exported, errors


def test_csp_is_strict_nothing_violates_it_and_injected_markup_cannot_run(recorder, app_url, downloads, tmp_path):
    fake = FakeOpenAI(delay=0.05)
    try:
        page = AppPage(recorder, app_url)
        content = recorder.execute_script(
            "return document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]').content")
        assert content == evaluator_csp(recorder)
        assert recorder.find_elements("css selector", "script:not([src])") == []
        full_session(page, fake, downloads, tmp_path)
        # The lab page (where the session ends) carries the same policy, its stylesheets linked.
        assert recorder.current_url.endswith("/lab/")
        assert recorder.execute_script(
            "return document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]').content") == CSP
        assert recorder.find_elements("css selector", "script:not([src])") == []
        assert recorder.execute_script("return window.__violations") == []
        # Markup slipped into the page by any other way still cannot run.
        recorder.execute_script(
            "document.body.insertAdjacentHTML('beforeend', '<img src=x onerror=\"window.__ran=1\">');"
            "const s = document.createElement('script'); s.textContent = 'window.__ran=2'; document.body.append(s);"
            "const c = document.createElement('style'); c.textContent = 'body { --hj-injected: 1 }'; document.head.append(c);")
        page.wait_for(lambda d: len(d.execute_script("return window.__violations")) >= 3, "the violations")
        assert recorder.execute_script("return window.__ran") is None
        # Nor can an injected stylesheet: the policy's hash allows only the page's own.
        assert recorder.execute_script(
            "return getComputedStyle(document.body).getPropertyValue('--hj-injected')") == ""
    finally:
        fake.stop()


def test_requests_go_only_to_the_app_and_the_chosen_endpoint_and_the_key_only_there(recorder, app_url, downloads, tmp_path):
    fake = FakeOpenAI(delay=0.05)
    try:
        page = AppPage(recorder, app_url)
        exported, errors = full_session(page, fake, downloads, tmp_path)
        made = requests_made(recorder)
        allowed = {origin(app_url), origin(fake.url)}
        urls = [u for u, _, _ in made if u]
        assert urls, "the network log recorded the session"
        for url in urls:
            if url.startswith(("data:", "blob:")):
                continue
            assert origin(url) in allowed, f"a request left for {url}"
            assert KEY not in url
        with_key = [(u, h) for u, h, _ in made if any(KEY in str(v) for v in h.values())]
        assert with_key, "the key was sent to the endpoint"
        for url, headers in with_key:
            assert not url or origin(url) == origin(fake.url)
            assert [k.lower() for k, v in headers.items() if KEY in str(v)] == ["authorization"]
        assert not any(KEY in body for _, _, body in made)
        # The fake saw it only as "Authorization: Bearer …".
        chat = [r for r in fake.requests if r["path"].endswith("/chat/completions")]
        assert chat and all(r["headers"].get("authorization") == f"Bearer {KEY}" for r in chat)
        assert all(KEY not in r["path"] and KEY not in json.dumps(r.get("query", {})) for r in fake.requests)
    finally:
        fake.stop()

    # Nowhere else: not in the address, the export, the error messages, the logs, the cache,
    # or local storage (the key was not "remembered").
    assert KEY not in recorder.current_url
    assert KEY not in exported.read_text()
    assert not any(KEY in e for e in errors)
    for entry in recorder.get_log("browser"):
        assert KEY not in entry["message"]
    local = recorder.execute_script("return JSON.stringify(Object.assign({}, localStorage))")
    assert KEY not in local
    cached = recorder.execute_async_script("""
        const done = arguments[0];
        const open = indexedDB.open('harmonic-judge');
        open.onerror = () => done('no database');
        open.onsuccess = () => {
          const db = open.result, out = [];
          const names = Array.from(db.objectStoreNames);
          if (!names.length) return done('');
          const tx = db.transaction(names, 'readonly');
          names.forEach(n => { const r = tx.objectStore(n).getAll(); r.onsuccess = () => out.push(JSON.stringify(r.result)); });
          tx.oncomplete = () => done(out.join('\\n'));
        };""")
    assert cached and KEY not in cached


def test_a_panic_shows_a_recoverable_banner_not_a_dead_page(browser, app_url):
    page = AppPage(browser, app_url)
    page.fill("base-url-input", "http://127.0.0.1:9/v1")
    # The glue, as the page fetched it (its preload is in the head only if the shell's script
    # put it there before the loader ran: scripts/finish_dist.py, defer_preloads).
    glue = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
        ".find(n => /\\/harmonic-judge-[0-9a-f]+\\.js$/.test(n))")
    outcome = browser.execute_async_script("""
        const [glue, done] = arguments;
        import(glue).then(m => { try { m.hj_crash_self_test(); done('returned'); } catch (e) { done('threw'); } });
    """, glue)
    assert outcome == "threw"
    banner = page.el("crash-banner")
    assert banner.is_displayed() and banner.get_attribute("role") == "alert"
    assert banner.text == (
        "Something went wrong inside the app. Reload the page to continue: your settings and key are "
        "kept, the image and texts must be added again. (Details are in the browser console.)"
    )
    browser.refresh()
    page = AppPage(browser, app_url)
    assert browser.find_elements(*tid("crash-banner")) == []
    assert page.el("base-url-input").get_attribute("value") == "http://127.0.0.1:9/v1"
    page.fill("text-input", "works again")
    assert page.el("text-input").get_attribute("value") == "works again"


class Redirector:
    """A loopback server that answers every GET and POST with ``307 Location: <target>+path``,
    with CORS headers on the preflight and on the redirect itself, so a browser following
    redirects would follow this one (and carry custom key headers along)."""

    def __init__(self, target_origin):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        import threading

        self.hits = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def cors(self):
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Access-Control-Allow-Headers", "*")
                self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
                self.send_header("Access-Control-Expose-Headers", "*")

            def do_OPTIONS(self):
                outer.hits.append(("OPTIONS", self.path))
                self.send_response(204)
                self.cors()
                self.send_header("Content-Length", "0")
                self.end_headers()

            def redirect(self):
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                outer.hits.append((self.command, self.path))
                self.send_response(307)
                self.cors()
                self.send_header("Location", target_origin + self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = redirect
            do_POST = redirect

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.parametrize("preset", ["gemini", "anthropic"])
def test_a_redirect_never_carries_the_key_to_another_origin(browser, app_url, images, preset):
    """Issue 17.1: a base URL that answers 307 to another origin. Browsers drop Authorization on
    a cross-origin redirect but keep x-goog-api-key / x-api-key, so the other origin must get no
    request at all, on Evaluate and on Check connection, and the user reads why."""
    from fakes.gemini import FakeGemini
    from fakes.anthropic import FakeAnthropic

    other = (FakeGemini if preset == "gemini" else FakeAnthropic)()
    redirector = Redirector(other.origin)
    try:
        page = AppPage(browser, app_url)
        Select(page.el("preset-select")).select_by_value(preset)
        page.fill("base-url-input", redirector.origin + other.base_path)
        page.fill("model-input", "gemini-2.5-flash" if preset == "gemini" else "claude-sonnet-4-5")
        page.fill("api-key-input", KEY)
        page.set_number("retries-input", 0)
        page.upload(images / "photo.png")
        page.wait_image()
        page.fill("text-input", "A dog runs across a grassy park.")
        page.evaluate()
        page.wait_settled()
        for c in CRITERIA:
            assert page.state(c) == "error"
            text = page.card(c).text
            assert "answered with a redirect" in text and "final URL" in text, text
        page.el("check-connection-button").click()
        page.wait_for(lambda d: page.el("connection-report").get_attribute("data-status") in ("ok", "problem"),
                      "the check", 20)
        report = page.el("connection-report")
        assert report.get_attribute("data-status") == "problem"
        assert "answered with a redirect" in report.text and "answers." not in report.text, report.text
        # The redirector was asked (so the redirect really happened) ...
        assert any(m == "POST" for m, _ in redirector.hits) and any(m == "GET" for m, _ in redirector.hits)
        # ... and the origin it pointed to never heard of this page, key or no key.
        assert other.log == [], [(r["method"], r["path"]) for r in other.log]
    finally:
        redirector.stop()
        other.stop()


def test_credentials_in_the_base_url_and_a_malformed_key_are_refused_before_sending(browser, app_url, images):
    """Issue 17.8: ``user:pass@`` in the base URL is refused with a sentence and never stored;
    a key with a character no HTTP header can carry is named malformed, and nothing is sent."""
    fake = FakeOpenAI()
    try:
        page = AppPage(browser, app_url)
        Select(page.el("preset-select")).select_by_value("openai")
        with_password = fake.url.replace("http://", "http://alice:hunter2pw@")
        page.fill("base-url-input", with_password)
        page.fill("model-input", "gpt-4o")
        page.fill("api-key-input", KEY)
        page.upload(images / "photo.png")
        page.wait_image()
        page.fill("text-input", "A dog runs across a grassy park.")
        page.evaluate()
        page.wait_settled()
        for c in CRITERIA:
            assert page.state(c) == "error" and "user name or password" in page.card(c).text
        stored = browser.execute_script("return JSON.stringify(Object.assign({}, localStorage))")
        assert "hunter2pw" not in stored and fake.url in stored, stored
        page.fill("base-url-input", fake.url)
        page.fill("api-key-input", "sk-test\u201dcurly")
        page.evaluate()
        page.wait_settled()
        for c in CRITERIA:
            text = page.card(c).text
            assert page.state(c) == "error" and "malformed" in text and "curly" not in text, text
        assert fake.log == []
    finally:
        fake.stop()
