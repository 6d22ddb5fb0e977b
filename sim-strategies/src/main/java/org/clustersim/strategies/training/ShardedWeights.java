package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;

/**
 * ZeRO-3 (FSDP full sharding, Zhao et al., VLDB 2023): layer weights live sharded over the
 * ranks holding them and are gathered for each pass that needs them, as the framework of
 * {@link ShardingOptions} gathers them ({@link ShardingFramework}: {@link MegatronFsdp},
 * {@link Fsdp2}, {@link DeepSpeedZero3}). While the pipelines are emitted this records each
 * rank's uses of layer weights in its program order, the framework deciding, use by use, what is
 * gathered there and what the compute stream does before the layer (copy-out kernels, hook
 * time); afterwards {@link #add} turns the gathers into all-gathers (after the framework's
 * copy-in kernels) and hands the completed gradients to the framework's reductions, once per
 * microbatch as all three frameworks do during gradient accumulation. Gathers and reductions run
 * on two streams of their own, in each rank's program order.
 */
final class ShardedWeights {
    private final TrainingStep step;
    private final ShardingFramework.Gathers framework;
    /** Each rank's uses, in its program order, keyed by the first device of its TP x CP group. */
    private final Map<Integer, List<Use>> uses = new HashMap<>();

    ShardedWeights(TrainingStep step) {
        this.step = step;
        this.framework = step.sharding().impl().framework().gathers(step);
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
        Use use = p == Pass.W ? new Use(layer, -1, List.of(), List.of(), 0)
                : framework.use(firstDevice, layer, p, previousStart, start);
        of(firstDevice).add(use);
        return use;
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
                ShardCollectives out = new ShardCollectives(step, dpc, group, rs);
                ShardingFramework.Reductions reducer = framework.reductions(out);
                for (int i = 0; i < perReplica.get(0).size(); i++) {
                    // in program order, a use's gathers then its reduction, as the tasks were always added
                    addGathers(dpc, out, perReplica, i, gathered);
                    reduce(reducer, perReplica, i);
                    holdNextPass(dpc, perReplica, i);
                }
            }
        }
        return reductions;
    }

    private void addGathers(DataParallelCollectives dpc, ShardCollectives out, List<List<Use>> perReplica, int i,
                            Map<Gather, Integer> task) {
        Use u0 = perReplica.get(0).get(i);
        for (int k = 0; k < u0.issued.size(); k++) {
            Gather g = u0.issued.get(k);
            int[] window = new int[u0.window < 0 ? 0 : step.replicas()];
            for (int d = 0; d < window.length; d++) {
                window[d] = perReplica.get(d).get(i).window;
            }
            double copyIn = framework.copyInNs(g);
            int[] deps = window;
            if (copyIn > 0) {
                deps = new int[] {out.copy(g.name + " copy-in", "fsdp-ag", copyIn, window)};
            }
            int ag = out.gather(g.name, g.params, deps);
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

    /**
     * Makes the pass after use {@code i} (on each replica, the next use with a first task) wait for
     * the part of use i's cross-slice reduction that XLA keeps inside the layer's scan iteration
     * ({@link DataParallelCollectives#takeIterationBarrier}), if any: the next iteration starts
     * only when the collectives the iteration started have completed.
     */
    private void holdNextPass(DataParallelCollectives dpc, List<List<Use>> perReplica, int i) {
        int barrier = dpc.takeIterationBarrier();
        if (barrier < 0) {
            return;
        }
        for (List<Use> rank : perReplica) {
            for (int j = i + 1; j < rank.size(); j++) {
                if (rank.get(j).user >= 0) {
                    dpc.graph().addDependency(rank.get(j).user, barrier);
                    break;
                }
            }
        }
    }

    /** Hands use {@code i}'s completed gradients (one task per replica) to the framework's reductions. */
    private void reduce(ShardingFramework.Reductions reducer, List<List<Use>> perReplica, int i) {
        Use u0 = perReplica.get(0).get(i);
        if (u0.gradsDone < 0) {
            return;
        }
        int[] done = new int[step.replicas()];
        for (int d = 0; d < step.replicas(); d++) {
            done[d] = perReplica.get(d).get(i).gradsDone;
        }
        reducer.add(u0.layer, done);
    }
}
