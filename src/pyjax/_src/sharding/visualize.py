"""Drawing a sharding in the terminal (jax.debug.visualize_sharding), with `rich`.

Each device's block of a 1-D or 2-D array is a cell of a table, sized in
proportion to the block (10 lines for the whole height, 2.5 columns per
line of width), labelled with the devices holding it ("CPU 0,1"). Without
a color terminal the cells are drawn with box lines, as JAX draws them.
"""

from __future__ import annotations

import importlib.util
from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src import core


def _as_slice(index) -> slice:
    return slice(index, index + 1) if isinstance(index, int) else index


def _block_number(size: int, index: slice) -> int:
    # Which block along a dimension a slice is (0 for the whole dimension).
    if index.start is None and index.stop is None:
        return 0
    return index.start // (index.stop - index.start)


def _hex(color) -> str:
    if isinstance(color, str):
        return color
    return "#" + "".join(f"{int(c * 255):02X}" for c in color[:3])


def _ink_for(background: str) -> str:
    r, g, b = (int(background[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if r * 0.299 + g * 0.587 + b * 0.114 > 186 else "#ffffff"


def _colors(color_map, count: int):
    # Colors spread over the map, alternating halves so neighbours differ.
    values = np.linspace(0, 1, count)
    k = 0
    for _ in range(count):
        yield color_map(values[k])
        k = (k + count // 2 + (count % 2 == 0)) % count


def visualize_sharding(shape: Sequence[int], sharding: Any, *, use_color: bool = True, scale: float = 1.0,
                       min_width: int = 9, max_width: int = 80, color_map: Callable | None = None) -> None:
    """Draws how `sharding` lays out an array of `shape` (1-D or 2-D) over its devices."""
    if importlib.util.find_spec("rich") is None:
        raise ValueError("`visualize_sharding` requires `rich` to be installed.")
    import rich.align
    import rich.box
    import rich.console
    import rich.padding
    import rich.style
    import rich.table

    shape = tuple(shape)
    if not 1 <= len(shape) <= 2:
        raise ValueError("`visualize_sharding` only works for shapes with 1 and 2 dimensions.")
    console = rich.console.Console(width=max_width)
    use_color = use_color and console.color_system is not None
    if use_color and color_map is None:
        try:
            import matplotlib

            color_map = matplotlib.colormaps["tab20b"]
        except ModuleNotFoundError:
            use_color = False
    full_height = int(10 * scale)
    full_width = int(full_height * ((shape[1] if len(shape) == 2 else 1) / shape[0]))
    kind = next(iter(sharding.device_set)).platform.upper()

    holders: dict = {}
    sizes: dict = {}
    for device, index in sharding.devices_indices_map(shape).items():
        index = tuple(map(_as_slice, index))
        if len(index) == 2:
            cell = tuple(_block_number(n, s) for n, s in zip(shape, index))
            rows, cols = index
            h = ((rows.stop - rows.start) if rows.stop is not None else shape[0]) / shape[0]
            w = ((cols.stop - cols.start) if cols.stop is not None else shape[1]) / shape[1]
        else:
            (cols,) = index
            cell = (0, _block_number(shape[0], cols))
            h = None  # one line high
            w = ((cols.stop - cols.start) if cols.stop is not None else shape[0]) / shape[0]
        sizes[cell] = (h, w)
        holders.setdefault(cell, set()).add(device.id)
    n_rows = max(r for r, _ in holders) + 1
    n_cols = max(c for _, c in holders) + 1

    colors = _colors(color_map, n_rows * n_cols) if use_color else None
    table = rich.table.Table(show_header=False, show_lines=not use_color, padding=0, highlight=not use_color,
                             pad_edge=False, box=None if use_color else rich.box.SQUARE)
    for r in range(n_rows):
        row = []
        for c in range(n_cols):
            label = f"{kind} " + ",".join(str(i) for i in sorted(holders[r, c]))
            h, w = sizes[r, c]
            width = min(max(int(w * full_width * 2.5), min_width), max_width)
            height = 1 if h is None else int(h * full_height)
            left, extra = divmod(width - len(label) - 2, 2)
            right = left + extra
            top, extra = divmod(height - 2, 2)
            bottom = top + extra
            background = ink = None
            if use_color:
                background = _hex(next(colors))
                ink = _ink_for(background)
                top, bottom, left, right = top + 1, bottom + 1, left + 1, right + 1
            pad = (max(top, 0), max(right, 0), max(bottom, 0), max(left, 0))
            row.append(rich.padding.Padding(rich.align.Align(label, "center", vertical="middle"), pad,
                                            style=rich.style.Style(bgcolor=background, color=ink)))
        table.add_row(*row)
    console.print(table, end="\n\n")


def visualize_array_sharding(arr: Any, **kwargs) -> None:
    """Draws how the (1-D or 2-D) array `arr` is laid out over its devices."""
    inspect_array_sharding(arr, callback=lambda s: visualize_sharding(np.shape(arr) if not hasattr(arr, "aval")
                                                                      else arr.aval.shape, s, **kwargs))


def inspect_array_sharding(value: Any, *, callback: Callable[[Any], None]) -> None:
    """Calls `callback` with the sharding of each array of `value` (under a
    trace, the sharding its type names)."""
    from pyjax._src.sharding.sharded_array import result_sharding
    from pyjax._src.tree_util import tree_leaves

    for x in tree_leaves(value):
        if isinstance(x, core.Tracer):
            sharding = result_sharding(x.aval, ())
            if sharding is None:
                from pyjax._src.array import _DEFAULT_SHARDING

                sharding = _DEFAULT_SHARDING
            callback(sharding)
        else:
            callback(x.sharding)
