"""Models of classifiers: filled in by the issues that build this app."""
