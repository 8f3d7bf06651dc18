from django.contrib import admin

from releases.models import Backport, FixLink, Punt, ReleaseSeries, TrainOverride, TrainTarget


class TrainOverrideInline(admin.TabularInline):
    model = TrainOverride
    extra = 0


@admin.register(ReleaseSeries)
class ReleaseSeriesAdmin(admin.ModelAdmin):
    list_display = ["name", "epoch_version", "epoch_date", "cadence_days", "time_zone"]
    filter_horizontal = ["repositories"]
    inlines = [TrainOverrideInline]


@admin.register(FixLink)
class FixLinkAdmin(admin.ModelAdmin):
    list_display = ["issue", "pull_request", "source", "removed", "train_version", "via"]
    list_filter = ["source", "removed", "via", "series"]
    raw_id_fields = ["issue", "pull_request", "created_by"]


@admin.register(TrainTarget)
class TrainTargetAdmin(admin.ModelAdmin):
    list_display = ["issue", "series", "train_version", "flags"]
    list_filter = ["series", "train_version"]
    raw_id_fields = ["issue", "set_by"]


@admin.register(Backport)
class BackportAdmin(admin.ModelAdmin):
    list_display = ["issue", "series", "train_version", "state", "automatic", "decided_by"]
    list_filter = ["state", "automatic", "series"]
    raw_id_fields = ["issue", "merged_pull_request", "nominated_by", "decided_by"]


@admin.register(Punt)
class PuntAdmin(admin.ModelAdmin):
    list_display = ["issue", "series", "from_version", "to_version", "created_at"]
    raw_id_fields = ["issue"]
