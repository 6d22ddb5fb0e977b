package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.device.CommKernels;

/**
 * Megatron-core's {@code --tp-comm-overlap}: Transformer Engine's userbuffers split the
 * sequence-parallel all-gathers and reduce-scatters of a block into chunks pipelined with the
 * GEMMs that consume or produce them, with TE's defaults (pytorch/module/base.py initialize_ub,
 * common/comm_gemm_overlap/comm_gemm_overlap.cpp; kernels.md, section 7):
 * <ul>
 * <li>ring exchange for the column-parallel GEMM's input (QKV, fc1 forward; proj, fc2 input
 *     gradient in the backward): tp - 1 peer-to-peer steps, each a copy-engine memcpy flagged by
 *     single-thread kernels ({@code use_ce}, 1 comm SM), chunk k of the GEMM starting once the
 *     k-th step has brought its rows (chunk 0 is local). No SM margin
 *     ({@code set_sm_margin} false): the GEMM chunks keep every SM;</li>
 * <li>pipeline for the row-parallel GEMM's output (proj, fc2 forward): the GEMM in 4 splits, each
 *     split's reduce-scatter running on 16 SMs while the next split computes; the block's
 *     residual waits for the last;</li>
 * <li>bulk in the backward of the column-parallel GEMM: the all-gather of its input (for the
 *     weight gradient) under its input-gradient GEMM, and the reduce-scatter of that input
 *     gradient under its weight-gradient GEMM, both on 16 SMs.</li>
 * </ul>
 * For pipeline and bulk TE sets an SM margin: it launches those GEMMs on {@code _math_sms} = SMs
 * - 16 for their whole length, so the userbuffers kernels have SMs of their own. Here those GEMMs
 * take the time of their output tiles spread over the SMs left ({@link #marginStretch}), and the
 * userbuffers transfers beside them take only their HBM share ({@link #computeShare}). The last
 * reduce-scatter chunk (32 SMs in TE) has no compute beside it: the block waits for it. TE
 * launches the chunks round-robin on 3 compute streams; each is a persistent GEMM that fills the
 * SMs, so here they run back to back on the compute stream. The tasks are real: chunked GEMMs on
 * the compute stream, userbuffers transfers on streams of their own, so how much is hidden
 * emerges from the timeline. Each chunk is costed once, as a GEMM of its
 * own shape on the device's GEMM surface ({@link LayerCostModel#gemmChunk}): chunking loses what
 * smaller GEMMs lose, and no further efficiency factor applies. Blocks whose GEMMs are not the
 * plain column/row pair (latent attention) fall back to the exposed collectives. Only inside one
 * server: userbuffers are single-node.
 *
 * <p>On a TPU torus the same decomposition is XLA's collective matmul (Wang et al., "Overlap
 * Communication with Dependent Computation via Decomposition in Large Deep Learning Models",
 * ASPLOS 2023; the JAX scaling book): the all-gather's ring steps feed the matmul's chunks. Its
 * ring runs both ways ({@link RingExchange#bidirectional}: each step passes half a chunk to each
 * neighbour, so both directions of the ICI links work) at the ICI's sustained fraction.
 */
final class TensorParallelOverlap {
    static final String RING_STREAM = "tp-ring";
    static final String UB_STREAM = "tp-ub";
    /** TE's defaults: the ring exchange drives copy engines from 1 SM; pipeline and bulk use 16. */
    static final int RING_SMS = 1;
    static final int UB_SMS = 16;
    /**
     * Output tile of a large Hopper BF16 GEMM (CUTLASS's sm90 128 x 256 warp-specialized tile),
     * for counting waves under the SM margin. Uncertain: cuBLAS picks its tile per shape.
     */
    static final int TILE_ROWS = 128;
    static final int TILE_COLS = 256;
    static final int PIPELINE_SPLITS = 4;
    /** The op selective recomputation adds to the attention block (LayerCostModel's withReplay). */
    private static final String RECOMPUTE = "recompute";

    private final TensorParallel tensor;
    private final LayerCostModel cost;
    private final Map<LayerCostModel.Block, Optional<Parts>> parts = new IdentityHashMap<>();
    private final Map<ChunkKey, Optional<LayerCostModel.OpTime>> chunkTimes = new java.util.HashMap<>();

    private record ChunkKey(String op, int chunks) {
    }

    /** Where the block's middle (attention core or activation) goes: it may carry its own communication. */
    @FunctionalInterface
    interface Middle {
        /** Emits the middle part {@code mid} of the block in pass {@code p}. */
        void emit(Chain chain, Pass p, LayerCostModel.Block mid);
    }

    /**
     * A block cut around its two tensor-parallel GEMMs.
     *
     * @param pre    ops before the column-parallel GEMM (norm, casts)
     * @param first  the column-parallel GEMM (its input all-gathered)
     * @param mid    ops between the two GEMMs
     * @param second the row-parallel GEMM (its output reduce-scattered)
     * @param post   ops after it (residual, recomputation, gradient accumulation)
     */
    record Parts(LayerCostModel.Block pre, LayerCostModel.Block first, LayerCostModel.Block mid,
                 LayerCostModel.Block second, LayerCostModel.Block post) {
    }

    private final RingExchange ringExchange;
    /** The profile's SM count and communication kernels; null without them (no SM margin then). */
    private final CommKernels kernels;

    /**
     * How the ring steps move data.
     *
     * @param bidirectional half of each step's chunk goes each way round the ring (XLA on a TPU torus)
     * @param efficiency    fraction of link rate the steps sustain (1: copy engines at line rate)
     */
    record RingExchange(boolean bidirectional, double efficiency) {
        /** Transformer Engine's userbuffers: one way, copy engines at line rate. */
        static final RingExchange USERBUFFERS = new RingExchange(false, 1);
    }

    TensorParallelOverlap(TensorParallel tensor, LayerCostModel cost) {
        this(tensor, cost, RingExchange.USERBUFFERS);
    }

    TensorParallelOverlap(TensorParallel tensor, LayerCostModel cost, RingExchange ringExchange) {
        this.tensor = tensor;
        this.cost = cost;
        this.ringExchange = ringExchange;
        this.kernels = cost.costs().device().commKernels();
    }

    /**
     * The block cut around GEMMs {@code first} and {@code second}, or empty when it lacks either
     * or the cost model cannot chunk them.
     */
    Optional<Parts> split(LayerCostModel.Block block, String first, String second) {
        return parts.computeIfAbsent(block, b -> chunk(first, 1).isEmpty() || chunk(second, 1).isEmpty()
                ? Optional.empty() : cut(b, first, second));
    }

    /**
     * The block's pass with its TP communication overlapped.
     *
     * @return the block's last compute task
     */
    int emit(Chain chain, Pass p, Parts b, String name, Middle middle) {
        return p.backward() ? backward(chain, p, b, name, middle) : forward(chain, b, name, middle);
    }

    private int forward(Chain chain, Parts b, String name, Middle middle) {
        Pass f = Pass.F;
        chain.compute(name + " pre", b.pre(), f);
        ringGemm(chain, tensor, ringExchange, name + " " + op(b.first()), chunk(b.first(), tensor.tp()).fNs(),
                f.flops(b.first()));
        middle.emit(chain, f, b.mid());
        int scattered = -1;
        int[] ub = chain.streams(UB_STREAM);
        long chunk = tensor.activationBytes() / PIPELINE_SPLITS;
        String gemm = name + " " + op(b.second());
        LayerCostModel.TensorParallelGemm shape = shape(b.second());
        double splitNs = chunk(b.second(), PIPELINE_SPLITS).fNs() * marginStretch(shape.rows() / PIPELINE_SPLITS, shape.n());
        for (int i = 1; i <= PIPELINE_SPLITS; i++) {
            int split = chain.compute(gemm + " " + i + "/" + PIPELINE_SPLITS,
                    splitNs, f.flops(b.second()) / PIPELINE_SPLITS);
            scattered = chain.graph().communicate(name + " tp-rs " + i + "/" + PIPELINE_SPLITS, userbuffers(chain), ub,
                    tensor.work(chain.devices(), CollectiveOp.REDUCE_SCATTER, chunk), split);
        }
        return chain.computeAfter(name + " post", b.post(), f, scattered);
    }

    private int backward(Chain chain, Pass p, Parts b, String name, Middle middle) {
        boolean weights = p == Pass.B;
        chain.compute(name + " post", b.post(), p);
        String second = name + " " + op(b.second());
        ringGemm(chain, tensor, ringExchange, second + " dgrad", chunk(b.second(), tensor.tp()).biNs(),
                b.second().biFlops());
        if (weights) {
            chain.compute(second + " wgrad", b.second().wNs(), b.second().wFlops());
        }
        middle.emit(chain, p, b.mid());
        String first = name + " " + op(b.first());
        TaskGraph.Builder graph = chain.graph();
        int[] ub = chain.streams(UB_STREAM);
        int before = chain.last();
        // both bulk GEMMs run on the SMs the userbuffers kernels leave
        LayerCostModel.TensorParallelGemm shape = shape(b.first());
        int dgrad = chain.compute(first + " dgrad", b.first().biNs() * marginStretch(shape.rows(), shape.k()),
                b.first().biFlops());
        int gathered = -1;
        if (weights) {
            // the input's all-gather for the weight gradient starts with the input-gradient GEMM
            gathered = graph.communicate(name + " tp-ag bulk", userbuffers(chain), ub,
                    tensor.work(chain.devices(), CollectiveOp.ALL_GATHER, tensor.activationBytes()));
            if (before >= 0) {
                graph.addDependency(gathered, before);
            }
        }
        int scattered = graph.communicate(name + " tp-rs bulk", userbuffers(chain), ub,
                tensor.work(chain.devices(), CollectiveOp.REDUCE_SCATTER, tensor.activationBytes()), dgrad);
        if (weights) {
            chain.computeAfter(first + " wgrad", b.first().wNs() * marginStretch(shape.k(), shape.n()),
                    b.first().wFlops(), gathered);
        }
        return chain.computeAfter(name + " pre", b.pre(), p, scattered);
    }

    /** One of {@code chunks} row chunks of a GEMM, at the surface's rate for the chunk's shape. */
    private LayerCostModel.OpTime chunk(LayerCostModel.Block gemm, int chunks) {
        return chunk(op(gemm), chunks).orElseThrow();
    }

    /** {@link #chunk(LayerCostModel.Block, int)} by op name, costed once per op and chunk count (surface lookups). */
    private Optional<LayerCostModel.OpTime> chunk(String op, int chunks) {
        return chunkTimes.computeIfAbsent(new ChunkKey(op, chunks), k -> cost.gemmChunk(op, chunks));
    }

    private LayerCostModel.TensorParallelGemm shape(LayerCostModel.Block gemm) {
        return cost.tensorParallelGemm(op(gemm)).orElseThrow();
    }

    /**
     * How much longer a GEMM with an output of {@code rows x cols} takes on the SMs TE's SM margin
     * leaves it (all but {@link #UB_SMS}) than on all of them: its {@link #TILE_ROWS} x
     * {@link #TILE_COLS} output tiles spread evenly over the SMs (cuBLAS's persistent Hopper
     * kernels balance the last wave), each SM's share of them at least one tile. A GEMM whose
     * tiles fit on the SMs left loses nothing; a large one takes SMs / (SMs - 16) as long. 1 when
     * the profile has no SM count.
     */
    double marginStretch(double rows, double cols) {
        return kernels == null ? 1 : marginStretch(rows, cols, kernels.sms(), kernels.sms() - UB_SMS);
    }

    static double marginStretch(double rows, double cols, int sms, int mathSms) {
        double tiles = Math.ceil(rows / TILE_ROWS) * Math.ceil(cols / TILE_COLS);
        return Math.max(1, tiles / mathSms) / Math.max(1, tiles / sms);
    }

    /**
     * A column-parallel GEMM fed by a ring exchange: tp chunks of {@code chunkNs} each, chunk k
     * waiting for the k-th step, each step passing one tp-th of the gathered tensor to the next rank.
     */
    static void ringGemm(Chain chain, TensorParallel tensor, RingExchange exchange, String name, double chunkNs,
                         double flops) {
        int tp = tensor.tp();
        int[] ring = chain.streams(RING_STREAM);
        long bytes = tensor.activationBytes() / tp;
        Work.Communication shift = tensor.shared().of(exchange, chain.devices(), bytes,
                () -> ringShift(tensor, exchange, chain.devices(), bytes));
        int before = chain.last();
        int arrived = -1;
        for (int k = 0; k < tp; k++) {
            chain.computeAfter(name + " " + (k + 1) + "/" + tp, chunkNs, flops / tp, arrived);
            if (k < tp - 1) {
                int step = chain.graph().communicate(name + " tp-ring " + (k + 1),
                        chain.tag().carrying(TaskTag.Traffic.TENSOR, TaskTag.Transport.RING_EXCHANGE), ring, shift);
                int after = arrived >= 0 ? arrived : before;
                if (after >= 0) {
                    chain.graph().addDependency(step, after);
                }
                arrived = step;
            }
        }
    }

    /** One ring step: every GPU sends {@code bytes} to the next rank of its TP group, in every CP group. */
    private static Work.Communication ringShift(TensorParallel tensor, RingExchange exchange, int[] devices,
                                               long bytes) {
        int tp = tensor.tp();
        List<Flow> flows = new ArrayList<>();
        boolean both = exchange.bidirectional() && tp > 2;
        long wire = (long) Math.ceil((both ? bytes / 2.0 : bytes) / exchange.efficiency());
        for (int c = 0; c < tensor.cp(); c++) {
            for (int t = 0; t < tp; t++) {
                flows.add(new Flow(devices[c * tp + t], devices[c * tp + (t + 1) % tp], wire));
                if (both) {
                    flows.add(new Flow(devices[c * tp + t], devices[c * tp + Math.floorMod(t - 1, tp)], wire));
                }
            }
        }
        return new Work.Communication(List.of(new Phase(flows))).asSends();
    }

    /**
     * TP-overlap traffic is tensor-parallel traffic (the summary counts it with the rest), moved
     * by userbuffers' SM-driven kernels.
     */
    private static TaskTag userbuffers(Chain chain) {
        return chain.tag().carrying(TaskTag.Traffic.TENSOR, TaskTag.Transport.USERBUFFERS);
    }

    /**
     * What a task moved by {@code transport} takes from the compute beside it: a ring-exchange
     * step its one SM (the GEMM chunks keep every SM, so the flag kernels displace one); a
     * userbuffers kernel only its NVLink traffic's HBM share, its 16 SMs being those the SM margin
     * already took from the GEMM it runs under.
     */
    static double computeShare(TaskTag.Transport transport, CommKernels kernels) {
        return transport == TaskTag.Transport.RING_EXCHANGE ? (double) RING_SMS / kernels.sms()
                : kernels.computeShare(new CommKernels.Kernel(0, kernels.nvlink().hbmShare()));
    }

    private static String op(LayerCostModel.Block gemm) {
        return gemm.ops().get(0).op();
    }

    private static Optional<Parts> cut(LayerCostModel.Block block, String first, String second) {
        List<LayerCostModel.OpTime> ops = block.ops();
        int a = -1;
        int b = -1;
        for (int i = 0; i < ops.size(); i++) {
            if (ops.get(i).op().equals(first)) {
                a = i;
            } else if (ops.get(i).op().equals(second)) {
                b = i;
            }
        }
        if (a < 0 || b < a) {
            return Optional.empty();
        }
        // selective recomputation replays the attention core: it belongs with the core, in the middle
        List<LayerCostModel.OpTime> mid = new ArrayList<>(ops.subList(a + 1, b));
        List<LayerCostModel.OpTime> post = new ArrayList<>();
        for (LayerCostModel.OpTime t : ops.subList(b + 1, ops.size())) {
            (t.op().equals(RECOMPUTE) ? mid : post).add(t);
        }
        return Optional.of(new Parts(part(block, ops.subList(0, a)), part(block, ops.subList(a, a + 1)),
                part(block, mid), part(block, ops.subList(b, b + 1)), part(block, post)));
    }

    /** The ops as a block of their own, each pass's FLOPs shared out by time. */
    private static LayerCostModel.Block part(LayerCostModel.Block whole, List<LayerCostModel.OpTime> ops) {
        double f = 0;
        double bi = 0;
        double w = 0;
        for (LayerCostModel.OpTime t : ops) {
            f += t.fNs();
            bi += t.biNs();
            w += t.wNs();
        }
        return new LayerCostModel.Block(f, bi, w, share(whole.fFlops(), f, whole.fNs()),
                share(whole.biFlops(), bi, whole.biNs()), share(whole.wFlops(), w, whole.wNs()), ops);
    }

    private static double share(double flops, double ns, double total) {
        return total > 0 ? flops * ns / total : 0;
    }
}
