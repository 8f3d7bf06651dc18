"""REST API: repro runs, thin over kernels_ci.selectors."""

from django.db import transaction
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api_views import SelectorListView
from kernels_ci import selectors
from kernels_ci.backends import registry
from kernels_ci.models import Bisection, ReproCase, ReproRun, Runner
from kernels_ci.services.cases import NoReproducer, case_approve
from kernels_ci.services.runs import RunRequestError, reporter_versions, runs_queue
from triage.permissions import HasPermission


class RunListQuerySerializer(serializers.Serializer):
    issue = serializers.RegexField(
        selectors.ISSUE_REF_RE,
        required=False,
        max_length=220,
        error_messages={"invalid": "Use OWNER/NAME#N (with # URL-encoded), e.g. ROCm/ROCm#12."},
    )
    outcome = serializers.ChoiceField(choices=ReproRun.Outcome.values, required=False)
    status = serializers.ChoiceField(choices=ReproRun.Status.values, required=False)
    backend = serializers.ChoiceField(choices=list(registry()), required=False)
    arch = serializers.CharField(required=False, max_length=16)


class BisectionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Bisection
        fields = [
            "id",
            "arch",
            "backend",
            "package",
            "direction",
            "status",
            "result",
            "first_version",
            "releases",
            "verdicts",
            "steps",
            "max_steps",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields


class ReproRunSerializer(serializers.ModelSerializer):
    issue = serializers.SerializerMethodField()
    symptom = serializers.CharField(source="case.symptom", read_only=True)
    symptom_detail = serializers.CharField(source="case.symptom_detail", read_only=True)
    outcome = serializers.ChoiceField(  # "" until the run has finished
        choices=ReproRun.Outcome.choices, allow_blank=True, read_only=True
    )

    class Meta:
        model = ReproRun
        fields = [
            "id",
            "issue",
            "arch",
            "backend",
            "attempt",
            "purpose",
            "queue",
            "status",
            "outcome",
            "symptom",
            "symptom_detail",
            "symptom_runs",
            "runs_requested",
            "versions",
            "ran_versions",
            "bisection",
            "signature",
            "signature_hash",
            "executions",
            "detail",
            "isolation",
            "duration_s",
            "created_at",
            "claimed_at",
            "finished_at",
            "runner_name",
            "log",
        ]
        read_only_fields = fields

    def get_issue(self, run: ReproRun) -> str:
        return run.case.issue.reference


class ReproRunListView(SelectorListView):
    serializer_class = ReproRunSerializer

    query_serializer = RunListQuerySerializer
    selector = staticmethod(selectors.run_list)

    @extend_schema(
        summary="List repro runs",
        description=(
            "Repro runs (one attempt of a case's reproducer on one architecture with one "
            "backend), newest first, 50 per page. Filter by `issue=OWNER/NAME%23N`. "
            "An invalid filter answers 400."
        ),
        parameters=[
            OpenApiParameter("issue", OpenApiTypes.STR, description="OWNER/NAME#N (# as %23)."),
            OpenApiParameter("outcome", OpenApiTypes.STR, enum=ReproRun.Outcome.values),
            OpenApiParameter("status", OpenApiTypes.STR, enum=ReproRun.Status.values),
            OpenApiParameter("backend", OpenApiTypes.STR, enum=list(registry())),
            OpenApiParameter("arch", OpenApiTypes.STR, description="gfx942, ..., or cpu"),
        ],
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class ScopeSerializer(serializers.Serializer):
    text = serializers.CharField()
    amd_specific = serializers.BooleanField(allow_null=True)
    route = serializers.CharField()


class ReproCaseSerializer(serializers.ModelSerializer):
    issue = serializers.CharField(source="issue.reference", read_only=True)
    reporter_versions = serializers.SerializerMethodField()
    scope = serializers.SerializerMethodField()
    bisections = serializers.SerializerMethodField()

    class Meta:
        model = ReproCase
        fields = [
            "id",
            "issue",
            "language",
            "uses_triton",
            "backend",
            "archs",
            "sha256",
            "approved_sha256",
            "imports_added",
            "choice_reason",
            "extraction_problem",
            "symptom",
            "symptom_detail",
            "symptom_message",
            "expected_error",
            "environment",
            "pinned_versions",
            "reporter_versions",
            "scope",
            "bisections",
        ]
        read_only_fields = fields

    def get_reporter_versions(self, case: ReproCase) -> dict[str, str]:
        return reporter_versions(case)

    @extend_schema_field(ScopeSerializer(allow_null=True))
    def get_scope(self, case: ReproCase):
        scope = selectors.case_scope(case)
        return ScopeSerializer(scope).data if scope else None

    @extend_schema_field(BisectionSerializer(many=True))
    def get_bisections(self, case: ReproCase):
        return BisectionSerializer(selectors.bisections_for_case(case), many=True).data


class ReproCaseDetailView(generics.RetrieveAPIView):
    """GET /api/repro-cases/ID/: the case, what its report expects, whose failure it is, and
    its bisections."""

    serializer_class = ReproCaseSerializer
    queryset = ReproCase.objects.select_related("issue__repository")
    lookup_url_kwarg = "case_id"

    @extend_schema(summary="A repro case: its expectation, scope and bisections")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class RunnerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Runner
        fields = [
            "name",
            "arch",
            "rocm_version",
            "backends",
            "queues",
            "versions",
            "registered_at",
            "last_heartbeat_at",
            "healthy",
            "reason",
            "consuming",
        ]
        read_only_fields = fields


class RunnerListView(generics.ListAPIView):
    """GET /api/runners/: the repro runners with their capabilities and health."""

    serializer_class = RunnerSerializer
    pagination_class = None

    def get_queryset(self):
        return selectors.runners_list()

    @extend_schema(summary="Repro runners and their health")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class ApproveSerializer(serializers.Serializer):
    sha256 = serializers.RegexField(
        r"^[0-9a-f]{64}$",
        help_text="The sha256 of the script you reviewed: the approval holds for exactly it.",
    )


class CaseApproveView(APIView):
    """POST /api/repro-cases/ID/approve/: approve the case's script (by its sha256) and queue
    its runs; both or neither."""

    permission_classes = [HasPermission.to("approve_repro")]

    @extend_schema(
        summary="Approve a repro case and queue its runs",
        request=ApproveSerializer,
        responses={201: ReproRunSerializer(many=True), 400: None, 404: None, 409: None},
    )
    def post(self, request, case_id: int):
        case = get_object_or_404(ReproCase, pk=case_id)
        body = ApproveSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if body.validated_data["sha256"] != case.sha256:
            return Response(
                {"detail": "The reproducer changed since you reviewed it: review it again."},
                status=status.HTTP_409_CONFLICT,
            )
        try:
            with transaction.atomic():
                case_approve(case=case, user=request.user, via="api")
                runs = runs_queue(case=case)
        except (NoReproducer, RunRequestError) as exc:
            return Response({"detail": f"Not approved: {exc}"}, status=status.HTTP_400_BAD_REQUEST)
        return Response(ReproRunSerializer(runs, many=True).data, status=status.HTTP_201_CREATED)
