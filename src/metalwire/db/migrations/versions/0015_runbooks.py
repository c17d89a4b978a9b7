"""Runbooks (``/v1/runbooks``, API 1.92, and 1.112's traits and description): a table of
their own.

One row per runbook: its UUID and name (each unique), its clean or service steps as one
JSON list kept in the order given, the node traits that approve it as one JSON list, its
description, whether it runs without a ramdisk, its owner project or whether it is public,
and its ``extra``. Nothing stored before is changed; the downgrade drops the table.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"


def upgrade() -> None:
    op.create_table(
        "runbooks",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False, unique=True),
        sa.Column("name", sa.String(255), nullable=False, unique=True),
        sa.Column("description", sa.String(255), nullable=True),
        sa.Column("steps", sa.JSON(), nullable=False),
        sa.Column("traits", sa.JSON(), nullable=False),
        sa.Column("disable_ramdisk", sa.Boolean(), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("owner", sa.String(255), nullable=True),
        sa.Column("extra", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("runbooks")
