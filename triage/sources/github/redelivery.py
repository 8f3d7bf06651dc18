"""Redeliver what GitHub recorded as failed, GitHub's documented way: list each hook's recent
deliveries and ask for another attempt of the failed ones (GitHub never redelivers by itself).

Which hooks: those named by the deliveries we stored in the past 3 days (X-GitHub-Hook-ID, and
X-GitHub-Hook-Installation-Target-Type: repository, organization, or integration for a GitHub
App), and the hooks of the tracked repositories whose URL is this service's webhook (the path of
POST /webhooks/github/ on a host of ALLOWED_HOSTS), where the personal token (GITHUB_TOKEN) may
list them (admin rights; a 404 or 403 is skipped; without GITHUB_TOKEN none is listed: an App's
installation token may not). The App's hook needs the App's JWT (GITHUB_APP_ID and
GITHUB_APP_PRIVATE_KEY); without them it is skipped and the report says so; with them it is read
every run, also before any of its deliveries was stored.

For each hook, newest first (cursor pages of 100), deliveries of the past 3 days (what GitHub
redelivers) back to the newest one the previous run read (a watermark in the cache: losing it
costs one longer read, never a second request); a delivery guid (X-GitHub-Delivery) is asked for
again when none of its attempts is OK, its event is one this service handles, it was never
stored and it was never asked for before. Each request is a WebhookRedelivery row created first
(unique guid), so a guid is asked for at most once, also when a task is retried or two run at
once; a request GitHub refuses (4xx) is recorded as refused, one that never reached GitHub (5xx,
a connection error, a rate limit) is forgotten and the hook's watermark stays, so the next run
asks again. The redelivery then arrives at the webhook like any delivery, and is stored once.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError
from django.db.models import Max
from django.http.request import split_domain_port, validate_host
from django.urls import reverse
from django.utils import timezone

from triage.models import Repository, WebhookDelivery, WebhookRedelivery
from triage.sources.github import client as github_source
from triage.sources.github import sync, webhooks
from triage.sources.github.app_auth import AppMisconfigured
from triage.sources.github.client import GitHubError, HookAddress, RateLimited, TransientGitHubError

logger = logging.getLogger(__name__)

MAX_AGE = timedelta(days=3)  # GitHub redelivers the deliveries of the past 3 days
HOOKS_OF_REPOSITORY_TTL_S = 3600  # a repository's hook listing is read again after an hour
TARGET_TYPES = ("repository", "organization", "integration")
# The App's one hook (GET /app/hook/deliveries, with its JWT) before any of its deliveries named
# its id: read as soon as the App is configured.
APP_HOOK = HookAddress("integration", "", 0)


@dataclass
class RedeliveryReport:
    hooks: int = 0
    read: int = 0
    requested: int = 0
    refused: int = 0
    skipped: list[str] = field(default_factory=list)
    rate_limited: RateLimited | None = None

    def summary(self) -> str:
        text = (
            f"{self.hooks} hooks, {self.read} deliveries read, {self.requested} redeliveries "
            f"requested, {self.refused} refused"
        )
        if self.skipped:
            text += "; skipped: " + "; ".join(self.skipped)
        if self.rate_limited is not None:
            text += f"; stopped: {self.rate_limited}"
        return text


def failed_deliveries_redeliver(*, now: datetime | None = None) -> RedeliveryReport:
    """Ask GitHub again for every delivery it recorded as failed that we never stored."""
    now = now or timezone.now()
    report = RedeliveryReport()
    client, app_problem = github_source.build_client(), ""
    try:
        app_client = github_source.build_app_client()
    except AppMisconfigured as exc:  # a bad key skips the App's hook, not every hook
        app_client, app_problem = None, str(exc)
    hooks = hooks_to_check(client=client, now=now, report=report)
    if app_client is not None and not any(h.target_type == "integration" for h in hooks):
        hooks.append(APP_HOOK)  # none of its deliveries stored yet: they may all have failed
    for hook in hooks:
        report.hooks += 1
        hook_client = app_client if hook.target_type == "integration" else client
        if hook_client is None:
            why = app_problem or "needs GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY"
            report.skipped.append(f"{hook}: {why}")
            continue
        if hook_client is client and sync.rate_limited_until() is not None:
            report.skipped.append(f"{hook}: the token is rate-limited")
            continue
        try:
            hook_redeliver_failed(client=hook_client, hook=hook, now=now, report=report)
        except RateLimited as exc:
            report.rate_limited = exc
            break
        except GitHubError as exc:  # 4xx on the listing (gone, no rights), 5xx after retries
            report.skipped.append(f"{hook}: {exc}")
    logger.info("webhook redelivery: %s", report.summary())
    return report


# --- which hooks ------------------------------------------------------------------------------


def hooks_to_check(*, client, now: datetime, report: RedeliveryReport) -> list[HookAddress]:
    found = dict.fromkeys(_hooks_of_deliveries(since=now - MAX_AGE))
    if not settings.GITHUB_TOKEN:  # only a person's token may list them (the App's cannot)
        return list(found)
    for repository in Repository.objects.on_github().filter(tracked=True).order_by("full_name"):
        try:
            found.update(dict.fromkeys(_hooks_of_repository(client, repository.full_name)))
        except RateLimited as exc:
            report.rate_limited = exc
            break
        except GitHubError as exc:
            logger.debug("hooks of %s not listed: %s", repository.full_name, exc)
    return list(found)


def _hooks_of_deliveries(*, since: datetime) -> list[HookAddress]:
    latest = (
        WebhookDelivery.objects.filter(received_at__gte=since)
        .exclude(hook_id="")
        .values("hook_id", "hook_target_type")
        .annotate(latest=Max("pk"))
        .order_by()
    )
    hooks = []
    for row in latest:
        target_type = row["hook_target_type"] or "repository"  # rows from before the header
        if target_type not in TARGET_TYPES or not row["hook_id"].isdigit():
            continue
        latest = WebhookDelivery.objects.defer("raw_body").get(pk=row["latest"])
        target = _target_of(target_type, latest)
        if target is not None:
            hooks.append(HookAddress(target_type, target, int(row["hook_id"])))
    return hooks


def _target_of(target_type: str, delivery: WebhookDelivery) -> str | None:
    if target_type == "integration":
        return ""
    if target_type == "repository":
        return delivery.repository_full_name or None
    try:  # an organization's hook: the payload names the organization (the body read only here)
        payload = json.loads(bytes(delivery.raw_body))
        login = (payload.get("organization") or {}).get("login")
    except (ValueError, AttributeError):
        login = None
    owner = delivery.repository_full_name.partition("/")[0]
    return str(login or owner) or None


def _hooks_of_repository(client, full_name: str) -> list[HookAddress]:
    key = f"webhook-redelivery:hooks:{full_name.lower()}"
    hook_ids = cache.get(key)
    if hook_ids is None:
        listed = github_source.repository_hooks(client=client, full_name=full_name)
        hook_ids = [hook["id"] for hook in listed if hook["active"] and _is_ours(hook["url"])]
        cache.set(key, hook_ids, HOOKS_OF_REPOSITORY_TTL_S)
    return [HookAddress("repository", full_name, hook_id) for hook_id in hook_ids]


def _is_ours(url: str) -> bool:
    """A hook URL that is this service's webhook: its path, on a host we answer to."""
    parts = urlsplit(url)
    host, _ = split_domain_port(parts.netloc.rpartition("@")[2])
    return parts.path == reverse("github-webhook") and validate_host(host, settings.ALLOWED_HOSTS)


# --- one hook ---------------------------------------------------------------------------------


def _watermark_key(hook: HookAddress) -> str:
    return f"webhook-redelivery:read-to:{hook.target_type}:{hook.target.lower()}:{hook.hook_id}"


def hook_redeliver_failed(
    *, client, hook: HookAddress, now: datetime, report: RedeliveryReport
) -> None:
    read_to = cache.get(_watermark_key(hook), 0)
    newest, ok_guids, failed = read_to, set(), {}
    for delivery in github_source.hook_deliveries(client=client, hook=hook):
        if delivery.id <= read_to or delivery.delivered_at < now - MAX_AGE:
            break
        report.read += 1
        newest = max(newest, delivery.id)
        if delivery.ok:
            ok_guids.add(delivery.guid)
        elif delivery.event in webhooks.EVENT_HANDLERS:
            failed.setdefault(delivery.guid, delivery)  # the newest failed attempt of the guid
    wanted = {guid: d for guid, d in failed.items() if guid and guid not in ok_guids}
    settled = set(
        WebhookDelivery.objects.filter(delivery_id__in=wanted).values_list("delivery_id", flat=True)
    )
    settled |= set(WebhookRedelivery.objects.filter(guid__in=wanted).values_list("guid", flat=True))
    for guid, delivery in sorted(wanted.items(), key=lambda item: item[1].id):
        if guid not in settled:
            _redelivery_request(client=client, hook=hook, delivery=delivery, report=report)
    cache.set(_watermark_key(hook), newest, int(MAX_AGE.total_seconds()))


def _redelivery_request(*, client, hook: HookAddress, delivery, report) -> None:
    try:
        asked = WebhookRedelivery.objects.create(
            guid=delivery.guid[:100],
            hook_id=str(hook.hook_id),
            hook_target_type=hook.target_type,
            hook_target=hook.target,
            github_delivery_id=delivery.id,
            event=delivery.event[:64],
            action=delivery.action[:64],
            failure=delivery.status[:255],
            delivered_at=delivery.delivered_at,
        )
    except IntegrityError:
        return  # asked already (another run, or this task before a retry)
    try:
        github_source.hook_delivery_redeliver(client=client, hook=hook, delivery_id=delivery.id)
    except (RateLimited, TransientGitHubError):
        asked.delete()  # GitHub never took it: the next run asks again
        raise
    except GitHubError as exc:
        asked.outcome, asked.error = WebhookRedelivery.Outcome.REFUSED, str(exc)[:2000]
        asked.save(update_fields=["outcome", "error"])
        report.refused += 1
        logger.warning("redelivery of %s (%s) refused: %s", delivery.guid, hook, exc)
        return
    asked.outcome = WebhookRedelivery.Outcome.REQUESTED
    asked.save(update_fields=["outcome"])
    report.requested += 1
    logger.info("asked GitHub to redeliver %s (%s, %s)", delivery.guid, hook, delivery.status)
