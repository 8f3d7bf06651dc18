import contextlib
import json

from django import forms
from django.contrib import admin
from django.db import models
from django.utils import timezone
from django.utils.html import format_html

from triage.models import (
    Comment,
    CommentCommand,
    GitHubWrite,
    Issue,
    KnownError,
    Label,
    LabelWriteback,
    NeedsInfo,
    OwnerNotification,
    OwnershipRule,
    Person,
    Post,
    PostIssueLink,
    PullRequestFiles,
    ReplyTemplate,
    Repository,
    SavedSearch,
    Spike,
    SyncState,
    WebhookDelivery,
    WebhookRedelivery,
    WriteSwitch,
)
from triage.selectors.issues import FULL_NAME_RE
from triage.services import known_errors, outbox, ownership, reply_templates, social, tracking

RAW_BODY_SHOWN_BYTES = 256 * 1024


class TriageAdmin(admin.ModelAdmin):
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}


class RepositoryForm(forms.ModelForm):
    github_actions = forms.MultipleChoiceField(
        choices=list(outbox.ACTIONS.items()),
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


@admin.register(LabelWriteback)
class LabelWritebackAdmin(ReadOnlyAudit):
    """The audit log of label write-back: read-only, written only by the service."""

    list_display = ["created_at", "issue", "label", "status", "model_name", "model_version"]
    list_display += ["confidence", "actor"]
    list_filter = ["status", "model_name", "issue__repository"]
    list_select_related = ["issue__repository", "actor"]
    search_fields = ["label", "detail", "issue__repository__full_name", "=issue__number"]
    date_hierarchy = "created_at"
    show_full_result_count = False


@admin.register(GitHubWrite)
class GitHubWriteAdmin(ReadOnlyAudit):
    """The outbox and audit of every write to GitHub: read-only, written only by the service."""

    list_display = ["created_at", "issue", "action", "operation", "status", "decided_by"]
    list_display += ["model_name", "model_version", "detail"]
    list_filter = ["status", "action", "operation", "repository"]
    list_select_related = ["issue__repository"]
    search_fields = ["key", "detail", "decided_by", "=issue__number"]
    date_hierarchy = "created_at"
    show_full_result_count = False


@admin.register(CommentCommand)
class CommentCommandAdmin(ReadOnlyAudit):
    list_display = ["created_at", "issue", "line", "login", "association", "status", "detail"]
    list_filter = ["status", "command"]
    list_select_related = ["issue__repository"]
    search_fields = ["line", "login", "=issue__number"]


@admin.register(NeedsInfo)
class NeedsInfoAdmin(ReadOnlyAudit):
    list_display = ["issue", "state", "missing", "asked_at", "reminded_at", "closed_at"]
    list_filter = ["state"]
    list_select_related = ["issue__repository"]


class ReplyTemplateForm(forms.ModelForm):
    name = forms.ChoiceField(choices=[(n, n) for n in reply_templates.DEFAULTS])

    class Meta:
        model = ReplyTemplate
        fields = ["name", "body"]

    def clean(self):
        data = super().clean()
        if data.get("name") and data.get("body") is not None:
            try:
                reply_templates.template_validate(name=data["name"], body=data["body"])
            except reply_templates.TemplateInvalid as exc:
                self.add_error("body", str(exc))
        return data


@admin.register(ReplyTemplate)
class ReplyTemplateAdmin(TriageAdmin):
    """The texts posted on GitHub; validated when saved (each says its variables)."""

    form = ReplyTemplateForm
    list_display = ["name", "updated_at"]
    readonly_fields = ["help", "updated_at"]

    def get_changeform_initial_data(self, request):
        name = request.GET.get("name", "")
        default = reply_templates.DEFAULTS.get(name)
        return {"name": name, "body": default.body} if default else {}

    def save_model(self, request, obj, form, change):
        obj.help = reply_templates.DEFAULTS[obj.name].help
        obj.updated_at = timezone.now()
        super().save_model(request, obj, form, change)


def _service_validated(data: dict, validate, invalid: type[Exception], fields: tuple[str, ...]):
    """A form's cleaned `data` once the service's `validate` accepts its `fields` ("" for one
    missing); the service's `invalid` becomes the form's error."""
    try:
        validate(**{name: data.get(name) or "" for name in fields})
    except invalid as exc:
        raise forms.ValidationError(str(exc)) from None
    return data


class KnownErrorForm(forms.ModelForm):
    class Meta:
        model = KnownError
        fields = [
            "name",
            "pattern",
            "when_unsupported",
            "targets",
            "canonical",
            "answer",
            "enabled",
        ]

    def clean(self):
        return _service_validated(
            super().clean(),
            known_errors.signature_validate,
            known_errors.SignatureInvalid,
            ("pattern", "targets", "answer"),
        )


@admin.register(KnownError)
class KnownErrorAdmin(TriageAdmin):
    """Known errors: a pattern, conditions on the environment, the canonical issue, the answer
    (validated when saved; the support matrix is classifiers/data/rocm_support_matrix.json)."""

    form = KnownErrorForm
    list_display = ["name", "pattern", "when_unsupported", "targets", "canonical", "enabled"]
    list_filter = ["enabled", "when_unsupported"]
    raw_id_fields = ["canonical"]
    search_fields = ["name", "pattern"]


class OwnershipRuleForm(forms.ModelForm):
    class Meta:
        model = OwnershipRule
        fields = ["repository", "kind", "pattern", "owners", "order"]

    def clean(self):
        return _service_validated(
            super().clean(),
            ownership.rule_validate,
            ownership.RuleInvalid,
            ("kind", "pattern", "owners"),
        )


@admin.register(OwnershipRule)
class OwnershipRuleAdmin(TriageAdmin):
    """Who owns what, CODEOWNERS-like: of the rules that match an issue (or, for a path rule, a
    pull request's changed file), the last wins."""

    form = OwnershipRuleForm
    list_display = ["order", "repository", "kind", "pattern", "owners"]
    list_display_links = ["pattern"]
    list_filter = ["kind", "repository"]
    search_fields = ["pattern", "owners"]


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


@admin.register(OwnerNotification)
class OwnerNotificationAdmin(ReadOnlyAudit):
    list_display = ["created_at", "issue", "kind", "owners", "channels", "detail"]
    list_filter = ["kind"]
    list_select_related = ["issue__repository"]


@admin.register(WriteSwitch)
class WriteSwitchAdmin(TriageAdmin):
    list_display = ["name", "stopped", "reason", "changed_by", "changed_at"]
    readonly_fields = ["changed_by", "changed_at"]

    def save_model(self, request, obj, form, change):
        outbox.writes_stop(user=request.user, reason=obj.reason, stopped=obj.stopped)


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
