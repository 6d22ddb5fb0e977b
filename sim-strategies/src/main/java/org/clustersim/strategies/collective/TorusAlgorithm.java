package org.clustersim.strategies.collective;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import org.clustersim.core.engine.Phase;
import org.clustersim.topology.Topology;
import org.clustersim.topology.TorusSpec;

/**
 * All-reduce on a TPU torus by one ring per axis: reduce-scatter along axis 0, then along axis
 * 1 on the 1/L0 shard, and so on; then all-gather back in reverse order. On an axis that wraps
 * the ring runs both ways at once, each direction carrying half, so every ICI link is busy in
 * both directions; on an axis that does not wrap the ring closes back across the line and its
 * return traffic shares the links. For a fully wrapped slice the bandwidth-bound time is about
 * S/B whatever the axis lengths (JAX scaling book). The group must be one whole slice.
 */
public final class TorusAlgorithm implements CollectiveAlgorithm {
    @Override
    public String name() {
        return "torus";
    }

    @Override
    public Optional<String> unsupported(CollectiveOp op, CommGroup group, Topology topology) {
        if (op != CollectiveOp.ALL_REDUCE && op != CollectiveOp.REDUCE_SCATTER && op != CollectiveOp.ALL_GATHER) {
            return Optional.of("per-axis rings run all-reduce, reduce-scatter and all-gather");
        }
        if (topology.spec().isEmpty() || !(topology.spec().get() instanceof TorusSpec t)) {
            return Optional.of(topology.name() + " is not a torus");
        }
        int per = t.chipsPerSlice();
        int[] sorted = group.devices().clone();
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] = t.physical(sorted[i]);
        }
        Arrays.sort(sorted);
        int first = sorted[0] - sorted[0] % per;
        for (int i = 0; i < sorted.length; i++) {
            if (sorted.length != per || sorted[i] != first + i) {
                return Optional.of("the group must be one whole slice of " + per + " chips");
            }
        }
        return Optional.empty();
    }

    @Override
    public List<Protocol> protocols() {
        return List.of(Protocol.SIMPLE);
    }

    @Override
    public List<Phase> plan(CollectiveOp op, CommGroup g, long bytes, Protocol protocol, Topology topology) {
        requireSupported(op, g, topology);
        TorusSpec t = (TorusSpec) topology.spec().orElseThrow();
        int per = t.chipsPerSlice();
        int base = t.physical(g.devices()[0]) - t.physical(g.devices()[0]) % per;
        int axes = t.dims().length;
        PhasePlan plan = new PhasePlan(topology, Protocol.SIMPLE);
        double chunk = op == CollectiveOp.ALL_GATHER ? bytes / (double) per : bytes;
        if (op != CollectiveOp.ALL_GATHER) {
            for (int a = 0; a < axes; a++) {
                if (t.dims()[a] > 1) {
                    axisRing(plan, t, base, a, chunk);
                    chunk /= t.dims()[a];
                }
            }
        }
        if (op != CollectiveOp.REDUCE_SCATTER) {
            for (int a = axes - 1; a >= 0; a--) {
                if (t.dims()[a] > 1) {
                    chunk *= t.dims()[a];
                    axisRing(plan, t, base, a, chunk);
                }
            }
        }
        if (plan.isEmpty()) {
            plan.endPhase(0);
        }
        return plan.phases();
    }

    /** One reduce-scatter (or all-gather) pass along axis {@code a} on {@code chunk} bytes per chip. */
    private static void axisRing(PhasePlan plan, TorusSpec t, int base, int a, double chunk) {
        int n = t.dims()[a];
        double total = (n - 1.0) / n * chunk;
        boolean both = t.wraps(a);
        for (int c = 0; c < t.chipsPerSlice(); c++) {
            int[] at = t.coords(c);
            int[] next = at.clone();
            next[a] = (at[a] + 1) % n;
            int self = t.deviceAt(base + c);
            plan.flow(self, t.deviceAt(base + indexOf(t, next)), both ? total / 2 : total);
            if (both) {
                int[] prev = at.clone();
                prev[a] = Math.floorMod(at[a] - 1, n);
                plan.flow(self, t.deviceAt(base + indexOf(t, prev)), total / 2);
            }
        }
        plan.endPhase(n - 1);
    }

    private static int indexOf(TorusSpec t, int[] coords) {
        int idx = 0;
        for (int a = coords.length - 1; a >= 0; a--) {
            idx = idx * t.dims()[a] + coords[a];
        }
        return idx;
    }
}
