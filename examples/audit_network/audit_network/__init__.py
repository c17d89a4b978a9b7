"""``audit``: an example out-of-tree metalwire network interface.

VIFs are recorded on the node's ports and portgroups by :class:`StoredVifMixin`, as ``flat``
does without Neutron. Every attach and detach is also appended, as one JSON object per line,
to the file named by the ``AUDIT_NETWORK_LOG`` environment variable of the server.

The line is written inside the transaction that records (or removes) the attachment: if it
cannot be written, the attach or detach fails with 503 and nothing changes.

It takes part in the drift audit (``GET /v1/metalwire/audit``): a VIF attached to a node but
not attached there by the log's last line about it is ``not_logged``; the repair
(``POST /v1/metalwire/audit/repair``) appends the missing attach line.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
from typing import Any

from metalwire.db.models import Port, Portgroup
from metalwire.errors import Invalid, NetworkError, NetworkInterfaceInvalid
from metalwire.networking.base import NetworkInterface, StoredVifMixin, VifInfo
from metalwire.networking.drift import Finding
from metalwire.networking.task import Task

LOG_ENV = "AUDIT_NETWORK_LOG"
NOT_LOGGED = "not_logged"
# One interface object serves every thread of the process; appends go one at a time.
_APPEND = threading.Lock()


class AuditNetwork(StoredVifMixin, NetworkInterface):
    name = "audit"

    def validate(self, task: Task) -> None:
        self._log_path(task)

    def _log_path(self, task: Task) -> str:
        path = os.environ.get(LOG_ENV)
        if not path:
            raise NetworkInterfaceInvalid(
                f"Node {task.node.uuid} uses the audit network interface, but {LOG_ENV} is "
                "not set for the server."
            )
        return path

    def audit_unavailable(self) -> str | None:
        return None if os.environ.get(LOG_ENV) else f"{LOG_ENV} is not set for the server."

    def audit(self, task: Task) -> list[Finding]:
        logged = self._logged_on(task)
        findings = []
        for attachment in task.attachments:
            target = task.find_target(attachment.vif_id)
            if attachment.pending or target is None or attachment.vif_id in logged:
                continue
            message = (
                f"VIF {attachment.vif_id} is attached to node {task.node.uuid}, but the "
                "audit log does not say so."
            )
            findings.append(
                Finding(
                    NOT_LOGGED,
                    task.node.uuid,
                    task.node.name,
                    attachment.vif_id,
                    target.uuid,
                    expected="attach",
                    actual=None,
                    message=message,
                    repair="log the attach",
                )
            )
        return findings

    def repair(self, task: Task, finding: Finding) -> str:
        target = task.find_target(finding.vif_id)
        if finding.kind != NOT_LOGGED or target is None:
            raise Invalid(f"The audit interface cannot repair {finding.kind} here.")
        attachment = task.attachment_of(finding.vif_id)
        info = dict(attachment.info) if attachment is not None else {}
        self._append(task, "attach", finding.vif_id, target, info)
        return f"logged the attach of VIF {finding.vif_id}"

    def _logged_on(self, task: Task) -> set[str]:
        """The VIFs the log's last line about each says are attached to the node."""
        attached: dict[str, bool] = {}
        try:
            with open(self._log_path(task), encoding="utf-8") as log:
                for line in log:
                    entry = json.loads(line)
                    if entry["node"] == task.node.uuid:
                        attached[entry["vif"]] = entry["event"] == "attach"
        except FileNotFoundError:
            return set()
        except (OSError, ValueError, KeyError) as exc:
            raise NetworkError(f"Cannot read the audit log: {exc}") from None
        return {vif for vif, on in attached.items() if on}

    def after_record(self, task: Task, vif_info: VifInfo, target: Port | Portgroup) -> None:
        extra = {k: v for k, v in vif_info.items() if k != "id"}
        self._append(task, "attach", str(vif_info["id"]), target, extra)

    def before_forget(self, task: Task, vif_id: str, target: Port | Portgroup) -> None:
        self._append(task, "detach", vif_id, target, {})

    def _append(
        self,
        task: Task,
        event: str,
        vif_id: str,
        target: Port | Portgroup,
        info: dict[str, Any],
    ) -> None:
        path = self._log_path(task)  # checked again: a detach is not validated first
        line = {
            "time": dt.datetime.now(dt.UTC).isoformat(),
            "event": event,
            "node": task.node.uuid,
            "vif": vif_id,
            "target": "port" if isinstance(target, Port) else "portgroup",
            "target_uuid": target.uuid,
            "address": target.address,
            "info": info,
            "request_id": task.context.request_id,
            "user": task.context.user,
        }
        try:
            with _APPEND, open(path, "a", encoding="utf-8") as log:
                log.write(json.dumps(line, sort_keys=True) + "\n")
        except OSError as exc:
            raise NetworkError(f"Cannot append to the audit log {path}: {exc}") from None
