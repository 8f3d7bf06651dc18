"""Per-version environments: real Triton releases from the package index, built once, bounded,
checked, and every way they can fail reported with its reason."""

import json
import threading

import pytest

from kernels_ci import environments
from kernels_ci.environments import EnvironmentUnavailable, environment_in_use

OLD = "3.2.0"  # a published Triton release whose interpreter works with the runner's torch
BROKEN = "3.1.0"  # one whose interpreter computes garbage with torch 2.13 (the check says so)


def test_a_version_is_a_plain_release_of_a_pinnable_package_or_nothing():
    assert environments.release("3.1.0+rocm6.2") == "3.1.0"
    assert environments.release("v3.3") == "3.3.0"
    assert environments.release("3.2") == environments.release("3.2.0") == "3.2.0"  # one env
    assert environments.pins({"triton": "3.2"}) == {"triton": "3.2.0"}
    for junk in ("3.1.0; rm -rf /", "--index-url=http://evil", "3.2.0rc1", "latest", ""):
        assert environments.release(junk) == ""
    own = environments.installed_versions()["triton"]
    assert environments.pins({"triton": own, "torch": "2.5.1+rocm6.2"}) == {}
    assert environments.pins({"triton": "3.2.0+rocm"}) == {"triton": "3.2.0"}


def test_two_runs_needing_a_new_environment_build_it_once_and_share_it(
    settings, tmp_path, needs_kernels_extra
):
    settings.KERNELS_CI_ENV_DIR = str(tmp_path / "envs")
    seen, errors = [], []

    def use():
        try:
            with environment_in_use({"triton": OLD}) as environment:
                seen.append(environment)
        except Exception as exc:  # the test reports it below
            errors.append(exc)

    threads = [threading.Thread(target=use) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert sorted(e.built_s is None for e in seen) == [False, True]  # one built, one waited
    assert {e.path for e in seen} == {str(tmp_path / "envs" / f"triton-{OLD}")}
    assert seen[0].versions["triton"] == OLD and "torch" in seen[0].versions
    with environment_in_use({"triton": OLD}) as again:
        assert again.built_s is None
    manifest = json.loads((tmp_path / "envs" / f"triton-{OLD}" / ".kernels-ci.json").read_text())
    assert manifest["versions"] == {"triton": OLD} and manifest["size_bytes"] > 100 * 1024**2


def test_a_version_the_index_does_not_have_is_refused_with_the_reason(settings, tmp_path):
    settings.KERNELS_CI_ENV_DIR = str(tmp_path / "envs")
    with (
        pytest.raises(EnvironmentUnavailable, match=r"triton==9\.9\.9 is not on the package index"),
        environment_in_use({"triton": "9.9.9"}),
    ):
        pass
    assert not any(p.is_dir() for p in (tmp_path / "envs").iterdir())  # nothing half-built


def test_a_full_disk_or_an_uninstallable_wheel_says_so():
    full = environments._install_failure(
        ["triton==3.2.0"],
        "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device\n",
    )
    assert full.startswith("the disk of the environment cache") and "is full" in full
    other = environments._install_failure(["triton==3.2.0"], "ERROR: wheel is invalid\n")
    assert other == "pip could not install triton==3.2.0: ERROR: wheel is invalid"


def _fake_environment(root, key: str, size: int, used: float) -> None:
    """An environment as an earlier build left it (a manifest is what the cache reads)."""
    import os

    path = root / key
    path.mkdir(parents=True)
    (path / ".kernels-ci.json").write_text(
        json.dumps({"versions": {"triton": key.split("-")[1]}, "size_bytes": size})
    )
    os.utime(path / ".kernels-ci.json", (used, used))


def test_the_cache_evicts_the_least_recently_used_environment_no_run_holds(settings, tmp_path):
    import fcntl

    root = tmp_path / "envs"
    root.mkdir()
    settings.KERNELS_CI_ENV_DIR = str(root)
    gib = 1024**3
    settings.KERNELS_CI_ENV_CACHE_BYTES = 3 * gib
    _fake_environment(root, "triton-3.3.0", gib, used=1000)  # oldest, but a run holds it
    _fake_environment(root, "triton-3.4.0", gib, used=2000)
    _fake_environment(root, "triton-3.5.0", gib, used=3000)
    with open(root / "triton-3.3.0.lock", "a+") as held:
        fcntl.flock(held, fcntl.LOCK_SH)
        environments._make_room(root, keep="triton-3.6.0")
        assert sorted(p.name for p in root.iterdir() if p.is_dir()) == [
            "triton-3.3.0",
            "triton-3.5.0",
        ]
        settings.KERNELS_CI_ENV_CACHE_BYTES = gib
        with pytest.raises(EnvironmentUnavailable, match="the environment cache is full"):
            environments._make_room(root, keep="triton-3.6.0")
    assert sorted(p.name for p in root.iterdir() if p.is_dir()) == ["triton-3.3.0"]


def test_the_index_lists_published_releases_oldest_first():
    found = environments.releases("triton")
    assert found[:2] != found[-2:] and OLD in found and BROKEN in found
    assert found.index(BROKEN) < found.index(OLD)
    assert environments.installed_versions()["triton"].split("+")[0] in found


def test_a_release_refused_for_a_missing_linker_is_checked_again_once_the_linker_is_there(
    settings, tmp_path
):
    """The check kernel's answer is kept per toolchain: installing ld.lld takes the release
    back without evicting anything by hand, and the refusal said what to install."""
    from kernels_ci.backends import triton_amd_compile

    folder = tmp_path / "triton-3.2.0"
    folder.mkdir()
    environment = environments.Environment(key="triton-3.2.0", path=str(folder))
    checks = []

    def check(script):  # what the real check kernel does: fails without a linker
        checks.append(script)
        return "" if "none" not in toolchain else "crash (FileNotFoundError: ld.lld)"

    settings.KERNELS_CI_HIP_LLD_PATH = str(tmp_path / "absent" / "ld.lld")
    toolchain, advice = triton_amd_compile.toolchain()
    assert toolchain == "ld.lld=none" and "KERNELS_CI_HIP_LLD_PATH" in advice
    refused = environments.canary_problem(
        environment, "triton-amd-compile", "gfx942", check, toolchain=toolchain, advice=advice
    )
    assert "FileNotFoundError" in refused and "install Debian's lld" in refused
    again = environments.canary_problem(
        environment, "triton-amd-compile", "gfx942", check, toolchain=toolchain, advice=advice
    )
    assert again == refused and len(checks) == 1  # remembered while nothing changed

    linker = tmp_path / "ld.lld"
    linker.write_text("#!/bin/sh\n")
    settings.KERNELS_CI_HIP_LLD_PATH = str(linker)
    toolchain, advice = triton_amd_compile.toolchain()
    assert toolchain.startswith(f"ld.lld={linker}@") and advice == ""
    taken_back = environments.canary_problem(
        environment, "triton-amd-compile", "gfx942", check, toolchain=toolchain, advice=advice
    )
    assert taken_back == "" and len(checks) == 2
