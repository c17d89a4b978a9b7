"""The switch interface names (``local_link_connection.port_id``) metalwire sends a switch.

A port's ``port_id`` goes into the commands networking-generic-switch's device classes send
(``ovs-vsctl set port {port} ...`` and the like, run by the switch's shell), so wherever
metalwire programs a switch itself (the ``ironic-networking`` interface) a ``port_id`` must be
letters, digits and ``_.:/-`` only: every real interface name (``Ethernet1/1``, ``swp1``,
``GigabitEthernet0/0/1``, ``xe-0/0/1:2``, ``1/1/1``, ``Eth1/1.100``, ``port-channel10``), and no
blank, quote, ``;``, ``|``, ``$`` or anything else a shell or a switch CLI reads as more than
one name. Ironic itself only asks for a non-blank string; Neutron's ML2 driver takes the name
on the other interfaces, where metalwire does not check it.
"""

from __future__ import annotations

import re

__all__ = ["PORT_ID", "PORT_ID_CHARACTERS", "port_id_problem"]

#: What a switch interface name may be.
PORT_ID = re.compile(r"[A-Za-z0-9_.:/-]+")
#: The characters :data:`PORT_ID` allows, as messages name them.
PORT_ID_CHARACTERS = "letters, digits and _.:/- only"
_MAX_SHOWN = 80


def port_id_problem(port_id: object) -> str | None:
    """Why ``port_id`` cannot be sent to a switch (None: it can)."""
    if isinstance(port_id, str) and PORT_ID.fullmatch(port_id):
        return None
    shown = repr(port_id)
    if len(shown) > _MAX_SHOWN:
        shown = shown[: _MAX_SHOWN - 3] + "..."
    return f"port_id {shown} is not a switch interface name: it may hold {PORT_ID_CHARACTERS}"
