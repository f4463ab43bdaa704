"""End-to-end: a site owner's demo in one file (site.json), the embed, the framing policy, and
the deploy recipes (docs/deploy/) checked by scripts/check_site.py.

Each site is dist/ as built, plus the test's site.json, served from loopback like a static host.
The owner's proxy is the OpenAI-format fake (it holds no key and asks for none); the in-page
judge loads the real SmolLM2 weights from a loopback URL (skipped when HJ_ENGINE_DIR is unset).
"""

import functools
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.support.ui import Select, WebDriverWait

from app_page import CRITERIA, AppPage, tid
from conftest import DIST, ROOT, _StaticHandler

sys.path.insert(0, str(ROOT / "scripts"))
import finish_dist  # noqa: E402
from check_site_json import problem  # noqa: E402

CHECK_SITE = ROOT / "scripts" / "check_site.py"


def serve(directory, handler=_StaticHandler):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def site_dir(tmp_path, site=None, name="site", built=True):
    """dist/ as deployed (each entry linked, not copied), with this site.json: built with it, so
    written into the pages as scripts/finish_dist.py does, or, with `built=False`, dropped on
    the host after a build without one (the pages say `null`)."""
    d = tmp_path / name
    d.mkdir()
    text = None if site is None else site if isinstance(site, str) else json.dumps(site)
    for entry in DIST.iterdir():
        if entry.name not in ("site.json", "index.html", "embed.html", "lab"):
            (d / entry.name).symlink_to(entry)
    (d / "lab").mkdir()
    for entry in (DIST / "lab").iterdir():
        if entry.name != "index.html":
            (d / "lab" / entry.name).symlink_to(entry)
    if text is not None:
        (d / "site.json").write_text(text)
    rebuild_pages(d, text if built else None)
    return d


def rebuild_pages(d, text):
    """The pages of `d` as a build with site file `text` writes them (finish_dist.embed_site)."""
    for page in ["index.html", "embed.html", "lab/index.html"]:
        (d / page).unlink(missing_ok=True)
        (d / page).write_text(finish_dist.embed_site((DIST / page).read_text(), text))


@pytest.fixture
def site(tmp_path):
    """site(json) -> the URL of dist/ with that site.json (as conftest serves dist/)."""
    servers = []

    def make(config, handler=_StaticHandler):
        httpd, url = serve(site_dir(tmp_path, config, f"site{len(servers)}"), handler)
        servers.append(httpd)
        return url

    yield make
    for s in servers:
        s.shutdown()


def options(page):
    return [o.get_attribute("value") for o in Select(page.el("metric-select")).options]


# --- The site file's rules at build time ---------------------------------------------------


def test_the_built_static_shell_takes_the_sites_title_and_tagline():
    """The built page, its attributes as Trunk minified them: the shell a visitor sees before
    the wasm says the site's title and tagline, not ours; the embed's shell too."""
    for name in ["index.html", "embed.html"]:
        html = finish_dist.embed_site((DIST / name).read_text(), json.dumps({"title": "Birds & Co", "tagline": "Judge <our> captions"}))
        shell = re.search(r"id=\"?static-shell\"?.*?</header>", html, re.S).group(0)
        assert "<h1>Birds &amp; Co</h1>" in shell, shell
        assert "Judge &lt;our&gt; captions</p>" in shell, shell
        assert "<title>Birds &amp; Co</title>" in html


def wasm_imports(data):
    """(module, name) of each import of a wasm module, read with the build step's own reader."""
    i = 8
    while i < len(data):
        sid, (size, at) = data[i], finish_dist._leb(data, i + 1)
        if sid == 2:
            body, out = data[at:at + size], []
            count, j = finish_dist._leb(body, 0)
            for _ in range(count):
                module, j = finish_dist._name(body, j)
                name, j = finish_dist._name(body, j)
                j = finish_dist._skip_import_desc(body, j)
                out.append((module, name))
            return out
        i = at + size
    return []


@pytest.mark.parametrize("page", [".", "lab"])
def test_the_built_wasm_imports_its_glue_by_short_names_the_glue_defines(page):
    """finish_dist's shorten_imports: no wasm-bindgen name with its hash digits is left in the
    page's wasm, each short name is a key of the glue's imports object, and the page's integrity
    hashes are those of the files as rewritten (a browser refuses the others; every browser test
    loads them)."""
    d = DIST / page
    glue = next(p for p in d.glob("*.js") if re.fullmatch(r"harmonic-judge(-lab)?-[0-9a-f]+\.js", p.name))
    wasm = d / (glue.stem + "_bg.wasm")
    imports = [name for module, name in wasm_imports(wasm.read_bytes()) if module.endswith("_bg.js")]
    assert len(imports) > 200, len(imports)
    assert all(len(n) <= 2 for n in imports), [n for n in imports if len(n) > 2][:5]
    assert len(set(imports)) == len(imports)
    js = glue.read_text()
    assert not re.search(r"__wb\w*_[0-9a-f]{8,16}\b", js), "a wasm-bindgen name with its hash is left in the glue"
    for name in imports:
        assert re.search(r"[{,]" + re.escape(name) + r":", js), name
    html = (d / "index.html").read_text()
    for f in (glue, wasm):
        assert finish_dist.sri(f.read_bytes()) in html, f.name


def test_the_evaluators_preloads_wait_for_its_first_paint_and_each_file_is_fetched_once(browser, app_url):
    """Issue 43: preloaded in the head, the glue, its split loader and the wasm arrived and were
    compiled before the first frame. The build moves them into the shell's
    `<template id=hj-preloads>`, which the shell's script puts into the head once it has painted
    (unless the loader has already asked for them). The embed, which has no shell script, keeps
    them in its head. In the browser the page still fetches each file once, and mounts."""
    html = (DIST / "index.html").read_text()
    head = html[:html.index("<body")]
    assert not finish_dist.PRELOAD.search(head), finish_dist.PRELOAD.search(head).group(0)
    template = re.search(r"<template id=\"?hj-preloads\"?>(.*?)</template>", html, re.S)
    assert template, "no preload template in the shell"
    links = {re.search(r'href="?\./([^" >]+)', link).group(1): link
             for link in finish_dist.PRELOAD.findall(template.group(1))}
    names = sorted(links)
    assert len(finish_dist.PRELOAD.findall(template.group(1))) == len(names), "a file preloaded twice"
    # (Trunk's hash is a u64 in hex without leading zeros: not always 16 digits)
    assert [re.sub(r"-[0-9a-f]+(?=[._])", "", n) for n in names] == ["harmonic-judge.js", "harmonic-judge_bg.wasm", "split.js"], names
    for name, link in links.items():
        assert finish_dist.sri((DIST / name).read_bytes()) in link, name
    assert html.index("hj-preloads") < html.index("hj-shell-interactive"), "the template comes before the script that uses it"
    embed = (DIST / "embed.html").read_text()
    assert len(finish_dist.PRELOAD.findall(embed[:embed.index("<body")])) == 3
    assert "hj-preloads" not in embed
    page = AppPage(browser, app_url)
    fetched = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name.split('/').pop())")
    for name in names:
        assert fetched.count(name) == 1, (name, fetched)
    assert page.el("evaluate-button").is_enabled()


def test_the_build_refuses_a_site_file_with_a_key_with_the_pages_sentence(tmp_path):
    assert problem('{"judge": {"provider": "openai", "base_url": "https://proxy.example/v1"}}') is None
    for text, says in [
        ('{"judge": {"provider": "openai", "api_key": "sk-1"}}', '"judge.api_key" looks like one'),
        ('{"apiKey": "x"}', '"apiKey" looks like one'),
        ('{"judge": {"provider": "openai", "headers": {"Authorization": "Bearer x"}}}', "judge.headers.Authorization"),
        ('{"tagline": "sk-proj-123"}', '"tagline" looks like one'),
        ('{"metrics": ["bleu"]}', '"bleu", which is not one of'),
        ('{"judge": {"provider": "nope"}}', '"nope" is not one of'),
    ]:
        p = problem(text)
        assert p and p.startswith("This site's site.json was not used (") and says in p, (text, p)
    bad = tmp_path / "site.json"
    bad.write_text('{"judge": {"provider": "openai", "api_key": "sk-1"}}')
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "check_site_json.py"), str(bad)],
                         capture_output=True, text=True)
    assert run.returncode == 1 and "must never hold a key" in run.stderr, run.stderr


# --- Worked example 1: visitors judged through the owner's proxy ----------------------------


def test_a_fresh_visitor_judges_through_the_owners_proxy_with_no_key(browser, site, fake, images):
    url = site({
        "title": "Caption lab",
        "tagline": "Judged through our proxy: no key needed.",
        "judge": {"provider": "openai", "base_url": fake.url, "model": "gpt-4o-mini"},
        "metrics": ["harmonic_eval", "fleur"],
        "open_example": "gamma-flip-a",
        "lab": False,
    })
    page = AppPage(browser, url)
    assert page.el("site-title").text == "Caption lab" and browser.title == "Caption lab"
    assert page.el("site-tagline").text == "Judged through our proxy: no key needed."
    assert not browser.find_elements(*tid("tab-batch")), "the lab is not linked"
    assert options(page) == ["harmonic_eval", "fleur"], "only the metrics offered"
    assert Select(page.el("preset-select")).first_selected_option.get_attribute("value") == "openai"
    assert page.el("base-url-input").get_attribute("value") == fake.url
    assert page.el("model-input").get_attribute("value") == "gpt-4o-mini"
    assert page.el("api-key-input").get_attribute("value") == ""
    # The example the site names is open, with no request.
    page.wait_for(lambda d: page.el("opened-note").is_displayed(), "the site's first example")
    assert len(fake.requests) == 0
    # The visitor judges an image of their own, with no key.
    page.select_task("ic")
    page.upload(images / "photo.png")
    page.wait_image()
    page.fill("text-input", "A dog runs across a grassy park.")
    page.evaluate()
    page.wait_settled()
    assert all(page.state(c) == "done" for c in CRITERIA), [page.card(c).text[:100] for c in CRITERIA]
    chat = [r for r in fake.requests if r["path"].endswith("/chat/completions")]
    assert len(chat) == 5
    assert all("authorization" not in r["headers"] for r in chat), "no key was sent: the proxy holds it"
    assert all(r["body"]["model"] == "gpt-4o-mini" for r in chat)
    # Copy embed code gives the embed's URL, which carries the result.
    page.el("copy-link-button").click()
    page.wait_for(lambda d: page.el("share-link").text.startswith("http"), "the share link")
    page.el("copy-embed-button").click()
    code = page.el("embed-code").text
    assert re.search(r'<iframe src="http://127\.0\.0\.1:\d+/embed\.html\?embed#r=', code), code


@pytest.mark.parametrize("built", [False, True], ids=["dropped-beside", "built-in"])
def test_a_site_that_opens_an_example_on_arrival_judges_the_visitors_own_photo(browser, tmp_path, fake, images, built):
    """Issue 72: docs/deploying.md's demo recipe, as an owner deploys it: this site.json (a
    custom OpenAI-compatible judge with no key, an example opened on arrival, no lab), served as
    plain static files, dropped beside a build made without it or built into the pages. The
    example opens with its score and no request; the visitor's own photo and caption are then
    judged through the owner's server, five requests, every criterion done. A file served from
    the first byte is no late arrival: no "arrived after" line."""
    config = {"title": "Caption lab demo", "tagline": "Judged by our own proxy",
              "judge": {"provider": "custom", "base_url": fake.url, "model": "gpt-4o"},
              "metrics": ["harmonic_eval"], "open_example": "gamma-flip-b", "lab": False}
    httpd, url = serve(site_dir(tmp_path, config, built=built), SimpleHTTPRequestHandler)
    try:
        page = AppPage(browser, url)
        page.wait_for(lambda d: page.el("site-title").text == "Caption lab demo", "the site's title")
        page.wait_for(lambda d: page.el("opened-note").is_displayed() and page.overall() is not None,
                      "the site's example with its score", 30)
        assert "good on every criterion" in page.el("opened-note").text
        assert Select(page.el("preset-select")).first_selected_option.get_attribute("value") == "custom"
        assert page.el("api-key-input").get_attribute("value") == ""
        assert not fake.requests, "opening the example asks nothing"
        page.upload(images / "photo.png")
        page.wait_image()
        page.fill("text-input", "A dog runs across a grassy park.")
        page.evaluate()
        page.wait_settled(timeout=30)
        assert all(page.state(c) == "done" for c in CRITERIA), [page.card(c).text[:120] for c in CRITERIA]
        chat = [r for r in fake.requests if r["path"].endswith("/chat/completions")]
        assert len(chat) == 5, [r["path"] for r in fake.requests]
        assert all("authorization" not in r["headers"] for r in chat), "the owner's server holds no key of the visitor's"
        assert all(r["body"]["model"] == "gpt-4o" for r in chat)
        sent = json.dumps(chat[0]["body"])
        assert "A dog runs across a grassy park." in sent and "Two squares" not in sent, "the visitor's caption, not the example's"
        notes = browser.find_elements(*tid("site-changed-note"))
        assert not notes or "arrived after" not in notes[0].text, notes[0].text
    finally:
        httpd.shutdown()


def test_a_returning_visitor_follows_the_owners_changes_and_keeps_what_they_chose(browser, tmp_path, fake):
    """The owner edits site.json between visits (same browser profile, same origin): the new
    title, judge model and metrics reach the visitor for everything they never set; a model they
    typed themselves stays, and the page says once that the site's suggestion changed."""
    def owner(title, model, metrics):
        return {"title": title, "judge": {"provider": "openai", "base_url": fake.url, "model": model},
                "metrics": metrics}

    d = site_dir(tmp_path, owner("Owner one", "model-one", ["harmonic_eval", "fleur"]), "owner")

    def edit(config):
        (d / "site.json").write_text(json.dumps(config))
        run = subprocess.run([sys.executable, str(ROOT / "scripts" / "finish_dist.py"), "--site", str(d)],
                             capture_output=True, text=True)
        assert run.returncode == 0 and "wrote the site file into" in run.stdout, run.stdout + run.stderr

    httpd, url = serve(d)
    try:
        def suggested(model):
            # The page remembers the site's suggestion once it has compared it (the `site` chunk).
            page.wait_for(lambda dr: model in (dr.execute_script("return localStorage.getItem('hj.site.suggested')") or ""),
                          f"the suggestion of {model} to be remembered")

        def no_note():
            assert not browser.find_elements(*tid("site-changed-note"))
            with pytest.raises(TimeoutException):  # nor does one come a moment later
                page.wait_for(lambda dr: dr.find_elements(*tid("site-changed-note")), "a note", 1)

        page = AppPage(browser, url)
        assert page.el("site-title").text == "Owner one"
        assert page.el("model-input").get_attribute("value") == "model-one"
        assert options(page) == ["harmonic_eval", "fleur"]
        suggested("model-one")
        no_note()  # a first visit has nothing to say
        # The owner changes the title, the judge's model and the metrics (FLEUR first now), and
        # rebuilds (or writes it into the pages with `finish_dist.py --site`).
        edit(owner("Owner two", "model-two", ["fleur", "harmonic_eval"]))
        page = AppPage(browser, url)
        assert page.el("site-title").text == "Owner two"
        assert page.el("model-input").get_attribute("value") == "model-two", "the visitor never set the model"
        assert options(page) == ["fleur", "harmonic_eval"]
        assert Select(page.el("metric-select")).first_selected_option.get_attribute("value") == "fleur", \
            "the visitor never chose a metric: the site's first"
        suggested("model-two")
        no_note()  # nothing of the visitor's was overridden
        # The visitor types a model of their own; the owner changes theirs again.
        page.fill("model-input", "my-own-model")
        page.wait_for(lambda dr: dr.execute_script("return localStorage.getItem('hj.openai.model')") == "my-own-model",
                      "the visitor's model to be kept")
        edit(owner("Owner three", "model-three", ["fleur", "harmonic_eval"]))
        page = AppPage(browser, url)
        assert page.el("site-title").text == "Owner three"
        assert page.el("model-input").get_attribute("value") == "my-own-model", "what the visitor typed stays"
        page.wait_for(lambda dr: dr.find_elements(*tid("site-changed-note")), "the note that the suggestion changed")
        note = page.el("site-changed-note").text
        assert "model-three" in note and "model-two" in note and "my-own-model" in note, note
        # Said once: the next visit has no note, and the visitor's model still stands.
        page = AppPage(browser, url)
        no_note()
        assert page.el("model-input").get_attribute("value") == "my-own-model"
        # Choosing the site's model again hands the field back to the site.
        page.fill("model-input", "model-three")
        page.wait_for(lambda dr: dr.execute_script("return localStorage.getItem('hj.openai.model')") is None,
                      "the suggestion not to be stored as a choice")
    finally:
        httpd.shutdown()


def test_an_owner_who_edits_the_hosts_site_json_without_rebuilding_reaches_the_next_visit(browser, tmp_path, fake):
    """The site file is in the page (no request before it shows); the loader asks the host for
    site.json beside the wasm. An edit of dist/site.json on the host is used as soon as the
    host's answer is there when the app starts, and kept for the visits after."""
    d = site_dir(tmp_path, {"title": "Built in", "metrics": ["harmonic_eval", "fleur"]}, "edited")
    httpd, url = serve(d)
    try:
        page = AppPage(browser, url)
        assert page.el("site-title").text == "Built in"
        assert "hj-site" in browser.page_source and "Built in" in browser.title
        # Same file on the host: nothing kept.
        page.wait_for(lambda dr: dr.execute_script("return window.hjSite && true"), "the loader's request")
        assert browser.execute_script("return localStorage.getItem('hj.site.file')") is None
        (d / "site.json").write_text(json.dumps({"title": "Edited on the host", "metrics": ["maev"]}))
        # The test server's Last-Modified has whole seconds: an edit in the same second as the
        # first visit's request would be answered 304 and the browser would keep the old text.
        # An owner's edit comes later than that; say so to the server.
        later = time.time() + 2
        os.utime(d / "site.json", (later, later))
        seen = []
        for _ in range(2):  # this visit uses the host's answer if it came first; the next always
            page = AppPage(browser, url)
            seen.append(page.el("site-title").text)
            page.wait_for(lambda dr: dr.execute_script("return localStorage.getItem('hj.site.file')"),
                          "the host's copy to be kept")
        assert seen[-1] == "Edited on the host", seen
        assert options(page) == ["maev"]
        kept = json.loads(browser.execute_script("return localStorage.getItem('hj.site.file')"))
        assert json.loads(kept["text"])["title"] == "Edited on the host" and "Built in" in kept["built"]
        # The owner removes the host's file: the page falls back to no site file at all.
        (d / "site.json").unlink()
        for _ in range(2):
            page = AppPage(browser, url)
        assert page.el("site-title").text == "harmonic-judge"
        assert options(page) == ["harmonic_eval", "fleur", "ref_fleur", "g_veval", "maev"]
        # A rebuild with another site file makes the kept copy stale: the new built-in one wins.
        rebuild_pages(d, json.dumps({"title": "Rebuilt"}))
        (d / "site.json").write_text(json.dumps({"title": "Rebuilt"}))
        page = AppPage(browser, url)
        assert page.el("site-title").text == "Rebuilt"
    finally:
        httpd.shutdown()


def held_site(gate):
    """A static handler that answers site.json only once `gate["open"]` (a threading.Event) is
    set: a slow host, whose answer reaches the page after it mounted."""
    class Held(_StaticHandler):
        def do_GET(self):
            if self.path.split("?")[0].endswith("/site.json"):
                gate["open"].wait(30)
            super().do_GET()
    return Held


def test_the_hosts_site_json_that_answers_after_the_app_mounted_applies_at_once(browser, tmp_path, fake, images):
    """Issue 58. A site built without a site file, with one put on the host, whose answer comes
    after the app has mounted: a new visitor's first visit shows the host's title, metrics and
    judge within a second of the answer, without a reload, and judges through the owner's
    backend. The owner then edits it: the first visit after the edit (the same profile, which
    starts with the copy kept from the first) shows the edit, and a caption and a model the
    visitor typed before it arrived are kept."""
    def owner(title, model, metrics, **more):
        return {"title": title, "judge": {"provider": "openai", "base_url": fake.url, "model": model},
                "metrics": metrics, **more}

    d = site_dir(tmp_path, owner("Host title", "gpt-4o-mini", ["harmonic_eval", "fleur"]), "late", built=False)
    assert "Host title" not in (d / "index.html").read_text(), "the pages hold no site file"
    gate = {"open": threading.Event()}
    httpd, url = serve(d, held_site(gate))

    def arrives_within_a_second(title):
        gate["open"].set()
        start = time.monotonic()
        page.wait_for(lambda dr: dr.find_element(*tid("site-title")).text == title, f"the title {title!r}", 5)
        took = time.monotonic() - start
        assert took < 1.0, f"the host's site file showed {took:.2f} s after its answer"
        page.wait_for(lambda dr: dr.title == title, "the document's title")

    try:
        page = AppPage(browser, url)
        assert page.el("site-title").text == "harmonic-judge", "the page mounted before the host answered"
        assert len(options(page)) == 5
        arrives_within_a_second("Host title")
        assert options(page) == ["harmonic_eval", "fleur"]
        assert page.el("model-input").get_attribute("value") == "gpt-4o-mini"
        assert page.el("base-url-input").get_attribute("value") == fake.url
        page.wait_for(lambda dr: dr.find_elements(*tid("site-changed-note")), "the line that says so")
        note = page.el("site-changed-note").text
        assert "arrived" in note and "the title" in note and "the judge's model" in note, note
        # Evaluate judges through the owner's backend, with no key.
        page.select_task("ic")
        page.upload(images / "small.png")
        page.wait_image()
        page.fill("text-input", "A small striped square.")
        page.evaluate()
        page.wait_settled()
        chat = [r for r in fake.requests if r["path"].endswith("/chat/completions")]
        assert len(chat) == 5 and all(r["body"]["model"] == "gpt-4o-mini" for r in chat)
        assert all(page.state(c) == "done" for c in CRITERIA), [page.card(c).text[:100] for c in CRITERIA]

        # The owner edits the host's file (no rebuild); the same visitor comes back.
        (d / "site.json").write_text(json.dumps(owner("Edited title", "model-two", ["fleur", "harmonic_eval"],
                                                      open_example="gamma-flip-a")))
        later = time.time() + 2  # Last-Modified has whole seconds (see the test above)
        os.utime(d / "site.json", (later, later))
        gate["open"] = threading.Event()
        page = AppPage(browser, url)
        assert page.el("site-title").text == "Host title", "the copy kept from the first visit, until the host answers"
        page.fill("text-input", "My own caption, typed before the host answered.")
        page.fill("model-input", "my-own-model")
        page.wait_for(lambda dr: dr.execute_script("return localStorage.getItem('hj.openai.model')") == "my-own-model",
                      "the visitor's model to be kept")
        arrives_within_a_second("Edited title")
        assert options(page) == ["fleur", "harmonic_eval"]
        assert Select(page.el("metric-select")).first_selected_option.get_attribute("value") == "fleur", \
            "the visitor chose no metric: the site's first"
        assert page.el("model-input").get_attribute("value") == "my-own-model", "what the visitor typed stays"
        assert page.el("text-input").get_attribute("value") == "My own caption, typed before the host answered."
        page.wait_for(lambda dr: dr.find_elements(*tid("site-changed-note")), "the note")
        note = page.el("site-changed-note").text
        assert "model-two" in note and "my-own-model" in note, note
        time.sleep(0.5)  # the site's example is not opened over the visitor's caption
        assert not browser.find_elements(*tid("opened-note"))
        assert page.el("text-input").get_attribute("value") == "My own caption, typed before the host answered."
    finally:
        gate["open"].set()
        httpd.shutdown()


def test_a_site_file_with_a_key_is_refused_in_one_sentence_and_the_page_keeps_its_defaults(browser, site):
    url = site({"title": "Mine", "judge": {"provider": "openai", "api_key": "sk-owner-secret"}})
    page = AppPage(browser, url)
    problem_text = page.el("site-problem").text
    assert problem_text.startswith("This site's site.json was not used (it must never hold a key")
    assert "sk-owner-secret" not in problem_text
    assert page.el("site-title").text == "harmonic-judge"
    assert len(options(page)) == 5 and browser.find_elements(*tid("tab-batch"))
    # Not JSON at all: the same, never a blank page.
    page = AppPage(browser, site("{not json"))
    assert "is not valid JSON" in page.el("site-problem").text


# --- Framing and the embed ------------------------------------------------------------------


class _NoHeaders(SimpleHTTPRequestHandler):
    """A host that sends no header of the owner's (GitHub Pages): the script fallback alone."""
    extensions_map = _StaticHandler.extensions_map

    def log_message(self, *args):
        pass


def framer(tmp_path, src):
    d = tmp_path / "framer"
    d.mkdir(exist_ok=True)
    (d / "index.html").write_text(f'<!doctype html><title>other site</title><iframe id="f" src="{src}" '
                                  'width="1000" height="900"></iframe>')
    return serve(d, _NoHeaders)


def in_frame(browser, url, tmp_path):
    httpd, outer = framer(tmp_path, url)
    browser.get(outer)
    browser.switch_to.frame(browser.find_element("id", "f"))
    return httpd


@pytest.mark.parametrize("host", ["headers", "script"])
def test_another_origin_that_frames_the_full_evaluator_gets_nothing_usable(browser, site, tmp_path, host):
    url = site(None, _StaticHandler if host == "headers" else _NoHeaders)
    httpd = in_frame(browser, url, tmp_path)
    try:
        time.sleep(3)  # time for the wasm to mount, were it allowed to
        assert not browser.find_elements(*tid("api-key-input"))
        assert not browser.find_elements(*tid("metric-select"))
        if host == "script":
            # No header: the page itself refuses, with a sentence and a link to its own tab.
            refusal = browser.find_element(*tid("framed-refusal"))
            assert "does not run inside another site's frame" in refusal.text
            link = refusal.find_element("css selector", "a")
            assert link.get_attribute("target") == "_blank" and link.get_attribute("href") == url
    finally:
        browser.switch_to.default_content()
        httpd.shutdown()


def test_the_embed_frames_shows_the_example_and_has_no_key_field(browser, site, tmp_path, fake):
    url = site({"judge": {"provider": "openai"}})
    # A key this visitor stored for the site earlier: the embed never uses it.
    AppPage(browser, url)
    browser.execute_script("localStorage.setItem('hj.openai.api_key', 'sk-stored-visitor-key')")
    httpd = in_frame(browser, url + "embed.html?embed&example=gamma-flip-a", tmp_path)
    try:
        page = AppPage.__new__(AppPage)
        page.d = browser
        page.wait_for(lambda d: d.find_elements(*tid("embed")), "the embed")
        page.wait_for(lambda d: page.el("opened-note").is_displayed(), "the example in the embed")
        assert all(page.state(c) == "done" for c in CRITERIA)
        assert page.el("gamma-value").text
        page.wait_for(lambda d: d.find_elements(*tid("weights-plot")), "the weights chart")
        assert not browser.find_elements(*tid("api-key-input"))
        assert not browser.find_elements(*tid("preset-select"))
        full = page.el("open-full-link")
        assert full.get_attribute("href") == url + "?example=gamma-flip-a" and full.get_attribute("target") == "_blank"
        # Explain asks no judge here: the site's judge needs the visitor's key.
        page.el("explain-correctness").click()
        page.wait_for(lambda d: "sends nothing to any judge" in page.el("embed-error").text, "the embed's refusal")
        sent = browser.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"
            ".filter(n => !n.startsWith(location.origin))")
        assert sent == [], sent
    finally:
        browser.switch_to.default_content()
        httpd.shutdown()


# --- The deploy recipes and scripts/check_site.py --------------------------------------------


def check_site(url, *extra):
    run = subprocess.run([sys.executable, str(CHECK_SITE), url, *extra], capture_output=True, text=True, timeout=300)
    return run.returncode, run.stdout + run.stderr


def headers_rules(path):
    """Netlify's and Cloudflare Pages' _headers: (pattern, [(name, value)]) in file order."""
    rules = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            rules.append((line.strip(), []))
        else:
            name, value = line.strip().split(":", 1)
            rules[-1][1].append((name.strip(), value.strip()))
    return rules


def rules_handler(headers_for):
    """A static server that adds `headers_for(path, query)`'s (name, value) pairs to every
    answer, as a host applies its header rules (`query`: the parsed query string)."""
    from urllib.parse import parse_qs, urlsplit

    class Handler(SimpleHTTPRequestHandler):
        extensions_map = _StaticHandler.extensions_map

        def end_headers(self):
            parts = urlsplit(self.path)
            for name, value in headers_for(parts.path, parse_qs(parts.query, keep_blank_values=True)):
                self.send_header(name, value)
            super().end_headers()

        def log_message(self, *args):
            pass

    return Handler


def headers_handler(rules):
    """Serves as those hosts do: every rule whose path pattern (`*`: anything) matches the
    request's path adds its headers; the query string plays no part."""
    return rules_handler(lambda path, _query: [
        h for pattern, headers in rules if re.fullmatch(re.escape(pattern).replace(r"\*", ".*"), path) for h in headers])


@pytest.mark.parametrize("recipe", ["netlify", "cloudflare-pages"])
def test_check_site_passes_on_a_host_set_up_as_the_headers_recipe_says(tmp_path, recipe):
    d = site_dir(tmp_path, {"title": "Demo", "judge": {"provider": "openai", "base_url": "https://proxy.example/v1"}})
    rules_file = ROOT / "docs" / "deploy" / recipe / "_headers"
    shutil.copy(rules_file, d / "_headers")
    httpd, url = serve(d, headers_handler(headers_rules(rules_file)))
    try:
        rc, out = check_site(url)
        assert rc == 0, out
        assert "isolation headers: COOP same-origin" in out and "framing policy of /: frame-ancestors 'self'" in out, out
        assert "framing of /embed.html?embed: allowed" in out and "site.json: valid" in out, out
        assert re.search(r"/chunk-run-[0-9a-f]+\.wasm \(application/wasm", out), out
        # Every chunk the build placed, found from the loader alone (its names are short).
        named = re.search(r"ok +/: (\d+) on-demand chunks named by its loaders", out)
        assert named and int(named.group(1)) == len(list(DIST.glob("chunk-*.wasm"))), out[-2000:]
    finally:
        httpd.shutdown()


def vercel_source(source):
    """A vercel.json `source` (path-to-regexp) as a regular expression: `(…)` groups are regular
    expressions already, `/:name*` is zero or more further segments, `:name` one segment; the
    rest is literal. Vercel matches the path without the query, a trailing slash optional."""
    out, i = "", 0
    while i < len(source):
        m = re.match(r"/:\w+\*", source[i:])
        if m:
            out, i = out + r"(?:/.*)?", i + m.end()
            continue
        m = re.match(r":\w+", source[i:])
        if m:
            out, i = out + r"[^/]+", i + m.end()
            continue
        if source[i] == "(":
            depth, j = 0, i
            while True:
                depth += {"(": 1, ")": -1}.get(source[j], 0)
                j += 1
                if depth == 0:
                    break
            out, i = out + source[i:j], j
            continue
        out, i = out + re.escape(source[i]), i + 1
    return out + "/?"


def vercel_handler(config):
    """Serves as Vercel applies vercel.json's `headers`: every rule whose `source` matches the
    path, and none of whose `missing` query keys is present, adds its headers."""
    rules = [(re.compile(vercel_source(r["source"])), [m["key"] for m in r.get("missing", []) if m["type"] == "query"],
              [(h["key"], h["value"]) for h in r["headers"]]) for r in config["headers"]]
    return rules_handler(lambda path, query: [
        h for source, missing, headers in rules
        if source.fullmatch(path) and not any(k in query for k in missing) for h in headers])


def test_the_vercel_recipe_matches_as_vercel_reads_it():
    """The rule reader above, on the path patterns vercel.json uses: it must not pass the recipe
    by matching everything."""
    rx = lambda s: re.compile(vercel_source(s))  # noqa: E731
    assert rx("/(.*)").fullmatch("/a/b.wasm") and rx("/(.*)").fullmatch("/")
    assert rx("/").fullmatch("/") and not rx("/").fullmatch("/lab/")
    assert rx("/lab/:path*").fullmatch("/lab/") and rx("/lab/:path*").fullmatch("/lab/x/y.js")
    assert not rx("/lab/:path*").fullmatch("/labs") and not rx("/lab/:path*").fullmatch("/embed.html")
    assert rx("/site.json").fullmatch("/site.json") and not rx("/site.json").fullmatch("/site_json")


def test_check_site_passes_on_a_host_set_up_as_the_vercel_recipe_says(tmp_path):
    """docs/deploy/vercel.json, served with its header rules applied as Vercel applies them: the
    page is isolated, refuses framing except its embed (`?embed`), and site.json is revalidated."""
    d = site_dir(tmp_path, {"title": "Demo", "judge": {"provider": "openai", "base_url": "https://proxy.example/v1"}})
    config = json.loads((ROOT / "docs" / "deploy" / "vercel.json").read_text())
    httpd, url = serve(d, vercel_handler(config))
    try:
        rc, out = check_site(url)
        assert rc == 0, out
        assert "isolation headers: COOP same-origin" in out and "framing policy of /: frame-ancestors 'self'" in out, out
        assert "framing policy of /lab/: frame-ancestors 'self'" in out, out
        assert "framing of /embed.html?embed: allowed" in out and "framing of /?embed: allowed" in out, out
        assert "site.json: valid" in out, out
        with urllib.request.urlopen(url + "site.json") as r:
            assert r.headers["Cache-Control"] == "no-cache"
        with urllib.request.urlopen(url + "?embed") as r:
            assert r.headers["X-Frame-Options"] is None and r.headers["Cross-Origin-Opener-Policy"] == "same-origin"
    finally:
        httpd.shutdown()


def nginx_binary():
    return shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)


def test_check_site_passes_behind_nginx_set_up_as_the_recipe_says(tmp_path):
    nginx = nginx_binary()
    if nginx is None:
        pytest.fail("nginx is missing: run scripts/setup.sh --test (it installs nginx-light)")
    d = site_dir(tmp_path)
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    recipe = (ROOT / "docs" / "deploy" / "nginx.conf").read_text()
    recipe = recipe.replace("listen 8080;", f"listen 127.0.0.1:{port};").replace(
        "root /srv/harmonic-judge/dist;", f"root {d};").replace("include mime.types;", "include /etc/nginx/mime.types;")
    run_dir = tmp_path / "nginx"
    run_dir.mkdir()
    (run_dir / "site.conf").write_text(recipe)
    (run_dir / "nginx.conf").write_text(
        # `user root`: the workers must read pytest's private temporary folders.
        f"daemon off; user root; pid {run_dir}/nginx.pid; error_log {run_dir}/error.log; worker_processes 1;\n"
        f"events {{}}\nhttp {{ access_log off; client_body_temp_path {run_dir}/body; proxy_temp_path {run_dir}/proxy;\n"
        f"  fastcgi_temp_path {run_dir}/fastcgi; uwsgi_temp_path {run_dir}/uwsgi; scgi_temp_path {run_dir}/scgi;\n"
        f"  include {run_dir}/site.conf; }}\n")
    proc = subprocess.Popen([nginx, "-e", str(run_dir / "error.log"), "-p", str(run_dir), "-c", str(run_dir / "nginx.conf")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}/"
        end = time.time() + 20
        while True:
            assert proc.poll() is None, proc.stdout.read().decode()
            try:
                urllib.request.urlopen(url, timeout=2).close()
                break
            except OSError:
                assert time.time() < end, "nginx did not answer"
                time.sleep(0.2)
        rc, out = check_site(url)
        assert rc == 0, out
        assert "framing policy of /lab/: frame-ancestors 'self'" in out and "framing of /embed.html?embed: allowed" in out, out
        assert "framing of /?embed: allowed" in out, out
    finally:
        proc.terminate()
        proc.wait(10)


def test_check_site_names_a_wasm_served_as_text_and_a_missing_chunk(tmp_path):
    class TextWasm(_StaticHandler):
        extensions_map = {**_StaticHandler.extensions_map, ".wasm": "text/plain"}

    httpd, url = serve(site_dir(tmp_path, name="text"), TextWasm)
    try:
        rc, out = check_site(url)
        assert rc == 1 and re.search(r"FAIL  /harmonic-judge-[0-9a-f]+_bg\.wasm: served as text/plain, must be application/wasm", out), out
    finally:
        httpd.shutdown()
    d = site_dir(tmp_path, name="missing")
    chunk = sorted(d.glob("chunk-run-*.wasm"))[0]
    chunk.unlink()
    httpd, url = serve(d)
    try:
        rc, out = check_site(url)
        assert rc == 1 and f"FAIL  /{chunk.name}: HTTP 404 (a file the page loads is missing)" in out, out
    finally:
        httpd.shutdown()


# --- Worked example 2: visitors judged inside the page --------------------------------------


def test_a_fresh_visitor_judges_inside_the_page_with_the_sites_model(browser, site, tmp_path, images):
    if not os.environ.get("HJ_ENGINE_DIR"):
        pytest.skip("HJ_ENGINE_DIR is unset: the real SmolLM2 weights are not here")
    from test_in_browser import LOAD, MODEL, ModelHost

    engine = Path(os.environ["HJ_ENGINE_DIR"])
    models = tmp_path / "models"
    models.mkdir()
    for name in (MODEL, "projector.gguf"):
        (models / name).symlink_to(engine / name)
    host = ModelHost(models)
    try:
        url = site({
            "title": "Judged in your browser",
            "judge": {"provider": "in_browser", "model_url": f"{host.url}/{MODEL}",
                      "projector_url": f"{host.url}/projector.gguf"},
            "metrics": ["fleur"],
        })
        page = AppPage(browser, url)
        assert options(page) == ["fleur"]
        assert Select(page.el("preset-select")).first_selected_option.get_attribute("value") == "in_browser"
        page.wait_for(lambda d: d.find_elements(*tid("model-url-input")), "the in-page judge's settings")
        assert page.el("model-url-input").get_attribute("value") == f"{host.url}/{MODEL}"
        assert page.el("projector-url-input").get_attribute("value") == f"{host.url}/projector.gguf"
        assert not browser.find_elements(*tid("api-key-input")) or page.el("api-key-input").get_attribute("value") == ""
        page.el("load-model-button").click()
        page.wait_for(lambda d: page.el("model-load-progress").get_attribute("data-status") in ("ready", "error"),
                      "the site's model to load", LOAD)
        assert page.el("model-load-progress").get_attribute("data-status") == "ready", page.el("model-load-status").text
        page.upload(images / "small.png")
        page.wait_image()
        page.fill("text-input", "A small colourful square pattern.")
        page.evaluate()
        page.wait_for(lambda d: page.el("overall-score").get_attribute("data-state") in ("done", "error"),
                      "FLEUR's score from the in-page judge", 900)
        score = page.el("overall-score")
        if score.get_attribute("data-state") == "error":
            # SmolLM2-135M often prints no usable score (test_real_engine.py reads it the same
            # way): the judge answered, and the answer was read, not a transport failure.
            text = browser.find_element("css selector", ".card.fleur .error").text
            assert "no score" in text or "outside the score range" in text, text
        else:
            assert 0.0 <= float(score.get_attribute("data-value")) <= 1.0
        assert host.gets[f"/{MODEL}"] == 1 and host.gets["/projector.gguf"] == 1, host.gets
    finally:
        host.stop()


# --- The isolation worker (site.json "isolation_worker", issue 42) -------------------------


def isolated(browser):
    return browser.execute_script("return crossOriginIsolated;")


def test_the_isolation_worker_isolates_a_host_without_headers_and_leaves_when_turned_off(browser, tmp_path):
    """A host that cannot send COOP and COEP (GitHub Pages; this test server sends neither):
    with the switch on, the first visit registers src/web/coi.js and reloads once; the page is
    then cross-origin isolated, so the judge inside it may use threads. Turned off in the host's
    site.json, the worker is removed on the next visit and the one after is not isolated."""
    d = site_dir(tmp_path, {"title": "Threads", "isolation_worker": True}, "iso")
    httpd, url = serve(d)
    try:
        browser.get(url)
        WebDriverWait(browser, 30).until(lambda dr: isolated(dr), "the page isolated by the worker")
        page = AppPage(browser, url)
        assert isolated(browser)
        assert browser.execute_script("return navigator.serviceWorker.controller.scriptURL;") == url + "coi.js"
        assert browser.execute_script("return sessionStorage.getItem('hj.isolation.reloaded');") == "1"
        Select(page.el("preset-select")).select_by_value("in_browser")
        page.wait_for(lambda dr: "Cross-origin isolated" in page.el("threads-info").text, "the threads sentence")
        assert "the engine will use" in page.el("threads-info").text  # up to N threads, or one on one core
        # The lab is under the same worker.
        AppPage(browser, url + "lab/")
        assert isolated(browser)
        # The owner turns it off on the host, without a rebuild.
        (d / "site.json").write_text(json.dumps({"title": "Threads"}))
        later = time.time() + 2
        os.utime(d / "site.json", (later, later))
        AppPage(browser, url)
        WebDriverWait(browser, 30).until(
            lambda dr: dr.execute_async_script(
                "const done = arguments[0]; navigator.serviceWorker.getRegistrations().then(r => done(r.length));") == 0,
            "the worker to be removed")
        rebuild_pages(d, json.dumps({"title": "Threads"}))
        AppPage(browser, url)
        assert not isolated(browser)
        assert browser.execute_script("return navigator.serviceWorker.controller;") is None
    finally:
        httpd.shutdown()


def test_without_the_switch_no_worker_is_registered_and_the_start_script_stays_small(browser, site):
    url = site({"title": "Plain"})
    AppPage(browser, url)
    assert not isolated(browser)
    assert browser.execute_async_script(
        "const done = arguments[0]; navigator.serviceWorker.getRegistrations().then(r => done(r.length));") == 0
    # The worker's registration code is its own file, fetched only where the switch is on.
    entries = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name);")
    assert not [e for e in entries if "isolation-" in e or e.endswith("coi.js")], entries
