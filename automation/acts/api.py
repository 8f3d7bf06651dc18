"""REST API: reply, close, reopen and labels on GitHub (the issue page's acts, the same
services, permissions and outbox: automation.acts.services)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from automation.acts import services as issue_acts
from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from triage.permissions import HasPermission
from triage.selectors import issues as selectors


class WriteSerializer(serializers.ModelSerializer):
    description = serializers.SerializerMethodField()

    class Meta:
        model = GitHubWrite
        fields = ["id", "action", "operation", "status", "detail", "description"]
        read_only_fields = fields

    def get_description(self, write) -> str:
        return outbox.describe(write)


class WritesSerializer(serializers.Serializer):
    writes = WriteSerializer(many=True)


class ReplySerializer(serializers.Serializer):
    body = serializers.CharField(max_length=issue_acts.MAX_REPLY, help_text="Markdown")
    mention_reporter = serializers.BooleanField(default=True)
    nonce = serializers.CharField(
        max_length=64,
        required=False,
        default="",
        help_text="the same nonce again writes no second reply (a retried request)",
    )


class CloseSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=list(issue_acts.CLOSE_REASONS))
    duplicate_of = serializers.CharField(
        max_length=220, required=False, default="", help_text="#N or OWNER/NAME#N"
    )


class LabelsSerializer(serializers.Serializer):
    add = serializers.ListField(
        child=serializers.CharField(max_length=255), required=False, default=list, max_length=50
    )
    remove = serializers.ListField(
        child=serializers.CharField(max_length=255), required=False, default=list, max_length=50
    )


def _answer(writes) -> Response:
    writes = writes if isinstance(writes, list) else [writes]
    return Response({"writes": WriteSerializer(writes, many=True).data})


def _refused(exc) -> Response:
    return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)


class ReplyView(APIView):
    permission_classes = [HasPermission.to("reply")]

    @extend_schema(
        summary="Reply on GitHub",
        description="A new comment through the outbox (opt-in dashboard.reply); the writes "
        "say whether it was sent, planned (dry run) or skipped, and why.",
        request=ReplySerializer,
        responses={200: WritesSerializer, 400: None},
    )
    def post(self, request, owner: str, name: str, number: int):
        issue = selectors.issue_detail(owner=owner, name=name, number=number)
        data = ReplySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            write = issue_acts.issue_reply(
                issue=issue,
                body=data.validated_data["body"],
                user=request.user,
                mention_reporter=data.validated_data["mention_reporter"],
                form_nonce=data.validated_data["nonce"],
            )
        except issue_acts.ActRefused as exc:
            return _refused(exc)
        return _answer(write)


class CloseView(APIView):
    permission_classes = [HasPermission.to("close")]

    @extend_schema(
        summary="Close on GitHub",
        description="As completed, not_planned, or duplicate (of `duplicate_of`: a comment "
        "that links it first, and the duplicates decision recorded). Opt-in dashboard.state.",
        request=CloseSerializer,
        responses={200: WritesSerializer, 400: None},
    )
    def post(self, request, owner: str, name: str, number: int):
        issue = selectors.issue_detail(owner=owner, name=name, number=number)
        data = CloseSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            writes = issue_acts.issue_close(issue=issue, user=request.user, **data.validated_data)
        except issue_acts.ActRefused as exc:
            return _refused(exc)
        return _answer(writes)


class ReopenView(APIView):
    permission_classes = [HasPermission.to("reopen")]

    @extend_schema(
        summary="Reopen on GitHub",
        request=None,
        responses={200: WritesSerializer, 400: None},
    )
    def post(self, request, owner: str, name: str, number: int):
        issue = selectors.issue_detail(owner=owner, name=name, number=number)
        try:
            return _answer(issue_acts.issue_reopen(issue=issue, user=request.user))
        except issue_acts.ActRefused as exc:
            return _refused(exc)


class TitleSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=issue_acts.MAX_TITLE)


class TitleView(APIView):
    permission_classes = [HasPermission.to("retitle")]

    @extend_schema(
        summary="Retitle on GitHub",
        description="Opt-in dashboard.state.",
        request=TitleSerializer,
        responses={200: WritesSerializer, 400: None},
    )
    def post(self, request, owner: str, name: str, number: int):
        issue = selectors.issue_detail(owner=owner, name=name, number=number)
        data = TitleSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            write = issue_acts.issue_title_edit(
                issue=issue, title=data.validated_data["title"], user=request.user
            )
        except issue_acts.ActRefused as exc:
            return _refused(exc)
        return _answer(write)


class LockSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(
        choices=["", *issue_acts.LOCK_REASONS], required=False, default=""
    )
    unlock = serializers.BooleanField(default=False)


class LockView(APIView):
    permission_classes = [HasPermission.to("lock")]

    @extend_schema(
        summary="Lock or unlock the conversation on GitHub",
        description="GitHub's lock reasons; opt-in dashboard.state.",
        request=LockSerializer,
        responses={200: WritesSerializer, 400: None},
    )
    def post(self, request, owner: str, name: str, number: int):
        issue = selectors.issue_detail(owner=owner, name=name, number=number)
        data = LockSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            write = issue_acts.issue_lock(issue=issue, user=request.user, **data.validated_data)
        except issue_acts.ActRefused as exc:
            return _refused(exc)
        return _answer(write)


class LabelsView(APIView):
    permission_classes = [HasPermission.to("label")]

    @extend_schema(
        summary="Add and remove labels on GitHub",
        description="Of the repository's own label set (any case); opt-in dashboard.label.",
        request=LabelsSerializer,
        responses={200: WritesSerializer, 400: None},
    )
    def post(self, request, owner: str, name: str, number: int):
        issue = selectors.issue_detail(owner=owner, name=name, number=number)
        data = LabelsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            add, remove = data.validated_data["add"], data.validated_data["remove"]
            writes = issue_acts.issue_labels_change(
                issue=issue,
                add=issue_acts.labels_parse(issue, ",".join(add)) if add else [],
                remove=issue_acts.labels_parse(issue, ",".join(remove)) if remove else [],
                user=request.user,
            )
        except issue_acts.ActRefused as exc:
            return _refused(exc)
        return _answer(writes)
