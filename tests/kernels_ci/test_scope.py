"""Is a failure AMD's alone? A compile error reported for an AMD target is also compiled for an
NVIDIA target, for real (Triton's HIP and CUDA backends ahead of time, with no GPU), and the case
says where it fails and where it goes. The interpreter, which cannot show a compile error, is
not asked."""

import json
from io import StringIO

from django.core.management import call_command

from config import wiring
from kernels_ci.selectors import case_scope
from kernels_ci.services.cases import case_refresh
from tests.kernels_ci.factories import fp8_compile_report


def test_a_compile_error_only_amd_targets_show_is_routed_to_amds_backend(
    make, settings, monkeypatch, client, user, needs_kernels_extra
):
    settings.KERNELS_CI_AMD_BACKEND_COMPONENT = "triton: AMD backend"
    issue = make.issue(
        repository=make.repository("triton-lang/triton"),
        number=5120,
        title="fp8e4b15 cast fails to compile on gfx942",
        body=fp8_compile_report(),
    )
    case = case_refresh(issue=issue)
    assert (case.symptom, case.symptom_detail) == ("crash", "compile_error")
    assert case.backend == "triton-amd-compile" and case.archs == ["gfx942"]
    out = StringIO()
    call_command("run_repro", "triton-lang/triton#5120", "--approve", "--json", stdout=out)
    outcomes = {(r["backend"], r["arch"]): r["outcome"] for r in json.loads(out.getvalue())}
    assert outcomes == {
        ("triton-amd-compile", "gfx942"): "reproduced",
        ("triton-nvidia-compile", "sm_90"): "not_reproduced",
    }
    case.refresh_from_db()
    scope = case_scope(case)
    assert scope.text == "fails on gfx942 only; compiles for sm_90"
    assert scope.amd_specific is True and scope.route == "triton: AMD backend"
    monkeypatch.setattr(wiring, "ISSUE_PANELS", ["kernels_ci.panels.repro_panel"])
    client.force_login(user)
    page = client.get("/issues/triton-lang/triton/5120/").content.decode()
    assert f"{scope.text}: specific to AMD's backend, for triton: AMD backend" in page
