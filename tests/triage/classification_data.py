"""Issues in the database with weak labels, built from the inline corpus."""

from tests.classifiers.corpus import kind_rows

KIND_TO_LABEL = {
    "bug": "bug",
    "feature": "feature request",
    "question": "question",
    "docs": "documentation",
    "performance": "performance",
}
COMPONENT_LABELS = {"rocBLAS": "project: rocblas", "MIOpen": "project: miopen"}


def labelled_issues(make, per_class: int = 6):
    issues = []
    for row in kind_rows(per_class=per_class):
        labels = [KIND_TO_LABEL[row["label"]]]
        component = next((c for c in COMPONENT_LABELS if c in row["title"]), None)
        labels.append(COMPONENT_LABELS.get(component, "project: other"))
        issues.append(make.issue(title=row["title"], body=row["body"], labels=labels))
    return issues
