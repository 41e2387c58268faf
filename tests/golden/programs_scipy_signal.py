"""jax.scipy.signal, fft, integrate, ndimage, interpolate, cluster and
spatial.transform programs whose JAX 0.11.0 behaviour is recorded in
``scipy_signal.json``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py scipy_signal

Values (complex results as stacked real and imaginary parts), dtypes, weak
types and JAX's errors; also results under jit, vmap and grad.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

# FFT-based results (fftconvolve, stft, welch, the DCTs) come from another
# FFT algorithm than XLA's, and rotations chain several float32 trig calls:
# a few ulps of float32 apart, not more.
TOLERANCE = (2e-5, 3e-6)

HEAD = "S = jax.scipy\n"
SPATIAL = ("import importlib\n"
           "T = importlib.import_module(jax.__name__ + '.scipy.spatial.transform')\n"
           "R, Slerp = T.Rotation, T.Slerp\n")


def value(name: str, body: str, head: str = HEAD) -> None:
  program(name, "value", head + body)


def error(name: str, body: str, head: str = HEAD) -> None:
  program(name, "error", head + body)


def cplx(z: str) -> str:
  return f"jnp.stack([jnp.real({z}), jnp.imag({z})])"


X = "jnp.array([1.0, 2.0, 3.0, 2.0, 1.0, 0.0, 1.0, 2.0])"
Y = "jnp.array([1.0, 3.0, 2.0])"
A = "jnp.arange(20.0).reshape(4, 5) % 7"
K = "jnp.array([[1.0, 3.0], [4.0, 2.0]])"
SIG = "jnp.sin(jnp.arange(64.0) * 0.7) + 0.1 * jnp.arange(64.0) % 3"

# ---- convolution and correlation ----
for mode in ("full", "same", "valid"):
  value(f"convolve_{mode}", f"result = S.signal.convolve({X}, {Y}, mode={mode!r})")
  value(f"correlate_{mode}", f"result = S.signal.correlate({X}, {Y}, mode={mode!r})")
  value(f"fftconvolve_{mode}", f"result = S.signal.fftconvolve({X}, {Y}, mode={mode!r})")
  value(f"convolve2d_{mode}", f"result = S.signal.convolve2d({A}, {K}, mode={mode!r})")
  value(f"correlate2d_{mode}", f"result = S.signal.correlate2d({A}, {K}, mode={mode!r})")
  value(f"correlate2d_swapped_{mode}", f"result = S.signal.correlate2d({K}, {A}, mode={mode!r})")
  value(f"convolve_swapped_{mode}", f"result = S.signal.convolve({Y}, {X}, mode={mode!r})")
value("convolve_int", "result = S.signal.convolve(jnp.arange(5), jnp.array([1, 1, 1]))")
value("convolve_fft_method", f"result = S.signal.convolve({X}, {Y}, method='fft')")
value("correlate_complex", cplx(f"S.signal.correlate({X} * (1 + 1j), {Y} * (1 - 2j))").join(["result = ", ""]))
value("fftconvolve_complex", cplx(f"S.signal.fftconvolve({X} * 1j, {Y} + 1j, mode='same')").join(["result = ", ""]))
value("fftconvolve_axes", f"result = S.signal.fftconvolve({A}, jnp.array([[1.0, -1.0, 2.0]] * 4), axes=1)")
value("fftconvolve_2d_same", f"result = S.signal.fftconvolve({A}, {K}, mode='same')")
value("convolve_3d", "result = S.signal.convolve(jnp.arange(24.0).reshape(2, 3, 4), jnp.ones((2, 2, 2)), 'same')")
value("convolve_jit", f"result = jax.jit(lambda a, b: S.signal.convolve(a, b, 'same'))({X}, {Y})")
value("convolve_vmap", f"result = jax.vmap(lambda a: S.signal.correlate(a, {Y}, 'valid'))({A})")
value("convolve_grad", f"result = jax.grad(lambda a: jnp.sum(S.signal.convolve(a, {Y}) ** 2))({X})")
value("fftconvolve_grad", f"result = jax.grad(lambda b: jnp.sum(S.signal.fftconvolve({X}, b) ** 2))({Y})")
error("error_convolve_mode", f"result = S.signal.convolve({X}, {Y}, mode='circular')")
error("error_convolve_method", f"result = S.signal.convolve({X}, {Y}, method='winograd')")
error("error_convolve_ndim", f"result = S.signal.convolve({X}, {K})")
error("error_convolve_shapes", "result = S.signal.convolve(jnp.ones((2, 5)), jnp.ones((3, 2)))")
error("error_convolve_empty", "result = S.signal.convolve(jnp.ones(0), jnp.ones(2))")
error("error_convolve2d_boundary", f"result = S.signal.convolve2d({A}, {K}, boundary='wrap')")
error("error_convolve2d_1d", f"result = S.signal.convolve2d({X}, {Y})")
error("error_fftconvolve_valid", "result = S.signal.fftconvolve(jnp.ones((2, 5)), jnp.ones((3, 2)), 'valid')")
error("error_fftconvolve_mode", f"result = S.signal.fftconvolve({X}, {Y}, 'nope')")
error("error_fftconvolve_mapped", f"result = S.signal.fftconvolve({A}, jnp.ones((3, 2)), axes=1)")

# ---- detrend ----
value("detrend_linear", f"result = S.signal.detrend({X})")
value("detrend_constant", f"result = S.signal.detrend({A}, axis=0, type='constant')")
value("detrend_bp", f"result = S.signal.detrend({X}, bp=[3, 5])")
value("detrend_axis0", f"result = S.signal.detrend({A}, axis=0)")
value("detrend_int", "result = S.signal.detrend(jnp.array([1, 5, 2, 8, 3]))")
error("error_detrend_type", f"result = S.signal.detrend({X}, type='quadratic')")
error("error_detrend_bp", f"result = S.signal.detrend({X}, bp=[12])")
error("error_detrend_overwrite", f"result = S.signal.detrend({X}, overwrite_data=True)")

# ---- stft / istft / welch / csd ----
value("stft_small", cplx(f"S.signal.stft({X}, nperseg=4)[2]").join(["result = ", ""]))
value("stft_freqs_times", f"f, t, _ = S.signal.stft({X}, fs=2.0, nperseg=4)\nresult = jnp.concatenate([f, t])")
value("stft_boundary_even", cplx(f"S.signal.stft({SIG}, nperseg=16, noverlap=12, boundary='even')[2]")
      .join(["result = ", ""]))
value("stft_boundary_odd", cplx(f"S.signal.stft({SIG}, nperseg=16, boundary='odd', padded=False)[2]")
      .join(["result = ", ""]))
value("stft_nfft_detrend", cplx(f"S.signal.stft({SIG}, nperseg=10, nfft=16, detrend='linear')[2]")
      .join(["result = ", ""]))
value("stft_twosided", cplx(f"S.signal.stft({X}, nperseg=4, return_onesided=False, boundary=None)[2]")
      .join(["result = ", ""]))
value("stft_window_array", cplx(f"S.signal.stft({X}, window=jnp.array([0.5, 1.0, 1.0, 0.5]), nperseg=4)[2]")
      .join(["result = ", ""]))
value("stft_axis0", cplx(f"S.signal.stft(jnp.stack([{X}, {X} ** 2], axis=1), nperseg=4, axis=0)[2]")
      .join(["result = ", ""]))
value("istft_roundtrip", f"result = S.signal.istft(S.signal.stft({SIG}, nperseg=16)[2], nperseg=16)[1]")
value("istft_times", f"result = S.signal.istft(S.signal.stft({X}, nperseg=4)[2], fs=4.0)[0]")
value("istft_batched", f"result = S.signal.istft(S.signal.stft(jnp.stack([{X}, -{X}]), nperseg=4)[2])[1]")
value("istft_twosided", f"Z = S.signal.stft({X}, nperseg=4, return_onesided=False)[2]\n"
      f"result = jnp.real(S.signal.istft(Z, input_onesided=False)[1])")
value("istft_noverlap", f"Z = S.signal.stft({SIG}, nperseg=8, noverlap=6)[2]\n"
      f"result = S.signal.istft(Z, nperseg=8, noverlap=6)[1]")
value("welch_default", f"result = S.signal.welch({SIG}, nperseg=16)[1]")
value("welch_freqs", f"result = S.signal.welch({SIG}, fs=10.0, nperseg=16)[0]")
value("welch_spectrum_median", f"result = S.signal.welch({SIG}, nperseg=16, scaling='spectrum', average='median')[1]")
value("welch_linear_nfft", f"result = S.signal.welch({SIG}, nperseg=12, nfft=20, detrend='linear')[1]")
value("welch_no_detrend_odd", f"result = S.signal.welch({SIG}, nperseg=15, noverlap=5, detrend=False)[1]")
value("welch_batched_axis0", f"result = S.signal.welch(jnp.stack([{SIG}, {SIG} * 2], axis=1), nperseg=16, axis=0)[1]")
value("welch_one_segment", f"result = S.signal.welch({X})[1]")
value("csd_xy", cplx(f"S.signal.csd({SIG}, jnp.cos(jnp.arange(64.0)), nperseg=16)[1]").join(["result = ", ""]))
value("csd_none", f"result = S.signal.csd({SIG}, None, nperseg=16)[1]")
value("csd_unequal_lengths", cplx(f"S.signal.csd({SIG}, jnp.arange(40.0) % 5, nperseg=16)[1]")
      .join(["result = ", ""]))
value("csd_median_complex", cplx(f"S.signal.csd({SIG}, jnp.flip({SIG}), nperseg=8, average='median')[1]")
      .join(["result = ", ""]))
value("welch_jit", f"result = jax.jit(lambda s: S.signal.welch(s, nperseg=16)[1])({SIG})")
value("welch_grad", f"result = jax.grad(lambda s: jnp.sum(S.signal.welch(s, nperseg=16)[1]))({SIG})[:8]")
value("stft_vmap", f"result = jnp.abs(jax.vmap(lambda s: S.signal.stft(s, nperseg=4)[2])(jnp.stack([{X}, {X} + 1])))")
error("error_stft_noverlap", f"result = S.signal.stft({X}, nperseg=4, noverlap=4)")
error("error_stft_nfft", f"result = S.signal.stft({X}, nperseg=4, nfft=2)")
error("error_stft_boundary", f"result = S.signal.stft({X}, nperseg=4, boundary='periodic')")
error("error_stft_nperseg", f"result = S.signal.stft({X}, nperseg=0)")
error("error_stft_window_2d", f"result = S.signal.stft({X}, window=jnp.ones((2, 2)))")
error("error_stft_window_nperseg", f"result = S.signal.stft({X}, window=jnp.ones(4), nperseg=3)")
error("error_stft_window_default_nperseg", f"result = S.signal.stft({X}, window=jnp.ones(4))")
error("error_stft_window_long", f"result = S.signal.stft({X}, window=jnp.ones(9))")
error("error_welch_average", f"result = S.signal.welch({SIG}, nperseg=16, average='mode')")
error("error_welch_scaling", f"result = S.signal.welch({SIG}, nperseg=16, scaling='power')")
error("error_csd_rank", f"result = S.signal.csd({SIG}, jnp.ones((2, 64)))")
error("error_istft_1d", f"result = S.signal.istft({X})")
error("error_istft_axes", "result = S.signal.istft(jnp.ones((3, 5)), time_axis=0, freq_axis=0)")
error("error_istft_noverlap", "result = S.signal.istft(jnp.ones((3, 5)), noverlap=4)")
error("error_istft_nfft", "result = S.signal.istft(jnp.ones((3, 5)), nfft=2)")

# ---- fft: DCT ----
M = "jnp.array([[1.0, 4.0, -2.0, 0.5], [3.0, -1.0, 2.0, 2.5], [0.0, 1.5, -3.0, 1.0]])"
for norm in (None, "ortho"):
  tag = norm or "backward"
  value(f"dct_{tag}", f"result = S.fft.dct({M}, norm={norm!r})")
  value(f"dct_axis0_{tag}", f"result = S.fft.dct({M}, axis=0, norm={norm!r})")
  value(f"idct_{tag}", f"result = S.fft.idct({M}, norm={norm!r})")
  value(f"dctn_{tag}", f"result = S.fft.dctn({M}, norm={norm!r})")
  value(f"idctn_{tag}", f"result = S.fft.idctn({M}, norm={norm!r})")
  value(f"dct_roundtrip_{tag}", f"result = S.fft.idct(S.fft.dct({M}, norm={norm!r}), norm={norm!r})")
value("dct_n_pad", f"result = S.fft.dct({M}, n=6)")
value("dct_n_truncate", f"result = S.fft.dct({M}, n=3, axis=1)")
value("idct_n", f"result = S.fft.idct({M}, n=5, norm='ortho')")
value("dctn_s", f"result = S.fft.dctn({M}, s=[2, 5])")
value("dctn_s_axes", f"result = S.fft.dctn({M}, s=[2], axes=[0])")
value("dctn_3d", "result = S.fft.dctn(jnp.arange(24.0).reshape(2, 3, 4) % 5, norm='ortho')")
value("idctn_s", f"result = S.fft.idctn({M}, s=[4, 2])")
value("idctn_axes", f"result = S.fft.idctn({M}, axes=1, norm='ortho')")
value("dct_int", "result = S.fft.dct(jnp.arange(5))")
value("dct_odd_length", "result = S.fft.idct(S.fft.dct(jnp.arange(7.0) ** 2))")
value("dct_complex", cplx(f"S.fft.dct({M} * (1 + 2j))").join(["result = ", ""]))
value("dct_grad", f"result = jax.grad(lambda m: jnp.sum(S.fft.dct(m, norm='ortho') ** 3))({M})")
value("dct_vmap", f"result = jax.vmap(S.fft.idct)({M})")
error("error_dct_type", f"result = S.fft.dct({M}, type=3)")
error("error_dct_norm", f"result = S.fft.dct({M}, norm='forward')")
error("error_idctn_norm", f"result = S.fft.idctn({M}, norm='forward')")
error("error_dctn_s", f"result = S.fft.dctn({M}, s=[1, 2, 3])")

# ---- integrate ----
value("trapezoid_dx", f"result = S.integrate.trapezoid({X}, dx=0.5)")
value("trapezoid_x", f"result = S.integrate.trapezoid({A}, x=jnp.array([0.0, 1.0, 3.0, 6.0]), axis=0)")
value("trapezoid_int", "result = S.integrate.trapezoid(jnp.arange(5))")

# ---- ndimage ----
IMG = "jnp.arange(12.0).reshape(3, 4)"
COORDS = "[jnp.array([0.5, 2.7, -1.0, 1.2, 3.4]), jnp.array([1.2, 3.5, 0.0, -0.6, 4.5])]"
for mode in ("constant", "nearest", "wrap", "mirror", "reflect"):
  for order in (0, 1):
    value(f"map_coordinates_{mode}_{order}", f"result = S.ndimage.map_coordinates({IMG}, {COORDS}, {order}, mode={mode!r})")
value("map_coordinates_cval", f"result = S.ndimage.map_coordinates({IMG}, {COORDS}, 1, cval=-1.0)")
value("map_coordinates_int", f"result = S.ndimage.map_coordinates(jnp.arange(12).reshape(3, 4), {COORDS}, 1, mode='nearest')")
value("map_coordinates_grid", "result = S.ndimage.map_coordinates(jnp.arange(6.0), [jnp.array([[0.25, 1.5], [4.9, 5.5]])], 1)")
value("map_coordinates_grad", f"result = jax.grad(lambda c: jnp.sum(S.ndimage.map_coordinates({IMG} ** 2, [c, c], 1)))"
      "(jnp.array([0.5, 1.25, 1.75]))")
value("map_coordinates_vmap", f"result = jax.vmap(lambda c: S.ndimage.map_coordinates({IMG}, [c, c + 1], 1))"
      "(jnp.array([[0.5, 1.0], [0.2, 1.8]]))")
error("error_map_coordinates_order", f"result = S.ndimage.map_coordinates({IMG}, {COORDS}, 3)")
# The message lists the modes as a set, whose order varies between processes.
program("error_map_coordinates_mode", "text", HEAD + f"""
try:
  S.ndimage.map_coordinates({IMG}, {COORDS}, 1, mode='grid-wrap')
except NotImplementedError as e:
  head, modes = str(e).split(' Currently supported modes are ')
  result = head + ' | ' + str(sorted(eval(modes.rstrip('.'))))
""")
error("error_map_coordinates_len", f"result = S.ndimage.map_coordinates({IMG}, [jnp.zeros(2)], 1)")

# ---- interpolate ----
GRID = "(jnp.array([0.0, 1.0, 3.0]), jnp.array([0.0, 0.5, 1.0, 2.0]))"
VALS = "jnp.arange(12.0).reshape(3, 4) ** 1.5"
PTS = "jnp.array([[0.5, 0.25], [2.0, 1.5], [3.0, 2.0], [-0.1, 1.0], [1.0, 0.75]])"
value("rgi_linear", f"result = S.interpolate.RegularGridInterpolator({GRID}, {VALS})({PTS})")
value("rgi_nearest", f"result = S.interpolate.RegularGridInterpolator({GRID}, {VALS}, method='nearest')({PTS})")
value("rgi_call_method", f"result = S.interpolate.RegularGridInterpolator({GRID}, {VALS})({PTS}, method='nearest')")
value("rgi_fill", f"result = S.interpolate.RegularGridInterpolator({GRID}, {VALS}, fill_value=-1.0)({PTS})")
value("rgi_extrapolate", f"result = S.interpolate.RegularGridInterpolator({GRID}, {VALS}, fill_value=None)({PTS})")
value("rgi_tuple_points", f"result = S.interpolate.RegularGridInterpolator({GRID}, {VALS})"
      "((jnp.array([0.5, 1.5]), jnp.array([0.25, 1.75])))")
value("rgi_trailing_axes", f"result = S.interpolate.RegularGridInterpolator({GRID}, jnp.stack([{VALS}, -{VALS}], -1))({PTS})")
value("rgi_1d", "result = S.interpolate.RegularGridInterpolator((jnp.array([0.0, 2.0, 3.0]),), jnp.array([1.0, 5.0, 4.0]))"
      "(jnp.array([0.5, 2.5]))")
value("rgi_int_values", f"result = S.interpolate.RegularGridInterpolator({GRID}, jnp.arange(12).reshape(3, 4))({PTS})")
value("rgi_jit_pytree", f"f = S.interpolate.RegularGridInterpolator({GRID}, {VALS})\n"
      f"result = jax.jit(lambda interp, p: interp(p))(f, {PTS})")
value("rgi_grad", f"f = S.interpolate.RegularGridInterpolator({GRID}, {VALS})\n"
      "result = jax.grad(lambda p: jnp.sum(f(p)))(jnp.array([[0.5, 0.25], [2.0, 1.5]]))")
error("error_rgi_method", f"result = S.interpolate.RegularGridInterpolator({GRID}, {VALS}, method='cubic')")
error("error_rgi_bounds", f"result = S.interpolate.RegularGridInterpolator({GRID}, {VALS}, bounds_error=True)")
error("error_rgi_points", f"result = S.interpolate.RegularGridInterpolator({GRID} * 2, {VALS})")
error("error_rgi_dim", f"result = S.interpolate.RegularGridInterpolator({GRID}, {VALS})(jnp.ones((2, 3)))")
error("error_rgi_fill", f"result = S.interpolate.RegularGridInterpolator({GRID}, {VALS}, fill_value=1j)")
error("error_rgi_call_method", f"result = S.interpolate.RegularGridInterpolator({GRID}, {VALS})({PTS}, method='cubic')")

# ---- cluster ----
OBS = "jnp.array([[0.0, 0.0], [1.0, 1.0], [3.0, 2.0], [2.5, 2.5]])"
BOOK = "jnp.array([[0.0, 0.1], [2.0, 2.0], [3.0, 3.0]])"
value("vq_codes", f"result = S.cluster.vq.vq({OBS}, {BOOK})[0]")
value("vq_dists", f"result = S.cluster.vq.vq({OBS}, {BOOK})[1]")
value("vq_1d", "result = jnp.stack(S.cluster.vq.vq(jnp.array([0.0, 2.6, 9.0]), jnp.array([1.0, 3.0])))")
value("vq_int", "result = S.cluster.vq.vq(jnp.array([[0, 0], [5, 4]]), jnp.array([[1, 1], [4, 4]]))[1]")
error("error_vq_rank", f"result = S.cluster.vq.vq({OBS}, jnp.ones(2))")
error("error_vq_3d", "result = S.cluster.vq.vq(jnp.ones((2, 2, 2)), jnp.ones((2, 2, 2)))")

# ---- spatial.transform ----
EUL = "jnp.array([[30.0, 20.0, 10.0], [100.0, -40.0, 170.0], [-45.0, 89.9, 5.0]])"
value("rotation_from_euler_quat", f"result = R.from_euler('zyx', {EUL}, degrees=True).as_quat()", SPATIAL)
value("rotation_from_euler_intrinsic", f"result = R.from_euler('XZY', {EUL}, degrees=True).as_quat()", SPATIAL)
value("rotation_from_euler_single", "result = R.from_euler('z', 90, degrees=True).as_quat()", SPATIAL)
value("rotation_from_euler_two", "result = R.from_euler('xy', jnp.array([0.3, -1.2])).as_matrix()", SPATIAL)
for seq in ("xyz", "ZXY", "zxz", "XYX", "yzy", "ZYX"):
  value(f"rotation_as_euler_{seq}", f"result = R.from_euler('zyx', {EUL}, degrees=True).as_euler({seq!r})", SPATIAL)
value("rotation_as_euler_degrees", f"result = R.from_euler('zyx', {EUL}, degrees=True).as_euler('zyx', degrees=True)",
      SPATIAL)
value("rotation_as_euler_gimbal", "result = R.from_euler('xyz', jnp.array([[0.3, jnp.pi / 2, 0.2], [0.1, 0.0, 0.4]]))"
      ".as_euler('xyz')", SPATIAL)
value("rotation_as_matrix", f"result = R.from_euler('zyx', {EUL}, degrees=True).as_matrix()", SPATIAL)
value("rotation_as_rotvec", f"result = R.from_euler('zyx', {EUL}, degrees=True).as_rotvec()", SPATIAL)
value("rotation_as_rotvec_degrees", f"result = R.from_euler('zyx', {EUL}, degrees=True).as_rotvec(degrees=True)", SPATIAL)
value("rotation_as_mrp", f"result = R.from_euler('zyx', {EUL}, degrees=True).as_mrp()", SPATIAL)
value("rotation_as_quat_canonical", "result = R.from_quat(jnp.array([[0.0, 0.0, 0.6, -0.8], [0.0, -0.6, 0.0, 0.8], "
      "[-0.6, 0.0, 0.0, 0.0]])).as_quat(canonical=True, scalar_first=True)", SPATIAL)
value("rotation_from_matrix", f"result = R.from_matrix(R.from_euler('zyx', {EUL}, degrees=True).as_matrix()).as_quat()",
      SPATIAL)
value("rotation_from_matrix_cases", "m = jnp.array([[[1.0, 0, 0], [0, -1, 0], [0, 0, -1]], [[-1.0, 0, 0], [0, 1, 0], [0, 0, -1]], "
      "[[-1.0, 0, 0], [0, -1, 0], [0, 0, 1]], [[0.0, -1, 0], [1, 0, 0], [0, 0, 1]]])\n"
      "result = R.from_matrix(m).as_quat()", SPATIAL)
value("rotation_from_rotvec", "result = R.from_rotvec(jnp.array([[0.1, 0.2, 0.3], [0.0, 0.0, 0.0], [1e-4, 0.0, 0.0], "
      "[3.0, -1.0, 0.5]])).as_quat()", SPATIAL)
value("rotation_from_rotvec_degrees", "result = R.from_rotvec(jnp.array([0.0, 90.0, 0.0]), degrees=True).as_matrix()",
      SPATIAL)
value("rotation_from_mrp", "result = R.from_mrp(jnp.array([[0.1, 0.2, 0.3], [1.5, 0.0, -0.5]])).as_quat()", SPATIAL)
value("rotation_from_quat_normalises", "result = R.from_quat(jnp.array([1.0, 2.0, 3.0, 4.0])).quat", SPATIAL)
value("rotation_identity", "result = R.identity().as_matrix()", SPATIAL)
value("rotation_compose", f"r = R.from_euler('zyx', {EUL}, degrees=True)\n"
      "result = (r * R.from_rotvec(jnp.array([0.3, -0.2, 0.1]))).as_quat()", SPATIAL)
value("rotation_apply", f"result = R.from_euler('zyx', {EUL}, degrees=True).apply(jnp.array([1.0, 2.0, 3.0]))", SPATIAL)
value("rotation_apply_inverse", f"result = R.from_euler('zyx', {EUL}, degrees=True).apply("
      "jnp.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), inverse=True)", SPATIAL)
value("rotation_inv", f"result = R.from_euler('zyx', {EUL}, degrees=True).inv().as_quat()", SPATIAL)
value("rotation_magnitude", f"result = R.from_euler('zyx', {EUL}, degrees=True).magnitude()", SPATIAL)
value("rotation_mean", f"result = R.from_euler('zyx', {EUL}, degrees=True).mean().as_matrix()", SPATIAL)
value("rotation_mean_weights", f"result = R.from_euler('zyx', {EUL}, degrees=True).mean(jnp.array([1.0, 0.5, 2.0])).as_matrix()",
      SPATIAL)
value("rotation_getitem_len", f"r = R.from_euler('zyx', {EUL}, degrees=True)\n"
      "result = jnp.concatenate([r[1:].as_quat().ravel(), jnp.array([len(r), r[0].single, r.single])])", SPATIAL)
value("rotation_concatenate", "result = R.concatenate([R.from_rotvec(jnp.ones((2, 3))), R.from_rotvec(jnp.zeros((1, 3)))]).as_quat()",
      SPATIAL)
value("rotation_jit_pytree", f"result = jax.jit(lambda r, v: r.apply(v))(R.from_euler('zyx', {EUL}, degrees=True), "
      "jnp.array([1.0, 2.0, 3.0]))", SPATIAL)
value("rotation_vmap", "result = jax.vmap(lambda a: R.from_euler('xyz', a).as_rotvec())(jnp.array([[0.1, 0.2, 0.3], [1.0, -1.0, 2.0]]))",
      SPATIAL)
value("rotation_grad", "result = jax.grad(lambda a: jnp.sum(R.from_euler('xyz', a).apply(jnp.array([1.0, 2.0, 3.0])) ** 3))"
      "(jnp.array([0.1, 0.2, 0.3]))", SPATIAL)
value("slerp", f"s = Slerp.init(jnp.array([0.0, 1.0, 3.0]), R.from_euler('zyx', {EUL}, degrees=True))\n"
      "result = s(jnp.array([0.0, 0.25, 1.0, 2.0, 3.0])).as_quat()", SPATIAL)
value("slerp_scalar_time", f"s = Slerp.init([0, 1, 2], R.from_euler('zyx', {EUL}, degrees=True))\n"
      "result = s(1.5).as_matrix()", SPATIAL)
value("slerp_jit", f"s = Slerp.init(jnp.array([0.0, 1.0, 3.0]), R.from_euler('zyx', {EUL}, degrees=True))\n"
      "result = jax.jit(lambda s, t: s(t).as_rotvec())(s, jnp.array([0.5, 2.5]))", SPATIAL)
error("error_rotation_seq", "result = R.from_euler('xyw', jnp.zeros(3))", SPATIAL)
error("error_rotation_seq_repeat", "result = R.from_euler('xxy', jnp.zeros(3))", SPATIAL)
error("error_rotation_seq_long", "result = R.from_euler('xyzx', jnp.zeros(4))", SPATIAL)
error("error_rotation_as_euler_len", "result = R.identity().as_euler('xy')", SPATIAL)
error("error_rotation_as_euler_mixed", "result = R.identity().as_euler('xYz')", SPATIAL)
error("error_rotation_single_getitem", "result = R.identity()[0]", SPATIAL)
error("error_rotation_single_len", "result = len(R.identity())", SPATIAL)
error("error_rotation_random", "result = R.random(jax.random.key(0))", SPATIAL)
error("error_rotation_mean_weights", "result = R.from_rotvec(jnp.ones((2, 3))).mean(jnp.ones(3))", SPATIAL)
error("error_rotation_mean_weights_2d", "result = R.from_rotvec(jnp.ones((2, 3))).mean(jnp.ones((2, 1)))", SPATIAL)
error("error_slerp_type", "result = Slerp.init(jnp.arange(2.0), jnp.ones((2, 4)))", SPATIAL)
error("error_slerp_single", "result = Slerp.init(jnp.arange(1.0), R.from_rotvec(jnp.ones((1, 3))))", SPATIAL)
error("error_slerp_times_count", "result = Slerp.init(jnp.arange(3.0), R.from_rotvec(jnp.ones((2, 3))))", SPATIAL)
error("error_slerp_times_2d", "result = Slerp.init(jnp.ones((2, 1)), R.from_rotvec(jnp.ones((2, 3))))", SPATIAL)
error("error_slerp_call_2d", "result = Slerp.init(jnp.arange(2.0), R.from_rotvec(jnp.ones((2, 3))))(jnp.ones((2, 2)))", SPATIAL)
