"""Load the bundled, synthetic demo data set through the same upserts as the GitHub sync."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.db.models import Value
from django.db.models.functions import Replace

from classifiers import datasets, training
from triage.models import Person, Post, SavedSearch
from triage.services import post_understanding, priority, social, spikes
from triage.services.upsert import UpsertResult
from triage.sources.github import ingest
from triage.sources.records import parse_timestamp
from triage.sources.x import sync as x_sync

DEMO_DATA = Path(__file__).resolve().parent.parent / "fixtures" / "demo" / "github.json.gz"
PAGE = 100


@dataclass
class DemoReport:
    repositories: int = 0
    issues: UpsertResult | None = None
    pulls: UpsertResult | None = None
    comments: UpsertResult | None = None

    def summary(self) -> str:
        parts = [f"{self.repositories} repositories"]
        for name in ("issues", "pulls", "comments"):
            result = getattr(self, name)
            parts.append(
                f"{name}: {result.created} created, {result.updated} updated, "
                f"{result.unchanged} unchanged"
            )
        return "; ".join(parts)


def _pages(items: list[dict]):
    for start in range(0, len(items), PAGE):
        yield items[start : start + PAGE]


def demo_data_read(path: Path = DEMO_DATA) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def demo_load(*, path: Path = DEMO_DATA, progress=None) -> DemoReport:
    """The bundled GitHub JSON through the real upserts (and the pipeline after them);
    `progress(done, total, what)` after each page (load_demo's bar)."""
    data = demo_data_read(path)
    report = DemoReport(issues=UpsertResult(), pulls=UpsertResult(), comments=UpsertResult())
    total = sum(
        len(entry.get(kind, []))
        for entry in data["repositories"]
        for kind in ("issues", "pulls", "comments")
    )
    done = 0

    def step(page) -> None:
        nonlocal done
        done += len(page)
        if progress:
            progress(done, total, "issues, pulls and comments")

    for entry in data["repositories"]:
        with transaction.atomic():
            repository = ingest.repository_get_or_create(full_name=entry["repository"]["full_name"])
            ingest.repository_update_from_github(repository=repository, data=entry["repository"])
            ingest.labels_upsert(repository=repository, labels=entry.get("labels", []))
            ordered = sorted(entry.get("issues", []), key=lambda item: item["updated_at"])
            for page in _pages(ordered):
                report.issues.add(ingest.issues_upsert(repository=repository, items=page))
                step(page)
            for page in _pages(entry.get("pulls", [])):
                report.pulls.add(ingest.pulls_upsert(repository=repository, items=page))
                step(page)
            for page in _pages(entry.get("comments", [])):
                report.comments.add(ingest.comments_upsert(repository=repository, items=page))
                step(page)
        report.repositories += 1
    return report


def _password_keep_or_set(user, password: str) -> None:
    """Set the password unless it is already this one: setting it again would change its hash
    and sign out every browser that signed in before (a second `make demo`)."""
    if not user.check_password(password):
        user.set_password(password)


def demo_user_ensure(*, username: str, password: str) -> None:
    """A superuser for trying the dashboard and admin on the demo data."""
    user, _ = get_user_model().objects.get_or_create(username=username)
    user.is_staff = user.is_superuser = True
    _password_keep_or_set(user, password)
    user.save()


# One login per role, to see the dashboard as each sees it (user and password alike).
DEMO_ROLE_USERS = [("viewer", "viewers"), ("triager", "triagers"), ("releaser", "release managers")]


def demo_role_users_ensure() -> None:
    for username, role in DEMO_ROLE_USERS:
        user, _ = get_user_model().objects.get_or_create(username=username)
        _password_keep_or_set(user, username)
        user.save()
        user.groups.set(Group.objects.filter(name=role))


# --- X posts ---------------------------------------------------------------------------------

DEMO_POSTS = DEMO_DATA.parent / "demo_posts.json.gz"
# Synthetic (written by us) texts with their sentiment, for the demo's sentiment model.
DEMO_SENTIMENT = DEMO_DATA.parent / "sentiment_synthetic.csv"
DEMO_CHUNK = 500

# Which default saved search each demo post belongs to, as X would have matched it (the demo
# has no X server to ask): a post is tagged with every search whose words it carries.
DEMO_SEARCH_WORDS = {
    '"ROCm sucks" -is:retweet': (("rocm sucks",),),
    'ROCm (broken OR crash OR hang OR bug OR "doesn\'t work") -is:retweet': (
        ("rocm",),
        ("broken", "crash", "hang", "bug", "doesn't work"),
    ),
    '("HIP error" OR hipErrorNoBinaryForGpu) -is:retweet': (
        ("hip error", "hiperrornobinaryforgpu"),
    ),
    '(MI300X OR "Strix Halo") ROCm -is:retweet': (("mi300x", "strix halo"), ("rocm",)),
}


@dataclass
class DemoPostsReport:
    posts: int = 0
    created: int = 0
    spikes: int = 0
    understood: post_understanding.UnderstandReport | None = None

    def summary(self) -> str:
        text = f"{self.posts} X posts ({self.created} new), {self.spikes} spike(s)"
        return text + (f"; {self.understood.summary()}" if self.understood else "")


def demo_sentiment_train():
    """Train the sentiment model on the bundled synthetic set (kept if the data is unchanged)."""
    data = datasets.labelled_csv_read(DEMO_SENTIMENT, name="sentiment")
    return training.model_train(
        name="sentiment",
        texts=data.texts,
        labels=data.labels,
        source=f"demo csv {DEMO_SENTIMENT.name} (synthetic)",
        skip_if_unchanged=True,
    )


def demo_posts_understand() -> post_understanding.UnderstandReport:
    """Understand every post again, in chunks, with the models trained by then."""
    total = post_understanding.UnderstandReport()
    ids = Post.objects.order_by("id").values_list("id", flat=True)
    for chunk in priority.id_chunks(ids, size=DEMO_CHUNK):
        part = post_understanding.posts_understand(ids=chunk)
        total.posts += part.posts
        total.sentiment += part.sentiment
        total.explicit_links += part.explicit_links
        total.suggested_links += part.suggested_links
        total.skipped = sorted(set(total.skipped) | set(part.skipped))
    return total


def demo_prioritize() -> str:
    """load_demo's last step: every open issue's priority with every stage's parts in place."""
    chunks = priority.open_issue_id_chunks(size=DEMO_CHUNK)
    done = sum(priority.issues_prioritize(ids=chunk) for chunk in chunks)
    return f"{done} open issues prioritized"


def _demo_searches_of(text: str, searches: dict) -> list:
    lowered = text.lower()
    return [
        search
        for query, groups in DEMO_SEARCH_WORDS.items()
        if (search := searches.get(query)) is not None
        and all(any(word in lowered for word in group) for group in groups)
    ]


DEMO_X_WEB = "https://x.demo.invalid"  # the demo's X, a host that cannot exist (RFC 2606)


def _demo_posts_unlink_from_x(*, ids: list[str]) -> None:
    """The demo's handles are invented, and some may be real people's on X: the demo's posts
    and their authors link to the demo's X instead of x.com."""
    posts = Post.objects.filter(source="x", external_id__in=ids, url__startswith="https://x.com/")
    posts.update(url=Replace("url", Value("https://x.com/"), Value(f"{DEMO_X_WEB}/")))
    authors = Person.objects.filter(
        source="x", posts__in=Post.objects.filter(source="x", external_id__in=ids)
    ).filter(html_url__startswith="https://x.com/")
    Person.objects.filter(pk__in=authors.values("pk")).update(
        html_url=Replace("html_url", Value("https://x.com/"), Value(f"{DEMO_X_WEB}/"))
    )


def demo_posts_load(*, path: Path = DEMO_POSTS) -> DemoPostsReport:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    social.saved_searches_seed()
    searches = {s.query: s for s in SavedSearch.objects.all()}
    users = {str(u["id"]): u for u in data["includes"]["users"]}
    report = DemoPostsReport()
    by_search: dict = {}
    for post in data["data"]:
        for search in _demo_searches_of(post["text"], searches) or [None]:
            by_search.setdefault(search, []).append(post)
    for search, posts in by_search.items():
        for page in _pages(posts):
            with transaction.atomic():
                result = x_sync.posts_upsert(search=search, posts=page, users=users)
            report.created += result.created
    report.posts = len(data["data"])
    _demo_posts_unlink_from_x(ids=[str(int(p["id"])) for p in data["data"]])
    # the pipeline understood them as they came, or will on a worker; the spikes per component
    # need the component tags now, and the demo's trained models should speak on every post
    report.understood = demo_posts_understand()
    first = min(parse_timestamp(p["created_at"]) for p in data["data"])
    last = max(parse_timestamp(p["created_at"]) for p in data["data"])
    found = spikes.spikes_scan(
        first_hour=first, last_hour=last, components=spikes.component_scopes()
    )
    report.spikes = sum(spikes.spike_announce(spike=spike) for spike in found) or len(found)
    return report
