package org.clustersim.strategies.collective;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.engine.Work;
import org.clustersim.topology.Link;
import org.clustersim.topology.Route;
import org.clustersim.topology.Topology;

/**
 * The collective algorithms by name, and NCCL-style automatic selection: for a given
 * operation, group and size, every applicable (algorithm, protocol) pair is costed with a
 * quick contention-free estimate of its plan (per phase: the busiest link's bytes over its
 * capacity, plus the longest route latency and the phase's step latency), and the cheapest
 * wins. The estimate only chooses; the time reported is always the simulated one.
 */
public final class Collectives {
    private static final List<CollectiveAlgorithm> ALL = List.of(new RingAlgorithm(), new DoubleBinaryTreeAlgorithm(),
            new HalvingDoublingAlgorithm(), new DirectAlgorithm(), new PxnAlgorithm(), new HierarchicalAlgorithm(),
            new NvlsAlgorithm(),
            new TorusAlgorithm(), new TorusAxesAlgorithm());

    private Collectives() {
    }

    /** Every algorithm, in a fixed order. */
    public static List<CollectiveAlgorithm> all() {
        return ALL;
    }

    /** Algorithm names plus {@code auto}. */
    public static List<String> names() {
        List<String> out = new ArrayList<>();
        for (CollectiveAlgorithm a : ALL) {
            out.add(a.name());
        }
        out.add("auto");
        return out;
    }

    public static Optional<CollectiveAlgorithm> byName(String name) {
        return ALL.stream().filter(a -> a.name().equals(name)).findFirst();
    }

    /**
     * A chosen algorithm and protocol with its plan.
     *
     * @param algorithm  the algorithm
     * @param protocol   the protocol
     * @param phases     the plan
     * @param estimateNs the selection estimate (not a reported result)
     */
    public record Choice(CollectiveAlgorithm algorithm, Protocol protocol, List<Phase> phases, long estimateNs) {
        /** The plan as a communication task's work. */
        public Work.Communication work() {
            return new Work.Communication(phases);
        }
    }

    /**
     * Plans {@code op} with the named algorithm ({@code auto} to choose), taking the cheapest
     * protocol the algorithm supports.
     *
     * @throws IllegalArgumentException for an unknown name or an algorithm that cannot run the operation
     */
    public static Choice plan(String algorithm, CollectiveOp op, CommGroup group, long bytes, Topology topology) {
        List<CollectiveAlgorithm> candidates;
        if (algorithm.equals("auto")) {
            candidates = new ArrayList<>();
            for (CollectiveAlgorithm a : ALL) {
                if (a.unsupported(op, group, topology).isEmpty() && librarySchedules(a, op)) {
                    candidates.add(a);
                }
            }
            // on a TPU torus XLA runs its own per-axis rings, not NCCL's algorithms, wherever the group allows
            List<CollectiveAlgorithm> torus = candidates.stream()
                    .filter(a -> a instanceof TorusAlgorithm || a instanceof TorusAxesAlgorithm).toList();
            if (!torus.isEmpty()) {
                candidates = torus;
            }
        } else {
            CollectiveAlgorithm a = byName(algorithm).orElseThrow(() -> new IllegalArgumentException(
                    "unknown collective algorithm '" + algorithm + "'; expected one of " + names()));
            a.requireSupported(op, group, topology);
            candidates = List.of(a);
        }
        Choice best = null;
        for (CollectiveAlgorithm a : candidates) {
            for (Protocol p : a.protocols()) {
                List<Phase> phases = a.plan(op, group, bytes, p, topology);
                long estimate = estimateNs(phases, topology);
                if (best == null || estimate < best.estimateNs()) {
                    best = new Choice(a, p, phases, estimate);
                }
            }
        }
        if (best == null) {
            throw new IllegalArgumentException("no algorithm can run " + op.id() + " over " + group.size() + " ranks");
        }
        return best;
    }

    /**
     * Whether the collective library would run {@code op} with {@code a}: NCCL has no direct
     * (one-shot) or recursive halving-doubling reduce-scatter, all-gather or all-reduce across
     * ranks (its algorithms are ring, tree, NVLS, CollNet and PAT); its all-to-all is direct
     * point-to-point. Those two stay available by name.
     */
    private static boolean librarySchedules(CollectiveAlgorithm a, CollectiveOp op) {
        boolean oneShot = a instanceof DirectAlgorithm || a instanceof HalvingDoublingAlgorithm;
        return !oneShot || op == CollectiveOp.ALL_TO_ALL;
    }

    /** Per thread, bytes per link while a phase is estimated; all zero between calls (plans are made on several threads). */
    private static final ThreadLocal<double[]> LOAD = ThreadLocal.withInitial(() -> new double[0]);

    /** Contention-free estimate of a plan: per phase, the busiest link's load over its capacity plus latencies. */
    public static long estimateNs(List<Phase> phases, Topology topology) {
        double[] load = LOAD.get();
        if (load.length < topology.links().size()) {
            load = new double[topology.links().size()];
            LOAD.set(load);
        }
        int[] touched = new int[64];
        long total = 0;
        for (Phase phase : phases) {
            int nTouched = 0;
            long latency = 0;
            for (Flow f : phase.flows()) {
                if (f.srcDevice() == f.dstDevice()) {
                    continue;
                }
                Route r = topology.route(f.srcDevice(), f.dstDevice(), f.channel());
                latency = Math.max(latency, r.latencyNs());
                for (Link l : r.links()) {
                    int id = l.id();
                    if (load[id] == 0) {
                        if (nTouched == touched.length) {
                            touched = java.util.Arrays.copyOf(touched, nTouched * 2);
                        }
                        touched[nTouched++] = id;
                    }
                    // a zero-byte flow leaves the link untouched, as the map's absent entry did
                    load[id] += f.bytes();
                }
            }
            double serial = 0;
            for (int t = 0; t < nTouched; t++) {
                int id = touched[t];
                serial = Math.max(serial, load[id] / topology.links().get(id).bandwidthBytesPerS() * 1e9);
                load[id] = 0;
            }
            total += (long) Math.ceil(serial) + latency + phase.extraLatencyNs();
        }
        return total;
    }
}
