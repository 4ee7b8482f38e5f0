"""Progress of a command's stages on stderr: a tqdm bar with elapsed time and ETA on a
terminal, one plain line per finished stage otherwise (logs, pipes, CI).

Examples
--------
>>> import io
>>> from gblas.commands.progress import Stages
>>> out = io.StringIO()
>>> with Stages("gblas run", ["read", "bfs"], stream=out) as st:
...     with st.stage("read"):
...         pass
>>> out.getvalue().startswith("gblas run: read")
True
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from typing import TextIO

__all__ = ["Stages"]


class Stages:
    """Report the stages of one command.

    Parameters
    ----------
    command : str
        What runs (``"gblas run"``), the bar's label.
    stages : sequence of str
        The stages in order (the bar's total).
    enabled : bool, default True
        False: report nothing.
    stream : file, optional
        Where to write (default ``sys.stderr``); a bar only where it is a terminal.
    """

    def __init__(self, command: str, stages: Sequence[str], *, enabled: bool = True,
                 stream: TextIO | None = None) -> None:
        self.command = command
        self.stages = list(stages)
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.times: dict[str, float] = {}
        self._bar = None

    def __enter__(self) -> Stages:
        if self.enabled and self.tty:
            from tqdm import tqdm

            self._bar = tqdm(total=len(self.stages), desc=self.command, unit="stage",
                             file=self.stream, leave=True, dynamic_ncols=True,
                             bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/"
                                        "{total_fmt} [{elapsed}<{remaining}] {postfix}")
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the stage ``name``; the bar shows it while it runs (its clock ticking)."""
        t0 = time.perf_counter()
        stop = threading.Event()
        ticker = None
        if self._bar is not None:
            self._bar.set_postfix_str(name)
            ticker = threading.Thread(target=self._tick, args=(stop,), daemon=True)
            ticker.start()
        try:
            yield
        finally:
            stop.set()
            if ticker is not None:
                ticker.join()
        # reported only when the stage ends without an error
        dt = time.perf_counter() - t0
        self.times[name] = dt
        if self._bar is not None:
            self._bar.set_postfix_str(f"{name} {dt:.2f} s")
            self._bar.update(1)
        elif self.enabled:
            print(f"{self.command}: {name}: {dt:.3f} s", file=self.stream, flush=True)

    def _tick(self, stop: threading.Event) -> None:
        """Refresh the bar twice a second while a long stage runs (elapsed time moves)."""
        while not stop.wait(0.5):
            bar = self._bar
            if bar is None:
                return
            bar.refresh()
