"""GPT-OSS 120B-shaped kernels on one H100 (2026-11-26; run as `python3 scripts/device/gpt_oss_kernels.py`): the experts' grouped GEMMs
(16 local experts of 2880, fc1 n 5760 / fc2 n 2880, k 2880, 256..2048 tokens each; forward and dgrad
shapes), the dense GEMMs of a GPT-OSS layer, SDPA attention at 64 query / 8 KV heads of 64 over 4096
tokens (causal), and FlexAttention causal against a 128-token sliding window (same kernel family).
Timing as scripts/device/h100_kernels.py: GEMMs after 0.7 s idle, queued behind a sleep kernel; attention
with CUDA events, medians. One line per measurement, flushed."""
import time, sys
import torch
torch.backends.cuda.matmul.allow_tf32 = False
dev = torch.device("cuda")
F = torch.nn.functional
T0 = time.time()
print("env", torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0), flush=True)


def timed(fn, reps=10, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize()
        ts.append(a.elapsed_time(b) / 1e3)
    ts.sort()
    return ts[len(ts) // 2]


def queued(fn, n, reps=5):
    ts = []
    for _ in range(reps):
        torch.cuda._sleep(int(40e6))
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(n):
            fn()
        b.record(); b.synchronize()
        ts.append(a.elapsed_time(b) / 1e3 / n)
    ts.sort()
    return ts[len(ts) // 2]


def burst(fn, idle=0.7):
    time.sleep(idle)
    fn(); torch.cuda.synchronize()
    est = queued(fn, 3, reps=1)
    n = max(3, min(200, int(2e-3 / max(est, 1e-7))))
    return queued(fn, n), n


# 1. grouped GEMMs: E experts, tok tokens each, X (E tok, k) x W (E, k, n)
E = 16
for tok in (256, 512, 1024, 2048):
    for (n, k, name) in ((5760, 2880, "fc1"), (2880, 2880, "fc2"), (2880, 5760, "fc1_dgrad")):
        try:
            X = torch.randn(E * tok, k, device=dev, dtype=torch.bfloat16)
            W = torch.randn(E, n, k, device=dev, dtype=torch.bfloat16).transpose(-2, -1)
            offs = torch.arange(1, E + 1, device=dev, dtype=torch.int32) * tok
            t, q = burst(lambda: torch._grouped_mm(X, W, offs=offs))
            fl = 2 * E * tok * n * k
            print(f"grouped,{name},E={E},tok={tok},n={n},k={k},{t*1e6:.2f}us,{fl/t/1e12:.1f}TFLOPs,queued={q}", flush=True)
            del X, W
        except Exception as e:
            print("grouped,error", name, tok, repr(e)[:200], flush=True)
print(f"elapsed,{time.time()-T0:.1f}", flush=True)

# 2. dense GEMMs of one GPT-OSS layer at 4096 tokens (m x n x k), and the logits
for (m, n, k, name) in ((4096, 5120, 2880, "qkv"), (4096, 2880, 4096, "proj"), (4096, 128, 2880, "router"),
                        (4096, 2880, 5120, "qkv_dgrad"), (4096, 201088, 2880, "logits"),
                        (4096, 2880, 201088, "logits_dgrad")):
    try:
        A = torch.randn(m, k, device=dev, dtype=torch.bfloat16); B = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
        C = torch.empty(m, n, device=dev, dtype=torch.bfloat16)
        t, q = burst(lambda: torch.matmul(A, B, out=C))
        print(f"gemm,{name},{m},{n},{k},{t*1e6:.2f}us,{2*m*n*k/t/1e12:.1f}TFLOPs,queued={q}", flush=True)
        del A, B, C
    except Exception as e:
        print("gemm,error", name, repr(e)[:200], flush=True)
print(f"elapsed,{time.time()-T0:.1f}", flush=True)

# 3. SDPA attention, GPT-OSS: b 1, 64 query heads, 8 KV heads, d 64, s 4096, causal; also 64 KV heads
from torch.nn.attention import sdpa_kernel, SDPBackend
s, hq, hkv, d = 4096, 64, 8, 64
fl = 4 * s * s * hq * d / 2
for backend in (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION):
    for kvh in (hkv, hq):
        try:
            q = torch.randn(1, hq, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
            kk = torch.randn(1, kvh, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
            v = torch.randn_like(kk, requires_grad=True)
            gqa = kvh != hq
            with sdpa_kernel([backend]):
                f = lambda: F.scaled_dot_product_attention(q, kk, v, is_causal=True, enable_gqa=gqa)
                tf = timed(f)
                o = f(); g = torch.randn_like(o)
                tb = timed(lambda: torch.autograd.grad(o, (q, kk, v), g, retain_graph=True))
            print(f"attn,{backend.name},kvheads={kvh},s={s},d={d},causal,fwd={tf*1e6:.1f}us,{fl/tf/1e12:.1f}TFLOPs,"
                  f"bwd={tb*1e6:.1f}us,{2.5*fl/tb/1e12:.1f}TFLOPs", flush=True)
            del q, kk, v, o, g
        except Exception as e:
            print(f"attn,error,{backend.name},kvheads={kvh},{repr(e)[:200]}", flush=True)
print(f"elapsed,{time.time()-T0:.1f}", flush=True)

# 4. FlexAttention (compiled, block-sparse): causal 4096 against a 128-token sliding window, GQA 64/8
try:
    from torch.nn.attention.flex_attention import flex_attention, create_block_mask
    flex = torch.compile(flex_attention, dynamic=False)
    W = 128
    def causal(b, h, qi, ki):
        return qi >= ki
    def window(b, h, qi, ki):
        return (qi >= ki) & (qi - ki < W)
    q = torch.randn(1, hq, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
    kk = torch.randn(1, hkv, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn_like(kk, requires_grad=True)
    for name, mod, pairs in (("causal", causal, s * (s + 1) / 2), ("window128", window, W * s - W * (W - 1) / 2)):
        bm = create_block_mask(mod, 1, 1, s, s, device=dev)
        f = lambda: flex(q, kk, v, block_mask=bm, enable_gqa=True)
        o = f(); g = torch.randn_like(o)
        torch.autograd.grad(o, (q, kk, v), g)
        tf = timed(f)
        tb = timed(lambda: torch.autograd.grad(f(), (q, kk, v), g))
        flw = 4 * hq * d * pairs
        print(f"flex,{name},s={s},hq={hq},hkv={hkv},d={d},fwd={tf*1e6:.1f}us,{flw/tf/1e12:.1f}TFLOPs,"
              f"fwd+bwd={tb*1e6:.1f}us,{3.5*flw/tb/1e12:.1f}TFLOPs(fwd+bwd),sparsity={bm.sparsity():.1f}", flush=True)
        print(f"elapsed,{time.time()-T0:.1f}", flush=True)
except Exception as e:
    print("flex,error", repr(e)[:300], flush=True)
print(f"elapsed,done,{time.time()-T0:.1f}", flush=True)
