package org.clustersim.strategies.collective;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import org.clustersim.core.engine.Phase;
import org.clustersim.topology.Topology;
import org.clustersim.topology.TorusSpec;

/**
 * A collective over any sub-grid of TPU chips, as XLA runs one over the devices of a logical
 * mesh axis: the group must be a Cartesian product of coordinate sets, one per physical torus
 * axis, times a set of slices. A reduce-scatter over k physical axes is k sequential ring
 * phases, one per axis, each on the shard the previous left; the buffer is cut into k parts
 * that take the axes in rotated orders, so each phase keeps every spanned axis busy and the
 * collective gets k axes' bandwidth (the JAX scaling book: a collective over several axes has
 * n_axes times the bandwidth). Then one phase across slices over DCN on the remaining shard
 * (hierarchical: reduce inside the slice over ICI, across slices over DCN). An all-gather runs
 * the same phases in reverse; an all-reduce is both. A ring whose
 * coordinates cover a whole wrapped axis runs both ways, each direction carrying half, so both
 * directions of every link work (the JAX scaling book's bidirectional ring); otherwise it runs
 * one way and its closing hop travels back along the line. {@link TorusAlgorithm} takes a whole
 * slice only and walks its axes one after another on the whole buffer (one axis busy at a time);
 * this one adds sub-grids (one logical axis of a mesh), slices, and the rotated parts.
 */
public final class TorusAxesAlgorithm implements CollectiveAlgorithm {
    @Override
    public String name() {
        return "torus-axes";
    }

    @Override
    public Optional<String> unsupported(CollectiveOp op, CommGroup group, Topology topology) {
        if (op != CollectiveOp.ALL_REDUCE && op != CollectiveOp.REDUCE_SCATTER && op != CollectiveOp.ALL_GATHER) {
            return Optional.of("per-axis rings run all-reduce, reduce-scatter and all-gather");
        }
        if (topology.spec().isEmpty() || !(topology.spec().get() instanceof TorusSpec t)) {
            return Optional.of(topology.name() + " is not a torus");
        }
        return grid(t, group) == null ? Optional.of("the group is not a sub-grid of the torus (a product of one "
                + "coordinate set per axis and a set of slices)") : Optional.empty();
    }

    @Override
    public List<Protocol> protocols() {
        return List.of(Protocol.SIMPLE);
    }

    /**
     * The group's coordinate sets: per physical axis the sorted coordinates it takes, then the
     * sorted slices; null when the group is not their full product.
     */
    static List<int[]> grid(TorusSpec t, CommGroup group) {
        int axes = t.dims().length;
        int per = t.chipsPerSlice();
        List<TreeSet<Integer>> values = new ArrayList<>();
        for (int a = 0; a <= axes; a++) {
            values.add(new TreeSet<>());
        }
        Set<Integer> members = new HashSet<>();
        for (int d : group.devices()) {
            int p = t.physical(d);
            int[] at = t.coords(p % per);
            for (int a = 0; a < axes; a++) {
                values.get(a).add(at[a]);
            }
            values.get(axes).add(p / per);
            members.add(p);
        }
        long product = 1;
        List<int[]> out = new ArrayList<>();
        for (TreeSet<Integer> v : values) {
            product *= v.size();
            out.add(v.stream().mapToInt(Integer::intValue).toArray());
        }
        return product == group.size() ? out : null;
    }

    @Override
    public List<Phase> plan(CollectiveOp op, CommGroup g, long bytes, Protocol protocol, Topology topology) {
        requireSupported(op, g, topology);
        TorusSpec t = (TorusSpec) topology.spec().orElseThrow();
        List<int[]> grid = grid(t, g);
        int axes = t.dims().length;
        List<Integer> spanned = new ArrayList<>();
        for (int a = 0; a < axes; a++) {
            if (grid.get(a).length > 1) {
                spanned.add(a);
            }
        }
        int k = spanned.size();
        int iciSize = g.size() / grid.get(axes).length;
        boolean dcn = grid.get(axes).length > 1;
        PhasePlan plan = new PhasePlan(topology, Protocol.SIMPLE);
        // part j of k walks the spanned axes starting at the j-th, so every step keeps every axis busy
        double[] chunk = new double[k];
        java.util.Arrays.fill(chunk, (op == CollectiveOp.ALL_GATHER ? bytes / (double) iciSize : bytes)
                / Math.max(k, 1));
        if (op != CollectiveOp.ALL_GATHER) {
            for (int step = 0; step < k; step++) {
                int longest = 0;
                for (int j = 0; j < k; j++) {
                    int a = spanned.get((j + step) % k);
                    ring(plan, t, g, grid, a, chunk[j]);
                    chunk[j] /= grid.get(a).length;
                    longest = Math.max(longest, grid.get(a).length);
                }
                plan.endPhase(longest - 1);
            }
            if (dcn) {
                ring(plan, t, g, grid, axes, bytes / (double) iciSize);
                plan.endPhase(grid.get(axes).length - 1);
            }
        }
        if (op != CollectiveOp.REDUCE_SCATTER) {
            if (dcn) {
                ring(plan, t, g, grid, axes, bytes / (double) iciSize);
                plan.endPhase(grid.get(axes).length - 1);
            }
            for (int step = k - 1; step >= 0; step--) {
                int longest = 0;
                for (int j = 0; j < k; j++) {
                    int a = spanned.get((j + step) % k);
                    chunk[j] *= grid.get(a).length;
                    ring(plan, t, g, grid, a, chunk[j]);
                    longest = Math.max(longest, grid.get(a).length);
                }
                plan.endPhase(longest - 1);
            }
        }
        if (plan.isEmpty()) {
            plan.endPhase(0);
        }
        return plan.phases();
    }

    /**
     * Adds one reduce-scatter (or all-gather) ring pass along axis {@code a} ({@code a} = the
     * number of torus axes: across slices) on {@code chunk} bytes per chip to the current phase.
     */
    private static void ring(PhasePlan plan, TorusSpec t, CommGroup g, List<int[]> grid, int a, double chunk) {
        int[] values = grid.get(a);
        int n = values.length;
        int axes = t.dims().length;
        int per = t.chipsPerSlice();
        Map<Integer, Integer> position = new HashMap<>();
        for (int i = 0; i < n; i++) {
            position.put(values[i], i);
        }
        double total = (n - 1.0) / n * chunk;
        boolean both = a < axes && n == t.dims()[a] && t.wraps(a);
        for (int d : g.devices()) {
            int p = t.physical(d);
            int[] at = t.coords(p % per);
            int slice = p / per;
            int here = a < axes ? at[a] : slice;
            int i = position.get(here);
            plan.flow(d, neighbour(t, at, slice, a, values[(i + 1) % n]), both ? total / 2 : total);
            if (both) {
                plan.flow(d, neighbour(t, at, slice, a, values[Math.floorMod(i - 1, n)]), total / 2);
            }
        }
    }

    /** The device at {@code at} in {@code slice} with coordinate {@code a} (or the slice) replaced by {@code v}. */
    private static int neighbour(TorusSpec t, int[] at, int slice, int a, int v) {
        int[] next = at.clone();
        int s = slice;
        if (a < at.length) {
            next[a] = v;
        } else {
            s = v;
        }
        int idx = 0;
        for (int k = next.length - 1; k >= 0; k--) {
            idx = idx * t.dims()[k] + next[k];
        }
        return t.deviceAt(s * t.chipsPerSlice() + idx);
    }
}
