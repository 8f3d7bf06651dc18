"""Severity from its parts: symptom x kind x hardware tier x scope, reach and regression."""

from classifiers.facts import Reach
from classifiers.severity import (
    LEVELS,
    hardware_tier,
    hardware_tiers,
    severity_assess,
    severity_of_text,
)


def assess(symptom: str, text: str = "", archs=("gfx942",), **kwargs):
    return severity_assess(symptom=symptom, text=text, architectures=archs, **kwargs)


def parts_of(assessment) -> dict[str, dict]:
    return {part["name"]: part for part in assessment.parts}


def test_a_silent_wrong_result_in_a_common_path_on_a_datacenter_gpu_is_critical():
    assessment = severity_of_text(
        "Wrong results from torch.matmul in bf16 on MI300X for every model we serve",
        "### GPU\n\nAMD Instinct MI300X\n\nOutputs silently differ from the CPU reference by 10%.",
    )
    assert assessment.label == "critical"
    assert parts_of(assessment)["scope"]["effect"] == 1
    assert "every model" in parts_of(assessment)["scope"]["why"]
    assert "silent" in parts_of(assessment)["scope"]["why"]


def test_one_raising_signal_alone_leaves_a_failure_high():
    """Critical is rare: real reports a reader calls critical carry two signals, not one."""
    assert assess("wrong_result", "sgemm silently returns zeros").label == "high"
    assert assess("wrong_result", "wrong results in every kernel").label == "high"
    assert assess("crash", "segfaults since ROCm 6.3, it used to work").label == "high"
    assert assess("crash", "segfault", reach=Reach(plus_ones=8)).label == "high"
    assert assess("hang", "the node locks up").label == "high"


def test_a_silent_wrong_result_is_critical_but_a_narrow_one_is_not():
    assert assess("wrong_result", "sgemm silently returns zeros in every kernel").label == (
        "critical"
    )
    narrow = assess("wrong_result", "silently wrong, only with a specific K of 7 and fp8")
    assert narrow.label == "high"
    assert "narrow case" in parts_of(narrow)["scope"]["why"]


def test_a_hang_of_a_datacenter_gpu_that_regressed_is_critical_and_of_a_desktop_high():
    assert assess("hang", "the node locks up since ROCm 6.3").label == "critical"
    assert assess("hang", "the desktop locks up since ROCm 6.3", archs=("gfx1100",)).label == (
        "high"
    )


def test_a_crash_on_a_datacenter_gpu_needs_two_of_a_common_path_a_regression_a_wide_reach():
    assert assess("crash", "segfault in one MIOpen solver").label == "high"
    assert assess("crash", "every model segfaults since ROCm 6.3").label == "critical"
    assert assess("crash", "segfaults since ROCm 6.3", reach=Reach(plus_ones=8)).label == (
        "critical"
    )
    assert assess(
        "crash", "segfaults since ROCm 6.3", archs=("gfx1100",), reach=Reach(plus_ones=8)
    ).label == ("high")


def test_docs_questions_and_feature_requests_are_low_whatever_the_rest():
    for symptom in ("docs", "question", "feature"):
        assessment = assess(symptom, "every model is broken", reach=Reach(duplicates=3))
        assert assessment.label == "low", symptom


def test_a_question_about_a_failure_is_low():
    assessment = assess("install", "Which distro should I use? apt fails", kind="question")
    assert assessment.label == "low"
    assert parts_of(assessment)["kind"]["effect"] == -2


def test_unsupported_hardware_with_a_workaround_lowers_a_failure_to_medium():
    assessment = assess("crash", "segfault with HSA_OVERRIDE_GFX_VERSION", archs=("gfx1031",))
    assert assessment.label == "medium"
    assert parts_of(assessment)["hardware"]["effect"] == -1
    assert assess("crash", "segfault in clinfo", archs=("gfx1031",)).label == "high"
    assert assess("build", "cmake fails", archs=("gfx1031",)).label == "medium"


def test_an_install_failure_is_high_unless_the_hardware_or_set_up_is_unsupported():
    assert assess("install", "dkms fails", archs=("gfx1100",)).label == "high"
    assert assess("install", "dkms fails", archs=()).label == "high"
    assert assess("install", "dkms fails", archs=("gfx803",)).label == "medium"
    wsl = assess("install", "rocminfo fails under WSL2", archs=("gfx1100",))
    assert wsl.label == "medium" and "WSL2" in parts_of(wsl)["hardware"]["why"]


def test_the_parts_add_up_to_the_level():
    for symptom, text, archs in [
        ("wrong_result", "silent corruption in every kernel", ("gfx90a",)),
        ("crash", "segfault", ("gfx1032",)),
        ("install", "apt fails", ("gfx1201",)),
        ("performance", "2x slower", ("gfx942",)),
    ]:
        assessment = assess(symptom, text, archs)
        base = parts_of(assessment)["symptom"]["why"].split(": ")[1]
        moved = sum(part["effect"] for part in assessment.parts)
        assert LEVELS[base] + moved == LEVELS[assessment.label], (symptom, assessment.parts)
        assert assessment.evidence()[0]["rule"].startswith(symptom.replace("_", " "))


def test_the_tiers_follow_the_support_matrix_and_a_setting_overrides_them():
    assert hardware_tier(["gfx1100", "gfx942"])[0] == "datacenter"
    assert hardware_tier(["gfx1201"])[0] == "consumer"
    assert hardware_tier(["gfx1032"])[0] == "unsupported"
    assert hardware_tier([], ["AMD Instinct MI300X"])[0] == "datacenter"
    assert hardware_tier([]) == ("", "no GPU named")
    tiers = hardware_tiers({"gfx1032": "consumer", "gfx1100": "nonsense"})
    assert hardware_tier(["gfx1032"], tiers=tiers)[0] == "consumer"
    assert hardware_tier(["gfx1100"], tiers=tiers)[0] == "consumer"  # a bad tier is ignored
