"""The environment as a maintainer reads it: one realistic report per failure class seen on real
issues (texts written for these tests)."""

import pytest

from classifiers.extraction import CommentText, environment_extract, issue_form_sections

ROCM_ISSUE_FORM = """### Problem Description

PyTorch training diverges after a few steps.

### Operating System

Ubuntu 22.04.5 LTS (Jammy Jellyfish)

### CPU

AMD EPYC 9654 96-Core Processor

### GPU

AMD Instinct MI300X

### ROCm Version

ROCm 6.4.1

### ROCm Component

rocBLAS

### Steps to Reproduce

python train.py

### (Optional for Linux users) Output of /opt/rocm/bin/rocminfo --support

_No response_
"""

ROCMINFO = """*******
Agent 2
*******
  Name:                    gfx90a
  Uuid:                    GPU-3c0b5a3e21a2f1c4
  Marketing Name:          AMD Instinct MI250X/MI250
  Vendor Name:             AMD
  Feature:                 KERNEL_DISPATCH
  ISA Info:
    ISA 1
      Name:                    amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-
"""

WINDOWS_FORM = """### Operating System

Windows 11 Pro 24H2

### GPU

Radeon RX 7900 XTX

### ROCm Version

6.2.4
"""


@pytest.mark.parametrize(
    ("title", "body", "expected"),
    [
        (
            "[Issue]: training diverges",
            ROCM_ISSUE_FORM,
            {
                "architectures": ["gfx942"],
                "gpus": ["AMD Instinct MI300X"],
                "rocm_version": "6.4.1",
                "os": "Ubuntu 22.04.5 LTS",
            },
        ),
        (
            "rocminfo attached",
            ROCMINFO,
            {"architectures": ["gfx90a"], "gpus": ["AMD Instinct MI250X"]},
        ),
        (
            "HIP fails on Windows",
            WINDOWS_FORM,
            {"architectures": ["gfx1100"], "rocm_version": "6.2.4", "os": "Windows 11 Pro 24H2"},
        ),
        (
            "PyTorch 2.10.0+rocm7.1 does not detect GPU",
            "Results on AMD Ryzen AI Max+ 395 (Strix Halo, Radeon 8060S) differ. Python 3.12.3",
            {
                "architectures": ["gfx1151"],
                "torch_version": "2.10.0+rocm7.1",
                "rocm_version": "7.1",
                "python_version": "3.12.3",
            },
        ),
        (
            "triton 3.2.0 miscompiles tl.dot on gfx950",
            "torch==2.6.0 and RHEL 9.4; works on MI210",
            {
                "architectures": ["gfx950"],
                "triton_version": "3.2.0",
                "torch_version": "2.6.0",
                "os": "RHEL 9.4",
            },
        ),
        ("RX 9070 XT support?", "Is the RX 9070 XT supported?", {"architectures": ["gfx1201"]}),
        (
            "A question about docs",
            "Nothing about hardware here.",
            {"architectures": [], "gpus": [], "rocm_version": "", "os": ""},
        ),
    ],
)
def test_it_extracts_the_environment(title, body, expected):
    env = environment_extract(title, body).to_dict()
    for key, value in expected.items():
        if key == "architectures":
            assert sorted(env[key]) == sorted(value), env
        elif key == "gpus":
            assert env[key][: len(value)] == value, env
        else:
            assert env[key] == value, env


def test_the_issue_form_outranks_free_text_and_says_so():
    env = environment_extract("Fails on ROCm 5.7 too", ROCM_ISSUE_FORM)
    assert env.rocm_version == "6.4.1"
    assert env.sources["rocm_version"]["source"] == "issue form"
    assert env.architectures[0] == "gfx942"


def test_rocminfo_is_named_as_the_source():
    assert environment_extract("", ROCMINFO).sources["architectures"]["source"] == "rocminfo"


def test_sections_drop_no_response():
    sections = issue_form_sections(ROCM_ISSUE_FORM)
    assert sections["rocm component"] == "rocBLAS"
    assert not any("rocminfo" in k for k in sections)


# --- GPU architecture -----------------------------------------------------------------------------


def test_it_finds_gfx90a_and_gfx90c_in_text():
    assert environment_extract("hipMemcpyAsync hangs on gfx90a", "").architectures == ["gfx90a"]
    env = environment_extract("", "OpenCL kernel on the gfx90c of a Ryzen 7 5700G returns zeros")
    assert env.architectures == ["gfx90c"]


@pytest.mark.parametrize("gpu", ["Radeon 7900 XTX", "7900XTX", "RX7900 XTX", "rx 7900xtx"])
def test_it_reads_the_7900_xtx_with_or_without_rx_and_spaces(gpu):
    env = environment_extract("", f"Stable Diffusion crashes on my {gpu} after 20 steps.")
    assert env.architectures == ["gfx1100"]
    assert env.gpus == ["AMD Radeon RX 7900 XTX"]


IGPU_IN_CPU_SECTION = """### Problem Description

llama.cpp segfaults when offloading layers.

### Operating System

Ubuntu 24.04.1 LTS

### CPU

AMD Ryzen 7 7840HS w/ Radeon 780M Graphics

### GPU

AMD Radeon RX 7900 XTX

### ROCm Version

ROCm 6.2.4
"""


def test_the_cpus_integrated_graphics_in_the_cpu_section_is_not_the_gpu():
    env = environment_extract("[Issue]: segfault", IGPU_IN_CPU_SECTION)
    assert env.architectures == ["gfx1100"]
    assert "gfx1103" not in env.architectures


ROCMINFO_CPU_AND_IGPU = """Output of rocminfo:

```
*******
Agent 1
*******
  Name:                    AMD Ryzen 9 7950X 16-Core Processor
  Marketing Name:          AMD Ryzen 9 7950X 16-Core Processor
  Vendor Name:             CPU
  Device Type:             CPU
*******
Agent 2
*******
  Name:                    gfx1100
  Marketing Name:          Radeon RX 7900 XTX
  Vendor Name:             AMD
  Device Type:             GPU
  ISA Info:
    ISA 1
      Name:                    amdgcn-amd-amdhsa--gfx1100
*******
Agent 3
*******
  Name:                    gfx1036
  Marketing Name:          AMD Radeon Graphics
  Vendor Name:             AMD
  Device Type:             GPU
```
"""


def test_rocminfos_cpu_agent_and_the_integrated_gpu_beside_a_discrete_one_are_set_aside():
    env = environment_extract("MIOpen fails", ROCMINFO_CPU_AND_IGPU)
    assert env.architectures == ["gfx1100"]
    assert env.gpus == ["AMD Radeon RX 7900 XTX"]
    aside = [f for f in env.facts if f["value"] == "gfx1036"]
    assert aside and "integrated" in aside[0]["note"] and not aside[0]["used"]


def test_an_integrated_gpu_counts_when_it_is_the_only_gpu_agent():
    body = (
        "```\n  Name:                    AMD Ryzen 7 7840HS w/ Radeon 780M Graphics\n"
        "  Marketing Name:          AMD Ryzen 7 7840HS w/ Radeon 780M Graphics\n"
        "  Name:                    gfx1103\n"
        "  Marketing Name:          AMD Radeon 780M\n```\n"
    )
    env = environment_extract("hipcc test fails", body)
    assert env.architectures == ["gfx1103"]
    assert env.sources["architectures"]["source"] == "rocminfo"


def test_an_integrated_gpu_counts_when_the_reporter_says_they_run_on_it():
    env = environment_extract(
        "",
        "Laptop with an RX 7600M XT and a Ryzen 9 7940HS. I am running the model on the iGPU "
        "(Radeon 780M) because the dGPU has only 8 GB.",
    )
    assert "gfx1103" in env.architectures


def test_a_cpu_name_gives_its_integrated_gpu_only_when_no_gpu_is_named():
    alone = environment_extract("", "Thinkpad with a Ryzen 7 7840U, ROCm 6.1.3, hipBLASLt hangs.")
    assert alone.architectures == ["gfx1103"]
    beside = environment_extract("", "Ryzen 7 7840U laptop with an eGPU: RX 7800 XT.")
    assert beside.architectures == ["gfx1101"]


def test_rocminfos_gfx000_agent_is_no_gpu():
    body = (
        "rocm_agent_enumerator prints gfx000 and then:\n\n"
        "  Name:                    gfx000\n"
        "  Name:                    gfx942\n"
        "  Marketing Name:          AMD Instinct MI300X\n"
    )
    env = environment_extract("", body)
    assert env.architectures == ["gfx942"]
    assert any(f["value"] == "gfx000" and f["note"] for f in env.facts)


DROPDOWN_VS_ROCMINFO = """### Problem Description

rocBLAS gemm returns garbage for fp16.

### Operating System

Ubuntu 22.04.4 LTS

### GPU

AMD Radeon RX 6900 XT

### ROCm Version

ROCm 6.1.0

### (Optional for Linux users) Output of /opt/rocm/bin/rocminfo --support

  Name:                    AMD Ryzen 5 5600X 6-Core Processor
  Marketing Name:          AMD Ryzen 5 5600X 6-Core Processor
  Device Type:             CPU
  Name:                    gfx1031
  Marketing Name:          AMD Radeon RX 6700 XT
  Device Type:             GPU
"""


def test_rocminfo_outranks_the_form_dropdown_and_the_conflict_is_recorded():
    env = environment_extract("[Issue]: garbage from gemm", DROPDOWN_VS_ROCMINFO)
    assert env.architectures == ["gfx1031"]
    assert env.gpus == ["AMD Radeon RX 6700 XT"]
    [conflict] = env.conflicts
    assert conflict["kept"]["value"] == "gfx1031" and conflict["kept"]["source"] == "rocminfo"
    assert conflict["set_aside"]["value"] == "gfx1030"
    assert conflict["set_aside"]["source"] == "issue form"


BUILD_TARGETS = """Building PyTorch from source for my RX 7900 XTX:

```sh
export PYTORCH_ROCM_ARCH="gfx906;gfx908;gfx90a;gfx942;gfx1030;gfx1100"
cmake -DAMDGPU_TARGETS=gfx1030 -DGPU_TARGETS="gfx1030" ..
hipcc --offload-arch=gfx90a --offload-arch=gfx942 -o t t.cpp
```

The wheel from pytorch.org lists these:

| target | wheel |
| --- | --- |
| gfx900 | yes |
| gfx906 | yes |
| gfx1101 | yes |

Available ISAs: gfx803 gfx900 gfx1010
"""


def test_build_target_lists_are_build_facts_not_the_reporters_gpu():
    env = environment_extract("build fails", BUILD_TARGETS)
    assert env.architectures == ["gfx1100"]
    for target in ("gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx900", "gfx803"):
        assert target in env.build_targets
    assert "gfx1101" in env.build_targets and "gfx1101" not in env.architectures


def test_a_line_of_targets_is_a_list_but_two_gpus_of_the_reporter_are_not():
    listed = environment_extract("", "Tested the fix on gfx908, gfx90a, gfx942 and gfx1100 CI.")
    assert listed.architectures == []
    assert listed.build_targets == ["gfx908", "gfx90a", "gfx942", "gfx1100"]
    two = environment_extract("", "The hang happens on both gfx90a and gfx942 nodes.")
    assert two.architectures == ["gfx90a", "gfx942"]


@pytest.mark.parametrize(
    "text",
    [
        "PYTORCH_ROCM_ARCH=gfx1101 python setup.py develop fails",
        "[Issue]: TheRock build for gfx1151 fails at head",
        "gfx90a builds failing since Monday",
        "3 errors generated when compiling for gfx1030.",
    ],
)
def test_a_single_build_target_is_a_build_fact_never_the_gpu(text):
    env = environment_extract("", text)
    assert env.architectures == []
    assert len(env.build_targets) == 1


def test_a_code_objects_bundle_list_is_build_targets_but_rocminfos_isa_is_the_agents():
    body = (
        "roc-obj-ls output:\n1 hipv4-amdgcn-amd-amdhsa--gfx906 file://x.so#offset=1\n"
        "2 hipv4-amdgcn-amd-amdhsa--gfx1030 file://x.so#offset=2\n"
    )
    env = environment_extract("", body + ROCMINFO)
    assert env.architectures == ["gfx90a"]
    assert env.build_targets == ["gfx906", "gfx1030"]


# --- ROCm version ---------------------------------------------------------------------------------


def test_a_kernel_or_driver_version_is_not_the_rocm_version():
    body = (
        "### ROCm Version\n\n6.10.5\n\n### Additional Information\n\n"
        "uname -r: 6.8.0-45-generic, Linux 6.10.5\nROCk module version 6.8.5 is loaded\n"
        "rocm-core 6.2.1.60201-112~22.04\n"
    )
    env = environment_extract("", body)
    assert env.rocm_version == "6.2.1"
    assert env.kernel_version == "6.8.0-45-generic"
    assert env.driver_version == "6.8.5"


def test_a_hip_version_gives_its_rocm_release():
    env = environment_extract(
        "", "hipconfig --full\nHIP version  : 6.2.41133-dd7f95766\nclang version 18.0.0git"
    )
    assert env.hip_version == "6.2.41133-dd7f95766"
    assert env.rocm_version == "6.2"
    assert env.sources["rocm_version"]["source"] == "ROCm build"
    assert environment_extract("", "HIP version: 6.3.42131-fa1d09cbd").rocm_version == "6.3"
    torch_own = environment_extract("", "ROCm 6.3.1\nHIP runtime version: 6.2.41133")
    assert torch_own.rocm_version == "6.3.1"  # collect_env's HIP is the one torch bundles


def test_torchs_rocm_suffix_gives_the_version_only_when_nothing_better_does():
    alone = environment_extract("", "torch==2.5.1+rocm6.2 on an RX 7600")
    assert alone.rocm_version == "6.2"
    assert alone.sources["rocm_version"]["source"] == "torch build"
    both = environment_extract("", "ROCm 6.3.1 installed, torch==2.5.1+rocm6.2 from the wheel")
    assert both.rocm_version == "6.3.1"


@pytest.mark.parametrize(
    "sentence",
    [
        "It works with ROCm 6.0.2 but crashes on ROCm 6.2.0.",
        "Tried with ROCm 6.1.3 first, the same; now it crashes on ROCm 6.2.0.",
        "The release notes say it was fixed in ROCm 6.1.1, yet it crashes on ROCm 6.2.0.",
        "I was told to upgrade to ROCm 6.3; for now it crashes on ROCm 6.2.0.",
        "ROCm 6.1 works, but it crashes on ROCm 6.2.0.",
    ],
)
def test_fixed_in_works_with_tried_with_and_upgrade_to_never_set_the_version(sentence):
    assert environment_extract("", sentence).rocm_version == "6.2.0"


def test_since_upgrading_to_is_the_reporters_version():
    env = environment_extract("", "Since upgrading to ROCm 6.3.1 every kernel launch hangs.")
    assert env.rocm_version == "6.3.1"


# --- whose facts ----------------------------------------------------------------------------------


def test_a_maintainers_fixed_as_of_comment_never_becomes_the_reporters_version():
    comments = [
        CommentText("Fixed as of ROCm 6.1.1, please update.", author="maintainer"),
        CommentText("Thanks! Fixed as of ROCm 6.1.1 indeed.", author="alice", by_reporter=True),
    ]
    env = environment_extract(
        "hipGraph crash", "Crash in hipGraphLaunch on MI210.", comments=comments, reporter="alice"
    )
    assert env.rocm_version == ""
    assert env.architectures == ["gfx90a"]


def test_other_peoples_hardware_in_comments_is_theirs_not_the_reporters():
    comments = [
        CommentText("Same here on my MI300X with ROCm 6.2.2.", author="bob"),
        CommentText("Also on a 7900 XTX.", author="carol"),
    ]
    env = environment_extract("Segfault in rccl", "On my MI250X.", comments=comments, reporter="a")
    assert env.architectures == ["gfx90a"]
    assert env.rocm_version == ""
    others = {o["by"]: o for o in env.others}
    assert others["bob"]["architectures"] == ["gfx942"] and others["bob"]["rocm"] == ["6.2.2"]
    assert others["carol"]["architectures"] == ["gfx1100"]


def test_the_reporters_own_comment_completes_the_environment_and_says_so():
    comments = [CommentText("Here is rocminfo:\n" + ROCMINFO, author="dev1", by_reporter=True)]
    env = environment_extract(
        "Wrong result in tl.dot", "ROCm 6.2.0", comments=comments, reporter="dev1"
    )
    assert env.architectures == ["gfx90a"]
    source = env.sources["architectures"]
    assert (source["source"], source["where"], source["by"]) == ("rocminfo", "comment", "dev1")
    assert source["confidence"] < 0.95  # a comment counts a little less than the body


def test_quoted_lines_are_someone_elses_words():
    comments = [
        CommentText("> Fixed in ROCm 6.3, try it.\nStill fails for me.", "eve", by_reporter=True)
    ]
    env = environment_extract("", "Fails on gfx1201.", comments=comments, reporter="eve")
    assert env.rocm_version == ""


def test_every_fact_shown_keeps_its_source_and_confidence():
    env = environment_extract("[Issue]: garbage from gemm", DROPDOWN_VS_ROCMINFO)
    assert env.facts
    for fact in env.facts:
        assert fact["source"] and 0 < fact["confidence"] <= 1
        assert fact["used"] or fact["note"]


def test_a_gpu_named_to_compare_is_set_aside_where_another_is_named():
    env = environment_extract(
        "FP16 error on gfx90a (MI210) but not on gfx942",
        "The same convolution works fine on gfx942 and passes on MI300X. I'm thinking of buying"
        " an MI325X anyway.",
    )
    assert env.architectures == ["gfx90a"]
    alone = environment_extract("", "Is there support for gfx1151 in ROCm 6.4?")
    assert alone.architectures == ["gfx1151"]  # nothing else is named: it is what they have


def test_a_link_is_a_page_never_the_reporters_gpu():
    body = "Crash in rocBLAS on my RX 7600.\nSee https://example.org/rocm-adds-mi300x-and-vega-20"
    assert environment_extract("", body).architectures == ["gfx1102"]


@pytest.mark.parametrize(
    "sentence",
    [
        "Someone else's patch works very well on my RX 6800 GPU.",
        "The FP4 path only works on gfx950 (MI325X/MI350X), never on ours.",
        "Older GPUs like the Radeon VII are listed.",
        "Timings are consistent with the MI250X under the same ROCm.",
        "It's not an issue on the MI210s, just this one.",
        "You can override it to gfx1030 as a workaround.",
        "I use the community's gfx1030-gfx1032 package.",
    ],
)
def test_a_gpu_named_to_compare_in_a_list_or_beside_a_possessive_is_set_aside(sentence):
    env = environment_extract("Crash on MI300X", f"hipErrorIllegalAddress on MI300X. {sentence}")
    assert env.architectures == ["gfx942"]


def test_a_gpu_the_reporter_says_they_do_not_have_is_not_theirs():
    body = "### GPU\n\nAMD Instinct MI250\n\n### Additional Information\n\n"
    body += "I don't actually have an MI250, the form made me pick one. Windows, hipcc fails."
    assert environment_extract("", body).architectures == []


def test_a_product_name_outranks_the_gfx_target_written_after_it():
    env = environment_extract("[Bug]: RX 9070 XT (gfx1200) hangs in ollama", "")
    assert env.architectures == ["gfx1201"]
    assert any(f["value"] == "gfx1200" and "table" in f["note"] for f in env.facts)


def test_an_override_line_is_what_the_gpu_is_made_to_act_as():
    env = environment_extract(
        "", "RX 6700 XT here. I set HSA_OVERRIDE_GFX_VERSION=10.3.0 to treat it as gfx1030."
    )
    assert env.architectures == ["gfx1031"]
    assert env.gfx_override == "10.3.0"


def test_a_machine_report_outranks_gpus_named_in_prose():
    body = "I also tried an RX 6800 XT at work.\n" + ROCMINFO
    assert environment_extract("", body).architectures == ["gfx90a"]


def test_labels_describe_the_report_below_what_the_reporter_wrote():
    env = environment_extract("Crash", "", labels=["ROCm 6.2.3", "AMD Instinct MI300X", "bug"])
    assert env.architectures == ["gfx942"] and env.rocm_version == "6.2.3"
    assert env.sources["rocm_version"]["source"] == "label"
    assert environment_extract("", "", labels=["6.1.1", "Verified Issue"]).rocm_version == "6.1.1"
    mine = environment_extract("", "rocm-core 6.2.1.60201-112~22.04", labels=["ROCm 6.2.0"])
    assert mine.rocm_version == "6.2.1"  # what is installed outranks a triager's label


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("- **ROCm:** 7.2.0 (also tested with 7.9.0rc)", "7.2.0"),
        ("- ROCm version: `7.2`", "7.2"),
        ("ROCm nightly: 7.10.0a20251015 from TheRock", "7.10.0"),
        ("- TensorFlow version: tensorflow-rocm 2.4.0\n- ROCm version: 4.0", "4.0"),
        ("pytorch-triton-rocm==3.0.0 and ROCm 6.1.3", "6.1.3"),
        ("I just upgraded from ROCm 2.7 to 3.3, rocm-smi shows 0%", "3.3"),
        ("Moving from 2.2.0.dev20231017+rocm5.6 to 2.2.0.dev20231016+rocm5.7 is slower", "5.7"),
        ("rocm-hip-runtime is already the newest version (6.2.1.60201-112~22.04).", "6.2.1"),
        ("Hit:6 https://repo.radeon.com/rocm/apt/5.3 jammy InRelease", "5.3"),
        ("# Found  hipcc version 6.0.32830-d62f6a171", "6.0"),
        ("CXX=$HOME/opt/rocm/5.5.0/bin/hipcc cmake ..", "5.5.0"),
        ("I am using rocm 5.4.2 + Pytorch2.0.0 docker.", "5.4.2"),
        ("| Software | version |\n|---|---|\n| ROCm | v4.2.0 |\n| HIP | v4.2.21155 |", "4.2.0"),
        ("I copied the library into C:\\Program Files\\AMD\\ROCm\\6.2\\bin, no change", "6.2"),
        ("hsa api call failure at: /var/lib/jenkins/compute-rocm-rel-4.1/rocminfo.cc:1102", "4.1"),
        ("rocm-dkms/jammy 5.1.3.50103-66 amd64 [installed]", "5.1.3"),
        ("Version of the stack: 6.3.2.60302-66~24.04", "6.3.2"),
        ("$ apt show rocm-libs\nPackage: rocm-libs\nVersion: 1.9.307\nPriority: optional", "1.9"),
        ("- First seen on: ROCm 10.0.0 (TheRock nightly)", "10.0.0"),
        ("torch 2.15.0.dev20260301+rocm10.0 on an MI350X", "10.0"),
        ("pip install rocm[libraries,devel]==7.10.0a20251020", "7.10.0"),
        ("Reproduces with TheRock 7.14 on Windows.", "7.14"),
        ("docker run -it rocm/dev-ubuntu-22.04:6.3.1 rocminfo", "6.3.1"),
        ("Image: rocm/vllm:rocm6.4.1_instinct_vllm0.9.1_20250702", "6.4.1"),
        ("ROCM Version                 : 7.2.53211-35e8c7bf89\nvLLM Version : 0.1.dev0", "7.2"),
        ("ROCM used to build PyTorch   : 6.4.43482-0f2d60242", "6.4"),
        ("[+]  abcdefg      ^hip@6.1.2%gcc@12.2.0 build_system=cmake", "6.1.2"),
        ("Clang version : 19.0.0git (llvm-project roc-6.4.1 25184 c87081df2)", "6.4.1"),
        ("inside the b4412-rocm-7.13-local image it aborts", "7.13"),
        ("pip3 install torch --index-url https://download.pytorch.org/whl/rocm6.2", "6.2"),
        ("failure at: /usr/src/debug/rocminfo/rocminfo-rocm-6.1.2/rocminfo.cc:1219", "6.1.2"),
    ],
)
def test_it_reads_the_rocm_version_as_reporters_write_it(text, version):
    assert environment_extract("", text).rocm_version == version


@pytest.mark.parametrize(
    "text",
    [
        "Is ROCm 6.0 supporting the RX 6600 in PyTorch?",
        "Now that ROCm 7.2 supports gfx1151, could this project build for it?",
        "We just rolled out ROCm 5.7.1, can you try this with it?",
        "ROCm 6.4.1 was just released and should help.",
        "The stock kernel is 4.15.0-kfd-compute-rocm-rel-2.0-30 from the old repository.",
        "I hope ROCm 3.9 will support this card.",
        "This is fixed in the upcoming release of ROCm 6.1.2.",
        "Would you be open to trying a newer stack, JAX 0.5.0 + ROCm 6.4.1?",
        "With the release of ROCm 6.2 a wheel for it would help.",
        "See https://rocm.docs.amd.com/en/docs-6.1.2/reference/gpu-arch.html for the table.",
    ],
)
def test_a_release_asked_about_announced_or_named_by_a_kernel_is_not_the_one_run(text):
    assert environment_extract("", text).rocm_version == ""


def test_labels_that_name_several_releases_give_none():
    env = environment_extract("GPU reset", "", labels=["ROCm 5.7.1", "ROCm 6.1.0", "bug"])
    assert env.rocm_version == ""
    assert all("several" in f["note"] for f in env.facts if f["name"] == "rocm_version")


def test_the_forms_gpu_section_names_gpus_without_their_brand():
    env = environment_extract("", "### GPU\n\n680M and 780M\n\n### ROCm Version\n\n6.4.1\n")
    assert env.architectures == ["gfx1035", "gfx1103"]
