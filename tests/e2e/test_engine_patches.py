"""The page's own llama.cpp (scripts/own_engine.sh) is the pinned upstream source (its hash checked
by scripts/llama_source.sh) with the patches in scripts/llama-patches/, each upstream-ready: a
patch file with a description and its own test, a C program built with emscripten for
WebAssembly SIMD (as the page's engine is) and run with node, that compares the patched kernel
with llama.cpp's reference C on the same inputs. Each test runs against the patched tree, where
it must pass, and against the unpatched one, where it must fail: the test can tell them apart.
No browser, no page."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PATCHES = ROOT / "scripts" / "llama-patches"


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    """(unpatched, patched) llama.cpp trees of the pinned source."""
    if not shutil.which("emcc"):
        # scripts/build.sh (the own engine) installs Debian's emscripten before the tests run.
        pytest.fail("emcc is missing: scripts/own_engine.sh installs Debian's emscripten")
    out = []
    for args in ([], ["--patched"]):
        where = tmp_path_factory.mktemp("llama")
        run = subprocess.run([str(ROOT / "scripts" / "llama_source.sh"), *args, str(where)],
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        out.append(Path(run.stdout.strip()))
    return out


def built_and_run(tree, test, sources, tmp_path):
    """`test` built with emscripten against `tree` (its ggml headers, and `sources` of it) and run
    with node: (exit status, output)."""
    ggml = tree / "ggml"
    js = tmp_path / f"{test.stem}-{tree.parent.parent.name}.js"
    build = subprocess.run(
        ["emcc", "-O2", "-msimd128", "-sENVIRONMENT=node", "-sSINGLE_FILE=1", "-sINITIAL_MEMORY=64MB",
         f"-I{ggml / 'include'}", f"-I{ggml / 'src'}", f"-I{ggml / 'src' / 'ggml-cpu'}",
         str(test), *[str(ggml / s) for s in sources], "-o", str(js)],
        capture_output=True, text=True, timeout=300, env={**os.environ, "NODE_PATH": "/usr/share/nodejs"})
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run(["node", str(js)], capture_output=True, text=True, timeout=300)
    return run.returncode, run.stdout + run.stderr


def test_every_patch_has_a_description_and_its_own_test():
    patches = sorted(PATCHES.glob("*.patch"))
    assert patches, "no patch"
    for p in patches:
        text = p.read_text()
        number = p.name.split("-", 1)[0]
        assert text.index("--- a/") > 200, f"{p.name}: a description before the diff"
        assert (PATCHES / f"test_{number}_{TESTS[number][0]}.c").exists(), p.name
    assert set(TESTS) == {p.name.split("-", 1)[0] for p in patches}


# Each patch's test: its C file's name after test_<number>_, and the tree's files it links.
TESTS = {"0001": ("q8_quantize", ["src/ggml-cpu/arch/wasm/quants.c", "src/ggml-quants.c"])}


@pytest.mark.parametrize("number", sorted(TESTS))
def test_a_patched_kernel_gives_the_reference_cs_numbers_and_the_unpatched_one_does_not(number, trees, tmp_path):
    name, sources = TESTS[number]
    test = PATCHES / f"test_{number}_{name}.c"
    unpatched, patched = trees
    status, out = built_and_run(patched, test, sources, tmp_path)
    print(out)
    assert status == 0 and " 0 differ from the reference" in out, out
    status, out = built_and_run(unpatched, test, sources, tmp_path)
    assert status == 1 and " 0 differ" not in out, out
