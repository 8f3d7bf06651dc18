"""X (and any posts source): saved searches, posts, their sentiment and links to issues, spikes."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from triage.models.sources import Issue, Person, X, source_field


class SavedSearch(models.Model):
    """An X API v2 recent-search query that the service runs on a schedule."""

    name = models.CharField(max_length=100, unique=True)
    query = models.CharField(max_length=512, unique=True, help_text="X API v2 query syntax")
    enabled = models.BooleanField(default=True)
    interval_minutes = models.PositiveIntegerField(default=15)
    since_id = models.CharField(max_length=32, blank=True, default="")
    monthly_budget = models.PositiveIntegerField(
        default=10000, help_text="posts this search may read per month (the API caps reads)"
    )
    budget_month = models.DateField(null=True, blank=True)
    posts_this_month = models.PositiveIntegerField(default=0)
    requests_used = models.PositiveBigIntegerField(default=0)
    last_run_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "saved searches"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Post(models.Model):
    class Sentiment(models.TextChoices):
        NEGATIVE = "negative"
        NEUTRAL = "neutral"
        POSITIVE = "positive"

    source = source_field(X)
    external_id = models.CharField(max_length=100, help_text="the source's id of this post")
    author = models.ForeignKey(
        Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="posts"
    )
    text = models.TextField()
    created_at = models.DateTimeField(db_index=True)
    lang = models.CharField(max_length=8, blank=True, default="")
    conversation_id = models.CharField(max_length=32, blank=True, default="")
    public_metrics = models.JSONField(default=dict, blank=True)
    entities = models.JSONField(default=dict, blank=True)
    referenced_tweets = models.JSONField(default=list, blank=True)
    searches = models.ManyToManyField(SavedSearch, blank=True, related_name="posts")
    sentiment = models.CharField(max_length=16, choices=Sentiment.choices, blank=True, default="")
    sentiment_confidence = models.FloatField(null=True, blank=True)
    sentiment_corrected_at = models.DateTimeField(
        null=True, blank=True, help_text="set when a triager decided the sentiment: kept from then"
    )
    mentions = models.JSONField(
        default=dict, blank=True, help_text="components, GPUs, architectures, ROCm versions"
    )
    component_tags = models.CharField(
        max_length=500, blank=True, default="", help_text="|HIP|MIOpen| for filtering"
    )
    understood_at = models.DateTimeField(null=True, blank=True)
    ingested_at = models.DateTimeField(default=timezone.now)
    url = models.CharField(
        max_length=500, blank=True, default="", help_text="the post on its source (http(s) only)"
    )

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["sentiment", "-created_at"])]
        constraints = [
            models.UniqueConstraint(
                fields=["source", "external_id"], name="post_source_external_id_unique"
            )
        ]

    def __str__(self) -> str:
        return f"post {self.external_id}"


class SentimentCorrection(models.Model):
    """A triager's decision on a post's sentiment. The latest per post is a training label of the
    sentiment model (with the base set of settings.CLASSIFIER_SENTIMENT_CSV)."""

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="sentiment_corrections")
    before = models.CharField(max_length=16, blank=True, default="")
    before_confidence = models.FloatField(null=True, blank=True)
    after = models.CharField(max_length=16, choices=Post.Sentiment.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="sentiment_corrections",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["post", "-created_at"])]

    def __str__(self) -> str:
        return f"post {self.post_id}: {self.before} -> {self.after}"


class PostIssueLink(models.Model):
    class Kind(models.TextChoices):
        EXPLICIT = "explicit", "URL in the post"
        SUGGESTED = "suggested", "similar text"

    class Status(models.TextChoices):
        SUGGESTED = "suggested"
        CONFIRMED = "confirmed"
        REJECTED = "rejected"

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="issue_links")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="post_links")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices)
    score = models.FloatField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["post", "issue"], name="post_issue_link_unique")
        ]

    def __str__(self) -> str:
        return f"{self.post} → {self.issue_id} ({self.status})"


class Spike(models.Model):
    search = models.ForeignKey(
        SavedSearch, null=True, blank=True, on_delete=models.CASCADE, related_name="spikes"
    )
    component = models.CharField(max_length=100, blank=True, default="")
    hour = models.DateTimeField()
    count = models.PositiveIntegerField()
    baseline_mean = models.FloatField()
    baseline_stdev = models.FloatField()
    threshold = models.FloatField()
    detected_at = models.DateTimeField(default=timezone.now)
    announced_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-hour"]
        constraints = [
            models.UniqueConstraint(
                fields=["search", "component", "hour"],
                name="spike_scope_hour_unique",
                nulls_distinct=False,
            )
        ]

    def __str__(self) -> str:
        return self.describe()

    def scope_name(self) -> str:
        return self.search.name if self.search_id else f"component {self.component}"

    def describe(self) -> str:
        return (
            f"{self.scope_name()}: {self.count} posts in the hour from "
            f"{self.hour:%Y-%m-%d %H:%M} UTC (14-day mean {self.baseline_mean:.1f}, "
            f"threshold {self.threshold:.1f})"
        )
