package org.clustersim.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.jgrapht.Graph;
import org.jgrapht.alg.flow.PushRelabelMFImpl;
import org.jgrapht.graph.DefaultWeightedEdge;
import org.jgrapht.graph.SimpleDirectedWeightedGraph;
import org.junit.jupiter.api.Test;

class SuperPodSpecTest {

    private static long count(Topology t, VertexKind kind) {
        return t.vertices().stream().filter(v -> v.kind() == kind).count();
    }

    private static long switchesNamed(Topology t, String prefix) {
        return t.vertices().stream().filter(v -> v.kind() == VertexKind.SWITCH && v.name().contains(prefix)).count();
    }

    @Test
    void switchCountsFollowTheReferenceTable() {
        int[][] table = {{2, 16, 8, 0}, {4, 32, 16, 0}, {8, 64, 32, 0}, {16, 128, 128, 64}};
        for (int[] row : table) {
            Topology t = SuperPodSpec.h100(row[0]).build();
            assertEquals(row[0] * 256, t.deviceCount(), row[0] + " SU GPUs");
            assertEquals(row[1], switchesNamed(t, "leaf"), row[0] + " SU leaves");
            assertEquals(row[2], switchesNamed(t, "spine"), row[0] + " SU spines");
            assertEquals(row[3], switchesNamed(t, "core"), row[0] + " SU cores");
        }
    }

    @Test
    void largestConfigurationHas512LeavesSpinesAnd256Cores() {
        SuperPodSpec s = SuperPodSpec.h100(64);
        assertEquals(16384, s.gpus());
        assertEquals(512, s.leaves());
        assertEquals(512, s.spines());
        assertEquals(256, s.cores());
    }

    @Test
    void linkCountsOfFourScalableUnits() {
        Topology t = SuperPodSpec.h100(4).build();
        assertEquals(1024, count(t, VertexKind.ACCELERATOR));
        assertEquals(1024, count(t, VertexKind.NIC));
        assertEquals(128, count(t, VertexKind.NVSWITCH));
        // per GPU: NVLink, GPU-NIC and NIC-leaf, each both ways; per leaf 32 uplinks both ways
        assertEquals(1024 * 3 * 2 + 32 * 32 * 2, t.links().size());
        // every leaf: 32 ports down, 32 up (1:1 non-blocking)
        for (Vertex v : t.vertices()) {
            if (v.name().contains("leaf")) {
                long down = t.graph().outgoingEdgesOf(v).stream().filter(l -> l.dst().kind() == VertexKind.NIC).count();
                long upLinks = t.graph().outgoingEdgesOf(v).stream().filter(l -> l.dst().kind() == VertexKind.SWITCH)
                        .count();
                assertEquals(32, down, v.name());
                assertEquals(32, upLinks, v.name());
            }
        }
    }

    @Test
    void railAlignmentPutsGpuGOfEveryNodeOnLeafG() {
        Topology t = SuperPodSpec.h100(2).build();
        // node 40 is in SU 1; its GPU 5 reaches leaf 5 of SU 1
        Route r = t.route(40 * 8 + 5, 3 * 8 + 5);
        assertEquals("su1.leaf5", r.links().get(1).dst().name());
        assertEquals("su0.leaf5", r.links().get(r.hops() - 2).src().name());
    }

    @Test
    void hopCountsAndLatencies() {
        Topology two = SuperPodSpec.h100(2).build();
        assertEquals(2, two.route(0, 7).hops(), "same node: NVSwitch");
        Route sameLeaf = two.route(0, 8);
        assertEquals(4, sameLeaf.hops(), "same rail, same SU: GPU NIC leaf NIC GPU");
        assertEquals(2800, sameLeaf.latencyNs());
        Route crossLeaf = two.route(0, 8 * 32);
        assertEquals(6, crossLeaf.hops(), "other SU: up to a spine and down");
        assertEquals(3700, crossLeaf.latencyNs());
        assertEquals(6, two.route(0, 9).hops(), "other rail: through a spine");
        Topology big = SuperPodSpec.h100(16).build();
        assertEquals(8, big.route(0, 8 * 32 * 15 + 7).hops(), "other rail group: through a core");
    }

    @Test
    void equalCostPathsBetweenLeaves() {
        // 4 SU: every leaf has 2 cables to each of 16 spines: 16 spines x 2 up x 2 down = 64 link-level paths
        Topology t = SuperPodSpec.h100(4).build();
        assertEquals(64, pathsBetween(t, vertex(t, "su0.leaf0"), vertex(t, "su3.leaf0")));
        // 16 SU: a leaf reaches another leaf of its group over 32 spines, once each
        Topology big = SuperPodSpec.h100(16).build();
        assertEquals(32, pathsBetween(big, vertex(big, "su0.leaf0"), vertex(big, "su15.leaf0")));
    }

    @Test
    void ecmpSpreadsFlowsOverSpines() {
        Topology t = SuperPodSpec.h100(4).build();
        Set<String> spines = new HashSet<>();
        for (int n = 32; n < 64; n++) {
            Route r = t.route(0, n * 8);
            spines.add(r.links().get(2).dst().name());
        }
        assertTrue(spines.size() >= 8, "32 flows used only " + spines);
        LinkStates states = LinkStates.healthy(t);
        Route a = t.router().route(0, 8 * 100, 0, states);
        Route b = t.router().route(0, 8 * 100, 1, states);
        assertEquals(a, t.router().route(0, 8 * 100, 0, states), "deterministic");
        assertNotEquals(a.links().get(2), b.links().get(2), "another channel, another uplink (for this pair)");
    }

    @Test
    void failedUplinkIsAvoidedAndLeafCutOffIsReported() {
        Topology t = SuperPodSpec.h100(2).build();
        LinkStates states = LinkStates.healthy(t);
        Route before = t.router().route(0, 8 * 32, 0, states);
        Link used = before.links().get(2);
        states.setFactor(used.id(), 0);
        Route after = t.router().route(0, 8 * 32, 0, states);
        assertTrue(!after.links().contains(used), "rerouted around " + used);
        assertEquals(6, after.hops());
        Vertex leaf = vertex(t, "su0.leaf0");
        for (Link up : t.graph().outgoingEdgesOf(leaf)) {
            if (up.dst().kind() == VertexKind.SWITCH) {
                states.setFactor(up.id(), 0);
            }
        }
        NoRouteException e = assertThrows(NoRouteException.class, () -> t.router().route(0, 8 * 32, 0, states));
        assertTrue(e.getMessage().contains("no route from node0.gpu0 to node32.gpu0"), e.getMessage());
        assertTrue(e.getMessage().contains("su0.leaf0->spine"), e.getMessage());
    }

    @Test
    void bisectionBandwidthHalvesWithTwoToOneOversubscription() {
        for (double ratio : new double[] {1, 2}) {
            Topology t = SuperPodSpec.h100(2).withOversubscription(ratio).build();
            double bisection = maxFlow(t, v -> v.node() >= 0 && v.node() < 32, v -> v.node() >= 32);
            // 256 GPUs per SU, 50 GB/s each; above the leaves capacity is divided by the ratio
            assertEquals(256 * 50e9 / ratio, bisection, 1e3, "ratio " + ratio);
        }
    }

    @Test
    void rejectsUnsupportedSizes() {
        assertThrows(IllegalArgumentException.class, () -> SuperPodSpec.h100(10));
        // three levels group 32 leaves to a spine group: 12 SUs of 4-GPU nodes have 48 leaves
        assertThrows(IllegalArgumentException.class, () -> new SuperPodSpec("rails", AcceleratorSpec.H100_SXM, 12, 4,
                32, 450e9, 250, 50e9, 200, 1200, 1.0));
        assertThrows(IllegalArgumentException.class, () -> new SuperPodSpec("rails", AcceleratorSpec.H100_SXM, 16, 2,
                32, 450e9, 250, 50e9, 200, 1200, 1.0));
        // 12 SUs of 8 GPUs (96 leaves, 48 cores) build, every spine reaching every core
        Topology twelve = new SuperPodSpec("rails", AcceleratorSpec.H100_SXM, 12, 8, 2, 450e9, 250, 50e9, 200, 1200,
                1.0).build();
        assertEquals(12 * 2 * 8, twelve.deviceCount());
        assertThrows(IllegalArgumentException.class, () -> SuperPodSpec.h100(2).withOversubscription(0.5));
    }

    static Vertex vertex(Topology t, String name) {
        return t.vertices().stream().filter(v -> v.name().equals(name)).findFirst().orElseThrow();
    }

    /** Shortest switch-level paths from a to b, counting parallel links separately. */
    static long pathsBetween(Topology t, Vertex a, Vertex b) {
        Graph<Vertex, Link> g = t.graph();
        Map<Vertex, Integer> dist = new HashMap<>();
        ArrayDeque<Vertex> q = new ArrayDeque<>();
        dist.put(b, 0);
        q.add(b);
        while (!q.isEmpty()) {
            Vertex v = q.poll();
            for (Link in : g.incomingEdgesOf(v)) {
                if (in.src().kind() == VertexKind.SWITCH && !dist.containsKey(in.src())) {
                    dist.put(in.src(), dist.get(v) + 1);
                    q.add(in.src());
                }
            }
        }
        Map<Vertex, Long> ways = new HashMap<>();
        return ways(g, a, b, dist, ways);
    }

    private static long ways(Graph<Vertex, Link> g, Vertex u, Vertex b, Map<Vertex, Integer> dist,
                             Map<Vertex, Long> memo) {
        if (u.equals(b)) {
            return 1;
        }
        Long m = memo.get(u);
        if (m != null) {
            return m;
        }
        long sum = 0;
        for (Link out : g.outgoingEdgesOf(u)) {
            Integer d = dist.get(out.dst());
            if (d != null && d == dist.get(u) - 1) {
                sum += ways(g, out.dst(), b, dist, memo);
            }
        }
        memo.put(u, sum);
        return sum;
    }

    /** Max flow from the GPUs matching {@code from} to those matching {@code to}, bytes per second. */
    static double maxFlow(Topology t, java.util.function.Predicate<Vertex> from,
                          java.util.function.Predicate<Vertex> to) {
        SimpleDirectedWeightedGraph<Object, DefaultWeightedEdge> g = new SimpleDirectedWeightedGraph<>(
                DefaultWeightedEdge.class);
        Object source = "source";
        Object sink = "sink";
        g.addVertex(source);
        g.addVertex(sink);
        for (Vertex v : t.vertices()) {
            g.addVertex(v);
        }
        for (Link l : t.links()) {
            // GPUs do not forward: only links out of a source GPU or into a sink GPU, or between non-GPUs
            boolean transit = (l.src().kind() == VertexKind.ACCELERATOR && !from.test(l.src()))
                    || (l.dst().kind() == VertexKind.ACCELERATOR && !to.test(l.dst()));
            if (transit || l.kind() == LinkKind.NVLINK) {
                continue;
            }
            DefaultWeightedEdge e = g.getEdge(l.src(), l.dst());
            if (e == null) {
                e = g.addEdge(l.src(), l.dst());
                g.setEdgeWeight(e, 0);
            }
            g.setEdgeWeight(e, g.getEdgeWeight(e) + l.bandwidthBytesPerS());
        }
        for (Vertex v : t.vertices()) {
            if (v.kind() == VertexKind.ACCELERATOR && from.test(v)) {
                g.setEdgeWeight(g.addEdge(source, v), 1e18);
            } else if (v.kind() == VertexKind.ACCELERATOR && to.test(v)) {
                g.setEdgeWeight(g.addEdge(v, sink), 1e18);
            }
        }
        return new PushRelabelMFImpl<>(g).getMaximumFlowValue(source, sink);
    }
}
