"""System checks of triage's plug points, run when a process starts (`manage.py check`, runserver,
migrate, a worker): what a new model or a later stage plugged in wrongly is said at once."""

from __future__ import annotations

from django.core.checks import Error

from classifiers import registry

# The triage queue's own keys (static/js/app.js, templates/triage/_queue_row.html): move, open,
# duplicate, priority, undo, check a row, repro, help, go to, search.
QUEUE_KEYS_TAKEN = frozenset("jkodpucx?g/")


def queue_keys_check(app_configs, **kwargs) -> list[Error]:
    """Each model shown in the queue has a key of its own, one character, none of the queue's."""
    errors, seen = [], {}
    for name in registry.names(page=True):
        key = registry.entry(name).queue_key
        if len(key) != 1:
            problem = f"model {name!r} is shown in the triage queue without a one-character key"
        elif key in QUEUE_KEYS_TAKEN:
            problem = f"model {name!r}'s queue key {key!r} is one of the queue's own keys"
        elif key in seen:
            problem = f"models {seen[key]!r} and {name!r} share the queue key {key!r}"
        else:
            seen[key] = name
            continue
        errors.append(
            Error(
                problem,
                hint="give its ModelEntry a queue_key of its own (classifiers/registry.py); "
                f"taken: {''.join(sorted(QUEUE_KEYS_TAKEN | set(seen)))}",
                id="triage.E001",
            )
        )
    return errors
