"""The one tiering state machine of native code.

Every native tier (a program's, a loop's, a row loop's: loop.py's
NativeLoop; the threefry kernel: threefry.py) goes through the same states:

    COLD --start()--> BUILDING --build ok--> BUILT --checked call agrees--> LIVE
                          |                    |                              |
                          +----- failure ------+------ any difference --------+--> DEAD

`start()` builds once, on a background thread (two threads reaching the
threshold together start one build); with `PYJAX_NATIVE_LOOPS_AFTER=0` the
caller waits for it, but never longer than `settings.FIRST_CALL_WAIT_S` (a
hung compiler): the Python code serves meanwhile. A tier whose build
verifies it completely (the threefry kernel, integer arithmetic checked on
test words) goes from BUILDING straight to LIVE. `drop(why)` is final; the
reason is kept in `failure` and logged. A live tier is re-checked on calls
2, 4, 8, ... (`Rechecks`).

Messages go to the `pyjax._src.backends.numpy.native` logger: a warning
under jax_log_compiles, else debug.
"""

from __future__ import annotations

import logging
import threading
import time

from pyjax._src import config
from pyjax._src.backends.numpy.native import settings

__all__ = ["BUILDING", "BUILT", "COLD", "DEAD", "LIVE", "Rechecks", "Tiering"]

logger = logging.getLogger("pyjax._src.backends.numpy.native")

COLD, BUILDING, BUILT, LIVE, DEAD = range(5)
_start_lock = threading.Lock()

# Re-checks of a live tier: calls 2, 4, 8, ... (the checked call is call 1).
FIRST_RECHECK = 2


def log(message: str, loud: bool | None = None) -> None:
    """As jit's stage timers: a warning under jax_log_compiles (read on the
    calling thread when `loud` is None), else debug."""
    level = logging.WARNING if (config.log_compiles.value if loud is None else loud) else logging.DEBUG
    if logger.isEnabledFor(level):
        logger.log(level, message)


class Rechecks:
    """The re-check schedule of a live tier: `due()` on calls 2, 4, 8, ..."""

    __slots__ = ("calls", "next_check")

    def __init__(self, calls: int = 1):
        # (`calls`: the calls made so far; a loop's checked call is its first.)
        self.calls, self.next_check = calls, FIRST_RECHECK

    def due(self) -> bool:
        self.calls += 1
        if self.calls < self.next_check:
            return False
        self.next_check *= 2
        return True


class Tiering:
    """A native tier's state (the module docstring). Subclasses define
    `build()` (on the build thread: raises on failure) and may override
    `prepare()` (on the starting thread, before the build), `built(seconds,
    loud)` and `dropped()`."""

    verified_by_build = False  # a build that checks everything goes live at once
    thread_name = "pyjax-native"

    def __init__(self, kind: str):
        self.kind = kind
        self.state = COLD
        self.failure: str | None = None
        self._thread: threading.Thread | None = None

    @property
    def live(self) -> bool:
        return self.state == LIVE

    @property
    def dead(self) -> bool:
        return self.state == DEAD

    def start(self, wait: bool = False) -> None:
        """Starts the build, once; with `wait`, waits for it a while."""
        with _start_lock:  # two threads may reach the threshold together: one build
            if self.state == COLD:
                why = self.prepare()
                if why is not None:
                    self.state, self.failure = DEAD, why
                    return
                self.state = BUILDING
                loud = config.log_compiles.value  # the build thread does not see this thread's config
                self._thread = threading.Thread(target=self._build_thread, args=(loud,), name=self.thread_name,
                                                daemon=True)
                self._thread.start()
        if wait and self._thread is not None:
            self._thread.join(settings._FIRST_CALL_WAIT_S)

    def prepare(self) -> str | None:
        """Before the build, on the starting thread: a reason the tier cannot
        be built (it is then dead at once), or None."""
        return None

    def build(self) -> None:
        raise NotImplementedError

    def built(self, seconds: float, loud: bool) -> None:
        """After a successful build (for its log line)."""

    def dropped(self) -> None:
        """After `drop` (a tier that compiled code holds makes itself inert)."""

    def _build_thread(self, loud: bool) -> None:
        start = time.perf_counter()
        try:
            self.build()
        except Exception as e:  # noqa: BLE001  (the Python code stays; the reason is kept)
            self.drop(str(e), loud)
            return
        if self.state == BUILDING:
            self.state = LIVE if self.verified_by_build else BUILT
        self.built(time.perf_counter() - start, loud)

    def go_live(self) -> None:
        """The checked call agreed: the tier is used from now on."""
        self.state = LIVE
        log(f"Native {self.kind} live: its outputs matched the Python code's bitwise")

    def drop(self, why: str, loud: bool | None = None) -> None:
        """Drops the tier for good: the Python code stays."""
        self.state, self.failure = DEAD, why
        self.dropped()
        log(f"Native {self.kind} dropped: {why}", loud)
