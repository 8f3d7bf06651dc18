"""Models of kernels_ci: filled in by the issues that build this app."""
