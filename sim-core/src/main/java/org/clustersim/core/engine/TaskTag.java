package org.clustersim.core.engine;

import java.util.Objects;

/**
 * What a task is, in typed fields set where it is created: the pass it belongs to, the
 * microbatch, model chunk and layer it works on, and for communication its traffic kind (the
 * role it plays) and transport. Metrics, interference, reports and traces read these instead of
 * parsing display names. The display category written into traces and summaries is derived
 * from the tag ({@link #category}), or given as a label for tasks outside a training step
 * (collective studies, tests).
 *
 * <p>Immutable; a {@link TaskGraph} keeps each distinct tag once and an index per task.
 */
public final class TaskTag {
    /** No pass, traffic, microbatch, chunk or layer: an untyped task. */
    public static final TaskTag NONE = new TaskTag(Pass.NONE, false, Traffic.NONE, Transport.NONE, -1, -1, -1, null);

    /** The pass a task belongs to. */
    public enum Pass {
        NONE(null),
        FORWARD("forward"),
        /** Whole backward: input and weight gradients together. */
        BACKWARD("backward"),
        /** Backward for the input gradient only (zero-bubble schedules' B). */
        BACKWARD_INPUT("backward-input"),
        /** Weight-gradient pass (W). */
        BACKWARD_WEIGHT("backward-weight"),
        /** A forward and a backward run as one task (DualPipe's overlapped pair). */
        OVERLAPPED("overlapped"),
        /** The optimizer step after the gradients are reduced. */
        OPTIMIZER("optimizer");

        private final String category;

        Pass(String category) {
            this.category = category;
        }

        /** Display category of a compute task of this pass. */
        public String category() {
            return category;
        }
    }

    /** The role a communication plays (or, for {@link #SHARD_COPY}, the copies around one). */
    public enum Traffic {
        NONE(null, null),
        /** Tensor-parallel collectives of a layer. */
        TENSOR("tp-comm", "tp"),
        /** Context-parallel K/V exchange. */
        CONTEXT("cp-comm", "cp"),
        /** The MoE token all-to-alls (dispatch and combine). */
        EXPERT_ALL_TO_ALL("ep-comm", "ep"),
        /** Tensor-parallel collectives inside the experts (expert TP). */
        EXPERT_TENSOR("etp-comm", "etp"),
        /** Activations and gradients sent between pipeline stages. */
        PIPELINE_SEND("pp-p2p", "pp"),
        /** Gradient reductions over the data-parallel (or expert-data-parallel) group. */
        GRADIENT_REDUCE("dp-comm", "dp"),
        /**
         * Gradient reductions across TPU slices over the data-center network (the hosts' NICs),
         * apart from dp-comm so that the trace and the exposed communication show what DCN costs.
         */
        DCN_GRADIENT_REDUCE("dcn-comm", "dp"),
        /** Gathers of updated or sharded weights over the data-parallel group. */
        PARAM_GATHER("dp-comm", "dp"),
        /** Copy kernels of ZeRO-3 gathers and reductions (compute work on their streams or before a layer). */
        SHARD_COPY("fsdp-copy", "dp"),
        /**
         * Activations copied to host memory in the forward and back before the backward (CPU
         * activation offload), by the copy engines over the host link: compute work of its own
         * duration on an {@code offload} stream, taking no SMs.
         */
        HOST_OFFLOAD("offload", "host");

        private final String category;
        private final String group;

        Traffic(String category, String group) {
            this.category = category;
            this.group = group;
        }

        /** Display category of tasks of this traffic (several roles may share one, as dp-comm). */
        public String category() {
            return category;
        }

        /** The kind of parallel group it runs over: tp, cp, ep, etp, pp or dp. */
        public String group() {
            return group;
        }
    }

    /** What moves a communication's bytes, as far as the step builder knows it. */
    public enum Transport {
        NONE,
        /** The collective library's kernels (NCCL, or the accelerator runtime's collectives). */
        LIBRARY,
        /** Tensor-parallel overlap's ring exchange, driven by copy engines. */
        RING_EXCHANGE,
        /** Tensor-parallel overlap's userbuffers collectives, run by a few SMs each. */
        USERBUFFERS,
        /** A DMA copy engine (host-device copies): no SMs taken, not slowed by kernels beside it. */
        COPY_ENGINE
    }

    private final Pass pass;
    private final boolean recompute;
    private final Traffic traffic;
    private final Transport transport;
    private final int microbatch;
    private final int chunk;
    private final int layer;
    private final String category;
    /** Kept: the builder looks every new task's tag up in its table. */
    private final int hash;

    private TaskTag(Pass pass, boolean recompute, Traffic traffic, Transport transport, int microbatch, int chunk,
                    int layer, String label) {
        this.pass = Objects.requireNonNull(pass);
        this.recompute = recompute;
        this.traffic = Objects.requireNonNull(traffic);
        this.transport = Objects.requireNonNull(transport);
        this.microbatch = microbatch;
        this.chunk = chunk;
        this.layer = layer;
        this.category = label != null ? label : traffic != Traffic.NONE ? traffic.category() : pass.category();
        int h = pass.ordinal();
        h = 31 * h + (recompute ? 1 : 0);
        h = 31 * h + traffic.ordinal();
        h = 31 * h + transport.ordinal();
        h = 31 * h + microbatch;
        h = 31 * h + chunk;
        h = 31 * h + layer;
        this.hash = 31 * h + (label != null ? label.hashCode() : 0);
    }

    /** A task of {@code pass} on microbatch {@code microbatch}, model chunk {@code chunk} (-1: none). */
    public static TaskTag of(Pass pass, int microbatch, int chunk) {
        return new TaskTag(pass, false, Traffic.NONE, Transport.NONE, microbatch, chunk, -1, null);
    }

    /** A task outside any pass carrying {@code traffic} (gradient reductions, weight gathers). */
    public static TaskTag of(Traffic traffic) {
        return new TaskTag(Pass.NONE, false, traffic, Transport.LIBRARY, -1, -1, -1, null);
    }

    /** An untyped task shown under category {@code category}. */
    public static TaskTag labelled(String category) {
        return new TaskTag(Pass.NONE, false, Traffic.NONE, Transport.NONE, -1, -1, -1,
                Objects.requireNonNull(category));
    }

    /** This tag on layer {@code layer} (-1: none). */
    public TaskTag atLayer(int layer) {
        return layer == this.layer ? this : new TaskTag(pass, recompute, traffic, transport, microbatch, chunk, layer,
                null);
    }

    /** This tag for work replayed in the backward (activation recomputation). */
    public TaskTag recomputed() {
        return recompute ? this : new TaskTag(pass, true, traffic, transport, microbatch, chunk, layer, null);
    }

    /** This tag for communication of {@code traffic} by the collective library. */
    public TaskTag carrying(Traffic traffic) {
        return carrying(traffic, Transport.LIBRARY);
    }

    /** This tag for communication of {@code traffic} moved by {@code transport}. */
    public TaskTag carrying(Traffic traffic, Transport transport) {
        return new TaskTag(pass, recompute, traffic, transport, microbatch, chunk, layer, null);
    }

    /** This tag for a host-device copy of activations by a copy engine ({@link Traffic#HOST_OFFLOAD}). */
    public TaskTag hostCopy() {
        return new TaskTag(pass, recompute, Traffic.HOST_OFFLOAD, Transport.COPY_ENGINE, microbatch, chunk, layer, null);
    }

    /** This tag for a copy kernel of ZeRO-3's sharded weights (compute work: no transport). */
    public TaskTag shardCopy() {
        return new TaskTag(pass, recompute, Traffic.SHARD_COPY, Transport.NONE, microbatch, chunk, layer, null);
    }

    public Pass pass() {
        return pass;
    }

    /** Whether the task replays forward work inside the backward. */
    public boolean recompute() {
        return recompute;
    }

    public Traffic traffic() {
        return traffic;
    }

    public Transport transport() {
        return transport;
    }

    /** Microbatch, or -1 for work outside the pipeline's microbatches. */
    public int microbatch() {
        return microbatch;
    }

    /** The rank's model chunk (0 without interleaving), or -1 outside a pipeline pass. */
    public int chunk() {
        return chunk;
    }

    /** Transformer layer, or -1 for work not of one layer. */
    public int layer() {
        return layer;
    }

    /**
     * Display category for traces and summaries: the label of a labelled tag, else the traffic's
     * category for communication (and shard copies), else the pass's; null for {@link #NONE}.
     */
    public String category() {
        return category;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TaskTag t && t.hash == hash && t.pass == pass && t.recompute == recompute && t.traffic == traffic
                && t.transport == transport && t.microbatch == microbatch && t.chunk == chunk && t.layer == layer
                && Objects.equals(t.category, category);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return pass + (recompute ? " recompute" : "") + (traffic != Traffic.NONE ? " " + traffic : "")
                + (transport != Transport.NONE ? " via " + transport : "") + " mb" + microbatch + " c" + chunk
                + " L" + layer + (category != null ? " (" + category + ")" : "");
    }
}
