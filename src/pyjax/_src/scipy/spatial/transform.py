"""jax.scipy.spatial.transform: rotations in three dimensions (Rotation) and
their spherical linear interpolation (Slerp).

A Rotation holds unit quaternions in SciPy's scalar-last order
``(x, y, z, w)``, one per rotation along the leading axes (shape ``(4,)``
for a single rotation, ``(N, 4)`` for N). Both classes are NamedTuples, so
they are pytrees: they pass through jit, vmap and grad.
"""

from __future__ import annotations

import re
import typing

import numpy as np

from pyjax._src.scipy import jnp_pending as jnp

__all__ = ["Rotation", "Slerp"]

Array = typing.Any


def _norm(v):
    return jnp.sqrt(jnp.sum(v * v, axis=-1))


def _compose(p, q):
    """The quaternion product p q (apply q, then p)."""
    pv, pw = p[..., :3], p[..., 3:]
    qv, qw = q[..., :3], q[..., 3:]
    vec = pw * qv + qw * pv + jnp.cross(pv, qv)
    w = pw * qw - jnp.sum(pv * qv, axis=-1, keepdims=True)
    return jnp.concatenate([vec, w], axis=-1)


def _elementary(axis: int, angle):
    """The quaternion of a rotation by `angle` about basis axis `axis`."""
    half = angle / 2.0
    zero = jnp.zeros_like(angle)
    parts = [zero, zero, zero, jnp.cos(half)]
    parts[axis] = jnp.sin(half)
    return jnp.stack(parts, axis=-1)


def _axis_index(axis: str) -> int:
    if axis not in "xyz" or len(axis) != 1:
        raise ValueError(f"Expected axis to be from ['x', 'y', 'z'], got {axis}")
    return "xyz".index(axis)


def _check_seq(seq: str, max_axes: int | None = None) -> bool:
    """Validates an Euler axis sequence; True for intrinsic (upper case)."""
    intrinsic = re.match(r"^[XYZ]{1,3}$", seq) is not None
    extrinsic = re.match(r"^[xyz]{1,3}$", seq) is not None
    if not (intrinsic or extrinsic):
        raise ValueError("Expected axes from `seq` to be from ['x', 'y', 'z'] or ['X', 'Y', 'Z'], "
                         f"got {seq}")
    if any(seq[i] == seq[i + 1] for i in range(len(seq) - 1)):
        raise ValueError(f"Expected consecutive axes to be different, got {seq}")
    return intrinsic


def _euler_from_quat(quat, seq: str, extrinsic: bool, degrees: bool):
    # Bernardes & Viollet (2022), "Quaternion to Euler angles conversion", as
    # SciPy computes it; the axis sequence is static, so the case analysis on
    # it happens here in Python.
    axes = [_axis_index(a) for a in seq.lower()]
    if not extrinsic:
        axes = axes[::-1]
    i, j, k = axes
    symmetric = i == k
    if symmetric:
        k = 3 - i - j
    sign = (i - j) * (j - k) * (k - i) // 2
    q = [quat[..., n] for n in range(4)]
    w = q[3]
    if symmetric:
        a, b, c, d = w, q[i], q[j], q[k] * sign
    else:
        a, b, c, d = w - q[j], q[i] + q[k] * sign, q[j] + w, q[k] * sign - q[i]
    middle = 2 * jnp.arctan2(jnp.hypot(c, d), jnp.hypot(a, b))
    eps = 1e-7
    # case 0: general; 1: middle angle 0; 2: middle angle pi (gimbal lock).
    case = jnp.where(jnp.abs(middle - np.pi) <= eps, 2, 0)
    case = jnp.where(jnp.abs(middle) <= eps, 1, case)
    half_sum = jnp.arctan2(b, a)
    half_diff = jnp.arctan2(d, c)
    angles = [jnp.where(case == 1, 2 * half_sum, 2 * half_diff * (-1 if extrinsic else 1)),
              middle, jnp.zeros_like(middle)]
    first, third = (0, 2) if extrinsic else (2, 0)
    angles[first] = jnp.where(case == 0, half_sum - half_diff, angles[first])
    angles[third] = jnp.where(case == 0, half_sum + half_diff, angles[third])
    if not symmetric:
        angles[third] = angles[third] * sign
        angles[1] = angles[1] - np.pi / 2
    out = (jnp.stack(angles, axis=-1) + np.pi) % (2 * np.pi) - np.pi
    return jnp.rad2deg(out) if degrees else out


def _from_matrix(matrix):
    m = lambda r, c: matrix[..., r, c]
    trace = m(0, 0) + m(1, 1) + m(2, 2)
    # Shepperd's method: build the quaternion from the largest of the
    # diagonal and the trace, for accuracy.
    candidates = []
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        parts = [None] * 4
        parts[i] = 1 - trace + 2 * m(i, i)
        parts[j] = m(j, i) + m(i, j)
        parts[k] = m(k, i) + m(i, k)
        parts[3] = m(k, j) - m(j, k)
        candidates.append(jnp.stack(parts, axis=-1))
    candidates.append(jnp.stack([m(2, 1) - m(1, 2), m(0, 2) - m(2, 0), m(1, 0) - m(0, 1), 1 + trace], axis=-1))
    choice = jnp.argmax(jnp.stack([m(0, 0), m(1, 1), m(2, 2), trace], axis=-1), axis=-1)
    stacked = jnp.stack(candidates, axis=-2)
    quat = jnp.take_along_axis(stacked, choice[..., None, None], axis=-2)[..., 0, :]
    return quat / _norm(quat)[..., None]


def _from_rotvec(rotvec, degrees: bool):
    if degrees:
        rotvec = jnp.deg2rad(rotvec)
    angle = _norm(rotvec)
    angle2 = angle * angle
    # Taylor series of sin(angle / 2) / angle near zero.
    small = 0.5 - angle2 / 48 + angle2 * angle2 / 3840
    large = jnp.sin(angle / 2) / angle
    scale = jnp.where(angle <= 1e-3, small, large)
    return jnp.concatenate([scale[..., None] * rotvec, jnp.cos(angle / 2)[..., None]], axis=-1)


def _as_rotvec(quat, degrees: bool):
    quat = jnp.where(quat[..., 3:] < 0, -quat, quat)  # w >= 0: 0 <= angle <= pi
    angle = 2.0 * jnp.arctan2(_norm(quat[..., :3]), quat[..., 3])
    angle2 = angle * angle
    # Taylor series of angle / sin(angle / 2) near zero.
    small = 2 + angle2 / 12 + 7 * angle2 * angle2 / 2880
    large = angle / jnp.sin(angle / 2)
    scale = jnp.where(angle <= 1e-3, small, large)
    if degrees:
        scale = jnp.rad2deg(scale)
    return scale[..., None] * quat[..., :3]


def _as_matrix(quat):
    x, y, z, w = (quat[..., n] for n in range(4))
    x2, y2, z2, w2 = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    rows = [[x2 - y2 - z2 + w2, 2 * (xy - zw), 2 * (xz + yw)],
            [2 * (xy + zw), -x2 + y2 - z2 + w2, 2 * (yz - xw)],
            [2 * (xz - yw), 2 * (yz + xw), -x2 - y2 + z2 + w2]]
    return jnp.stack([jnp.stack(row, axis=-1) for row in rows], axis=-2)


def _as_mrp(quat):
    # The modified Rodrigues parameters of the quaternion with w >= 0.
    sign = jnp.where(quat[..., 3] < 0, -1.0, 1.0)
    return (sign / (1.0 + sign * quat[..., 3]))[..., None] * quat[..., :3]


def _from_mrp(mrp):
    sq1 = jnp.sum(mrp * mrp, axis=-1, keepdims=True) + 1
    return jnp.concatenate([2 * mrp[..., :3], 2 - sq1], axis=-1) / sq1


def _canonical(quat):
    # The sign making the first nonzero of (w, x, y, z) positive.
    neg, zero = quat < 0, quat == 0
    flip = (neg[..., 3] | (zero[..., 3] & neg[..., 0]) | (zero[..., 3] & zero[..., 0] & neg[..., 1])
            | (zero[..., 3] & zero[..., 0] & zero[..., 1] & neg[..., 2]))
    return jnp.where(flip[..., None], -quat, quat)


class Rotation(typing.NamedTuple):
    """Rotation in three dimensions.

    JAX implementation of :class:`scipy.spatial.transform.Rotation`. Create
    one with a ``from_*`` constructor (``from_euler``, ``from_matrix``,
    ``from_mrp``, ``from_quat``, ``from_rotvec``, ``identity``), compose with
    ``*``, and read it back with ``as_*``; ``apply`` rotates vectors.

    Examples:
      >>> from pyjax.scipy.spatial.transform import Rotation
      >>> r = Rotation.from_euler('z', 90, degrees=True)
      >>> r.apply(jnp.array([1.0, 0.0, 0.0]))  # doctest: +SKIP
      Array([0., 1., 0.], dtype=float32)
    """

    quat: Array

    @classmethod
    def concatenate(cls, rotations: typing.Sequence) -> Rotation:
        """The rotations of a sequence of Rotation objects, as one."""
        return cls(jnp.concatenate([rotation.quat for rotation in rotations]))

    @classmethod
    def from_euler(cls, seq: str, angles: Array, degrees: bool = False) -> Rotation:
        """From Euler angles: ``seq`` of up to 3 axes, lower case extrinsic
        (``'xyz'``), upper case intrinsic (``'XYZ'``)."""
        if len(seq) < 1 or len(seq) > 3:
            raise ValueError(f"Expected axis specification to be a non-empty string of upto 3 characters, got {seq}")
        intrinsic = _check_seq(seq)
        angles = jnp.atleast_1d(angles)
        if angles.shape[-1] != len(seq):
            raise ValueError(f"Expected angles with a last axis of {len(seq)} for seq={seq!r}, "
                             f"got shape {angles.shape}")
        if degrees:
            angles = jnp.deg2rad(angles)
        axes = [_axis_index(a) for a in seq.lower()]
        result = _elementary(axes[0], angles[..., 0])
        for n in range(1, len(axes)):
            quat = _elementary(axes[n], angles[..., n])
            result = _compose(result, quat) if intrinsic else _compose(quat, result)
        return cls(result)

    @classmethod
    def from_matrix(cls, matrix: Array) -> Rotation:
        """From rotation matrices, shape ``(..., 3, 3)``."""
        return cls(_from_matrix(jnp.asarray(matrix)))

    @classmethod
    def from_mrp(cls, mrp: Array) -> Rotation:
        """From modified Rodrigues parameters, shape ``(..., 3)``."""
        return cls(_from_mrp(jnp.asarray(mrp)))

    @classmethod
    def from_quat(cls, quat: Array) -> Rotation:
        """From quaternions ``(x, y, z, w)``, normalised."""
        quat = jnp.asarray(quat)
        return cls(quat / _norm(quat)[..., None])

    @classmethod
    def from_rotvec(cls, rotvec: Array, degrees: bool = False) -> Rotation:
        """From rotation vectors (axis times angle), shape ``(..., 3)``."""
        return cls(_from_rotvec(jnp.asarray(rotvec), degrees))

    @classmethod
    def identity(cls, num: int | None = None, dtype=float) -> Rotation:
        """The identity rotation (only a single one: ``num`` must be None)."""
        assert num is None
        return cls(jnp.array([0.0, 0.0, 0.0, 1.0], dtype=dtype))

    @classmethod
    def random(cls, random_key: Array, num: int | None = None) -> Rotation:
        """Not implemented, as in JAX."""
        raise NotImplementedError()

    def __getitem__(self, indexer) -> Rotation:
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self) -> int:
        if self.single:
            raise TypeError("Single rotation has no len().")
        return self.quat.shape[0]

    def __mul__(self, other) -> Rotation:
        """The composition: ``(p * q).apply(v) == p.apply(q.apply(v))``."""
        return Rotation.from_quat(_compose(self.quat, other.quat))

    def apply(self, vectors: Array, inverse: bool = False) -> Array:
        """Rotates ``vectors`` (shape ``(..., 3)``), or un-rotates them with ``inverse=True``."""
        matrix = self.as_matrix()
        matrix = jnp.where(inverse, jnp.swapaxes(matrix, -1, -2), matrix)
        return jnp.matmul(matrix, jnp.asarray(vectors)[..., None])[..., 0]

    def as_euler(self, seq: str, degrees: bool = False) -> Array:
        """Euler angles about the 3 axes of ``seq``."""
        if len(seq) != 3:
            raise ValueError(f"Expected 3 axes, got {seq}.")
        intrinsic = _check_seq(seq)
        return _euler_from_quat(self.quat, seq, not intrinsic, degrees)

    def as_matrix(self) -> Array:
        """Rotation matrices, shape ``(..., 3, 3)``."""
        return _as_matrix(self.quat)

    def as_mrp(self) -> Array:
        """Modified Rodrigues parameters, shape ``(..., 3)``."""
        return _as_mrp(self.quat)

    def as_rotvec(self, degrees: bool = False) -> Array:
        """Rotation vectors, shape ``(..., 3)``, of norm at most pi."""
        return _as_rotvec(self.quat, degrees)

    def as_quat(self, canonical: bool = False, scalar_first: bool = False) -> Array:
        """Quaternions, ``(x, y, z, w)`` or with ``scalar_first`` ``(w, x, y, z)``;
        ``canonical`` picks the sign with w >= 0."""
        quat = _canonical(self.quat) if canonical else self.quat
        return jnp.roll(quat, shift=1, axis=-1) if scalar_first else quat

    def inv(self) -> Rotation:
        """The inverse rotations."""
        return Rotation(self.quat * jnp.array([-1, -1, -1, 1], dtype=self.quat.dtype))

    def magnitude(self) -> Array:
        """The rotation angles, in radians, in [0, pi]."""
        return 2.0 * jnp.arctan2(_norm(self.quat[..., :3]), jnp.abs(self.quat[..., 3]))

    def mean(self, weights: Array | None = None) -> Rotation:
        """The (weighted) mean rotation (Markley et al.): the principal
        eigenvector of the weighted quaternion outer-product sum."""
        if weights is None:
            w = jnp.ones(self.quat.shape[0], dtype=self.quat.dtype)
        else:
            w = jnp.asarray(weights, dtype=self.quat.dtype)
        if w.ndim != 1:
            raise ValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
        if w.shape[0] != len(self):
            raise ValueError("Expected `weights` to have number of values equal to number of rotations, got "
                             f"{w.shape[0]} values and {len(self)} rotations.")
        k = jnp.dot(w[None, :] * self.quat.T, self.quat)
        _, v = jnp.linalg.eigh(k)
        return Rotation(v[:, -1])

    @property
    def single(self) -> bool:
        """Whether this holds one rotation (not a stack of them)."""
        return self.quat.ndim == 1


class Slerp(typing.NamedTuple):
    """Spherical linear interpolation of rotations.

    JAX implementation of :class:`scipy.spatial.transform.Slerp`. Build it with
    ``Slerp.init(times, rotations)`` (at least two rotations at strictly
    increasing times) and call it with the times to interpolate at.
    """

    times: Array
    timedelta: Array
    rotations: Rotation
    rotvecs: Array

    @classmethod
    def init(cls, times: Array, rotations: Rotation) -> Slerp:
        """The interpolator through ``rotations`` at the key ``times``."""
        if not isinstance(rotations, Rotation):
            raise TypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
        times = jnp.asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise ValueError(f"Expected times to be specified in a 1 dimensional array, got {times.ndim} dimensions.")
        if times.shape[0] != len(rotations):
            raise ValueError("Expected number of rotations to be equal to number of timestamps given, got "
                             f"{len(rotations)} rotations and {times.shape[0]} timestamps.")
        # Increasing times cannot be checked here: the check would need concrete values.
        starts = Rotation(rotations.as_quat()[:-1])
        steps = (starts.inv() * Rotation(rotations.as_quat()[1:])).as_rotvec()
        return cls(times=times, timedelta=jnp.diff(times), rotations=starts, rotvecs=steps)

    def __call__(self, times: Array) -> Rotation:
        at = jnp.asarray(times, dtype=self.times.dtype)
        if at.ndim > 1:
            raise ValueError("`times` must be at most 1-dimensional.")
        single = at.ndim == 0
        at = jnp.atleast_1d(at)
        ind = jnp.maximum(jnp.searchsorted(self.times, at) - 1, 0)
        alpha = (at - self.times[ind]) / self.timedelta[ind]
        result = self.rotations[ind] * Rotation.from_rotvec(self.rotvecs[ind] * alpha[:, None])
        return result[0] if single else result
