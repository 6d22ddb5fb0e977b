package org.clustersim.strategies.cost;

import org.clustersim.strategies.model.TransformerModel;

/**
 * What one transformer layer costs one tensor-parallel rank for one microbatch, split the
 * way frameworks run it: an attention block (norm, QKV projection, attention core, output
 * projection) and an MLP block (norm, up/gate, activation, down), each with its forward (F),
 * input-gradient (Bi) and weight-gradient (W) pass. Matrix multiplies take the GEMM model's
 * time for their shape after the Megatron column/row split over t ranks; the attention core is
 * FlashAttention-style (causal: half the score and value products are skipped, t ranks split
 * the heads); norms, residuals and activations stream their tensors through memory (divided
 * by t under sequence parallelism). Backward of a matrix multiply: Bi and W each as many FLOPs
 * as the forward; of the attention core: twice the forward, all in Bi. Recomputation adds a
 * forward of the whole layer (full) or of the attention core (selective) to Bi.
 *
 * @param model     the transformer
 * @param gemm      the chip's GEMM model
 * @param tp        tensor-parallel size t
 * @param seqParallel whether sequence parallelism splits norms and residuals over t
 * @param microBatch b
 * @param seqLen    s
 * @param recompute activation recomputation
 * @param attention how the attention core is computed
 * @param cp        context-parallel ranks the sequence is split over: each GPU holds s / cp
 *                  tokens and attends with them to all s keys (gathered from its CP group)
 * @param ep        expert-parallel ranks the experts of an MoE layer are spread over: each GPU
 *                  holds experts / ep of them and, with balanced routing, computes as many
 *                  expert-token pairs as its own tokens routed (top-k x capacity factor)
 */
public record LayerCostModel(TransformerModel model, GemmModel gemm, int tp, boolean seqParallel, int microBatch,
                             int seqLen, Recompute recompute, Attention attention, int cp, int ep) {

    public LayerCostModel {
        if (cp < 1 || seqLen % cp != 0) {
            throw new IllegalArgumentException("context parallelism " + cp + " must divide the sequence " + seqLen);
        }
        if (ep < 1 || (model.experts() != null && model.experts().count() % ep != 0)) {
            throw new IllegalArgumentException("expert parallelism " + ep + " must divide the experts");
        }
    }

    /** Without expert parallelism. */
    public LayerCostModel(TransformerModel model, GemmModel gemm, int tp, boolean seqParallel, int microBatch,
                          int seqLen, Recompute recompute, Attention attention, int cp) {
        this(model, gemm, tp, seqParallel, microBatch, seqLen, recompute, attention, cp, 1);
    }

    /** Without context parallelism. */
    public LayerCostModel(TransformerModel model, GemmModel gemm, int tp, boolean seqParallel, int microBatch,
                          int seqLen, Recompute recompute, Attention attention) {
        this(model, gemm, tp, seqParallel, microBatch, seqLen, recompute, attention, 1);
    }

    /**
     * The attention core's implementation. FLASH: fused, tiles kept on chip, causal blocks
     * skipped (FlashAttention, Dao et al. 2022). STANDARD: the score matrix is materialised in
     * memory, scaled, masked, soft-maxed and dropped out in separate passes, as frameworks did
     * before fused attention (Megatron-LM in 2021).
     */
    public enum Attention { FLASH, STANDARD }

    /** With fused (flash) attention. */
    public LayerCostModel(TransformerModel model, GemmModel gemm, int tp, boolean seqParallel, int microBatch,
                          int seqLen, Recompute recompute) {
        this(model, gemm, tp, seqParallel, microBatch, seqLen, recompute, Attention.FLASH);
    }

    /** Activation recomputation policy. */
    public enum Recompute { NONE, SELECTIVE, FULL }

    /**
     * One block's passes: time (ns) and FLOPs executed, per TP rank.
     *
     * @param fNs  forward time
     * @param biNs input-gradient time (including recomputation)
     * @param wNs  weight-gradient time
     * @param fFlops  forward FLOPs
     * @param biFlops input-gradient FLOPs (including recomputation)
     * @param wFlops  weight-gradient FLOPs
     */
    public record Block(double fNs, double biNs, double wNs, double fFlops, double biFlops, double wFlops) {
        Block plus(Block o) {
            return new Block(fNs + o.fNs, biNs + o.biNs, wNs + o.wNs, fFlops + o.fFlops, biFlops + o.biFlops,
                    wFlops + o.wFlops);
        }
    }

    /** Tokens of one microbatch on this GPU: b s / cp. */
    private double tokens() {
        return (double) microBatch * seqLen / cp;
    }

    /** A matrix multiply of the forward: (T x k) by (k x n), with its backward passes. */
    private Block matmul(double k, double n) {
        return matmul(tokens(), k, n);
    }

    /** A matrix multiply of the forward over t rows: (t x k) by (k x n), with its backward passes. */
    private Block matmul(double t, double k, double n) {
        double f = gemm.ns(t, n, k);
        double bi = gemm.ns(t, k, n);
        double w = gemm.ns(k, n, t);
        double flops = 2 * t * n * k;
        return new Block(f, bi, w, flops, flops, flops);
    }

    private Block elementwise(double bytesForward) {
        double f = gemm.memoryNs(bytesForward);
        return new Block(f, 2 * f, 0, 0, 0, 0);
    }

    /** Passes over the materialised score matrix in standard attention: scale and mask, softmax, dropout. */
    static final double STANDARD_SCORE_PASSES = 5;

    /** The attention core alone (scores, softmax, weighted sum). */
    public Block attentionCore() {
        double b = microBatch;
        double s = seqLen;
        double q = s / cp; // local queries; keys and values span the whole sequence
        double headsLocal = (double) model.heads() / tp;
        double dh = model.headDim();
        double m = q * b * headsLocal;
        if (attention == Attention.STANDARD) {
            // full q x s products, and the score matrix (b a/t q s elements) read and written per pass
            double matmuls = gemm.ns(m, s, dh) + gemm.ns(m, dh, s);
            double scores = gemm.memoryNs(b * headsLocal * q * s * 2 * 2 * STANDARD_SCORE_PASSES);
            double flops = 4 * b * q * s * model.hidden() / tp;
            return new Block(matmuls + scores, 2 * (matmuls + scores), 0, flops, 2 * flops, 0);
        }
        // causal FlashAttention executes half of each product (with CP, load-balanced chunks give
        // every rank half of its rows' keys); heads batched into one kernel
        double f = 0.5 * (gemm.ns(m, s, dh) + gemm.ns(m, dh, s));
        double flops = 0.5 * 4 * b * q * s * model.hidden() / tp;
        return new Block(f, 2 * f, 0, flops, 2 * flops, 0);
    }

    /**
     * Element-wise traffic around one block, bytes: the layer norm reads and writes b s h,
     * the bias, dropout and residual add read three tensors and write one plus a one-byte
     * dropout mask: about seven passes over b s h half-precision elements (split over t under
     * sequence parallelism, replicated on every TP rank otherwise).
     */
    private double normBytes() {
        return 7.0 * tokens() * model.hidden() * 2 / (seqParallel ? tp : 1);
    }

    /** The attention block, without recomputation. */
    public Block attentionBlock() {
        double h = model.hidden();
        Block qkv = matmul(h, model.qkvWidth() / (double) tp);
        Block proj = matmul(h / tp, h);
        return elementwise(normBytes()).plus(qkv).plus(attentionCore()).plus(proj);
    }

    /** The MLP block, without recomputation. */
    public Block mlpBlock() {
        double h = model.hidden();
        double f = model.ffn() / (double) tp;
        int upMatrices = model.ffnKind().matrices() - 1;
        Block up = matmul(h, upMatrices * f);
        Block down = matmul(f, h);
        double activationBytes = tokens() * f * 2 * (upMatrices + 1);
        return elementwise(normBytes()).plus(up).plus(elementwise(activationBytes)).plus(down);
    }

    /**
     * The first half of an MoE layer's MLP block, before tokens leave the GPU: the layer norm,
     * the router (a T x h x experts GEMM, replicated on every TP rank as in Megatron-LM; over
     * the sequence-parallel shard with SP), its softmax and top-k, and the permutation that
     * groups the routed tokens by expert.
     */
    public Block router() {
        TransformerModel.Experts e = requireExperts();
        double rows = tokens() / (seqParallel ? tp : 1);
        Block gate = matmul(rows, model.hidden(), e.count());
        double scores = rows * e.count() * 4 * 3;
        double permute = rows * e.routedPerToken() * model.hidden() * 2 * 2;
        return elementwise(normBytes()).plus(gate).plus(elementwise(scores + permute));
    }

    /**
     * The expert computation of an MoE layer on one GPU: its experts / ep local experts, each
     * fed the tokens routed to it from the whole EP group (with balanced routing, T x topK x
     * capacity factor / local experts rows each, after the TP group has gathered them), each
     * expert's matrices split over t like a dense MLP; the shared experts over all T tokens;
     * the activation; and the un-permutation of the outputs. Small per-expert row counts make
     * the grouped GEMMs less efficient, which the GEMM model's shape curve captures. With an
     * expert imbalance the routed GEMMs take as long as on the busiest GPU.
     */
    public Block experts() {
        TransformerModel.Experts e = requireExperts();
        double h = model.hidden();
        double f = e.ffn() / (double) tp;
        int upMatrices = model.ffnKind().matrices() - 1;
        int local = e.count() / ep;
        double routed = tokens() * e.routedPerToken();
        double rowsPerExpert = routed / local;
        Block one = matmul(rowsPerExpert, h, upMatrices * f).plus(matmul(rowsPerExpert, f, h));
        Block routedWork = new Block(one.fNs * local, one.biNs * local, one.wNs * local, one.fFlops * local,
                one.biFlops * local, one.wFlops * local)
                .plus(elementwise(routed * f * 2 * (upMatrices + 1) + routed / tp * h * 2 * 2));
        // the busiest GPU's routed work sets the time; the FLOPs counted are the mean's
        double hot = e.imbalance();
        Block all = new Block(routedWork.fNs * hot, routedWork.biNs * hot, routedWork.wNs * hot, routedWork.fFlops,
                routedWork.biFlops, routedWork.wFlops);
        if (e.shared() > 0) {
            double sf = e.shared() * f;
            all = all.plus(matmul(h, upMatrices * sf)).plus(matmul(sf, h))
                    .plus(elementwise(tokens() * sf * 2 * (upMatrices + 1)));
        }
        return all;
    }

    private TransformerModel.Experts requireExperts() {
        if (model.experts() == null) {
            throw new IllegalStateException(model.name() + " has no experts");
        }
        return model.experts();
    }

    /**
     * Layer {@code l}'s blocks with the recomputation policy applied to Bi: attention and MLP
     * for a dense layer; attention, router and experts for an MoE layer.
     */
    public Block[] layer(int l) {
        if (!model.isMoeLayer(l)) {
            return layer();
        }
        Block[] dense = layer();
        Block router = router();
        Block experts = experts();
        if (recompute == Recompute.FULL) {
            router = withRecompute(router);
            experts = withRecompute(experts);
        }
        return new Block[] {dense[0], router, experts};
    }

    /** Layer {@code l}'s blocks without recomputation. */
    public Block[] baseLayer(int l) {
        return model.isMoeLayer(l) ? new Block[] {attentionBlock(), router(), experts()}
                : new Block[] {attentionBlock(), mlpBlock()};
    }

    private static Block withRecompute(Block b) {
        return new Block(b.fNs, b.biNs + b.fNs, b.wNs, b.fFlops, b.biFlops + b.fFlops, b.wFlops);
    }

    /** Both blocks of a dense layer with the recomputation policy applied to Bi. */
    public Block[] layer() {
        Block attn = attentionBlock();
        Block mlp = mlpBlock();
        if (recompute == Recompute.FULL) {
            attn = withRecompute(attn);
            mlp = withRecompute(mlp);
        } else if (recompute == Recompute.SELECTIVE) {
            Block core = attentionCore();
            attn = new Block(attn.fNs, attn.biNs + core.fNs, attn.wNs, attn.fFlops, attn.biFlops + core.fFlops,
                    attn.wFlops);
        }
        return new Block[] {attn, mlp};
    }

    /** The output projection to the vocabulary (split over t), with softmax and loss streaming the logits. */
    public Block logits() {
        Block proj = matmul(model.hidden(), model.vocab() / (double) tp);
        return proj.plus(elementwise(tokens() * model.vocab() / tp * 2 * 3));
    }

    /** Embedding lookup: reads b s rows of h. */
    public Block embedding() {
        return elementwise(tokens() * model.hidden() * 2 * 2);
    }
}
