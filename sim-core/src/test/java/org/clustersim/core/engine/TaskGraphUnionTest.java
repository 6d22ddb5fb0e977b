package org.clustersim.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.Simulation;
import org.clustersim.topology.AcceleratorSpec;
import org.clustersim.topology.FatTreeSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/** Several jobs' graphs joined on one cluster: {@link TaskGraph#union} and {@link Timeline#part}. */
class TaskGraphUnionTest {
    /**
     * Six single-GPU servers under two leaves of a fat tree of 4-port switches at 3:1: each leaf
     * has three GPUs below and one uplink to the one spine, every port 50 GB/s.
     */
    private static final Topology TREE = new FatTreeSpec("two-leaves", AcceleratorSpec.H100_SXM, 6, 1, 450e9, 50e9, 4,
            new double[] {3}).build();

    /** A job of two GPUs: compute 1 us on the sender, then one transfer of {@code bytes}, then compute on the receiver. */
    private static TaskGraph job(long bytes) {
        TaskGraph.Builder b = TaskGraph.builder();
        b.device("a", 0);
        b.device("b", 1);
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int c1 = b.stream(1, "compute", StreamKind.COMPUTE);
        int send = b.stream(0, "send", StreamKind.COMMUNICATION);
        int recv = b.stream(1, "recv", StreamKind.COMMUNICATION);
        int f = b.compute("f", "forward", c0, 1_000, 1e9);
        int x = b.communicate("x", "pp-p2p", new int[] {send, recv}, Work.Communication.pointToPoint(0, 1, bytes), f);
        b.compute("g", "forward", c1, 2_000, 1e9, x);
        return b.build();
    }

    private static List<DeviceInfo> devices() {
        List<DeviceInfo> out = new ArrayList<>();
        for (int d = 0; d < TREE.deviceCount(); d++) {
            out.add(new DeviceInfo(d, TREE.device(d).name(), TREE.device(d).node()));
        }
        return out;
    }

    private static Timeline run(TaskGraph g) {
        return Simulation.run(g, TREE, org.clustersim.core.RunOptions.DEFAULT).timeline();
    }

    private static Timeline alone(TaskGraph job, int[] placed) {
        TaskGraph one = TaskGraph.union(devices(), List.of(job), List.of(placed));
        return run(one).part(job, 0);
    }

    @Test
    void jobsUnderDifferentLeavesRunAsFastAsAlone() {
        TaskGraph a = job(50_000_000);
        TaskGraph b = job(80_000_000);
        int[] left = {0, 1};
        int[] right = {3, 4};
        TaskGraph both = TaskGraph.union(devices(), List.of(a, b), List.of(left, right));
        Timeline together = run(both);
        Timeline ta = together.part(a, 0);
        Timeline tb = together.part(b, a.taskCount());
        Timeline aAlone = alone(a, left);
        Timeline bAlone = alone(b, right);
        for (int t = 0; t < a.taskCount(); t++) {
            assertEquals(aAlone.start(t), ta.start(t));
            assertEquals(aAlone.end(t), ta.end(t));
            assertEquals(bAlone.end(t), tb.end(t));
        }
        // the transfer's flow really moved: 50 MB at 50 GB/s is at least 1 ms
        assertEquals(true, ta.end(1) - ta.start(1) >= 1_000_000);
        assertEquals(2, ta.graph().devices().size());
        assertEquals(TREE.device(3).name(), both.devices().get(tb.graph().streams().get(0).device() + 3).name());
    }

    @Test
    void twoJobsThroughOneUplinkShareItMaxMinFairly() {
        long x = 100_000_000;
        TaskGraph a = job(x);
        TaskGraph b = job(2 * x);
        int[] pa = {0, 3};
        int[] pb = {1, 4};
        Timeline together = run(TaskGraph.union(devices(), List.of(a, b), List.of(pa, pb)));
        Timeline ta = together.part(a, 0);
        Timeline tb = together.part(b, a.taskCount());
        Timeline aAlone = alone(a, pa);
        Timeline bAlone = alone(b, pb);
        // both cross leaf0's one 50 GB/s uplink: alone each has it all; together each gets 25 GB/s
        // until a's x bytes are through (2x / 50 GB/s), then b has it all for its last x
        long xAt50 = Math.round(x / 50e9 * 1e9);
        long latency = aAlone.end(1) - aAlone.start(1) - xAt50;
        assertEquals(true, latency > 0 && latency < 20_000, "alone, x bytes at 50 GB/s plus the route's latency: " + latency);
        assertEquals(aAlone.end(1) + xAt50, ta.end(1), 2, "a at half the uplink takes twice as long");
        assertEquals(bAlone.end(1) + xAt50, tb.end(1), 2, "b: x at half rate, then x at full rate");
        assertEquals(bAlone.makespan() + xAt50, tb.makespan(), 2);
    }

    @Test
    void partsMayNotShareADevice() {
        TaskGraph a = job(1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TaskGraph.union(devices(), List.of(a, a), List.of(new int[] {0, 1}, new int[] {1, 2})));
        assertEquals(true, e.getMessage().contains("another device already takes"), e.getMessage());
    }
}
