"""The conductor: node locks, the RPC API the REST layer calls, and the manager behind it."""
