"""Admin of releases. Backport decisions and fix links change only through the services (the
same rules as the dashboard and the API): a backport's state and decider are read-only and the
actions approve or reject (releases.approve_backport); a fix link is added with fix_link_add and
removed with fix_link_remove (kept as removed, so parsing never brings it back)."""

from django import forms
from django.contrib import admin, messages

from releases import calendar
from releases.models import (
    Backport,
    FixLink,
    Punt,
    ReleaseCandidate,
    ReleaseNotesDraft,
    ReleaseSeries,
    TrainOverride,
    TrainSnapshot,
    TrainTarget,
)
from releases.services.backports import (
    BackportError,
    NotReleaseManager,
    backport_approve,
    backport_nominate,
    backport_reject,
)
from releases.services.fixes import FixLinkError, fix_link_add, fix_link_remove
from triage.permissions import APPROVE_BACKPORT, MANAGE_TRAINS


class TrainOverrideInline(admin.TabularInline):
    model = TrainOverride
    extra = 0


@admin.register(ReleaseSeries)
class ReleaseSeriesAdmin(admin.ModelAdmin):
    list_display = ["name", "epoch_version", "epoch_date", "cadence_days", "time_zone"]
    filter_horizontal = ["repositories"]
    inlines = [TrainOverrideInline]


class FixLinkAddForm(forms.ModelForm):
    class Meta:
        model = FixLink
        fields = ["issue", "pull_request"]

    def clean(self):
        data = super().clean()
        issue, pull_request = data.get("issue"), data.get("pull_request")
        if issue and pull_request and (issue.is_pull_request or not pull_request.is_pull_request):
            raise forms.ValidationError("link an issue to a pull request")
        return data


@admin.register(FixLink)
class FixLinkAdmin(admin.ModelAdmin):
    form = FixLinkAddForm
    list_display = ["issue", "pull_request", "source", "removed", "train_version", "via"]
    list_filter = ["source", "removed", "via", "series"]
    raw_id_fields = ["issue", "pull_request"]
    fields = ["issue", "pull_request"]
    actions = ["remove_links", "restore_links"]

    def has_manage_trains_permission(self, request) -> bool:
        return request.user.has_perm(MANAGE_TRAINS)

    def has_add_permission(self, request) -> bool:
        return self.has_manage_trains_permission(request)

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # the chain is computed; links change through the actions

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # a removal is kept (removed=True): use the action

    def save_model(self, request, obj, form, change):
        link = fix_link_add(issue=obj.issue, pull_request=obj.pull_request, user=request.user)
        obj.pk = link.pk
        obj.refresh_from_db()

    @admin.action(
        description="Remove the selected links (kept as removed)", permissions=["manage_trains"]
    )
    def remove_links(self, request, queryset):
        for link in queryset.select_related("issue", "pull_request"):
            fix_link_remove(issue=link.issue, pull_request=link.pull_request, user=request.user)
        messages.success(request, f"{queryset.count()} link(s) removed")

    @admin.action(description="Restore the selected links", permissions=["manage_trains"])
    def restore_links(self, request, queryset):
        restored = 0
        for link in queryset.select_related("issue", "pull_request"):
            try:
                fix_link_add(issue=link.issue, pull_request=link.pull_request, user=request.user)
                restored += 1
            except FixLinkError as exc:
                messages.error(request, f"{link}: {exc}")
        messages.success(request, f"{restored} link(s) restored")


@admin.register(TrainTarget)
class TrainTargetAdmin(admin.ModelAdmin):
    list_display = ["issue", "series", "train_version", "flags"]
    list_filter = ["series", "train_version"]
    raw_id_fields = ["issue", "set_by"]


class BackportForm(forms.ModelForm):
    class Meta:
        model = Backport
        fields = ["issue", "series", "train_version", "reason", "nominated_by"]

    def clean(self):
        data = super().clean()
        series, version = data.get("series"), data.get("train_version")
        if series and version:
            try:
                series.train(version)
            except calendar.CalendarError as exc:
                raise forms.ValidationError(str(exc)) from exc
        return data


@admin.register(Backport)
class BackportAdmin(admin.ModelAdmin):
    form = BackportForm
    list_display = ["issue", "series", "train_version", "state", "automatic", "decided_by"]
    list_filter = ["state", "automatic", "series"]
    raw_id_fields = ["issue", "nominated_by"]
    readonly_fields = [
        "state",
        "decided_by",
        "decided_at",
        "merged_pull_request",
        "automatic",
        "created_at",
    ]
    actions = ["approve", "reject"]

    def has_approve_backport_permission(self, request) -> bool:
        return request.user.has_perm(APPROVE_BACKPORT)

    def get_readonly_fields(self, request, obj=None):
        fields = list(self.readonly_fields)
        if obj is not None:  # which issue and train a nomination is for does not change
            fields += ["issue", "series", "train_version"]
        return fields

    def save_model(self, request, obj, form, change):
        if change:  # only the reason and who nominated are editable
            obj.save(update_fields=["reason", "nominated_by"])
            return
        backport = backport_nominate(
            issue=obj.issue,
            series=obj.series,
            version=obj.train_version,
            user=obj.nominated_by or request.user,
            reason=obj.reason,
        )
        obj.pk = backport.pk
        obj.refresh_from_db()

    def _decide(self, request, queryset, service):
        done = 0
        for backport in queryset.select_related("issue", "series"):
            try:
                service(backport=backport, user=request.user)
                done += 1
            except (BackportError, NotReleaseManager) as exc:
                messages.error(request, f"{backport}: {exc}")
        if done:
            messages.success(request, f"{done} backport(s) decided")

    @admin.action(description="Approve the selected nominations", permissions=["approve_backport"])
    def approve(self, request, queryset):
        self._decide(request, queryset, backport_approve)

    @admin.action(description="Reject the selected nominations", permissions=["approve_backport"])
    def reject(self, request, queryset):
        self._decide(request, queryset, backport_reject)


@admin.register(Punt)
class PuntAdmin(admin.ModelAdmin):
    list_display = ["issue", "series", "from_version", "to_version", "created_at"]
    raw_id_fields = ["issue"]


@admin.register(TrainSnapshot)
class TrainSnapshotAdmin(admin.ModelAdmin):
    list_display = ["series", "train_version", "day", "open_issues", "open_blockers", "fixed"]
    list_filter = ["series", "train_version"]
    readonly_fields = ["issue_ids"]


@admin.register(ReleaseCandidate)
class ReleaseCandidateAdmin(admin.ModelAdmin):
    list_display = ["series", "train_version", "tag", "tagged_at", "verification_requested"]
    list_filter = ["series"]
    readonly_fields = ["verification_requested"]

    def has_add_permission(self, request) -> bool:
        return False  # tag through the train page or the API: that requests verification


@admin.register(ReleaseNotesDraft)
class ReleaseNotesDraftAdmin(admin.ModelAdmin):
    list_display = ["series", "train_version", "updated_by", "updated_at"]
    raw_id_fields = ["updated_by"]
