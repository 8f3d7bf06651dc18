"""Text features shared by the models: how an issue becomes one string, and TF-IDF unions.

Code blocks, URLs and long hex addresses are replaced by a placeholder word: they are noise for
"what kind of report is this", and removing them makes the char n-grams four times cheaper.
The title is repeated so that its words weigh more than the body's.
"""

from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import FeatureUnion

from config import linear_re

MAX_BODY_CHARS = 2000  # longer bodies: logs and templates; cutting at 3,000 scored the same
# Only this much of a body is cleaned (GitHub's cap on a body): what is kept is its first
# MAX_BODY_CHARS once cleaned, and a longer body is a log, not a report.
MAX_CLEAN_CHARS = 65_536
TITLE_REPEAT = 2

CODE_BLOCK = linear_re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", linear_re.S)
URL = linear_re.compile(r"https?://\S+")
HEX = linear_re.compile(r"\b0x[0-9a-f]{6,}\b", linear_re.I)
HTML_COMMENT = linear_re.compile(r"<!--.*?-->", linear_re.S)


def body_clean(body: str) -> str:
    body = HTML_COMMENT.sub(" ", (body or "")[:MAX_CLEAN_CHARS])
    body = CODE_BLOCK.sub(" codeblock ", body)
    body = URL.sub(" urlref ", body)
    body = HEX.sub(" hexaddr ", body)
    return body[:MAX_BODY_CHARS]


def issue_text(title: str, body: str = "") -> str:
    """The one string an issue model sees."""
    title = (title or "").strip()
    return "\n".join([title] * TITLE_REPEAT + [body_clean(body)])


def embedding_text(text: str) -> str:
    """The text an encoder sees: an issue_text() without its title repeats (they only add
    weight for TF-IDF), anything else as it is."""
    lines = text.split("\n")
    if len(lines) > TITLE_REPEAT and len(set(lines[:TITLE_REPEAT])) == 1:
        lines = lines[TITLE_REPEAT - 1 :]
    return "\n".join(lines)


def word_and_char_tfidf(
    *,
    word_min_df: int = 1,
    char_min_df: int = 2,
    char_ngrams: tuple[int, int] = (2, 4),
    word_ngrams: tuple[int, int] = (1, 2),
    presence: bool = False,
) -> FeatureUnion:
    """Word 1-2-grams and char_wb n-grams (2-4 by default: 2-5 scored the same on NLBSE'24 and
    is a third slower to transform, the char n-grams being most of the prediction time).
    presence: each n-gram as 0/1 (no idf, no normalisation), what NB-weighted logistic
    regression (classifiers/nb_logistic.py) reads."""
    weighting = (
        {"binary": True, "use_idf": False, "norm": None} if presence else {"sublinear_tf": True}
    )
    return FeatureUnion(
        [
            (
                "w",
                TfidfVectorizer(
                    ngram_range=word_ngrams,
                    min_df=word_min_df,
                    token_pattern=r"(?u)\b\w[\w.+-]*\w\b|\b\w\b",
                    dtype=np.float32,
                    **weighting,
                ),
            ),
            (
                "c",
                TfidfVectorizer(
                    analyzer="char_wb",
                    ngram_range=char_ngrams,
                    min_df=char_min_df,
                    dtype=np.float32,
                    **weighting,
                ),
            ),
        ]
    )
