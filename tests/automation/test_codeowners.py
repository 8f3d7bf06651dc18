"""Path ownership rules: CODEOWNERS patterns of a pull request's changed files, the last match
winning per file, the owners the union over the files; refused when they cannot work."""

from __future__ import annotations

import pytest

from automation.ownership import codeowners
from automation.ownership import services as ownership
from automation.ownership.models import OwnershipRule


def rules(*table: tuple[str, str]) -> codeowners.PathRules:
    return codeowners.PathRules(
        [OwnershipRule(kind="path", pattern=pattern, owners=owners) for pattern, owners in table]
    )


def owned(pattern: str, path: str) -> bool:
    return rules((pattern, "@alice")).rule_for(path) is not None


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        # a leading slash anchors to the root; without one, any depth
        ("/docs/", "docs/index.md", True),
        ("/docs/", "docs/api/hip.md", True),
        ("/docs/", "src/docs/index.md", False),
        ("docs/", "src/docs/index.md", True),
        ("Makefile", "src/kernels/Makefile", True),
        ("/Makefile", "src/kernels/Makefile", False),
        # a slash in the middle anchors too (gitignore's rule, which CODEOWNERS follows)
        ("src/hip", "src/hip/device.cpp", True),
        ("src/hip", "vendor/src/hip/device.cpp", False),
        # a trailing slash is a directory: what is under it, not a file of that name
        ("build/", "build", False),
        ("build/", "tools/build/run.sh", True),
        # a name without one is the file, or the directory and everything under it
        ("/build/logs", "build/logs", True),
        ("/build/logs", "build/logs/2026/run.txt", True),
        ("/build/logs", "build/logs.txt", False),
    ],
)
def test_anchoring_and_directories_follow_codeowners(pattern, path, matches):
    assert owned(pattern, path) is matches


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("docs/*", "docs/getting-started.md", True),
        ("docs/*", "docs/build-app/troubleshooting.md", False),  # * stays in its segment
        ("*.md", "README.md", True),
        ("*.md", "docs/api/hip.md", True),
        ("*.md", "docs/md", False),
        ("/src/?ip/", "src/hip/a.cpp", True),
        ("/src/?ip/", "src/chip/a.cpp", False),
        ("**/logs", "logs/a.txt", True),
        ("**/logs", "deeply/nested/logs/a.txt", True),
        ("src/**", "src/a/b/c.cpp", True),
        ("src/**", "src", False),
        ("src/**/kernels/", "src/kernels/gemm.hip", True),
        ("src/**/kernels/", "src/a/b/kernels/gemm.hip", True),
        ("src/**/kernels/", "other/src/kernels/gemm.hip", False),
        ("*", "any/file/at/all.c", True),
        ("/Src/", "src/a.c", False),  # case matters, as in Git
    ],
)
def test_one_star_stays_in_a_segment_and_two_cross_them(pattern, path, matches):
    assert owned(pattern, path) is matches


def test_per_file_the_last_matching_rule_wins_and_the_owners_are_the_union():
    table = rules(
        ("*", "@ROCm/triage-team"),
        ("/src/hip/", "@hip-lead @ROCm/hip-team"),
        ("/src/hip/docs/", ""),  # as in CODEOWNERS: no owners for these
        ("*.md", "@doc-writer @HIP-LEAD"),
    )
    found = table.owners_of(
        ["src/hip/device.cpp", "src/hip/docs/notes.txt", "CHANGELOG.md", "setup.py"]
    )
    assert found.owners == ["hip-lead", "ROCm/hip-team", "doc-writer", "ROCm/triage-team"]
    assert found.files_of("hip-lead") == ["src/hip/device.cpp", "CHANGELOG.md"]
    assert found.unowned == 1
    assert [r.pattern for r in found.rules] == ["*", "/src/hip/", "/src/hip/docs/", "*.md"]


def test_a_long_hostile_path_is_matched_by_re2():
    table = rules(("/a/**/b/**/c/**/d/", "@alice"))
    path = "a/" + "b/" * 20_000 + "x"
    assert table.rule_for(path) is None
    assert table.rule_for("a/b/c/d/e") is not None


@pytest.mark.parametrize(
    ("pattern", "owners", "why"),
    [
        ("!docs/", "@alice", "CODEOWNERS has no negation"),
        ("src/[ab].c", "@alice", "character ranges"),
        ("src/a**b/", "@alice", r"\*\* stands alone between slashes"),
        ("/", "@alice", "a path pattern names files or directories"),
        ("src//hip", "@alice", "no empty segment"),
        ("docs/", "alice bob!", "not: bob!"),
    ],
)
def test_a_path_rule_that_cannot_work_is_refused(pattern, owners, why):
    with pytest.raises(ownership.RuleInvalid, match=why):
        ownership.rule_validate(kind="path", pattern=pattern, owners=owners)


def test_a_path_rule_may_name_no_owners_but_other_rules_must():
    ownership.rule_validate(kind="path", pattern="/vendor/", owners="")
    with pytest.raises(ownership.RuleInvalid, match="owners are GitHub users or teams"):
        ownership.rule_validate(kind="label", pattern="hip*", owners="")


def test_the_admin_refuses_a_bad_path_rule_with_the_reason(admin_client, db):
    response = admin_client.post(
        "/admin/automation/ownershiprule/add/",
        {"kind": "path", "pattern": "src/[ab]/", "owners": "@alice", "order": "10"},
    )
    assert response.status_code == 200
    assert "character ranges ([...]) are not CODEOWNERS patterns" in response.content.decode()
    assert not OwnershipRule.objects.exists()
    response = admin_client.post(
        "/admin/automation/ownershiprule/add/",
        {"kind": "path", "pattern": "/src/hip/", "owners": "@alice @ROCm/hip", "order": "10"},
    )
    assert response.status_code == 302
    assert OwnershipRule.objects.get().owner_list() == ["alice", "ROCm/hip"]
