package org.clustersim.strategies.cost;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.EnumSet;
import java.util.Set;

import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.device.AttentionPass;
import org.clustersim.strategies.device.Op;
import org.clustersim.strategies.model.LatentAttention;
import org.clustersim.strategies.model.TransformerModel;

/**
 * What one transformer layer costs one tensor-parallel rank for one microbatch, op by op, the
 * way Megatron-core with Transformer Engine runs it: an attention block (norm, QKV GEMM, rotary
 * embedding for rotary models only, attention core, output-projection GEMM, residual add) and an
 * MLP block (norm, first GEMM, activation, second GEMM, residual add), each with its forward
 * (F), input-gradient (Bi) and weight-gradient (W) pass. Multi-head latent attention replaces
 * the QKV GEMM by its down-projections (replicated on every TP rank, over the rank's
 * sequence-parallel shard), latent norms and up-projections (column-parallel), as {@link
 * org.clustersim.strategies.model.LatentAttention} describes. Every op's time comes from the
 * device profile through {@link KernelCosts}: GEMMs from the precision's surface at their shape
 * after the Megatron column/row split over t ranks (backward: a dgrad GEMM in Bi, a wgrad GEMM
 * in W); the attention core from the implementation's throughput tables (causal: half the work,
 * FlashAttention's FLOP convention; a sliding window: only the keys in the window; t ranks split
 * the heads); norms, rotary, residuals and activations as bytes over the achieved bandwidth
 * (split over t under sequence parallelism); under FP8 the casts of the GEMM operands the recipe
 * cannot fuse. Recomputation adds a forward of the whole layer (full) or, selective, of each
 * module Megatron-core's {@code recompute_modules} names ({@link RecomputeModule}; the attention
 * core by default) to the Bi of the block holding it. Each block keeps its per-op times so the trace can show where a layer's
 * time goes.
 *
 * <p>Parallel blocks ({@link TransformerModel#parallelBlocks()}, GPT-J and PaLM): one norm per
 * layer, whose output both the QKV GEMM and fc1 read; the attention block ends at its output
 * projection, and the MLP block ends by adding the two branches' partial outputs ("branch sum",
 * before the one tensor-parallel reduction of both; in the backward, the two branches' input
 * gradients the same way) and the one residual add. The QKV and fc1 GEMMs stay two GEMMs: their
 * fusion into one (PaLM's) is not modelled, so the GEMM times, like the FLOPs, are the serial
 * layer's.
 *
 * <p>Why this class is long: it lists every op of a layer's three passes in the order the
 * framework runs them, so that each pass's breakdown can be read against Megatron-core's code in
 * one place; the costs themselves come from {@link KernelCosts}.
 *
 * @param model     the transformer
 * @param costs     the device's kernel costs at the training precision
 * @param tp        tensor-parallel size t
 * @param seqParallel whether sequence parallelism splits norms and residuals over t
 * @param microBatch b
 * @param seqLen    s
 * @param recompute activation recomputation
 * @param cp        context-parallel ranks the sequence is split over: each GPU holds s / cp
 *                  tokens and attends with them to all s keys (gathered from its CP group)
 * @param ep        expert-parallel ranks the experts of an MoE layer are spread over: each GPU
 *                  holds experts / ep of them and, with balanced routing, computes as many
 *                  expert-token pairs as its own tokens routed (top-k x capacity factor)
 * @param etp       expert tensor-parallel size: each routed expert's matrices are split over etp
 *                  GPUs, which gather their routed tokens (MoE parallel folding, arXiv
 *                  2504.14960; Megatron-core's expert_tensor_parallel_size, tp when unset). The
 *                  shared experts stay split over tp like a dense MLP
 * @param modules   under selective recomputation, the modules recomputed (the attention core when
 *                  empty); empty otherwise
 * @param dispatcher the MoE token dispatcher: which permutation kernels run around the token
 *                  exchange, and the host synchronisation each MoE layer's forward waits for
 */
public record LayerCostModel(TransformerModel model, KernelCosts costs, int tp, boolean seqParallel, int microBatch,
                             int seqLen, Recompute recompute, int cp, int ep, int etp, Set<RecomputeModule> modules,
                             MoeDispatcher dispatcher) {

    /** With Megatron-core's all-to-all token dispatcher. */
    public LayerCostModel(TransformerModel model, KernelCosts costs, int tp, boolean seqParallel, int microBatch,
                          int seqLen, Recompute recompute, int cp, int ep, int etp, Set<RecomputeModule> modules) {
        this(model, costs, tp, seqParallel, microBatch, seqLen, recompute, cp, ep, etp, modules, MoeDispatcher.ALLTOALL);
    }

    /** Without recomputation by module: selective recomputation replays the attention core (Megatron-core's default). */
    public LayerCostModel(TransformerModel model, KernelCosts costs, int tp, boolean seqParallel, int microBatch,
                          int seqLen, Recompute recompute, int cp, int ep, int etp) {
        this(model, costs, tp, seqParallel, microBatch, seqLen, recompute, cp, ep, etp, Set.of());
    }

    /** Experts split over the attention's TP group (etp = tp). */
    public LayerCostModel(TransformerModel model, KernelCosts costs, int tp, boolean seqParallel, int microBatch,
                          int seqLen, Recompute recompute, int cp, int ep) {
        this(model, costs, tp, seqParallel, microBatch, seqLen, recompute, cp, ep, tp);
    }

    public LayerCostModel {
        if (cp < 1 || seqLen % cp != 0) {
            throw new IllegalArgumentException("context parallelism " + cp + " must divide the sequence " + seqLen);
        }
        if (ep < 1 || (model.experts() != null && model.experts().count() % ep != 0)) {
            throw new IllegalArgumentException("expert parallelism " + ep + " must divide the experts");
        }
        if (etp < 1) {
            throw new IllegalArgumentException("expert TP must be at least 1, not " + etp);
        }
        modules = recomputedModules(recompute, modules == null ? Set.of() : modules);
        if (dispatcher == null) {
            dispatcher = MoeDispatcher.ALLTOALL;
        }
        if (modules.contains(RecomputeModule.MLA_UP_PROJ) && model.latentAttention() == null) {
            throw new IllegalArgumentException("mla_up_proj recomputation needs latent attention");
        }
        for (RecomputeModule m : modules) {
            if (!m.supported()) {
                throw new IllegalArgumentException("recomputing module " + m.id() + " is not modelled");
            }
        }
    }

    /**
     * The modules a policy recomputes: under selective recomputation the given ones, or the
     * attention core when none is given (Megatron-core's default {@code ["core_attn"]}); none
     * otherwise (full recomputation replays everything).
     */
    public static Set<RecomputeModule> recomputedModules(Recompute recompute, Set<RecomputeModule> given) {
        if (recompute != Recompute.SELECTIVE) {
            if (!given.isEmpty()) {
                throw new IllegalArgumentException("recomputing modules needs selective recomputation, not " + recompute);
            }
            return Set.of();
        }
        return given.isEmpty() ? Set.of(RecomputeModule.CORE_ATTN) : Set.copyOf(EnumSet.copyOf(given));
    }

    /** The same layer with every GEMM in bf16 and no casts (a layer the recipe keeps in bf16: {@link Bf16Layers}). */
    public LayerCostModel inBf16() {
        return new LayerCostModel(model, costs.inBf16(), tp, seqParallel, microBatch, seqLen, recompute, cp, ep, etp,
                modules, dispatcher);
    }

    /** Whether module {@code m} is recomputed. */
    public boolean recomputes(RecomputeModule m) {
        return modules.contains(m);
    }

    /** Activation recomputation policy. */
    public enum Recompute { NONE, SELECTIVE, FULL }

    /** Bytes of a bf16 activation element. */
    private static final double E = 2;

    /**
     * One op's time in each pass, ns.
     *
     * @param op   what the trace calls it
     * @param fNs  forward
     * @param biNs input gradient
     * @param wNs  weight gradient
     */
    public record OpTime(String op, double fNs, double biNs, double wNs) {
    }

    /**
     * One block's passes: time (ns) and FLOPs executed, per TP rank, and the ops making up the time.
     *
     * @param fNs  forward time
     * @param biNs input-gradient time (including recomputation)
     * @param wNs  weight-gradient time
     * @param fFlops  forward FLOPs
     * @param biFlops input-gradient FLOPs (including recomputation)
     * @param wFlops  weight-gradient FLOPs
     * @param ops  the block's ops in order; their times add up to the block's
     */
    public record Block(double fNs, double biNs, double wNs, double fFlops, double biFlops, double wFlops,
                        List<OpTime> ops) {
        public Block {
            ops = List.copyOf(ops);
        }

        /** An op without FLOPs counted. */
        static Block op(String name, double fNs, double biNs, double wNs) {
            return new Block(fNs, biNs, wNs, 0, 0, 0, List.of(new OpTime(name, fNs, biNs, wNs)));
        }

        /** The two blocks' ops in order, times of ops of the same name added. */
        public Block plus(Block o) {
            Map<String, double[]> merged = new LinkedHashMap<>();
            for (List<OpTime> list : List.of(ops, o.ops)) {
                for (OpTime t : list) {
                    double[] v = merged.computeIfAbsent(t.op(), k -> new double[3]);
                    v[0] += t.fNs();
                    v[1] += t.biNs();
                    v[2] += t.wNs();
                }
            }
            List<OpTime> out = new ArrayList<>(merged.size());
            merged.forEach((k, v) -> out.add(new OpTime(k, v[0], v[1], v[2])));
            return new Block(fNs + o.fNs, biNs + o.biNs, wNs + o.wNs, fFlops + o.fFlops, biFlops + o.biFlops,
                    wFlops + o.wFlops, out);
        }

        /** This block with every time multiplied by {@code factor} (FLOPs unchanged). */
        Block slower(double factor) {
            List<OpTime> out = new ArrayList<>(ops.size());
            for (OpTime t : ops) {
                out.add(new OpTime(t.op(), t.fNs() * factor, t.biNs() * factor, t.wNs() * factor));
            }
            return new Block(fNs * factor, biNs * factor, wNs * factor, fFlops, biFlops, wFlops, out);
        }

        /** This block with its forward replayed in the input-gradient pass (recomputation). */
        Block withReplay(Block forward, String name) {
            return plus(new Block(0, forward.fNs, 0, 0, forward.fFlops, 0,
                    List.of(new OpTime(name, 0, forward.fNs, 0))));
        }
    }

    /** Tokens of one microbatch on this GPU: b s / cp. */
    private double tokens() {
        return (double) microBatch * seqLen / cp;
    }

    /** Rows the norms and residuals work on: the sequence-parallel shard or all tokens. */
    private double normRows() {
        return tokens() / (seqParallel ? tp : 1);
    }

    /** A GEMM of the forward, (rows x k) by (k x n), with its dgrad (Bi) and wgrad (W) at the training precision. */
    private Block linear(String name, double rows, double k, double n) {
        return linear(name, rows, k, n, false);
    }

    /**
     * The three GEMMs of a linear layer and its main-gradient accumulation; {@code bf16}: kept
     * in bf16 whatever the training precision (logits, router).
     */
    private Block linear(String name, double rows, double k, double n, boolean bf16) {
        double flops = 2 * rows * n * k;
        double f = costs.gemm(rows, n, k, bf16);
        double bi = costs.gemm(rows, k, n, bf16);
        double w = costs.gemm(k, n, rows, bf16);
        return new Block(f, bi, w, flops, flops, flops, List.of(new OpTime(name, f, bi, w)))
                .plus(Block.op("grad accumulate", 0, 0, costs.accumulate(k * n, bf16)));
    }

    /** A memory-bound op moving {@code forward} bytes in F and {@code backward} in Bi. */
    private Block memoryOp(String name, Op op, double forward, double backward) {
        return Block.op(name, costs.forward(op, forward), costs.backward(op, backward), 0);
    }

    /**
     * The low-precision casts of one GEMM: its input (rows x k) in F and its output gradient
     * (rows x n) in Bi, each cast by a kernel of its own unless the recipe quantises it inside
     * the kernel that produced it ({@code input}, {@code grad}: see {@link Fp8Recipe}). Under
     * NVFP4 each operand's cast is preceded by its amax pass, shown as its own op ("hadamard
     * amax"; {@link KernelCosts#hadamardAmax}). Under AQT int8 the weight (k x n) is quantised
     * too, in every forward: AQT quantises both operands of each dot_general as it runs (maxtext
     * {@code AqtQuantization}), where Transformer Engine's weight casts, made once a step and
     * cached for the following microbatches, are not costed here.
     */
    private Block casts(double rows, double k, double n, CastProducer input, CastProducer grad) {
        if (!costs.quantised()) {
            return Block.op("fp8 cast", 0, 0, 0);
        }
        if (costs.precision() == Precision.INT8) {
            return Block.op("int8 quantise", costs.cast(rows * k, CastProducer.OTHER)
                    + costs.cast(k * n, CastProducer.OTHER), costs.cast(rows * n, CastProducer.OTHER), 0);
        }
        Block cast = Block.op(costs.castName(), costs.cast(rows * k, input), costs.cast(rows * n, grad), 0);
        if (costs.nvfp4()) {
            return Block.op("hadamard amax", costs.hadamardAmax(rows * k), costs.hadamardAmax(rows * n), 0).plus(cast);
        }
        return cast;
    }

    /**
     * A layer or RMS norm over the rows: reads and writes b s h in the forward; reads the input
     * and the gradient and writes the gradient in the backward.
     */
    private Block norm() {
        double x = normRows() * model.hidden() * E;
        return memoryOp("norm", Op.NORM, 2 * x, 3 * x);
    }

    /**
     * The residual add after a block (with bias and dropout where the model has them): reads
     * the block's output and the residual, writes the sum and a one-byte dropout mask; the
     * backward reads the gradient and the mask and writes the gradient.
     */
    private Block residual() {
        double rows = normRows() * model.hidden();
        return memoryOp("residual", Op.RESIDUAL, rows * (3 * E + 1), rows * (2 * E + 1));
    }

    /** Layer {@code l}'s attention core alone (scores, softmax, weighted sum); windowed or full. */
    public Block attentionCore(int l) {
        return attentionCore(model.isWindowed(l));
    }

    /**
     * The attention core of a full-attention layer ({@code windowed} false) or of a
     * sliding-window layer. Query/key head dimension d_qk and value head dimension d_v (equal
     * but for latent attention); FLOPs per (query, key) pair 2 (d_qk + d_v), which is the
     * FlashAttention convention's 4 d per pair when they are equal.
     *
     * <p>Where the causal throughput tables are read. Full attention: at the geometric mean of
     * the query and key lengths the kernel sees (s without context parallelism). A windowed
     * layer: at no more than twice the mean keys per query, 2 pairs / s (about 2W). A causal
     * kernel at length L gives its queries L / 2 keys on average, with one masked diagonal tile
     * per query tile; a windowed kernel's loop over key tiles runs over W keys per query with the
     * same masked diagonal (and a second masked tile at the window's far edge, which we ignore),
     * so it runs like a causal kernel at 2W. Below a table's first length the rate stays at
     * the first measurement (AttentionCurve): for W = 128 (2W = 256) that is the 512-token causal
     * rate, probably optimistic for so short a loop. The head dimension read is (d_qk + d_v) / 2,
     * the equal-head kernel doing the same work per pair (latent attention: 160).
     */
    private Block attentionCore(boolean windowed) {
        double b = microBatch;
        double s = seqLen;
        double q = s / cp; // local queries; keys and values span the whole sequence
        double headsLocal = (double) model.heads() / tp;
        int dqk = model.headDim();
        int dv = model.vHeadDim();
        if (costs.attention() == AttentionImpl.STANDARD) {
            // full q x s products as batched GEMMs, and the score matrix (b a/t q s elements)
            // streamed by its element-wise kernels: see SCORE_BYTES_FORWARD and _BACKWARD. A
            // sliding window only changes the mask: the whole score matrix is still computed.
            // As Megatron runs it: megatron/model/transformer.py ParallelAttention.forward at
            // NVIDIA/Megatron-LM commit aed2f75 (April 2021), and megatron/core's unfused
            // DotProductAttention today.
            double m = q * b * headsLocal;
            double matmuls = costs.gemm(m, s, dqk, true) + costs.gemm(m, dv, s, true);
            double elements = b * headsLocal * q * s;
            double forwardBytes = windowed ? SCORE_BYTES_FORWARD : SCORE_BYTES_FORWARD - CAUSAL_SOFTMAX_SKIP_FORWARD;
            double backwardBytes = windowed ? SCORE_BYTES_BACKWARD : SCORE_BYTES_BACKWARD - CAUSAL_SOFTMAX_SKIP_BACKWARD;
            double scores = costs.forward(Op.SCORES, elements * forwardBytes);
            double scoresBack = costs.backward(Op.SCORES, elements * backwardBytes);
            // the context leaves the batched GEMM as [b a/t, q, d_v] and is copied to [q, b, a/t d_v]
            // for the output projection (permute(2, 0, 1, 3).contiguous()), and its gradient copied
            // back in the backward (the view of a permuted gradient): read and write each element once
            double context = costs.memory(b * q * headsLocal * dv * 2 * E, 1);
            double flops = 2 * b * q * s * headsLocal * (dqk + dv);
            double f = matmuls + scores + context;
            double bi = 2 * matmuls + scoresBack + context;
            return new Block(f, bi, 0, flops, 2 * flops, 0, List.of(new OpTime("attn core", f, bi, 0)));
        }
        // causal: half of each product is skipped (with CP, load-balanced chunks give every rank
        // half of its rows' keys); a window keeps s W - W^2 / 2 of the s^2 pairs, shared evenly
        // by the CP ranks; FLOPs in FlashAttention's convention
        double pairs = windowed ? model.attentionShape().window().causalPairs(s) : s * s / 2;
        double flops = 2 * b * headsLocal * (dqk + dv) * pairs / cp;
        double seq = Math.min(Math.sqrt(q * s), 2 * pairs / s);
        int d = (int) Math.round((dqk + dv) / 2.0);
        double f = costs.attention(AttentionPass.FORWARD, flops, d, true, seq);
        double bi = costs.attention(AttentionPass.BACKWARD, 2.5 * flops, d, true, seq);
        // model FLOPs of the backward: twice the forward (Megatron's count)
        return new Block(f, bi, 0, flops, 2 * flops, 0, List.of(new OpTime("attn core", f, bi, 0)));
    }

    /**
     * Bytes per score element the forward's element-wise kernels move in standard attention: the
     * fused scale-mask-softmax reads and writes the scores (2 + 2), dropout reads them and
     * writes them and a one-byte mask (2 + 2 + 1).
     */
    static final double SCORE_BYTES_FORWARD = 9;
    /**
     * The backward's: dropout's backward reads the gradient and the mask and writes the gradient
     * (2 + 1 + 2), softmax's reads its output and the gradient and writes the gradient (2 + 2 + 2).
     */
    static final double SCORE_BYTES_BACKWARD = 11;
    /**
     * Bytes per score element the causal softmax does not read. Megatron's fused
     * {@code scaled_upper_triang_masked_softmax} (megatron/fused_kernels/scaled_upper_triang_masked_softmax.h
     * at NVIDIA/Megatron-LM commit aed2f75, April 2021; megatron/core/fusions today) gives row i
     * of a causal score matrix only its first i + 1 elements to read and writes zeros over the
     * rest without reading them: half the input's 2 bytes in the forward; in the backward half of
     * the output's and the gradient's 2 + 2 (the writes stay whole). Dropout, which does not know
     * the mask, streams the whole matrix. A sliding-window mask goes through the generic masked
     * softmax, which reads everything.
     */
    static final double CAUSAL_SOFTMAX_SKIP_FORWARD = 1;
    /** See {@link #CAUSAL_SOFTMAX_SKIP_FORWARD}: half of the backward's 2 + 2 bytes read. */
    static final double CAUSAL_SOFTMAX_SKIP_BACKWARD = 2;

    /**
     * Rotary embedding of the local queries and keys: read and write each once per pass. With
     * latent attention this is Megatron-core's fused MLA rope, which also assembles each head's
     * full query and key (nope and rope parts), heads / t x (nope + rope) each.
     */
    private Block rotary() {
        double elements = tokens() * (model.heads() + model.kvHeads()) / (double) tp * model.headDim();
        return memoryOp("rope", Op.ROTARY, 2 * E * elements, 2 * E * elements);
    }

    /** Layer {@code l}'s attention block, without recomputation. */
    public Block attentionBlock(int l) {
        return attentionBlock(attentionCore(l));
    }

    /** The attention block around a given core. */
    private Block attentionBlock(Block core) {
        double h = model.hidden();
        double t = tokens();
        double attnOut = model.attentionOutputWidth() / (double) tp;
        Block block = norm().plus(model.latentAttention() == null ? qkv() : latentProjections());
        if (model.rotary()) {
            block = block.plus(rotary());
        }
        block = block.plus(core)
                .plus(casts(t, attnOut, h, CastProducer.OTHER, CastProducer.OTHER))
                .plus(linear("proj", t, attnOut, h));
        // with parallel blocks the one residual add closes the MLP block
        return model.parallelBlocks() ? block : block.plus(residual());
    }

    /** Grouped-query attention's fused QKV projection, column-parallel. */
    private Block qkv() {
        double h = model.hidden();
        double qkv = model.qkvWidth() / (double) tp;
        double t = tokens();
        return casts(t, h, qkv, CastProducer.NORM, CastProducer.OTHER).plus(linear("qkv", t, h, qkv));
    }

    /**
     * Latent attention's projections (see {@link org.clustersim.strategies.model.LatentAttention}):
     * the query and key/value down-projections replicated on every TP rank over its norm rows
     * (the sequence-parallel shard, or every token redundantly without sequence parallelism);
     * the RMS norms of both latents, over the same rows; the up-projections, column-parallel
     * over all the rank's tokens.
     */
    private Block latentProjections() {
        LatentAttention mla = model.latentAttention();
        double h = model.hidden();
        double rows = normRows();
        double t = tokens();
        double qUp = (double) model.heads() * mla.qkHeadDim() / tp;
        double kvUp = (double) model.heads() * (mla.qkNopeHeadDim() + mla.vHeadDim()) / tp;
        double latents = rows * (mla.qLoraRank() + mla.kvLoraRank()) * E;
        return casts(rows, h, mla.gatheredWidth(), CastProducer.NORM, CastProducer.OTHER)
                .plus(linear("q down", rows, h, mla.qLoraRank()))
                .plus(linear("kv down", rows, h, mla.kvDownWidth()))
                .plus(memoryOp("latent norm", Op.NORM, 2 * latents, 3 * latents))
                .plus(casts(t, mla.qLoraRank(), qUp, CastProducer.NORM, CastProducer.OTHER))
                .plus(linear("q up", t, mla.qLoraRank(), qUp))
                .plus(casts(t, mla.kvLoraRank(), kvUp, CastProducer.NORM, CastProducer.OTHER))
                .plus(linear("kv up", t, mla.kvLoraRank(), kvUp));
    }

    /**
     * What recomputing {@code mla_up_proj} replays in the backward: the FP8 casts of the latents,
     * the query and key/value up-projections and the rotary embedding that assembles each head's
     * query and key (Megatron-core's {@code qkv_up_proj_and_rope_apply}). Forward times only.
     */
    public Block mlaUpProjection() {
        LatentAttention mla = model.latentAttention();
        if (mla == null) {
            throw new IllegalStateException(model.name() + " has no latent attention");
        }
        double t = tokens();
        double qUp = (double) model.heads() * mla.qkHeadDim() / tp;
        double kvUp = (double) model.heads() * (mla.qkNopeHeadDim() + mla.vHeadDim()) / tp;
        return casts(t, mla.qLoraRank(), qUp, CastProducer.NORM, CastProducer.OTHER)
                .plus(linear("q up", t, mla.qLoraRank(), qUp))
                .plus(casts(t, mla.kvLoraRank(), kvUp, CastProducer.NORM, CastProducer.OTHER))
                .plus(linear("kv up", t, mla.kvLoraRank(), kvUp))
                .plus(rotary());
    }

    /**
     * A dense block's tensor-parallel GEMM on one TP rank: its forward multiplies (rows x k) by
     * (k x n); the input gradient is (rows x n) by (n x k), the weight gradient (k x rows) by
     * (rows x n).
     *
     * @param rows the tokens it multiplies (the all-gathered sequence under sequence parallelism)
     * @param k    its input width
     * @param n    its output width on this rank
     */
    public record TensorParallelGemm(double rows, double k, double n) {
    }

    /**
     * The shape of a dense block's tensor-parallel GEMM ({@code qkv}, {@code proj}, {@code fc1},
     * {@code fc2}); empty for any other op, or for latent attention's QKV.
     */
    public java.util.Optional<TensorParallelGemm> tensorParallelGemm(String op) {
        double h = model.hidden();
        double f = model.ffn() / (double) tp;
        double[] kn = switch (op) {
            case "qkv" -> model.latentAttention() == null ? new double[] {h, model.qkvWidth() / (double) tp} : null;
            case "proj" -> new double[] {model.attentionOutputWidth() / (double) tp, h};
            case "fc1" -> new double[] {h, (model.ffnKind().matrices() - 1) * f};
            case "fc2" -> new double[] {f, h};
            default -> null;
        };
        return kn == null ? java.util.Optional.empty()
                : java.util.Optional.of(new TensorParallelGemm(tokens(), kn[0], kn[1]));
    }

    /**
     * One of {@code chunks} row chunks of a dense block's tensor-parallel GEMM ({@code qkv},
     * {@code proj}, {@code fc1}, {@code fc2}) in the forward and the input-gradient pass, as
     * Transformer Engine's userbuffers overlap splits it: each chunk its own GEMM of rows / chunks
     * at the surface's rate for that shape (smaller chunks run less efficiently). The weight
     * gradient is not chunked (0 here). Empty as for {@link #tensorParallelGemm}.
     */
    public java.util.Optional<OpTime> gemmChunk(String op, int chunks) {
        return tensorParallelGemm(op).map(g -> {
            double rows = g.rows() / chunks;
            return new OpTime(op, costs.gemm(rows, g.n(), g.k()), costs.gemm(rows, g.k(), g.n()), 0);
        });
    }

    /**
     * The MLP block, without recomputation. With parallel blocks it has no norm of its own (fc1
     * reads the attention's norm output) and ends with the branch sum and the layer's one residual.
     */
    public Block mlpBlock() {
        double h = model.hidden();
        double f = model.ffn() / (double) tp;
        Block mlp = mlp(tokens(), h, f, "fc1", "fc2", 1, true);
        return model.parallelBlocks() ? mlp.plus(branchSum()).plus(residual()) : norm().plus(mlp).plus(residual());
    }

    /**
     * Parallel blocks: the attention's and the MLP's row-parallel partial outputs added before
     * their one reduction (reads two b s h tensors of all the rank's tokens, writes one); in the
     * backward the QKV and fc1 input gradients added the same way before theirs.
     */
    private Block branchSum() {
        double x = tokens() * model.hidden() * E;
        return memoryOp("branch sum", Op.RESIDUAL, 3 * x, 3 * x);
    }

    /**
     * One MLP of width f (split already) over {@code rows} rows: the first GEMM (up, or gate and
     * up), the activation, the second GEMM, with the FP8 casts, as {@code groups} experts'
     * grouped GEMMs when more than one. {@code afterNorm}: the input comes straight from a layer
     * norm (which can cast it to FP8 itself) rather than from the token permutation.
     */
    private Block mlp(double rows, double h, double f, String first, String second, int groups, boolean afterNorm) {
        int up = model.ffnKind().matrices() - 1;
        Block fc1 = groups == 1 ? linear(first, rows, h, up * f) : grouped(first, groups, rows, h, up * f);
        Block fc2 = groups == 1 ? linear(second, rows, f, h) : grouped(second, groups, rows, f, h);
        double all = rows * groups;
        // activation: reads the up outputs, writes f; backward reads them and the gradient, writes their gradients
        Block act = memoryOp("act", Op.ACTIVATION, all * f * E * (up + 1), all * f * E * (2 * up + 1));
        return casts(all, h, up * f, afterNorm ? CastProducer.NORM : CastProducer.OTHER, CastProducer.ACTIVATION)
                .plus(fc1).plus(act).plus(casts(all, f, h, CastProducer.ACTIVATION, CastProducer.OTHER)).plus(fc2);
    }

    /** {@code groups} GEMMs of (rows x k) by (k x n), each with its own weights, as one grouped kernel per pass. */
    private Block grouped(String name, int groups, double rows, double k, double n) {
        double flops = 2 * rows * n * k * groups;
        double f = costs.grouped(groups, rows, n, k);
        double bi = costs.grouped(groups, rows, k, n);
        double w = costs.grouped(groups, k, n, rows);
        return new Block(f, bi, w, flops, flops, flops, List.of(new OpTime(name, f, bi, w)))
                .plus(Block.op("grad accumulate", 0, 0, costs.accumulate(groups * k * n)));
    }

    /**
     * The first half of an MoE layer's MLP block, before tokens leave the GPU: the layer norm,
     * the router (a T x h x experts GEMM in bf16, replicated on every TP rank as in Megatron-LM;
     * over the sequence-parallel shard with SP), its softmax and top-k, the host synchronisation
     * the dispatcher waits for (forward only: the backward reuses the split sizes), and with the
     * all-to-all dispatcher the permutation that groups the routed tokens by expert (Transformer
     * Engine's fused {@code moe_permute}: each token row read for each of its top-k experts and
     * written once per expert, with its routing probability in fp32; the backward gathers the
     * gradient rows back the same way).
     */
    public Block router() {
        TransformerModel.Experts e = requireExperts();
        double rows = normRows();
        Block gate = linear("router", rows, model.hidden(), e.count(), true);
        double scores = rows * e.count() * 4 * 3;
        Block out = norm().plus(gate).plus(memoryOp("router", Op.ROUTER, scores, scores))
                .plus(Block.op("host sync", costs.hostSync(), 0, 0));
        if (dispatcher.permutesBeforeExchange()) {
            double permute = rows * e.routedPerToken() * (model.hidden() * E + PROB_BYTES) * 2;
            out = out.plus(memoryOp("permute", Op.PERMUTE, permute, permute));
        }
        return out;
    }

    /** Bytes of a routed token's probability (fp32, as Megatron-core's router keeps it). */
    private static final double PROB_BYTES = 4;

    /**
     * The expert computation of an MoE layer on one GPU: its experts / ep local experts as
     * grouped GEMMs, each fed the tokens routed to it from the whole EP group (with balanced
     * routing, each GPU dispatches its T / t tokens x topK x capacity factor, and the expert TP
     * group gathers etp such shares: T / t x etp x topK x capacity factor / local experts rows
     * per expert), each expert's matrices split over etp; the shared experts over all T tokens,
     * split over t like a dense MLP. Around the grouped GEMMs, the dispatcher's memory-bound
     * kernels: with the all-to-all dispatcher and several local experts, the received chunks
     * sorted by local expert and unsorted after the experts ({@code sort_chunks_by_idxs}, fused:
     * every received row and its probability read and written once, one kernel each way); with
     * DeepEP the received tokens permuted to their experts; then, but for HybridEP (which fuses
     * it into its combine), the un-permutation of the GPU's own outputs. Small per-expert row
     * counts make the grouped GEMMs less efficient, which the GEMM surface captures. With an
     * expert imbalance the routed work takes as long as on the busiest GPU.
     */
    public Block experts() {
        TransformerModel.Experts e = requireExperts();
        double h = model.hidden();
        double f = e.ffn() / (double) tp;
        int local = e.count() / ep;
        double routed = tokens() * e.routedPerToken();
        double unpermute = routed / tp * (h * E + PROB_BYTES) * 2;
        // the rows this GPU's experts see: its expert TP group's dispatched shares
        double rows = etp == tp ? routed : routed / tp * etp;
        double chunks = rows * (h * E + PROB_BYTES) * 2;
        boolean sorts = dispatcher.sortsChunks() && local > 1;
        Block before = sorts ? Block.op("sort chunks", costs.memory(chunks, 1), costs.memory(chunks, 1), 0)
                : new Block(0, 0, 0, 0, 0, 0, List.of());
        if (dispatcher.permuteKernels() && !dispatcher.permutesBeforeExchange()) {
            before = memoryOp("permute", Op.PERMUTE, chunks, chunks);
        }
        Block routedWork = before
                .plus(mlp(rows / local, h, e.ffn() / (double) etp, "experts fc1", "experts fc2", local, false));
        if (sorts) {
            routedWork = routedWork.plus(Block.op("unsort chunks", costs.memory(chunks, 1), costs.memory(chunks, 1), 0));
        }
        if (dispatcher.permuteKernels()) {
            routedWork = routedWork.plus(memoryOp("unpermute", Op.PERMUTE, unpermute, unpermute));
        }
        // the busiest GPU's routed work sets the time; the FLOPs counted are the mean's
        Block all = routedWork.slower(e.imbalance());
        if (e.shared() > 0) {
            all = all.plus(mlp(tokens(), h, e.shared() * f, "shared fc1", "shared fc2", 1, true));
        }
        return all;
    }

    /**
     * What recomputing {@code moe_act} replays: the routed experts' activation function over the
     * rows this GPU's experts see (forward time; at the busiest GPU's rows under imbalance).
     */
    public Block expertActivation() {
        TransformerModel.Experts e = requireExperts();
        int up = model.ffnKind().matrices() - 1;
        double routed = tokens() * e.routedPerToken();
        double rows = etp == tp ? routed : routed / tp * etp;
        double f = e.ffn() / (double) etp;
        return memoryOp("act", Op.ACTIVATION, rows * f * E * (up + 1), 0).slower(e.imbalance());
    }

    /** What recomputing {@code shared_experts} replays: the shared experts' MLP (forward times). */
    public Block sharedExperts() {
        TransformerModel.Experts e = requireExperts();
        return mlp(tokens(), model.hidden(), e.shared() * e.ffn() / (double) tp, "shared fc1", "shared fc2", 1, true);
    }

    private TransformerModel.Experts requireExperts() {
        if (model.experts() == null) {
            throw new IllegalStateException(model.name() + " has no experts");
        }
        return model.experts();
    }

    /**
     * Layer {@code l}'s blocks with the recomputation policy applied to Bi: attention and MLP
     * for a dense layer; attention, router and experts for an MoE layer. The attention block is
     * windowed or full as the layer is.
     */
    public Block[] layer(int l) {
        Block core = attentionCore(l);
        Block attn = attentionBlock(core);
        if (recompute == Recompute.FULL) {
            attn = attn.withReplay(attn, "recompute");
        }
        // selective: each recomputed module's forward replayed in the Bi of the block holding it
        if (recomputes(RecomputeModule.CORE_ATTN)) {
            attn = attn.withReplay(core, "recompute");
        }
        if (recomputes(RecomputeModule.MLA_UP_PROJ)) {
            attn = attn.withReplay(mlaUpProjection(), "recompute mla_up_proj");
        }
        if (recomputes(RecomputeModule.LAYERNORM)) {
            attn = attn.withReplay(norm(), "recompute layernorm");
        }
        if (!model.isMoeLayer(l)) {
            Block mlp = mlpBlock();
            if (recompute == Recompute.FULL) {
                mlp = mlp.withReplay(mlp, "recompute");
            }
            if (recomputes(RecomputeModule.MLP)) {
                // Transformer Engine's fused LayerNormMLP: the pre-MLP norm, fc1, activation, fc2
                // (parallel blocks: no norm of its own)
                Block replay = mlp(tokens(), model.hidden(), model.ffn() / (double) tp, "fc1", "fc2", 1, true);
                mlp = mlp.withReplay(model.parallelBlocks() ? replay : norm().plus(replay), "recompute mlp");
            }
            if (recomputes(RecomputeModule.LAYERNORM) && !model.parallelBlocks()) {
                mlp = mlp.withReplay(norm(), "recompute layernorm");
            }
            return new Block[] {attn, mlp};
        }
        Block router = router();
        Block experts = experts();
        if (recompute == Recompute.FULL) {
            router = router.withReplay(router, "recompute");
            experts = experts.withReplay(experts, "recompute");
        }
        if (recomputes(RecomputeModule.LAYERNORM)) {
            router = router.withReplay(norm(), "recompute layernorm");
        }
        if (recomputes(RecomputeModule.MOE_ACT)) {
            experts = experts.withReplay(expertActivation(), "recompute moe_act");
        }
        if (recomputes(RecomputeModule.SHARED_EXPERTS) && model.experts().shared() > 0) {
            experts = experts.withReplay(sharedExperts(), "recompute shared_experts");
        }
        return new Block[] {attn, router, experts};
    }

    /** Layer {@code l}'s blocks without recomputation. */
    public Block[] baseLayer(int l) {
        return model.isMoeLayer(l) ? new Block[] {attentionBlock(l), router(), experts()}
                : new Block[] {attentionBlock(l), mlpBlock()};
    }

    /**
     * The output projection to the vocabulary (split over t, kept in bf16 under FP8 as
     * Megatron-core and DeepSeek-V3 do) and the softmax cross-entropy over the logits: the
     * forward reads the bf16 logits and writes and re-reads fp32 probabilities; the backward
     * reads them and writes the bf16 gradient.
     */
    public Block logits() {
        double elements = tokens() * model.vocab() / tp;
        return linear("logits", tokens(), model.hidden(), model.vocab() / (double) tp, true)
                .plus(memoryOp("cross-entropy", Op.CROSS_ENTROPY, elements * (E + 4 + 4), elements * (4 + E)));
    }

    /**
     * Embedding lookup: reads b s rows of h and writes them; the backward zeroes the local
     * vocabulary shard's gradient and scatter-adds the b s gradient rows into it.
     */
    public Block embedding() {
        double rows = tokens() * model.hidden() * E;
        double table = (double) model.vocab() * model.hidden() / tp * E;
        return memoryOp("embedding", Op.EMBEDDING, 2 * rows, table + 4 * rows);
    }
}
