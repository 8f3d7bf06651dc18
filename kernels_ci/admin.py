from django.contrib import admin

from kernels_ci.models import ReproCase, ReproRun, Runner


@admin.register(ReproCase)
class ReproCaseAdmin(admin.ModelAdmin):
    list_display = ["issue", "language", "backend", "symptom", "approved_by_login", "approved_at"]
    list_filter = ["language", "backend", "symptom"]
    raw_id_fields = ["issue", "approved_by"]
    readonly_fields = ["sha256", "approved_sha256", "script"]


@admin.register(ReproRun)
class ReproRunAdmin(admin.ModelAdmin):
    list_display = ["id", "case", "arch", "backend", "attempt", "status", "outcome", "duration_s"]
    list_filter = ["status", "outcome", "backend", "arch"]
    raw_id_fields = ["case"]


@admin.register(Runner)
class RunnerAdmin(admin.ModelAdmin):
    list_display = ["name", "arch", "rocm_version", "healthy", "consuming", "last_heartbeat_at"]
