"""Client commands of the ``metalwire`` program, following the ``baremetal`` command.

    metalwire node create|list|show|set|unset|delete      node.py
    metalwire node manage|provide|deploy|undeploy|rebuild|clean|service|inspect|rescue|
                   unrescue|abort|unhold NODE             node.py
    metalwire node maintenance set|unset NODE...          node.py
    metalwire node vif list|attach|detach                 vif.py
    metalwire node trait list|add|remove                  trait.py
    metalwire node power on|off, reboot, boot device|mode, secure boot, inject nmi,
                   console enable|disable|show            power.py
    metalwire node validate, history list|show            history.py
    metalwire port create|list|show|set|unset|delete      port.py
    metalwire portgroup create|list|show|set|unset|delete portgroup.py
    metalwire chassis create|list|show|set|unset|delete   chassis.py
    metalwire allocation create|list|show|set|unset|delete allocation.py
    metalwire deploy template create|list|show|set|unset|delete  named_steps.py
    metalwire runbook create|list|show|set|unset|delete   named_steps.py
    metalwire runbook trait list|add|remove               trait.py
    metalwire volume connector|target create|list|show|set|unset|delete  volume.py
    metalwire create FILE...                              create.py
    metalwire audit [--node N] [--repair] [--latest]      audit.py
    metalwire conductor list|show, driver list|show|property list|raid property list
                                                          conductor.py
    metalwire node inventory save|children list, shard list  inventory.py

What they share (connection options, argument types, printing) is in common.py; logging in
(``--os-*``, ``OS_*``, clouds.yaml) is in ../login.py. The endpoint comes from ``--url``,
else ``METALWIRE_URL``, else ``OS_ENDPOINT``, else the catalog when logging in, else
http://127.0.0.1:6385. Exit status: 0 on success, 1 when the server or the connection
failed (the server's message is on stderr), 2 for a usage error.

These modules use only the client library (:mod:`metalwire.client`) and never import the
server side, so that a client command starts quickly.
"""

from __future__ import annotations

from typing import Any

from metalwire.cli.commands import (
    allocation,
    audit,
    chassis,
    conductor,
    create,
    inventory,
    named_steps,
    node,
    port,
    portgroup,
    volume,
)
from metalwire.cli.commands.common import connection_parser


def register(commands: Any) -> None:
    """Add the client commands to the ``metalwire`` program's subcommands."""
    common = connection_parser()
    node.register(commands, common)
    port.register(commands, common)
    portgroup.register(commands, common)
    chassis.register(commands, common)
    allocation.register(commands, common)
    named_steps.register(commands, common)
    volume.register(commands, common)
    create.register(commands, common)
    audit.register(commands, common)
    conductor.register(commands, common)
    inventory.register(commands, common)
