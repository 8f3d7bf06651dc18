"""python manage.py run_repro OWNER/NAME#N [--backend B] [--arch A] [--triton V] [--rocm S]
[--approve] [--no-follow-ups] [--json]

Re-extracts the issue's reproducer, optionally approves it (as you, on the command line), runs
one attempt per target now, in this process and in the sandbox, and prints the outcomes; with
what follows from them, as the runners would: the attempt on the reporter's Triton release (or
--triton's; on a GPU runner its ROCm series' image, or --rocm's), the comparison with other
vendors' targets for a compile error, and the bisection over the releases between two attempts
that disagree (--no-follow-ups: only the first ones).
"""

import json
import socket

from django.core.management.base import BaseCommand, CommandError

from kernels_ci import selectors
from kernels_ci.backends import registry
from kernels_ci.environments import release, series
from kernels_ci.models import ReproRun
from kernels_ci.services.cases import (
    NoReproducer,
    case_approve,
    case_refresh,
    no_reproducer_reason,
)
from kernels_ci.services.runs import NotApproved, RunRequestError, run_execute, runs_queue
from triage.models import Issue


class Command(BaseCommand):
    help = "Run an issue's approved reproducer now and print the outcome."

    def add_arguments(self, parser):
        parser.add_argument("issue", help="OWNER/NAME#N")
        parser.add_argument("--backend", choices=list(registry()))
        parser.add_argument(
            "--arch",
            action="append",
            help="gfx942, ... (repeatable); for triton-amd-compile and rocm-container: the "
            "interpreter runs on the CPU only and refuses an architecture",
        )
        parser.add_argument("--runs", type=int, help="executions per attempt (default 5)")
        parser.add_argument(
            "--triton",
            help="also run on this Triton release (instead of the reporter's, e.g. 3.2.0)",
        )
        parser.add_argument(
            "--rocm",
            help="for rocm-container: also run on this ROCm series' image (KERNELS_CI_ROCM_IMAGES)",
        )
        parser.add_argument(
            "--no-follow-ups",
            action="store_true",
            help="run only the first attempts: no bisection, no further verification passes",
        )
        parser.add_argument("--approve", action="store_true", help="approve the current script")
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, *args, **options):
        parsed = selectors.parse_issue_reference(options["issue"])
        if parsed is None:
            raise CommandError(f"{options['issue']!r} is not OWNER/NAME#N")
        issue = Issue.objects.filter(
            repository__full_name__iexact=parsed[0], number=parsed[1], deleted_at__isnull=True
        ).first()
        if issue is None:
            raise CommandError(f"no issue {options['issue']}: sync the repository first")
        case = case_refresh(issue=issue)
        if case is None or not case.script:
            raise CommandError(f"{issue.reference} has no reproducer: {no_reproducer_reason(case)}")
        pins = {}
        for package, read in (("triton", release), ("rocm", series)):
            if options[package]:
                pins[package] = read(options[package])
                if not pins[package]:
                    raise CommandError(f"--{package} {options[package]!r} is not a release number")
        if pins:
            case.pinned_versions = pins
            case.save(update_fields=["pinned_versions"])
        try:
            if options["approve"]:
                case_approve(case=case, login=f"cli:{socket.gethostname()}", via="command")
            runs = runs_queue(
                case=case,
                archs=options["arch"],
                backend=options["backend"],
                runs=options["runs"],
                dispatch=False,
            )
        except NotApproved as exc:
            raise CommandError(f"{exc} (pass --approve to approve the current script)") from exc
        except (NoReproducer, RunRequestError) as exc:  # e.g. --arch for the CPU interpreter
            raise CommandError(str(exc)) from exc
        results = []
        pending = [run.pk for run in runs]
        while pending:  # what the attempts queue after them, in this process too
            run_id = pending.pop(0)
            done = run_execute(run_id=run_id, runner_name="run_repro", dispatch=False)
            results.append(done)
            if not options["no_follow_ups"]:
                queued = ReproRun.objects.filter(
                    case=case, status=ReproRun.Status.QUEUED, pk__gt=run_id
                ).exclude(pk__in=pending)
                pending += list(queued.order_by("pk").values_list("pk", flat=True))
        rows = [
            {
                "issue": issue.reference,
                "arch": run.arch,
                "backend": run.backend,
                "attempt": run.attempt,
                "status": run.status,
                "outcome": run.outcome,
                "symptom": case.symptom,
                "symptom_detail": case.symptom_detail,
                "symptom_runs": run.symptom_runs,
                "runs": run.runs_requested,
                "versions": run.ran_versions,
                "pinned": bool(run.versions),
                "purpose": run.purpose,
                "signature": run.signature,
                "bisection": run.bisection.result if run.bisection_id else "",
                "duration_s": run.duration_s,
                "detail": run.detail,
            }
            for run in results
            if run is not None
        ]
        bisections = [b.result for b in case.bisections.all() if b.result]
        if options["json"]:
            self.stdout.write(json.dumps(rows, indent=2))
            return
        for row in rows:
            on = ", ".join(f"{k} {v}" for k, v in sorted(row["versions"].items()))
            self.stdout.write(
                f"{row['issue']} {row['backend']} {row['arch']} attempt {row['attempt']}"
                + (f" on {on}" if on else "")
                + (f" ({row['purpose']})" if row["purpose"] != "repro" else "")
                + ": "
                f"{row['outcome'] or row['status']} ({row['symptom_runs']}/{row['runs']} showed "
                f"{case.symptom_shown}) in {row['duration_s']} s"
                + (f"\n  signature: {row['signature']}" if row["signature"] else "")
                + f"\n  {row['detail']}"
            )
        for result in bisections:
            self.stdout.write(f"bisection: {result}")
