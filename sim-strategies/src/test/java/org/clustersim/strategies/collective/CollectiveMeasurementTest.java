package org.clustersim.strategies.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.Simulation;
import org.clustersim.core.kernel.SimulationException;
import org.clustersim.topology.Link;
import org.clustersim.topology.LinkKind;
import org.clustersim.topology.Route;
import org.clustersim.topology.SuperPodSpec;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.clustersim.topology.Vertex;
import org.clustersim.topology.VertexKind;
import org.junit.jupiter.api.Test;

/** Simulated collectives against published measurements, and the contention and fault behaviour they must show. */
class CollectiveMeasurementTest {
    static final Topology DGX = SwitchedClusterSpec.dgxH100(1).build();
    static final CommGroup EIGHT = new CommGroup(new int[] {0, 1, 2, 3, 4, 5, 6, 7});

    static long time(Topology t, String algo, CollectiveOp op, CommGroup g, long bytes) {
        return new CollectiveStudy(t, Simulation.Fidelity.FLOW, List.of()).time(algo, op, g, bytes);
    }

    static double busbw(CollectiveOp op, int n, long bytes, long ns) {
        return bytes / (ns / 1e9) * op.busBandwidthFactor(n) / 1e9;
    }

    /** Published 8 x H100 all_reduce with NVLS (shared reference): size, busbw GB/s. */
    static final double[][] NVLS_TABLE = {{16 << 20, 237.21}, {64 << 20, 361.67}, {128 << 20, 400.53},
        {256 << 20, 422.25}, {512 << 20, 436.79}, {1L << 30, 466.33}, {8L << 30, 480.16}};

    @Test
    void nvlsAllReduceMatchesThePublishedCurveWithin15Percent() {
        StringBuilder report = new StringBuilder();
        for (double[] row : NVLS_TABLE) {
            long bytes = (long) row[0];
            double sim = busbw(CollectiveOp.ALL_REDUCE, 8, bytes, time(DGX, "nvls", CollectiveOp.ALL_REDUCE, EIGHT, bytes));
            report.append(String.format("%d MiB: %.1f vs %.1f%n", bytes >> 20, sim, row[1]));
            assertTrue(Math.abs(sim - row[1]) <= 0.15 * row[1], "busbw at " + (bytes >> 20) + " MiB: simulated " + sim
                    + ", published " + row[1]);
        }
        System.out.print(report);
    }

    @Test
    void ringReachesAbout370GBpsBusBandwidthAtLargeSizes() {
        long bytes = 8L << 30;
        double bw = busbw(CollectiveOp.ALL_REDUCE, 8, bytes, time(DGX, "ring", CollectiveOp.ALL_REDUCE, EIGHT, bytes));
        assertEquals(370, bw, 370 * 0.02);
    }

    @Test
    void smallMessageFloorIsWithinTwiceThePublished13To20Microseconds() {
        long ns = time(DGX, "auto", CollectiveOp.ALL_REDUCE, EIGHT, 8);
        assertTrue(ns >= 13_000 / 2 && ns <= 20_000 * 2, "8-byte all-reduce took " + ns + " ns");
    }

    @Test
    void autoPicksNvlsForLargeAndALowLatencyProtocolForSmallMessages() {
        Collectives.Choice big = Collectives.plan("auto", CollectiveOp.ALL_REDUCE, EIGHT, 1L << 30, DGX);
        assertEquals("nvls", big.algorithm().name());
        Collectives.Choice small = Collectives.plan("auto", CollectiveOp.ALL_REDUCE, EIGHT, 1024, DGX);
        assertEquals(Protocol.LL, small.protocol());
        Topology a100 = SwitchedClusterSpec.dgxA100(1).build();
        assertTrue(!Collectives.plan("auto", CollectiveOp.ALL_REDUCE, EIGHT, 1L << 30, a100).algorithm().name()
                .equals("nvls"), "no NVLS on A100");
    }

    /** GPU {@code rail} of nodes alternating between SU 0 and SU 1, so every ring edge crosses the spines. */
    static CommGroup crossSuRing(int rail, int pairs) {
        int[] d = new int[2 * pairs];
        for (int i = 0; i < pairs; i++) {
            d[2 * i] = i * 8 + rail;
            d[2 * i + 1] = (32 + i) * 8 + rail;
        }
        return new CommGroup(d);
    }

    @Test
    void ringsOnDifferentRailsDoNotSlowEachOtherButOversubscriptionDoes() {
        long bytes = 1L << 30;
        for (double ratio : new double[] {1, 4}) {
            Topology t = SuperPodSpec.h100(2).withOversubscription(ratio).build();
            CollectiveStudy study = new CollectiveStudy(t, Simulation.Fidelity.FLOW, List.of());
            List<CollectiveStudy.Spec> alone = List.of(spec(t, crossSuRing(0, 32), bytes));
            List<CollectiveStudy.Spec> all = new ArrayList<>();
            for (int rail = 0; rail < 8; rail++) {
                all.add(spec(t, crossSuRing(rail, 32), bytes));
            }
            long single = study.run(alone).durationsNs()[0];
            long together = study.run(all).durationsNs()[0];
            assertEquals(single, together, "ratio " + ratio + ": rail 0's ring alone and with the other 7 rails");
        }
        Topology one = SuperPodSpec.h100(2).build();
        Topology four = SuperPodSpec.h100(2).withOversubscription(4).build();
        long fast = new CollectiveStudy(one, Simulation.Fidelity.FLOW, List.of()).run(
                List.of(spec(one, crossSuRing(0, 32), bytes))).durationsNs()[0];
        long slow = new CollectiveStudy(four, Simulation.Fidelity.FLOW, List.of()).run(
                List.of(spec(four, crossSuRing(0, 32), bytes))).durationsNs()[0];
        assertEquals(4.0, (double) slow / fast, 4.0 * 0.02, "slowdown at 4:1 (" + slow + " vs " + fast + " ns)");
    }

    static CollectiveStudy.Spec spec(Topology t, CommGroup g, long bytes) {
        return new CollectiveStudy.Spec(CollectiveOp.ALL_REDUCE, g, bytes,
                Collectives.plan("ring", CollectiveOp.ALL_REDUCE, g, bytes, t));
    }

    /** Most flows of a plan's phase sharing one link, counted from the routes (the oracle for fault tests). */
    static int worstSharing(Topology t, Collectives.Choice c, org.clustersim.topology.LinkStates states) {
        Map<Link, Integer> load = new HashMap<>();
        for (var f : c.phases().get(0).flows()) {
            Route r = t.router().route(f.srcDevice(), f.dstDevice(), f.channel(), states);
            for (Link l : r.links()) {
                load.merge(l, 1, Integer::sum);
            }
        }
        return load.values().stream().max(Integer::compare).orElse(0);
    }

    @Test
    void failingALeafSpineLinkSlowsTheRingByTheSharingItCauses() {
        Topology t = SuperPodSpec.h100(2).build();
        CommGroup ring = crossSuRing(0, 32);
        long bytes = 1L << 30;
        Collectives.Choice plan = Collectives.plan("ring", CollectiveOp.ALL_REDUCE, ring, bytes, t);
        org.clustersim.topology.LinkStates healthy = org.clustersim.topology.LinkStates.healthy(t);
        int before = worstSharing(t, plan, healthy);
        // fail the uplink of the first flow that crosses a spine
        Link failed = t.route(ring.device(0), ring.device(1)).links().get(2);
        assertEquals(LinkKind.SWITCH_SWITCH, failed.kind());
        org.clustersim.topology.LinkStates broken = org.clustersim.topology.LinkStates.healthy(t);
        broken.setFactor(failed.id(), 0);
        int after = worstSharing(t, plan, broken);
        long base = time(t, "ring", CollectiveOp.ALL_REDUCE, ring, bytes);
        long faulty = new CollectiveStudy(t, Simulation.Fidelity.FLOW,
                List.of(new Simulation.LinkEvent(failed.id(), 0, 0, 0))).time("ring", CollectiveOp.ALL_REDUCE, ring, bytes);
        // the ring runs at the pace of its most shared link: time scales with the sharing factor
        assertEquals((double) after / before, (double) faulty / base, 0.02 * after / before,
                "sharing " + before + " -> " + after + ", time " + base + " -> " + faulty);
        assertTrue(faulty >= base);
    }

    @Test
    void failingEveryUplinkOfALeafFailsTheRunNamingTheCollective() {
        Topology t = SuperPodSpec.h100(2).build();
        CommGroup ring = crossSuRing(0, 32);
        List<Simulation.LinkEvent> cut = new ArrayList<>();
        Vertex leaf = t.vertices().stream().filter(v -> v.name().equals("su0.leaf0")).findFirst().orElseThrow();
        for (Link up : t.graph().outgoingEdgesOf(leaf)) {
            if (up.dst().kind() == VertexKind.SWITCH) {
                cut.add(new Simulation.LinkEvent(up.id(), 1_000, 0, 0));
            }
        }
        SimulationException e = assertThrows(SimulationException.class, () -> new CollectiveStudy(t,
                Simulation.Fidelity.FLOW, cut).time("ring", CollectiveOp.ALL_REDUCE, ring, 1L << 30));
        assertTrue(e.getMessage().contains("of 'allreduce ring #0' cannot be delivered"), e.getMessage());
        assertTrue(e.getMessage().contains("su0.leaf0->spine"), e.getMessage());
    }

    @Test
    void staticEcmpCollidesConcurrentRingsAndAdaptiveRoutingSpreadsThem() {
        // the data-parallel rings of a TP 8 x PP 16 layout on 2 SUs: 128 rings of 4 ranks over the spines
        Topology t = SuperPodSpec.h100(2).build();
        long bytes = 1L << 30;
        List<CollectiveStudy.Spec> rings = new ArrayList<>();
        for (int stage = 0; stage < 16; stage++) {
            for (int tp = 0; tp < 8; tp++) {
                int[] d = new int[4];
                for (int k = 0; k < 4; k++) {
                    d[k] = (stage + 16 * k) * 8 + tp;
                }
                rings.add(spec(t, new CommGroup(d), bytes));
            }
        }
        long alone = new CollectiveStudy(t, Simulation.Fidelity.FLOW, List.of()).run(rings.subList(0, 1))
                .durationsNs()[0];
        long ecmp = slowest(new CollectiveStudy(t, Simulation.Fidelity.FLOW, Simulation.Routing.ECMP, List.of())
                .run(rings));
        long adaptive = slowest(new CollectiveStudy(t, Simulation.Fidelity.FLOW, Simulation.Routing.ADAPTIVE,
                List.of()).run(rings));
        assertTrue(ecmp > 1.5 * alone, "hash collisions slow the slowest ring: " + ecmp + " vs " + alone);
        assertEquals(alone, adaptive, 0.01 * alone, "adaptive routing finds a collision-free placement");
    }

    private static long slowest(CollectiveStudy.Result r) {
        long max = 0;
        for (long d : r.durationsNs()) {
            max = Math.max(max, d);
        }
        return max;
    }

    @Test
    void aDegradedNvlinkSlowsTheRingByItsShare() {
        long bytes = 8L << 30;
        long base = time(DGX, "ring", CollectiveOp.ALL_REDUCE, EIGHT, bytes);
        Link gpu3up = DGX.route(3, 4).links().get(0);
        long degraded = new CollectiveStudy(DGX, Simulation.Fidelity.FLOW,
                List.of(new Simulation.LinkEvent(gpu3up.id(), 0, 0.5, 0))).time("ring", CollectiveOp.ALL_REDUCE, EIGHT,
                        bytes);
        // the ring is as fast as its slowest edge: half the capacity, twice the transfer time
        assertEquals(2.0, (double) degraded / base, 0.02);
    }
}
