"""Backends describe themselves (targets, vendor, queue, what they execute, what they pin), and
runs, runners, the `/repro` parser and readiness go by those descriptions, not by names."""

from kernels_ci.backends import (
    describe,
    known_targets,
    registry,
    suggested_backend,
    target_vendor,
)
from kernels_ci.services.cases import command_arguments
from kernels_ci.services.runners import backends_of_queue


def test_every_backend_describes_its_targets_queue_and_pins(settings):
    settings.REPRO_ARCHITECTURES = ["gfx942", "gfx1100"]
    for name in registry():
        description = describe(name)
        assert description.name == name and description.target_list()
        for target in description.target_list():
            assert description.queue_for(target).startswith("repro.")
    assert describe("rocm-container").target_list() == ["gfx942", "gfx1100"]
    assert describe("rocm-container").queue_for("gfx942") == "repro.gfx942"
    assert {target_vendor(t) for t in ("gfx950", "sm_90", "cpu", "sm_12")} == {
        "amd",
        "nvidia",
        "cpu",
        "",
    }


def test_queues_are_served_by_the_backends_that_say_so(settings):
    settings.REPRO_ARCHITECTURES = ["gfx942"]
    assert backends_of_queue("repro.cpu") == [
        "triton-interpreter",
        "triton-amd-compile",
        "triton-nvidia-compile",
    ]
    assert backends_of_queue("repro.gfx942") == ["rocm-container"]
    assert backends_of_queue("repro.gfx90a") == []


def test_the_repro_command_takes_any_backends_target_and_a_release_to_pin():
    parsed = command_arguments("sm_90 gfx942 cpu backend=triton-nvidia-compile triton=3.2.0 x=1")
    assert parsed == {
        "archs": ["sm_90", "gfx942", "cpu"],
        "versions": {"triton": "3.2.0"},
        "backend": "triton-nvidia-compile",
    }
    assert command_arguments("triton=latest torch=2.5.1 gfx1234")["versions"] == {}
    assert command_arguments("rocm=6.2.1 gfx942")["versions"] == {"rocm": "6.2"}
    assert "sm_80" in known_targets()


def test_a_new_case_starts_where_its_description_fits():
    assert suggested_backend("python", True) == "triton-interpreter"
    assert suggested_backend("python", True, "compile_error") == "triton-amd-compile"
    assert suggested_backend("python", False) == "rocm-container"
    assert suggested_backend("hip", False, "compile_error") == "rocm-container"
