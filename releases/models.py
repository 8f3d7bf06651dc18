"""Models of releases: filled in by the issues that build this app."""
