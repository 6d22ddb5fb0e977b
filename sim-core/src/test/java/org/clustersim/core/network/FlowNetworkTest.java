package org.clustersim.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.Work;
import org.clustersim.core.kernel.SimulationException;
import org.clustersim.topology.AcceleratorSpec;
import org.clustersim.topology.Link;
import org.clustersim.topology.LinkKind;
import org.clustersim.topology.SuperPodSpec;
import org.clustersim.topology.Topology;
import org.clustersim.topology.Vertex;
import org.clustersim.topology.VertexKind;
import org.junit.jupiter.api.Test;

class FlowNetworkTest {

    /**
     * Four GPUs on one switch; up-links (GPU to switch) and down-links (switch to GPU) in GB/s.
     * No latency, so times are pure serialisation.
     */
    static Topology star(double[] upGBps, double[] downGBps) {
        Topology.Builder b = Topology.builder("star", AcceleratorSpec.H100_SXM);
        List<Vertex> gpus = new ArrayList<>();
        for (int i = 0; i < upGBps.length; i++) {
            gpus.add(b.addVertex("gpu" + i, VertexKind.ACCELERATOR, 0));
        }
        Vertex sw = b.addVertex("sw", VertexKind.NVSWITCH, 0);
        for (int i = 0; i < gpus.size(); i++) {
            b.addLink(gpus.get(i), sw, LinkKind.NVLINK, upGBps[i] * 1e9, 0);
            b.addLink(sw, gpus.get(i), LinkKind.NVLINK, downGBps[i] * 1e9, 0);
            b.scaleUp(gpus.get(i), sw);
        }
        return b.build();
    }

    /** One communication task per flow, all starting at t = 0, each on its own streams. */
    static Timeline flows(Topology t, Simulation.Fidelity fidelity, List<Simulation.LinkEvent> events, Flow... fs) {
        TaskGraph.Builder g = TaskGraph.builder();
        for (int d = 0; d < t.deviceCount(); d++) {
            g.device(t.device(d).name(), 0);
        }
        for (int i = 0; i < fs.length; i++) {
            Flow f = fs[i];
            int s = g.stream(f.srcDevice(), "send" + i, StreamKind.COMMUNICATION);
            int r = g.stream(f.dstDevice(), "recv" + i, StreamKind.COMMUNICATION);
            g.communicate("flow" + i, "test", new int[] {s, r},
                    new Work.Communication(List.of(new Phase(List.of(f)))));
        }
        return Simulation.run(g.build(), t, RunOptions.DEFAULT.withFidelity(fidelity).withLinkEvents(events)).timeline();
    }

    @Test
    void twoFlowsOnOneLinkEachGetHalf() {
        Topology t = star(new double[] {100, 100, 100, 100}, new double[] {100, 100, 100, 100});
        // both leave gpu0: 1e6 bytes at 50 GB/s each = 20 us
        Timeline tl = flows(t, Simulation.Fidelity.FLOW, List.of(), new Flow(0, 1, 1_000_000),
                new Flow(0, 2, 1_000_000));
        assertEquals(20_000, tl.end(0));
        assertEquals(20_000, tl.end(1));
        Timeline alone = flows(t, Simulation.Fidelity.ANALYTICAL, List.of(), new Flow(0, 1, 1_000_000),
                new Flow(0, 2, 1_000_000));
        assertEquals(10_000, alone.end(0), "analytical fidelity ignores sharing");
    }

    @Test
    void oppositeDirectionsDoNotInterfere() {
        Topology t = star(new double[] {100, 100, 100, 100}, new double[] {100, 100, 100, 100});
        Timeline tl = flows(t, Simulation.Fidelity.FLOW, List.of(), new Flow(0, 1, 1_000_000),
                new Flow(1, 0, 1_000_000));
        assertEquals(10_000, tl.end(0));
        assertEquals(10_000, tl.end(1));
    }

    @Test
    void maxMinFairnessGivesTheUnsharedCapacityToTheOtherFlow() {
        // A: gpu0->gpu1, B: gpu0->gpu2, C: gpu3->gpu2. Up-link of gpu0 is 10 GB/s, down-link of gpu2 4 GB/s.
        // Max-min: B and C split gpu2's 4 GB/s (2 each); A takes the 8 GB/s B leaves on gpu0's up-link.
        Topology t = star(new double[] {10, 100, 100, 100}, new double[] {100, 100, 4, 100});
        Timeline tl = flows(t, Simulation.Fidelity.FLOW, List.of(), new Flow(0, 1, 8_000_000),
                new Flow(0, 2, 2_000_000), new Flow(3, 2, 2_000_000));
        assertEquals(1_000_000, tl.end(0), "A: 8 MB at 8 GB/s");
        assertEquals(1_000_000, tl.end(1), "B: 2 MB at 2 GB/s");
        assertEquals(1_000_000, tl.end(2), "C: 2 MB at 2 GB/s");
    }

    @Test
    void aFinishingFlowHandsItsShareToTheOthers() {
        Topology t = star(new double[] {100, 100, 100, 100}, new double[] {100, 100, 100, 100});
        // share 50/50 until the short flow ends at 10 us (0.5 MB), then the long one runs at 100 GB/s
        Timeline tl = flows(t, Simulation.Fidelity.FLOW, List.of(), new Flow(0, 1, 2_000_000),
                new Flow(0, 2, 500_000));
        assertEquals(10_000, tl.end(1));
        assertEquals(10_000 + 15_000, tl.end(0));
    }

    @Test
    void degradingALinkMidFlightSlowsTheRestOfTheTransfer() {
        Topology t = SuperPodSpec.h100(2).build();
        Flow f = new Flow(0, 8 * 32, 1_000_000_000L);
        Timeline healthy = flows(t, Simulation.Fidelity.FLOW, List.of(), f);
        long lat = t.route(0, 8 * 32).latencyNs();
        assertEquals(20_000_000 + lat, healthy.end(0), "1 GB at 50 GB/s plus 3.7 us");
        Link uplink = t.route(0, 8 * 32).links().get(2);
        Timeline degraded = flows(t, Simulation.Fidelity.FLOW,
                List.of(new Simulation.LinkEvent(uplink.id(), 10_000_000, 0.5, 0)), f);
        // half the bytes at full rate (10 ms), the other half at 25 GB/s (20 ms)
        assertEquals(30_000_000 + lat, degraded.end(0));
        Timeline failed = flows(t, Simulation.Fidelity.FLOW,
                List.of(new Simulation.LinkEvent(uplink.id(), 10_000_000, 0, 0)), f);
        assertEquals(20_000_000 + lat, failed.end(0), "rerouted over another spine at full rate");
    }

    @Test
    void cuttingTheOnlyPathFailsWithTheFlowAndTaskNamed() {
        Topology t = SuperPodSpec.h100(2).build();
        Link nicUp = t.route(0, 8 * 32).links().get(1);
        Flow f = new Flow(0, 8 * 32, 1_000_000_000L);
        SimulationException e = assertThrows(SimulationException.class, () -> flows(t, Simulation.Fidelity.FLOW,
                List.of(new Simulation.LinkEvent(nicUp.id(), 5_000_000, 0, 0)), f));
        assertTrue(e.getMessage().contains("node0.gpu0 -> node32.gpu0 of 'flow0' cannot be delivered"),
                e.getMessage());
        assertTrue(e.getMessage().contains("failed links: node0.nic0->su0.leaf0"), e.getMessage());
    }

    @Test
    void linkUsageRecordsBytesAndBusyTime() {
        Topology t = star(new double[] {100, 100, 100, 100}, new double[] {100, 100, 100, 100});
        TaskGraph.Builder g = TaskGraph.builder();
        for (int d = 0; d < 4; d++) {
            g.device("gpu" + d, 0);
        }
        int s = g.stream(0, "send", StreamKind.COMMUNICATION);
        int r = g.stream(1, "recv", StreamKind.COMMUNICATION);
        g.communicate("x", "test", new int[] {s, r}, Work.Communication.pointToPoint(0, 1, 1_000_000));
        Simulation.Result res = Simulation.run(g.build(), t, RunOptions.DEFAULT);
        Link up = t.route(0, 1).links().get(0);
        assertEquals(1_000_000, res.links().bytes(up.id()));
        assertEquals(10_000, res.links().busyNs(up.id()));
        assertEquals(0, res.links().bytes(t.route(2, 3).links().get(0).id()));
    }

    /**
     * No link carries more than its capacity for as long as it is busy, and a link busy from
     * the first flow's start to the last flow's end without a gap is busy for exactly that long:
     * here 24 GPUs on 1.8 TB/s NVLink ports exchange uneven amounts all at once, two rounds one
     * after the other, so that each down-link's rate is added and taken away dozens of times
     * (what is left of that rounding must not keep a link busy for good and its busy time
     * uncounted).
     */
    @Test
    void aLinkIsNeverBusyForLessThanItsBytesNeedAtCapacity() {
        int gpus = 24;
        double[] ports = new double[gpus];
        java.util.Arrays.fill(ports, 1800);
        Topology t = star(ports, ports);
        TaskGraph.Builder g = TaskGraph.builder();
        for (int d = 0; d < gpus; d++) {
            g.device("gpu" + d, 0);
        }
        java.util.Random r = new java.util.Random(24);
        for (int round = 0; round < 2; round++) {
            for (int src = 0; src < gpus; src++) {
                for (int dst = 0; dst < gpus; dst++) {
                    if (src != dst) {
                        int s = g.stream(src, "send" + round + "-" + dst, StreamKind.COMMUNICATION);
                        int q = g.stream(dst, "recv" + round + "-" + src, StreamKind.COMMUNICATION);
                        g.communicate("f" + src + "-" + dst, "test", new int[] {s, q},
                                Work.Communication.pointToPoint(src, dst, 1_000_000 + r.nextInt(9_000_000)));
                    }
                }
            }
        }
        Simulation.Result res = Simulation.run(g.build(), t, RunOptions.DEFAULT);
        long last = 0;
        for (int task = 0; task < res.timeline().graph().taskCount(); task++) {
            last = Math.max(last, res.timeline().end(task));
        }
        int checked = 0;
        for (Link l : t.links()) {
            long bytes = res.links().bytes(l.id());
            long busy = res.links().busyNs(l.id());
            assertTrue(bytes > 0, l.name());
            assertTrue(bytes <= l.bandwidthBytesPerS() * 1e-9 * busy * (1 + 1e-9) + 1,
                    l.name() + ": " + bytes + " bytes in " + busy + " ns busy");
            // every link carries flows from 0 until its last one ends (latency aside), with no gap
            assertTrue(busy <= last && busy > last / 4, l.name() + " busy " + busy + " of " + last);
            checked++;
        }
        assertEquals(2 * gpus, checked);
    }

    /**
     * One graph (so the same phase objects) run on two fabrics whose links are numbered
     * differently: the second run must route on its own fabric, not take the routes the first
     * left in the phase's slot ({@link Phase#networkState}).
     */
    @Test
    void aPhaseRunBeforeOnAnotherFabricIsRoutedAfresh() {
        Topology first = star(new double[] {100, 100, 100, 100}, new double[] {100, 100, 100, 100});
        // the same four GPUs, down-links numbered first; the links the first fabric's route of
        // 0 -> 1 would name here (ids 0 and 3: down-links 0 and 3) are ten times slower
        Topology.Builder b = Topology.builder("star-down-first", AcceleratorSpec.H100_SXM);
        List<Vertex> gpus = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            gpus.add(b.addVertex("gpu" + i, VertexKind.ACCELERATOR, 0));
        }
        Vertex sw = b.addVertex("sw", VertexKind.NVSWITCH, 0);
        double[] downGBps = {10, 100, 100, 10};
        for (int i = 0; i < 4; i++) {
            b.addLink(sw, gpus.get(i), LinkKind.NVLINK, downGBps[i] * 1e9, 0);
        }
        for (int i = 0; i < 4; i++) {
            b.addLink(gpus.get(i), sw, LinkKind.NVLINK, 100e9, 0);
            b.scaleUp(gpus.get(i), sw);
        }
        Topology second = b.build();
        TaskGraph graph = pointToPoint(0, 1, 1_000_000);
        Simulation.run(graph, first, RunOptions.DEFAULT);
        Simulation.Result after = Simulation.run(graph, second, RunOptions.DEFAULT);
        Simulation.Result alone = Simulation.run(pointToPoint(0, 1, 1_000_000), second, RunOptions.DEFAULT);
        assertEquals(10_000, alone.timeline().end(0), "1 MB at 100 GB/s");
        assertEquals(alone.timeline().end(0), after.timeline().end(0));
        Link down = second.route(0, 1).links().get(1);
        assertEquals(1_000_000, after.links().bytes(down.id()));
    }

    private static TaskGraph pointToPoint(int src, int dst, long bytes) {
        TaskGraph.Builder g = TaskGraph.builder();
        for (int d = 0; d < 4; d++) {
            g.device("gpu" + d, 0);
        }
        int s = g.stream(src, "send", StreamKind.COMMUNICATION);
        int r = g.stream(dst, "recv", StreamKind.COMMUNICATION);
        g.communicate("x", "test", new int[] {s, r}, Work.Communication.pointToPoint(src, dst, bytes));
        return g.build();
    }
}
