"""Versioned model artifacts: the fitted scikit-learn objects plus a metadata file beside them.

    <CLASSIFIER_ARTIFACT_DIR>/<model>/<version>/model.joblib     fitted state (scikit-learn objects,
                                                                   lists, dicts; no class of ours)
    <CLASSIFIER_ARTIFACT_DIR>/<model>/<version>/metadata.json    library versions, data hash and
                                                                   size, git revision, metrics
    <CLASSIFIER_ARTIFACT_DIR>/<model>/ACTIVE                      the active version's name

A pickle is only safe to load with the scikit-learn that wrote it, and only if it is the file
that was written: loading checks both against the metadata first and refuses otherwise. The
metadata's `features` say what the model reads (TF-IDF vectorisers, the linear model, and the
sentence encoder with its package version when the embeddings extra was used); a model that
needs an encoder this installation lacks is refused the same way.
"""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import joblib
import numpy as np
import sklearn
from django.conf import settings

from classifiers import embeddings
from classifiers.registry import model_class

MODEL_FILE = "model.joblib"
ITEMS_FILE = "items.npy"
METADATA_FILE = "metadata.json"
ACTIVE_FILE = "ACTIVE"
FORMAT = 1


class ArtifactError(RuntimeError):
    """An artifact is missing, damaged, or was made by another scikit-learn."""


class NoActiveModel(ArtifactError):
    pass


class ForeignArtifact(ArtifactError):
    pass


@dataclass
class LoadedModel:
    name: str
    version: str
    model: object
    metadata: dict


def artifact_root() -> Path:
    return Path(settings.CLASSIFIER_ARTIFACT_DIR)


def data_hash(texts: list[str], labels: list) -> str:
    digest = hashlib.sha256()
    for text, label in zip(texts, labels, strict=True):
        digest.update(str(label).encode())
        digest.update(b"\x1f")
        digest.update(text.encode("utf-8", "surrogatepass"))
        digest.update(b"\x1e")
    return digest.hexdigest()


def item_hashes(texts: list[str], labels: list) -> np.ndarray:
    """One 64-bit hash per (text, label): which items a version was trained on."""
    return np.array(
        [
            int.from_bytes(
                hashlib.blake2b(
                    f"{label}\x1f{text}".encode("utf-8", "surrogatepass"), digest_size=8
                ).digest(),
                "little",
            )
            for text, label in zip(texts, labels, strict=True)
        ],
        dtype=np.uint64,
    )


def items_read(name: str, version: str) -> np.ndarray | None:
    path = artifact_root() / name / version / ITEMS_FILE
    return np.load(path, allow_pickle=False) if path.exists() else None


def git_revision() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=settings.BASE_DIR,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def artifact_save(
    *,
    name: str,
    model,
    data_sha256: str,
    n_samples: int,
    source: str,
    items: np.ndarray | None = None,
    extra: dict | None = None,
) -> str:
    """Write a new version (not yet active); returns its version name."""
    now = datetime.now(UTC)
    version = f"{now:%Y%m%dT%H%M%S%f}-{data_sha256[:8]}"
    folder = artifact_root() / name / version
    folder.mkdir(parents=True, exist_ok=False)
    joblib.dump(model.state(), folder / MODEL_FILE, compress=3)
    if items is not None:
        np.save(folder / ITEMS_FILE, items, allow_pickle=False)
    metadata = {
        "format": FORMAT,
        "model": name,
        "version": version,
        "created_at": now.isoformat(),
        "sklearn_version": sklearn.__version__,
        "numpy_version": np.__version__,
        "python_version": platform.python_version(),
        "git_revision": git_revision(),
        "data_sha256": data_sha256,
        "n_samples": n_samples,
        "source": source,
        "classes": list(getattr(model, "classes", [])),
        "thresholds": dict(getattr(model, "thresholds", {})),
        "features": model.feature_info() if hasattr(model, "feature_info") else {},
        "cv_metrics": model.cv_metrics,
        "model_sha256": _sha256(folder / MODEL_FILE),
        **(extra or {}),
    }
    (folder / METADATA_FILE).write_text(json.dumps(metadata, indent=2, sort_keys=True))
    return version


def artifact_activate(*, name: str, version: str) -> None:
    if not (artifact_root() / name / version / METADATA_FILE).exists():
        raise ArtifactError(f"{name}: no version {version!r}")
    pointer = artifact_root() / name / ACTIVE_FILE
    temporary = pointer.with_suffix(".tmp")
    temporary.write_text(version)
    temporary.replace(pointer)  # atomic: readers see the old or the new version


def active_version(name: str) -> str | None:
    pointer = artifact_root() / name / ACTIVE_FILE
    return pointer.read_text().strip() if pointer.exists() else None


def metadata_read(name: str, version: str) -> dict:
    path = artifact_root() / name / version / METADATA_FILE
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise ArtifactError(f"{name} {version}: {path} is missing") from None
    except json.JSONDecodeError as exc:
        raise ArtifactError(f"{name} {version}: {path} is not valid JSON ({exc})") from None


def metadata_check(metadata: dict) -> None:
    made_with = metadata.get("sklearn_version")
    if made_with != sklearn.__version__:
        raise ForeignArtifact(
            f"{metadata.get('model')} version {metadata.get('version')} was made with "
            f"scikit-learn {made_with}, and this installation has scikit-learn "
            f"{sklearn.__version__}; a pickled model is only safe with the version that wrote it. "
            f"Retrain it: python manage.py train_classifier {metadata.get('model')}"
        )
    for kind in ("embeddings", "finetuned"):  # a frozen or a fine-tuned packaged encoder
        encoder = (metadata.get("features") or {}).get(kind)
        if encoder:
            try:
                embeddings.encoder_check(encoder)
            except embeddings.EmbeddingsUnavailable as exc:
                raise ForeignArtifact(
                    f"{metadata.get('model')} version {metadata.get('version')}: {exc}"
                ) from None


def state_load(name: str, version: str) -> tuple[dict, dict]:
    """A stored version's state and metadata, once they are checked: made with this
    scikit-learn (and encoder), and the model file the one that was saved."""
    metadata = metadata_read(name, version)
    metadata_check(metadata)
    path = artifact_root() / name / version / MODEL_FILE
    if not path.exists() or _sha256(path) != metadata.get("model_sha256"):
        raise ArtifactError(f"{name} {version}: {path} is missing or not the file that was saved")
    return joblib.load(path), metadata


_cache: dict[tuple[str, str, str], LoadedModel] = {}
_cache_lock = threading.Lock()


def artifact_load(name: str, version: str | None = None) -> LoadedModel:
    """The given version, or the active one; cached in the process per (dir, name, version)."""
    version = version or active_version(name)
    if version is None:
        raise NoActiveModel(f"{name}: no trained model (python manage.py train_classifier {name})")
    key = (str(artifact_root()), name, version)
    with _cache_lock:
        if key in _cache:
            return _cache[key]
    state, metadata = state_load(name, version)
    loaded = LoadedModel(name, version, model_class(name).from_state(state), metadata)
    with _cache_lock:
        _cache[key] = loaded
    return loaded


def versions(name: str) -> list[str]:
    folder = artifact_root() / name
    if not folder.exists():
        return []
    return sorted(p.name for p in folder.iterdir() if (p / METADATA_FILE).exists())
