"""How a case of a case set (cases_*.py) is run, under JAX when recording
and under pyjax when testing: its expression evaluated in the set's
namespace, recorded as its text or as the class and message it raised."""

from __future__ import annotations


def run_case(namespace: dict, expr: str) -> dict:
    """The record of one case: its text, or the class and message it raised."""
    try:
        return {"expr": expr, "text": str(eval(expr, namespace))}
    except Exception as e:  # noqa: BLE001  (the refusals are recorded too)
        return {"expr": expr, "error": type(e).__name__, "message": str(e)}


def run_case_first_line(namespace: dict, expr: str) -> dict:
    """As run_case, keeping only the first line of a raised message."""
    record = run_case(namespace, expr)
    if "message" in record:
        record["message"] = record["message"].splitlines()[0] if record["message"] else ""
    return record
