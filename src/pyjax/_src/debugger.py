"""`jax.debug.breakpoint`: an interactive debugger on a program's concrete values.

At the call, the user's stack frames (pyjax's own filtered out) are captured
with their local variables; the array-valued locals (Arrays, tracers) become
the operands of a `debug_callback`, so under jit, vmap or autodiff the
debugger opens when the program runs, on the values the locals have then.
The other locals are kept as they were. The default debugger is `jdb`, a
small command line in JAX's style (``p``, ``pp``, ``up``, ``down``,
``list``, ``where``, ``continue``, ``quit``, or any expression); other
debuggers may be registered under a name (`register_debugger`).
"""

from __future__ import annotations

import cmd
import dataclasses
import inspect
import linecache
import pprint
import sys
import threading
import traceback
from typing import Any, Callable

from pyjax._src import debugging
from pyjax._src.interpreters import staging

__all__ = ["CliDebugger", "DebuggerFrame", "breakpoint", "register_debugger"]


@dataclasses.dataclass
class DebuggerFrame:
    """One user frame as the debugger shows it: where it is and its locals
    (with the concrete values they had when the breakpoint was reached)."""

    filename: str
    lineno: int
    function: str
    locals: dict
    globals: dict
    source: list = dataclasses.field(default_factory=list)  # the enclosing block's lines
    offset: int | None = None  # the current line's index in `source`


def _source_of(frame) -> tuple[list, int | None]:
    # The lines of the function (or module) the frame runs, and the current
    # line's index among them; none when the source cannot be found.
    try:
        _, start = inspect.getsourcelines(frame)
        source = inspect.getsource(frame).split("\n")
    except (OSError, TypeError):
        return [], None
    offset = frame.f_lineno - max(start, 1)
    return (source, offset) if 0 <= offset < len(source) else ([], None)


def _user_frames(filter_frames: bool, num_frames: int | None) -> list[DebuggerFrame]:
    frames = []
    frame = sys._getframe(2)  # (the caller of breakpoint)
    while frame is not None:
        code = frame.f_code
        if not (filter_frames and code.co_filename.startswith(staging._excluded_paths[0])):
            frames.append(DebuggerFrame(code.co_filename, frame.f_lineno, code.co_name,
                                        dict(frame.f_locals), frame.f_globals, *_source_of(frame)))
        frame = frame.f_back
    return frames[:num_frames] if num_frames is not None else frames


class CliDebugger(cmd.Cmd):
    """jdb: the command-line debugger `jax.debug.breakpoint` opens.

    Frames are innermost first; ``up`` moves toward the caller. Any line that
    is not a command is evaluated in the current frame and its repr printed.
    """

    prompt = "(jdb) "

    def __init__(self, frames: list[DebuggerFrame], stdin=None, stdout=None):
        super().__init__(stdin=stdin, stdout=stdout)
        self.use_rawinput = stdin is None
        self.frames, self.frame_index = frames, 0
        self.intro = "Entering jdb:"

    def current_frame(self) -> DebuggerFrame:
        """The frame commands read."""
        return self.frames[self.frame_index]

    def evaluate(self, expr: str) -> Any:
        """`expr` evaluated with the current frame's globals and locals."""
        frame = self.current_frame()
        return eval(expr, frame.globals, frame.locals)  # noqa: S307  (the user's own debugger input)

    def _show(self, render: Callable[[Any], str], expr: str) -> None:
        try:
            print(render(self.evaluate(expr)), file=self.stdout)
        except Exception:  # noqa: BLE001  (any error in the user's expression is shown, as pdb does)
            kind, value = sys.exc_info()[:2]
            print("***", traceback.format_exception_only(kind, value)[-1].strip(), file=self.stdout)

    def default(self, line: str) -> None:
        self._show(repr, line)

    def do_p(self, arg: str) -> None:
        """p expression: evaluates and prints the value of an expression."""
        self._show(repr, arg)

    def do_pp(self, arg: str) -> None:
        """pp expression: evaluates and pretty-prints the value of an expression."""
        self._show(pprint.pformat, arg)

    def print_context(self, num_lines: int = 2) -> None:
        """Prints the current frame's block around its current line (JAX's
        window: one more line before than after)."""
        frame = self.current_frame()
        lines = [f"> {frame.filename}({frame.lineno})"]
        if frame.offset is not None:
            for i, text in enumerate(frame.source):
                if frame.offset - 1 - num_lines <= i <= frame.offset + num_lines:
                    lines.append(("->  " if i == frame.offset else "    ") + text)
        print("\n".join(lines), file=self.stdout)

    def do_up(self, arg: str) -> None:
        """u(p): moves to the frame of the caller."""
        if self.frame_index == len(self.frames) - 1:
            print("At topmost frame.", file=self.stdout)
        else:
            self.frame_index += 1
        self.print_context()

    def do_down(self, arg: str) -> None:
        """d(own): moves to the frame called from the current one."""
        if self.frame_index == 0:
            print("At bottommost frame.", file=self.stdout)
        else:
            self.frame_index -= 1
        self.print_context()

    def do_list(self, arg: str) -> None:
        """l(ist): shows the source around the current line."""
        self.print_context(num_lines=5)

    def do_where(self, arg: str) -> None:
        """w(here), bt: prints the backtrace, innermost frame last."""
        lines = ["Traceback:"]
        for frame in reversed(self.frames):
            lines.append(f'  File "{frame.filename}", line {frame.lineno}')
            lines.append("    " + (linecache.getline(frame.filename, frame.lineno).strip() or "<no source>"))
        print("\n".join(lines), file=self.stdout)

    def do_continue(self, arg: str) -> bool:
        """c(ont(inue)): leaves the debugger; the program goes on."""
        return True

    def do_quit(self, arg: str) -> bool:
        """q(uit), exit: leaves the debugger and stops the program."""
        sys.exit(0)

    do_u, do_d, do_l, do_w, do_bt = do_up, do_down, do_list, do_where, do_where
    do_c = do_cont = do_continue
    do_q = do_exit = do_quit
    do_EOF = do_continue

    def run(self) -> None:
        """Reads commands until one leaves the debugger."""
        while True:
            try:
                self.cmdloop()
                return
            except KeyboardInterrupt:
                print("--KeyboardInterrupt--", file=self.stdout)


def _run_cli(frames: list[DebuggerFrame], **kwargs: Any) -> None:
    CliDebugger(frames, stdin=kwargs.get("stdin"), stdout=kwargs.get("stdout")).run()


# name -> (priority, run(frames, **kwargs)); the highest priority is the default.
_debuggers: dict[str, tuple[int, Callable[..., None]]] = {"cli": (-1, _run_cli)}
_lock = threading.Lock()  # one debugger session at a time


def register_debugger(name: str, run: Callable[..., None], priority: int) -> None:
    """Makes `run(frames, **kwargs)` a debugger `breakpoint(backend=name)` can
    open; the one of highest priority opens when no backend is named."""
    _debuggers[name] = (priority, run)


def _get_debugger(backend: str | None) -> Callable[..., None]:
    if backend is not None:
        if backend not in _debuggers:
            raise ValueError(f"Debugger backend {backend!r} is not registered.")
        return _debuggers[backend][1]
    return max(_debuggers.values(), key=lambda entry: entry[0])[1]


def breakpoint(*, backend: str | None = None, filter_frames: bool = True, num_frames: int | None = None,
               ordered: bool = False, token: Any = None, **kwargs: Any) -> Any:  # noqa: A001
    """Enters an interactive debugger at this point of the program.

    Eagerly the debugger opens at once; under :func:`jax.jit` each time the
    compiled program reaches this point; under :func:`jax.vmap` once per
    example. Its frames hold the caller's locals with their concrete values.

    Args:
      backend: the registered debugger to open (default: the CLI debugger, jdb).
      filter_frames: leave out pyjax's own frames.
      num_frames: how many frames (innermost first) the debugger may show.
      ordered: run in program order with the other ordered effects.
      token: a pytree of arrays returned unchanged; the breakpoint runs once
        it is computed (an alternative to ``ordered``).
      **kwargs: passed to the debugger (the CLI debugger takes ``stdin`` and
        ``stdout``).

    Returns:
      ``token`` when given, else None.
    """
    if token is not None and ordered:
        raise ValueError("`ordered` and `token` are mutually exclusive arguments.")
    frames = _user_frames(filter_frames, num_frames)
    names = [list(frame.locals) for frame in frames]
    values = [[frame.locals[n] for n in frame_names] for frame, frame_names in zip(frames, names, strict=True)]

    def _breakpoint_callback(values_now, token_now):
        live = [dataclasses.replace(frame, locals=dict(zip(frame_names, vals, strict=True)))
                for frame, frame_names, vals in zip(frames, names, values_now, strict=True)]
        with _lock:
            _get_debugger(backend)(live, **kwargs)

    debugging.debug_callback(_breakpoint_callback, values, token, ordered=ordered)
    return token

