"""The recorder every example goes through: it makes a call, checks the status the reference
says and keeps the exchange (request, status, the headers that matter, body) by name."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx

LATEST = "1.78"
IRONIC = "X-OpenStack-Ironic-API-Version"
# Response headers kept in the JSON files; the Markdown shows the ones in SHOWN.
KEPT = (
    "location",
    "warning",
    "allow",
    "x-openstack-ironic-api-version",
    "openstack-api-version",
    "x-openstack-ironic-api-minimum-version",
    "x-openstack-ironic-api-maximum-version",
    "x-openstack-request-id",
)
SHOWN = ("location", "warning", "allow")
VERSION_HEADERS = KEPT[3:7]

_NO_BODY = object()


@dataclass
class Recorder:
    client: httpx.Client
    examples: dict[str, dict[str, Any]] = field(default_factory=dict)

    def call(
        self,
        name: str,
        method: str,
        path: str,
        body: Any = _NO_BODY,
        *,
        expect: int,
        version: str | None = LATEST,
        headers: dict[str, str] | None = None,
        raw: str | None = None,
    ) -> httpx.Response:
        """Make one call, check its status and keep it as example ``name``."""
        sent: dict[str, str] = {}
        if version is not None:
            sent[IRONIC] = version
        sent.update(headers or {})
        request: dict[str, Any] = {"method": method, "path": path}
        if raw is not None:
            sent["Content-Type"] = "application/json"
            resp = self.client.request(method, path, content=raw.encode(), headers=sent)
            request["body_text"] = raw
        elif body is _NO_BODY:
            resp = self.client.request(method, path, headers=sent)
        else:
            sent["Content-Type"] = "application/json"
            resp = self.client.request(method, path, json=body, headers=sent)
            request["body"] = body
        request["headers"] = sent
        if resp.status_code != expect:
            raise SystemExit(
                f"{name}: {method} {path} answered {resp.status_code}, expected {expect}:\n"
                f"{resp.text}"
            )
        if name in self.examples:
            raise SystemExit(f"example {name} recorded twice")
        self.examples[name] = {
            "request": request,
            "response": {
                "status": resp.status_code,
                "reason": resp.reason_phrase,
                "headers": {k: resp.headers[k] for k in KEPT if k in resp.headers},
                "body": resp.json() if resp.content else None,
            },
        }
        return resp

    def quiet(self, method: str, path: str, body: Any = _NO_BODY, expect: int = 200) -> Any:
        """A setup call that is not an example."""
        sent = {IRONIC: LATEST}
        if body is _NO_BODY:
            resp = self.client.request(method, path, headers=sent)
        else:
            resp = self.client.request(method, path, json=body, headers=sent)
        if resp.status_code != expect:
            raise SystemExit(f"setup {method} {path}: {resp.status_code} {resp.text}")
        return resp.json() if resp.content else None
