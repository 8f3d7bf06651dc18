"""What the models with rules of their own read of an issue besides its text.

Triage fills one IssueFacts per issue: the text, the repository labels' names, the environment
that classifiers.extraction found, the reach, and the labels that the models before this one
(in the registry's order) gave it, a triager's decision taking the place of a prediction. A
model whose class has `rules_predict(facts, model, corrections)` answers from these facts (and
from its trained model's prediction, when it has one): symptom from the text, severity from the
symptom, the hardware, the reach and the regression signals.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Reach:
    """How many others a report reaches: distinct other commenters, "+1"s (comments and
    reactions), other reactions, issues confirmed as its duplicates, confirmed posts on X."""

    commenters: int = 0
    plus_ones: int = 0
    reactions: int = 0
    duplicates: int = 0
    posts: int = 0

    @property
    def wide(self) -> bool:
        return (
            self.plus_ones >= 5
            or self.commenters >= 5
            or self.duplicates >= 1
            or self.posts >= 3
            or self.reactions >= 10
        )

    def summary(self) -> str:
        text = (
            f"{self.commenters} other commenters, {self.plus_ones} '+1's, {self.reactions} other "
            f"reactions, {self.duplicates} confirmed duplicates, {self.posts} linked posts"
        )
        return text + ("; a wide reach" if self.wide else "")


@dataclass
class IssueFacts:
    title: str = ""
    body: str = ""
    labels: tuple[str, ...] = ()
    environment: dict = field(default_factory=dict)
    reach: Reach = field(default_factory=Reach)
    predicted: dict[str, str] = field(default_factory=dict)  # model name -> label so far
    unsure: dict[str, bool] = field(default_factory=dict)  # model name -> needs triage

    @property
    def text(self) -> str:
        return f"{self.title}\n{self.body}"
