#!/usr/bin/env python3
"""Fits the GEMM base model of a device profile to measured shapes, as `clustersim calibrate` does.

time(m, n, k) = max(W / best, a W / peak + c bytes / bandwidth + t0), W = 2mnk,
bytes = e (mk + kn + mn). a, c, t0 minimise sum(((a x1 + c x2 + t0 - t) / t)^2) (least squares on
relative error; sim-study GemmFit). Where a constant comes out negative (too few shapes of varied
size to separate the terms) it is set to 0 and the others refitted (one active-set step), and the
report says so. Used for the Blackwell profiles because `calibrate` reads only
bf16 and fp8 rows; e for nvfp4 is 0.5 + 1/16 (E2M1 and one E4M3 scale per 16 elements), as
DeviceProfileReader counts it.

usage: blackwell_gemm_fit.py CSV DTYPE PEAK_TFLOPS BANDWIDTH_TBPS [BEST_TFLOPS [MEMORY_FACTOR]]

MEMORY_FACTOR fixes c (and a, t0 are fitted) where the shapes measured do not separate the memory
term (one n and k, varied m).
"""
import sys

BYTES = {"bf16": 2.0, "fp8": 1.0, "mxfp8": 1.0 + 1.0 / 32, "nvfp4": 0.5 + 1.0 / 16}


def read(path, dtype):
    rows = []
    header = None
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        cells = [c.strip() for c in line.split(",")]
        if header is None:
            header = cells
            continue
        r = dict(zip(header, cells))
        if r["dtype"].lower() == dtype:
            rows.append((float(r["m"]), float(r["n"]), float(r["k"]), float(r["tflops"])))
    return rows


def solve(a, b):
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for j in range(c, n + 1):
                m[r][j] -= f * m[c][j]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][j] * x[j] for j in range(r + 1, n))) / m[r][r]
    return x


def sig4(x):
    return float(f"{x:.4g}")


def main():
    path, dtype, peak, bw = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    rows = sorted(read(path, dtype))
    e = BYTES[dtype]
    best = float(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[5] != "-" else max(r[3] for r in rows)
    fixed_c = float(sys.argv[6]) if len(sys.argv) > 6 else None
    free = [0, 1, 2] if fixed_c is None else [0, 2]
    while True:
        a = [[0.0] * len(free) for _ in free]
        b = [0.0] * len(free)
        for m, n, k, tf in rows:
            w = 2 * m * n * k
            t = w / (tf * 1e6)  # us
            full = [w / (peak * 1e6) / t, e * (m * k + k * n + m * n) / (bw * 1e6) / t, 1 / t]
            x = [full[i] for i in free]
            target = 1.0 - (fixed_c * full[1] if fixed_c is not None else 0.0)
            for i in range(len(free)):
                for j in range(len(free)):
                    a[i][j] += x[i] * x[j]
                b[i] += x[i] * target
        sol = solve(a, b)
        consts = [0.0, fixed_c or 0.0, 0.0]
        for i, v in zip(free, sol):
            consts[i] = v
        negative = [i for i in free if consts[i] < 0]
        if not negative:
            break
        worst = min(negative, key=lambda i: consts[i])
        print(f"# {['computeFactor', 'memoryFactor', 'fixedUs'][worst]} came out {consts[worst]:.4g}: set to 0, refitted")
        free.remove(worst)
    ca, cc, t0 = (sig4(v) for v in consts)
    print(f"# {dtype}: {len(rows)} points, peak {peak}, bandwidth {bw} TB/s")
    print(f"model: {{bestTflops: {best}, computeFactor: {ca}, memoryFactor: {cc}, fixedUs: {t0}}}")
    sq = 0
    for m, n, k, tf in rows:
        w = 2 * m * n * k
        model = max(w / (best * 1e6), ca * w / (peak * 1e6) + cc * e * (m * k + k * n + m * n) / (bw * 1e6) + t0)
        meas = w / (tf * 1e6)
        res = model / meas - 1
        sq += res * res
        print(f"#  {int(m):6d} x {int(n):6d} x {int(k):6d}  measured {tf:8.1f}  model {w / model / 1e6:8.1f}  {res:+.1%}")
    print(f"# rms {100 * (sq / len(rows)) ** 0.5:.1f}%")


if __name__ == "__main__":
    main()
