"""The newest API microversion metalwire serves: its one declaration.

The server negotiates up to it (``api/microversion.py``), the Python client's latest version
is it (``client/versions.py``, which may not import the server's packages), and the topology
page reads it from ``GET /v1/``.

Versions that change only what metalwire does not serve are served as 404s at every version:
node inventory (1.81), continue_inspection (1.84), inspection rules (1.96).
1.110's abort in ``wait call-back`` changes nothing: the fake deploy never waits. 1.80's
self-service node creation is [api] project_admin_can_manage_own_nodes. Not emulated: 1.90's
OVN VTEP keys of local_link_connection (400); below 1.90 and from 1.105, which removed them,
they are 406 as in Ironic (``api/validation.py``).
"""

from __future__ import annotations

MAX_MINOR = 115
