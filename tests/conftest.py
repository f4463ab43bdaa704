"""Markers of the end-to-end tests, assigned here by file and test name so that the test files
stay as they are (docs/testing.md, "Tiers and markers"; the markers are listed in tests/pytest.ini).

Every test gets: the pages it drives (`evaluator`, `lab`), the metrics that are its subject
(`harmonic_eval`, `fleur`, `g_veval`, `maev`; not every test that runs HarmonicEval as the
default metric on the way to something else), its engine (`real_engine`, `in_browser`, or
`fakes`), its feature group (see FILES) and, for the quick tier, `smoke`.

A file missing from FILES (a new one) still gets markers: `fakes`, the page its name suggests,
and any metric its test names name. Add it to FILES with its feature group.
"""

import os
import re
import sys
from pathlib import Path

import pytest

E2E = Path(__file__).resolve().parent / "e2e"
SELFTEST = Path(__file__).resolve().parent / "fakes_selftest"

# file -> (pages, metrics, feature groups) for every test in it.
FILES = {
    # Metrics, one file each.
    "test_harmonic_eval.py": ({"evaluator"}, {"harmonic_eval"}, set()),
    "test_fleur.py": ({"evaluator"}, {"fleur"}, set()),
    "test_g_veval.py": ({"evaluator"}, {"g_veval"}, set()),
    "test_maev.py": ({"evaluator"}, {"maev"}, set()),
    # Several candidates.
    "test_candidates.py": ({"evaluator"}, {"harmonic_eval"}, {"candidates"}),
    "test_candidates_plain.py": ({"evaluator"}, set(), {"candidates"}),
    # Results: examples, opening files, share links, history.
    "test_examples.py": ({"evaluator"}, set(), {"results"}),
    "test_open_share.py": ({"evaluator"}, set(), {"results"}),
    "test_history.py": ({"evaluator"}, set(), {"results"}),
    "test_lab_open.py": ({"lab", "evaluator"}, set(), {"results", "batch"}),
    # Providers.
    "test_providers.py": ({"evaluator"}, set(), {"providers"}),
    # Security and bad inputs.
    "test_security.py": ({"evaluator"}, set(), {"security"}),
    "test_gate.py": ({"evaluator"}, set(), {"security", "results"}),
    "test_bad_inputs.py": ({"evaluator"}, set(), {"security"}),
    "test_faults.py": ({"evaluator"}, set(), {"security", "providers"}),
    # The lab.
    "test_batch.py": ({"lab"}, set(), {"batch"}),
    "test_openai_batch.py": ({"lab"}, set(), {"batch", "providers"}),
    "test_exports.py": ({"lab"}, set(), {"batch", "security"}),
    "test_lab_scale.py": ({"lab"}, {"fleur"}, {"batch"}),
    # Layout and accessibility.
    "test_layout.py": ({"lab"}, set(), {"layout"}),
    # First visit and chunks.
    "test_chunks.py": ({"evaluator"}, set(), {"chunks"}),
    # The evaluator built around the task: first screen, gallery labels, Explain, present mode.
    "test_task_first.py": ({"evaluator"}, {"harmonic_eval"}, {"layout", "results"}),
    # γ by hand (issue 44): bars set by drag, keys and typing; files, links and present mode.
    "test_by_hand.py": ({"evaluator"}, {"harmonic_eval"}, {"results", "layout"}),
    # A demo site: site.json, the embed, framing, the deploy recipes and check_site.py.
    "test_site.py": ({"evaluator"}, set(), {"site"}),
    # Every browser a visitor has: the cross-browser set, in Chromium, Firefox ESR and WebKitGTK.
    "test_browsers.py": ({"evaluator", "lab"}, {"harmonic_eval"}, {"browsers"}),
    # Engines (their engine marker comes from ENGINES).
    "test_real_engine.py": ({"evaluator"}, set(), set()),
    # The engine starts as the suite starts it, or says in one line why not (no page).
    "test_engine_start.py": (set(), set(), set()),
    # The SmolVLM-256M-shaped test model in llama-server: its views, and the wrong files (issue 57).
    "test_vision_model.py": (set(), set(), {"providers"}),
    "test_in_browser.py": ({"evaluator"}, set(), {"providers"}),
    # The same model in the page on our build: one encode per view, auto detail, the run bar's
    # words, missing image tokens (issue 57).
    "test_vision_in_page.py": ({"evaluator"}, {"harmonic_eval"}, {"providers", "candidates"}),
    # The in-page judge's GPU setting, its numbers before and during the wait, and the backend
    # a result records (Chromium with --enable-unsafe-webgpu).
    "test_in_page_gpu.py": ({"evaluator"}, {"harmonic_eval"}, {"providers"}),
    # The command line and the Python package (issue 60): the same numbers as the lab.
    "test_cli.py": ({"lab"}, set(), {"batch"}),
    "test_python_options.py": ({"lab"}, set(), {"batch"}),
    "test_same_pixels.py": ({"lab"}, set(), {"batch"}),
    # The page's own llama.cpp: each patch to the pinned source against the reference C (issue 71).
    "test_engine_patches.py": (set(), set(), {"providers"}),
    # The suite's own shared Chromium: after its reset a test sees what a fresh profile shows.
    "test_shared_browser.py": (set(), set(), set()),
}

ENGINES = {"test_real_engine.py": "real_engine", "test_engine_start.py": "real_engine",
           "test_vision_model.py": "real_engine", "test_in_browser.py": "in_browser",
           "test_in_page_gpu.py": "in_browser", "test_vision_in_page.py": "in_browser"}

ALL_METRICS = {"harmonic_eval", "fleur", "g_veval", "maev"}

# (file, test function) -> the pages it drives, where they are not its file's.
PAGES = {
    ("test_g_veval.py", "test_lab_offers_g_vevals_averaged_rating_protocol"): {"lab"},
    ("test_bad_inputs.py", "test_malformed_dataset_rows_are_reported_by_line_and_the_rest_load"): {"lab"},
    ("test_layout.py", "test_evaluator_layout_and_accessibility"): {"evaluator"},
    ("test_security.py", "test_csp_is_strict_nothing_violates_it_and_injected_markup_cannot_run"): {"evaluator", "lab"},
    ("test_security.py", "test_requests_go_only_to_the_app_and_the_chosen_endpoint_and_the_key_only_there"): {"evaluator", "lab"},
    ("test_real_engine.py", "test_printed_rating_reader_skips_scales"): set(),
    ("test_real_engine.py", "test_a_batch_survives_a_reload_against_the_real_engine"): {"lab"},
}

# (file, test function) -> markers added to its file's and its name's.
TESTS = {
    ("test_batch.py", "test_batch_survives_a_reload_and_meta_evaluates"): {"harmonic_eval"},
    ("test_candidates.py", "test_the_cost_estimate_counts_every_candidate"): {"fleur"},
    ("test_candidates_plain.py", "test_fleur_candidates_rank_and_weigh_differences_against_the_digit_spread"): {"lab"},
    ("test_examples.py", "test_examples_open_with_no_key_move_gamma_explain_export_and_ask_no_one"): {"harmonic_eval"},
    ("test_examples.py", "test_an_exported_result_opens_from_its_file_with_the_same_scores"): {"harmonic_eval"},
    ("test_examples.py", "test_the_weights_chart_teaches_gamma_with_a_readout_a_table_and_a_glossary"): {"harmonic_eval"},
    ("test_examples.py", "test_a_share_link_opens_the_result_in_a_fresh_context_without_key_or_base_url"): {"harmonic_eval"},
    ("test_examples.py", "test_every_example_opens_and_says_where_its_numbers_come_from"): ALL_METRICS,
    ("test_in_browser.py", "test_the_page_asks_only_its_own_origin_and_the_model_url_and_the_recorder_would_see_more"): {"harmonic_eval", "security"},
    ("test_in_browser.py", "test_a_model_and_projector_picked_from_this_computer_judge_an_image"): {"harmonic_eval"},
    ("test_in_browser.py", "test_a_cross_origin_isolated_page_runs_the_engine_on_threads_with_nearly_the_same_numbers"): {"harmonic_eval"},
    ("test_in_browser.py", "test_the_same_input_gives_identical_distributions_twice_and_cancel_stops_a_run"): {"harmonic_eval"},
    ("test_in_browser.py", "test_the_time_limit_counts_from_the_engines_last_word_of_progress"): {"harmonic_eval"},
    ("test_in_browser.py", "test_the_in_browser_panel_layout_and_accessibility"): {"layout"},
    ("test_layout.py", "test_evaluator_layout_and_accessibility"): {"harmonic_eval", "fleur", "candidates"},
    ("test_layout.py", "test_the_best_gamma_label_stays_clear_of_the_panel_title"): {"harmonic_eval"},
    ("test_layout.py", "test_the_batch_api_is_offered_only_for_openai"): {"providers"},
    ("test_real_engine.py", "test_connection_check_names_the_real_model_and_its_vision"): {"providers"},
    ("test_real_engine.py", "test_a_text_only_server_says_no_vision_on_the_grounded_criteria"): {"harmonic_eval"},
    ("test_real_engine.py", "test_repeatable_mode_gives_identical_numbers_for_every_metric"): ALL_METRICS,
    ("test_real_engine.py", "test_a_batch_survives_a_reload_against_the_real_engine"): {"batch"},
    ("test_real_engine.py", "test_candidates_against_the_real_engine"): {"harmonic_eval", "candidates"},
    ("test_real_engine.py", "test_fleur_candidates_against_the_real_engine"): {"candidates"},
    ("test_task_first.py", "test_explain_on_an_opened_example_keeps_the_stored_explanation"): {"fleur"},
    ("test_site.py", "test_a_fresh_visitor_judges_inside_the_page_with_the_sites_model"): {"in_browser", "harmonic_eval"},
    ("test_cli.py", "test_one_set_of_answers_gives_the_same_numbers_in_the_page_the_cli_and_python"): ALL_METRICS,
    ("test_cli.py", "test_the_cli_judges_a_dataset_on_the_real_engine_survives_a_kill_and_the_lab_agrees"): {"real_engine", "fleur"},
}

# The quick tier's browser smoke set (scripts/test.sh --quick): a handful of the fastest tests
# that load both pages, run HarmonicEval end to end against the fake (once from the static shell
# before the wasm), open a share link and check the layout and axe-core (at the widths HJ_LAYOUT_WIDTHS names; --quick sets one).
SMOKE = {
    ("test_harmonic_eval.py", "test_spec_vector_gamma_slider_and_request_shape"),
    ("test_examples.py", "test_the_static_shell_shows_before_the_wasm_and_matches_the_app"),
    ("test_examples.py", "test_a_share_link_opens_the_result_in_a_fresh_context_without_key_or_base_url"),
    ("test_layout.py", "test_the_batch_api_is_offered_only_for_openai"),
    ("test_layout.py", "test_evaluator_layout_and_accessibility[light]"),
    ("test_chunks.py", "test_a_first_visit_fetches_no_chunk_and_evaluate_fetches_the_judging_code"),
    ("test_task_first.py", "test_a_fresh_visit_sees_the_task_first_and_the_judge_in_one_line"),
    ("test_engine_start.py", "test_a_binary_the_cpu_refuses_fails_the_fixture_in_one_line"),
    ("test_by_hand.py", "test_bars_set_by_drag_keys_and_typing_move_every_number_as_the_core_does"),
    ("test_security.py", "test_the_only_inline_script_is_the_static_shells_inside_the_shell"),
    ("test_browsers.py", "test_the_static_shell_takes_the_image_the_text_and_evaluate_before_the_wasm[chromium]"),
}

# Tests that measure time or memory, or that depend on a bound of a second or so: in the full
# run they get the machine to themselves, after the two parallel workers (scripts/test.sh,
# `-m alone`). "*": every test of the file.
ALONE = {
    # the peak memory of the renderer, main-thread tasks against a baseline of the same run
    ("test_gate.py", "*"),
    # click latency and long tasks while 100k results arrive; reading a million lines
    ("test_lab_scale.py", "*"),
    # the time limit of 1 s is the subject: all five criteria fail within 2.8 s
    ("test_harmonic_eval.py", "test_silent_server_times_out_instead_of_spinning"),
    # the host's site file shows within 1 s of its answer
    ("test_site.py", "test_the_hosts_site_json_that_answers_after_the_app_mounted_applies_at_once"),
    # a 100-megapixel image refused from its header within 5 s, without decoding
    ("test_bad_inputs.py", "test_a_100_megapixel_image_is_refused_at_once_with_the_limit"),
    # a time limit of a third of one answer, measured in the same test: it needs steady timing
    ("test_in_browser.py", "test_the_time_limit_counts_from_the_engines_last_word_of_progress"),
    # the engine on two threads, the machine's cores: beside the other worker its threads spin
    # for cores they do not get (and there each page is given one core: conftest.PAGE_CORES)
    ("test_in_browser.py", "test_a_cross_origin_isolated_page_runs_the_engine_on_threads_with_nearly_the_same_numbers"),
    # Automatic's GPU check on Firefox's lavapipe, a GPU that is the machine's CPU: each prompt
    # step must end within llama.cpp's 30 s queue wait (ggml-webgpu), about 17 s here when quiet.
    # Round 56's CI ran it beside the other worker building the Python wheel (two rustc on two
    # cores): a step passed the wait and the check failed, as it should on so slow a GPU. The
    # four tests share one Firefox and the check (the `checked` fixture), so they run alone
    # together.
    ("test_in_page_gpu.py", "test_the_gpu_gives_the_cpus_rating_distributions_within_the_f16_tolerance_on_a_grounded_and_a_text_only_criterion"),
    ("test_in_page_gpu.py", "test_automatic_moves_to_the_gpu_after_a_matching_check_and_stays_on_the_cpu_after_a_failed_one"),
    ("test_in_page_gpu.py", "test_the_gpu_setting_reads_in_the_kept_checks_steps_says_where_the_layers_are_and_a_failure_while_answering_ends_that_answer_the_judge_going_on_on_the_cpu"),
    ("test_in_page_gpu.py", "test_after_the_gpu_failed_while_answering_automatic_keeps_the_model_on_the_cpu_without_checking_again"),
}

# The files that take longest, longest first (worker-seconds in round 51's clean-clone run,
# target/e2e-times/): in_browser 387, real_engine 342, browsers 205, vision_in_page 201, cli 199,
# in_page_gpu 141, layout 120, vision_model 93, batch 74, faults 70, providers 65; every other
# file 53 s or less, in the collected order after them. (Round 52's faster machine, from
# nothing: 285, 211, 161, 135, cli 97 with its killed run at 20 items, 75, 76, 50, 63, 55, 52.)
# scripts/test.sh passes pytest-xdist --no-loadscope-reorder, so each worker takes the next
# file in this order as it finishes one, and the short files come last, where they even the two
# workers out. (Without it xdist 3.8 hands out files by their number of tests, most first: in
# round 51 that left one worker with the command line's three tests, 199 s, at the end, and the
# other idle for 107 s.)
LONGEST_FIRST = ["test_in_browser.py", "test_real_engine.py", "test_browsers.py", "test_vision_in_page.py",
                 "test_cli.py", "test_in_page_gpu.py", "test_same_pixels.py", "test_layout.py", "test_vision_model.py", "test_batch.py",
                 "test_faults.py", "test_providers.py"]

# A `metric` parameter names the metric it runs.
PARAM_METRIC = {"harmonic_eval": "harmonic_eval", "fleur": "fleur", "ref_fleur": "fleur",
                "g_veval": "g_veval", "maev": "maev"}


def _from_name(name):
    """Metrics and pages a test's name names, for files the map does not list in full."""
    words = set(re.split(r"[_\[\]-]+", name))
    found = set()
    if "fleur" in words:
        found.add("fleur")
    if {"g", "veval"} <= words or {"gveval", "gvevals", "vevals"} & words:
        found.add("g_veval")
    if "maev" in words:
        found.add("maev")
    if "harmonic" in words:
        found.add("harmonic_eval")
    if {"lab", "labs"} & words:
        found.add("lab")
    return found


def markers_of(file, name, params):
    """The markers of test `name` (its function's name) in e2e `file`, with its `params`."""
    guess = ({"lab"} if "lab" in file else {"evaluator"}, set(), set())
    pages, metrics, features = FILES.get(file, guess)
    named = _from_name(name)
    pages = PAGES.get((file, name), set(pages) | (named & {"lab"}))
    marks = set(pages) | set(metrics) | set(features) | (named - {"lab"}) | TESTS.get((file, name), set())
    metric = params.get("metric")
    if metric in PARAM_METRIC:
        marks.add(PARAM_METRIC[metric])
    marks.add(ENGINES.get(file, "fakes"))
    return marks


def _layout_widths():
    """HJ_LAYOUT_WIDTHS (e.g. "390"): check the layout at these widths only (the quick tier);
    every width otherwise. test_layout.py's checker reads its WIDTHS list when it runs."""
    given = os.environ.get("HJ_LAYOUT_WIDTHS")
    layout = sys.modules.get("test_layout")
    if given and layout is not None:
        layout.WIDTHS[:] = [int(w) for w in given.split(",") if w.strip()]


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(str(item.path)).resolve()
        if path.parent == SELFTEST:
            for m in ("fakes", "smoke"):
                item.add_marker(getattr(pytest.mark, m))
            continue
        if path.parent != E2E:
            continue
        name = item.originalname if hasattr(item, "originalname") else item.name
        params = getattr(getattr(item, "callspec", None), "params", {})
        marks = markers_of(path.name, name, params)
        if (path.name, name) in SMOKE or (path.name, item.name) in SMOKE:
            marks.add("smoke")
        if (path.name, "*") in ALONE or (path.name, name) in ALONE:
            marks.add("alone")
        for m in sorted(marks):
            item.add_marker(getattr(pytest.mark, m))
    # Stable: within a file, and among the other files, the order stays as collected.
    items.sort(key=lambda item: _rank(Path(str(item.path)).name))
    _layout_widths()


def _rank(file):
    return LONGEST_FIRST.index(file) if file in LONGEST_FIRST else len(LONGEST_FIRST)


# Where the time goes (issue 59): each test's worker, start and seconds per phase, one line
# each, in target/e2e-times/<worker>.tsv (HJ_TIMES=0 turns it off). Two workers' lines side by
# side show which file held a worker at the end; --durations shows only the slowest.
# scripts/test.sh empties the folder before the end-to-end tests.
_TIMES = None if os.environ.get("HJ_TIMES") == "0" else Path(__file__).resolve().parents[1] / "target" / "e2e-times"


def pytest_runtest_logreport(report):
    # (xdist's controller hears each worker's reports again, with the worker as `node`)
    if _TIMES is None or report.when not in ("setup", "call", "teardown") or getattr(report, "node", None):
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    _TIMES.mkdir(parents=True, exist_ok=True)
    with open(_TIMES / f"{worker}.tsv", "a") as f:
        f.write(f"{report.start:.1f}\t{report.duration:.2f}\t{report.when}\t{report.outcome}\t{report.nodeid}\n")


def pytest_terminal_summary(terminalreporter):
    """After a parallel run: each worker's span from its first test to its last, and the last
    three files it ran with the seconds each held it (which file left a worker alone at the end)."""
    parallel = getattr(terminalreporter.config.option, "numprocesses", None)
    if _TIMES is None or os.environ.get("PYTEST_XDIST_WORKER") or not parallel or not _TIMES.is_dir():
        return
    workers = sorted(_TIMES.glob("gw*.tsv"))
    if len(workers) < 2:
        return
    terminalreporter.write_sep("-", "each worker's time (target/e2e-times/)")
    for path in workers:
        rows = [line.split("\t") for line in path.read_text().splitlines() if line.count("\t") == 4]
        if not rows:
            continue
        start = min(float(r[0]) for r in rows)
        end = max(float(r[0]) + float(r[1]) for r in rows)
        files = {}
        for r in rows:
            f = r[4].split("::")[0].rsplit("/", 1)[-1]
            first, last, busy = files.get(f, (float(r[0]), 0.0, 0.0))
            files[f] = (min(first, float(r[0])), max(last, float(r[0]) + float(r[1])), busy + float(r[1]))
        order = sorted(files.items(), key=lambda kv: kv[1][0])
        tail = ", ".join(f"{f} {v[2]:.0f} s" for f, v in order[-3:])
        terminalreporter.write_line(f"{path.stem}: {end - start:.0f} s from its first test to its last, "
                                    f"{len(files)} file{'s' * (len(files) != 1)}; the last three: {tail}")
