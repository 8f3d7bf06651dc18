"""manage.py support_matrix: show, set, remove, import and explain; bad input changes nothing."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from classifiers import support_matrix
from classifiers.models import SupportMatrixRelease

pytestmark = pytest.mark.django_db

SOURCE = "https://rocm.docs.amd.com/en/docs-7.2.0/compatibility/compatibility-matrix.html"


def run(*args) -> str:
    out = io.StringIO()
    call_command("support_matrix", *args, stdout=out)
    return out.getvalue()


def test_it_shows_every_release_with_its_targets_and_source():
    shown = run()
    assert "Linux: 25 release(s), newest 7.1.1" in shown
    assert "Windows: 4 release(s), newest 7.2.0" in shown
    assert (
        "  6.4.1    gfx1201 gfx1200 gfx1101 gfx1100 gfx1030 gfx942 gfx90a gfx908  [bundled]"
        in shown
    )
    assert "not judged on Linux: gfx1151" in shown


def test_it_shows_one_platform_as_json():
    shown = json.loads(run("--show", "--platform", "windows", "--json"))
    assert list(shown) == ["windows"]
    assert shown["windows"]["newest"] == "7.2.0"
    release = shown["windows"]["releases"]["7.1.1"]
    assert "gfx1151" in release["targets"]
    assert release["origin"] == "bundled"
    assert release["source"].endswith("/docs-7.1.1/reference/system-requirements.html")


def test_it_sets_a_release_at_once_and_says_who_did():
    said = run(
        "--set", "linux", "7.2", "--targets", "gfx950,gfx942", "--source", SOURCE, "--by", "rmgr"
    )
    assert said == "set ROCm 7.2.0 on linux: gfx950, gfx942\n"
    assert support_matrix.supports("gfx942", "7.2.0") is True
    assert "  7.2.0    gfx950 gfx942  [edited by rmgr at " in run("--platform", "linux")


def test_it_explains_a_verdict_in_words():
    said = run("--explain", "gfx1031", "7.9")
    assert (
        said == "unknown: ROCm 7.9.0 is not yet in the support matrix for Linux (newest: 7.1.1).\n"
    )
    said = run("--explain", "gfx1101", "6.2.4", "--os", "Windows 11")
    assert said.startswith("supported: ROCm 6.2.4 on Windows lists gfx1101 (source: https://")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--set", "linux", "7.2.0", "--targets", "gfx942"], "--set needs --targets"),
        (
            ["--set", "linux", "7.2.0", "--targets", "gfx942,gfx9999", "--source", SOURCE],
            "not gfx targets LLVM knows: gfx9999",
        ),
        (["--set", "beos", "7.2.0", "--targets", "gfx942", "--source", SOURCE], "unknown platform"),
        (
            ["--set", "linux", "seven", "--targets", "gfx942", "--source", SOURCE],
            "'seven' is not a release",
        ),
        (["--remove", "linux", "6.2.0"], "no edited row for ROCm 6.2.0 on Linux"),
    ],
)
def test_bad_input_is_a_clear_error_and_changes_nothing(args, said):
    with pytest.raises(CommandError) as refused:
        run(*args)
    assert said in str(refused.value)
    assert not SupportMatrixRelease.objects.exists()


def test_removing_an_edited_release_brings_the_bundled_list_back():
    run("--set", "windows", "6.2.4", "--targets", "gfx1100", "--source", SOURCE)
    assert support_matrix.supports("gfx1101", "6.2.4", "Windows") is False
    said = run("--remove", "Windows", "6.2.4")
    assert said.endswith("ROCm 6.2.4 on windows is now the bundled list\n")
    assert support_matrix.supports("gfx1101", "6.2.4", "Windows") is True


def test_it_imports_a_file_whole_or_not_at_all(tmp_path):
    path = tmp_path / "matrix.json"
    path.write_text(
        json.dumps(
            {
                "sources": {"linux": SOURCE},
                "linux": {"7.2.0": ["gfx950", "gfx942"], "7.2.1": ["gfx950", "RX 9070"]},
            }
        ),
        encoding="utf-8",
    )
    with pytest.raises(CommandError) as refused:
        run("--import", str(path))
    assert "linux 7.2.1: not gfx targets LLVM knows: rx 9070" in str(refused.value)
    assert not SupportMatrixRelease.objects.exists()

    path.write_text(json.dumps({"linux": {"7.2.0": ["gfx950"]}}), encoding="utf-8")
    said = run("--import", str(path), "--source", SOURCE)
    assert said == f"imported 1 release(s) from {path}: linux 7.2.0\n"


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"{not json", "not a JSON file"),
        (b"\xff\xfe\x00", "not a JSON file"),
        (b'["linux"]', "not a JSON object"),
        (b'{"macos": {"7.2.0": ["gfx1100"]}}', "unknown keys 'macos'"),
        (b'{"about": "nothing"}', "names no release"),
    ],
)
def test_a_file_it_cannot_read_is_refused(tmp_path, content, said):
    path = tmp_path / "matrix.json"
    path.write_bytes(content)
    with pytest.raises(CommandError) as refused:
        run("--import", str(path), "--source", SOURCE)
    assert said in str(refused.value)


def test_a_missing_file_is_refused(tmp_path):
    with pytest.raises(CommandError) as refused:
        run("--import", str(tmp_path / "absent.json"))
    assert "No such file or directory" in str(refused.value)
