"""Single-GPU kernel measurements for calibration (run on the lent device machine).

Prints one CSV-like line per measurement. Sections: environment, bf16/fp8 GEMMs by shape,
sustained GEMM (clocks and power over time), small-expert grouped GEMMs, SDPA attention
(flash and cuDNN backends), HBM copy. Each timing: median of timed reps after warm-ups,
CUDA events.
"""
import time, sys, math
import torch

torch.backends.cuda.matmul.allow_tf32 = False
dev = torch.device("cuda")
try:
    import pynvml
    pynvml.nvmlInit()
    H = pynvml.nvmlDeviceGetHandleByIndex(0)
except Exception as e:  # noqa
    H = None

def nv():
    if H is None:
        return "nvml=none"
    sm = pynvml.nvmlDeviceGetClockInfo(H, pynvml.NVML_CLOCK_SM)
    mem = pynvml.nvmlDeviceGetClockInfo(H, pynvml.NVML_CLOCK_MEM)
    pw = pynvml.nvmlDeviceGetPowerUsage(H) / 1000.0
    t = pynvml.nvmlDeviceGetTemperature(H, pynvml.NVML_TEMPERATURE_GPU)
    return f"sm_mhz={sm} mem_mhz={mem} power_w={pw:.0f} temp_c={t}"

def timed(fn, reps=20, warm=5):
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

print("env", torch.__version__, torch.cuda.get_device_name(0),
      torch.cuda.get_device_properties(0).multi_processor_count, nv(), flush=True)
if H is not None:
    try:
        print("env power_limit_w", pynvml.nvmlDeviceGetEnforcedPowerLimit(H) / 1000.0,
              "max_sm_mhz", pynvml.nvmlDeviceGetMaxClockInfo(H, pynvml.NVML_CLOCK_SM), flush=True)
    except Exception as e:
        print("env power_limit error", e)

T0 = time.time()
# 1. GEMM shapes (m, n, k): C[m,n] = A[m,k] @ B[k,n], random normal data
shapes = [(s, s, s) for s in (1024, 2048, 4096, 8192, 16384)]
shapes += [(8192, 3 * 4096, 4096), (8192, 4096, 4096), (8192, 2 * 14336, 4096), (8192, 4096, 14336),
           (16384, 10240, 8192), (16384, 8192, 8192), (16384, 57344, 8192), (16384, 8192, 28672),
           (4096, 128256, 4096), (2048, 5120, 5120), (2048, 32768, 5120)]
for (m, n, k) in shapes:
    A = torch.randn(m, k, device=dev, dtype=torch.bfloat16); B = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
    t = timed(lambda: A @ B, reps=10 if m * n * k > 2e12 else 20)
    print(f"gemm,bf16,{m},{n},{k},{t*1e6:.1f}us,{2*m*n*k/t/1e12:.1f}TFLOPs", flush=True)
    del A, B
# fp8 (e4m3, tensor-wise scales) through torch._scaled_mm
for (m, n, k) in [(4096, 4096, 4096), (8192, 8192, 8192), (16384, 16384, 16384), (8192, 28672, 4096), (8192, 4096, 14336)]:
    try:
        A = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
        B = torch.randn(n, k, device=dev).to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device=dev)
        t = timed(lambda: torch._scaled_mm(A, B, scale_a=one, scale_b=one, out_dtype=torch.bfloat16), reps=10)
        print(f"gemm,fp8,{m},{n},{k},{t*1e6:.1f}us,{2*m*n*k/t/1e12:.1f}TFLOPs", flush=True)
        del A, B
    except Exception as e:
        print("gemm,fp8,error", m, n, k, repr(e)[:200], flush=True)
print("elapsed", round(time.time() - T0, 1), flush=True)

# 2. Sustained: 8192^3 bf16 back to back for 45 s, rate per 3 s window with clocks/power
A = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16); B = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
C = torch.empty(8192, 8192, device=dev, dtype=torch.bfloat16)
torch.cuda.synchronize()
start = time.time(); win = start; n = 0
while time.time() - start < 45:
    for _ in range(20):
        torch.matmul(A, B, out=C)
    torch.cuda.synchronize(); n += 20
    now = time.time()
    if now - win >= 3:
        print(f"sustained,t={now-start:.0f}s,{n*2*8192**3/(now-win)/1e12:.1f}TFLOPs,{nv()}", flush=True)
        win = now; n = 0
del A, B, C
print("elapsed", round(time.time() - T0, 1), flush=True)

# 3. Small-expert grouped GEMMs (Qwen3-30B-A3B-like: hidden 2048, expert ffn 768; 128 experts)
E = 128
for tok in (32, 64, 128, 256, 512, 1024):
    for (n, k, name) in ((2 * 768, 2048, "fc1"), (2048, 768, "fc2")):
        X = torch.randn(E * tok, k, device=dev, dtype=torch.bfloat16)
        W = torch.randn(E, k, n, device=dev, dtype=torch.bfloat16)
        flops = 2 * E * tok * n * k
        Xs = X.view(E, tok, k)
        t = timed(lambda: torch.bmm(Xs, W), reps=20)
        print(f"expert,bmm,{name},E={E},tok={tok},n={n},k={k},{t*1e6:.1f}us,{flops/t/1e12:.1f}TFLOPs", flush=True)
        def loop():
            for e in range(E):
                Xs[e] @ W[e]
        t = timed(loop, reps=5, warm=2)
        print(f"expert,loop,{name},E={E},tok={tok},n={n},k={k},{t*1e6:.1f}us,{flops/t/1e12:.1f}TFLOPs", flush=True)
        if hasattr(torch, "_grouped_mm"):
            try:
                offs = torch.arange(1, E + 1, device=dev, dtype=torch.int32) * tok
                Wt = W.transpose(-2, -1).contiguous().transpose(-2, -1)
                t = timed(lambda: torch._grouped_mm(X, Wt, offs=offs), reps=20)
                print(f"expert,grouped_mm,{name},E={E},tok={tok},n={n},k={k},{t*1e6:.1f}us,{flops/t/1e12:.1f}TFLOPs", flush=True)
            except Exception as e:
                print("expert,grouped_mm,error", repr(e)[:200], flush=True)
        del X, W, Xs
print("elapsed", round(time.time() - T0, 1), flush=True)

# 4. Attention through SDPA: causal bf16, 32 heads of 128 (and 8 KV heads), fwd and fwd+bwd
from torch.nn.attention import sdpa_kernel, SDPBackend
F = torch.nn.functional
for backend in (SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION):
    for s in (1024, 2048, 4096, 8192, 16384, 32768):
        b = max(1, 16384 // s); h = 32; d = 128
        q = torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
        kk = torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
        v = torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
        flops_f = 4 * b * h * s * s * d / 2  # causal: half of 4 b h s^2 d
        try:
            with sdpa_kernel([backend]):
                tf = timed(lambda: F.scaled_dot_product_attention(q, kk, v, is_causal=True), reps=10)
                o = F.scaled_dot_product_attention(q, kk, v, is_causal=True)
                g = torch.randn_like(o)
                def fb():
                    out = F.scaled_dot_product_attention(q, kk, v, is_causal=True)
                    out.backward(g)
                tfb = timed(fb, reps=10, warm=3)
            print(f"attn,{backend.name},causal,b={b},h={h},s={s},d={d},fwd={tf*1e6:.1f}us,{flops_f/tf/1e12:.1f}TFLOPs,"
                  f"bwd={ (tfb-tf)*1e6:.1f}us,{2.5*flops_f/(tfb-tf)/1e12:.1f}TFLOPs", flush=True)
        except Exception as e:
            print("attn,error", backend.name, s, repr(e)[:200], flush=True)
        del q, kk, v
print("elapsed", round(time.time() - T0, 1), flush=True)

# 5. HBM: device-to-device copy of 4 GiB, bytes read + written
x = torch.empty(2**31, device=dev, dtype=torch.uint8); y = torch.empty_like(x)
t = timed(lambda: y.copy_(x), reps=10)
print(f"hbm,copy,2GiB,{t*1e3:.2f}ms,{2*x.numel()/t/1e12:.2f}TB/s(read+write)", flush=True)
print("elapsed", round(time.time() - T0, 1), nv(), flush=True)
