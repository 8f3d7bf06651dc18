"""The data migration that puts existing repro cases' symptoms into triage's symptom labels."""

import pytest

from tests.migrating import migrate, migrate_to_latest

BEFORE = [("kernels_ci", "0005_extraction_problem")]
AFTER = [("kernels_ci", "0006_symptom_vocabulary")]


@pytest.mark.django_db(transaction=True)
def test_it_moves_old_symptoms_to_the_symptom_labels_and_back(make):
    issues = [make.issue(number=n, title=f"case {n}") for n in (1, 2, 3)]
    old = migrate(BEFORE)
    OldCase = old.get_model("kernels_ci", "ReproCase")
    for issue, symptom in zip(issues, ("compile_error", "unknown", "hang"), strict=True):
        OldCase.objects.create(issue_id=issue.id, symptom=symptom)
    try:
        new = migrate(AFTER)
        rows = new.get_model("kernels_ci", "ReproCase").objects.order_by("issue_id")
        assert list(rows.values_list("symptom", "symptom_detail")) == [
            ("crash", "compile_error"),
            ("other", ""),
            ("hang", ""),
        ]
        back = migrate(BEFORE).get_model("kernels_ci", "ReproCase").objects.order_by("issue_id")
        assert list(back.values_list("symptom", flat=True)) == ["compile_error", "unknown", "hang"]
    finally:
        migrate_to_latest()
