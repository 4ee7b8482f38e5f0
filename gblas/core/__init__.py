"""User objects (Matrix, Vector, Mask) and the operations on them."""

from . import methods  # noqa: F401  (attaches Matrix.prepare, A @ x, u @ A)
