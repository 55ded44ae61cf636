"""Shared fixtures: where the lcfr program and the shipped model are (scripts/test.sh sets
LCFR_BUILD_DIR; by default the checkout's build/)."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def lcfr_bin():
    path = pathlib.Path(os.environ.get("LCFR_BUILD_DIR", ROOT / "build")) / "apps" / "lcfr"
    if not path.exists():
        pytest.fail(f"{path} is missing: build the project first (scripts/test.sh does)")
    return str(path)


@pytest.fixture(scope="session")
def shipped_model():
    return str(ROOT / "models" / "lost-cities.pt")
