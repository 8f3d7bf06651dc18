"""Text features shared by the models: how an issue becomes one string, and TF-IDF unions.

Code blocks, URLs and long hex addresses are replaced by a placeholder word: they are noise for
"what kind of report is this", and removing them makes the char n-grams four times cheaper.
The title is repeated so that its words weigh more than the body's.
"""

from __future__ import annotations

import re

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import FeatureUnion

MAX_BODY_CHARS = 3000
TITLE_REPEAT = 2

CODE_BLOCK = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.S)
URL = re.compile(r"https?://\S+")
HEX = re.compile(r"\b0x[0-9a-f]{6,}\b", re.I)
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)


def body_clean(body: str) -> str:
    body = HTML_COMMENT.sub(" ", body or "")
    body = CODE_BLOCK.sub(" codeblock ", body)
    body = URL.sub(" urlref ", body)
    body = HEX.sub(" hexaddr ", body)
    return body[:MAX_BODY_CHARS]


def issue_text(title: str, body: str = "") -> str:
    """The one string an issue model sees."""
    title = (title or "").strip()
    return "\n".join([title] * TITLE_REPEAT + [body_clean(body)])


def word_and_char_tfidf(*, word_min_df: int = 1, char_min_df: int = 2) -> FeatureUnion:
    return FeatureUnion(
        [
            (
                "w",
                TfidfVectorizer(
                    ngram_range=(1, 2),
                    sublinear_tf=True,
                    min_df=word_min_df,
                    token_pattern=r"(?u)\b\w[\w.+-]*\w\b|\b\w\b",
                    dtype=np.float32,
                ),
            ),
            (
                "c",
                TfidfVectorizer(
                    analyzer="char_wb",
                    ngram_range=(2, 5),
                    sublinear_tf=True,
                    min_df=char_min_df,
                    dtype=np.float32,
                ),
            ),
        ]
    )
