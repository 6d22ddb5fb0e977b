"""Single-H100 kernel measurements for calibrating the h100-sxm profile (run on the lent device machine).

Adapted from scripts/device/h200_kernels.py. Prints one CSV-like line per measurement, flushed
as it goes. Sections:
  env       device, driver, power limit, clocks (NVML and nvidia-smi)
  gemm      bf16 short bursts at the h100-sxm profile's 24 GEMM points (docs/calibration/
            h100-bf16-gemm.csv) and at Llama-style shapes; fp8 (torch._scaled_mm, per-tensor
            scales) at the profile's fp8 shapes and square ones
  sustained 8192^3 bf16 back to back for 40 s (rate, SM clock, power, clock-event reasons per
            window), fp8 8192^3 for 12 s, cuDNN attention forward+backward for 12 s, and a
            GEMM + HBM-copy alternation for 12 s (a step-like mix)
  attn      SDPA flash and cuDNN backends, forward and backward, at the sequence lengths of
            docs/calibration/h100-attention.csv (16k tokens per call, heads x headDim = 2048)
  mem       HBM copy / read / write, RMSNorm and LayerNorm forward and backward, SwiGLU (eager and
            one fused Triton kernel), fused AdamW over 512 M fp32 parameters
  launch    host cost of a small PyTorch op and of an empty CuPy kernel, device time per kernel
            back to back (queue filled behind a sleep), per kernel inside a CUDA graph, a
            device-to-host sync round trip
Usage: python3 scripts/device/h100_kernels.py [SECTIONS], SECTIONS a comma-separated subset of
gemm,sustained,attn,mem,launch (default all; env always runs).
Timing: CUDA events, median of timed reps after warm-ups, random normal data. GEMMs: 0.7 s idle
before each shape, then 3-200 calls queued behind a sleep kernel between one pair of events, so
that neither the host's ~10 us launch cost nor the power limit enters a short shape's time (the
first version timed a plain back-to-back loop with no idle: host-bound below ~11 us and, after the
first second, at the power cap; data/h100-kernels-2026-11-26.log holds its GEMM lines).
"""
import time, sys, math, subprocess
import torch
from torch.nn.attention import sdpa_kernel, SDPBackend

torch.backends.cuda.matmul.allow_tf32 = False
dev = torch.device("cuda")
F = torch.nn.functional
try:
    import pynvml
    pynvml.nvmlInit()
    H = pynvml.nvmlDeviceGetHandleByIndex(0)
except Exception as e:  # noqa
    print("env nvml error", repr(e)[:200], flush=True)
    H = None


def reasons():
    for name in ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"):
        f = getattr(pynvml, name, None)
        if f is not None:
            try:
                return hex(f(H))
            except Exception:
                pass
    return "na"


def nv():
    if H is None:
        return "nvml=none"
    sm = pynvml.nvmlDeviceGetClockInfo(H, pynvml.NVML_CLOCK_SM)
    mem = pynvml.nvmlDeviceGetClockInfo(H, pynvml.NVML_CLOCK_MEM)
    pw = pynvml.nvmlDeviceGetPowerUsage(H) / 1000.0
    t = pynvml.nvmlDeviceGetTemperature(H, pynvml.NVML_TEMPERATURE_GPU)
    return f"sm_mhz={sm} mem_mhz={mem} power_w={pw:.0f} temp_c={t} reasons={reasons()}"


def smi(q):
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=" + q, "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:
        return "error " + repr(e)[:100]


def timed(fn, reps=20, warm=5, inner=1):
    """Median seconds of one call of fn; inner calls back to back between one pair of events."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(inner):
            fn()
        b.record(); b.synchronize()
        ts.append(a.elapsed_time(b) / 1e3 / inner)
    ts.sort()
    return ts[len(ts) // 2]


def timed_auto(fn, target=2e-3, reps=10):
    """Loop enough calls to fill ~target seconds per timed rep (short kernels)."""
    one = timed(fn, reps=3, warm=3, inner=10)
    inner = max(1, min(1000, int(target / max(one, 1e-7))))
    return timed(fn, reps=reps, warm=1, inner=inner), inner


SECTIONS = set(sys.argv[1].split(",")) if len(sys.argv) > 1 else {"gemm", "sustained", "attn", "mem", "launch"}
T0 = time.time()
def elapsed(tag=""):
    print(f"elapsed,{tag},{time.time() - T0:.1f}s,{nv()}", flush=True)


props = torch.cuda.get_device_properties(0)
print("env", torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0), props.multi_processor_count,
      f"l2={getattr(props, 'L2_cache_size', 0)}", f"mem={props.total_memory}", nv(), flush=True)
print("env smi", smi("name,driver_version,power.limit,power.max_limit,clocks.max.sm,clocks.max.mem,clocks.sm,"
                     "clocks.mem,temperature.gpu,pstate"), flush=True)
if H is not None:
    try:
        print("env power_limit_w", pynvml.nvmlDeviceGetEnforcedPowerLimit(H) / 1000.0,
              "max_sm_mhz", pynvml.nvmlDeviceGetMaxClockInfo(H, pynvml.NVML_CLOCK_SM),
              "max_mem_mhz", pynvml.nvmlDeviceGetMaxClockInfo(H, pynvml.NVML_CLOCK_MEM), flush=True)
    except Exception as e:
        print("env power_limit error", e, flush=True)

# correctness spot check (bf16 GEMM against an fp64 reference)
A = torch.randn(1024, 1024, device=dev, dtype=torch.bfloat16); B = torch.randn(1024, 1024, device=dev, dtype=torch.bfloat16)
ref = A.double() @ B.double()
print(f"check,gemm_bf16_1024,relerr={((A @ B).double() - ref).norm().item() / ref.norm().item():.2e}", flush=True)



def queued(fn, n, reps=5):
    """Device seconds per call of n calls back to back, enqueued behind a ~20-60 ms sleep kernel so
    that the host's launch cost (~10 us a torch.matmul) stays hidden: a short kernel's device time."""
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
    """Short burst after idle: the board back at idle power, each timed rep a few ms."""
    time.sleep(idle)
    fn(); torch.cuda.synchronize()
    est = queued(fn, 3, reps=1)
    n = max(3, min(200, int(2e-3 / max(est, 1e-7))))
    return queued(fn, n), n


# ---------------------------------------------------------------- 1. GEMM short bursts
profile_points = [(256, 256, 2048), (256, 512, 256), (256, 1024, 1024), (256, 4096, 256), (256, 4096, 512),
                  (256, 4096, 4096), (512, 512, 2048), (512, 4096, 4096), (1024, 256, 256), (1024, 256, 4096),
                  (1024, 1024, 1024), (1024, 1024, 2048), (1024, 1024, 4096), (1024, 4096, 4096),
                  (2048, 2048, 1024), (2048, 2048, 2048), (4096, 256, 2048), (4096, 512, 256), (4096, 512, 4096),
                  (4096, 4096, 256), (4096, 4096, 512), (4096, 4096, 1024), (4096, 4096, 2048), (4096, 4096, 4096)]
more = [(8192, 8192, 8192), (16384, 16384, 16384), (8192, 3 * 4096, 4096), (8192, 4096, 4096),
        (8192, 2 * 14336, 4096), (8192, 4096, 14336), (16384, 10240, 8192), (16384, 57344, 8192),
        (16384, 8192, 28672), (4096, 128256, 4096), (2048, 5120, 5120), (16, 8192, 8192), (128, 8192, 8192)]
for tag, shapes in ((("profile", profile_points), ("profile_repeat", profile_points), ("extra", more))
                    if "gemm" in SECTIONS else ()):
    for (m, n, k) in shapes:
        A = torch.randn(m, k, device=dev, dtype=torch.bfloat16); B = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
        C = torch.empty(m, n, device=dev, dtype=torch.bfloat16)
        t, inner = burst(lambda: torch.matmul(A, B, out=C))
        print(f"gemm,bf16,{tag},{m},{n},{k},{t*1e6:.2f}us,{2*m*n*k/t/1e12:.1f}TFLOPs,queued={inner},{nv()}", flush=True)
        del A, B, C
elapsed("gemm bf16")

fp8_shapes = [(64, 2112, 7168), (64, 7168, 16384), (64, 24576, 1536), (128, 2112, 7168), (128, 4096, 7168),
              (128, 7168, 16384), (1024, 4096, 7168), (1024, 7168, 2048), (4096, 2112, 7168), (4096, 7168, 16384),
              (4096, 32768, 512), (4096, 4096, 4096), (8192, 8192, 8192), (16384, 16384, 16384), (8192, 28672, 4096),
              (8192, 4096, 14336)]
one = torch.tensor(1.0, device=dev)
for (m, n, k) in (fp8_shapes if "gemm" in SECTIONS else ()):
    try:
        A = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
        B = torch.randn(n, k, device=dev).to(torch.float8_e4m3fn).t()
        t, inner = burst(lambda: torch._scaled_mm(A, B, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
        print(f"gemm,fp8,profile,{m},{n},{k},{t*1e6:.2f}us,{2*m*n*k/t/1e12:.1f}TFLOPs,queued={inner},{nv()}", flush=True)
        del A, B
    except Exception as e:
        print("gemm,fp8,error", m, n, k, repr(e)[:200], flush=True)
elapsed("gemm fp8")


# ---------------------------------------------------------------- 2. sustained
if "sustained" in SECTIONS:
    def sustained(tag, step, flops_per_step, seconds):
        """step() enqueues a few kernels; windows of 0.25 s for the first 2 s, then 3 s."""
        time.sleep(3)  # let the board drop back to idle power between runs
        torch.cuda.synchronize()
        print(f"sustained,{tag},start,{nv()}", flush=True)
        start = time.time(); win = start; n = 0
        rates = []
        while time.time() - start < seconds:
            for _ in range(4):
                step()
            torch.cuda.synchronize(); n += 4
            now = time.time()
            span = 0.25 if now - start < 2 else 3
            if now - win >= span:
                r = n * flops_per_step / (now - win) / 1e12
                rates.append((now - start, r))
                print(f"sustained,{tag},t={now-start:.2f}s,{r:.1f}TFLOPs,{nv()}", flush=True)
                win = now; n = 0
        late = [r for (t, r) in rates if t > 5]
        if late:
            print(f"sustained,{tag},summary,first={rates[0][1]:.1f},late_median={sorted(late)[len(late)//2]:.1f},"
                  f"late_min={min(late):.1f},late_max={max(late):.1f}", flush=True)


    N8 = 8192
    A = torch.randn(N8, N8, device=dev, dtype=torch.bfloat16); B = torch.randn(N8, N8, device=dev, dtype=torch.bfloat16)
    C = torch.empty(N8, N8, device=dev, dtype=torch.bfloat16)
    time.sleep(3)
    t = timed(lambda: torch.matmul(A, B, out=C), reps=10, warm=3)
    print(f"burst,bf16,8192,before_sustained,{2*N8**3/t/1e12:.1f}TFLOPs,{nv()}", flush=True)
    def gemm5():
        for _ in range(5):
            torch.matmul(A, B, out=C)
    sustained("bf16_8192", gemm5, 5 * 2 * N8**3, 40)
    print("env smi_after_sustained", smi("clocks.sm,power.draw,clocks_event_reasons.active,clocks_event_reasons.sw_power_cap,"
                                         "temperature.gpu"), flush=True)
    time.sleep(3)
    t = timed(lambda: torch.matmul(A, B, out=C), reps=10, warm=3)
    print(f"burst,bf16,8192,after_sustained_3s_idle,{2*N8**3/t/1e12:.1f}TFLOPs,{nv()}", flush=True)

    # step-like mix: 4 GEMMs then a 2 GiB copy, GEMM time from events
    X = torch.empty(2**30, device=dev, dtype=torch.bfloat16); Y = torch.empty_like(X)
    time.sleep(3)
    gsum = 0.0; csum = 0.0; iters = 0
    start = time.time()
    while time.time() - start < 12:
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
        ev[0].record()
        for _ in range(4):
            torch.matmul(A, B, out=C)
        ev[1].record(); Y.copy_(X); ev[2].record(); ev[2].synchronize()
        if time.time() - start > 2:
            gsum += ev[0].elapsed_time(ev[1]) / 1e3; csum += ev[1].elapsed_time(ev[2]) / 1e3; iters += 1
    print(f"sustained,mix_gemm4_copy2GiB,12s,gemm={4*iters*2*N8**3/gsum/1e12:.1f}TFLOPs,"
          f"copy={iters*2*X.numel()*2/csum/1e12:.2f}TB/s,gemm_share={gsum/(gsum+csum):.2f},{nv()}", flush=True)
    del X, Y, A, B, C

    A8 = torch.randn(N8, N8, device=dev).to(torch.float8_e4m3fn); B8 = torch.randn(N8, N8, device=dev).to(torch.float8_e4m3fn).t()
    time.sleep(3)
    t = timed(lambda: torch._scaled_mm(A8, B8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16), reps=10, warm=3)
    print(f"burst,fp8,8192,before_sustained,{2*N8**3/t/1e12:.1f}TFLOPs,{nv()}", flush=True)
    def fp8x5():
        for _ in range(5):
            torch._scaled_mm(A8, B8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    try:
        sustained("fp8_8192", fp8x5, 5 * 2 * N8**3, 12)
    except Exception as e:
        print("sustained,fp8,error", repr(e)[:200], flush=True)
    del A8, B8

    q = torch.randn(1, 16, 16384, 128, device=dev, dtype=torch.bfloat16, requires_grad=True)
    kk = torch.randn_like(q, requires_grad=True); v = torch.randn_like(q, requires_grad=True)
    g = torch.randn_like(q)
    fl = 4 * 16384**2 * 16 * 128 / 2 * 3.5  # causal forward + backward (2.5x)
    def attn_fb():
        o = F.scaled_dot_product_attention(q, kk, v, is_causal=True)
        torch.autograd.grad(o, (q, kk, v), g)
    try:
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            time.sleep(3)
            t = timed(attn_fb, reps=5, warm=2)
            print(f"burst,attn_cudnn_fb,16k,before_sustained,{fl/t/1e12:.1f}TFLOPs,{nv()}", flush=True)
            sustained("attn_cudnn_fb_16k_d128_causal", attn_fb, fl, 12)
    except Exception as e:
        print("sustained,attn,error", repr(e)[:200], flush=True)
    del q, kk, v, g
    elapsed("sustained")

# ---------------------------------------------------------------- 3. attention (SDPA)
if "attn" in SECTIONS:
    for backend in (SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION):
        for d in (64, 128, 256):
            seqs = (512, 1024, 2048, 4096, 8192, 16384) if d == 128 else (512, 2048, 16384)
            for causal in (False, True):
                for s in seqs:
                    b = 16384 // s; h = 2048 // d
                    q = torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
                    kk = torch.randn_like(q, requires_grad=True); v = torch.randn_like(q, requires_grad=True)
                    flops_f = 4 * b * h * s * s * d / (2 if causal else 1)
                    try:
                        with sdpa_kernel([backend]):
                            tf = timed(lambda: F.scaled_dot_product_attention(q, kk, v, is_causal=causal), reps=10, warm=3)
                            o = F.scaled_dot_product_attention(q, kk, v, is_causal=causal)
                            g = torch.randn_like(o)
                            tb = timed(lambda: torch.autograd.grad(o, (q, kk, v), g, retain_graph=True), reps=10, warm=3)
                        print(f"attn,{backend.name},d={d},causal={str(causal).lower()},s={s},b={b},h={h},"
                              f"fwd={tf*1e6:.1f}us,{flops_f/tf/1e12:.1f}TFLOPs,bwd={tb*1e6:.1f}us,{2.5*flops_f/tb/1e12:.1f}TFLOPs",
                              flush=True)
                        del o, g
                    except Exception as e:
                        print(f"attn,error,{backend.name},d={d},causal={causal},s={s},{repr(e)[:160]}", flush=True)
                    del q, kk, v
    elapsed("attention")

# ---------------------------------------------------------------- 4. memory-bound kernels
if "mem" in SECTIONS:
    for gib in (0.25, 1, 4):
        nb = int(gib * 2**30)
        x = torch.empty(nb, device=dev, dtype=torch.uint8); y = torch.empty_like(x)
        t = timed(lambda: y.copy_(x), reps=10, warm=3)
        print(f"mem,copy,{gib}GiB,{t*1e6:.1f}us,{2*nb/t/1e12:.3f}TB/s(read+write)", flush=True)
        del x, y
    x = torch.randn(2**30, device=dev, dtype=torch.float32)  # 4 GiB
    t = timed(lambda: x.sum(), reps=10, warm=3)
    print(f"mem,read_sum_fp32,4GiB,{t*1e6:.1f}us,{4*x.numel()/t/1e12:.3f}TB/s(read)", flush=True)
    t = timed(lambda: x.fill_(1.0), reps=10, warm=3)
    print(f"mem,write_fill_fp32,4GiB,{t*1e6:.1f}us,{4*x.numel()/t/1e12:.3f}TB/s(write)", flush=True)
    del x

    # norms: 16384 tokens x hidden, bf16 (forward reads x, writes y: 4 B/elem; backward reads x, dy, writes dx: 6)
    for hdim in (4096, 8192):
        x = torch.randn(16384, hdim, device=dev, dtype=torch.bfloat16, requires_grad=True)
        w = torch.ones(hdim, device=dev, dtype=torch.bfloat16, requires_grad=True)
        bb = torch.zeros(hdim, device=dev, dtype=torch.bfloat16, requires_grad=True)
        el = x.numel()
        for name, fn in (("rmsnorm", lambda: F.rms_norm(x, (hdim,), w, 1e-5)),
                         ("layernorm", lambda: F.layer_norm(x, (hdim,), w, bb, 1e-5))):
            try:
                tf = timed(fn, reps=20, warm=5)
                y = fn(); dy = torch.randn_like(y)
                tb = timed(lambda: torch.autograd.grad(y, (x, w), dy, retain_graph=True), reps=20, warm=5)
                print(f"mem,{name},16384x{hdim},fwd={tf*1e6:.1f}us,{4*el/tf/1e12:.3f}TB/s,bwd={tb*1e6:.1f}us,"
                      f"{6*el/tb/1e12:.3f}TB/s", flush=True)
                del y, dy
            except Exception as e:
                print(f"mem,{name},error,{repr(e)[:200]}", flush=True)
        del x, w, bb

    # SwiGLU over [tokens, 2F] -> [tokens, F], bf16: 6 B per output element (read 2, write 1)
    Ff = 14336
    xg = torch.randn(16384, 2 * Ff, device=dev, dtype=torch.bfloat16)
    def swiglu_eager():
        a, u = xg.chunk(2, dim=-1)
        return F.silu(a) * u
    t = timed(swiglu_eager, reps=20, warm=5)
    print(f"mem,swiglu_eager,16384x{Ff},{t*1e6:.1f}us,{6*16384*Ff/t/1e12:.3f}TB/s(useful bytes)", flush=True)
    try:
        import triton, triton.language as tl

        @triton.jit
        def _swiglu(X, O, Fdim, BLOCK: tl.constexpr):
            row = tl.program_id(0).to(tl.int64); cb = tl.program_id(1)
            offs = cb * BLOCK + tl.arange(0, BLOCK)
            mask = offs < Fdim
            a = tl.load(X + row * 2 * Fdim + offs, mask=mask).to(tl.float32)
            u = tl.load(X + row * 2 * Fdim + Fdim + offs, mask=mask).to(tl.float32)
            tl.store(O + row * Fdim + offs, (a * tl.sigmoid(a) * u).to(tl.bfloat16), mask=mask)

        out = torch.full((16384, Ff), float("nan"), device=dev, dtype=torch.bfloat16)
        def swiglu_triton():
            _swiglu[(16384, triton.cdiv(Ff, 2048))](xg, out, Ff, BLOCK=2048)
        swiglu_triton()
        err = ((out.float() - swiglu_eager().float()).norm() / swiglu_eager().float().norm()).item()
        t = timed(swiglu_triton, reps=20, warm=5)
        print(f"mem,swiglu_triton_fused,16384x{Ff},{t*1e6:.1f}us,{6*16384*Ff/t/1e12:.3f}TB/s,relerr={err:.1e}", flush=True)
        del out
    except Exception as e:
        print("mem,swiglu_triton,error", repr(e)[:200], flush=True)
    del xg

    # fused AdamW: 512 M fp32 params in 8 tensors, fp32 grads (reads p, g, m, v; writes p, m, v: 28 B/param)
    try:
        ps = [torch.randn(64 * 2**20, device=dev, requires_grad=True) for _ in range(8)]
        for p in ps:
            p.grad = torch.randn_like(p)
        opt = torch.optim.AdamW(ps, lr=1e-4, fused=True)
        opt.step()
        npar = sum(p.numel() for p in ps)
        t = timed(opt.step, reps=10, warm=2)
        print(f"mem,adamw_fused,{npar}params,{t*1e6:.1f}us,{28*npar/t/1e12:.3f}TB/s(28B/param),"
              f"{30*npar/t/1e12:.3f}TB/s(30B/param)", flush=True)
        opt2 = torch.optim.AdamW(ps, lr=1e-4, foreach=True)
        opt2.step()
        t = timed(opt2.step, reps=5, warm=1)
        print(f"mem,adamw_foreach,{npar}params,{t*1e6:.1f}us,{28*npar/t/1e12:.3f}TB/s(28B/param)", flush=True)
        del ps, opt, opt2
    except Exception as e:
        print("mem,adam,error", repr(e)[:200], flush=True)
    torch.cuda.empty_cache()
    elapsed("memory")

# ---------------------------------------------------------------- 5. launch overhead
if "launch" in SECTIONS:
    tiny = torch.zeros(1, device=dev)
    for _ in range(100):
        tiny.add_(1)
    torch.cuda.synchronize()
    N = 20000
    s0 = time.perf_counter()
    for _ in range(N):
        tiny.add_(1)
    s1 = time.perf_counter(); torch.cuda.synchronize(); s2 = time.perf_counter()
    print(f"launch,torch_add_host,{(s1-s0)/N*1e6:.2f}us_per_launch_host,{(s2-s0)/N*1e6:.2f}us_incl_drain", flush=True)
    try:
        import cupy as cp
        k = cp.RawKernel(r'extern "C" __global__ void empty_k() {}', "empty_k")
        k((1,), (32,), ())
        cp.cuda.runtime.deviceSynchronize()
        s0 = time.perf_counter()
        for _ in range(N):
            k((1,), (32,), ())
        s1 = time.perf_counter(); cp.cuda.runtime.deviceSynchronize(); s2 = time.perf_counter()
        print(f"launch,cupy_empty_host,{(s1-s0)/N*1e6:.2f}us_per_launch_host,{(s2-s0)/N*1e6:.2f}us_incl_drain", flush=True)
    except Exception as e:
        print("launch,cupy,error", repr(e)[:200], flush=True)
    # device time per kernel, back to back: fill the queue behind a sleep, time between events
    for nk in (200, 1000):
        ts = []
        for _ in range(5):
            torch.cuda._sleep(int(60e6))  # ~30-40 ms at 1.5-2 GHz
            a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
            a.record()
            for _ in range(nk):
                tiny.add_(1)
            b.record(); b.synchronize()
            ts.append(a.elapsed_time(b) * 1e3 / nk)
        ts.sort()
        print(f"launch,queued_back_to_back,{nk}kernels,{ts[len(ts)//2]:.3f}us_per_kernel", flush=True)
    # CUDA graph of 1000 tiny kernels
    try:
        sg = torch.cuda.Stream()
        with torch.cuda.stream(sg):
            for _ in range(10):
                tiny.add_(1)
        torch.cuda.synchronize()
        gr = torch.cuda.CUDAGraph()
        with torch.cuda.graph(gr):
            for _ in range(1000):
                tiny.add_(1)
        gr.replay(); torch.cuda.synchronize()
        t = timed(gr.replay, reps=20, warm=3)
        print(f"launch,cuda_graph,1000kernels,{t*1e6/1000:.3f}us_per_kernel,replay={t*1e6:.1f}us", flush=True)
        gr1 = torch.cuda.CUDAGraph()
        with torch.cuda.graph(gr1):
            tiny.add_(1)
        s0 = time.perf_counter()
        for _ in range(2000):
            gr1.replay()
        s1 = time.perf_counter(); torch.cuda.synchronize()
        print(f"launch,graph_replay_host,1kernel,{(s1-s0)/2000*1e6:.2f}us_per_replay_host", flush=True)
    except Exception as e:
        print("launch,graph,error", repr(e)[:200], flush=True)
    # device-to-host round trip: tiny kernel then .item()
    ts = []
    for _ in range(2000):
        s0 = time.perf_counter(); tiny.add_(1); tiny.item(); ts.append(time.perf_counter() - s0)
    ts.sort()
    print(f"launch,sync_item_roundtrip,{ts[len(ts)//2]*1e6:.2f}us_median,{ts[int(len(ts)*0.9)]*1e6:.2f}us_p90", flush=True)
    elapsed("done")
    print("env smi_end", smi("clocks.sm,clocks.mem,power.draw,temperature.gpu"), flush=True)
