"""What showing images as links (or through the image proxy) adds to rendering untrusted text.

Renders 256 KiB bodies (our cap) three ways: sanitized only (markdown-it and nh3, what rendering
did before images were rewritten), with images as links (the default), and through a configured
camo-compatible proxy; prints the best of 5 runs of each, in milliseconds.

    python benchmarks/rendering_images.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", "benchmark-only")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402

from triage.text import rendering  # noqa: E402

LIMIT = 256 * 1024
BODIES = {
    "Markdown images": ("![shot](https://e.example/i.png) " * 8000)[:LIMIT],
    "1,900 raw <img> tags": '<img src="https://github.com/user-attachments/assets/a" alt="x"> '
    * 1900,
    "one image among 43,000 other tags": ("**b** " * 43000)[: LIMIT - 40]
    + "\n\n![a](https://e.x/a)",
}


def best_ms(render, text: str, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        render(text)
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def sanitized_only(text: str) -> str:
    return rendering._CLEANER.clean(rendering._render_unsafe(text))


def main() -> None:
    print("| body | sanitized only | images as links | through the proxy | images |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, text in BODIES.items():
        settings.IMAGE_PROXY_URL = settings.IMAGE_PROXY_KEY = ""
        before = best_ms(sanitized_only, text)
        links = best_ms(rendering.render_markdown, text)
        count = rendering.render_markdown(text).count("external-image")
        settings.IMAGE_PROXY_URL, settings.IMAGE_PROXY_KEY = "https://camo.example.org", "key"
        proxied = best_ms(rendering.render_markdown, text)
        print(f"| {name} | {before:.0f} ms | {links:.0f} ms | {proxied:.0f} ms | {count:,} |")


if __name__ == "__main__":
    main()
