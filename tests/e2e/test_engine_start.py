"""The real engine starts the way the suite starts it, or the suite says in one line why not.

A llama-server built for what the CPU advertises died of SIGILL on a VM whose hypervisor allows
less (issue 40), and 17 tests failed with the same traceback. scripts/real_engine.sh now builds
a portable binary and probes it; these tests hold both ends:

- the engine in the cache serves with the suite's flags and no other (/health, a completion with
  logprobs), and was not built for this CPU alone;
- a binary that executes an instruction the CPU refuses fails the fixture with one line naming
  SIGILL, what it means, and the last lines of its log.
"""

import os
import shutil
import stat
import subprocess

import pytest

import conftest
from engine import SUITE_FLAGS, EngineDied, RealLlamaServer, exit_reason, probe


def _illegal_binary(tmp_path):
    """A program that writes two log lines, then runs an instruction the CPU does not allow (ud2,
    by __builtin_trap), as llama-server's repacking did: a real SIGILL, not a signal sent."""
    src = tmp_path / "ill.c"
    src.write_text('#include <stdio.h>\nint main(void){puts("llama threadpool init, n_threads = 2");'
                   'puts("repacking weights");fflush(stdout);__builtin_trap();}\n')
    exe = tmp_path / "bin" / "llama-server"
    exe.parent.mkdir()
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc:
        subprocess.run([cc, "-O0", "-o", str(exe), str(src)], check=True)
    else:  # no compiler: the same signal, raised by the process itself
        exe.write_text('#!/bin/sh\necho "llama threadpool init, n_threads = 2"\necho "repacking weights"\n'
                       'kill -ILL $$\n')
        exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


def test_a_binary_the_cpu_refuses_fails_the_fixture_in_one_line(tmp_path):
    _illegal_binary(tmp_path)
    with pytest.raises(pytest.fail.Exception) as failed:
        conftest._start_engine(tmp_path, vision=False)
    line = str(failed.value)
    assert "\n" not in line, line
    assert "SIGILL" in line and "the CPU advertises instructions this machine does not allow" in line, line
    assert line.endswith("llama threadpool init, n_threads = 2 | repacking weights"), line
    assert failed.value.pytrace is False, "the reason is the whole report, without a traceback"


def test_the_reason_names_other_endings_too(tmp_path):
    assert exit_reason(-11).startswith("SIGSEGV")
    assert exit_reason(132).startswith("SIGILL: the CPU advertises")  # a shell's 128 + 4
    assert exit_reason(1) == "exit status 1"
    exe = tmp_path / "bin" / "llama-server"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\necho 'error: failed to load model'\nexit 1\n")
    exe.chmod(0o755)
    with pytest.raises(EngineDied, match=r"exit status 1\. Its log .* ends: error: failed to load model$"):
        RealLlamaServer(tmp_path, vision=False)
    missing = tmp_path / "nowhere"
    with pytest.raises(EngineDied, match="could not start"):
        RealLlamaServer(tmp_path, vision=False, binary=missing)


def test_the_cached_engine_serves_with_the_suites_flags_and_no_other(engine_dir):
    assert probe(engine_dir) is None
    build = (engine_dir / "bin" / "BUILD").read_text()
    assert "GGML_NATIVE=OFF" in build, f"the suite's engine must not be built for one CPU: {build}"
    if os.uname().machine == "x86_64":
        assert "GGML_AVX512=OFF" in build and "GGML_AMX_TILE=OFF" in build, build
        # And the machine code agrees: no AVX-512 (zmm, mask registers) or AMX (tmm) anywhere,
        # the instructions a VM's CPU may advertise and its hypervisor refuse.
        objdump = shutil.which("objdump")
        if objdump:
            code = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(engine_dir / "bin" / "llama-server")],
                                  capture_output=True, text=True, check=True).stdout
            wide = [line for line in code.splitlines() if "%zmm" in line or "%tmm" in line or "{%k" in line]
            assert not wide, f"{len(wide)} AVX-512/AMX instructions, e.g. {wide[:3]}"
    server = RealLlamaServer(engine_dir, vision=True)
    try:
        assert list(SUITE_FLAGS) == server.proc.args[server.proc.args.index("-t"):][:len(SUITE_FLAGS)]
        status, body = server.chat()
        assert status == 200
        steps = body["choices"][0]["logprobs"]["content"]
        assert steps and all("top_logprobs" in s for s in steps)
    finally:
        server.stop()
