"""Persistence: tables, the engine, migrations and one repository per noun."""
