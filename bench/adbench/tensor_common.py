"""What the tensor-framework versions of the ADBench objectives (``torch_impl``,
``jax_impl``) share and is no framework's: the :class:`Prepared` closures they return,
the GMM prior constant, and the NumPy preparation of the Hand model. Importing one
framework's module does not import the other framework."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .data import F64, HandModel


@dataclass
class Prepared:
    """The objective and its derivative on inputs converted once, as NumPy arrays in the
    C layouts of ``native.py``."""

    objective: Callable[[], F64]
    derivative: Callable[[], F64]


def log_gamma_distrib(a: float, p: int) -> float:
    """log of the multivariate gamma function Gamma_p(a) (the GMM Wishart prior)."""
    return 0.25 * p * (p - 1) * math.log(math.pi) + sum(
        math.lgamma(a + 0.5 * (1 - j)) for j in range(1, p + 1)
    )


def hand_pose_index() -> np.ndarray:
    """Flat indices into the (bones * 3) pose of the 20 finger angles of theta[6:]:
    per finger, two angles of its first bone and the first angle of each of the next two."""
    idx = []
    for finger in range(5):
        bone = 4 * finger + 2
        idx += [3 * bone, 3 * bone + 1, 3 * (bone + 1), 3 * (bone + 2)]
    return np.array(idx)


def hand_positions_h(md: HandModel) -> F64:
    """The base vertex positions in homogeneous coordinates, (V, 4)."""
    return np.hstack([md.base_positions, np.ones((md.n_vertices, 1))])
