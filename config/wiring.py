"""The wiring: every list that the apps extend, in one file, by dotted path (like MIDDLEWARE).

An app never imports the apps further down the chain (releases -> kernels_ci -> triage ->
classifiers); where an earlier stage calls a later one (the pipeline after ingestion, a part of
the priority, a panel on a page), it calls what a list here names. Adding a source, a model or a
backend is its package, module or file, its tests, and one line here. Each list says what an
entry must provide; tests/test_wiring.py imports every entry and checks it does.

The code reads a list when it runs (`wiring.ISSUE_PANELS`), so a test may replace a list with
monkeypatch; `load` imports an entry once per process.
"""

from __future__ import annotations

from functools import cache

from django.utils.module_loading import import_string

# --- The pipeline (triage/pipeline.py): what runs after rows change -------------------------
# Celery tasks taking `ids: list[int]`, in order, each enqueued once the transaction commits.
AFTER_ISSUES_CHANGED: list[str] = [
    "triage.tasks.index_issues",  # full-text search's vectors, of the issues whose text changed
    "triage.tasks.classify_issues",
    "kernels_ci.tasks.cases_refresh",  # re-extract repro cases; an edit needs re-approval
    "releases.tasks.link_fixes",  # merged PRs' closing keywords → fix links → trains
]
AFTER_COMMENTS_CHANGED: list[str] = [  # ids of the issues whose comments changed
    "kernels_ci.tasks.cases_refresh",  # `/repro` comments by collaborators approve and run
    # `/kind bug`, `/assign @a` ... by collaborators
    "automation.commands.tasks.run_comment_commands",
    "triage.tasks.update_inboxes",  # mentions and replies reach each maintainer's inbox
    "triage.tasks.classify_comments",  # sentiment of the comments (classify queue, batches)
    # the reporter's own comments complete the environment, then needs-info follows them
    "triage.tasks.classify_environment",
]
AFTER_POSTS_CHANGED: list[str] = ["triage.tasks.classify_posts"]
# After classify_issues has stored its predictions (it calls pipeline.issues_classified).
AFTER_ISSUES_CLASSIFIED: list[str] = [
    # repositories that opted in get the labels on GitHub
    "automation.writeback.tasks.writeback_labels",
    # new bugs lacking facts are asked for them (opted in)
    "automation.needs_info.tasks.needs_info_refresh",
    # known errors proposed as duplicates, with the answer
    "automation.known_errors.tasks.match_known_errors",
    # a sure component assigns its owners, alerts escalate
    "automation.ownership.tasks.route_to_owners",
    "triage.tasks.update_inboxes",  # assignments, mentions, known errors, repros to approve
]
# After classify_environment read the issues' environment again with their comments.
AFTER_ENVIRONMENT_READ: list[str] = [
    "automation.needs_info.tasks.needs_info_refresh",  # what the reporter added may be it
]
# Whether a pull request's changed files are read at all (triage/sources/github/sync.py): any
# entry saying so for its repository. `fn(repository_id: int) -> bool`.
PULL_FILES_WANTED: list[str] = [
    "automation.ownership.services.path_rules_apply",  # a path rule covers the repository
]
# After a pull request's changed files were read at a new head (triage/sources/github/sync.py).
AFTER_PULL_FILES_READ: list[str] = [
    # the owners of those files by path rules review
    "automation.ownership.tasks.request_owner_reviews",
]

# --- After a repro run ends in its worker (kernels_ci.services.runs.run_execute) -------------
# `fn(*, run: ReproRun, dispatch: bool) -> list[ReproRun]`: the runs it queued next.
AFTER_RUN_EXECUTED: list[str] = [
    "kernels_ci.services.verification.verification_continue",  # the next passing attempt
    "kernels_ci.services.bisection.bisection_continue",  # the next version to try
]

# --- Priority parts (triage/services/priority.py) ------------------------------------------
# `fn(*, issue_ids: list[int]) -> {issue id: (points, why)}`; their sum is the "release_train"
# part (kept within 0..release_train_max).
PRIORITY_PARTS: list[str] = [
    "releases.selectors.priority_train_closeness",  # train 7.9 cuts in 3 days
]

# --- Pages (triage/panels/__init__.py): sections later stages add to triage's pages ---------
# Issue page: `panel(*, issue, request) -> triage.panels.Panel | None`, shown in this order.
ISSUE_PANELS: list[str] = [
    "triage.panels.classification.classification_panel",
    "kernels_ci.panels.repro_panel",
    "triage.views.social.linked_posts_panel",
    "releases.panels.fixed_in_panel",
    # proposals; on a canonical issue, its reports
    "automation.known_errors.panels.known_errors_panel",
    "automation.panels.github_panel",  # needs-info, writes to GitHub, comment commands
    "automation.acts.panels.issue_acts_panel",  # reply, close, reopen, labels (triagers)
]
# Home page ("what needs a maintainer today"): `panel(*, request) -> Panel | None`.
HOME_PANELS: list[str] = [
    "triage.panels.home.triage_panel",
    "releases.home_panels.next_train_panel",
    "kernels_ci.home_panels.repro_panel",
    "triage.panels.home.social_panel",
    "triage.panels.home.models_panel",
    "triage.panels.home.activity_panel",
    "triage.panels.home.github_budgets_panel",  # each installation's budget and its reset
    "automation.digest.panels.response_times_panel",  # how far from the response goal
]
# Settings page: `panel(*, request) -> Panel | None`.
SETTINGS_PANELS: list[str] = [
    "triage.panels.home.repositories_settings_panel",
    "triage.panels.home.saved_searches_settings_panel",
    "automation.outbox.panels.github_writes_settings_panel",
    "releases.home_panels.series_settings_panel",
]
# The triage queue's filters by later stages: {query parameter: `fn() -> issue ids`}.
QUEUE_FILTERS: dict[str, str] = {
    "has_repro": "kernels_ci.selectors.issue_ids_with_reproducer",
    "needs_info": "automation.needs_info.panels.waiting_issue_ids",
    "awaiting_approval": "kernels_ci.selectors.issue_ids_awaiting_approval",
    "known_error": "automation.known_errors.panels.known_error_proposed_issue_ids",
}
# The queue's "My issues": components a later stage gives a GitHub login, `fn(login) -> [str]`.
OWNED_COMPONENTS: list[str] = [
    "automation.ownership.selectors.owned_components",  # component rules naming the login
]
# The triage queue's cells by later stages, one column each:
# `fn(*, issue_ids: list[int], request) -> {issue id: cell context}`.
QUEUE_ROW_CELLS: list[str] = [
    "automation.needs_info.panels.needs_info_queue_cells",
    "kernels_ci.panels.queue_repro_cells",
]

# Inbox items of later stages (triage/services/inbox.py), for the users concerned with an issue
# (assigned, following): `fn(*, issues: list[Issue]) -> {issue id: [Concern]}` (a
# triage.services.inbox.Concern).
INBOX_CONCERNS: list[str] = [
    "automation.known_errors.panels.inbox_concerns",  # a known-error match to confirm
]

# What later stages add to the triage queue's page and to a row sent alone after a decision:
# `fn(*, request) -> dict` (template context).
QUEUE_CONTEXT: list[str] = [
    "automation.acts.bulk.queue_context",  # the bulk bar: actions the user may take, undo
]

# The writes to GitHub a repository may opt in to (its admin page): each a {action: words} dict.
REPOSITORY_OPT_INS: list[str] = ["automation.outbox.services.ACTIONS"]

# --- Comment commands of later stages (triage/services/commands.py): {name: handler} -------
# `fn(*, issue, argument: str, login: str, ref: str) -> str` (what was done), raising
# automation.commands.services.CommandRefused (its message is the reply). "target" also takes
# `user=` (the queue's bulk action, triage/services/bulk.py).
COMMENT_COMMANDS: dict[str, str] = {
    "target": "releases.commands.target_command",
    "backport": "releases.commands.backport_command",
}
# Undoing a bulk action of a later stage: `fn(*, issue, undo: dict, user) -> str` (what it did).
BULK_UNDO: dict[str, str] = {
    "target": "releases.commands.target_undo",
}

# --- Beat jobs: `fn()`, idempotent, run whenever beat starts (config/beat_schedules.py) -------
# Each installs its app's entries in django-celery-beat, leaving an admin's changes alone.
BEAT_START: list[str] = [
    "triage.services.tracking.repositories_track_configured",  # GITHUB_REPOS
    "triage.sources.github.app_auth.app_check_at_start",  # logs what the GitHub App lacks
    "triage.services.tracking.schedules_install_defaults",  # webhook deliveries, sweeps
    "automation.schedules.schedules_install",  # needs-info, escalation, pending GitHub writes
    "triage.services.social.saved_searches_install",  # only with X_BEARER_TOKEN set
    "triage.services.classification_schedule.schedules_install",  # retraining, priorities
    "kernels_ci.schedules.schedules_install",  # nightly verification, runners heartbeat
    "releases.schedules.schedules_install",  # punts, burndown, forecast
    "automation.digest.services.schedules_install",  # weekly response-times digest
    # daily GitHub team -> role refresh, with GITHUB_OAUTH_CLIENT_ID and GITHUB_TEAM_ROLES set
    "triage.services.github_signin.schedules_install",
]

# --- Demo data: `load_demo` runs these in order, each `fn() -> report` ----------------------
# (the report's `summary()`, or its str, is printed); each app adds its part of the story.
DEMO_LOADERS: list[str] = [
    "triage.services.demo.demo_load",
    "kernels_ci.services.demo.demo_issues_load",  # every issue in place before training
    # trains the models (sentiment from a bundled synthetic set) before the posts arrive, so
    # posts get their sentiment and suggested issue links
    "triage.services.classification.demo_train_and_classify",
    "triage.services.demo.demo_posts_load",
    "kernels_ci.services.demo.demo_load",
    "releases.services.demo.demo_load",
    "automation.demo.demo_github_actions_load",  # what it would do on GitHub (dry run)
    "triage.services.demo.demo_prioritize",  # last: every stage's priority parts in place
]

# --- Classifier models (classifiers/registry.py) --------------------------------------------
# A model module's `ENTRY`: a classifiers.entries.ModelEntry (its class and its facts), in the
# order models are predicted (a model's rules read the labels of the models before it).
CLASSIFIER_MODELS: list[str] = [
    "classifiers.symptom.ENTRY",  # first: kind and severity read its label
    "classifiers.kind.ENTRY",
    "classifiers.component.ENTRY",
    "classifiers.severity.ENTRY",
    "classifiers.duplicates.ENTRY",
    "classifiers.sentiment.ENTRY",
]

# --- Repro backends (kernels_ci/backends/) ---------------------------------------------------
# {name: module}; the module has DESCRIPTION (kernels_ci.backends.base.Description, of that
# name), `available() -> str` and `execute(spec) -> Execution`.
REPRO_BACKENDS: dict[str, str] = {
    "triton-interpreter": "kernels_ci.backends.triton_interpreter",
    "triton-amd-compile": "kernels_ci.backends.triton_amd_compile",
    "triton-nvidia-compile": "kernels_ci.backends.triton_nvidia_compile",
    "rocm-container": "kernels_ci.backends.rocm_container",
}


@cache
def load(dotted: str):
    """The object a dotted path names (ImportError if there is none), imported once."""
    return import_string(dotted)
