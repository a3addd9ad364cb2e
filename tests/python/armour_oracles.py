"""PyTorch oracles of the adversarial attacks, written from the papers' definitions with
MindArmour's conventions (eps as a share of the data range [0, 1], softmax cross entropy on
one-hot labels), and the PyTorch twin of examples/lenet.py's LeNet5. Test and benchmark
reference only (tests/python/test_armour_attacks.py, bench/armour_bench.py); mycel never
imports it, and it imports no mycel."""
import numpy as np
import torch


def torch_lenet():
    """The PyTorch twin of examples/lenet.py's LeNet5 (same layers, same weight layouts; the
    convolutions have no bias, as MindSpore's Conv2d by default)."""
    F = torch.nn.functional

    class TorchLeNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = torch.nn.Conv2d(1, 6, 5, padding=2, bias=False)
            self.conv2 = torch.nn.Conv2d(6, 16, 5, bias=False)
            self.fc1 = torch.nn.Linear(400, 120)
            self.fc2 = torch.nn.Linear(120, 84)
            self.fc3 = torch.nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2, 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2, 2)
            x = F.relu(self.fc1(x.flatten(1)))
            return self.fc3(F.relu(self.fc2(x)))

    return TorchLeNet()


def t_grad(tnet, x, onehot):
    """d/dx of the summed softmax cross entropy against one-hot labels."""
    xt = torch.tensor(x, requires_grad=True)
    loss = -(torch.from_numpy(onehot) * torch.log_softmax(tnet(xt), 1)).sum()
    loss.backward()
    return xt.grad.numpy()


def t_fgsm(tnet, x, onehot, eps, targeted=False, lo=0.0, hi=1.0):
    """Goodfellow et al.: one step of eps * range along the gradient's sign (against it
    when targeted), clipped to [lo, hi]."""
    g = t_grad(tnet, x, onehot)
    d = np.sign(-g if targeted else g)
    return np.clip(x + eps * (hi - lo) * d, lo, hi).astype(np.float32)


def t_fgm_l2(tnet, x, onehot, eps):
    """One step of l2 length eps along the gradient, clipped to [0, 1]."""
    g = t_grad(tnet, x, onehot).reshape(len(x), -1)
    g = g / (np.sqrt((g.astype(np.float64) ** 2).sum(1, keepdims=True)) + 1e-12)
    return np.clip(x + eps * g.reshape(x.shape), 0, 1).astype(np.float32)


def t_bim(tnet, x, onehot, eps, eps_iter, nb_iter, project=None):
    """Kurakin et al. (and Madry et al. with project): FGSM steps of eps_iter, the total
    perturbation clipped to [-eps, eps] (or projected) after each, then to [0, 1]."""
    adv = x
    for _ in range(nb_iter):
        step = t_fgsm(tnet, adv, onehot, eps_iter)
        delta = np.clip(step - x, -eps, eps) if project is None else project(step - x)
        adv = np.clip(x + delta, 0, 1).astype(np.float32)
    return adv


def t_l2_ball(radius):
    """Projection onto the l2 ball of the radius, per sample."""
    def project(delta):
        flat = delta.reshape(len(delta), -1).astype(np.float64)
        norm = np.sqrt((flat ** 2).sum(1, keepdims=True))
        scale = np.where(norm > radius, radius / np.maximum(norm, 1e-12), 1.0)
        return (flat * scale).reshape(delta.shape)
    return project


def t_mim(tnet, x, onehot, eps, eps_iter, nb_iter, decay):
    """Dong et al.: momentum of l-inf-normalised gradients, sign steps of eps_iter."""
    adv, m = x, np.zeros_like(x)
    for _ in range(nb_iter):
        g = t_grad(tnet, adv, onehot).reshape(len(x), -1)
        g = g / (np.abs(g).max(1, keepdims=True) + 1e-12)
        m = decay * m + g.reshape(x.shape)
        adv = np.clip(x + np.clip(adv + eps_iter * np.sign(m) - x, -eps, eps), 0, 1)
        adv = adv.astype(np.float32)
    return adv


def t_jacobian(tnet, x):
    """(logits [N, K], their input gradients [N, K, ...])."""
    xt = torch.tensor(x, requires_grad=True)
    out = tnet(xt)
    rows = [torch.autograd.grad(out[:, k].sum(), xt, retain_graph=True)[0].numpy()
            for k in range(out.shape[1])]
    return out.detach().numpy(), np.stack(rows, 1)        # [N, K], [N, K, ...]


def t_deepfool(tnet, x, y, max_iters, overshoot):
    """Moosavi-Dezfooli et al.: move each sample by the l2 step to the closest linearised
    boundary until its class changes; the point is x + (1 + overshoot) r_total."""
    r = np.zeros(x.shape, np.float64)
    adv = x
    for _ in range(max_iters):
        logits, jac = t_jacobian(tnet, adv)
        todo = logits.argmax(1) == y
        if not todo.any():
            break
        for i in np.flatnonzero(todo):
            best, step = np.inf, None
            for k in range(logits.shape[1]):
                if k == y[i]:
                    continue
                w = (jac[i, k] - jac[i, y[i]]).astype(np.float64)
                f = logits[i, k] - logits[i, y[i]]
                d = abs(f) / (np.linalg.norm(w) + 1e-12)
                if d < best:
                    best, step = d, (abs(f) + 1e-4) / (np.sum(w * w) + 1e-12) * w
            r[i] += step
        adv = np.clip(x + (1 + overshoot) * r, 0, 1).astype(np.float32)
    return adv


def t_cw(tnet, x, y, steps, iters, lr, const0, conf=0.0):
    """Carlini-Wagner L2 (untargeted) with Adam in tanh space and a binary search on c."""
    n = len(x)
    onehot = torch.from_numpy(np.eye(10, dtype=np.float32)[y])
    w0 = np.arctanh(np.clip(x * 2 - 1, -1, 1) * 0.999999).astype(np.float32)
    const = np.full(n, const0, np.float32)
    lower, upper = np.zeros(n), np.full(n, 1e10)
    best_l2, best = np.full(n, np.inf), x.copy()
    check = max(int(iters * 0.05), 1)
    for _ in range(steps):
        w = torch.tensor(w0, requires_grad=True)
        m, v = torch.zeros_like(w), torch.zeros_like(w)
        ok_any, prev = np.zeros(n, bool), np.inf
        for it in range(1, iters + 1):
            xa = torch.tanh(w) * 0.5 + 0.5
            l2 = ((xa - torch.from_numpy(x)) ** 2).flatten(1).sum(1)
            z = tnet(xa)
            real = (z * onehot).sum(1)
            other = (z - onehot * 1e10).max(1).values
            loss = (l2 + torch.from_numpy(const) * torch.clamp(real - other + conf, min=0)).sum()
            g, = torch.autograd.grad(loss, w)
            zn = z.detach().numpy().copy()
            zn[np.arange(n), y] += conf
            ok = zn.argmax(1) != y
            l2n = l2.detach().numpy()
            better = ok & (l2n < best_l2)
            best_l2[better] = l2n[better]
            best[better] = xa.detach().numpy()[better]
            ok_any |= ok
            with torch.no_grad():
                m = 0.9 * m + 0.1 * g
                v = 0.999 * v + 0.001 * g * g
                w -= lr * (m / (1 - 0.9 ** it)) / (torch.sqrt(v / (1 - 0.999 ** it)) + 1e-8)
            if it % check == 0:
                if loss.item() > prev * 0.9999:
                    break
                prev = loss.item()
        upper = np.where(ok_any, np.minimum(upper, const), upper)
        lower = np.where(ok_any, lower, np.maximum(lower, const))
        const = np.where(upper < 1e10, (lower + upper) / 2, const * 10).astype(np.float32)
    return best


def t_jsma(tnet, x, target, theta, max_iteration, max_count=3, lo=0.0, hi=1.0):
    """Papernot et al.'s Jacobian saliency map attack, increasing features: while a sample
    is not classified as its target, among the pairs (p, q) of its features that are below hi
    and were changed fewer than max_count times, with alpha = dZ_t/dx_p + dZ_t/dx_q > 0 and
    beta = sum over j != t of (dZ_j/dx_p + dZ_j/dx_q) < 0, the pair of largest alpha |beta|
    (the first in row-major order on ties) moves by theta (hi - lo), clipped; a sample with no
    such pair stops."""
    n = len(x)
    adv = x.reshape(n, -1).astype(np.float32).copy()
    counts = np.zeros(adv.shape, np.int64)
    stopped = np.zeros(n, bool)
    for _ in range(max_iteration):
        logits, jac = t_jacobian(tnet, adv.reshape(x.shape))
        todo = (logits.argmax(1) != target) & ~stopped
        if not todo.any():
            break
        for i in np.flatnonzero(todo):
            rows = torch.from_numpy(jac[i].reshape(jac.shape[1], -1))
            alpha = rows[target[i]]
            beta = rows.sum(0) - alpha
            domain = torch.from_numpy(np.flatnonzero((adv[i] < hi) & (counts[i] < max_count)))
            a = alpha[domain][:, None] + alpha[domain][None, :]
            b = beta[domain][:, None] + beta[domain][None, :]
            valid = (a > 0) & (b < 0) & ~torch.eye(len(domain), dtype=torch.bool)
            if not valid.any():
                stopped[i] = True
                continue
            score = torch.where(valid, a * b.abs(), torch.full_like(a, -1.0))
            k = int(score.flatten().argmax())
            for f in (domain[k // len(domain)], domain[k % len(domain)]):
                adv[i, f] = np.clip(adv[i, f] + theta * (hi - lo), lo, hi)
                counts[i, f] += 1
    return adv.reshape(x.shape)
