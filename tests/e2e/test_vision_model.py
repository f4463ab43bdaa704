"""The test model shaped like SmolVLM-256M (scripts/make_smolvlm.py, cached by
scripts/smolvlm_model.sh) in the real llama-server, on one thread (issue 57).

The suite's projector (64 px, 17 tokens) hides what a visitor's real vision model costs. These
tests hold what the SmolVLM-256M shapes make llama.cpp do, and what it says to the three ways of
loading the wrong files:

- with SmolVLM's image tokens the model and projector load, and an image costs its views: 64
  tokens for each 512 px view, plus the delimiters mtmd wraps them in. With
  `clip.vision.preproc_image_size` (2048, what the converter writes for SmolVLM-256M) a
  640x480 photo is resized to 2048x1536 and cut into 4x3 tiles plus one global view (13
  encodes); without it, 2;
- plain SmolLM2 with SmolVLM's projector answers every image 400 "Invalid token";
- a projector for another width, a projector given as the model and a model given as the
  projector stop llama-server at start-up, with the lines crates/core/src/providers/in_browser pins.

Each request's time and its time per view are printed (pytest -s shows them); the weights are
random, so the answers mean nothing, and only the counts are asserted.
"""

import base64
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, _png
from engine import EngineDied, RealLlamaServer, free_port

ONE_THREAD = ("-t", "1")
PROMPT = "Rate this caption from 1 to 5: a dog on grass."
# The prompt tokens of one image, as mtmd lays it out for idefics3: each tile is
# <fake_token_around_image><row_R_col_C> and its 64 tokens, a "\n" between two rows of tiles (none
# after the last), and the global view is "\n\n"<fake_token_around_image><global-img>, its 64,
# <fake_token_around_image>.
TILE, GLOBAL = 2 + 64, 3 + 64 + 1


def tiled(cols, rows):
    """Prompt tokens of an image cut into cols x rows tiles plus the global view."""
    return cols * rows * TILE + (rows - 1) + GLOBAL


@pytest.fixture(scope="session")
def smolvlm_dir():
    """The SmolVLM-256M-shaped files; scripts/smolvlm_model.sh makes or reuses them."""
    out = subprocess.run([str(ROOT / "scripts" / "smolvlm_model.sh")], check=True, capture_output=True,
                         text=True)
    return Path(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def photo(tmp_path_factory):
    d = tmp_path_factory.mktemp("photo")
    path = d / "photo.png"
    path.write_bytes(_png(640, 480, lambda x, y: ((x * 7 + y * 3) % 256, (x ^ y) % 256, 255 - y % 256)))
    return path


def image_content(path):
    url = "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()
    return [{"type": "image_url", "image_url": {"url": url}}, {"type": "text", "text": PROMPT}]


def start(engine_dir, model, projector):
    try:
        return RealLlamaServer(engine_dir, vision=True, extra=ONE_THREAD, model=model, projector=projector)
    except EngineDied as e:
        pytest.fail(str(e), pytrace=False)


def image_tokens(server, photo, views):
    """The image's prompt tokens (the request's less the same text's), printing the timings."""
    status, text = server.chat(PROMPT, cache_prompt=False)
    assert status == 200, text
    started = time.monotonic()
    status, body = server.chat(image_content(photo), timeout=600, cache_prompt=False)
    took = time.monotonic() - started
    assert status == 200, body
    prompt_ms = body["timings"]["prompt_ms"]
    print(f"\n{views} views: request {took:.1f} s, prompt {prompt_ms / 1000:.1f} s "
          f"({body['usage']['prompt_tokens']} tokens), {prompt_ms / 1000 / views:.2f} s a view", file=sys.stderr)
    return body["usage"]["prompt_tokens"] - text["usage"]["prompt_tokens"]


def test_without_the_preproc_size_a_photo_is_two_views(engine_dir, smolvlm_dir, photo):
    server = start(engine_dir, smolvlm_dir / "SmolLM2-135M-Instruct-smolvlm.Q4_1.gguf",
                   smolvlm_dir / "smolvlm-projector-nopreproc.gguf")
    try:
        # One 512 px tile and the global view.
        assert image_tokens(server, photo, views=2) == tiled(1, 1) == 134
    finally:
        server.stop()


def test_with_the_preproc_size_a_photo_is_thirteen_views(engine_dir, smolvlm_dir, photo):
    """What today's converter writes for SmolVLM-256M: 640x480 becomes 2048x1536, 4x3 tiles and
    the global view. About 50-70 s on one thread of this project's 2-core machine."""
    server = start(engine_dir, smolvlm_dir / "SmolLM2-135M-Instruct-smolvlm.Q4_1.gguf",
                   smolvlm_dir / "smolvlm-projector.gguf")
    try:
        assert image_tokens(server, photo, views=13) == tiled(4, 3) == 862
    finally:
        server.stop()


def test_plain_smollm2_with_smolvlms_projector_refuses_every_image(engine_dir, smolvlm_dir, photo):
    server = start(engine_dir, None, smolvlm_dir / "smolvlm-projector-nopreproc.gguf")
    try:
        status, text = server.chat(PROMPT)
        assert status == 200, "text alone still works"
        status, body = server.chat(image_content(photo))
        # The body crates/core/src/answers/errors.rs pins: mtmd found no <fake_token_around_image>.
        assert (status, body) == (400, {"error": {"code": 400, "message": "Invalid token",
                                                  "type": "invalid_request_error"}})
    finally:
        server.stop()


def refusal(engine_dir, *args):
    """llama-server's output when it will not start with `args` (it exits at once)."""
    binary = Path(engine_dir) / "bin" / "llama-server"
    out = subprocess.run([str(binary), *args, "--host", "127.0.0.1", "--port", str(free_port()), *ONE_THREAD],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode != 0, "llama-server started"
    return out.stdout + out.stderr


def test_wrong_files_stop_llama_server_with_the_lines_the_page_reads(engine_dir, smolvlm_dir, tmp_path):
    text = smolvlm_dir / "SmolLM2-135M-Instruct-smolvlm.Q4_1.gguf"
    projector = smolvlm_dir / "smolvlm-projector-nopreproc.gguf"
    # A projector made for a text model 960 wide (SmolLM2-360M's width).
    wide = tmp_path / "wide.gguf"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_projector.py"), str(wide), "--width", "960"],
                   check=True)
    said = refusal(engine_dir, "-m", str(text), "--mmproj", str(wide))
    assert "mismatch between text model (n_embd = 576) and mmproj (n_embd = 960)" in said, said
    assert "hint: you may be using wrong mmproj" in said, said
    said = refusal(engine_dir, "-m", str(projector))
    assert "CLIP cannot be used as main model, use it with --mmproj instead" in said, said
    said = refusal(engine_dir, "-m", str(text), "--mmproj", str(text))
    assert f"Failed to load CLIP model from {text}" in said, said
