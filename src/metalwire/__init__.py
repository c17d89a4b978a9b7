"""metalwire: wires bare-metal machines to networks through an Ironic-compatible API."""

__version__ = "0.1.0"
