"""The features that act on GitHub, one folder each, in one list (as triagebot's handlers).

A feature's folder holds what it has of: models.py (re-exported by automation/models.py, where
Django looks), services.py, tasks.py (imported when the app is ready, so that every process
knows its tasks), panels.py and views.py; config/wiring.py names its tasks, panels and hooks.
Each writes to GitHub only through the outbox (automation/outbox/services.py): off by default,
opted in per repository and action, dry run, an audit row per decision, the one switch.
"""

FEATURES: list[str] = [
    "outbox",  # every write to GitHub: planned, audited, sent once, the one stop switch
    "writeback",  # predicted labels applied on GitHub (opted-in repositories)
    "needs_info",  # ask new bugs for the facts they lack; remind, then close
    "known_errors",  # known errors proposed as duplicates, with their answer
    "ownership",  # owners by component, GPU family, label and path; reviews; escalation
    "commands",  # `/kind bug`, `/assign @a` ... in collaborators' comments
    "digest",  # each component's response times, weekly, to its owners
    "acts",  # a maintainer's reply, close, labels, assign and bulk actions, from the dashboard
]
