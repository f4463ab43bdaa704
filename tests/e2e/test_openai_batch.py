"""End-to-end: a batch handed to OpenAI's Batch API (loopback fake of the Files and Batch
endpoints): one JSONL upload, a batch created and polled, its output and error files read into
the same results, no synchronous chat request sent, and the saving shown."""

import json

from selenium.webdriver.support.ui import Select

from app_page import tid
from fakes.openai import FakeOpenAI
from test_batch import N, dataset, open_batch, opinion, progress  # noqa: F401 (fixture)


def test_a_batch_goes_through_the_batch_api(browser, app_url, dataset, downloads):  # noqa: F811
    fake = FakeOpenAI()
    fake.dist_for = opinion
    fake.behaviour = {"fluency": 500}  # these lines land in the batch's error file
    try:
        page = open_batch(browser, app_url, fake)
        # The Batch API is offered for OpenAI itself only (other servers answer it with 404):
        # the OpenAI preset, pointed at the fake.
        Select(page.el("preset-select")).select_by_value("openai")
        page.fill("base-url-input", fake.url)
        page.fill("model-input", "gpt-4o")
        page.fill("api-key-input", "sk-test-batch-123456")
        page.set_number("batch-poll-input", 1)
        data, images = dataset
        page.el("dataset-input").send_keys(f"{data}\n{images}")
        page.wait_for(lambda d: progress(page)[2] == N, "the dataset to load")
        page.el("submit-openai-batch-button").click()
        page.wait_for(lambda d: progress(page)[3] == "finished", "the batch to finish", 60)
        done, failed, total, _ = progress(page)
        # Every item lost its fluency line to the error file: a failed criterion makes the item
        # failed (not done), and each is partial (scored on the other four).
        assert (done, failed, total) == (0, N, N)
        assert page.el("batch-progress").get_attribute("data-partial") == str(N)

        # Everything went through one upload and the Batch API, nothing synchronously.
        assert fake.count() == 0
        assert len(fake.batch_requests) == N * 5
        uploads = [r for r in fake.requests if r["route"] == "/v1/files"]
        assert len(uploads) == 1
        assert all("sk-test-batch" not in r["path"] for r in fake.requests + fake.get_requests)
        message = page.d.find_element("css selector", "fieldset.batch .error").text
        assert "finished" in message and "half price" in message and "saved $" in message

        # Failed lines (the error file) are recorded per criterion; the rest scored. The
        # meta-evaluation leaves partial items out unless asked to keep them.
        page.el("meta-all-criteria-checkbox").click()
        page.wait_for(lambda d: page.el("meta-overall-tau-b").get_attribute("data-value"), "the meta-evaluation")
        page.el("export-results-jsonl").click()
        rows = [json.loads(l) for l in page.wait_file(downloads, "results.jsonl").read_text().splitlines() if l.strip()]
        assert len(rows) == N
        for r in rows:
            by_name = {c["name"]: c for c in r["criteria"]}
            assert "HTTP 500" in by_name["fluency"]["error"]
            assert by_name["correctness"]["score"] > 0
    finally:
        fake.stop()
