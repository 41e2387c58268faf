"""Network workloads: CNN training steps, a ResNet block, a transformer block, an LSTM."""


def _conv(lax, x, w, stride=1):
    return lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))


def _batch_norm(jnp, x, gamma, beta, eps=1e-5):
    mean = jnp.mean(x, axis=(0, 1, 2))
    var = jnp.var(x, axis=(0, 1, 2))
    return gamma * (x - mean) / jnp.sqrt(var + eps) + beta


def _max_pool(lax, jnp, x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def _avg_pool(lax, x):
    return lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0


def _log_softmax(jnp, z):
    z = z - jnp.max(z, axis=-1, keepdims=True)
    return z - jnp.log(jnp.sum(jnp.exp(z), axis=-1, keepdims=True))


def _xent(jnp, logits, y, n):
    onehot = (y[:, None] == jnp.arange(n)[None, :]).astype(jnp.float32)
    return -jnp.mean(jnp.sum(onehot * _log_softmax(jnp, logits), axis=-1))


def _cnn(ctx, res, common, batch, hw, c1, c2):
    jax, jnp, lax = ctx.jax, ctx.jnp, ctx.lax
    flat = (hw // 4) * (hw // 4) * c2
    params = (ctx.randn((3, 3, 1, c1), 0.3, seed=1), jnp.ones((c1,)), jnp.zeros((c1,)),
              ctx.randn((3, 3, c1, c2), 0.1, seed=2), jnp.ones((c2,)), jnp.zeros((c2,)),
              ctx.randn((flat, 10), 0.05, seed=3), jnp.zeros((10,)))
    data = [(ctx.randn((batch, hw, hw, 1), seed=10 + s), ctx.randint((batch,), 10, seed=20 + s))
            for s in range(2)]

    def step(params, x, y):
        def loss_fn(p, x, y):
            w1, g1, b1, w2, g2, b2, wd, bd = p
            h = jnp.maximum(_batch_norm(jnp, _conv(lax, x, w1), g1, b1), 0.0)
            h = _max_pool(lax, jnp, h)
            h = jnp.maximum(_batch_norm(jnp, _conv(lax, h, w2), g2, b2), 0.0)
            h = _avg_pool(lax, h)
            return _xent(jnp, h.reshape(h.shape[0], -1) @ wd + bd, y, 10)

        loss, g = jax.value_and_grad(loss_fn)(params, x, y)
        return tuple(p - 0.05 * gi for p, gi in zip(params, g)), loss

    common.measure(ctx, res, step, [(params,) + d for d in data], feedback=common.sgd_feedback())
    ctx.extra(steps_per_s=1.0 / res["steady_s"])


def _resnet_block(ctx, res, common):
    jax, jnp, lax = ctx.jax, ctx.jnp, ctx.lax
    C = 32
    params = (ctx.randn((3, 3, C, C), 0.06, seed=1), jnp.ones((C,)), jnp.zeros((C,)),
              ctx.randn((3, 3, C, C), 0.06, seed=2), jnp.ones((C,)), jnp.zeros((C,)))
    xs = [ctx.randn((8, 16, 16, C), seed=s) for s in (5, 6)]

    def fwd_bwd(params, x):
        def block(p, x):
            w1, g1, b1, w2, g2, b2 = p
            h = jnp.maximum(_batch_norm(jnp, _conv(lax, x, w1), g1, b1), 0.0)
            h = _batch_norm(jnp, _conv(lax, h, w2), g2, b2)
            return jnp.maximum(h + x, 0.0)

        out, vjp = jax.vjp(block, params, x)
        return out, vjp(jnp.ones_like(out))

    common.measure(ctx, res, fwd_bwd, [(params, x) for x in xs])


def _layer_norm(jnp, x, g, b):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
    return g * (x - m) / jnp.sqrt(v + 1e-5) + b


def _transformer_params(ctx, d, f):
    jnp = ctx.jnp
    return (jnp.ones((d,)), jnp.zeros((d,)), ctx.randn((d, 3 * d), d ** -0.5, seed=1),
            ctx.randn((d, d), d ** -0.5, seed=2), jnp.ones((d,)), jnp.zeros((d,)),
            ctx.randn((d, f), d ** -0.5, seed=3), jnp.zeros((f,)),
            ctx.randn((f, d), f ** -0.5, seed=4), jnp.zeros((d,)))


def _transformer_block(jax, jnp, p, x, heads):
    g1, b1, wqkv, wo, g2, b2, w1, c1, w2, c2 = p
    B, T, D = x.shape
    hd = D // heads
    q, k, v = jnp.split(_layer_norm(jnp, x, g1, b1) @ wqkv, 3, axis=-1)
    q, k, v = (t.reshape(B, T, heads, hd).transpose(0, 2, 1, 3) for t in (q, k, v))
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(jnp.float32(hd))
    mask = jnp.tril(jnp.ones((T, T), dtype=bool))
    a = jax.nn.softmax(jnp.where(mask, s, -1e9), axis=-1)
    o = jnp.einsum("bhqk,bhkd->bhqd", a, v).transpose(0, 2, 1, 3).reshape(B, T, D)
    x = x + o @ wo
    h = jax.nn.gelu(_layer_norm(jnp, x, g2, b2) @ w1 + c1)
    return x + h @ w2 + c2


def _transformer(ctx, res, common, B, T, D, heads, grad):
    jax, jnp = ctx.jax, ctx.jnp
    params = _transformer_params(ctx, D, 4 * D)
    xs = [ctx.randn((B, T, D), seed=s) for s in (7, 8)]

    def fwd(params, x):
        return _transformer_block(jax, jnp, params, x, heads)

    def loss_grad(params, x):
        return jax.value_and_grad(lambda p, x: jnp.mean(fwd(p, x) ** 2))(params, x)

    common.measure(ctx, res, loss_grad if grad else fwd, [(params, x) for x in xs])


def _lstm(ctx, res, common, T, B, H):
    jax, jnp, lax = ctx.jax, ctx.jnp, ctx.lax
    params = (ctx.randn((H, 4 * H), H ** -0.5, seed=1), ctx.randn((H, 4 * H), H ** -0.5, seed=2),
              ctx.jnp.zeros((4 * H,)), ctx.randn((H, 1), H ** -0.5, seed=3))
    data = [(ctx.randn((T, B, H), seed=s), ctx.randn((B, 1), seed=s + 10)) for s in (4, 5)]

    def step(params, xs, y):
        def loss_fn(p, xs, y):
            wx, wh, b, wout = p

            def cell(carry, x):
                h, c = carry
                z = x @ wx + h @ wh + b
                i, f, g, o = jnp.split(z, 4, axis=-1)
                c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
                h = jax.nn.sigmoid(o) * jnp.tanh(c)
                return (h, c), None

            h0 = jnp.zeros((xs.shape[1], H))
            (h, _), _ = lax.scan(cell, (h0, h0), xs)
            return jnp.mean((h @ wout - y) ** 2)

        loss, g = jax.value_and_grad(loss_fn)(params, xs, y)
        return tuple(p - 0.01 * gi for p, gi in zip(params, g)), loss

    common.measure(ctx, res, step, [(params,) + d for d in data], feedback=common.sgd_feedback())


def register(workload, common):
    @workload("cnn_train_small", budget=5, desc="CNN conv-bn-relu-maxpool x2 + dense, batch 8, 28x28, grad + SGD")
    def wl_cnn_small(ctx, res):
        _cnn(ctx, res, common, 8, 28, 8, 16)

    @workload("cnn_train_large", budget=8, desc="the same CNN, batch 64, 32x32, 32/64 channels")
    def wl_cnn_large(ctx, res):
        _cnn(ctx, res, common, 64, 32, 32, 64)

    @workload("resnet_block_vjp", budget=6, desc="ResNet basic block (conv-bn-relu-conv-bn + skip), 8x16x16x32, forward + vjp")
    def wl_resnet(ctx, res):
        _resnet_block(ctx, res, common)

    @workload("transformer_fwd_small", budget=4, desc="pre-LN transformer block, batch 2, seq 16, d 64, 4 heads, forward")
    def wl_tf_small(ctx, res):
        _transformer(ctx, res, common, 2, 16, 64, 4, grad=False)

    @workload("transformer_grad", budget=7, desc="transformer block, batch 4, seq 128, d 128, 4 heads, value_and_grad")
    def wl_tf_grad(ctx, res):
        _transformer(ctx, res, common, 4, 128, 128, 4, grad=True)

    @workload("lstm_train_step", budget=6, desc="LSTM (lax.scan) over 50 steps, batch 16, hidden 64, BPTT grad + SGD")
    def wl_lstm(ctx, res):
        _lstm(ctx, res, common, 50, 16, 64)
