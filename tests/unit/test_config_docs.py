"""docs/operators.md carries the configuration reference generated from metalwire.config."""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path
from types import ModuleType

from metalwire.config import SECTIONS, env_name

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gen_config_docs.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_config_docs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_operators_guide_is_up_to_date() -> None:
    gen = _generator()
    current = gen.TARGET.read_text()
    assert gen.updated(current) == current, (
        "docs/operators.md is out of date with metalwire.config: run scripts/gen-config-docs"
    )


def test_reference_names_every_option() -> None:
    text = _generator().render()
    for section, cls in SECTIONS.items():
        assert f"### [{section}]" in text
        for fld in dataclasses.fields(cls):
            assert f"| `{fld.name}` |" in text
            assert f"`{env_name(section, fld.name)}`" in text
            assert fld.metadata["help"] in text
