"""A body past extraction's budgets gives a case that says "too large to extract", keeps nothing
from the old script runnable, and is read again once the body is back within them; reading
reproducers runs on the `classify` queue, never on `ingest` with the webhook deliveries."""

from config import wiring
from config.celery import app
from kernels_ci.extraction import MAX_EXTRACT_CHARS
from kernels_ci.services.cases import case_approve, case_refresh
from tests.kernels_ci.factories import issue_body


def test_a_body_too_large_to_extract_says_so_on_the_case_and_the_issue_page(
    make, client, triager, monkeypatch
):
    monkeypatch.setattr(wiring, "ISSUE_PANELS", ["kernels_ci.panels.repro_panel"])
    repository = make.repository("ROCm/triton")
    issue = make.issue(repository=repository, number=91, body=issue_body())
    case = case_approve(case=case_refresh(issue=issue), login="maintainer")
    assert case.is_approved

    issue.body = issue_body() + "\n" + "```x\n" * (MAX_EXTRACT_CHARS // 5)
    issue.save()
    case = case_refresh(issue=issue)
    assert case.extraction_problem.startswith("too large to extract: ")
    assert case.script == "" and not case.is_approved and case.needs_reapproval
    client.force_login(triager)
    page = client.get("/issues/ROCm/triton/91/").content.decode()
    assert "too large to extract" in page and "Approve this exact script" not in page

    issue.body = issue_body()
    issue.save()
    case = case_refresh(issue=issue)
    assert case.extraction_problem == "" and case.is_approved  # the approved script is back


def test_a_new_issue_too_large_to_extract_gets_a_case_that_says_why(make):
    issue = make.issue(body="```python\nimport triton\n" + "x" * MAX_EXTRACT_CHARS)
    case = case_refresh(issue=issue)
    assert case is not None and case.extraction_problem.startswith("too large to extract")


def test_reading_reproducers_is_routed_off_the_webhook_queue():
    route = app.amqp.router.route({}, "kernels_ci.tasks.cases_refresh")
    assert route["queue"].name == "classify"
    assert app.amqp.router.route({}, "triage.tasks.process_webhook_delivery")["queue"].name == (
        "ingest"
    )
