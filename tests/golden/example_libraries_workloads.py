"""Workloads of jax.example_libraries (stax and optimizers), run by JAX 0.11.0
(record_example_libraries.py writes example_libraries.json) and by pyjax
(tests/test_example_libraries.py), which must agree.

`run(jax)` takes the implementation's top-level module and returns
{name: list of numbers or a string}: training losses of a small stax CNN and
MLP under each optimizer, layer output shapes and values, schedules, and the
optimizer-state utilities. Data comes from NumPy's seeded generator, and
parameters from `jax.random.key(0)`, so both sides start from the same
values.
"""

from __future__ import annotations

import importlib

import numpy as np


def _data(n=32, d=8, classes=3):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, d)).astype(np.float32)
    w = rng.normal(size=(d, classes)).astype(np.float32)
    y = np.argmax(x @ w + 0.1 * rng.normal(size=(n, classes)), axis=1)
    return x, np.eye(classes, dtype=np.float32)[y]


def _images(n=16, classes=3):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(n, 8, 8, 1)).astype(np.float32)
    y = rng.integers(0, classes, size=n)
    return x, np.eye(classes, dtype=np.float32)[y]


def run(jax) -> dict:
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    stax = importlib.import_module(jax.__name__ + ".example_libraries.stax")
    optimizers = importlib.import_module(jax.__name__ + ".example_libraries.optimizers")
    out: dict = {}

    def train(init_fun, apply_fun, input_shape, data, opt, steps, rng_apply=False, jit=True):
        x, y = data
        _, params = init_fun(jax.random.key(0), input_shape)
        opt_init, opt_update, get_params = opt

        def loss(params, x, y, key):
            kwargs = {"rng": key} if rng_apply else {}
            return -jnp.mean(jnp.sum(apply_fun(params, x, **kwargs) * y, axis=1))

        def step(i, state, key):
            value, g = jax.value_and_grad(loss)(get_params(state), x, y, key)
            return value, opt_update(i, g, state)

        if jit:
            step = jax.jit(step)

        state = opt_init(params)
        losses = []
        for i in range(steps):
            value, state = step(i, state, jax.random.fold_in(jax.random.key(1), i))
            losses.append(float(value))
        return losses, get_params(state)

    # An MLP under every optimizer.
    mlp = stax.serial(stax.Dense(16), stax.Tanh, stax.Dense(16), stax.Relu, stax.Dense(3), stax.LogSoftmax)
    data = _data()
    opts = {
        "sgd": optimizers.sgd(0.1),
        "momentum": optimizers.momentum(0.05, 0.9),
        "nesterov": optimizers.nesterov(0.05, 0.9),
        "adagrad": optimizers.adagrad(0.1),
        "rmsprop": optimizers.rmsprop(0.01),
        "rmsprop_momentum": optimizers.rmsprop_momentum(0.01),
        "adam": optimizers.adam(0.01),
        "adamax": optimizers.adamax(0.01),
        "sm3": optimizers.sm3(0.1),
        "sgd_exponential_decay": optimizers.sgd(optimizers.exponential_decay(0.2, 5, 0.5)),
        "adam_piecewise": optimizers.adam(optimizers.piecewise_constant([5, 10], [0.02, 0.01, 0.005])),
    }
    for name, opt in opts.items():
        # sm3 keeps the parameter's shape in its state: JAX cannot jit it.
        out[f"mlp_{name}_losses"], _ = train(*mlp, (-1, 8), data, opt, 15, jit=name != "sm3")

    # A CNN: conv, batch norm, pooling, dropout, trained with adam.
    cnn = stax.serial(
        stax.Conv(4, (3, 3), padding="SAME"), stax.BatchNorm(), stax.Relu, stax.MaxPool((2, 2), strides=(2, 2)),
        stax.Conv(4, (3, 3)), stax.Elu, stax.AvgPool((2, 2), padding="SAME"), stax.Flatten,
        stax.Dense(8), stax.Gelu, stax.Dropout(0.9), stax.Dense(3), stax.LogSoftmax)
    losses, params = train(*cnn, (-1, 8, 8, 1), _images(), optimizers.adam(0.01), 20, rng_apply=True)
    out["cnn_adam_losses"] = losses
    # (JAX's conv shape helpers give NumPy integers; the sizes are compared.)
    out["cnn_output_shape"] = str(tuple(int(d) for d in cnn[0](jax.random.key(0), (-1, 8, 8, 1))[0]))
    out["cnn_param_norm"] = [float(optimizers.l2_norm(params))]

    # A residual block: FanOut, parallel, FanInSum / FanInConcat.
    block = stax.serial(stax.FanOut(2), stax.parallel(stax.Dense(8), stax.Identity), stax.FanInSum)
    concat = stax.serial(stax.FanOut(3), stax.parallel(stax.Dense(2), stax.Dense(3), stax.Identity),
                         stax.FanInConcat())
    x = jnp.asarray(_data()[0][:4])
    for name, (init_fun, apply_fun) in (("residual", block), ("concat", concat)):
        shape, p = init_fun(jax.random.key(2), (4, 8))
        out[f"{name}_shape"] = str(shape)
        out[f"{name}_values"] = np.asarray(apply_fun(p, x)).ravel().tolist()

    # The other layers, once each.
    img = jnp.asarray(_images()[0][:2])
    layers = {
        "conv_transpose": (stax.ConvTranspose(2, (3, 3), strides=(2, 2)), img),
        "conv1d_transpose": (stax.Conv1DTranspose(2, (3,), padding="SAME"), img[:, :, :, 0][..., None][:, :, 0]),
        "general_conv_nchw": (stax.GeneralConv(("NCHW", "OIHW", "NCHW"), 3, (2, 2)), img.transpose(0, 3, 1, 2)),
        "sum_pool": (stax.SumPool((3, 3), strides=(2, 2), padding="SAME"), img),
        "avg_pool_spec": (stax.AvgPool((2, 2), spec="NCHW"), img.transpose(0, 3, 1, 2)),
        "batch_norm_no_scale": (stax.BatchNorm(axis=0, scale=False), x),
        "batch_norm_no_center": (stax.BatchNorm(axis=(0,), center=False), x),
        "dense_custom_init": (stax.Dense(3, W_init=stax.randn(0.5), b_init=stax.ones), x),
        "shape_dependent": (stax.shape_dependent(lambda s: stax.Dense(s[-1] // 2)), x),
        "activations": (stax.serial(stax.Selu, stax.LeakyRelu, stax.Softplus, stax.Sigmoid, stax.Exp,
                                    stax.Softmax), x),
    }
    for name, ((init_fun, apply_fun), inputs) in layers.items():
        shape, p = init_fun(jax.random.key(3), tuple(inputs.shape))
        y = apply_fun(p, inputs)
        out[f"{name}_shape"] = str((tuple(int(d) for d in shape), tuple(y.shape)))
        out[f"{name}_values"] = np.asarray(y, np.float64).ravel().tolist()
    init_fun, apply_fun = stax.Dropout(0.5)
    out["dropout_train"] = np.asarray(apply_fun((), x, rng=jax.random.key(4))).ravel().tolist()
    out["dropout_test"] = np.asarray(stax.Dropout(0.5, mode="test")[1]((), x, rng=jax.random.key(4))).ravel().tolist()
    try:
        apply_fun((), x)
    except ValueError as e:
        out["dropout_no_rng_error"] = str(e)

    # Schedules and utilities.
    steps = jnp.arange(12)
    schedules = {
        "constant": optimizers.constant(0.5),
        "exponential_decay": optimizers.exponential_decay(1.0, 4, 0.5),
        "inverse_time_decay": optimizers.inverse_time_decay(1.0, 4, 0.5),
        "inverse_time_decay_staircase": optimizers.inverse_time_decay(1.0, 4, 0.5, staircase=True),
        "polynomial_decay": optimizers.polynomial_decay(1.0, 8, 0.1, power=2.0),
        "piecewise_constant": optimizers.piecewise_constant([3, 7], [1.0, 0.5, 0.25]),
    }
    for name, schedule in schedules.items():
        out[f"schedule_{name}"] = [float(schedule(i)) for i in steps]
    grads = {"a": jnp.array([3.0, 4.0]), "b": (jnp.array([[12.0]]),)}
    out["l2_norm"] = [float(optimizers.l2_norm(grads))]
    out["clip_grads"] = np.concatenate([np.ravel(g) for g in jax.tree.leaves(optimizers.clip_grads(grads, 6.5))]).tolist()
    out["clip_grads_unclipped"] = np.concatenate(
        [np.ravel(g) for g in jax.tree.leaves(optimizers.clip_grads(grads, 100.0))]).tolist()
    opt_init, opt_update, get_params = optimizers.adam(0.1)
    state = opt_update(0, grads, opt_init(grads))
    marked = optimizers.unpack_optimizer_state(state)
    repacked = optimizers.pack_optimizer_state(marked)
    out["pack_roundtrip"] = str(jax.tree.structure(repacked) == jax.tree.structure(state))
    out["adam_one_step"] = np.concatenate([np.ravel(g) for g in jax.tree.leaves(get_params(repacked))]).tolist()
    out["state_leaves"] = str(len(jax.tree.leaves(state)))
    try:
        opt_update(0, {"a": grads["a"]}, state)
    except TypeError as e:
        out["tree_mismatch_error"] = str(e).replace("PyTreeDef", "PyTreeDef")
    try:
        optimizers.make_schedule(jnp.ones(2))
    except TypeError as e:
        out["make_schedule_error"] = type(e).__name__
    try:
        optimizers.piecewise_constant([1, 2], [1.0])
    except ValueError as e:
        out["piecewise_error"] = str(e)
    return out
