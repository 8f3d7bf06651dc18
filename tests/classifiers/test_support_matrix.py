"""ROCm's support matrix: the bundled lists and their sources, how a report's release is read,
the verdict in words, and the edited releases over the file and the setting."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ImproperlyConfigured

from classifiers import gpu_targets, support_matrix
from classifiers.models import SupportMatrixRelease

pytestmark = pytest.mark.django_db

SOURCE = "https://rocm.docs.amd.com/en/docs-7.2.0/compatibility/compatibility-matrix.html"


def test_it_covers_rocm_5_7_to_7_on_linux_and_windows_each_release_with_its_page():
    table = support_matrix.matrix()
    assert list(table["linux"])[0] == "5.7.0"
    assert support_matrix.newest("linux") == "7.1.1"
    assert {"7.0.0", "7.0.1", "7.0.2", "7.1.0", "7.1.1"} <= set(table["linux"])
    assert set(table["windows"]) == {"5.7.1", "6.2.4", "7.1.1", "7.2.0"}
    for platform, releases in support_matrix.entries().items():
        for release, entry in releases.items():
            assert entry.origin == "bundled"
            assert entry.source.startswith("https://rocm.docs.amd.com/"), (platform, release)


def test_its_lists_follow_the_published_rows():
    linux, windows = support_matrix.matrix()["linux"], support_matrix.matrix()["windows"]
    assert "gfx906" in linux["5.7.1"] and "gfx906" not in linux["6.0.0"]
    assert "gfx950" in linux["7.0.0"] and "gfx950" not in linux["6.4.3"]
    assert {"gfx1200", "gfx1201", "gfx1101"} <= set(linux["6.4.1"])
    assert not {"gfx1200", "gfx1201", "gfx1101"} & set(linux["6.4.0"])
    assert "gfx1151" in windows["7.1.1"] and "gfx1150" in windows["7.2.0"]
    assert "gfx1030" in windows["7.1.1"] and "gfx1030" not in windows["7.2.0"]


def test_every_listed_target_is_a_processor_llvm_knows():
    for releases in support_matrix.matrix().values():
        for targets in releases.values():
            for name in targets:
                assert gpu_targets.target(name) is not None and not gpu_targets.target(name).generic


def test_a_release_newer_than_the_newest_is_not_yet_in_the_matrix():
    found = support_matrix.verdict("gfx1031", "7.9.0")
    assert found == (
        "unknown",
        "ROCm 7.9.0 is not yet in the support matrix for Linux (newest: 7.1.1).",
    )
    assert support_matrix.supports("gfx1031", "7.9") is None
    assert support_matrix.supports("gfx1031", "7.2.0", "Windows 11") is False


def test_it_says_which_release_leaves_a_target_out_and_where_that_is_written():
    state, sentence = support_matrix.verdict("gfx1031", "6.2.0", "Ubuntu 22.04")
    assert state == "unsupported"
    assert sentence == (
        "ROCm 6.2.0 on Linux does not list gfx1031 (source: "
        "https://rocm.docs.amd.com/en/docs-6.3.1/compatibility/compatibility-matrix.html)."
    )
    state, sentence = support_matrix.verdict("GFX1201", "7.1.1", "Windows 11 Pro")
    assert state == "supported"
    assert sentence.startswith("ROCm 7.1.1 on Windows lists gfx1201 (source: https://")


def test_a_short_release_is_its_first_patch_and_a_patch_between_agreeing_neighbours_inherits():
    assert support_matrix.release_of("6.2") == "6.2.0"
    assert support_matrix.release_of("ROCm 6.4.1") == "6.4.1"
    assert support_matrix.release_of("6.2.4.60204") == "6.2.4"
    assert support_matrix.release_of("6.2.4-rc1") == ""
    state, sentence = support_matrix.verdict("gfx942", "6.2.3")
    assert state == "supported"
    assert sentence.startswith(
        "ROCm 6.2.3 on Linux is not listed itself; 6.2.2 and 6.2.4 of its series both list gfx942"
    )
    assert support_matrix.supports("gfx1031", "6.2.3") is False


@pytest.mark.parametrize(
    ("version", "os_name", "said"),
    [
        ("6.4.4", "", "its 6.4 series (6.4.0, 6.4.1, 6.4.2, 6.4.3) does not cover it"),
        ("6.2.0", "Windows 10", "its 6.2 series (6.2.4) does not cover it"),
        ("6.3.0", "Windows 11", "no 6.3 release listed there"),
        ("5.6.1", "", "older than the support matrix for Linux (oldest: 5.7.0)"),
        ("latest", "", "'latest' is not a ROCm release"),
        ("", "", "No ROCm release given"),
    ],
)
def test_a_release_the_matrix_cannot_speak_for_is_unknown_and_says_why(version, os_name, said):
    state, sentence = support_matrix.verdict("gfx1031", version, os_name)
    assert state == "unknown"
    assert said in sentence


def test_a_ryzen_apu_is_never_called_unsupported_by_the_linux_rows():
    state, sentence = support_matrix.verdict("gfx1151", "7.1.1", "Ubuntu 24.04")
    assert state == "unknown"
    assert "does not list gfx1151, but it is not judged on Linux" in sentence
    assert support_matrix.supports("gfx1151", "7.1.1", "Windows 11") is True
    assert support_matrix.supports("gfx1151", "6.2.4", "Windows 11") is False


def test_an_edited_release_replaces_the_bundled_list_at_once_and_removing_it_restores_it():
    assert support_matrix.supports("gfx1151", "7.1.1") is None
    support_matrix.matrix_release_set(
        platform="linux",
        release="7.1.1",
        targets="gfx942, GFX1151",
        source=SOURCE,
        note="Strix Halo added by the Radeon and Ryzen page",
        by="tess",
    )
    assert support_matrix.supports("gfx1151", "7.1.1") is True
    assert support_matrix.supports("gfx950", "7.1.1") is False
    entry = support_matrix.entries()["linux"]["7.1.1"]
    assert (entry.origin, entry.source, entry.updated_by) == ("edited", SOURCE, "tess")

    support_matrix.matrix_release_remove(platform="linux", release="7.1.1")
    assert support_matrix.supports("gfx950", "7.1.1") is True
    assert support_matrix.entries()["linux"]["7.1.1"].origin == "bundled"


def test_a_release_added_past_the_file_becomes_the_newest():
    support_matrix.matrix_release_set(
        platform="linux", release="7.2", targets=["gfx950", "gfx942"], source=SOURCE
    )
    assert support_matrix.newest("linux") == "7.2.0"
    assert support_matrix.supports("gfx1031", "7.2.0") is False
    assert support_matrix.verdict("gfx942", "7.3.0").sentence == (
        "ROCm 7.3.0 is not yet in the support matrix for Linux (newest: 7.2.0)."
    )


def test_the_setting_adds_releases_and_an_edited_row_wins_over_it(settings):
    settings.ROCM_SUPPORT_MATRIX = {"linux": {"7.2": ["gfx942"]}, "windows": {}}
    assert support_matrix.supports("gfx942", "7.2.0") is True
    assert support_matrix.entries()["linux"]["7.2.0"].origin == "settings"
    support_matrix.matrix_release_set(
        platform="linux", release="7.2.0", targets="gfx950", source=SOURCE
    )
    assert support_matrix.supports("gfx942", "7.2.0") is False


def test_a_setting_that_is_not_a_release_list_is_refused_with_its_fix(settings):
    settings.ROCM_SUPPORT_MATRIX = {"linux": {"next": ["gfx942"]}}
    with pytest.raises(ImproperlyConfigured, match="must be an X.Y.Z release"):
        support_matrix.matrix()


def test_it_asks_the_database_one_question_per_call(django_assert_num_queries):
    support_matrix.matrix()
    with django_assert_num_queries(1):
        support_matrix.supports("gfx942", "6.2.0")


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"platform": "macos"}, "unknown platform 'macos': use one of linux, windows"),
        ({"release": "7"}, "'7' is not a release: write X.Y or X.Y.Z"),
        ({"release": "v7.1"}, "'v7.1' is not a release"),
        ({"targets": ""}, "name at least one gfx target"),
        ({"targets": "gfx942,gfx9999"}, "not gfx targets LLVM knows: gfx9999"),
        ({"targets": "RX 7900 XTX"}, "not gfx targets LLVM knows: rx 7900 xtx"),
        ({"targets": "gfx11-generic"}, "generic targets are build targets"),
        ({"source": "rocm docs"}, "give the source as the http(s) URL"),
    ],
)
def test_a_release_that_cannot_go_in_the_matrix_is_refused_and_nothing_is_written(fields, said):
    given = {"platform": "linux", "release": "7.2.0", "targets": "gfx942", "source": SOURCE}
    with pytest.raises(support_matrix.MatrixInvalid) as refused:
        support_matrix.matrix_release_set(**{**given, **fields})
    assert said in str(refused.value)
    assert not SupportMatrixRelease.objects.exists()


def test_a_file_is_imported_whole_or_not_at_all():
    good = {
        "sources": {"linux": f"the matrix: {SOURCE} (GPU rows)"},
        "linux": {"7.2.0": ["gfx950", "gfx942"], "7.2.1": ["gfx950"]},
        "windows": {"7.2.1": ["gfx1201"]},
    }
    bad = json.loads(json.dumps(good))
    bad["windows"]["7.2.1"] = ["gfx1201", "Radeon 9070"]
    with pytest.raises(support_matrix.MatrixInvalid, match="windows 7.2.1: not gfx targets"):
        support_matrix.matrix_import(data=bad, by="tess")
    assert not SupportMatrixRelease.objects.exists()

    with pytest.raises(support_matrix.MatrixInvalid, match="windows 7.2.1: give the source"):
        support_matrix.matrix_import(data=good)
    written = support_matrix.matrix_import(
        data=good, source="https://rocm.docs.amd.com/projects/install-on-windows/en/docs-7.2/"
    )
    assert written == ["linux 7.2.0", "linux 7.2.1", "windows 7.2.1"]
    assert support_matrix.newest("windows") == "7.2.1"


def test_the_bundled_file_imports_as_it_is():
    data = json.loads(support_matrix.DATA_FILE.read_text(encoding="utf-8"))
    written = support_matrix.matrix_import(data=data, by="tess")
    assert len(written) == len(data["linux"]) + len(data["windows"])
    row = SupportMatrixRelease.objects.get(platform="windows", release="6.2.4")
    assert row.source.endswith("/docs-6.2.4/reference/system-requirements.html")
