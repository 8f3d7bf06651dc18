"""The issue page's classification panel: predictions, evidence, priority, duplicates, decisions."""

from __future__ import annotations

from classifiers import registry
from triage.panels import Panel
from triage.selectors import issues as selectors
from triage.services import classification

# The environment's values, as the issue page names them (evidence key, label).
ENVIRONMENT_VALUES = (
    ("architectures", "Architectures"),
    ("gpus", "GPUs"),
    ("rocm_version", "ROCm"),
    ("os", "OS"),
    ("torch_version", "PyTorch"),
    ("triton_version", "Triton"),
    ("python_version", "Python"),
    ("hip_version", "HIP"),
    ("kernel_version", "Kernel"),
    ("driver_version", "amdgpu driver"),
    ("gfx_override", "HSA_OVERRIDE_GFX_VERSION"),
    ("build_targets", "Build targets"),
)
FACT_NAMES = {
    **dict(ENVIRONMENT_VALUES),
    "architectures": "architecture",
    "gpus": "GPU",
    "build_targets": "build target",
}


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
    undo = classification.undoable_corrections(issue_ids=[issue.id], user=request.user)
    return Panel(
        title="Classification and priority",
        template="triage/panels/classification.html",
        slug="classification",
        context={
            "rows": rows,
            "environment": environment_view(environment.evidence) if environment else None,
            "duplicates": (duplicates.evidence or {}).get("candidates", []) if duplicates else [],
            "priority": data["priority"],
            "overridden": any(
                part.get("name") == "override" for part in getattr(data["priority"], "parts", [])
            ),
            "corrections": data["corrections"],
            "undo": undo.get(issue.id),
        },
    )


def environment_view(evidence) -> dict | None:
    """The environment prediction's evidence as the issue page shows it: each value with its
    source and confidence, the facts read (used, or set aside and why), the conflicts, and
    other people's hardware. Evidence stored before sources had detail shows as it is."""
    if not isinstance(evidence, dict):
        return None
    sources = evidence.get("sources") if isinstance(evidence.get("sources"), dict) else {}
    values = []
    for key, label in ENVIRONMENT_VALUES:
        value = evidence.get(key) or ""
        if isinstance(value, list):
            value = ", ".join(str(v) for v in value)
        values.append({"label": label, "value": value, **_source_view(sources.get(key))})
    return {
        "values": values,
        "facts": [_fact_view(f) for f in _dicts(evidence.get("facts"))],
        "conflicts": [_conflict_view(c) for c in _dicts(evidence.get("conflicts"))],
        "others": _dicts(evidence.get("others")),
    }


def _dicts(items) -> list[dict]:
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _source_view(source) -> dict:
    if isinstance(source, str):  # stored before sources had detail
        return {"source": source, "where": "", "confidence": None}
    if not isinstance(source, dict):
        return {"source": "", "where": "", "confidence": None}
    where = source.get("where") or ""
    if where and source.get("by"):
        where = f"{where} by @{source['by']}"
    return {
        "source": source.get("source", ""),
        "where": where,
        "confidence": source.get("confidence"),
    }


def _fact_view(fact: dict) -> dict:
    value = fact.get("value", "")
    if fact.get("target") and fact.get("target") != value:
        value = f"{value} ({fact['target']})"
    return {
        "name": FACT_NAMES.get(fact.get("name"), fact.get("name")),
        "value": value,
        **_source_view(fact),
        "used": bool(fact.get("used")),
        "note": fact.get("note", ""),
    }


def _conflict_view(conflict: dict) -> dict:
    def side(part) -> dict:
        part = part if isinstance(part, dict) else {}
        return {"value": part.get("value", ""), **_source_view(part)}

    return {
        "field": FACT_NAMES.get(conflict.get("field"), conflict.get("field")),
        "kept": side(conflict.get("kept")),
        "set_aside": side(conflict.get("set_aside")),
    }
