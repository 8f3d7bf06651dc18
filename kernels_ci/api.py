"""REST API: repro runs, thin over kernels_ci.selectors."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers

from kernels_ci import selectors
from kernels_ci.backends import REGISTRY
from kernels_ci.models import ReproRun


class RunListQuerySerializer(serializers.Serializer):
    issue = serializers.RegexField(
        selectors.ISSUE_REF_RE,
        required=False,
        max_length=220,
        error_messages={"invalid": "Use OWNER/NAME#N (with # URL-encoded), e.g. ROCm/ROCm#12."},
    )
    outcome = serializers.ChoiceField(choices=ReproRun.Outcome.values, required=False)
    status = serializers.ChoiceField(choices=ReproRun.Status.values, required=False)
    backend = serializers.ChoiceField(choices=list(REGISTRY), required=False)
    arch = serializers.CharField(required=False, max_length=16)


class ReproRunSerializer(serializers.ModelSerializer):
    issue = serializers.SerializerMethodField()
    symptom = serializers.CharField(source="case.symptom", read_only=True)

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
            "symptom_runs",
            "runs_requested",
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


class ReproRunListView(generics.ListAPIView):
    serializer_class = ReproRunSerializer

    def get_queryset(self):
        query = RunListQuerySerializer(data=self.request.query_params.dict())
        query.is_valid(raise_exception=True)
        return selectors.run_list(**query.validated_data)

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
            OpenApiParameter("backend", OpenApiTypes.STR, enum=list(REGISTRY)),
            OpenApiParameter("arch", OpenApiTypes.STR, description="gfx942, ..., or cpu"),
        ],
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)
