"""GET /healthz: is the web process up and its database reachable (for load balancers), and how
many webhook deliveries this host holds in its spool (a non-empty spool with the database back
wakes the process's drain)."""

from django.contrib.auth.decorators import login_not_required
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.http import require_GET

from triage.services import webhook_spool


@login_not_required
@require_GET
def healthz(request):
    spool = _spool()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # any database failure means unhealthy
        body = {"status": "error", "database": type(exc).__name__, "webhook_spool": spool}
        return JsonResponse(body, status=503)
    if spool.get("deliveries"):
        webhook_spool.drainer.kick()
    return JsonResponse({"status": "ok", "webhook_spool": spool})


def _spool() -> dict:
    try:
        stats = webhook_spool.spool_stats()
    except OSError as exc:
        return {"error": type(exc).__name__}
    return {"deliveries": stats.deliveries, "bytes": stats.bytes, "quarantined": stats.quarantined}
