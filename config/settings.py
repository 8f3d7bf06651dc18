"""Settings, all from the environment.

Two deployments share this one code path:
- embedded default: no DATABASE_URL (an SQLite file under var/), no REDIS_URL (Celery tasks run
  eagerly in-process, cache in memory);
- real: DATABASE_URL=postgres://..., REDIS_URL=redis://... (broker, result backend and cache).
"""

import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from csp import constants as csp
from django.core.exceptions import ImproperlyConfigured
from kombu import Queue

BASE_DIR = Path(__file__).resolve().parent.parent


def env(name: str, default=""):
    """The variable's value; unset or empty (spaces only) gives the default."""
    value = os.environ.get(name, "")
    return value if value.strip() else default


def _env_number(name: str, default, kind: type, what: str):
    value = env(name)
    if value == "":
        return default
    try:
        return kind(value.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be {what}, got {value!r}") from None


def env_int(name: str, default: int) -> int:
    return _env_number(name, default, int, "a whole number")


def env_float(name: str, default: float) -> float:
    return _env_number(name, default, float, "a number")


def env_bool(name: str, default: bool = False) -> bool:
    value = env(name)
    if value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [part.strip() for part in env(name, default).split(",") if part.strip()]


def env_pairs(name: str, default: str = "", *, keys=None, number: bool = False) -> dict:
    """ "KEY=VALUE,KEY=VALUE" as a dict; an entry that is not KEY=VALUE, a key not in `keys`
    (when given) or, with `number`, a value that is not a whole number stops the process with
    an error naming the variable and the entry."""
    pairs = {}
    for entry in env_list(name, default):
        key, _, value = (side.strip() for side in entry.partition("="))
        if not key or not value or (keys is not None and key not in keys):
            known = f" (keys: {', '.join(keys)})" if keys is not None else ""
            raise ImproperlyConfigured(f"{name}: {entry!r} is not KEY=VALUE{known}")
        if number and not value.isdigit():
            raise ImproperlyConfigured(f"{name}: {entry!r}: {value!r} is not a whole number")
        pairs[key] = int(value) if number else value
    return pairs


VAR_DIR = Path(env("VAR_DIR", BASE_DIR / "var"))
# Each pytest-xdist worker (`make test` runs one per core) keeps its own files: model artifacts,
# the webhook spool, built environments.
if os.environ.get("PYTEST_XDIST_WORKER"):
    VAR_DIR = VAR_DIR / os.environ["PYTEST_XDIST_WORKER"]


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set the SECRET_KEY environment variable to a long random "
            "string (python -c 'import secrets; print(secrets.token_urlsafe(50))'), or set "
            "DEBUG=1 for a local development server."
        )
    SECRET_KEY = "insecure-development-only-key"  # noqa: S105 - only ever with DEBUG on

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "csp",
    "axes",
    # Sign in with GitHub (settings below): allauth's social accounts, GitHub only
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.github",
    "classifiers",
    "triage",
    "automation",  # acting on GitHub: after triage, before the stages that use its outbox
    "kernels_ci",
    "releases",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",  # Content-Security-Policy (settings below)
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # The signed webhook carries no session: nothing below reads the database before it.
    "triage.views.webhooks.WebhookWithoutSessionMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Everything needs a login except views marked login_not_required (login, webhook, health)
    # and the REST API (token auth); dashboard pages need the viewer role (triage/access.py).
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "triage.access.RoleRequiredMiddleware",
    "triage.access.UserTimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # a locked-out sign-in gets the lockout page (429)
    "config.sign_in.SignInThrottleMiddleware",  # an address spraying passwords: 429 a while
    "allauth.account.middleware.AccountMiddleware",  # Sign in with GitHub's flow state
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.context_processors.polling",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"

DATABASE_URL = env("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'triage.sqlite3'}"
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # WAL lets the dashboard read while an ingestion writes; wait rather than fail on a lock.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
    }
else:
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # A database host that drops packets fails a connection in seconds, not in the minutes of
    # TCP's retries: the webhook spools what it cannot store before GitHub's 10 s timeout.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "connect_timeout", env_int("DATABASE_CONNECT_TIMEOUT_S", 3)
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# Spike's uniqueness treats NULL searches as equal (nulls_distinct=False) on Postgres; SQLite
# cannot, and there a single writer (SQLite's lock) and the spike scan's own check keep it.
# The issue list's covering index (INCLUDE) is a Postgres optimisation: SQLite builds it as a
# plain index, which is all it needs, so its warning is noise on every demo command.
SILENCED_SYSTEM_CHECKS = ["models.W047", "models.W040"]

# --- Sign-in protection: django-axes locks an account out from an address after repeated failed
# sign-ins (the login page and the admin); the API throttles wrong tokens and busy clients. ------
# Behind N reverse proxies that append to X-Forwarded-For, set TRUSTED_PROXY_COUNT=N so that the
# lockout and the throttles see the client's address (config/client_ip.py), not the proxy's.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: a locked-out sign-in never reaches a password
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
# by the pair (account, address): a stranger's wrong passwords cannot lock a maintainer out
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# 0: locked until an admin unlocks (Admin -> Axes -> Access attempts, or axes_reset_username)
LOGIN_LOCKOUT_MINUTES = env_int("LOGIN_LOCKOUT_MINUTES", 30)
AXES_COOLOFF_TIME = timedelta(minutes=LOGIN_LOCKOUT_MINUTES) if LOGIN_LOCKOUT_MINUTES else None
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_CLIENT_IP_CALLABLE = "config.client_ip.client_ip"
AXES_HTTP_RESPONSE_CODE = 429
# one address's wrong passwords across accounts (spraying), and the password form's wrong old
# passwords per account: refused with 429 for the window once over (config/sign_in.py)
LOGIN_ADDRESS_FAILURE_LIMIT = env_int("LOGIN_ADDRESS_FAILURE_LIMIT", 20)
LOGIN_ADDRESS_WINDOW_S = env_int("LOGIN_ADDRESS_WINDOW_S", 900)
PASSWORD_CHANGE_FAILURE_LIMIT = env_int("PASSWORD_CHANGE_FAILURE_LIMIT", 5)
PASSWORD_CHANGE_WINDOW_S = env_int("PASSWORD_CHANGE_WINDOW_S", 900)
API_TOKEN_FAILURE_LIMIT = env_int("API_TOKEN_FAILURE_LIMIT", 20)
API_TOKEN_FAILURE_WINDOW_S = env_int("API_TOKEN_FAILURE_WINDOW_S", 900)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

if not DEBUG:
    # Production: HTTPS only (`manage.py check --deploy --fail-level WARNING` passes). Behind a
    # TLS-terminating proxy that sets X-Forwarded-Proto the redirect and HSTS work as they are;
    # SECURE_SSL_REDIRECT=0 where the proxy redirects itself, or for plain http on loopback.
    SESSION_COOKIE_HTTPONLY = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # load balancers probe over plain http
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)

# --- Content-Security-Policy and Permissions-Policy -------------------------------------------
# Scripts and styles come from our static files only: no inline <script>, no event-handler or
# style attributes (label colours are CSS custom properties that static/js/app.js sets from a
# data attribute), htmx with eval and its inline indicator <style> off (templates/base.html).
# Images: our own files, and an image proxy's when one is configured (camo-compatible:
# triage/views/image_proxy.py); without it, images in issue text are shown as links.
IMAGE_PROXY_URL = env("IMAGE_PROXY_URL", "").rstrip("/")
IMAGE_PROXY_KEY = env("IMAGE_PROXY_KEY", "")
_image_proxy = urlsplit(IMAGE_PROXY_URL)
if IMAGE_PROXY_URL and (_image_proxy.scheme not in ("http", "https") or not _image_proxy.netloc):
    raise ImproperlyConfigured(f"IMAGE_PROXY_URL must be an http(s) URL, not {IMAGE_PROXY_URL!r}")
if bool(IMAGE_PROXY_URL) != bool(IMAGE_PROXY_KEY):
    raise ImproperlyConfigured("IMAGE_PROXY_URL and IMAGE_PROXY_KEY are set together or not at all")
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [csp.NONE],
        "script-src": [csp.SELF],
        "style-src": [csp.SELF],
        "img-src": [csp.SELF]
        + ([f"{_image_proxy.scheme}://{_image_proxy.netloc}"] if IMAGE_PROXY_URL else []),
        "font-src": [csp.SELF],
        "connect-src": [csp.SELF],
        "manifest-src": [csp.SELF],
        "object-src": [csp.NONE],
        "base-uri": [csp.SELF],
        "form-action": [csp.SELF],
        "frame-ancestors": [csp.NONE],
    }
}
# Powerful browser features no page of ours uses, denied to the page and anything it embeds.
PERMISSIONS_POLICY = {
    feature: []
    for feature in (
        "accelerometer", "autoplay", "bluetooth", "camera", "display-capture", "encrypted-media",
        "geolocation", "gyroscope", "hid", "idle-detection", "magnetometer", "microphone",
        "midi", "payment", "publickey-credentials-get", "screen-wake-lock", "serial", "usb",
        "xr-spatial-tracking",
    )
}  # fmt: skip

# GitHub sends deliveries up to 25 MB; the webhook view enforces that limit itself.
DATA_UPLOAD_MAX_MEMORY_SIZE = 26 * 1024 * 1024

# --- Redis, Celery, cache -------------------------------------------------------------------
REDIS_URL = env("REDIS_URL", "")

if REDIS_URL:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

REPRO_ARCHITECTURES = ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1151"]
CELERY_QUEUES_BY_PURPOSE = ["ingest", "classify", "releases", "repro.cpu"] + [
    f"repro.{arch}" for arch in REPRO_ARCHITECTURES
]

CELERY_BROKER_URL = REDIS_URL or "memory://localhost/"  # a host: kombu warns without one
CELERY_RESULT_BACKEND = REDIS_URL or None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_QUEUES = [Queue(name) for name in CELERY_QUEUES_BY_PURPOSE]
CELERY_TASK_DEFAULT_QUEUE = "ingest"
# Every task's queue, by the task's name: no patterns, so a task added without a route fails
# tests/config/test_task_routes.py (each registered task routed to a queue that a worker of
# docs/DEPLOYMENT.md consumes) instead of landing wherever its name happens to match.
TASK_QUEUES = {
    # per-issue work on the issues' text: never behind webhook deliveries
    "classify": [
        "triage.tasks.classify_issues",
        "triage.tasks.classify_comments",
        "triage.tasks.classify_environment",
        "triage.tasks.classify_posts",
        "triage.tasks.classify_prioritize_issues",
        "triage.tasks.classify_reprioritize_open",
        "triage.tasks.classify_retrain_models",
        "triage.tasks.index_issues",  # full-text vectors
        "kernels_ci.tasks.cases_refresh",  # reading an issue's reproducer
    ],
    "ingest": [
        "triage.tasks.sync_repository",
        "triage.tasks.sync_saved_search",
        "triage.tasks.read_pull_request_commits",
        "triage.tasks.read_pull_request_files",
        "triage.tasks.process_webhook_delivery",
        "triage.tasks.process_webhook_deliveries",
        "triage.tasks.process_pending_webhook_deliveries",
        "triage.tasks.prune_webhook_deliveries",
        "triage.tasks.redeliver_failed_webhook_deliveries",
        "triage.tasks.detect_spikes",
        "triage.tasks.update_inboxes",
        "triage.tasks.github_roles_refresh",
        "triage.tasks.pipeline_sweep",
        # acting on GitHub (automation/: the tasks keep the names they had in triage.tasks)
        "triage.tasks.deliver_github_write",
        "triage.tasks.resend_pending_github_writes",
        "triage.tasks.writeback_labels",
        "triage.tasks.needs_info_refresh",
        "triage.tasks.needs_info_sweep",
        "triage.tasks.match_known_errors",
        "triage.tasks.route_to_owners",
        "triage.tasks.request_owner_reviews",
        "triage.tasks.escalate_overdue_issues",
        "triage.tasks.run_comment_commands",
        "triage.tasks.response_digest_send",
        # repro coordination: never behind long repro runs
        "kernels_ci.tasks.run_comment",
        "kernels_ci.tasks.runners_check",
        "kernels_ci.tasks.verification_nightly",
        "kernels_ci.tasks.verification_request",
    ],
    "releases": [
        "releases.tasks.link_fixes",
        "releases.tasks.announce_released_fixes",
        "releases.tasks.punt_due_trains",
        "releases.tasks.retrain_forecast",
        "releases.tasks.snapshot_trains",
    ],
    # dispatched to its run's queue (repro.<arch>); this is where one sent without a queue goes
    "repro.cpu": ["kernels_ci.tasks.run_execute"],
}
CELERY_TASK_ROUTES = {
    name: {"queue": queue} for queue, names in TASK_QUEUES.items() for name in names
}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = 600
CELERY_TASK_TIME_LIMIT = 720
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_EXPIRES = 3600
# Redis redelivers an unacknowledged task after this: also how long the task of a worker killed
# mid-task (SIGKILL, the OOM killer) waits before another worker runs it. A rate-limited sync
# waits up to an hour for GitHub's reset, and its countdowns stay under 90% of this
# (triage/sources/github/sync.py). Every worker looks for expired tasks a quarter of it apart
# (<= 10 s).
TASK_VISIBILITY_TIMEOUT_S = env_int("TASK_VISIBILITY_TIMEOUT_S", 7200)
# A pipeline step that met an outage of Postgres or Redis retries 2, 4, 8 ... s later, at most
# this far apart (config/task_retries.py): the longest wait after the outage ends.
TASK_RETRY_BACKOFF_MAX_S = env_int("TASK_RETRY_BACKOFF_MAX_S", 300)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": TASK_VISIBILITY_TIMEOUT_S,
    "unacked_restore_interval": max(1, min(10, TASK_VISIBILITY_TIMEOUT_S // 4)),
    "unacked_restore_throttle": 1,
}
# A send (a pipeline step after a sync's page, a retry) waits through a broker restart of up to
# about 15 s before it fails; the webhook view waits less (its sweep picks up what it misses).
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 20,
    "interval_start": 0,
    "interval_step": 0.25,
    "interval_max": 0.75,
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# One beat sends at a time (config/beat_scheduler.py): it holds a lease in Redis, renewed every
# tick; a standby beat takes over BEAT_LEASE_S after the leader stops renewing.
CELERY_BEAT_SCHEDULER = "config.beat_scheduler:LeaderDatabaseScheduler"
BEAT_LEASE_S = env_float("BEAT_LEASE_S", 30.0)
CELERY_TIMEZONE = TIME_ZONE

# --- GitHub --------------------------------------------------------------------------------
GITHUB_TOKEN = env("GITHUB_TOKEN", "")
GITHUB_API_URL = env("GITHUB_API_URL", "https://api.github.com").rstrip("/")
GITHUB_WEBHOOK_SECRET = env("GITHUB_WEBHOOK_SECRET", "")
# A GitHub App (its id and PEM private key, as text or as a file): when set, every call for a
# repository carries the token of the App's installation that holds it, instead of GITHUB_TOKEN
# (triage/sources/github/app_auth.py); the App's webhook deliveries are read with its JWT
# (triage/sources/github/redelivery.py). docs/DEPLOYMENT.md: creating and installing the App.
GITHUB_APP_ID = env("GITHUB_APP_ID", "")
GITHUB_APP_PRIVATE_KEY = env("GITHUB_APP_PRIVATE_KEY", "")
GITHUB_APP_PRIVATE_KEY_PATH = env("GITHUB_APP_PRIVATE_KEY_PATH", "")
GITHUB_REPOS = env_list("GITHUB_REPOS")
# The accounts (users, organizations) whose installation of the GitHub App is acted on, besides
# the owners of GITHUB_REPOS and of the repositories already tracked; "*" trusts any (only for an
# App that is not public). Another account's installation tracks nothing.
GITHUB_APP_ACCOUNTS = env_list("GITHUB_APP_ACCOUNTS")
GITHUB_SYNC_INTERVAL_MINUTES = env_int("GITHUB_SYNC_INTERVAL_MINUTES", 10)
GITHUB_HTTP_TIMEOUT = env_int("GITHUB_HTTP_TIMEOUT", 30)
GITHUB_WEBHOOK_MAX_BYTES = 25 * 1024 * 1024
# Processed and ignored deliveries (their raw bodies, 5-30 kB each) are deleted after this many
# days by a daily beat job; failed and pending ones are kept. 0: kept for ever.
WEBHOOK_DELIVERY_RETENTION_DAYS = env_int("WEBHOOK_DELIVERY_RETENTION_DAYS", 30)
# A verified delivery the database cannot take (down, unreachable) is kept here, one fsynced file
# each, answered 202, and moved into the database by the web process once it is back
# (triage/services/webhook_spool.py). Local disk of each web host; past the bound: 503.
WEBHOOK_SPOOL_DIR = Path(env("WEBHOOK_SPOOL_DIR", VAR_DIR / "webhook-spool"))
WEBHOOK_SPOOL_MAX_BYTES = env_int("WEBHOOK_SPOOL_MAX_BYTES", 2 * 1024**3)
WEBHOOK_SPOOL_DRAIN_INTERVAL_S = env_float("WEBHOOK_SPOOL_DRAIN_INTERVAL_S", 2.0)
# Acting on GitHub (triage/services/outbox.py): every write is opted in per repository and per
# action in the admin; this stops them all at once (as does the switch on the settings page).
GITHUB_WRITES_STOPPED = env_bool("GITHUB_WRITES_STOPPED", False)
# The login the service's token writes as (its comments are found again by it); "" asks GET /user.
GITHUB_BOT_LOGIN = env("GITHUB_BOT_LOGIN", "")
# Needs-info (triage/services/needs_info.py): which facts a new bug must give, which issues are
# new, when to remind and when to close (days without the reporter's answer).
NEEDS_INFO_FACTS = env_list("NEEDS_INFO_FACTS") or [
    "gpu",
    "rocm_version",
    "os",
    "steps",
    "rocminfo",
]
NEEDS_INFO_NEW_DAYS = env_int("NEEDS_INFO_NEW_DAYS", 30)
NEEDS_INFO_REMIND_DAYS = env_int("NEEDS_INFO_REMIND_DAYS", 14)
NEEDS_INFO_CLOSE_DAYS = env_int("NEEDS_INFO_CLOSE_DAYS", 14)
NEEDS_INFO_LABEL = env("NEEDS_INFO_LABEL", "needs info")
NEEDS_INFO_MIN_KIND_CONFIDENCE = env_float("NEEDS_INFO_MIN_KIND_CONFIDENCE", 0.7)
# ROCm's support matrix (classifiers/support_matrix.py): releases added to or replacing the
# bundled table (classifiers/data/rocm_support_matrix.json), {"linux": {"6.4.0": ["gfx942", ...]},
# "windows": {...}}; the releases edited in the admin or with `manage.py support_matrix` (no
# redeploy) replace both.
ROCM_SUPPORT_MATRIX: dict = {}
# Ownership (triage/services/ownership.py): a component this sure routes to its owners; issues
# without a maintainer's response this many hours after opening escalate (by severity).
OWNERSHIP_MIN_CONFIDENCE = env_float("OWNERSHIP_MIN_CONFIDENCE", 0.8)
OWNERSHIP_ESCALATION_EMAILS = env_list("OWNERSHIP_ESCALATION_EMAILS")
# The whole table: a severity left out is not escalated for lack of a response.
RESPONSE_DEADLINE_HOURS = env_pairs(
    "RESPONSE_DEADLINE_HOURS",
    "critical=24,high=72,medium=168,low=336",
    keys=("critical", "high", "medium", "low"),
    number=True,
)
# Response times (triage/selectors/response_times.py): the maintainers' goal for a first
# response (working days: Monday to Friday, UTC; holidays not known), the days of issues the
# figures look back over, and who gets the weekly digest where no owner is known.
RESPONSE_GOAL_WORKING_DAYS = env_int("RESPONSE_GOAL_WORKING_DAYS", 3)
RESPONSE_WINDOW_DAYS = env_int("RESPONSE_WINDOW_DAYS", 90)
RESPONSE_DIGEST_RECIPIENTS = env_list("RESPONSE_DIGEST_RECIPIENTS")
# A backfill (a first or --full sync) stops when its budget (the token's, or its App
# installation's) falls to this many requests, and goes on after the reset: the rest is for the
# other repositories' incremental syncs and the outbox's writes.
GITHUB_RATE_RESERVE = env_int("GITHUB_RATE_RESERVE", 500)
# A backfill makes this many requests at a time, then goes on at the back of the ingest queue:
# the syncs that queued meanwhile (other repositories' backfills too) are not held behind it.
GITHUB_BACKFILL_SLICE_REQUESTS = env_int("GITHUB_BACKFILL_SLICE_REQUESTS", 200)
# A repository whose events arrive by webhook (its App installation's, or a delivery in the last
# day) is kept current by them: its scheduled sync, a reconciliation, runs this often.
GITHUB_WEBHOOK_FED_SYNC_MINUTES = env_int("GITHUB_WEBHOOK_FED_SYNC_MINUTES", 360)
# 5xx answers are retried this many times inside one request, with exponential backoff.
GITHUB_RETRIES = env_int("GITHUB_RETRIES", 4)
GITHUB_RETRY_BACKOFF = env_float("GITHUB_RETRY_BACKOFF", 0.5)

# --- X (Twitter) API v2 -----------------------------------------------------------------------
X_BEARER_TOKEN = env("X_BEARER_TOKEN", "")
X_API_URL = env("X_API_URL", "https://api.twitter.com").rstrip("/")
X_SYNC_INTERVAL_MINUTES = env_int("X_SYNC_INTERVAL_MINUTES", 15)
# Recent search reads are capped per month by the API plan; each saved search gets this budget.
X_MONTHLY_POST_BUDGET = env_int("X_MONTHLY_POST_BUDGET", 10000)

# Spikes: an hour above mean + 3 standard deviations of the trailing 14 days, and at least this.
SPIKE_MIN_POSTS = env_int("SPIKE_MIN_POSTS", 10)
SPIKE_EMAIL_RECIPIENTS = env_list("SPIKE_EMAIL_RECIPIENTS")
# Inboxes (triage/services/inbox.py): how often the page and the menu's count ask for news, and
# the inbox's address for the e-mails (empty: the e-mails name no link).
INBOX_POLL_SECONDS = int(env("INBOX_POLL_SECONDS", "30"))
INBOX_URL = env("INBOX_URL", "")
SPIKE_SLACK_WEBHOOK_URL = env("SPIKE_SLACK_WEBHOOK_URL", "")
EMAIL_BACKEND = env("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = env("EMAIL_HOST", "localhost")
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", "rocm-triage@localhost")

# --- Kernel bug reproduction (kernels_ci, issue 6) -----------------------------------------------
# This worker's runner: its GPU architecture (or cpu) and ROCm version; it consumes repro.<arch>.
KERNELS_CI_RUNNER_ARCH = env("KERNELS_CI_RUNNER_ARCH", "cpu")
KERNELS_CI_ROCM_VERSION = env("KERNELS_CI_ROCM_VERSION", "")
KERNELS_CI_RUNS_PER_ATTEMPT = env_int("KERNELS_CI_RUNS_PER_ATTEMPT", 5)
KERNELS_CI_RUN_TIMEOUT_S = env_int("KERNELS_CI_RUN_TIMEOUT_S", 120)
KERNELS_CI_MEMORY_BYTES = env_int("KERNELS_CI_MEMORY_BYTES", 8 * 1024**3)
KERNELS_CI_NPROC = env_int("KERNELS_CI_NPROC", 512)  # tasks per run
KERNELS_CI_OUTPUT_BYTES = env_int("KERNELS_CI_OUTPUT_BYTES", 64 * 1024)
KERNELS_CI_CONTAINER_CLI = env("KERNELS_CI_CONTAINER_CLI", "docker")
KERNELS_CI_ROCM_IMAGE = env("KERNELS_CI_ROCM_IMAGE", "")  # NAME@sha256:<digest>
# The ROCm ladder of a GPU runner: one image pinned by digest per ROCm series, for attempts on
# the reporter's ROCm and bisections over series ("6.2=rocm/pytorch@sha256:...,6.3=...").
KERNELS_CI_ROCM_IMAGES = env_pairs("KERNELS_CI_ROCM_IMAGES")
KERNELS_CI_RENDER_DEVICE = env("KERNELS_CI_RENDER_DEVICE", "/dev/dri/renderD128")
KERNELS_CI_KFD_DEVICE = env("KERNELS_CI_KFD_DEVICE", "/dev/kfd")
KERNELS_CI_CONTAINER_CPUS = env("KERNELS_CI_CONTAINER_CPUS", "4")
KERNELS_CI_CONTAINER_MEMORY = env("KERNELS_CI_CONTAINER_MEMORY", "16g")
KERNELS_CI_CONTAINER_PIDS = env_int("KERNELS_CI_CONTAINER_PIDS", 512)
KERNELS_CI_HEARTBEAT_S = env_int("KERNELS_CI_HEARTBEAT_S", 30)
KERNELS_CI_MIN_FREE_DISK_BYTES = env_int("KERNELS_CI_MIN_FREE_DISK", 2 * 1024**3)
KERNELS_CI_VERIFY_PASSES = 3  # consecutive passing attempts for "verified fixed"
# The sandbox (kernels_ci/sandbox.py): util-linux unshare, the uid a root worker runs reproducers
# as, extra read-only paths a run sees besides what kernels_ci/sandbox_root.py binds, and a
# delegated cgroup v2 directory ("" = auto, "off").
KERNELS_CI_UNSHARE = env("KERNELS_CI_UNSHARE", "unshare")
KERNELS_CI_SANDBOX_UID = env_int("KERNELS_CI_SANDBOX_UID", 65534)
KERNELS_CI_SANDBOX_BIND = env_list("KERNELS_CI_SANDBOX_BIND")
KERNELS_CI_CGROUP = env("KERNELS_CI_CGROUP", "")
KERNELS_CI_DISK_BYTES = env_int("KERNELS_CI_DISK_BYTES", 1024**3)
# Post one comment with each finished attempt's result on the GitHub issue: off when empty;
# "*" for every repository, or a list of OWNER/NAME.
KERNELS_CI_GITHUB_COMMENT = env_list("KERNELS_CI_GITHUB_COMMENT")
# load_demo runs the demo reproducers (about 30 s on 2 cores) when the kernels extra is installed.
KERNELS_CI_DEMO_RUN = env_bool("KERNELS_CI_DEMO_RUN", True)
# Where a failure that only AMD targets show is routed: the component of Triton's AMD backend.
KERNELS_CI_AMD_BACKEND_COMPONENT = env("KERNELS_CI_AMD_BACKEND_COMPONENT", "triton: AMD backend")
# Per-version environments (kernels_ci/environments.py): where a runner keeps them (not under the
# project, VAR_DIR or the worker's home: a run reads them), their total size, the size assumed
# for a first one, and how long one may take to install.
KERNELS_CI_ENV_DIR = env(
    "KERNELS_CI_ENV_DIR",
    f"/var/tmp/kernels-ci-envs-{os.getuid()}",  # noqa: S108 - the worker's own, checked on use
)
KERNELS_CI_ENV_CACHE_BYTES = env_int("KERNELS_CI_ENV_CACHE_BYTES", 10 * 1024**3)
KERNELS_CI_ENV_SIZE_GUESS = 600 * 1024**2  # a Triton release installed: 550-600 MB
KERNELS_CI_ENV_BUILD_TIMEOUT_S = env_int("KERNELS_CI_ENV_BUILD_TIMEOUT_S", 900)
# ROCm's linker for Triton releases before 3.5 compiling for AMD targets (they call
# /opt/rocm/llvm/bin/ld.lld); unset: ld.lld or ld.lld-NN found on PATH at each run (Debian's lld).
KERNELS_CI_HIP_LLD_PATH = env("KERNELS_CI_HIP_LLD_PATH")

# --- Roles: one Django group each, kept in step by `migrate` and `manage.py setup_roles` ---------
# Entries: "app.codename", "app.view_*", "*" (everything) or "@role" (that role's permissions).
ROLES = {
    "viewers": [
        "triage.view_*",
        "automation.view_*",
        "releases.view_*",
        "kernels_ci.view_*",
        "django_celery_beat.view_*",
    ],
    "triagers": ["@viewers", "triage.triage_issue", "kernels_ci.approve_reprocase"],
    "release managers": ["@viewers", "releases.manage_trains", "releases.approve_backport"],
    "admins": ["*"],
}

# --- Sign in with GitHub (django-allauth's GitHub provider; docs/CONFIGURATION.md) --------------
# An OAuth App's client id and secret (secret from the environment only); the login page offers
# "Sign in with GitHub" only with both set. GitHub Enterprise: GITHUB_WEB_URL (where users sign in,
# https://ghe.example.com) beside GITHUB_API_URL (https://ghe.example.com/api/v3).
GITHUB_OAUTH_CLIENT_ID = env("GITHUB_OAUTH_CLIENT_ID", "")
GITHUB_OAUTH_CLIENT_SECRET = env("GITHUB_OAUTH_CLIENT_SECRET", "")
GITHUB_WEB_URL = env("GITHUB_WEB_URL", "https://github.com").rstrip("/")


def _github_team_roles(text: str) -> dict[str, list[str]]:
    """ "ORG/team=role,ORG/team=role" as {"ORG/team": [roles]} (matched in any case)."""
    mapping: dict[str, list[str]] = {}
    for entry in (part.strip() for part in text.split(",")):
        team, _, role = (side.strip() for side in entry.partition("="))
        if not entry:
            continue
        if "/" not in team or not role:
            raise ImproperlyConfigured(
                f"GITHUB_TEAM_ROLES: {entry!r} is not ORG/team-slug=role "
                '(e.g. "ROCm/triage-team=triagers,ROCm/release-managers=release managers")'
            )
        if role not in ROLES:
            raise ImproperlyConfigured(
                f"GITHUB_TEAM_ROLES: {role!r} is not a role; roles: {', '.join(ROLES)}"
            )
        mapping.setdefault(team, []).append(role)
    return mapping


# Roles from organization teams, set at every sign-in with GitHub and daily: a GitHub user holds
# exactly the mapped roles of their teams (the roles named here; others are left alone).
GITHUB_TEAM_ROLES = _github_team_roles(env("GITHUB_TEAM_ROLES", ""))
SOCIALACCOUNT_PROVIDERS = {
    "github": {
        "SCOPE": ["read:user", "user:email", "read:org"],
        "OAUTH_PKCE_ENABLED": True,
        # the app (client id and secret above) and the URLs (GITHUB_WEB_URL, GITHUB_API_URL)
        # are read per request by triage/views/github_signin.py, not from here
    }
}
# allauth serves only the GitHub flow (config/urls.py): no local sign-up, no e-mail, a GitHub
# user always becomes a new account (never joined to a local one by e-mail address or name).
ACCOUNT_ADAPTER = "triage.views.github_signin.AccountAdapter"
SOCIALACCOUNT_ADAPTER = "triage.views.github_signin.SocialAccountAdapter"
SOCIALACCOUNT_STORE_TOKENS = True  # the daily refresh reads teams with the user's token
SOCIALACCOUNT_AUTO_SIGNUP = True
SOCIALACCOUNT_EMAIL_AUTHENTICATION = False
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_UNIQUE_EMAIL = False
ACCOUNT_SIGNUP_FIELDS = ["username*"]

# --- Extension lists (pipeline steps, priority parts, page panels, beat jobs, demo loaders,
# classifier models, repro backends): config/wiring.py, the one place that lists them.

# --- Classifiers (issue 3) ----------------------------------------------------------------------
CLASSIFIER_ARTIFACT_DIR = Path(env("CLASSIFIER_ARTIFACT_DIR", VAR_DIR / "models"))
# Sentence embeddings (all-MiniLM-L6-v2) beside TF-IDF for kind/component/severity: needs the
# `embeddings` extra; +0.02 macro-F1 on NLBSE'24, 20x slower prediction (docs/PERFORMANCE.md).
CLASSIFIER_EMBEDDINGS = env_bool("CLASSIFIER_EMBEDDINGS", False)
# Per-repository label maps for weak labels: {model: {"*" or "OWNER/NAME": {label: class}}},
# merged over the defaults in triage/services/training_data.py (names in any case).
CLASSIFIER_LABEL_MAPS: dict = {}
# kind: each repository's model learns from its own issues (weight 1) and the other
# repositories' issues at this weight; 1 trains one pooled model (docs/PERFORMANCE.md).
CLASSIFIER_KIND_OTHER_REPOSITORIES_WEIGHT = env_float(
    "CLASSIFIER_KIND_OTHER_REPOSITORIES_WEIGHT", 0.3
)
# symptom, kind, severity: a trained model outranks the rules (where it is sure) once it learned
# from this many people's decisions: triagers' corrections, maintainers' labels (not the demo's),
# labelled real reports (docs/QUALITY.md: 185 were not enough).
CLASSIFIER_DECISIONS_TO_OVERRULE = env_int("CLASSIFIER_DECISIONS_TO_OVERRULE", 1000)
# The sentiment model's base set (CSV, columns text and label): the weekly retraining and
# `train_classifier sentiment` train on it with the triagers' sentiment corrections on top.
CLASSIFIER_SENTIMENT_CSV = env("CLASSIFIER_SENTIMENT_CSV", "")
# Priority weights (points per part), merged over triage/services/priority.py's defaults.
PRIORITY_WEIGHTS: dict = {}
# Severity's hardware tiers: {"gfx target" or a GPU name's words: "datacenter" | "consumer" |
# "unsupported"}, merged over classifiers/severity.py's defaults (ROCm's support matrix).
SEVERITY_HARDWARE_TIERS: dict = {}
# Label write-back (per repository, off by default): predictions at least this confident.
CLASSIFIER_WRITEBACK_MIN_CONFIDENCE = env_float("CLASSIFIER_WRITEBACK_MIN_CONFIDENCE", 0.9)

# --- REST API ------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "config.api_authentication.ThrottledTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Reads need the viewer role (the view permission on issues); actions name their own.
    "DEFAULT_PERMISSION_CLASSES": ["triage.permissions.CanView"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    # per client: a CI system polling readiness, a script reading the queue (429 past it)
    "DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.UserRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"user": env("API_RATE_LIMIT", "1200/minute")},
    "NUM_PROXIES": TRUSTED_PROXY_COUNT or None,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # The browsable API allows its own style attributes (config/browsable_api.py).
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "config.browsable_api.BrowsableAPIRenderer",
    ],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "ROCm triage and release API",
    "DESCRIPTION": "Issues, pull requests, posts, release trains and repro runs.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["triage.permissions.CanView"],
    # Swagger UI from our own static files: the dashboard works on an isolated network.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # 400/401/403/404/414 on every operation that does not declare its own.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.api_errors.document_error_responses",
    ],
}

# --- Logging: never log secrets; tokens only live in the environment -------------------------
# The DEBUG error page and error e-mails with every secret redacted (DATABASE_URL's password too).
DEFAULT_EXCEPTION_REPORTER = "config.error_views.SecretsHiddenExceptionReporter"
LOG_LEVEL = env("LOG_LEVEL", "INFO").upper()


def _client_log_level(quiet: str) -> str:
    """The HTTP clients' loggers: quiet, unless LOG_LEVEL=DEBUG asks for everything (redacted)."""
    return "DEBUG" if LOG_LEVEL == "DEBUG" else quiet


LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "filters": {"redact_secrets": {"()": "config.log_filters.RedactSecrets"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["redact_secrets"],
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # PyGithub and tweepy log request headers (the token among them) at DEBUG.
        "github": {"level": _client_log_level("WARNING"), "filters": ["redact_secrets"]},
        "tweepy": {"level": _client_log_level("INFO"), "filters": ["redact_secrets"]},
        "tweepy.client": {"level": _client_log_level("INFO"), "filters": ["redact_secrets"]},
        "urllib3": {"level": _client_log_level("WARNING"), "filters": ["redact_secrets"]},
        # lockouts and repeated failures are warnings; its INFO lines are every failed sign-in
        "axes": {"level": _client_log_level("WARNING")},
    },
}
