"""`python -m pyjax.demo`: train a multilayer perceptron on handwritten digits.

The data set is scikit-learn's 8x8 digits (shipped inside the package, no
download). The update step is `jit(value_and_grad(loss))` with an Adam
state kept as a pytree; parameters come from `random.key`; evaluation is a
`vmap` of a per-example prediction. The demo prints the (abridged) jaxpr of
the update step, its compile time, steps per second, the loss per epoch and
the test accuracy.

    python -m pyjax.demo [--epochs 15] [--seed 0] [--batch-size 64] [--tour]

`--tour` prints the tracing-machine tour instead (seed jaxprs, tracer errors).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import random


def init_params(key, sizes):
    """Glorot-scaled weights from `key`, zero biases: a list of (W, b)."""
    params = []
    for k, (fan_in, fan_out) in zip(random.split(key, len(sizes) - 1), zip(sizes[:-1], sizes[1:])):
        scale = jnp.sqrt(2.0 / (fan_in + fan_out))
        params.append((random.normal(k, (fan_in, fan_out)) * scale, jnp.zeros(fan_out)))
    return params


def predict(params, x):
    """Logits for one example x (64,) -> (10,)."""
    h = x
    for W, b in params[:-1]:
        h = jax.nn.relu(h @ W + b)
    W, b = params[-1]
    return h @ W + b


def loss_fn(params, x, y):
    """Mean softmax cross-entropy over a batch (x: (B, 64), y: (B,) ints)."""
    logits = jax.vmap(predict, in_axes=(None, 0))(params, x)
    log_probs = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(log_probs, y[:, None], axis=1)) if hasattr(jnp, "take_along_axis") else \
        -jnp.mean(jnp.sum(log_probs * jax.nn.one_hot(y, 10), axis=-1))


def adam_init(params):
    zeros = jax.tree.map(jnp.zeros_like, params)
    return {"m": zeros, "v": zeros, "t": jnp.zeros((), jnp.int32)}


def adam_update(params, grads, state, lr=1e-2, b1=0.9, b2=0.999, eps=1e-8):
    t = state["t"] + 1
    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, state["m"], grads)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, state["v"], grads)
    scale = lr * jnp.sqrt(1 - b2 ** t.astype(jnp.float32)) / (1 - b1 ** t.astype(jnp.float32))
    params = jax.tree.map(lambda p, m, v: p - scale * m / (jnp.sqrt(v) + eps), params, m, v)
    return params, {"m": m, "v": v, "t": t}


@jax.jit
def train_step(params, opt_state, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    params, opt_state = adam_update(params, grads, opt_state)
    return params, opt_state, loss


@jax.jit
def accuracy(params, x, y):
    logits = jax.vmap(predict, in_axes=(None, 0))(params, x)
    return jnp.mean((jnp.argmax(logits, axis=-1) == y).astype(jnp.float32))


def load_digits(seed: int):
    from sklearn.datasets import load_digits

    data = load_digits()
    x = (data.data / 16.0).astype(np.float32)
    y = data.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(x))
    x, y = x[order], y[order]
    split = int(0.8 * len(x))
    return (x[:split], y[:split]), (x[split:], y[split:])


def abridged(text: str, head: int = 12, tail: int = 4) -> str:
    lines = text.splitlines()
    if len(lines) <= head + tail:
        return text
    return "\n".join(lines[:head] + [f"    ... ({len(lines) - head - tail} more lines) ..."] + lines[-tail:])


def train(epochs: int = 15, seed: int = 0, batch_size: int = 64, quiet: bool = False) -> dict:
    (x_train, y_train), (x_test, y_test) = load_digits(seed)
    key = random.key(seed)
    params = init_params(key, [64, 128, 64, 10])
    opt_state = adam_init(params)
    steps_per_epoch = len(x_train) // batch_size

    x0, y0 = jnp.asarray(x_train[:batch_size]), jnp.asarray(y_train[:batch_size])
    if not quiet:
        print("jaxpr of the update step (abridged):")
        print(abridged(str(jax.make_jaxpr(train_step)(params, opt_state, x0, y0))))
    t0 = time.perf_counter()
    jax.block_until_ready(train_step(params, opt_state, x0, y0))
    compile_s = time.perf_counter() - t0
    if not quiet:
        print(f"\ntrace + compile + first step: {compile_s * 1e3:.1f} ms")

    try:
        from tqdm import tqdm
    except ImportError:  # the progress bar is optional
        def tqdm(iterable, **_):
            return iterable

    rng = np.random.default_rng(seed)
    losses, steps, train_time = [], 0, 0.0
    for epoch in tqdm(range(epochs), desc="epochs", disable=quiet):
        order = rng.permutation(len(x_train))
        epoch_loss = 0.0
        start = time.perf_counter()
        for i in range(steps_per_epoch):
            idx = order[i * batch_size:(i + 1) * batch_size]
            params, opt_state, loss = train_step(params, opt_state, jnp.asarray(x_train[idx]), jnp.asarray(y_train[idx]))
            epoch_loss += float(loss)
            steps += 1
        train_time += time.perf_counter() - start
        losses.append(epoch_loss / steps_per_epoch)
        if not quiet:
            tqdm.write(f"epoch {epoch + 1:2d}  loss {losses[-1]:.4f}") if hasattr(tqdm, "write") else print(
                f"epoch {epoch + 1:2d}  loss {losses[-1]:.4f}")
    test_accuracy = float(accuracy(params, jnp.asarray(x_test), jnp.asarray(y_test)))
    result = {"losses": losses, "test_accuracy": test_accuracy, "compile_s": compile_s,
              "steps_per_s": steps / max(train_time, 1e-9), "params": params}
    if not quiet:
        print(f"\n{result['steps_per_s']:.0f} steps/s; test accuracy {test_accuracy * 100:.2f}%")
    return result


def tour() -> None:
    """The tracing machine: seed jaxprs and the tracer errors."""
    print(jax.make_jaxpr(lambda x: jnp.maximum(x * 2.0 + 1.0, 0.0))(jnp.float32(3.0)))
    print(jax.make_jaxpr(lambda x: jax.nn.softmax(x @ x.T))(jnp.ones((4, 8))))
    print(jax.make_jaxpr(jax.grad(lambda x: jnp.sum(jnp.sin(x) ** 2)))(jnp.ones(3)))
    print(jax.make_jaxpr(jax.vmap(jnp.dot))(jnp.ones((32, 5)), jnp.ones((32, 5))))

    def bad(x):
        if x > 0:
            return x
        return -x

    try:
        jax.jit(bad)(1.0)
    except jax.errors.TracerBoolConversionError as e:
        print(f"{type(e).__name__}: {str(e).splitlines()[0]}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Train an MLP on handwritten digits with pyjax.")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--backend", default="numpy", choices=["numpy"], help="execution backend")
    parser.add_argument("--tour", action="store_true", help="print the tracing tour instead of training")
    args = parser.parse_args(argv)
    if args.tour:
        tour()
        return
    train(args.epochs, args.seed, args.batch_size)


if __name__ == "__main__":
    main()
