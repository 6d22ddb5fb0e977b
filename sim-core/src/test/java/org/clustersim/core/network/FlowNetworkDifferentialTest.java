package org.clustersim.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.clustersim.core.engine.Counters;
import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.kernel.DsolKernel;
import org.clustersim.topology.AcceleratorSpec;
import org.clustersim.topology.FatTreeSpec;
import org.clustersim.topology.Link;
import org.clustersim.topology.LinkStates;
import org.clustersim.topology.Route;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The flow model against a plain reference: on randomized topologies and flow sets, every
 * link's rate and every flow's finish time from {@link FlowNetwork} (lazily keyed link heap, component
 * re-rating that spreads only through saturated links, batched completions) equal those of
 * textbook progressive filling recomputed over all
 * flows at every event, with the same clock (events on whole nanoseconds, a flow's end rounded
 * up, a sliver of bytes left by rounding finished a nanosecond later): rates within 1e-9
 * relative, finish times within a nanosecond.
 */
class FlowNetworkDifferentialTest {
    private static final double EPSILON_BYTES = 1e-6;

    /** A flow of the reference: route, bytes, start. */
    private static final class RefFlow {
        final Link[] links;
        final long bytes;
        final long start;
        double remaining;
        double rate;
        long end = -1;

        RefFlow(Link[] links, long bytes, long start) {
            this.links = links;
            this.bytes = bytes;
            this.start = start;
            this.remaining = bytes;
        }

        boolean active(long now) {
            return start <= now && end < 0;
        }
    }

    /** Textbook progressive filling over every active flow: raise all together, freeze at each saturated link. */
    private static void progressiveFilling(List<RefFlow> flows, long now, LinkStates states) {
        List<RefFlow> unfrozen = new ArrayList<>();
        for (RefFlow f : flows) {
            f.rate = 0;
            if (f.active(now)) {
                unfrozen.add(f);
            }
        }
        java.util.Map<Link, Double> left = new java.util.HashMap<>();
        for (RefFlow f : unfrozen) {
            for (Link l : f.links) {
                left.put(l, states.capacity(l) / 1e9);
            }
        }
        while (!unfrozen.isEmpty()) {
            // the link with the smallest fair share among its unfrozen flows, ties to the lower id
            Link worst = null;
            double share = Double.MAX_VALUE;
            for (java.util.Map.Entry<Link, Double> e : left.entrySet()) {
                int n = 0;
                for (RefFlow f : unfrozen) {
                    for (Link l : f.links) {
                        if (l == e.getKey()) {
                            n++;
                        }
                    }
                }
                if (n == 0) {
                    continue;
                }
                double s = Math.max(0, e.getValue()) / n;
                if (s < share || (s == share && e.getKey().id() < worst.id())) {
                    share = s;
                    worst = e.getKey();
                }
            }
            List<RefFlow> freeze = new ArrayList<>();
            for (RefFlow f : unfrozen) {
                if (Arrays.asList(f.links).contains(worst)) {
                    freeze.add(f);
                }
            }
            for (RefFlow f : freeze) {
                f.rate = share;
                for (Link l : f.links) {
                    left.merge(l, -share, Double::sum);
                }
            }
            unfrozen.removeAll(freeze);
        }
    }

    /** The reference run: rates recomputed over all flows at every start and finish. */
    private static void reference(List<RefFlow> flows, LinkStates states) {
        long now = 0;
        while (true) {
            progressiveFilling(flows, now, states);
            long next = Long.MAX_VALUE;
            for (RefFlow f : flows) {
                if (f.start > now) {
                    next = Math.min(next, f.start);
                } else if (f.end < 0 && f.rate > 0) {
                    next = Math.min(next, now + (long) Math.ceil(f.remaining / f.rate));
                }
            }
            if (next == Long.MAX_VALUE) {
                return;
            }
            for (RefFlow f : flows) {
                if (f.active(now)) {
                    f.remaining = Math.max(0, f.remaining - f.rate * (next - now));
                }
            }
            now = next;
            for (RefFlow f : flows) {
                if (f.active(now) && f.rate > 0 && f.remaining <= EPSILON_BYTES * Math.max(1, f.bytes)) {
                    f.end = now;
                }
            }
        }
    }

    /** Every other case a small two- or three-level fat tree, oversubscribed at random, so spine links saturate. */
    private static Topology randomTopology(Random r, int trial) {
        if (trial % 2 == 1) {
            int radix = r.nextBoolean() ? 4 : 8;
            int gpus = 1 + r.nextInt(2);
            int nodes = 2 + r.nextInt(radix * 2 / gpus);
            double[] ratios = r.nextBoolean() ? new double[] {1 + r.nextInt(3)}
                    : new double[] {1 + r.nextInt(3), 1 + r.nextInt(2)};
            try {
                return new FatTreeSpec("random-fattree", AcceleratorSpec.H100_SXM, nodes, gpus,
                        (100 + r.nextInt(300)) * 1e9, (10 + r.nextInt(90)) * 1e9, radix, ratios).build();
            } catch (IllegalArgumentException tooBig) {
                return new FatTreeSpec("random-fattree", AcceleratorSpec.H100_SXM, 2, gpus, 200e9, 50e9, radix,
                        new double[] {2}).build();
            }
        }
        int nodes = 1 + r.nextInt(3);
        int perNode = 2 + r.nextInt(3);
        double nvlink = (50 + r.nextInt(400)) * 1e9;
        double nic = (10 + r.nextInt(90)) * 1e9;
        return new SwitchedClusterSpec("random", AcceleratorSpec.H100_SXM, nodes, perNode, nvlink, 0, nic, 0, 0)
                .build();
    }

    /**
     * @param fewFlows 0: every re-rating spreads only through saturated links (the incremental
     *                 rule alone); the default also crosses lightly used links
     */
    @ParameterizedTest
    @ValueSource(ints = {0, FlowNetwork.FEW_FLOWS})
    void ratesAndFinishTimesEqualPlainProgressiveFillingOnRandomCases(int fewFlows) {
        Random r = new Random(20261122 + fewFlows);
        int compared = 0;
        for (int trial = 0; trial < 60; trial++) {
            Topology t = randomTopology(r, trial);
            LinkStates states = LinkStates.healthy(t);
            int n = t.deviceCount();
            int count = 2 + r.nextInt(trial % 3 == 0 ? 120 : 30);
            List<RefFlow> ref = new ArrayList<>();
            List<Flow> specs = new ArrayList<>();
            long[] ends = new long[count];
            long[] latency = new long[count];
            Arrays.fill(ends, -1);
            DsolKernel kernel = new DsolKernel();
            FlowNetwork net = new FlowNetwork(t, kernel, states, new Counters(), false, fewFlows, true);
            for (int i = 0; i < count; i++) {
                int src = r.nextInt(n);
                int dst = (src + 1 + r.nextInt(n - 1)) % n;
                long bytes = 100_000 + r.nextInt(10_000_000);
                long start = r.nextInt(4) == 0 ? r.nextInt(200_000) : 0;
                Flow f = new Flow(src, dst, bytes, r.nextInt(4));
                specs.add(f);
                Route route = t.route(src, dst, f.channel());
                latency[i] = route.latencyNs();
                ref.add(new RefFlow(route.links().toArray(new Link[0]), bytes, start));
                int index = i;
                kernel.schedule(start, () -> net.transfer("flow" + index, new Phase(List.of(f)),
                        () -> ends[index] = kernel.now()));
            }
            // the rates of the flows starting at 0, on every link, before anything finishes
            List<RefFlow> atZero = new ArrayList<>(ref);
            progressiveFilling(atZero, 0, states);
            double[] refLinkRate = new double[t.links().size()];
            for (RefFlow f : atZero) {
                for (Link l : f.links) {
                    refLinkRate[l.id()] += f.rate;
                }
            }
            kernel.schedule(0, () -> {
                for (Link l : t.links()) {
                    assertEquals(refLinkRate[l.id()], net.linkRate(l.id()),
                            1e-9 * Math.max(1e-9, refLinkRate[l.id()]), "link " + l.name() + " at t = 0");
                }
            });
            kernel.run();
            reference(ref, states);
            for (int i = 0; i < count; i++) {
                assertTrue(ends[i] > 0, "flow " + i + " finished");
                // the flow model adds the route's latency after the last byte; it keeps the
                // end of a flow whose component did not change, where the reference settles and
                // rounds it again at every event: one nanosecond, the clock's resolution, apart at most
                long arrival = ref.get(i).end + latency[i];
                assertEquals(arrival, ends[i], 1 + 1e-9 * arrival, "trial " + trial + " flow " + i);
                compared++;
            }
        }
        assertTrue(compared > 500, "compared " + compared + " flows");
    }
}
