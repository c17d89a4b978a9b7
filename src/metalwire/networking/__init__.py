"""Network interfaces: the contract (base.py), port selection, and the noop/flat/neutron drivers."""
