"""The issue page's classification panel: predictions, evidence, priority, duplicates, decisions."""

from __future__ import annotations

from classifiers import registry
from triage import selectors
from triage.panels import Panel


def classification_panel(*, issue, request) -> Panel | None:
    if issue.is_pull_request:
        return None
    data = selectors.issue_predictions(issue=issue)
    predictions = data["predictions"]
    rows = []
    for name in registry.names(page=True):
        prediction = predictions.get(name)
        evidence = (
            prediction.evidence if prediction and isinstance(prediction.evidence, dict) else {}
        )
        items = [e for e in evidence.get("terms", []) if isinstance(e, dict)]
        rows.append(
            {
                "name": name,
                "prediction": prediction,
                "terms": [e for e in items if "term" in e],
                "rules": [e for e in items if "rule" in e],
                "clues": [e for e in items if "words" in e],  # the words and fields that decided
                "parts": [e for e in items if "effect" in e],  # what the severity follows from
                "model": next((e for e in items if "model" in e), None),
                "decided_by": evidence.get("decided_by", ""),
                "choices": registry.entry(name).choices,
            }
        )
    environment = predictions.get("environment")
    duplicates = predictions.get("duplicates")
    return Panel(
        title="Classification and priority",
        template="triage/panels/classification.html",
        slug="classification",
        context={
            "rows": rows,
            "environment": environment.evidence if environment else None,
            "duplicates": (duplicates.evidence or {}).get("candidates", []) if duplicates else [],
            "priority": data["priority"],
            "overridden": any(
                part.get("name") == "override" for part in getattr(data["priority"], "parts", [])
            ),
            "corrections": data["corrections"],
        },
    )
