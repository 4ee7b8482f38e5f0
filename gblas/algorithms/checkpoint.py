"""Callbacks and checkpoints of the iterative algorithms.

``pagerank``, ``label_propagation`` and ``collaborative_filtering`` take
``callback=`` and ``resume=``.  The callback is called after every iteration with an
:class:`IterationState` (the iteration count, the change it measured, whether it has
converged); returning ``False`` stops the run, which returns its current result.
``state.checkpoint()`` copies what the run needs to go on into a :class:`Checkpoint`
(``save`` / ``load`` keep it in a ``.npz`` file); passing it as ``resume=`` to the same
algorithm with the same graph and arguments continues from that iteration, and the
result is the one an uninterrupted run gives (bitwise on the CPU, where the products run
in the same formats).

Examples
--------
>>> import gblas as gb
>>> A = gb.Matrix.from_coo([0, 1, 2, 2], [1, 2, 0, 1], shape=(3, 3))
>>> saved = []
>>> def stop_at_5(state):
...     if state.iteration == 5:
...         saved.append(state.checkpoint())
...         return False
>>> part = gb.algorithms.pagerank(A, callback=stop_at_5)
>>> saved[0].iteration
5
>>> r = gb.algorithms.pagerank(A, resume=saved[0])
>>> r.isequal(gb.algorithms.pagerank(A))
True
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._device import to_numpy
from ..exceptions import InvalidObject, InvalidValue, bad_arg

__all__ = ["Checkpoint", "IterationState"]


@dataclass(frozen=True, eq=False)
class Checkpoint:
    """What an iterative algorithm needs to go on from ``iteration``.

    ``arrays``: its vectors and factors (NumPy copies); ``values``: scalars and lists
    (histories); ``params``: the arguments a resumed run must repeat.
    """

    algorithm: str
    iteration: int
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)

    def save(self, path) -> None:
        """Write the checkpoint to ``path`` (NumPy's ``.npz``, no pickles).

        Examples
        --------
        >>> import os, tempfile, numpy as np
        >>> c = Checkpoint("pagerank", 3, {"r": np.ones(2)}, {"errs": [0.5]}, {"n": 2})
        >>> p = os.path.join(tempfile.mkdtemp(), "c.npz")
        >>> c.save(p)
        >>> d = Checkpoint.load(p)
        >>> d.algorithm, d.iteration, d.arrays["r"].tolist(), d.values, d.params
        ('pagerank', 3, [1.0, 1.0], {'errs': [0.5]}, {'n': 2})
        """
        meta = json.dumps({"algorithm": self.algorithm, "iteration": self.iteration,
                           "values": self.values, "params": self.params})
        np.savez(path, __meta__=np.array(meta), **self.arrays)

    @classmethod
    def load(cls, path) -> Checkpoint:
        """Read a checkpoint written by :meth:`save`."""
        with np.load(path, allow_pickle=False) as f:
            meta = json.loads(str(f["__meta__"]))
            arrays = {k: f[k] for k in f.files if k != "__meta__"}
        return cls(meta["algorithm"], int(meta["iteration"]), arrays, meta["values"],
                   meta["params"])


class IterationState:
    """What a callback sees after an iteration: ``algorithm``, ``iteration`` (the
    iterations done), ``delta`` (the change that iteration measured: the L1 change of
    the ranks, the labels changed, the training RMSE), ``converged``, and
    :meth:`checkpoint`."""

    __slots__ = ("algorithm", "iteration", "delta", "converged", "_save")

    def __init__(self, algorithm: str, iteration: int, delta, converged: bool,
                 save: Callable[[], Checkpoint]) -> None:
        self.algorithm = algorithm
        self.iteration = iteration
        self.delta = delta
        self.converged = converged
        self._save = save

    def checkpoint(self) -> Checkpoint:
        """A copy of the run's state at this iteration, for ``resume=``."""
        return self._save()

    def __repr__(self) -> str:
        return (f"IterationState({self.algorithm}, iteration={self.iteration}, "
                f"delta={self.delta!r}, converged={self.converged})")


def check_callback(callback, call: str) -> None:
    if callback is not None and not callable(callback):
        raise bad_arg(InvalidObject, call, "callback", "a function of the iteration state",
                      type(callback).__name__,
                      "Pass e.g. callback=lambda state: state.iteration < 10.")


def keep_going(callback, state: IterationState) -> bool:
    """Call the callback; only ``False`` stops (None and other values go on)."""
    return callback(state) is not False


def check_resume(resume, algorithm: str, params: dict, call: str) -> Checkpoint | None:
    """The checkpoint to resume from (None for a fresh run), refused when it belongs to
    another algorithm or was made with other arguments."""
    if resume is None:
        return None
    if not isinstance(resume, Checkpoint):
        raise bad_arg(InvalidObject, call, "resume",
                      "a Checkpoint (state.checkpoint() in a callback, or Checkpoint.load)",
                      type(resume).__name__)
    if resume.algorithm != algorithm:
        raise bad_arg(InvalidValue, call, "resume", f"a checkpoint of {algorithm}",
                      f"one of {resume.algorithm}")
    mine = json.loads(json.dumps(params))  # as a saved checkpoint holds them
    diff = sorted(k for k in set(mine) | set(resume.params)
                  if mine.get(k) != resume.params.get(k))
    if diff:
        shown = ", ".join(f"{k}={resume.params.get(k)!r} (now {mine.get(k)!r})" for k in diff)
        raise bad_arg(InvalidValue, call, "resume",
                      "a checkpoint made with the same graph size and arguments",
                      f"one made with {shown}",
                      "Resume with the arguments of the run that saved it.")
    return resume


def host(a) -> np.ndarray:
    """A NumPy copy of a NumPy or CuPy array."""
    return np.array(to_numpy(a), copy=True)
