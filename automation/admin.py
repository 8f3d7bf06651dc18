"""The admin of acting on GitHub: the audit logs (read-only), the texts, known errors, ownership
rules and the one switch."""

from django import forms
from django.contrib import admin
from django.utils import timezone

from automation.commands.models import CommentCommand
from automation.known_errors import services as known_errors
from automation.known_errors.models import KnownError
from automation.needs_info.models import NeedsInfo
from automation.outbox import reply_templates
from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite, ReplyTemplate, WriteSwitch
from automation.ownership import services as ownership
from automation.ownership.models import OwnerNotification, OwnershipRule
from automation.writeback.models import LabelWriteback
from triage.admin import ReadOnlyAudit, TriageAdmin


def _service_validated(data: dict, validate, invalid: type[Exception], fields: tuple[str, ...]):
    """A form's cleaned `data` once the service's `validate` accepts its `fields` ("" for one
    missing); the service's `invalid` becomes the form's error."""
    try:
        validate(**{name: data.get(name) or "" for name in fields})
    except invalid as exc:
        raise forms.ValidationError(str(exc)) from None
    return data


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
