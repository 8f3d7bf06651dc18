"""Sign in with GitHub: roles from GitHub organization team membership.

settings.GITHUB_TEAM_ROLES maps teams ("ORG/team-slug", matched in any case) to roles (groups of
settings.ROLES). The roles it names are *managed*: a user who signs in with GitHub holds exactly
the managed roles of the teams they are in, set at every sign-in (`github_signin_complete`, from
the allauth adapter in triage/views/github_signin.py) and daily with each user's stored token
(`github_roles_refresh`, a beat job). A user who left the team loses the role; roles the mapping
does not name, and every role of a local account (no GitHub sign-in), are left as they are.

Teams are read with the user's own OAuth token (scope read:org) through PyGithub
(GET /user/teams). A token GitHub refuses (401: revoked, or the app's authorization removed), or
no stored token at all, cannot confirm any membership: the managed roles go, and come back at the
next sign-in. Any other failure (GitHub down, rate limited) leaves the roles as they were.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass

import github
from allauth.socialaccount.models import SocialAccount, SocialToken
from django.conf import settings
from django.contrib.auth.models import Group
from django.db import transaction
from requests import RequestException

from config import beat_schedules
from triage.models import UserPreference
from triage.sources.github.client import build_client

logger = logging.getLogger(__name__)

PROVIDER = "github"
TASK = "triage.tasks.github_roles_refresh"


@dataclass(frozen=True)
class TeamRoles:
    """What a sign-in or refresh found: the user's teams (None: GitHub did not say) and the
    managed roles they hold now (None: left as they were)."""

    teams: frozenset[str] | None
    roles: frozenset[str] | None


def managed_roles() -> frozenset[str]:
    return frozenset(role for roles in settings.GITHUB_TEAM_ROLES.values() for role in roles)


def roles_of_teams(teams) -> frozenset[str]:
    mapping: dict[str, set] = {}
    for team, roles in settings.GITHUB_TEAM_ROLES.items():
        mapping.setdefault(team.lower(), set()).update(roles)
    return frozenset(role for team in teams for role in mapping.get(team.lower(), ()))


def mapped_teams() -> list[tuple[str, list[str]]]:
    """(team, roles) as configured, for the page shown to a user without a role."""
    return sorted(settings.GITHUB_TEAM_ROLES.items())


class TeamsUnverifiable(Exception):
    """GitHub refused the user's token: no membership can be confirmed."""


def github_user_teams(*, token: str) -> frozenset[str]:
    """The user's teams as "org/team-slug" (lower case), read with their token. Raises
    TeamsUnverifiable when GitHub refuses the token, GithubException/RequestException otherwise."""
    client = build_client(auth=github.Auth.Token(token))
    try:
        teams = client.get_user().get_teams()
        return frozenset(f"{team.organization.login}/{team.slug}".lower() for team in teams)
    except github.BadCredentialsException as exc:
        raise TeamsUnverifiable(str(exc.status)) from None
    finally:
        client.close()


@transaction.atomic
def github_roles_set(*, user, teams) -> frozenset[str]:
    """Give `user` the managed roles of `teams` and take away the other managed roles."""
    wanted = roles_of_teams(teams)
    managed = Group.objects.filter(name__in=managed_roles())
    user.groups.remove(*[group for group in managed if group.name not in wanted])
    user.groups.add(*[group for group in managed if group.name in wanted])
    return wanted


def _roles_update(*, user, token: str | None) -> TeamRoles:
    try:
        if not token:
            raise TeamsUnverifiable("no stored token")
        teams = github_user_teams(token=token)
    except TeamsUnverifiable as exc:
        logger.info("github sign-in: teams of user %s unverifiable (%s)", user.pk, exc)
        return TeamRoles(None, github_roles_set(user=user, teams=()))
    except (github.GithubException, RequestException) as exc:
        logger.warning(
            "github sign-in: teams of user %s not read, roles left as they were: %s",
            user.pk,
            type(exc).__name__,
        )
        return TeamRoles(None, None)
    return TeamRoles(teams, github_roles_set(user=user, teams=teams))


def github_signin_complete(*, user, login: str, token: str | None) -> TeamRoles:
    """At each sign-in with GitHub: remember the user's GitHub login (the queue's "My issues")
    and set their managed roles from their teams."""
    UserPreference.objects.update_or_create(user=user, defaults={"github_login": login})
    return _roles_update(user=user, token=token)


def github_roles_refresh() -> dict[str, int]:
    """Daily: read every GitHub user's teams again with their stored token and set their roles;
    {"updated": n, "unverifiable": n (roles taken away), "failed": n (left as they were)}."""
    counts: Counter = Counter()
    accounts = SocialAccount.objects.filter(provider=PROVIDER).select_related("user")
    for account in accounts.order_by("id"):
        token = SocialToken.objects.filter(account=account).order_by("-id").first()
        found = _roles_update(user=account.user, token=token.token if token else None)
        if found.roles is None:
            counts["failed"] += 1
        elif found.teams is None:
            counts["unverifiable"] += 1
        else:
            counts["updated"] += 1
    return {key: counts[key] for key in ("updated", "unverifiable", "failed")}


def schedules_install():
    """Daily at 03:30 UTC, with Sign in with GitHub configured (wiring BEAT_START)."""
    if not (settings.GITHUB_OAUTH_CLIENT_ID and settings.GITHUB_TEAM_ROLES):
        return []
    return beat_schedules.crontab_jobs_install(
        [
            beat_schedules.CrontabJob(
                name="sign in with GitHub: daily roles refresh",
                task=TASK,
                cron={"minute": "30", "hour": "3"},
                description="Reads each GitHub user's organization teams with their stored "
                "token and sets their roles from GITHUB_TEAM_ROLES: a user who left a team "
                "loses its role.",
            )
        ]
    )
