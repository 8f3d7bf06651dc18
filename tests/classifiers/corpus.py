"""Small inline training data: a few templated reports per class, varied by GPU and library."""

import itertools

GPUS = ["MI300X", "MI250X", "RX 7900 XTX", "MI210", "W7900", "MI325X", "RX 9070 XT", "Strix Halo"]
LIBS = ["rocBLAS", "MIOpen", "hipBLASLt", "RCCL", "rocFFT", "HIP", "Triton", "PyTorch"]

KIND_TEMPLATES = {
    "bug": (
        "{lib} crashes with segmentation fault on {gpu}",
        "Kernel launch fails with hipErrorIllegalAddress in {lib} on {gpu}; stack trace attached",
    ),
    "feature": (
        "Feature request: add support for fp8 in {lib}",
        "It would be great to support a new API in {lib}; please add an option for {gpu} users",
    ),
    "question": (
        "How do I install {lib} for {gpu}?",
        "Is it possible to use {lib} with {gpu}? What is the recommended way? Thanks in advance",
    ),
    "docs": (
        "Documentation for {lib} has a broken link",
        "The docs page of {lib} is outdated: the README and the install guide describe old flags",
    ),
    "performance": (
        "{lib} GEMM is slow on {gpu}: throughput is half of expected",
        "Benchmark shows low TFLOPS and high latency for {lib} kernels on {gpu}, performance drop",
    ),
}


def kind_rows(per_class: int = 8) -> list[dict]:
    rows = []
    for label, (title, body) in KIND_TEMPLATES.items():
        pairs = itertools.islice(itertools.product(GPUS, LIBS), 0, None, 7)
        for gpu, lib in itertools.islice(pairs, per_class):
            rows.append(
                {
                    "title": title.format(gpu=gpu, lib=lib),
                    "body": body.format(gpu=gpu, lib=lib),
                    "label": label,
                }
            )
    return rows


SENTIMENT = {
    "positive": [
        "Thanks, this works great!",
        "Excellent answer, very helpful",
        "Awesome, thank you so much",
        "Great explanation, I love it",
        "Perfect, solved my problem, thanks",
        "Nice, this is great",
    ],
    "negative": [
        "This is a terrible idea and it is wrong",
        "Awful, this never works, useless",
        "Stop posting garbage answers",
        "This is horrible and broken",
        "I hate this stupid API",
        "Worst documentation ever, useless",
    ],
    "neutral": [
        "The function returns a list of strings",
        "You can set the flag in the config file",
        "Use the second parameter for the size",
        "The method is defined in the base class",
        "Call it after the loop finishes",
        "The value is stored in a variable",
    ],
}


def sentiment_rows() -> list[dict]:
    return [
        {"text": f"{text} {suffix}", "label": label}
        for label, texts in SENTIMENT.items()
        for text in texts
        for suffix in ("", "here")
    ]
