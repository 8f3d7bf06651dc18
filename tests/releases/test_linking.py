import pytest

from releases.linking import FixReference, closing_references, release_branch_version

POSITIVE = [
    ("Fixes #23", [("", 23, "fixes")]),
    ("fix #23", [("", 23, "fix")]),
    ("Closes: #7", [("", 7, "closes")]),
    ("closed #7", [("", 7, "closed")]),
    ("close #7", [("", 7, "close")]),
    ("fixed #7", [("", 7, "fixed")]),
    ("RESOLVES #7", [("", 7, "resolves")]),
    ("resolve #7", [("", 7, "resolve")]),
    ("resolved #7", [("", 7, "resolved")]),
    ("Fixes ROCm/ROCm#5340", [("rocm/rocm", 5340, "fixes")]),
    ("Resolves https://github.com/ROCm/ROCm/issues/5325.", [("rocm/rocm", 5325, "resolves")]),
    ("Fixes #1 and closes ROCm/HIP#2", [("", 1, "fixes"), ("rocm/hip", 2, "closes")]),
    ("Fixes #4\n\nFixes #4", [("", 4, "fixes")]),
    ("## Motivation\n\nfixes #7068\n", [("", 7068, "fixes")]),
]
NEGATIVE = [
    "see #23",
    "LOL #23",
    "Part of #3770",
    "Addresses part of #3788",
    "Related to ROCm/ROCm#5138",
    "Related: #5204",
    "prefix#23",
    "Fixes 23",
    "Fixes #23abc",
    "hotfixes #23",
    "`Fixes #23`",
    "```\nFixes #23\n```",
    "Fixes https://github.com/ROCm/ROCm/pull/23/files",
    "Fixes https://example.com/ROCm/ROCm/issues/23",
]


@pytest.mark.parametrize(("text", "expected"), POSITIVE)
def test_it_finds_closing_references(text, expected):
    assert closing_references(text) == sorted(FixReference(*e) for e in expected)


@pytest.mark.parametrize("text", NEGATIVE)
def test_a_mention_links_nothing(text):
    assert closing_references(text) == []


def test_it_reads_title_and_body_together():
    refs = closing_references("Fix #1 in the title", "and resolves #2 in the body")
    assert [r.number for r in refs] == [1, 2]


@pytest.mark.parametrize(
    ("branch", "version"),
    [
        ("release/7.4", "7.4"),
        ("release/rocm-rel-7.4", "7.4"),
        ("release/rocm-rel-07.10", "7.10"),
        ("release/rocm-rel-7.4.x", "7.4"),
        ("develop", ""),
        ("release/rocm-rel-7", ""),
        ("feature/release/7.4", ""),
    ],
)
def test_it_reads_release_branches(branch, version):
    assert release_branch_version(branch) == version


def test_release_branch_patterns_are_configurable():
    assert release_branch_version("rel-3.6", ["rel-X.Y"]) == "3.6"
    assert release_branch_version("release/3.6", ["rel-X.Y"]) == ""


def test_issue_urls_count_on_githubs_hosts_only(settings):
    settings.GITHUB_WEB_URL = "https://ghe.example.com"
    text = (
        "Fixes https://ghe.example.com/ROCm/HIP/issues/7, "
        "fixes https://github.demo.invalid/rocm-demo/ROCm/issues/8, "
        "fixes https://www.github.com/ROCm/ROCm/issues/9, "
        "fixes https://gitlab.example.com/ROCm/ROCm/issues/10"
    )
    found = {(r.repository, r.number) for r in closing_references(text)}
    assert found == {("rocm/hip", 7), ("rocm-demo/rocm", 8), ("rocm/rocm", 9)}
