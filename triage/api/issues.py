"""REST API for issues and pull requests: thin views over triage.selectors.issues."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import generics, serializers

from config.api_views import SelectorListView
from triage.api.social import LinkedPostSerializer
from triage.models import Comment, Issue, IssuePrediction, IssuePriority
from triage.selectors import issues as selectors
from triage.selectors import social as selectors_social

# --- query parameters ----------------------------------------------------------------------


class IssueListQuerySerializer(serializers.Serializer):
    repo = serializers.RegexField(
        selectors.FULL_NAME_RE,
        required=False,
        max_length=201,
        error_messages={"invalid": "Use OWNER/NAME, for example ROCm/rocm-libraries."},
    )
    state = serializers.ChoiceField(
        choices=selectors.ISSUE_STATES,
        required=False,
        default="all",
        error_messages={"invalid_choice": '"{input}" is not a state: use open, closed or all.'},
    )
    is_pull_request = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        error_messages={"invalid": "Use true or false."},
    )
    label = serializers.CharField(required=False, max_length=255, default="")
    q = serializers.CharField(required=False, max_length=200, default="", trim_whitespace=True)


ISSUE_LIST_PARAMETERS = [
    OpenApiParameter("repo", OpenApiTypes.STR, description="OWNER/NAME (case-insensitive)."),
    OpenApiParameter(
        "state",
        OpenApiTypes.STR,
        enum=list(selectors.ISSUE_STATES),
        default="all",
        description="open, closed or all; default all.",
    ),
    OpenApiParameter(
        "is_pull_request",
        OpenApiTypes.BOOL,
        description="true: pull requests only; false: issues only; absent: both.",
    ),
    OpenApiParameter("label", OpenApiTypes.STR, description="A label name (case-insensitive)."),
    OpenApiParameter(
        "q", OpenApiTypes.STR, description='Text in title or body, or a number ("123", "#123").'
    ),
]

# --- responses -----------------------------------------------------------------------------


class IssueSerializer(serializers.ModelSerializer):
    repo = serializers.CharField(source="repository.full_name", read_only=True)
    labels = serializers.SlugRelatedField(many=True, read_only=True, slug_field="name")
    author = serializers.SlugRelatedField(read_only=True, slug_field="login", allow_null=True)
    comments = serializers.IntegerField(source="comments_count", read_only=True)

    class Meta:
        model = Issue
        fields = [
            "repo",
            "number",
            "title",
            "state",
            "is_pull_request",
            "labels",
            "author",
            "comments",
            "created_at",
            "updated_at",
            "closed_at",
            "merged_at",
            "html_url",
        ]
        read_only_fields = fields


class CommentItemSerializer(serializers.ModelSerializer):
    author = serializers.SlugRelatedField(read_only=True, slug_field="login", allow_null=True)

    class Meta:
        model = Comment
        fields = ["author", "body", "created_at", "updated_at", "html_url"]
        read_only_fields = fields


class PredictionSerializer(serializers.ModelSerializer):
    model = serializers.CharField(source="model_name", read_only=True)
    version = serializers.CharField(source="model_version", read_only=True)

    class Meta:
        model = IssuePrediction
        fields = [
            "model",
            "version",
            "label",
            "confidence",
            "needs_triage",
            "evidence",
            "predicted_at",
        ]
        read_only_fields = fields


class PrioritySerializer(serializers.ModelSerializer):
    class Meta:
        model = IssuePriority
        fields = ["score", "parts", "computed_at"]
        read_only_fields = fields


class IssueDetailSerializer(IssueSerializer):
    predictions = PredictionSerializer(many=True, read_only=True)
    priority = PrioritySerializer(read_only=True, allow_null=True)
    assignees = serializers.SlugRelatedField(many=True, read_only=True, slug_field="login")
    comment_items = CommentItemSerializer(many=True, read_only=True, source="visible_comments")
    linked_posts = serializers.SerializerMethodField()

    class Meta(IssueSerializer.Meta):
        fields = IssueSerializer.Meta.fields + [
            "body",
            "state_reason",
            "merged",
            "merge_commit_sha",
            "base_ref",
            "head_ref",
            "assignees",
            "milestone",
            "transferred_to",
            "deleted_at",
            "comment_items",
            "predictions",
            "priority",
            "linked_posts",
        ]
        read_only_fields = fields

    @extend_schema_field(LinkedPostSerializer(many=True))
    def get_linked_posts(self, issue) -> list[dict]:
        return LinkedPostSerializer(selectors_social.issue_linked_posts(issue), many=True).data


# --- views ---------------------------------------------------------------------------------


class IssueListView(SelectorListView):
    serializer_class = IssueSerializer

    query_serializer = IssueListQuerySerializer
    selector = staticmethod(selectors.issue_list)

    @extend_schema(
        summary="List issues and pull requests",
        description=(
            "Issues and pull requests not deleted on GitHub, most recently updated first, "
            "50 per page. `state` defaults to `all`. An invalid filter answers 400."
        ),
        parameters=ISSUE_LIST_PARAMETERS,
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class IssueDetailView(generics.RetrieveAPIView):
    serializer_class = IssueDetailSerializer

    def get_object(self):
        kwargs = self.kwargs
        return selectors.issue_detail(
            owner=kwargs["owner"], name=kwargs["name"], number=kwargs["number"]
        )

    @extend_schema(
        summary="One issue or pull request with its comments",
        description="404 when the repository has no such issue or pull request.",
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)
