"""Document the error answers every REST API view can give (a drf-spectacular postprocessing hook).

DRF answers 401 without credentials, 403 without the permission, 400 when a query parameter or
body does not validate and 404 for an unknown object or page, on every view alike (and gunicorn
414 to a URL over its limit); drf-spectacular
documents only what a view declares. This hook adds those answers, with their bodies, to every
operation that does not declare them itself, so that clients (and schemathesis in
tests/security/test_api_schema_fuzz.py) find every status code and body in the schema.
"""

from __future__ import annotations

DETAIL = "ErrorDetail"
VALIDATION = "ValidationErrors"

SCHEMAS = {
    DETAIL: {
        "type": "object",
        "properties": {"detail": {"type": "string"}},
        "required": ["detail"],
        "description": "What went wrong, in words.",
    },
    VALIDATION: {
        "type": "object",
        "description": (
            "Field name (or non_field_errors, or detail) to what is wrong with it: a message or "
            "a list of messages."
        ),
        "additionalProperties": {
            "oneOf": [
                {"type": "string"},
                {"type": "array", "items": {"type": "string"}},
                {"type": "object"},
            ]
        },
    },
}


def _response(description: str, schema: str) -> dict:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}},
    }


def _errors_of(method: str, operation: dict) -> dict[str, dict]:
    parameters = operation.get("parameters") or []
    locations = {(p.get("in"), p.get("name")) for p in parameters}
    validated = (
        method != "get"  # an action refuses what its rules forbid with 400 and a detail
        or operation.get("requestBody")
        or any(where == "query" and name != "page" for where, name in locations)
    )
    errors = {
        "401": _response("No credentials, or an unknown token.", DETAIL),
        "403": _response("The account lacks the permission this needs.", DETAIL),
    }
    if validated:
        errors["400"] = _response("A parameter or the body is invalid, or refused.", VALIDATION)
    if any(where == "query" for where, _ in locations):
        # gunicorn's own answer (before the application) to a request line over 4094 bytes
        errors["414"] = {"description": "The URL is longer than the server accepts."}
    if any(where == "path" for where, _ in locations) or ("query", "page") in locations:
        errors["404"] = _response("No such object, or no such page.", DETAIL)
    return errors


def document_error_responses(result, generator, request, public):
    """POSTPROCESSING_HOOKS entry: add 400/401/403/404/414 where an operation leaves them out."""
    result.setdefault("components", {}).setdefault("schemas", {}).update(SCHEMAS)
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            responses = operation.setdefault("responses", {})
            for code, response in _errors_of(method, operation).items():
                responses.setdefault(code, response)
    return result
