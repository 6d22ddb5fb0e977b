package org.clustersim.core.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
import org.clustersim.topology.FatTreeSpec;
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
    private record Outcome(List<Long> ends, long classesSplitOrRun, long splitBySaturation, long choicesReused,
                           long split, long[] linkBytes, long[] linkBusyNs) {
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

    /**
     * @param window     starts (and faults) fall in [0, window) ns
     * @param singleOdds one start in this many is a single random flow, the others a symmetric phase
     */
    private static Outcome run(Topology t, List<Phase> symmetric, long seed, boolean classes, boolean adaptive,
                               boolean faults, int window, int singleOdds) {
        return run(t, symmetric, seed, classes, adaptive, faults, window, singleOdds, new Counters());
    }

    /**
     * @param counters where link throughput tracks go, or null for none: then a class's rate stays
     *                 off its binding links' totals while it runs ({@link LinkRates#bindingOffTotals})
     */
    private static Outcome run(Topology t, List<Phase> symmetric, long seed, boolean classes, boolean adaptive,
                               boolean faults, int window, int singleOdds, Counters counters) {
        Random r = new Random(seed);
        DsolKernel kernel = new DsolKernel();
        LinkStates states = LinkStates.healthy(t);
        FlowNetwork net = new FlowNetwork(t, kernel, states, counters, adaptive, FlowNetwork.FEW_FLOWS, classes);
        List<long[]> ends = new ArrayList<>();
        for (int k = 0; k < 80; k++) {
            Phase phase = r.nextInt(singleOdds) > 0 ? symmetric.get(r.nextInt(symmetric.size()))
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
        long[] bytes = new long[t.links().size()];
        long[] busy = new long[bytes.length];
        for (int id = 0; id < bytes.length; id++) {
            bytes[id] = net.usage().bytes(id);
            busy[id] = net.usage().busyNs(id);
        }
        return new Outcome(out, net.classesStarted(), net.classesSplitBySaturation(), net.routeChoicesReused(),
                net.classesSplit(), bytes, busy);
    }

    /**
     * One randomized case run three ways: with classes, with every flow rated on its own, and with
     * classes but no throughput tracks (then classes keep their rate off their binding links'
     * totals). Every phase with classes must end within a nanosecond (and a billionth) of the run
     * without, having ended, and no class may run without classes; without tracks every phase
     * must end at the same nanosecond as with them, as many classes be split, and every link
     * carry the same bytes and be busy as long. Returns the run with classes and tracks.
     *
     * @param what the messages' prefix, a phase's index follows
     */
    private static Outcome checked(Topology t, List<Phase> phases, long seed, boolean adaptive, boolean faults,
                                   int window, int singleOdds, String what) {
        Outcome with = run(t, phases, seed, true, adaptive, faults, window, singleOdds);
        Outcome without = run(t, phases, seed, false, adaptive, faults, window, singleOdds);
        Outcome untracked = run(t, phases, seed, true, adaptive, faults, window, singleOdds, null);
        assertEquals(0, without.classesSplitOrRun(), what);
        for (int i = 0; i < with.ends().size(); i++) {
            long a = without.ends().get(i);
            assertTrue(a > 0, what + i + " finished");
            assertEquals(a, with.ends().get(i), 1 + 1e-9 * a, what + i);
        }
        assertEquals(with.ends(), untracked.ends(), what + "ends without tracks");
        assertEquals(with.split(), untracked.split(), what + "splits without tracks");
        assertArrayEquals(with.linkBytes(), untracked.linkBytes(), what + "link bytes without tracks");
        assertArrayEquals(with.linkBusyNs(), untracked.linkBusyNs(), what + "link busy time without tracks");
        return with;
    }

    /**
     * A small fat tree drawn from {@code r}: radix 4 or 8, 2 to 4 GPUs per server, NVLink and NIC
     * speeds and a spine oversubscription of 1 to 3 at random; null when the draw does not fit its
     * radix.
     */
    private static Topology randomFatTree(Random r) {
        int radix = r.nextBoolean() ? 4 : 8;
        int gpus = 2 + r.nextInt(3);
        int nodes = 2 + r.nextInt(Math.max(1, radix * 2 / gpus - 1));
        try {
            return new FatTreeSpec("random-fattree", AcceleratorSpec.H100_SXM, nodes, gpus,
                    (100 + r.nextInt(300)) * 1e9, (10 + r.nextInt(90)) * 1e9, radix,
                    new double[] {1 + r.nextInt(3)}).build();
        } catch (IllegalArgumentException tooBig) {
            return null;
        }
    }

    /**
     * Forty randomized cases on {@link #randomFatTree random fat trees} (a draw too large for its
     * radix is skipped), each {@link #checked}: the phases {@code phasesOf} makes of the tree and a
     * seeded draw, starts within a window of {@code window} ns doubled {@code (trial % doublings)}
     * times, adaptive routing in odd trials and faults in half of them.
     *
     * @return each case's run with classes
     */
    private static List<Outcome> fatTreeTrials(long seed0, java.util.function.BiFunction<Topology, Random,
            List<Phase>> phasesOf, int window, int doublings, int singleOdds) {
        Random r = new Random(seed0);
        List<Outcome> runs = new ArrayList<>();
        for (int trial = 0; trial < 40; trial++) {
            Topology t = randomFatTree(r);
            if (t == null) {
                continue;
            }
            long seed = r.nextLong();
            List<Phase> phases = phasesOf.apply(t, new Random(seed));
            boolean adaptive = trial % 2 == 1;
            boolean faults = trial % 4 >= 2;
            runs.add(checked(t, phases, seed, adaptive, faults, window << (trial % doublings), singleOdds,
                    "trial " + trial + " (adaptive " + adaptive + ", faults " + faults + ") phase "));
        }
        return runs;
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
            Outcome with = checked(t, serverPhases(t), seed, adaptive, faults, 400_000, 3,
                    "trial " + trial + " (adaptive " + adaptive + ", faults " + faults + ") phase ");
            classes += with.classesSplitOrRun();
            compared += with.ends().size();
        }
        assertTrue(classes > 100, "classes started: " + classes);
        assertTrue(compared >= 3000, "compared " + compared);
    }

    /**
     * Pipeline sends: a few fixed single-flow phases between random GPUs, restarted many times
     * (from the second start on each may run as a class of one) among random one-off flows, over
     * fat trees whose spines may saturate, with faults and adaptive routing in half the trials:
     * every send must end when it rated among the others would, and classes of one must have run
     * and been split.
     */
    @Test
    void restartedLoneSendsEndWhenRatedAmongTheOthersWould() {
        List<Outcome> runs = fatTreeTrials(20261126, (t, pick) -> {
            List<Phase> sends = new ArrayList<>();
            for (int k = 0, count = 3 + pick.nextInt(6); k < count; k++) {
                sends.add(new Phase(List.of(randomFlow(pick, t.deviceCount()))));
            }
            return sends;
        }, 200_000, 5, 3);
        long classes = runs.stream().mapToLong(Outcome::classesSplitOrRun).sum();
        long split = runs.stream().mapToLong(Outcome::split).sum();
        int compared = runs.stream().mapToInt(o -> o.ends().size()).sum();
        // every phase here has one flow: each class started is a class of one
        assertTrue(classes > 200, "classes of one started: " + classes + ", split " + split + ", compared " + compared);
        assertTrue(split > 20, "classes of one split (a flow joined a binding link, a fault): " + split);
        assertTrue(compared >= 2000, "compared " + compared);
    }

    /**
     * Direct all-to-alls over a fat tree (NVLink pairs of one size, network pairs of another), so
     * that each all-to-all holds two classes whose network class shares leaf and spine links with
     * other all-to-alls and single flows; oversubscribed spines saturate, which must split the
     * classes sharing them.
     */
    private static List<Phase> directAllToAlls(Topology t, Random r) {
        int n = t.deviceCount();
        List<Phase> phases = new ArrayList<>();
        for (int k = 0; k < 6; k++) {
            // a random subset of the GPUs, so servers take part unevenly and some links have spare
            List<Integer> members = new ArrayList<>();
            for (int d = 0; d < n; d++) {
                if (r.nextInt(5) < 3) {
                    members.add(d);
                }
            }
            if (members.size() < 2) {
                members = List.of(0, n - 1);
            }
            long local = 500_000 + r.nextInt(2_000_000);
            long remote = 500_000 + r.nextInt(2_000_000);
            List<Flow> flows = new ArrayList<>();
            for (int i : members) {
                for (int j : members) {
                    if (i != j) {
                        boolean sameNode = t.device(i).node() == t.device(j).node();
                        flows.add(new Flow(i, j, sameNode ? local : remote, r.nextInt(4)));
                    }
                }
            }
            phases.add(new Phase(flows));
        }
        return phases;
    }

    @Test
    void directAllToAllClassesSharingLinksEndWhenTheirFlowsOneByOneWould() {
        // from heavy overlap (classes rarely start) to little (they start, then get cut)
        List<Outcome> runs = fatTreeTrials(20261123, FlowClassTest::directAllToAlls, 500_000, 6, 2);
        long classes = runs.stream().mapToLong(Outcome::classesSplitOrRun).sum();
        long splitBySaturation = runs.stream().mapToLong(Outcome::splitBySaturation).sum();
        long reused = runs.stream().mapToLong(Outcome::choicesReused).sum();
        int compared = runs.stream().mapToInt(o -> o.ends().size()).sum();
        assertTrue(classes > 200, "classes started: " + classes);
        assertTrue(splitBySaturation > 10, "classes split by a saturated shared link: " + splitBySaturation);
        // adaptive starts that found the loads their choices read as an earlier start did
        assertTrue(reused > 20, "adaptive route choices reused: " + reused);
        assertTrue(compared >= 2000, "compared " + compared);
    }

    /**
     * Two flows into GPU 2 run as a class at half of GPU 2's down-link; GPU 0's up-link is
     * theirs without binding (half of it spare). Two flows from GPU 0 then saturate that link:
     * the class must split so that max-min fairness gives GPU 0's three flows a third each (and
     * GPU 1's flow the rest of GPU 2's down-link), which a class kept at its rate would not.
     */
    @Test
    void aSharedLinkThatSaturatesSplitsTheClass() {
        Topology t = FlowNetworkTest.star(new double[] {100, 100, 100, 100}, new double[] {100, 100, 100, 100});
        Phase into2 = new Phase(List.of(new Flow(0, 2, 3_000_000), new Flow(1, 2, 3_000_000)));
        Phase from0 = new Phase(List.of(new Flow(0, 3, 1_000_000), new Flow(0, 1, 1_000_000)));
        long[][] ends = new long[2][];
        long[] split = new long[2];
        for (int variant = 0; variant < 2; variant++) {
            DsolKernel kernel = new DsolKernel();
            FlowNetwork net = new FlowNetwork(t, kernel, LinkStates.healthy(t), new Counters(), false,
                    FlowNetwork.FEW_FLOWS, variant == 0);
            long[] end = new long[3];
            // the first start of a phase checks it for classes; the second runs as one
            kernel.schedule(0, () -> net.transfer("warm", into2, () -> end[0] = kernel.now()));
            kernel.schedule(1_000_000, () -> net.transfer("class", into2, () -> end[1] = kernel.now()));
            kernel.schedule(1_010_000, () -> net.transfer("cut", from0, () -> end[2] = kernel.now()));
            kernel.run();
            ends[variant] = end;
            split[variant] = net.classesSplitBySaturation();
            if (variant == 0) {
                assertEquals(1, net.classesStarted());
            }
        }
        assertEquals(1, split[0], "the class was split by the saturated up-link");
        // 10 us at 50 GB/s each (0.5 MB sent), then 0 -> 2 and the cut flows at a third of
        // 100 GB/s, 1 -> 2 at two thirds, until the cut flows' 1 MB has gone (30 us)
        assertEquals(1_040_000, ends[1][2], 1);
        for (int k = 0; k < 3; k++) {
            assertEquals(ends[1][k], ends[0][k], 1, "phase " + k + " with classes as without");
        }
    }

    /**
     * A direct all-to-all restarted many times, each start alone or beside one of a few long
     * background flows crossing the spines, so that the loads its adaptive choices read recur
     * (and the start may take an earlier start's routes) or differ only on some spine links
     * (and it must choose afresh): every start must end when its flows routed and rated one by
     * one would end.
     */
    @Test
    void anAllToAllTakesEarlierRoutesOnlyWhereTheLoadsItsChoicesReadRecur() {
        Random r = new Random(20261124);
        long reused = 0;
        for (int trial = 0; trial < 8; trial++) {
            Topology t = new FatTreeSpec("two-tier", AcceleratorSpec.H100_SXM, 8, 2, 300e9, 50e9, 8,
                    new double[] {1 + trial % 2}).build();
            int n = t.deviceCount();
            List<Phase> phases = directAllToAlls(t, new Random(r.nextLong()));
            Phase allToAll = phases.get(0);
            List<Phase> background = new ArrayList<>();
            for (int k = 0; k < 4; k++) {
                int src = r.nextInt(n);
                background.add(new Phase(List.of(new Flow(src, (src + n / 2) % n, 400_000_000, r.nextInt(4)))));
            }
            long seed = r.nextLong();
            long[][] ends = new long[2][];
            long[][] carried = new long[2][t.links().size()];
            for (int variant = 0; variant < 2; variant++) {
                Random schedule = new Random(seed);
                DsolKernel kernel = new DsolKernel();
                FlowNetwork net = new FlowNetwork(t, kernel, LinkStates.healthy(t), new Counters(), true,
                        FlowNetwork.FEW_FLOWS, variant == 0);
                long[] end = new long[60];
                for (int k = 0; k < end.length; k++) {
                    int slot = k;
                    // far apart: every start finds the fabric drained but for its background flow
                    long at = k * 50_000_000L;
                    int with = schedule.nextInt(background.size() + 1);
                    if (with < background.size()) {
                        Phase b = background.get(with);
                        kernel.schedule(at, () -> net.transfer("background", b, () -> { }));
                    }
                    kernel.schedule(at + 1_000, () -> net.transfer("a2a", allToAll, () -> end[slot] = kernel.now()));
                }
                kernel.run();
                ends[variant] = end;
                for (int id = 0; id < carried[variant].length; id++) {
                    carried[variant][id] = net.usage().bytes(id);
                }
                if (variant == 0) {
                    reused += net.routeChoicesReused();
                }
            }
            // the same routes carry the same bytes over every link
            assertArrayEquals(carried[1], carried[0], "trial " + trial + ": bytes per link");
            for (int k = 0; k < ends[0].length; k++) {
                assertTrue(ends[1][k] > 0, "start " + k + " ended");
                assertEquals(ends[1][k], ends[0][k], 1 + 1e-9 * ends[1][k], "trial " + trial + " start " + k);
            }
        }
        assertTrue(reused > 200, "adaptive route choices reused: " + reused);
    }

    @Test
    void torusRingsAsClassesEndWhenTheirFlowsOneByOneWould() {
        Random r = new Random(7);
        long classes = 0;
        for (int trial = 0; trial < 12; trial++) {
            Topology t = (trial % 2 == 0 ? TorusSpec.v4(4, 4, 2) : TorusSpec.v5e(4, 4)).build();
            long seed = r.nextLong();
            boolean faults = trial % 3 == 0;
            Outcome with = checked(t, torusPhases(t, 4), seed, false, faults, 2_000_000, 3,
                    "trial " + trial + " phase ");
            classes += with.classesSplitOrRun();
        }
        assertTrue(classes > 50, "classes started: " + classes);
    }
}
