"""The GPU target table: every target of LLVM's AMDGPU processor table, the product names."""

import json

import pytest

from classifiers import gpu_targets
from classifiers.extraction import environment_extract

GCN = "gfx600 gfx601 gfx602 gfx700 gfx701 gfx702 gfx703 gfx704 gfx705 gfx801 gfx802 gfx803 gfx805"
GFX9 = "gfx810 gfx900 gfx902 gfx904 gfx906 gfx908 gfx909 gfx90a gfx90c gfx940 gfx941 gfx942 gfx950"
GFX10 = "gfx1010 gfx1011 gfx1012 gfx1013 gfx1030 gfx1031 gfx1032 gfx1033 gfx1034 gfx1035 gfx1036"
GFX11 = "gfx1100 gfx1101 gfx1102 gfx1103 gfx1150 gfx1151 gfx1152 gfx1153 gfx1200 gfx1201 gfx1250"
LLVM_PROCESSORS = f"{GCN} {GFX9} {GFX10} {GFX11}".split()
LLVM_GENERIC = "gfx9-generic gfx9-4-generic gfx10-1-generic gfx10-3-generic gfx11-generic"
LLVM_GENERIC += " gfx12-generic"


@pytest.mark.parametrize("target", LLVM_PROCESSORS)
def test_it_recognises_every_processor_of_llvms_table_in_text(target):
    env = environment_extract(f"Kernel fails on {target}", "")
    assert env.architectures == [target]


def test_it_keeps_generic_targets_as_build_targets_never_as_the_gpu():
    env = environment_extract("", f"Built the code object for {LLVM_GENERIC.split()[3]} only.")
    assert env.architectures == []
    assert env.build_targets == ["gfx10-3-generic"]
    for name in LLVM_GENERIC.split():
        assert gpu_targets.target(name).generic


@pytest.mark.parametrize("token", ["gfx000", "gfx1099", "gfx12", "gfx9000", "gfx1105", "gfx91a"])
def test_it_does_not_take_unknown_gfx_tokens_for_targets(token):
    assert environment_extract(f"Fails on {token}", "").architectures == []


@pytest.mark.parametrize(
    ("written", "target"),
    [
        ("Radeon 7900 XTX", "gfx1100"),
        ("7900XTX", "gfx1100"),
        ("RX7900 XTX", "gfx1100"),
        ("AMD Radeon RX 7900 XT", "gfx1100"),
        ("rx 9070xt", "gfx1201"),
        ("Radeon RX 9060 XT", "gfx1200"),
        ("RX 6700XT", "gfx1031"),
        ("RX 6800M", "gfx1031"),
        ("Radeon AI PRO R9700", "gfx1201"),
        ("Radeon PRO W7900", "gfx1100"),
        ("W6800", "gfx1030"),
        ("Radeon VII", "gfx906"),
        ("Radeon Pro VII", "gfx906"),
        ("Instinct MI355X", "gfx950"),
        ("MI300A", "gfx942"),
        ("MI325X", "gfx942"),
        ("MI250X", "gfx90a"),
        ("MI100", "gfx908"),
        ("MI50", "gfx906"),
        ("Strix Halo", "gfx1151"),
        ("Ryzen AI Max+ 395", "gfx1151"),
        ("Radeon 8060S", "gfx1151"),
        ("Strix Point", "gfx1150"),
        ("Ryzen AI 9 HX 370", "gfx1150"),
        ("Krackan Point", "gfx1152"),
        ("Radeon 780M", "gfx1103"),
        ("Hawk Point", "gfx1103"),
        ("Navi21", "gfx1030"),
    ],
)
def test_it_reads_a_product_name_however_it_is_written(written, target):
    assert environment_extract("", f"Running on my {written}, it fails.").architectures == [target]


@pytest.mark.parametrize("text", ["Running 7900 jobs", "Version 9070 of the docs", "Radeon driver"])
def test_a_bare_model_number_without_a_brand_is_no_gpu(text):
    assert environment_extract("", text).architectures == []


def test_the_longest_name_wins_where_names_overlap():
    env = environment_extract("", "My AMD Radeon RX 7900 XTX and an Instinct MI300X.")
    assert env.gpus == ["AMD Radeon RX 7900 XTX", "AMD Instinct MI300X"]


def test_the_data_file_names_its_sources_and_every_product_has_one():
    data = json.loads(gpu_targets.DATA_FILE.read_text())
    sources = {s["id"]: s for s in data["sources"]}
    assert {"llvm", "rocm-specs"} <= set(sources)
    assert all(s["url"].startswith("https://") for s in sources.values())
    assert all(p["source"] in sources for p in data["products"])
    assert set(LLVM_PROCESSORS) | set(LLVM_GENERIC.split()) == set(gpu_targets.known_targets())


@pytest.mark.parametrize(
    ("text", "target"),
    [
        ("AMD Radeon RX 570 Series", "gfx803"),
        ("a Radeon 780M iGPU", "gfx1103"),
        ("my RX 560X 4GB", "gfx803"),
        ("the MI325 nodes", "gfx942"),
    ],
)
def test_a_name_whose_last_words_are_optional_is_read_before_other_words(text, target):
    assert environment_extract("", text).architectures == [target]
