"""placeholder"""


def register(prims: dict) -> None:
    pass
