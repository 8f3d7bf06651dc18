"""Response times: first maintainer response in working days, needs-info, backlog, the goal;
per component and per GPU family; the home panel and the weekly digest."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django_celery_beat.models import PeriodicTask

from automation.digest import response_times as selectors
from automation.digest import services as digest
from automation.digest.response_times import working_time
from automation.needs_info.models import NeedsInfo
from automation.outbox.services import marker
from config import wiring
from triage.models import IssuePrediction

NOW = datetime(2025, 6, 11, 12, 0, tzinfo=UTC)  # a Wednesday
MONDAY = datetime(2025, 6, 2, 0, 0, tzinfo=UTC)  # of the week before
DAY = timedelta(days=1)
PANEL = "automation.digest.panels.response_times_panel"


def reported(make, *, component="hip", targets="", created_at, **fields):
    """An issue opened by a user (not a maintainer), with its predictions."""
    fields.setdefault("author_association", "NONE")
    fields.setdefault("author", "reporter")
    issue = make.issue(created_at=created_at, updated_at=created_at, **fields)
    if component:
        IssuePrediction.objects.create(issue=issue, model_name="component", label=component)
    IssuePrediction.objects.create(issue=issue, model_name="environment", label=targets)
    return issue


def answer(make, issue, at, *, association="MEMBER", body="Thanks, looking into it."):
    return make.comment(
        issue, body=body, author="maintainer", author_association=association, created_at=at
    )


def by_name(rows):
    return {f.name: f for f in rows}


# --- working time ---------------------------------------------------------------------------


def test_working_time_counts_only_monday_to_friday():
    friday_evening = datetime(2025, 6, 6, 18, 0, tzinfo=UTC)
    monday_morning = datetime(2025, 6, 9, 6, 0, tzinfo=UTC)
    assert working_time(friday_evening, monday_morning) == timedelta(hours=12)
    saturday, sunday = datetime(2025, 6, 7, tzinfo=UTC), datetime(2025, 6, 8, 23, tzinfo=UTC)
    assert working_time(saturday, sunday) == timedelta(0)
    assert working_time(MONDAY, MONDAY + 7 * DAY) == 5 * DAY
    assert working_time(monday_morning, friday_evening) == timedelta(0)


def test_it_maps_gfx_targets_to_families():
    assert selectors.gpu_family("gfx942") == "CDNA3"
    assert selectors.gpu_family("gfx90a") == "CDNA2"
    assert selectors.gpu_family("gfx1100") == "RDNA3"
    assert selectors.gpu_family("gfx9-4-generic") == "other"
    assert selectors.gpu_family("gfx4242") == "other"


# --- figures ----------------------------------------------------------------------------------


def test_it_computes_median_and_90th_percentile_in_working_days(make):
    for days in (0.5, 1, 2, 4):  # Monday 00:00 + 4 working days is Friday: no weekend crossed
        answer(make, reported(make, created_at=MONDAY), MONDAY + days * DAY)

    hip = by_name(selectors.response_times(now=NOW).components)["hip"]

    assert (hip.issues, hip.answered) == (4, 4)
    assert hip.median_days == 1.5  # the mean of 1 and 2
    assert hip.p90_days == 4.0  # nearest rank: the 4th of 4
    assert (hip.met, hip.missed, hip.percent_within_goal) == (3, 1, 75)


def test_a_weekend_does_not_count(make):
    friday_evening = datetime(2025, 6, 6, 18, 0, tzinfo=UTC)
    issue = reported(make, created_at=friday_evening)
    answer(make, issue, datetime(2025, 6, 9, 6, 0, tzinfo=UTC))  # Monday 06:00

    assert selectors.response_times(now=NOW).overall.median_days == 0.5


def test_the_bots_comments_and_other_peoples_do_not_count_as_a_response(make, settings):
    settings.GITHUB_BOT_LOGIN = "rocm-triage-bot"
    issue = reported(make, created_at=MONDAY)
    asked = f"{marker('needs-info')}\nPlease tell us your GPU."
    answer(make, issue, MONDAY + timedelta(hours=1), body=asked)
    make.comment(issue, author="rocm-triage-bot", author_association="MEMBER", created_at=MONDAY)
    make.comment(issue, author="someone", author_association="CONTRIBUTOR", created_at=MONDAY)
    answer(make, issue, MONDAY + 2 * DAY)
    only_the_bot = reported(make, created_at=MONDAY + DAY, component="rocblas")
    answer(make, only_the_bot, MONDAY + DAY + timedelta(hours=1), body=asked)

    components = by_name(selectors.response_times(now=NOW).components)

    assert components["hip"].median_days == 2.0
    assert components["rocblas"].answered == 0
    assert components["rocblas"].waiting == 1


def test_maintainers_own_issues_are_not_measured_but_are_backlog(make):
    answer(make, reported(make, created_at=MONDAY), MONDAY + DAY)
    for association in ("OWNER", "MEMBER", "COLLABORATOR"):
        reported(make, created_at=MONDAY, author_association=association, author="maint")

    hip = by_name(selectors.response_times(now=NOW).components)["hip"]

    assert (hip.issues, hip.answered, hip.waiting, hip.backlog) == (1, 1, 0, 4)


def test_pull_requests_deleted_and_old_closed_issues_are_left_out(make):
    reported(make, created_at=MONDAY, is_pull_request=True)
    reported(make, created_at=MONDAY, deleted_at=NOW)
    old = NOW - 100 * DAY
    reported(make, created_at=old, state="closed", closed_at=old + DAY)
    reported(make, created_at=old)  # open: waiting and backlog, not measured

    overall = selectors.response_times(now=NOW).overall

    assert (overall.issues, overall.waiting, overall.backlog) == (0, 1, 1)


def test_it_counts_issues_waiting_past_the_goal_and_the_oldest(make):
    thursday = datetime(2025, 6, 5, 12, 0, tzinfo=UTC)  # 4.0 working days before NOW
    late = reported(make, created_at=thursday, title="Late one")
    reported(make, created_at=datetime(2025, 6, 9, 12, 0, tzinfo=UTC))  # 2.0: not due yet
    # closed by its reporter unanswered, within the goal: neither met nor missed
    reported(make, created_at=MONDAY, state="closed", closed_at=MONDAY + DAY)

    figures = selectors.response_times(now=NOW)
    hip = by_name(figures.components)["hip"]

    assert (hip.issues, hip.waiting, hip.past_goal, hip.backlog) == (3, 2, 1, 2)
    assert hip.oldest_waiting.id == late.id
    assert hip.oldest_waiting.waited_days == 4.0
    assert (hip.met, hip.missed) == (0, 1)
    assert [r.id for r in selectors.waiting_past_goal(figures.records, goal=figures.goal)] == [
        late.id
    ]


def test_the_goal_is_a_setting(make, settings):
    answer(make, reported(make, created_at=MONDAY), MONDAY + 2 * DAY)
    settings.RESPONSE_GOAL_WORKING_DAYS = 1

    figures = selectors.response_times(now=NOW)

    assert figures.goal_days == 1
    assert (figures.overall.met, figures.overall.missed) == (0, 1)


def test_it_groups_per_gpu_family(make):
    both = reported(make, created_at=MONDAY, targets="gfx942 gfx90a")
    answer(make, both, MONDAY + DAY)
    rdna = reported(make, created_at=MONDAY, targets="gfx1100 gfx1101")
    answer(make, rdna, MONDAY + 3 * DAY)
    reported(make, created_at=MONDAY, targets="")

    families = by_name(selectors.response_times(now=NOW).families)

    assert set(families) == {"CDNA3", "CDNA2", "RDNA3", "not named"}
    assert families["CDNA3"].median_days == families["CDNA2"].median_days == 1.0
    assert (families["RDNA3"].issues, families["RDNA3"].median_days) == (1, 3.0)
    assert families["not named"].waiting == 1


def test_an_issue_without_a_component_is_unclassified(make):
    reported(make, created_at=MONDAY, component=None)

    assert by_name(selectors.response_times(now=NOW).components)["unclassified"].issues == 1


def test_it_takes_the_median_time_in_needs_info(make):
    def asked(days_ago, **fields):
        issue = reported(make, created_at=NOW - (days_ago + 1) * DAY)
        NeedsInfo.objects.create(issue=issue, asked_at=NOW - days_ago * DAY, **fields)

    asked(10, state=NeedsInfo.State.SATISFIED, resolved_at=NOW - 8 * DAY)  # 2 days
    asked(10, state=NeedsInfo.State.CLOSED, closed_at=NOW - 4 * DAY)  # 6 days
    asked(1, state=NeedsInfo.State.ASKING)  # 1 day so far

    hip = by_name(selectors.response_times(now=NOW).components)["hip"]

    assert (hip.needs_info_asked, hip.needs_info_median_days) == (3, 2.0)


def test_it_reads_in_a_fixed_number_of_queries(make, django_assert_num_queries):
    for n in range(6):
        issue = reported(make, created_at=MONDAY, targets="gfx942", component=f"c{n % 3}")
        answer(make, issue, MONDAY + DAY)
        NeedsInfo.objects.create(issue=issue, state=NeedsInfo.State.ASKING, asked_at=MONDAY)

    with django_assert_num_queries(4):
        selectors.response_times(now=NOW)


# --- the home panel -----------------------------------------------------------------------------


@pytest.fixture
def panel_wired(monkeypatch):
    monkeypatch.setattr(wiring, "HOME_PANELS", [PANEL])


def text_of(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_home_page_says_how_far_from_the_goal(logged_in_client, make, panel_wired):
    now = make.now
    answered = reported(make, created_at=now - DAY, targets="gfx942")
    answer(make, answered, now - DAY + timedelta(minutes=5))
    waiting = reported(make, created_at=now - 30 * DAY, title="Nobody answered")  # past the goal
    reported(make, created_at=now - 30 * DAY, component="rocblas", state="closed", closed_at=now)

    content = logged_in_client.get(reverse("home")).content.decode()
    text = text_of(content)

    assert "Response times" in text
    # met 1, missed 2 (one waiting, one closed unanswered after the goal)
    assert "goal: answered within 3 working days; now 33% are, 1 waiting past it" in text
    assert '<div class="table-wrap"><table' in content
    assert "CDNA3" in text and "rocblas" in text
    # the oldest waiting, linked to its page
    assert reverse("issue-detail", args=["ROCm", "ROCm", waiting.number]) in content


def test_the_panel_stays_away_without_issues(logged_in_client, db, panel_wired):
    content = logged_in_client.get(reverse("home")).content.decode()
    assert "Response times" not in content


def test_the_panel_escapes_titles(logged_in_client, make, panel_wired):
    reported(make, created_at=make.now - 30 * DAY, title='<script>alert("x")</script>')

    content = logged_in_client.get(reverse("home")).content.decode()

    assert "<script>alert" not in content


# --- the weekly digest ----------------------------------------------------------------------------


def test_the_digest_sends_each_component_its_figures_and_late_issues(make, mailoutbox):
    hip = make.repository("ROCm/hip")
    answer(make, reported(make, repository=hip, created_at=MONDAY), MONDAY + DAY)
    late = reported(
        make,
        repository=hip,
        created_at=datetime(2025, 6, 5, 12, 0, tzinfo=UTC),
        title="Crash on\u202e gfx942\nSubject: injected",
        body="SECRET: the reporter's body, never mailed",
    )
    make.comment(late, body="SECRET comment", author_association="NONE", created_at=NOW - DAY)
    reported(make, repository=hip, created_at=MONDAY, component="rocblas")

    def owners(repository, component):
        return {"hip": ["hip-owners@example.org", "not an address"]}.get(component, [])

    report = digest.response_digest_send(now=NOW, recipients_of=owners)

    assert report.sent == ["ROCm/hip hip → 1 recipients"]
    assert report.no_recipients == ["ROCm/hip rocblas"]
    assert len(mailoutbox) == 1
    mail = mailoutbox[0]
    assert mail.to == ["hip-owners@example.org"]
    assert mail.subject == "[ROCm triage] response times: ROCm/hip hip"
    assert "within 3 working days" in mail.body
    assert "2, 1 answered" in mail.body
    assert "median 1.0, 90th percentile 1.0 (working days)" in mail.body
    assert "answered within the goal: 50% (1 of 2 due)" in mail.body
    assert "1 waiting for a first response, 1 of them past the goal" in mail.body
    assert f"- ROCm/hip#{late.number} (4.0 working days): Crash on gfx942 Subject: injected" in (
        mail.body
    )
    assert late.html_url in mail.body
    assert "SECRET" not in mail.body
    assert "\u202e" not in mail.body


def test_the_digest_goes_to_the_fallback_recipients_once_a_week(make, mailoutbox, settings):
    settings.RESPONSE_DIGEST_RECIPIENTS = ["triage@example.org"]
    reported(make, created_at=MONDAY)

    first = digest.response_digest_send(now=NOW)
    again = digest.response_digest_send(now=NOW + DAY)

    assert len(first.sent) == 1 and mailoutbox[0].to == ["triage@example.org"]
    assert again.already_sent and len(mailoutbox) == 1
    assert "already sent" in again.summary()


def test_the_digest_schedule_installs_once(db):
    digest.schedules_install()
    digest.schedules_install()

    job = PeriodicTask.objects.get(task=digest.TASK)
    assert (job.crontab.day_of_week, job.crontab.hour) == ("1", "7")
