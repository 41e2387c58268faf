"""The sorting primitive family (being written; see the primitive-set issue)."""

__all__: list[str] = []
