"""Sparse x dense products against torch.sparse.mm: `sparse_bench.py` prints one JSON object.

Both frameworks run in this one process on one compute thread each (mycel's pool and torch's
intra-op threads set to 1), interleaved: each round times mycel then PyTorch on the same
operands, and the result is the median over rounds of the process CPU time per call (the
machine may be shared), with the range of the rounds' own ratios as the noise. A call includes
reading the result back as a numpy array. mycel: ops.csr_mm of a CSRTensor (the fused CSRMM op),
SparseTensorDenseMatmul of unsorted COO indices (the fused COOMM op, one pass) and the
gradient of sum(csr_mm(A, B) * W) by the values and B; PyTorch: torch.sparse.mm of a CSR tensor,
of a COO tensor made in the call from the same unsorted indices and values (as
SparseTensorDenseMatmul gets them), and the same gradient through torch.sparse.mm of a COO
tensor built in the differentiated function."""
import json
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = int(os.environ.get("SPARSE_BENCH_ROUNDS", "7"))


def cpu_per_call(fn, reps):
    t = time.process_time()
    for _ in range(reps):
        fn()
    return (time.process_time() - t) / reps


def operands(m, k, n, density, seed=0):
    rng = np.random.default_rng(seed)
    nnz = int(m * k * density)
    keys = np.unique(rng.integers(0, m * k, nnz))
    rows, cols = keys // k, keys % k
    vals = rng.standard_normal(len(keys)).astype(np.float32)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=m))]).astype(np.int64)
    dense = rng.standard_normal((k, n)).astype(np.float32)
    return rows, cols, vals, indptr, dense


def main():
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import torch
    import mycel as ms
    from mycel import ops
    torch.set_num_threads(1)
    ms._mycel.set_num_threads(1)
    out = {}
    sizes = [((4096, 4096, 64, 0.01), "[4096, 4096] 1% x [4096, 64]"),
             ((10000, 10000, 16, 0.001), "[10000, 10000] 0.1% x [10000, 16]"),
             ((1024, 1024, 256, 0.05), "[1024, 1024] 5% x [1024, 256]")]
    for (m, k, n, dens), shape in sizes:
        rows, cols, vals, indptr, dense = operands(m, k, n, dens)
        a = ms.CSRTensor(ms.Tensor(indptr), ms.Tensor(cols.astype(np.int64)), ms.Tensor(vals),
                         (m, k))
        b = ms.Tensor(dense)
        ta = torch.sparse_csr_tensor(torch.from_numpy(indptr), torch.from_numpy(cols),
                                     torch.from_numpy(vals), (m, k))
        tb = torch.from_numpy(dense)
        perm = np.random.default_rng(1).permutation(len(vals))
        coo_idx = ms.Tensor(np.stack([rows, cols], 1)[perm].astype(np.int64))
        coo_val = ms.Tensor(vals[perm])
        stdm = ops.SparseTensorDenseMatmul()
        t_uidx = torch.from_numpy(np.stack([rows, cols])[:, perm].copy())
        t_uval = torch.from_numpy(vals[perm].copy())
        w = np.random.default_rng(2).standard_normal((m, n)).astype(np.float32)
        mw = ms.Tensor(w)
        tw = torch.from_numpy(w)
        pm, pc = a.indptr, a.indices

        def m_loss(v, x):
            return (ops.csr_mm(ms.CSRTensor(pm, pc, v, (m, k)), x) * mw).sum()

        m_grad = ms.grad(m_loss, (0, 1))
        t_idx = torch.from_numpy(np.stack([rows, cols]))

        def t_grad():
            v = torch.from_numpy(vals).requires_grad_()
            x = tb.clone().requires_grad_()
            (torch.sparse.mm(torch.sparse_coo_tensor(t_idx, v, (m, k)), x) * tw).sum().backward()
            return v.grad.numpy(), x.grad.numpy()

        cases = [
            (f"csr_{m}_{n}", f"csr_mm {shape}", lambda: ops.csr_mm(a, b).asnumpy(),
             lambda: torch.sparse.mm(ta, tb).numpy()),
            (f"coo_{m}_{n}", f"SparseTensorDenseMatmul (COO) {shape}",
             lambda: stdm(coo_idx, coo_val, (m, k), b).asnumpy(),
             lambda: torch.sparse.mm(torch.sparse_coo_tensor(t_uidx, t_uval, (m, k)),
                                     tb).numpy()),
            (f"grad_{m}_{n}", f"gradient (values, dense) {shape}",
             lambda: [g.asnumpy() for g in m_grad(a.values, b)], t_grad),
        ]
        for key, label, fm, ft in cases:
            ym, yt = fm(), ft()
            if not isinstance(ym, list):
                ym, yt = [ym], [yt]
            err = max(float(np.abs(p - q).max()) / max(1.0, float(np.abs(q).max()))
                      for p, q in zip(ym, yt))
            t0 = time.perf_counter()
            fm()
            reps = max(1, min(200, int(0.2 / max(time.perf_counter() - t0, 1e-6))))
            my, th = [], []
            for _ in range(ROUNDS):
                my.append(cpu_per_call(fm, reps))
                th.append(cpu_per_call(ft, reps))
            ratios = [t / q for t, q in zip(th, my)]
            out[key] = {"label": label, "mycel_ms": statistics.median(my) * 1e3,
                        "torch_ms": statistics.median(th) * 1e3, "ratio_min": min(ratios),
                        "ratio_max": max(ratios), "max_rel_diff": err}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
