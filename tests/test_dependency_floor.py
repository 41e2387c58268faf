"""The dependency floor pyproject declares is the one CI installs and tests."""

import pathlib
import re

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _pyproject_floor(package: str) -> str:
    text = (ROOT / "pyproject.toml").read_text()
    match = re.search(rf'"{package}>=([0-9.]+)"', text)
    assert match, f"pyproject.toml declares no floor for {package}"
    return match.group(1)


def _ci_pin(package: str) -> str:
    for line in (ROOT / ".ci" / "floor-constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line.startswith(f"{package}=="):
            return line.split("==")[1]
    raise AssertionError(f".ci/floor-constraints.txt pins no {package}")


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def test_numpy_floor_is_the_version_ci_tests():
    floor, pinned = _pyproject_floor("numpy"), _ci_pin("numpy")
    assert _release(pinned)[:len(_release(floor))] == _release(floor), (floor, pinned)
    assert "floor-constraints.txt" in (ROOT / ".ci" / "run").read_text()


def test_running_numpy_meets_the_floor():
    assert _release(np.__version__) >= _release(_pyproject_floor("numpy"))
