"""The GitHub-actions benchmark's own counting (benchmarks/github_actions.py): the needs-info
shares and per-fact scores, the audit of write requests against the outbox rows, the mix.

The reports are ours, written for these tests."""

from benchmarks.github_actions import (
    FACT_NAMES,
    Reading,
    asking_share,
    audit_check,
    expected_request,
    fact_scores,
    gold_missing,
    issue_mix,
    not_done_reasons,
    requests_by_method,
)
from classifiers.completeness import FACTS

ALL = dict.fromkeys(FACT_NAMES, True)


def _reading(ref, missing, gold=None, **fields):
    return Reading(ref=ref, missing=list(missing), gold_present=gold, **fields)


def test_the_fact_names_are_the_readers():
    assert tuple(FACTS) == FACT_NAMES


def test_it_counts_the_reports_it_would_ask_and_each_missing_fact():
    readings = [
        _reading("a#1", []),
        _reading("a#2", ["os"]),
        _reading("a#3", ["os", "steps"]),
        _reading("a#4", FACT_NAMES),
    ]
    share = asking_share(readings)
    assert (share["reports"], share["asked"], share["share_asked"]) == (4, 3, 0.75)
    assert share["missing"] == {"gpu": 1, "rocm_version": 1, "os": 3, "steps": 2, "rocminfo": 1}
    assert share["share_missing"]["os"] == 0.75
    assert share["lacking_all"] == 1
    assert asking_share([])["share_asked"] is None


def test_the_gold_share_reads_the_gold_and_leaves_out_what_it_does_not_judge():
    reading = _reading("a#1", ["gpu"], {"gpu": True, "os": False, "steps": True})
    assert gold_missing(reading) == ["os"]
    share = asking_share([reading, _reading("a#2", [], ALL)], gold=True)
    assert share["asked"] == 1 and share["missing"]["os"] == 1 and share["missing"]["gpu"] == 0


def test_it_scores_missing_against_the_gold_per_fact():
    readings = [
        # reader right that os is missing; wrongly asks for the gpu the report gives
        _reading("a#1", ["os", "gpu"], {**ALL, "os": False}),
        # reader misses that os is missing
        _reading("a#2", [], {**ALL, "os": False}),
        _reading("a#3", [], ALL),
        _reading("a#4", ["os"], None),  # no gold: not scored
    ]
    scores = fact_scores(readings)["facts"]
    os_ = scores["os"]
    assert (os_["true_positives"], os_["false_positives"], os_["false_negatives"]) == (1, 0, 1)
    assert (os_["precision"], os_["recall"], os_["judged"]) == (1.0, 0.5, 3)
    gpu = scores["gpu"]
    assert (gpu["precision"], gpu["recall"], gpu["gold_missing"]) == (0.0, None, 0)
    assert scores["steps"]["agreement"] == 1.0


def test_the_worst_disagreements_put_needless_questions_first_with_the_evidence():
    readings = [
        _reading(
            "a#1",
            [],
            {**ALL, "os": False},
            present={"os": "the environment (text: Windows)"},
        ),
        _reading(
            "a#2",
            ["gpu", "steps"],
            ALL,
            environment={"gpus": [], "architectures": [], "os": "Ubuntu 22.04"},
        ),
        _reading("a#3", ["rocminfo"], {**ALL, "rocminfo": False}),
    ]
    worst = fact_scores(readings)["worst"]
    assert [(w["issue"], w["fact"], w["reader"]) for w in worst] == [
        ("a#2", "gpu", "asks for what is given"),
        ("a#2", "steps", "asks for what is given"),
        ("a#1", "os", "misses"),
    ]
    assert worst[0]["evidence"] == 'not found (the extraction has {"os": "Ubuntu 22.04"})'
    assert worst[2]["evidence"] == "found in the environment (text: Windows)"


def test_the_worst_list_takes_each_fact_in_turn_and_stops_at_ten():
    readings = [_reading(f"a#{n}", FACT_NAMES, ALL) for n in range(5)]
    worst = fact_scores(readings)["worst"]
    assert len(worst) == 10
    assert [w["fact"] for w in worst[:5]] == list(FACT_NAMES)


def _row(operation, status="done", **fields):
    return {
        "repository": "o/r",
        "number": 7,
        "operation": operation,
        "status": status,
        "payload": {},
        "detail": "",
        "github_id": None,
        **fields,
    }


def test_each_performed_row_names_the_request_it_made():
    assert expected_request(_row("comment", detail="commented: https://x")) == (
        "POST",
        "/repos/o/r/issues/7/comments",
    )
    assert expected_request(_row("comment", detail="edited comment 55", github_id=55)) == (
        "PATCH",
        "/repos/o/r/issues/comments/55",
    )
    assert expected_request(_row("remove_label", payload={"label": "needs info"})) == (
        "DELETE",
        "/repos/o/r/issues/7/labels/needs info",
    )
    assert expected_request(_row("react", payload={"comment_id": 9})) == (
        "POST",
        "/repos/o/r/issues/comments/9/reactions",
    )
    assert expected_request(_row("close")) == ("PATCH", "/repos/o/r/issues/7")
    assert expected_request(_row("add_labels", status="skipped")) is None


def test_the_audit_matches_write_requests_one_to_one_with_done_rows():
    rows = [
        _row("comment", detail="commented: u"),
        _row("comment", detail="edited comment 5", github_id=5),
        _row("comment", detail="edited comment 5", github_id=5),
        _row("remove_label", payload={"label": "needs info"}),
        _row("add_labels", status="planned"),
    ]
    requests = [
        {"method": "GET", "path": "/user"},
        {"method": "POST", "path": "/repos/o/r/issues/7/comments"},
        {"method": "PATCH", "path": "/repos/o/r/issues/comments/5"},
        {"method": "PATCH", "path": "/repos/o/r/issues/comments/5"},
        {"method": "DELETE", "path": "/repos/o/r/issues/7/labels/needs%20info"},
    ]
    audit = audit_check(requests, rows)
    assert audit["ok"] and audit["only_done"]
    assert audit["write_requests"] == 4 and audit["matched"] == 4
    # a write sent twice for one row, and a done row that sent nothing
    audit = audit_check([*requests, requests[1]], rows)
    assert not audit["ok"] and audit["requests_without_row"] == 1
    assert audit["examples"] == ["POST /repos/o/r/issues/7/comments"]
    audit = audit_check(requests[:-1], rows)
    assert not audit["ok"] and audit["done_rows_without_request"] == 1
    # a request GitHub answered without doing it, recorded once as a failed row
    failed = [*rows, _row("assign", status="failed")]
    extra = {"method": "POST", "path": "/repos/o/r/issues/7/assignees"}
    audit = audit_check([*requests, extra], failed)
    assert audit["ok"] and not audit["only_done"] and audit["requests_of_failed_rows"] == 1
    # ... but a failed row tried five times made five requests
    audit = audit_check([*requests, *[extra] * 5], failed)
    assert not audit["ok"] and audit["requests_without_row"] == 4
    assert requests_by_method(requests) == {"DELETE": 1, "GET": 1, "PATCH": 2, "POST": 1}


def test_the_mix_is_the_same_for_a_seed_and_mostly_bug_reports():
    first, again = issue_mix(300, seed=3), issue_mix(300, seed=3)
    assert [(i.title, i.body, i.author) for i in first] == [
        (i.title, i.body, i.author) for i in again
    ]
    intents = [i.intent for i in first]
    assert 0.6 < intents.count("bug") / 300 < 0.85
    assert {"feature", "question", "docs"} <= set(intents)
    roles = {c.role for i in first for c in i.comments}
    assert {"follow-up", "command", "bad command"} <= roles
    assert any(i.association == "MEMBER" for i in first if i.intent == "bug")
    assert [i.number for i in first] == list(range(1, 301))


def test_the_rows_not_done_are_grouped_by_why_whatever_the_numbers():
    rows = [
        _row("assign", status="failed", action="ownership.assign", detail="not assignable (12)"),
        _row("assign", status="failed", action="ownership.assign", detail="not assignable (7)"),
        _row("comment", status="skipped", action="needs_info.ask", detail="stopped"),
        _row("comment", action="needs_info.ask", detail="commented: u"),
    ]
    assert not_done_reasons(rows) == [
        ["ownership.assign", "failed", "not assignable (12)", 2],
        ["needs_info.ask", "skipped", "stopped", 1],
    ]
