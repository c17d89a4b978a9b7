"""Record the API reference's examples from a real server.

Starts a real ``metalwire serve`` (``tests/support/server.py``) on a throwaway SQLite
database, makes every call the reference shows, checks each answered the status the reference
says, writes each exchange to ``docs/api-ref/examples/<name>.json`` and fills the
``<!-- example: <name> -->`` ... ``<!-- /example -->`` blocks of ``docs/api-ref/*.md``.

Run from the repository root::

    .venv/bin/python docs/api-ref/generate_examples.py [--check]

Request ids, timestamps and history UUIDs change from run to run; everything else is fixed,
and an example that differs from its file only in those is left as it was. With ``--check``
nothing is written: the names of the examples that no longer match their files are printed
(exit 1), so a reference gone stale is found (``tests/cli/test_api_examples.py``).

The calls are in a module per page or two beside this one (``protocol_examples.py``,
``inventory_examples.py``, ``vif_examples.py``, ``state_examples.py``,
``lifecycle_examples.py``), each made through ``example_recorder.Recorder``; this script
runs them in order, writes the JSON files and renders the Markdown.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
EXAMPLES = HERE / "examples"
sys.path.insert(0, str(ROOT))

from tests.support.server import MetalwireServer  # noqa: E402

sys.path.insert(0, str(HERE))
from example_recorder import SHOWN, VERSION_HEADERS, Recorder  # noqa: E402
from inventory_examples import (  # noqa: E402
    record_nodes,
    record_portgroups,
    record_ports,
    record_traits,
)
from lifecycle_examples import record_lifecycle, record_volume  # noqa: E402
from protocol_examples import record_errors, record_events, record_versions  # noqa: E402
from state_examples import record_history, record_states  # noqa: E402
from vif_examples import record_vifs  # noqa: E402

PUBLIC_ENDPOINT = "http://127.0.0.1:6385"


# -- Markdown ------------------------------------------------------------------------------

_BLOCK = re.compile(r"(<!-- example: ([\w.-]+) -->\n)(.*?)(<!-- /example -->)", re.DOTALL)


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def render(name: str, example: dict[str, Any]) -> str:
    req, resp = example["request"], example["response"]
    lines = ["```http", f"{req['method']} {req['path']} HTTP/1.1"]
    lines += [f"{k}: {v}" for k, v in req["headers"].items()]
    if "body" in req:
        lines += ["", _json(req["body"])]
    elif "body_text" in req:
        lines += ["", req["body_text"]]
    lines += ["```", "", "```http", f"HTTP/1.1 {resp['status']} {resp['reason']}"]
    shown = SHOWN + (VERSION_HEADERS if name.startswith("versions") else ())
    lines += [f"{k}: {v}" for k, v in resp["headers"].items() if k in shown]
    if resp["body"] is not None:
        lines += ["", _json(resp["body"])]
    lines += ["```", ""]
    body = resp["body"]
    if isinstance(body, dict) and isinstance(body.get("error_message"), str):
        error = json.loads(body["error_message"])
        key = "faultstring" if "faultstring" in error else "description"
        lines += [f"`{key}`: {error[key]}", ""]
    lines += [f"Recorded in [`examples/{name}.json`](examples/{name}.json).", ""]
    return "\n".join(lines)


def fill_markdown(examples: dict[str, dict[str, Any]]) -> set[str]:
    """Fill every example block of the pages; return the names shown."""
    used: set[str] = set()
    for page in sorted(HERE.glob("*.md")):
        text = page.read_text()
        missing = [m.group(2) for m in _BLOCK.finditer(text) if m.group(2) not in examples]
        if missing:
            raise SystemExit(f"{page.name} shows examples not recorded: {', '.join(missing)}")
        used.update(m.group(2) for m in _BLOCK.finditer(text))
        new = _BLOCK.sub(
            lambda m: m.group(1) + render(m.group(2), examples[m.group(2)]) + m.group(4), text
        )
        if new != text:
            page.write_text(new)
    return used


_VOLATILE = (
    (re.compile(r"req-[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}"), "req-<id>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:\+00:00|Z)?"), "<time>"),
    (re.compile(r"[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}"), "<uuid>"),
)


def _comparable(example: dict[str, Any]) -> str:
    text = _json(example)
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def stale(examples: dict[str, dict[str, Any]]) -> list[str]:
    """The names of the examples that differ from their files (or have none, or whose file
    no longer has an example), the values that change from run to run aside."""

    def matches(name: str) -> bool:
        path = EXAMPLES / f"{name}.json"
        if name not in examples or not path.exists():
            return False
        return _comparable(json.loads(path.read_text())) == _comparable(examples[name])

    names = set(examples) | {p.stem for p in EXAMPLES.glob("*.json")}
    return [name for name in sorted(names) if not matches(name)]


def main() -> int:
    check = sys.argv[1:] == ["--check"]
    with tempfile.TemporaryDirectory(prefix="metalwire-examples-") as tmp:
        data_dir = Path(tmp)
        env = {
            "METALWIRE_API_PUBLIC_ENDPOINT": PUBLIC_ENDPOINT,
            "METALWIRE_HOST": "conductor-1",
            "METALWIRE_CONDUCTOR_NODE_LOCK_WAIT": "2",
        }
        with (
            MetalwireServer(data_dir, env=env) as server,
            httpx.Client(base_url=server.url, timeout=30) as client,
        ):
            r = Recorder(client)
            try:
                record_versions(r)
                record_nodes(r)
                record_traits(r)
                record_ports(r)
                record_portgroups(r)
                record_vifs(r, data_dir / "metalwire.db")
                record_states(r)
                record_lifecycle(r)
                record_volume(r)
                record_history(r)
                record_errors(r)
                record_events(r)
            except SystemExit:
                print(server.log()[-6000:], file=sys.stderr)
                raise
    if check:
        differing = stale(r.examples)
        if differing:
            print(f"examples no longer recorded as shown: {', '.join(differing)}")
            return 1
        print(f"{len(r.examples)} examples as recorded")
        return 0
    EXAMPLES.mkdir(exist_ok=True)
    for old in EXAMPLES.glob("*.json"):
        if old.stem not in r.examples:
            old.unlink()
    changed = set(stale(r.examples))
    for name in sorted(set(r.examples) - changed):  # as recorded before: kept as it was
        r.examples[name] = json.loads((EXAMPLES / f"{name}.json").read_text())
    for name in changed & set(r.examples):
        (EXAMPLES / f"{name}.json").write_text(_json(r.examples[name]) + "\n")
    used = fill_markdown(r.examples)
    print(f"{len(changed)} of {len(r.examples)} examples written to {EXAMPLES.relative_to(ROOT)}")
    unused = sorted(set(r.examples) - used)
    if unused:
        print(f"not shown in any page: {', '.join(unused)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
