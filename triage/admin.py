import contextlib
import json

from django import forms
from django.contrib import admin
from django.db import models
from django.utils.html import format_html

from config import wiring
from triage.models import (
    Comment,
    Issue,
    Label,
    Person,
    Post,
    PostIssueLink,
    PullRequestFiles,
    Repository,
    SavedSearch,
    Spike,
    SyncState,
    WebhookDelivery,
    WebhookRedelivery,
)
from triage.selectors.issues import FULL_NAME_RE
from triage.services import social, tracking

RAW_BODY_SHOWN_BYTES = 256 * 1024


class TriageAdmin(admin.ModelAdmin):
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}


def repository_opt_ins() -> list[tuple[str, str]]:
    """The writes to GitHub a repository may opt in to (wiring.REPOSITORY_OPT_INS)."""
    return [item for dotted in wiring.REPOSITORY_OPT_INS for item in wiring.load(dotted).items()]


class RepositoryForm(forms.ModelForm):
    github_actions = forms.MultipleChoiceField(
        choices=repository_opt_ins,
        widget=forms.CheckboxSelectMultiple,
        required=False,
        label="Writes to GitHub",
        help_text="Each is off until checked here; GitHub writes stop at once with the switch "
        "on the settings page (or GITHUB_WRITES_STOPPED).",
    )

    class Meta:
        model = Repository
        fields = [
            "full_name",
            "tracked",
            "label_writeback",
            "github_actions",
            "github_dry_run",
            "description",
            "default_branch",
            "private",
        ]

    def clean_full_name(self):
        full_name = self.cleaned_data["full_name"].strip()
        if not self.instance.on_github and full_name == self.instance.full_name:
            return full_name  # another source's repository: the name its package gave it
        if not FULL_NAME_RE.match(full_name):
            raise forms.ValidationError("Use OWNER/NAME as GitHub spells it, e.g. ROCm/ROCm.")
        return full_name

    def save(self, commit=True):
        # owner and name always follow full_name, also when an admin renames a repository.
        self.instance.owner, _, self.instance.name = self.instance.full_name.partition("/")
        return super().save(commit=commit)


@admin.register(Repository)
class RepositoryAdmin(TriageAdmin):
    form = RepositoryForm
    list_display = ["full_name", "source", "tracked", "label_writeback", "private"]
    list_display += ["default_branch", "github_dry_run", "added_at"]
    list_filter = ["source", "tracked", "label_writeback", "github_dry_run", "private"]
    search_fields = ["full_name", "description"]
    readonly_fields = ["source", "owner", "name", "github_id", "html_url", "added_at"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if obj.on_github:  # another source's package syncs its own
            tracking.repository_schedule_sync(repository=obj)


@admin.register(Person)
class PersonAdmin(TriageAdmin):
    list_display = ["login", "name", "source", "type", "site_admin", "external_id"]
    list_filter = ["source", "type", "site_admin"]
    search_fields = ["login", "name", "=external_id"]


@admin.register(Label)
class LabelAdmin(TriageAdmin):
    list_display = ["name", "repository", "color", "default"]
    list_filter = ["repository", "default"]
    list_select_related = ["repository"]
    search_fields = ["name", "description"]


@admin.register(Issue)
class IssueAdmin(TriageAdmin):
    list_display = [
        "__str__",
        "title",
        "state",
        "is_pull_request",
        "merged",
        "author",
        "comments_count",
        "updated_at",
        "deleted_at",
    ]
    list_filter = ["state", "is_pull_request", "merged", "repository", "locked"]
    list_select_related = ["repository", "author"]
    search_fields = ["title", "repository__full_name", "author__login", "=number"]
    raw_id_fields = ["author", "merged_by", "assignees", "labels"]
    date_hierarchy = "updated_at"
    show_full_result_count = False


@admin.register(Comment)
class CommentAdmin(TriageAdmin):
    list_display = ["external_id", "issue", "author", "created_at", "deleted_at"]
    list_filter = ["author_association"]
    list_select_related = ["issue__repository", "author"]
    search_fields = ["body", "author__login", "=external_id"]
    raw_id_fields = ["issue", "author"]
    show_full_result_count = False


@admin.register(SyncState)
class SyncStateAdmin(TriageAdmin):
    list_display = [
        "repository",
        "resource",
        "watermark",
        "backfill_done",
        "last_success_at",
        "has_error",
        "rate_limit_remaining",
    ]
    list_filter = ["resource", "backfill_done", "repository"]
    list_select_related = ["repository"]
    search_fields = ["repository__full_name", "last_error"]

    @admin.display(boolean=True, description="error")
    def has_error(self, obj):
        return bool(obj.last_error)


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(TriageAdmin):
    list_display = [
        "delivery_id",
        "event",
        "action",
        "repository_full_name",
        "status",
        "received_at",
    ]
    list_filter = ["status", "event"]
    search_fields = ["delivery_id", "repository_full_name", "error"]
    date_hierarchy = "received_at"
    exclude = ["raw_body"]
    readonly_fields = [
        "delivery_id",
        "event",
        "action",
        "hook_id",
        "repository_full_name",
        "received_at",
        "processing_started_at",
        "processed_at",
        "attempts",
        "raw_body_decoded",
    ]

    def get_queryset(self, request):
        # Bodies reach 25 MB: load one only when its change page shows it.
        return super().get_queryset(request).defer("raw_body")

    def has_add_permission(self, request):
        return False

    @admin.display(description="raw body")
    def raw_body_decoded(self, obj):
        raw = bytes(obj.raw_body or b"")
        text = raw[:RAW_BODY_SHOWN_BYTES].decode("utf-8", errors="replace")
        if len(raw) <= RAW_BODY_SHOWN_BYTES:
            with contextlib.suppress(ValueError):
                text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
        note = (
            f"Showing the first {RAW_BODY_SHOWN_BYTES:,} of {len(raw):,} bytes."
            if len(raw) > RAW_BODY_SHOWN_BYTES
            else f"{len(raw):,} bytes."
        )
        return format_html("<p>{}</p><pre>{}</pre>", note, text)  # no style: the CSP forbids it


@admin.register(WebhookRedelivery)
class WebhookRedeliveryAdmin(TriageAdmin):
    """What the redelivery job asked GitHub for: one row per failed delivery guid."""

    list_display = ["guid", "event", "action", "hook_target", "outcome", "requested_at"]
    list_filter = ["outcome", "hook_target_type", "event"]
    search_fields = ["guid", "hook_target", "failure", "error"]
    date_hierarchy = "requested_at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ReadOnlyAudit(TriageAdmin):
    """An audit log: read-only, written only by the service."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(PullRequestFiles)
class PullRequestFilesAdmin(ReadOnlyAudit):
    """A pull request's changed files as last read (what path rules match): read-only."""

    list_display = ["issue", "head_sha", "file_count", "truncated", "read_at"]
    list_filter = ["truncated"]
    list_select_related = ["issue__repository"]
    search_fields = ["=issue__number", "head_sha"]

    @admin.display(description="files")
    def file_count(self, obj) -> int:
        return len(obj.files)


# --- X -----------------------------------------------------------------------------------


@admin.register(SavedSearch)
class SavedSearchAdmin(TriageAdmin):
    list_display = ["name", "query", "enabled", "interval_minutes", "posts_this_month"]
    list_display += ["monthly_budget", "last_success_at"]
    list_filter = ["enabled"]
    search_fields = ["name", "query"]
    readonly_fields = ["since_id", "budget_month", "posts_this_month", "requests_used"]
    readonly_fields += ["last_run_at", "last_success_at", "last_error", "created_at"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        social.saved_search_schedule(search=obj)


@admin.register(Post)
class PostAdmin(TriageAdmin):
    list_display = ["external_id", "author", "created_at", "sentiment", "short_text"]
    list_filter = ["sentiment", "searches"]
    search_fields = ["text", "author__login"]
    raw_id_fields = ["author"]
    filter_horizontal = ["searches"]

    @admin.display(description="text")
    def short_text(self, post):
        return post.text[:80]


@admin.register(PostIssueLink)
class PostIssueLinkAdmin(TriageAdmin):
    list_display = ["post", "issue", "kind", "status", "score", "decided_by"]
    list_filter = ["kind", "status"]
    raw_id_fields = ["post", "issue", "decided_by"]


@admin.register(Spike)
class SpikeAdmin(TriageAdmin):
    list_display = ["hour", "search", "component", "count", "threshold", "announced_at"]
    list_filter = ["search"]
