package org.clustersim.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.clustersim.core.engine.Counters;
import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.kernel.DsolKernel;
import org.clustersim.topology.AcceleratorSpec;
import org.clustersim.topology.Link;
import org.clustersim.topology.LinkStates;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.clustersim.topology.TorusSpec;
import org.junit.jupiter.api.Test;

/**
 * Symmetric phases run as one flow class (ring steps inside a server, all-to-alls inside a
 * server, rail-aligned exchanges across servers) until another flow joins one of their links.
 * The same randomized runs - the same phases restarted many times, single flows cutting across
 * them, links failing, degrading and recovering, static and adaptive routing - must end every
 * phase at the same nanosecond with classes as with every flow rated on its own (which
 * {@link FlowNetworkDifferentialTest} checks against plain progressive filling), and the classes
 * must actually have been used and split.
 */
class FlowClassTest {
    /** What one run did: each phase start's completion time, in start order. */
    private record Outcome(List<Long> ends, long classesSplitOrRun) {
    }

    /** Rings and all-to-alls inside each server, and rail-aligned exchanges across servers. */
    private static List<Phase> serverPhases(Topology t) {
        int perNode = t.deviceCount() / nodes(t);
        List<Phase> symmetric = new ArrayList<>();
        for (int node = 0; node < nodes(t); node++) {
            List<Flow> ring = new ArrayList<>();
            List<Flow> all = new ArrayList<>();
            for (int i = 0; i < perNode; i++) {
                ring.add(new Flow(node * perNode + i, node * perNode + (i + 1) % perNode, 3_000_000));
                for (int j = 0; j < perNode; j++) {
                    if (i != j) {
                        all.add(new Flow(node * perNode + i, node * perNode + j, 1_000_000));
                    }
                }
            }
            symmetric.add(new Phase(ring));
            symmetric.add(new Phase(all));
        }
        for (int rail = 0; rail < perNode; rail++) {
            List<Flow> across = new ArrayList<>();
            for (int s = 0; s < nodes(t); s++) {
                for (int d = 0; d < nodes(t); d++) {
                    if (s != d) {
                        across.add(new Flow(s * perNode + rail, d * perNode + rail, 2_000_000, rail));
                    }
                }
            }
            if (!across.isEmpty()) {
                symmetric.add(new Phase(across));
            }
        }
        return symmetric;
    }

    /** On a torus: a ring along the first axis through every group of {@code x} chips, each way. */
    private static List<Phase> torusPhases(Topology t, int x) {
        List<Phase> symmetric = new ArrayList<>();
        for (int g = 0; g + x <= t.deviceCount(); g += x) {
            List<Flow> forward = new ArrayList<>();
            List<Flow> both = new ArrayList<>();
            for (int i = 0; i < x; i++) {
                forward.add(new Flow(g + i, g + (i + 1) % x, 4_000_000));
                both.add(new Flow(g + i, g + (i + 1) % x, 2_000_000));
                both.add(new Flow(g + (i + 1) % x, g + i, 2_000_000));
            }
            symmetric.add(new Phase(forward));
            symmetric.add(new Phase(both));
        }
        return symmetric;
    }

    /** @param window starts (and faults) fall in [0, window) ns */
    private static Outcome run(Topology t, List<Phase> symmetric, long seed, boolean classes, boolean adaptive,
                               boolean faults, int window) {
        Random r = new Random(seed);
        DsolKernel kernel = new DsolKernel();
        LinkStates states = LinkStates.healthy(t);
        FlowNetwork net = new FlowNetwork(t, kernel, states, new Counters(), adaptive, FlowNetwork.FEW_FLOWS, classes);
        List<long[]> ends = new ArrayList<>();
        for (int k = 0; k < 80; k++) {
            Phase phase = r.nextInt(3) > 0 ? symmetric.get(r.nextInt(symmetric.size()))
                    : new Phase(List.of(randomFlow(r, t.deviceCount())));
            long start = r.nextInt(window);
            long[] end = {-1};
            ends.add(end);
            kernel.schedule(start, () -> net.transfer("p", phase, () -> end[0] = kernel.now()));
        }
        if (faults) {
            List<Link> links = t.links();
            for (int k = 0; k < 4; k++) {
                Link l = links.get(r.nextInt(links.size()));
                long at = r.nextInt(window * 3 / 4);
                double factor = r.nextBoolean() ? 0.25 + 0.5 * r.nextDouble() : 1;
                kernel.schedule(at, () -> net.setLinkState(l, factor, 0));
                kernel.schedule(at + window / 8 + r.nextInt(window / 4), () -> net.setLinkState(l, 1, 0));
            }
        }
        kernel.run();
        List<Long> out = new ArrayList<>();
        for (long[] e : ends) {
            out.add(e[0]);
        }
        return new Outcome(out, net.classesStarted());
    }

    private static Flow randomFlow(Random r, int n) {
        int src = r.nextInt(n);
        int dst = (src + 1 + r.nextInt(n - 1)) % n;
        return new Flow(src, dst, 200_000 + r.nextInt(4_000_000), r.nextInt(4));
    }

    private static int nodes(Topology t) {
        int max = 0;
        for (int d = 0; d < t.deviceCount(); d++) {
            max = Math.max(max, t.device(d).node());
        }
        return max + 1;
    }

    @Test
    void classesEndEveryPhaseWhenItsFlowsRatedOneByOneWould() {
        Random r = new Random(20261122);
        long classes = 0;
        int compared = 0;
        for (int trial = 0; trial < 40; trial++) {
            int nodes = 1 + r.nextInt(4);
            int perNode = 2 + r.nextInt(4);
            Topology t = new SwitchedClusterSpec("random", AcceleratorSpec.H100_SXM, nodes, perNode,
                    (100 + r.nextInt(400)) * 1e9, 0, (10 + r.nextInt(90)) * 1e9, 0, 0).build();
            long seed = r.nextLong();
            boolean adaptive = trial % 2 == 1;
            boolean faults = trial % 4 >= 2;
            Outcome with = run(t, serverPhases(t), seed, true, adaptive, faults, 400_000);
            Outcome without = run(t, serverPhases(t), seed, false, adaptive, faults, 400_000);
            classes += with.classesSplitOrRun();
            assertEquals(0, without.classesSplitOrRun());
            for (int i = 0; i < with.ends().size(); i++) {
                long a = without.ends().get(i);
                long b = with.ends().get(i);
                assertTrue(a > 0, "phase " + i + " finished");
                assertEquals(a, b, 1 + 1e-9 * a, "trial " + trial + " (adaptive " + adaptive + ", faults " + faults
                        + ") phase " + i);
                compared++;
            }
        }
        assertTrue(classes > 100, "classes started: " + classes);
        assertTrue(compared >= 3000, "compared " + compared);
    }

    @Test
    void torusRingsAsClassesEndWhenTheirFlowsOneByOneWould() {
        Random r = new Random(7);
        long classes = 0;
        for (int trial = 0; trial < 12; trial++) {
            Topology t = (trial % 2 == 0 ? TorusSpec.v4(4, 4, 2) : TorusSpec.v5e(4, 4)).build();
            long seed = r.nextLong();
            boolean faults = trial % 3 == 0;
            Outcome with = run(t, torusPhases(t, 4), seed, true, false, faults, 2_000_000);
            Outcome without = run(t, torusPhases(t, 4), seed, false, false, faults, 2_000_000);
            classes += with.classesSplitOrRun();
            for (int i = 0; i < with.ends().size(); i++) {
                long a = without.ends().get(i);
                assertTrue(a > 0, "phase " + i + " finished");
                assertEquals(a, with.ends().get(i), 1 + 1e-9 * a, "trial " + trial + " phase " + i);
            }
        }
        assertTrue(classes > 50, "classes started: " + classes);
    }
}
