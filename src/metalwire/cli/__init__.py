"""The ``metalwire`` command: the server (serve, db upgrade) and the client commands."""
