"""Toys built by docs/ARCHITECTURE.md's recipes (tests/test_recipes.py): the page cannot drift."""
