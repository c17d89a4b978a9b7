"""How a scenario of the differential tier is written and sent to one server.

A scenario is a list of steps. A step's path and body may name objects made by earlier steps
(``{n1}``) and the fixed identifiers below (``{vif1}``, ``{missing}``); a step with ``save``
remembers the ``uuid`` of the object it created under that label. Each step is sent at the
scenario's microversion unless it names its own. Afterwards everything the scenario made is
deleted, newest first, so the scenarios do not see each other's objects.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from metalwire.client.client import verb_over
from tests.differential.shapes import Answer, shape_of

VERSION_HEADER = "X-OpenStack-Ironic-API-Version"
FIXED = {
    "vif1": "6f3f0a6e-8d1e-4a36-9d62-0c6b1f1f0001",
    "vif2": "6f3f0a6e-8d1e-4a36-9d62-0c6b1f1f0002",
    "missing": "0e0e0e0e-1111-4222-8333-444444444444",
}


@dataclass(frozen=True)
class Step:
    name: str
    method: str
    path: str
    body: Any = None
    save: str | None = None
    version: str | None = None
    # a GET of a node repeated (up to a minute) until its verb is over (no target state, or
    # a failure state) and its reservation is null: Ironic's conductor finishes provision
    # verbs after answering, metalwire before
    settle: bool = False


@dataclass(frozen=True)
class Scenario:
    name: str
    steps: tuple[Step, ...]


class _Names(dict[str, str]):
    """Labels to UUIDs; a label whose create failed stays visible in the request."""

    def __missing__(self, label: str) -> str:
        return f"unsaved-{label}"


def _fill(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format_map(_Names(names))
    if isinstance(value, dict):
        return {key: _fill(item, names) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill(item, names) for item in value]
    return value


@dataclass
class Run:
    """One scenario sent to one server: its answers, by step name."""

    base_url: str
    version: str
    names: dict[str, str] = field(default_factory=lambda: dict(FIXED))
    created: list[str] = field(default_factory=list)
    answers: list[tuple[str, Answer]] = field(default_factory=list)

    def labels(self) -> dict[str, str]:
        return {uuid: label for label, uuid in self.names.items()}

    def send(self, client: httpx.Client, step: Step) -> None:
        headers = {VERSION_HEADER: step.version or self.version}
        body = _fill(step.body, self.names)
        content = None if body is None else json.dumps(body)
        deadline = time.monotonic() + 60.0
        while True:
            try:
                resp = client.request(
                    step.method, _fill(step.path, self.names), headers=headers, content=content
                )
            except httpx.RemoteProtocolError as closed:
                # Ironic's server drops the connection on some of its own crashes
                self.answers.append((step.name, Answer(0, f"no response: {closed}", None)))
                return
            payload = _payload(resp)
            if not (step.settle and _in_transition(payload) and time.monotonic() < deadline):
                break
            time.sleep(0.2)
        if resp.status_code == 201 and isinstance(payload, dict) and "uuid" in payload:
            self.created.append(f"{_collection(step.path)}/{payload['uuid']}")
            if step.save:
                self.names[step.save] = str(payload["uuid"])
        self.answers.append(
            (step.name, Answer(resp.status_code, resp.text, shape_of(payload, self.labels())))
        )

    def clean_up(self, client: httpx.Client) -> None:
        headers = {VERSION_HEADER: self.version}
        maintenance = [{"op": "replace", "path": "/maintenance", "value": True}]
        for path in reversed(self.created):
            if path.startswith("/v1/nodes/"):
                client.patch(path, headers=headers, json=maintenance)
            client.delete(path, headers=headers)


def _payload(resp: httpx.Response) -> Any:
    try:
        return resp.json() if resp.content else None
    except ValueError:
        return resp.text


def _in_transition(payload: Any) -> bool:
    if not isinstance(payload, dict):
        return False
    if payload.get("state") == "allocating":  # Ironic reserves the node after answering
        return True
    return payload.get("reservation") is not None or not verb_over(payload)


def _collection(path: str) -> str:
    return "/".join(path.split("?", 1)[0].rstrip("/").split("/")[:3])


def run_scenario(base_url: str, version: str, scenario: Scenario) -> list[tuple[str, Answer]]:
    run = Run(base_url, version)
    # a connection per request: a server that drops one after a crash costs that answer only
    headers = {"Content-Type": "application/json", "Connection": "close"}
    with httpx.Client(base_url=base_url, headers=headers, timeout=60.0) as client:
        try:
            for step in scenario.steps:
                run.send(client, step)
        finally:
            run.clean_up(client)
    return run.answers
