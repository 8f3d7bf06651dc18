"""Triage's models, one module per concept (Django finds them here)."""

from triage.models.dashboard import InboxItem, IssueFollow, SavedView, TriageAction, UserPreference
from triage.models.predictions import IssuePrediction, IssuePriority, PredictionCorrection
from triage.models.social import Post, PostIssueLink, SavedSearch, SentimentCorrection, Spike
from triage.models.sources import (
    GITHUB,
    Comment,
    Issue,
    IssueSearch,
    Label,
    Person,
    PullRequestFiles,
    Repository,
    RepositoryFormerName,
    RepositoryQuerySet,
    X,
)
from triage.models.sync import SyncState, WebhookDelivery, WebhookRedelivery

__all__ = [
    "Comment",
    "GITHUB",
    "InboxItem",
    "Issue",
    "IssueFollow",
    "IssuePrediction",
    "IssuePriority",
    "IssueSearch",
    "Label",
    "Person",
    "Post",
    "PostIssueLink",
    "PredictionCorrection",
    "PullRequestFiles",
    "Repository",
    "RepositoryFormerName",
    "RepositoryQuerySet",
    "SavedSearch",
    "SavedView",
    "SentimentCorrection",
    "Spike",
    "SyncState",
    "TriageAction",
    "UserPreference",
    "WebhookDelivery",
    "WebhookRedelivery",
    "X",
]
