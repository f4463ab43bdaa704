"""End-to-end: one image pipeline everywhere (issue 69). A photo and a REG item go to a judge
through the page (the lab's run in Chromium), through `hj run` and through the Python package's
`plan`; each request's image is a JPEG of the same width and height from all three (the longest
side 1,024, the page's rounding), the REG item's box is drawn in red along its edges in all three
(the command line and Python draw it; no flag), and `--boxes-drawn` sends the image scaled without
drawing again. The page's pixels come from the browser's decoder and canvas, the others' from the
`image` crate, so they are compared within a tolerance; `hj` and Python share the core's code and
send the same bytes."""

import base64
import io
import json
import os
import subprocess
import zipfile

import pytest

from app_page import AppPage, tid
from conftest import _png
from fakes.base import image_parts, prompt_text
from fakes.openai import FakeOpenAI
from test_cli import hj, package  # noqa: F401 (the fixtures: hj built, the package in a venv)

PHOTO_TEXT = "A test pattern with colour bars and a moving circle."
REG_TEXT = "the blue square in the middle"
# 1500 × 1006 (even: ffmpeg's JPEG is 4:2:0): 1006 × 1024 / 1500 = 686.8, so the page's rounding
# (687) differs from cutting (686).
PHOTO_SIZE, PHOTO_SENT = (1500, 1006), (1024, 687)
REG_SIZE, REG_SENT = (1200, 1600), (768, 1024)
GREY = (90, 120, 160)
BOX = [0.25, 0.25, 0.75, 0.75]
KEY = "sk-test-same-pixels-0123"


@pytest.fixture
def dataset(tmp_path):
    """A photo (a JPEG with detail, made by ffmpeg) and a REG item on a grey portrait PNG."""
    photo = tmp_path / "photo.jpg"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=size={PHOTO_SIZE[0]}x{PHOTO_SIZE[1]}:rate=1", "-frames:v", "1", "-q:v", "3",
                    str(photo)], check=True)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("photo.jpg", photo.read_bytes())
        z.writestr("grey.png", _png(*REG_SIZE, lambda x, y: GREY))
    rows = [{"id": "photo", "task": "ic", "text": PHOTO_TEXT, "image": "photo.jpg"},
            {"id": "reg", "task": "reg", "text": REG_TEXT, "image": "grey.png", "box": BOX}]
    data = tmp_path / "dataset.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    images = tmp_path / "images.zip"
    images.write_bytes(archive.getvalue())
    return data, images


def sent_images(bodies):
    """{item id: [data URLs]} of the images the request bodies carry."""
    out = {}
    for body in bodies:
        text = prompt_text(body)
        item = "photo" if PHOTO_TEXT in text else "reg" if REG_TEXT in text else None
        for _, _, part in image_parts(body):
            out.setdefault(item, []).append(part["image_url"]["url"])
    return out


def jpeg_size(url):
    """(width, height) of a JPEG data URL, from its frame header; fails on anything else."""
    assert url.startswith("data:image/jpeg;base64,"), url[:40]
    b = base64.b64decode(url.split(",", 1)[1])
    assert b[:3] == b"\xff\xd8\xff", "a JPEG"
    i = 2
    while i + 9 < len(b):
        marker, length = b[i + 1], int.from_bytes(b[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(b[i + 7:i + 9], "big"), int.from_bytes(b[i + 5:i + 7], "big")
        i += 2 + length
    raise AssertionError("no frame header")


# The pixels of data URLs at points, and their mean absolute difference from the first, read by
# the browser's decoder.
PIXELS_JS = """
const [urls, points] = arguments;
const done = arguments[arguments.length - 1];
const load = (url) => new Promise((ok) => { const i = new Image(); i.onload = () => ok(i); i.src = url; });
Promise.all(urls.map(load)).then((imgs) => {
  const data = imgs.map((img) => {
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    return g.getImageData(0, 0, img.width, img.height).data;
  });
  const w = imgs[0].width;
  const at = (d, [x, y]) => Array.from(d.slice((y * w + x) * 4, (y * w + x) * 4 + 3));
  const diff = data.map((d) => {
    let s = 0;
    for (let k = 0; k < d.length; k++) if (k % 4 !== 3) s += Math.abs(d[k] - data[0][k]);
    return s / (d.length * 3 / 4);
  });
  done({sizes: imgs.map((i) => [i.width, i.height]), points: data.map((d) => points.map((p) => at(d, p))), diff});
});
"""


def box_edges():
    """Points on the REG box's four edges in the sent image, and points inside and outside it."""
    w, h = REG_SENT
    x0, y0, x1, y1 = (round(BOX[0] * w), round(BOX[1] * h), round(BOX[2] * w) - 1, round(BOX[3] * h) - 1)
    edges = [(x, y0) for x in range(x0 + 20, x1 - 20, 60)] + [(x, y1) for x in range(x0 + 20, x1 - 20, 60)]
    edges += [(x0, y) for y in range(y0 + 20, y1 - 20, 60)] + [(x1, y) for y in range(y0 + 20, y1 - 20, 60)]
    # Inside and outside, a JPEG block (16 px with 4:2:0 colour) away from the red line's ringing.
    return edges, [(w // 2, h // 2), (x0 + 24, y0 + 24), (x0 - 24, y0 - 24), (40, 40), (w - 40, h - 40)]


def through_the_page(browser, app_url, data, images, fake):
    page = AppPage(browser, app_url)
    page.set_backend(fake.url, "gpt-4o", KEY)
    page.el("tab-batch").click()
    page.wait_for(lambda d: d.find_elements(*tid("dataset-input")), "the batch view")
    page.el("dataset-input").send_keys(f"{data}\n{images}")
    page.wait_for(lambda d: page.el("batch-progress").get_attribute("data-total") == "2", "the dataset")
    page.el("run-batch-button").click()
    page.wait_for(lambda d: page.el("batch-progress").get_attribute("data-status") == "finished", "the run", 60)
    return sent_images(r["body"] for r in fake.requests if r.get("kind") == "rating")


def through_hj(hj, data, images, fake, tmp_path, *extra):  # noqa: F811
    out = tmp_path / f"results{len(extra)}.jsonl"
    done = subprocess.run([hj, "run", str(data), "--images", str(images), "--provider", "openai", "--base-url",
                           fake.url, "--model", "gpt-4o", "--out", str(out), *extra],
                          capture_output=True, text=True, env={**os.environ, "HJ_API_KEY": KEY}, timeout=300)
    assert done.returncode == 0, done.stderr
    return sent_images(r["body"] for r in fake.requests if r.get("kind") == "rating")


def through_python(package, data, images):  # noqa: F811
    py = subprocess.run([str(package), "-c", f"""
import json, harmonic_judge as hj
d = hj.Dataset({str(data)!r}, images={str(images)!r})
p = hj.plan(d, provider="openai", model="gpt-4o")
print(json.dumps({{"bodies": [l["body"] for l in p.lines()], "broken": p.broken}}))
"""], capture_output=True, text=True, timeout=300)
    assert py.returncode == 0, py.stderr
    got = json.loads(py.stdout)
    assert got["broken"] == [], got["broken"]
    return sent_images(got["bodies"])


def test_the_page_hj_and_python_send_the_same_pixels(browser, app_url, dataset, tmp_path, hj, package):  # noqa: F811
    data, images = dataset
    sent = {}
    for door in ("page", "hj", "hj --boxes-drawn"):
        fake = FakeOpenAI()
        try:
            if door == "page":
                sent[door] = through_the_page(browser, app_url, data, images, fake)
            else:
                sent[door] = through_hj(hj, data, images, fake, tmp_path, *door.split()[1:])
        finally:
            fake.stop()
    sent["python"] = through_python(package, data, images)
    doors = ["page", "hj", "python"]
    for door, by_item in sent.items():
        # HarmonicEval's two grounded criteria carry the image, for each item.
        assert sorted(by_item) == ["photo", "reg"], (door, sorted(by_item))
        for item, want in (("photo", PHOTO_SENT), ("reg", REG_SENT)):
            urls = by_item[item]
            assert len(urls) == 2 and len(set(urls)) == 1, (door, item, len(urls))
            assert jpeg_size(urls[0]) == want, (door, item)
    # hj and Python share the core's pipeline: the same bytes.
    for item in ("photo", "reg"):
        assert sent["hj"][item] == sent["python"][item], item

    edges, plain = box_edges()
    reg = browser.execute_async_script(
        PIXELS_JS, [sent[d]["reg"][0] for d in doors + ["hj --boxes-drawn"]], edges + plain)
    assert reg["sizes"] == [list(REG_SENT)] * 4
    for door, pixels in zip(doors + ["hj --boxes-drawn"], reg["points"]):
        on_edge, off = pixels[:len(edges)], pixels[len(edges):]
        red = [p for p in on_edge if p[0] > 200 and p[1] < 60 and p[2] < 60]
        if door == "hj --boxes-drawn":
            # The images were said to show their boxes already: none is drawn again.
            assert red == [], door
        else:
            assert len(red) == len(edges), (door, [p for p in on_edge if p not in red])
        for p, at in zip(off, plain):
            assert all(abs(c - g) <= 8 for c, g in zip(p, GREY)), (door, at, p)
    photo = browser.execute_async_script(PIXELS_JS, [sent[d]["photo"][0] for d in doors], [])
    print(f"\nsent sizes: photo {PHOTO_SIZE} -> {photo['sizes'][0]}, REG {REG_SIZE} -> {reg['sizes'][0]}; "
          f"mean |difference| from the page's pixels: photo {photo['diff'][1]:.2f} (hj), "
          f"{photo['diff'][2]:.2f} (Python); REG {reg['diff'][1]:.2f} (hj), {reg['diff'][2]:.2f} (Python)")
    # Two decoders, two scalers, two JPEG encoders: the same picture, about a level apart on
    # average (measured 1.27 for the test pattern, whose sharp edges differ most, and 0.43 for
    # the grey image with its box, of 255).
    assert photo["diff"][1] < 3 and photo["diff"][2] < 3, photo["diff"]
    assert reg["diff"][1] < 1.5 and reg["diff"][2] < 1.5, reg["diff"]
