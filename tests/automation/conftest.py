"""What the tests of GitHub writes share: the GitHub emulator and an opted-in repository."""

from __future__ import annotations

import pytest

from tests.fakes.github_api import github_for_settings

REPO = "ROCm/ROCm"
BOT = "rocm-triage-bot"


@pytest.fixture
def emulator(settings):
    """GitHub's emulator holding REPO, the service pointed at it and signed in as BOT (which it
    knows as its own login)."""
    with github_for_settings(settings, token="triage-token", login=BOT) as emu:
        settings.GITHUB_BOT_LOGIN = BOT
        emu.add_repo(REPO)
        yield emu


@pytest.fixture
def opt_in(make):
    """opt_in(actions, **fields): REPO here, opted in to the GitHub writes `actions` for real
    (not a dry run)."""

    def opt_in(actions, **fields):
        repository = make.repository(REPO, **fields)
        repository.github_actions = list(actions)
        repository.github_dry_run = False
        repository.save()
        return repository

    return opt_in
