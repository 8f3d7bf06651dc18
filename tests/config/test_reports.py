"""A counted report's line: the title, then each field's count in the fields' order."""

from dataclasses import dataclass, field

from automation.commands.services import CommandsReport
from automation.known_errors.services import MatchReport
from automation.ownership.services import RouteReport
from config.reports import Tally


def test_lists_count_by_length_and_numbers_as_they_are():
    @dataclass
    class Sweep(Tally):
        TITLE = "sweep"

        sent: list[str] = field(default_factory=list)
        waiting: int = 0

    assert Sweep(sent=["a", "b"], waiting=3).summary() == "sweep: 2 sent, 3 waiting"


def test_the_services_reports_read_as_their_logs_always_did():
    assert CommandsReport(done=["x"]).summary() == "comment commands: 1 done, 0 refused"
    assert MatchReport(answered=["a", "b"]).summary() == "known errors: 0 proposed, 2 answered"
    assert (
        RouteReport(routed=["r"], escalated=["e"]).summary() == "ownership: 1 routed, 1 escalated"
    )
