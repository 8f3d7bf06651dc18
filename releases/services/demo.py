"""Demo data of releases: the ROCm 7.x series over the synthetic ROCm data, its fix links (some
across repositories, one cherry-pick into a release branch that is an approved and merged
backport), a current train held NO-GO by a blocker and a critical regression flagged on the
release side (GitHub's data stays as it is), today's burndown snapshot and a forecast model
trained on the replayed past trains.

The demo login (created by load_demo before the loaders run) is the release manager."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone

from config import linear_re
from releases import calendar
from releases.models import Backport, FixLink, TrainOverride
from releases.selectors import unlinked_release_merges
from releases.services.backports import backport_approve, backport_nominate
from releases.services.burndown import trains_snapshot
from releases.services.fixes import fix_link_add, fix_links_assign_trains, fix_links_sync_ids
from releases.services.forecast import forecast_retrain
from releases.services.series import series_create
from releases.services.targets import target_set
from triage.models import Repository
from triage.selectors.issues import issue_list

RELEASE_MANAGERS_ROLE = "release managers"  # a role of settings.ROLES
MENTION_RE = linear_re.compile(r"Related to ([\w.-]+/[\w.-]+)#(\d+)")
REPOSITORIES = ["rocm-demo/ROCm", "rocm-demo/HIP", "rocm-demo/rocm-libraries"]


@dataclass
class ReleasesDemoReport:
    series: str = ""
    current: str = ""
    links: int = 0
    backports: int = 0
    verdict: str = ""
    forecast: str = ""

    def summary(self) -> str:
        return (
            f"release series {self.series}: {self.links} fix links, {self.backports} merged "
            f"backport(s); current train {self.current} is {self.verdict}; {self.forecast}"
        )


def _open_issue(title_contains: str = "", label: str = "", exclude=()):
    issues = issue_list(repo="rocm-demo/ROCm", state="open", is_pull_request=False, label=label)
    if title_contains:
        issues = issues.filter(title__icontains=title_contains)
    return issues.exclude(id__in=[i.id for i in exclude if i]).order_by("number").first()


@transaction.atomic
def demo_load() -> ReleasesDemoReport:
    from releases.readiness import readiness_build  # the report reads what this just wrote

    repositories = [r for name in REPOSITORIES if (r := _repository(name))]
    series = series_create(
        name="rocm",
        title="ROCm",
        epoch_version="7.2",
        epoch_date=date(2026, 1, 21),
        cadence_days=42,
        time_zone="UTC",
        version_suffix=".0",
        repositories=repositories,
    )
    TrainOverride.objects.update_or_create(
        series=series,
        slot=date(2026, 3, 4),
        defaults={"skip": True, "note": "7.2.1 patch release instead of a train"},
    )
    pulls = list(issue_list(is_pull_request=True).values_list("id", flat=True))
    fix_links_sync_ids(ids=pulls)
    fix_links_assign_trains(series=series)

    now = timezone.now()
    current = calendar.train_current(series.spec(), now)
    user = get_user_model().objects.filter(username="demo").first()
    if user is not None:
        user.groups.add(Group.objects.get_or_create(name=RELEASE_MANAGERS_ROLE)[0])

    blocker = _open_issue(label="gfx942")
    if blocker is not None:
        target_set(issue=blocker, series=series, version=current.version, flags=["blocker"])
    regression = _open_issue("regression", exclude=[blocker])
    if regression is not None:
        target_set(
            issue=regression,
            series=series,
            version=current.version,
            flags=["regression", "priority: critical"],
        )
    known = _open_issue(label="Under Investigation", exclude=[blocker, regression])
    if known is not None:
        target_set(issue=known, series=series, version=current.version, flags=["known issue"])

    # The backport story: a cherry-pick merged into release/rocm-rel-7.3 that only mentions the
    # issue it fixes; the release manager nominated and approved the backport and linked it.
    for pull_request in unlinked_release_merges(series, "7.3")[:1]:
        mention = MENTION_RE.search(pull_request.body)
        issue = (
            mention
            and issue_list(repo=mention.group(1), is_pull_request=False)
            .filter(number=int(mention.group(2)))
            .first()
        )
        if issue is None or user is None:
            continue
        backport = backport_nominate(
            issue=issue, series=series, version="7.3", user=user, reason="customer-visible fix"
        )
        if backport.state == Backport.State.NOMINATED:
            backport_approve(backport=backport, user=user)
        fix_link_add(issue=issue, pull_request=pull_request, user=user)
    trains_snapshot(now=now)
    training = forecast_retrain(series=series, now=now)
    report = readiness_build(
        series=series, version=current.version, as_of=calendar.day_in(now, series.time_zone)
    )
    return ReleasesDemoReport(
        series=series.name,
        current=current.label,
        links=FixLink.objects.filter(removed=False).count(),
        backports=Backport.objects.filter(series=series, state=Backport.State.MERGED).count(),
        verdict=report["verdict"]
        + (f" ({'; '.join(report['reasons'])})" if report["reasons"] else ""),
        forecast=training.summary(),
    )


def _repository(full_name: str):
    return Repository.objects.filter(full_name__iexact=full_name).first()
