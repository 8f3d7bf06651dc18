"""The models of every feature, where Django looks for them (each is in its feature's folder).

They were triage's until migration automation 0001 took them over: their tables keep their
names (`triage_githubwrite` ...), so a deployed database moved without rebuilding any table.
"""

from automation.commands.models import CommentCommand
from automation.known_errors.models import KnownError, KnownErrorMatch
from automation.needs_info.models import NeedsInfo
from automation.outbox.models import GitHubWrite, ReplyTemplate, WriteSwitch
from automation.ownership.models import OwnerNotification, OwnershipRule
from automation.writeback.models import LabelWriteback

__all__ = [
    "CommentCommand",
    "GitHubWrite",
    "KnownError",
    "KnownErrorMatch",
    "LabelWriteback",
    "NeedsInfo",
    "OwnerNotification",
    "OwnershipRule",
    "ReplyTemplate",
    "WriteSwitch",
]
