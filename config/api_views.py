"""What several apps' REST API views share."""

from __future__ import annotations

from rest_framework import generics


def query_given(params) -> dict[str, str]:
    """The query string's parameters that carry a value: `?repo=&q=` is what a form with empty
    fields sends, and means no filter, as GitHub's and Django admin's lists read it."""
    return {name: value for name, value in params.items() if value != ""}


class SelectorListView(generics.ListAPIView):
    """A paginated list answered by a selector: the query string is validated by
    `query_serializer` (400 naming the bad parameter; an empty one is not given) and its values
    are the selector's keywords.

    A subclass sets serializer_class, query_serializer and `selector = staticmethod(function)`.
    """

    query_serializer: type
    selector = None

    def get_queryset(self):
        query = self.query_serializer(data=query_given(self.request.query_params))
        query.is_valid(raise_exception=True)
        return self.selector(**query.validated_data)
