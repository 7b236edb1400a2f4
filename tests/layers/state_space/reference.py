"""NumPy references written from the equations: a plain loop over t, in float64 and complex128."""

import numpy as np


def softplus(z):
    return np.logaddexp(0.0, z)


def diagonal_discretised(layer):
    """Ā and B̄ of a built DiagonalStateSpace by zero-order hold, complex (channels, N)."""
    weights = {w.name: np.asarray(w.numpy(), dtype=np.float64) for w in layer.weights}
    A = -np.exp(weights["log_A_real"]) + 1j * weights.get("A_imag", 0.0)
    dt = np.exp(weights["log_dt"])[:, None]
    A_bar = np.exp(dt * A)
    B_bar = (A_bar - 1.0) / (dt * A) * dt * weights["B"]  # (ΔA)^{-1}(exp(ΔA) - I) ΔB, A diagonal
    return A_bar, B_bar


def diagonal_loop(layer, u, x0=None):
    """x_t = Ā x_{t-1} + B̄ u_t, y_t = Re(C x_t) + D u_t: returns (y (B, L, H), x (B, L, H, N) complex)."""
    weights = {w.name: np.asarray(w.numpy(), dtype=np.float64) for w in layer.weights}
    C = weights["C_real"] + 1j * weights.get("C_imag", 0.0)
    A_bar, B_bar = diagonal_discretised(layer)
    x = np.zeros(u.shape[:1] + A_bar.shape, dtype=complex) if x0 is None else x0
    ys, xs = [], []
    for t in range(u.shape[1]):
        x = A_bar * x + B_bar * u[:, t, :, None]
        ys.append((C * x).sum(-1).real + weights["D"] * u[:, t])
        xs.append(x)
    return np.stack(ys, 1), np.stack(xs, 1)


def selective_loop(layer, u, x0=None):
    """Mamba's S6 step by step: returns (y (B, L, H), x (B, L, H, N))."""
    weights = {w.name: np.asarray(w.numpy(), dtype=np.float64) for w in layer.weights}
    W_delta = weights["dt_kernel"] if "dt_kernel" in weights else weights["dt_down"] @ weights["dt_up"]
    A = -np.exp(weights["A_log"])  # (H, N)
    x = np.zeros(u.shape[:1] + A.shape) if x0 is None else x0
    ys, xs = [], []
    for t in range(u.shape[1]):
        u_t = u[:, t]  # (B, H)
        delta = softplus(u_t @ W_delta + weights["dt_bias"])  # Δ_t (B, H)
        B_t, C_t = u_t @ weights["B_kernel"], u_t @ weights["C_kernel"]  # (B, N)
        A_bar = np.exp(delta[..., None] * A)  # (B, H, N)
        B_bar = delta[..., None] * B_t[:, None, :]  # Δ_t B_t
        x = A_bar * x + B_bar * u_t[..., None]
        ys.append(np.einsum("bhn,bn->bh", x, C_t) + weights["D"] * u_t)
        xs.append(x)
    return np.stack(ys, 1), np.stack(xs, 1)
