package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;

import org.clustersim.strategies.collective.CollectiveOp;

/**
 * ZeRO-3 (FSDP full sharding, Zhao et al., VLDB 2023): layer weights live sharded over the
 * ranks holding them and are gathered for each pass that needs them. While the pipelines are
 * emitted this records each rank's uses of layer weights in its program order; afterwards
 * {@link #add} gives every use that needs the full weights an all-gather of their bf16 shards,
 * issued one layer ahead, and every use that completes a layer's gradients a reduce-scatter of
 * them (fp32), once per microbatch as FSDP does without no_sync. Gathers and reductions run on
 * two streams of their own, in each rank's program order.
 */
final class ShardedWeights {
    /** Each rank's uses, in its program order, keyed by the first device of its TP x CP group. */
    private final Map<Integer, List<Use>> uses = new HashMap<>();

    /**
     * One layer pass. A pass that needs the layer's full weights ({@code gathers}) has them
     * gathered before {@code user} starts, issued once {@code window} has ended (one layer of
     * prefetch; -1: no constraint); a pass that completes the layer's weight gradients has them
     * reduce-scattered after {@code gradsDone} (-1: it completes none).
     */
    static final class Use {
        final int layer;
        final boolean gathers;
        final int window;
        int user = -1;
        int gradsDone = -1;

        Use(int layer, boolean gathers, int window) {
            this.layer = layer;
            this.gathers = gathers;
            this.window = window;
        }
    }

    /** The uses recorded so far on the rank whose group starts at {@code firstDevice}. */
    List<Use> of(int firstDevice) {
        return uses.computeIfAbsent(firstDevice, k -> new ArrayList<>());
    }

    /** Records a use of layer {@code layer} by the rank whose group starts at {@code firstDevice}. */
    Use use(int firstDevice, int layer, boolean gathers, int window) {
        Use use = new Use(layer, gathers, window);
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
    Map<Integer, List<Integer>> add(TrainingStep step, DataParallelCollectives dpc) {
        Map<Integer, List<Integer>> reductions = new HashMap<>();
        for (int p = 0; p < step.pp(); p++) {
            List<List<Use>> perReplica = new ArrayList<>();
            for (int d = 0; d < step.replicas(); d++) {
                perReplica.add(uses.getOrDefault(step.device(0, p, d), List.of()));
            }
            int n = perReplica.get(0).size();
            for (int t = 0; t < step.tp(); t++) {
                int[] group = step.mesh().gradientGroup(t, p);
                List<Integer> rs = reductions.computeIfAbsent(group[0], k -> new ArrayList<>());
                for (int i = 0; i < n; i++) {
                    Use u0 = perReplica.get(0).get(i);
                    double params = step.parameters().layer(u0.layer);
                    if (u0.gathers) {
                        int[] window = new int[u0.window < 0 ? 0 : step.replicas()];
                        for (int d = 0; d < window.length; d++) {
                            window[d] = perReplica.get(d).get(i).window;
                        }
                        int ag = dpc.gather("fsdp all-gather L" + u0.layer, group, step.shardSize(),
                                Math.round(params * step.weightGatherBytes()), window, "fsdp-ag");
                        for (int d = 0; d < step.replicas(); d++) {
                            dpc.graph().addDependency(perReplica.get(d).get(i).user, ag);
                        }
                    }
                    if (u0.gradsDone >= 0) {
                        int[] done = new int[step.replicas()];
                        for (int d = 0; d < step.replicas(); d++) {
                            done[d] = perReplica.get(d).get(i).gradsDone;
                        }
                        rs.add(dpc.reduce("fsdp reduce-scatter L" + u0.layer, CollectiveOp.REDUCE_SCATTER, group,
                                step.shardSize(), Math.round(params * step.kernels().mainGradBytes()), done, "fsdp-rs"));
                    }
                }
            }
        }
        return reductions;
    }
}
