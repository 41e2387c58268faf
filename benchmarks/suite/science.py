"""Scientific workloads: random draws in loops, GP likelihood, linear algebra, an ODE,
gather/scatter, sorting, FFT convolution and a numpyro-style log density under vmap."""
import importlib


def _sub(ctx, name):
    """jax.scipy.* of the implementation under test (jax.<name> or pyjax.<name>)."""
    return importlib.import_module(ctx.jax.__name__ + "." + name)


def _mc_fori(ctx, res, common, iters, n):
    jax, jnp, lax, random = ctx.jax, ctx.jnp, ctx.lax, ctx.random

    def estimate_pi(key):
        def body(i, carry):
            key, acc = carry
            key, sub = random.split(key)
            u = random.uniform(sub, (2, n))
            inside = (u[0] * u[0] + u[1] * u[1] < 1.0).astype(jnp.float32)
            return key, acc + 4.0 * jnp.mean(inside) / iters
        return lax.fori_loop(0, iters, body, (key, jnp.float32(0.0)))[1]

    common.measure(ctx, res, estimate_pi, [(random.PRNGKey(s),) for s in (0, 1)])


def _mcmc(ctx, res, common, steps, chains, dim):
    jnp, lax, random = ctx.jnp, ctx.lax, ctx.random
    A = ctx.randn((dim, dim), 0.3, seed=3)
    prec = A @ A.T + jnp.eye(dim)

    def logp(x):
        return -0.5 * jnp.sum((x @ prec) * x, axis=-1)

    def run(key, x0):
        def step(carry, key):
            x, lp = carry
            k1, k2 = random.split(key)
            prop = x + 0.3 * random.normal(k1, x.shape)
            lp_prop = logp(prop)
            accept = jnp.log(random.uniform(k2, lp.shape)) < lp_prop - lp
            x = jnp.where(accept[:, None], prop, x)
            return (x, jnp.where(accept, lp_prop, lp)), jnp.mean(accept)
        (x, _), rate = lax.scan(step, (x0, logp(x0)), random.split(key, steps))
        return jnp.mean(x, axis=0), jnp.mean(rate)

    common.measure(ctx, res, run, [(random.PRNGKey(s), ctx.randn((chains, dim), seed=s))
                                   for s in (0, 1)])


def _gp(ctx, res, common, n):
    jax, jnp = ctx.jax, ctx.jnp
    sl = _sub(ctx, "scipy.linalg")

    def nll(theta, X, y):
        ls, var, noise = jnp.exp(theta[0]), jnp.exp(theta[1]), jnp.exp(theta[2])
        d2 = jnp.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
        K = var * jnp.exp(-0.5 * d2 / ls ** 2) + (noise + 1e-4) * jnp.eye(X.shape[0])
        L = sl.cholesky(K, lower=True)
        alpha = sl.solve_triangular(L.T, sl.solve_triangular(L, y, lower=True), lower=False)
        return 0.5 * y @ alpha + jnp.sum(jnp.log(jnp.diag(L))) + 0.5 * n * jnp.log(2 * jnp.pi)

    f = jax.value_and_grad(nll)
    X = ctx.uniform((n, 3), -2.0, 2.0, seed=1)
    y = jnp.sin(X[:, 0]) + 0.1 * ctx.randn((n,), seed=2)
    thetas = [jnp.asarray(ctx.np.array(t, ctx.np.float32)) for t in ([0.0, 0.0, -2.0], [0.2, -0.1, -1.5])]

    def step(theta, X, y):
        return f(theta, X, y)

    common.measure(ctx, res, step, [(t, X, y) for t in thetas])


def _lstsq_eigh(ctx, res, common):
    jnp = ctx.jnp

    def solve(A, B, S):
        x, *_ = jnp.linalg.lstsq(A, B)
        w, v = jnp.linalg.eigh(S @ S.T)
        return x, w, jnp.abs(v[:, -1])

    common.measure(ctx, res, solve, [(ctx.randn((256, 64), seed=s), ctx.randn((256, 4), seed=s + 1),
                                      ctx.randn((128, 128), seed=s + 2)) for s in (0, 10)])


def _ode(ctx, res, common, dim, t_end, dt):
    jnp, lax = ctx.jnp, ctx.lax

    def lorenz96(x):
        return (jnp.roll(x, -1) - jnp.roll(x, 2)) * jnp.roll(x, 1) - x + 8.0

    def integrate(x0):
        def cond(c):
            return c[0] < t_end

        def body(c):
            t, x = c
            k1 = lorenz96(x)
            k2 = lorenz96(x + 0.5 * dt * k1)
            k3 = lorenz96(x + 0.5 * dt * k2)
            k4 = lorenz96(x + dt * k3)
            return t + dt, x + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        return lax.while_loop(cond, body, (jnp.float32(0.0), x0))[1]

    common.measure(ctx, res, integrate, [(8.0 + ctx.randn((dim,), 0.01, seed=s),) for s in (0, 1)])


def _embedding(ctx, res, common, vocab, dim, n_ids, n_seg):
    jax, jnp = ctx.jax, ctx.jnp
    ops = _sub(ctx, "ops")
    np = ctx.np
    seg = jnp.asarray(np.sort(np.random.RandomState(3).randint(0, n_seg, n_ids)).astype(np.int32))

    def step(table, ids, w):
        def loss(table):
            pooled = ops.segment_sum(table[ids], seg, num_segments=n_seg)
            return jnp.mean((pooled @ w) ** 2)
        l, g = jax.value_and_grad(loss)(table)
        return table - 0.1 * g, l

    w = ctx.randn((dim, 8), 0.1, seed=4)
    common.measure(ctx, res, step, [(ctx.randn((vocab, dim), 0.1, seed=s), ctx.randint((n_ids,), vocab, seed=s + 1), w)
                                    for s in (0, 10)], feedback=common.sgd_feedback())


def _sort_topk(ctx, res, common):
    jnp, lax = ctx.jnp, ctx.lax

    def f(x):
        vals, idx = lax.top_k(x, 16)
        return jnp.sort(x, axis=-1)[:, ::512], vals, idx, jnp.argsort(x[0])[:32]

    common.measure(ctx, res, f, [(ctx.randn((64, 4096), seed=s),) for s in (0, 1)])


def _fft_conv(ctx, res, common):
    jnp = ctx.jnp

    def conv(sig, ker):
        n = sig.shape[-1] + ker.shape[-1] - 1
        m = 1 << (n - 1).bit_length()
        out = jnp.fft.irfft(jnp.fft.rfft(sig, m) * jnp.fft.rfft(ker, m), m)[..., :n]
        img = jnp.fft.ifft2(jnp.fft.fft2(sig.reshape(-1, 128, 64))).real
        return out, img

    common.measure(ctx, res, conv, [(ctx.randn((16, 8192), seed=s), ctx.randn((16, 1024), 0.05, seed=s + 1))
                                    for s in (0, 1)])


def _logdensity(ctx, res, common, draws):
    jax, jnp = ctx.jax, ctx.jnp
    st = _sub(ctx, "scipy.stats")
    y = jnp.asarray([28., 8., -3., 7., -1., 1., 18., 12.])
    sigma = jnp.asarray([15., 10., 16., 11., 9., 11., 10., 18.])

    def log_density(z):
        mu, log_tau, theta_t = z[0], z[1], z[2:]
        tau = jnp.exp(log_tau)
        theta = mu + tau * theta_t
        lp = st.norm.logpdf(mu, 0.0, 5.0) + st.cauchy.logpdf(tau, 0.0, 5.0) + log_tau
        lp = lp + jnp.sum(st.norm.logpdf(theta_t, 0.0, 1.0))
        return lp + jnp.sum(st.norm.logpdf(y, theta, sigma))

    f = jax.vmap(jax.value_and_grad(log_density))

    def evaluate(zs):
        return f(zs)

    common.measure(ctx, res, evaluate, [(ctx.randn((draws, 10), seed=s),) for s in (0, 1)])


def register(workload, common):
    @workload("mc_fori_random", budget=5, desc="fori_loop of 500 iterations: random.split + uniform((2,256)) + arithmetic (pi estimate)")
    def wl_mc(ctx, res):
        _mc_fori(ctx, res, common, 500, 256)

    @workload("mcmc_scan", budget=6, desc="random-walk Metropolis, lax.scan over 500 steps, 64 chains, dim 16")
    def wl_mcmc(ctx, res):
        _mcmc(ctx, res, common, 500, 64, 16)

    @workload("gp_nll_grad_small", budget=4, desc="GP negative log likelihood + grad (Cholesky, 2 triangular solves), n=64")
    def wl_gp_small(ctx, res):
        _gp(ctx, res, common, 64)

    @workload("gp_nll_grad_large", budget=7, desc="the same GP, n=800")
    def wl_gp_large(ctx, res):
        _gp(ctx, res, common, 800)

    @workload("lstsq_eigh", budget=5, desc="lstsq 256x64 (4 rhs) + eigh 128x128")
    def wl_lstsq(ctx, res):
        _lstsq_eigh(ctx, res, common)

    @workload("ode_rk4_while", budget=5, desc="RK4 on Lorenz-96 (dim 40) in while_loop, 400 steps")
    def wl_ode(ctx, res):
        _ode(ctx, res, common, 40, 4.0, 0.01)

    @workload("embedding_segment_sum", budget=6, desc="embedding gather (20000x64, 16384 ids) + segment_sum (1024) + grad (scatter-add) + SGD")
    def wl_emb(ctx, res):
        _embedding(ctx, res, common, 20000, 64, 16384, 1024)

    @workload("sort_topk", budget=5, desc="sort (64,4096) rows + top_k 16 + argsort 4096")
    def wl_sort(ctx, res):
        _sort_topk(ctx, res, common)

    @workload("fft_convolution", budget=5, desc="rfft/irfft convolution 16x8192 with 16x1024 (n=16384) + fft2/ifft2 of 16x128x64")
    def wl_fft(ctx, res):
        _fft_conv(ctx, res, common)

    @workload("logdensity_vmap_grad", budget=5, desc="eight-schools non-centred log density, value_and_grad under vmap over 1000 draws")
    def wl_logd(ctx, res):
        _logdensity(ctx, res, common, 1000)
