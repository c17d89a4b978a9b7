"""Authorization: Ironic's policy rules, enforced with oslo.policy, decided as Ironic decides.

The rules are evaluated for ``auth_strategy = keystone``, and for ``http_basic`` when
``[DEFAULT] http_basic_auth_personas_file`` gives its users personas. Otherwise (noauth, or
http_basic without personas) every request is the admin persona and, as in Ironic, no rule
is evaluated at all.

How a request on a node is decided (Ironic's order):

1. The node must be visible: ``baremetal:node:get`` against the node's owner and lessee.
   A node the requester may not see is a 404, exactly like a node that does not exist.
   Ports and portgroups are seen through their node (404 ``Port ... could not be found``).
2. Then the operation's own rule: refused is a 403 naming the rule.

Node fields that may reveal the infrastructure (``last_error``, ``reservation``,
``driver_internal_info``, ``driver_info``) are masked for whoever
``baremetal:node:get:filter_threshold`` does not allow, unless the field's own
``baremetal:node:get:<field>`` rule does (:class:`FieldMasks`).

Lists are never refused for a reader: ``baremetal:<kind>:list_all`` shows everything,
otherwise ``baremetal:<kind>:list`` shows what the requester's project owns or leases (the
caller filters its query by :meth:`Policy.list_project`).

The enforcer is built once per application; a check costs a dictionary build and the
evaluation of one parsed rule tree.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from oslo_config import cfg
from oslo_policy import policy as oslo_policy

from metalwire.api.auth.identity import Identity
from metalwire.api.auth.policy_rules import defaults
from metalwire.config import Config
from metalwire.errors import Invalid, NotFound, PolicyForbidden
from metalwire.wording import counted

LOG = logging.getLogger(__name__)
_DECISIONS_KEPT = 16384
# Tokens no rule of this API accepts: a refusal says why, as the rule name alone cannot.
_UNFIT_SCOPES = {"domain": "a domain-scoped token", "none": "an unscoped token"}

# What a node field reads when its baremetal:node:get:<field> rule does not allow: Ironic's
# values, which clients may recognise.
FIELD_MASKS: dict[str, Any] = {
    "last_error": "** Value Redacted - Requires baremetal:node:get:last_error permission. **",
    "reservation": "** Redacted - requires baremetal:node:get:reservation permission. **",
    "driver_internal_info": {
        "content": "** Redacted - Requires baremetal:node:get:driver_internal_info permission. **"
    },
    "driver_info": {
        "content": "** Redacted - requires baremetal:node:get:driver_info permission. **"
    },
}


def node_target(owner: str | None, lessee: str | None) -> dict[str, Any]:
    """A node's projects as the rules see them. A missing owner or lessee is no key at all,
    so that ``project_id:%(node.owner)s`` fails on it rather than comparing "None" with a
    token that has no project either."""
    target: dict[str, Any] = {}
    if owner:
        target["node.owner"] = owner
    if lessee:
        target["node.lessee"] = lessee
    return target


def _enforcer(config: Config) -> oslo_policy.Enforcer:
    # A configuration of its own, searching no directory: only the file the operator names.
    conf = cfg.ConfigOpts()
    conf([], project=None, default_config_files=[], default_config_dirs=[])
    policy_file = config.oslo_policy.policy_file
    if policy_file and not Path(policy_file).is_file():
        raise Invalid(f"[oslo_policy] policy_file {policy_file!r} does not exist")
    enforcer = oslo_policy.Enforcer(conf, policy_file=policy_file or None)
    conf.set_override("policy_dirs", [], "oslo_policy")
    conf.set_override(
        "enforce_new_defaults", config.oslo_policy.enforce_new_defaults, "oslo_policy"
    )
    enforcer.suppress_default_change_warnings = True
    enforcer.register_defaults(defaults())
    try:
        enforcer.load_rules()
    except Exception as exc:  # oslo.policy raises whatever its YAML or rule parser raised
        raise Invalid(f"[oslo_policy] policy_file {policy_file!r} cannot be used: {exc}") from None
    # A changed file is read again by Policy.reload (metalwire.reloading), which keeps the
    # rules in force when the new file is wrong; oslo.policy's own check would fail requests.
    enforcer.use_conf = False
    return enforcer


class Policy:
    """The configured rules; every method is a no-op when there are no personas to tell apart
    (noauth, or http_basic without a personas file)."""

    def __init__(self, config: Config) -> None:
        self.enabled = config.default.auth_strategy == "keystone" or bool(
            config.default.auth_strategy == "http_basic"
            and config.default.http_basic_auth_personas_file
        )
        self._service_project = (
            config.default.rbac_service_project_name
            if config.default.rbac_service_role_elevated_access
            else None
        )
        self._own_nodes = config.api.project_admin_can_manage_own_nodes
        self._config = config
        self._enforcer = _enforcer(config) if self.enabled else None
        # Decisions by (rule, identity, target): the same persona asks the same question of
        # the same node again and again on the VIF path. Only with the rules fixed at start:
        # a policy file may change under a running server.
        self._decisions: dict[tuple[Any, ...], bool] | None = (
            None if config.oslo_policy.policy_file else {}
        )

    def reload(self) -> str:
        """Read the policy file again; raises :class:`Invalid`, keeping the rules in force,
        if it cannot be used."""
        enforcer = _enforcer(self._config)
        self._enforcer = enforcer
        if self._decisions is not None:
            self._decisions = {}
        return f"{counted(len(enforcer.file_rules), 'rule')} overridden"

    # -- the checks --------------------------------------------------------------------------

    def credentials(self, identity: Identity) -> dict[str, Any]:
        """What the rules are evaluated against; Ironic's targets start as a copy of it."""
        creds: dict[str, Any] = {
            "user_id": identity.user_id,
            "roles": sorted(identity.roles),
            "system_scope": identity.system_scope,
            "service_roles": sorted(identity.service_roles),
            "is_public_api": False,
        }
        # As keystonemiddleware hands them to oslo.policy: domain_id is a domain-scoped
        # token's scope, which no rule of this API accepts. A value the token lacks is left
        # out, so that no rule can match a missing project against a missing owner.
        scoped = {
            "project_id": identity.project_id,
            "project_name": identity.project_name,
            "project_domain_id": identity.project_domain_id,
            "user_domain_id": identity.user_domain_id,
            "domain_id": identity.domain_id,
        }
        creds.update((key, value) for key, value in scoped.items() if value)
        if self._service_project is not None:
            creds["config.service_project_name"] = self._service_project
        return creds

    def allows(
        self, rule: str, identity: Identity, target: Mapping[str, Any] | None = None
    ) -> bool:
        if self._enforcer is None:
            return True
        key = (rule, identity, *(target or {}).items())
        if self._decisions is not None:
            known = self._decisions.get(key)
            if known is not None:
                return known
        creds = self.credentials(identity)
        full = {**creds, **(target or {})}
        decision = bool(self._enforcer.enforce(rule, full, creds))
        if self._decisions is not None:
            if len(self._decisions) >= _DECISIONS_KEPT:
                self._decisions.clear()
            self._decisions[key] = decision
        return decision

    def authorize(
        self, rule: str, identity: Identity, target: Mapping[str, Any] | None = None
    ) -> None:
        """Raises :class:`PolicyForbidden` (403) naming ``rule`` when it does not allow."""
        if not self.allows(rule, identity, target):
            LOG.info(
                "policy %s refused user %s (%s scope) project %s",
                rule,
                identity.user_id,
                identity.scope,
                identity.project_id or "-",
            )
            message = f"Access was denied to the following resource: {rule}"
            unfit = _UNFIT_SCOPES.get(identity.scope)
            if unfit:
                message += f" ({unfit}: this API accepts project- or system-scoped tokens)"
            raise PolicyForbidden(message)

    def authorize_node(
        self,
        rules: str | Iterable[str],
        identity: Identity,
        owner: str | None,
        lessee: str | None,
        hidden: NotFound,
    ) -> None:
        """Check that the node is visible (else raise ``hidden``), then each of ``rules``."""
        if self._enforcer is None:
            return
        target = node_target(owner, lessee)
        if not self.allows("baremetal:node:get", identity, target):
            raise hidden
        for rule in [rules] if isinstance(rules, str) else rules:
            self.authorize(rule, identity, target)

    def authorize_through_node(
        self, rule: str, identity: Identity, owner: str | None, lessee: str | None, hidden: NotFound
    ) -> None:
        """A port's or portgroup's rule: seen through its node, then ``rule``."""
        if self._enforcer is None:
            return
        target = node_target(owner, lessee)
        if not self.allows("baremetal:node:get", identity, target):
            raise hidden
        self.authorize(rule, identity, target)

    def authorize_delete_node(
        self, identity: Identity, owner: str | None, lessee: str | None, hidden: NotFound
    ) -> None:
        """``baremetal:node:delete``, or a project admin's own node when
        ``[api] project_admin_can_manage_own_nodes``."""
        try:
            self.authorize_node("baremetal:node:delete", identity, owner, lessee, hidden)
        except PolicyForbidden:
            if not self._own_nodes:
                raise
            self.authorize_node(
                "baremetal:node:delete:self_owned_node", identity, owner, lessee, hidden
            )

    def sees_node(self, identity: Identity, owner: str | None, lessee: str | None) -> bool:
        """``baremetal:node:get`` on a node of these projects."""
        return self.allows("baremetal:node:get", identity, node_target(owner, lessee))

    def field_masks(self, identity: Identity) -> FieldMasks | None:
        """The masks of node fields for this requester, or None when it sees every field
        (the policy off, or ``baremetal:node:get:filter_threshold`` allows): decided once
        per request, as Ironic does for its lists."""
        if self._enforcer is None or self.allows("baremetal:node:get:filter_threshold", identity):
            return None
        return FieldMasks(self, identity)

    def list_project(self, kind: str, identity: Identity) -> str | None:
        """The project a list of ``kind`` is filtered to, or None for everything.

        Raises :class:`PolicyForbidden` when neither ``list_all`` nor ``list`` allows.
        """
        if self._enforcer is None or self.allows(f"baremetal:{kind}:list_all", identity):
            return None
        if not identity.project_id:
            self.authorize(f"baremetal:{kind}:list_all", identity)
        self.authorize(f"baremetal:{kind}:list", identity)
        return identity.project_id


class FieldMasks:
    """The node fields one requester sees masked, by the ``baremetal:node:get:<field>``
    rules; decided once per (owner, lessee) pair of a request."""

    def __init__(self, policy: Policy, identity: Identity) -> None:
        self._policy = policy
        self._identity = identity
        self._by_projects: dict[tuple[str | None, str | None], dict[str, Any]] = {}

    def masked(self, owner: str | None, lessee: str | None) -> dict[str, Any]:
        """The masked fields of a node of these projects, with the value each reads."""
        key = (owner, lessee)
        found = self._by_projects.get(key)
        if found is None:
            target = node_target(owner, lessee)
            found = {
                name: mask
                for name, mask in FIELD_MASKS.items()
                if not self._policy.allows(f"baremetal:node:get:{name}", self._identity, target)
            }
            self._by_projects[key] = found
        return found


def reference() -> str:
    """The default rules as a policy file an operator may start from (YAML)."""
    lines = [
        "# metalwire's default policy: Ironic's rule names and secure-RBAC check strings.",
        "# Copy the rules to change, uncommented, into the file [oslo_policy] policy_file names.",
        "",
    ]
    for rule in defaults():
        lines.append(f"# {rule.description}")
        for operation in getattr(rule, "operations", None) or []:
            lines.append(f"# {operation['method']} {operation['path']}")
        scopes: list[str] = rule.scope_types or []
        if scopes:
            lines.append(f"# Intended scope(s): {', '.join(scopes)}")
        old = getattr(rule, "deprecated_rule", None)
        if old is not None:
            lines.append(f'# Deprecated default: "{old.name}": "{old.check_str}"')
        lines.append(f'#"{rule.name}": "{rule.check_str}"')
        lines.append("")
    return "\n".join(lines)
