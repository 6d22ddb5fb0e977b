package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.cost.KernelCosts;

/**
 * ZeRO-3 (FSDP full sharding, Zhao et al., VLDB 2023): layer weights live sharded over the
 * ranks holding them and are gathered for each pass that needs them, as the framework of
 * {@link ShardingOptions} gathers them ({@link Zero3Impl}). While the pipelines are emitted this
 * records each rank's uses of layer weights in its program order and decides, use by use, what
 * is gathered there and what the compute stream does before the layer (copy-out kernels, hook
 * time); afterwards {@link #add} turns the gathers into all-gathers (after their copy-in kernels)
 * and the completed gradients into reduce-scatters (with their copies), once per microbatch as
 * all three frameworks do during gradient accumulation. Gathers and reductions run on two
 * streams of their own, in each rank's program order.
 *
 * <ul>
 *   <li>Megatron-FSDP: one gather per layer per pass, issued when the layer before starts
 *       (double buffering), no copies; one reduce-scatter per layer.</li>
 *   <li>FSDP2: one gather per layer, issued one layer ahead, a copy-in before it (one cast per
 *       parameter from the fp32 shards to bf16, then a foreach copy into the all-gather input) and
 *       a copy-out after it on the compute stream ({@code split_with_sizes_copy}); without
 *       {@code reshard_after_forward} a layer stays gathered from its forward until its backward
 *       ends, so the backward gathers nothing. Reduce-scatters with a copy-in
 *       ({@code chunk_cat}, casting to {@code reduce_dtype}) and a per-parameter accumulation
 *       into the sharded gradient after them.</li>
 *   <li>DeepSpeed: the gathers {@link DeepSpeedCoordinator} issues from the layer's submodule
 *       hooks, each after a copy-in ({@code torch.cat} of the shards) and, once waited for, a
 *       copy-out per parameter on the compute stream, plus the hooks' host time; gradients copied
 *       into the reduce bucket and reduce-scattered whenever {@code reduce_bucket_size} elements
 *       are full and at the end of the backward.</li>
 * </ul>
 */
final class ShardedWeights {
    /** Copy kernels of the gathers and reductions, outside any pass. */
    private static final TaskTag COPY = TaskTag.NONE.shardCopy();
    private final TrainingStep step;
    private final ShardingOptions options;
    private final KernelCosts kernels;
    private final GpuParameters params;
    /** Each rank's uses, in its program order, keyed by the first device of its TP x CP group. */
    private final Map<Integer, List<Use>> uses = new HashMap<>();
    /** FSDP2: which layers each rank holds unsharded. */
    private final Map<Integer, boolean[]> unsharded = new HashMap<>();
    /** DeepSpeed: each rank's coordinator and its gathers by sequence number. */
    private final Map<Integer, DeepSpeedCoordinator> coordinators = new HashMap<>();
    private final Map<Integer, List<Gather>> gathers = new HashMap<>();

    ShardedWeights(TrainingStep step) {
        this.step = step;
        this.options = step.sharding();
        this.kernels = step.kernels();
        this.params = step.parameters();
    }

    /** One all-gather of {@code params} elements per GPU over {@code tensors} parameters. */
    static final class Gather {
        final String name;
        final double params;
        final int tensors;

        Gather(String name, double params, int tensors) {
            this.name = name;
            this.params = params;
            this.tensors = tensors;
        }
    }

    /**
     * One layer pass. It issues the gathers {@code issued} once {@code window} has ended (-1: no
     * constraint), and {@code user}, its first task, waits for the gathers in {@code needs};
     * {@code beforeNs} of compute-stream work (copy-out, hooks) run first. A pass that completes
     * the layer's weight gradients has them reduced after {@code gradsDone} (-1: it completes none).
     */
    static final class Use {
        final int layer;
        final int window;
        final List<Gather> issued;
        final List<Gather> needs;
        final double beforeNs;
        int user = -1;
        int gradsDone = -1;

        Use(int layer, int window, List<Gather> issued, List<Gather> needs, double beforeNs) {
            this.layer = layer;
            this.window = window;
            this.issued = issued;
            this.needs = needs;
            this.beforeNs = beforeNs;
        }

        /** Whether the pass waits for gathers (its first task must be known). */
        boolean waits() {
            return !needs.isEmpty();
        }
    }

    /** The uses recorded so far on the rank whose group starts at {@code firstDevice}. */
    List<Use> of(int firstDevice) {
        return uses.computeIfAbsent(firstDevice, k -> new ArrayList<>());
    }

    /**
     * Records pass {@code p} of layer {@code layer} by the rank whose group starts at
     * {@code firstDevice}; {@code previousStart} ends when the layer before this one starts,
     * {@code start} when this one may start (the rank's last task before it).
     */
    Use use(int firstDevice, int layer, Pass p, int previousStart, int start) {
        Use use = p == Pass.W ? new Use(layer, -1, List.of(), List.of(), 0) : switch (options.impl()) {
            case MEGATRON_FSDP -> megatron(layer, previousStart);
            case FSDP2 -> fsdp2(firstDevice, layer, p, previousStart);
            case DEEPSPEED -> deepSpeed(firstDevice, layer, p, start);
        };
        of(firstDevice).add(use);
        return use;
    }

    private Use megatron(int layer, int window) {
        Gather g = new Gather("fsdp all-gather L" + layer, params.layer(layer), 1);
        return new Use(layer, window, List.of(g), List.of(g), 0);
    }

    private Use fsdp2(int firstDevice, int layer, Pass p, int window) {
        boolean[] held = unsharded.computeIfAbsent(firstDevice, k -> new boolean[step.model().layers()]);
        Use use;
        if (held[layer]) {
            use = new Use(layer, -1, List.of(), List.of(), 0);
        } else {
            Gather g = new Gather("fsdp all-gather L" + layer, params.layer(layer),
                    LayerTensors.of(params, layer).size());
            // split_with_sizes_copy: the gathered bf16 buffer into the unsharded parameters
            use = new Use(layer, window, List.of(g), List.of(g), kernels.memory(2.0 * 2 * g.params, 1));
            held[layer] = true;
        }
        if (p.backward() || options.reshardAfterForward()) {
            held[layer] = false;
        }
        return use;
    }

    private Use deepSpeed(int firstDevice, int layer, Pass p, int window) {
        DeepSpeedCoordinator c = coordinators.computeIfAbsent(firstDevice, k -> coordinator());
        List<Gather> bySeq = gathers.computeIfAbsent(firstDevice, k -> new ArrayList<>());
        DeepSpeedCoordinator.Fetch f = c.pass(layer - step.split().firstLayer(0), p == Pass.F);
        List<Gather> issued = new ArrayList<>();
        for (DeepSpeedCoordinator.Gather g : f.issued()) {
            Gather x = new Gather("zero3 all-gather L" + layer + " #" + g.seq(), g.numel(), g.tensors());
            bySeq.add(x);
            issued.add(x);
        }
        List<Gather> needs = new ArrayList<>();
        for (int seq : f.awaited()) {
            Gather g = bySeq.get(seq);
            if (!needs.contains(g)) {
                needs.add(g);
            }
        }
        double before = f.submodules() * step.device().sharding().deepspeedSubmoduleNs()
                + (f.copyOutTensors() > 0 ? kernels.memory(2.0 * 2 * f.copyOutNumel(), f.copyOutTensors()) : 0);
        return new Use(layer, window, issued, needs, before);
    }

    /** DeepSpeed's coordinator over the stage's layers (DeepSpeed runs ZeRO 3 on one stage). */
    private DeepSpeedCoordinator coordinator() {
        return new DeepSpeedCoordinator(stageTensors(step, 0), options.deepSpeed());
    }

    static List<List<LayerTensors.Tensor>> stageTensors(TrainingStep step, int stage) {
        List<List<LayerTensors.Tensor>> layers = new ArrayList<>();
        GpuParameters params = step.parameters();
        int first = step.split().firstLayer(stage);
        for (int l = first; l < first + step.split().layers(stage); l++) {
            layers.add(LayerTensors.of(params, l));
        }
        return layers;
    }

    /**
     * Puts the rank's uses from index {@code from} on in its new program order after its tasks
     * were resequenced: {@code position} gives a task's new place.
     */
    void reorder(int firstDevice, int from, IntUnaryOperator position) {
        List<Use> rank = of(firstDevice);
        List<Use> mine = new ArrayList<>(rank.subList(from, rank.size()));
        mine.sort(Comparator.comparingInt(u -> position.applyAsInt(u.user >= 0 ? u.user : u.gradsDone)));
        for (int i = 0; i < mine.size(); i++) {
            rank.set(from + i, mine.get(i));
        }
    }

    /**
     * Adds the gathers and reduce-scatters of every recorded use.
     *
     * @return per device, the reduce-scatters the optimizer step waits for
     */
    Map<Integer, List<Integer>> add(DataParallelCollectives dpc) {
        Map<Integer, List<Integer>> reductions = new HashMap<>();
        for (int p = 0; p < step.pp(); p++) {
            List<List<Use>> perReplica = new ArrayList<>();
            for (int d = 0; d < step.replicas(); d++) {
                perReplica.add(uses.getOrDefault(step.device(0, p, d), List.of()));
            }
            for (int t = 0; t < step.tp(); t++) {
                int[] group = step.mesh().gradientGroup(t, p);
                List<Integer> rs = reductions.computeIfAbsent(group[0], k -> new ArrayList<>());
                Map<Gather, Integer> gathered = new IdentityHashMap<>();
                Reducer reducer = new Reducer(dpc, group, perReplica, rs);
                for (int i = 0; i < perReplica.get(0).size(); i++) {
                    // in program order, a use's gathers then its reduction, as the tasks were always added
                    addGathers(dpc, group, perReplica, i, gathered);
                    reducer.add(i);
                }
            }
        }
        return reductions;
    }

    private void addGathers(DataParallelCollectives dpc, int[] group, List<List<Use>> perReplica, int i,
                            Map<Gather, Integer> task) {
        Use u0 = perReplica.get(0).get(i);
        for (int k = 0; k < u0.issued.size(); k++) {
            Gather g = u0.issued.get(k);
            int[] window = new int[u0.window < 0 ? 0 : step.replicas()];
            for (int d = 0; d < window.length; d++) {
                window[d] = perReplica.get(d).get(i).window;
            }
            double copyIn = copyInNs(g);
            int[] deps = window;
            if (copyIn > 0) {
                int c = copyTask(dpc, g.name + " copy-in", group, "fsdp-ag", copyIn);
                for (int w : window) {
                    dpc.graph().addDependency(c, w);
                }
                deps = new int[] {c};
            }
            int ag = dpc.gather(g.name, group, step.shardSize(), Math.round(g.params * step.weightGatherBytes()),
                    deps, "fsdp-ag");
            for (int d = 0; d < step.replicas(); d++) {
                task.put(perReplica.get(d).get(i).issued.get(k), ag);
            }
        }
        for (int d = 0; d < step.replicas(); d++) {
            Use u = perReplica.get(d).get(i);
            for (Gather g : u.needs) {
                dpc.graph().addDependency(u.user, task.get(g));
            }
        }
    }

    /** Stream time of a gather's copy-in kernels on the gather stream. */
    private double copyInNs(Gather g) {
        double shard = g.params / step.shardSize();
        return switch (options.impl()) {
            case MEGATRON_FSDP -> 0;
            // one cast per parameter (fp32 shard in, bf16 out), then the foreach copy (bf16 in and out)
            case FSDP2 -> kernels.memory(6.0 * shard, g.tensors) + kernels.memory(4.0 * shard, 1);
            // torch.cat of the bf16 shards into the flat all-gather input
            case DEEPSPEED -> kernels.memory(4.0 * shard, 1);
        };
    }

    /** The reductions of one gradient group's uses, with DeepSpeed's bucket filling across them. */
    private final class Reducer {
        private final DataParallelCollectives dpc;
        private final int[] group;
        private final List<List<Use>> perReplica;
        private final List<Integer> rs;
        private final int reduceBytes = step.shardedGradReduceBytes();
        private double bucket;
        private int bucketTensors;
        private List<Integer> waiting = new ArrayList<>();

        Reducer(DataParallelCollectives dpc, int[] group, List<List<Use>> perReplica, List<Integer> rs) {
            this.dpc = dpc;
            this.group = group;
            this.perReplica = perReplica;
            this.rs = rs;
        }

        void add(int i) {
            Use u0 = perReplica.get(0).get(i);
            if (u0.gradsDone < 0) {
                return;
            }
            int[] done = new int[step.replicas()];
            for (int d = 0; d < step.replicas(); d++) {
                done[d] = perReplica.get(d).get(i).gradsDone;
            }
            double layer = params.layer(u0.layer);
            int tensors = LayerTensors.of(params, u0.layer).size();
            switch (options.impl()) {
                case MEGATRON_FSDP -> rs.add(dpc.reduce("fsdp reduce-scatter L" + u0.layer,
                        CollectiveOp.REDUCE_SCATTER, group, step.shardSize(), Math.round(layer * reduceBytes), done,
                        "fsdp-rs"));
                case FSDP2 -> {
                    // chunk_cat: the bf16 gradients into the reduce_dtype reduce-scatter input
                    int copy = copyTask(dpc, "fsdp reduce-scatter L" + u0.layer + " copy-in", group, "fsdp-rs",
                            kernels.memory((2.0 + reduceBytes) * layer, 1));
                    for (int x : done) {
                        dpc.graph().addDependency(copy, x);
                    }
                    int r = dpc.reduce("fsdp reduce-scatter L" + u0.layer, CollectiveOp.REDUCE_SCATTER, group,
                            step.shardSize(), Math.round(layer * reduceBytes), new int[] {copy}, "fsdp-rs");
                    rs.add(accumulate(dpc, "fsdp reduce-scatter L" + u0.layer, group, layer, tensors, reduceBytes,
                            r));
                }
                case DEEPSPEED -> {
                    if (bucket > 0 && bucket + layer > options.deepSpeed().reduceBucket()) {
                        rs.add(flush(dpc, group, bucket, bucketTensors, reduceBytes, waiting, u0.layer));
                        bucket = 0;
                        bucketTensors = 0;
                        waiting = new ArrayList<>();
                    }
                    // each gradient copied into the contiguous reduce bucket
                    int copy = copyTask(dpc, "zero3 grad copy L" + u0.layer, group, "fsdp-rs",
                            kernels.memory(4.0 * layer, tensors));
                    for (int x : done) {
                        dpc.graph().addDependency(copy, x);
                    }
                    waiting.add(copy);
                    bucket += layer;
                    bucketTensors += tensors;
                    if (u0.layer == step.split().firstLayer(0)) {
                        // the end of the backward: independent_gradient_partition_epilogue
                        rs.add(flush(dpc, group, bucket, bucketTensors, reduceBytes, waiting, u0.layer));
                        bucket = 0;
                        bucketTensors = 0;
                        waiting = new ArrayList<>();
                    }
                }
            }
        }
    }

    /** DeepSpeed's reduce-scatter of a full bucket, then its accumulation into the fp32 partition. */
    private int flush(DataParallelCollectives dpc, int[] group, double bucket, int tensors, int reduceBytes,
                      List<Integer> waiting, int layer) {
        int[] deps = waiting.stream().mapToInt(Integer::intValue).toArray();
        String name = "zero3 reduce-scatter to L" + layer;
        int r = dpc.reduce(name, CollectiveOp.REDUCE_SCATTER, group, step.shardSize(),
                Math.round(bucket * reduceBytes), deps, "fsdp-rs");
        return accumulate(dpc, name, group, bucket, tensors, reduceBytes, r);
    }

    /**
     * The reduced shard added to the fp32 sharded gradient, one kernel per parameter: the shard
     * read in the reduce type, the gradient read and written in fp32.
     */
    private int accumulate(DataParallelCollectives dpc, String name, int[] group, double numel, int tensors,
                           int reduceBytes, int after) {
        double shard = numel / step.shardSize();
        int a = copyTask(dpc, name + " accumulate", group, "fsdp-rs", kernels.memory((reduceBytes + 8.0) * shard,
                tensors));
        dpc.graph().addDependency(a, after);
        return a;
    }

    /** A copy kernel's time on stream {@code stream} of every GPU of the group. */
    private static int copyTask(DataParallelCollectives dpc, String name, int[] group, String stream, double ns) {
        int[] streams = new int[group.length];
        for (int i = 0; i < group.length; i++) {
            streams[i] = dpc.graph().stream(group[i], stream, StreamKind.COMMUNICATION);
        }
        return dpc.graph().computeOn(name, COPY, streams, Math.round(ns), 0);
    }
}
