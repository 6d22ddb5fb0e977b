package org.clustersim.core.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.clustersim.core.kernel.DsolKernel;
import org.clustersim.core.kernel.SimulationException;
import org.junit.jupiter.api.Test;

class EngineTest {
    /** Two GPUs on one NVSwitch: 100 GB/s per direction, 5 ns per hop (10 ns GPU to GPU). */
    private static Timeline run(TaskGraph g) {
        return TwoGpus.run(g, TwoGpus.FABRIC);
    }

    @Test
    void aTaskListingAStreamTwiceIsRefusedAndTheNextTaskIsNot() {
        TaskGraph.Builder b = TwoGpus.devices();
        int[] comm = new int[40];
        for (int d = 0; d < 2; d++) {
            for (int k = 0; k < 20; k++) {
                comm[d * 20 + k] = b.stream(d, "comm" + k, StreamKind.COMMUNICATION);
            }
        }
        Work.Communication work = new Work.Communication(java.util.List.of(
                new Phase(java.util.List.of(new Flow(0, 1, 1000)))));
        int[] twice = java.util.Arrays.copyOf(comm, 41);
        twice[40] = comm[7];
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> b.communicate("x", "dp", twice, work));
        assertTrue(e.getMessage().contains("occupies stream " + comm[7] + " twice"), e.getMessage());
        // the refused call leaves nothing behind: the same streams once each are accepted
        assertEquals(0, b.communicate("y", "dp", comm, work));
        assertThrows(IllegalArgumentException.class, () -> b.communicate("z", "dp", new int[] {comm[3], comm[3]}, work));
    }

    @Test
    void streamOrderSerialisesTasksAndDependenciesCrossStreams() {
        TaskGraph.Builder b = TwoGpus.devices();
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int c1 = b.stream(1, "compute", StreamKind.COMPUTE);
        int a = b.compute("a", "x", c0, 100, 0);
        int a2 = b.compute("a2", "x", c0, 50, 0);
        int bb = b.compute("b", "x", c1, 30, 0, a);
        Timeline t = run(b.build());
        assertEquals(0, t.start(a));
        assertEquals(100, t.start(a2), "second task of a stream waits for the first");
        assertEquals(100, t.start(bb), "dependency on another device's task");
        assertEquals(150, t.makespan());
        assertEquals(150, t.computeBusy(0));
        assertEquals(30, t.computeBusy(1));
        assertEquals(120, t.computeIdle(1));
    }

    @Test
    void transferTakesLatencyPlusBytesOverBandwidthAndMeetsBothStreams() {
        TaskGraph.Builder b = TwoGpus.devices();
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int send = b.stream(0, "send", StreamKind.COMMUNICATION);
        int recv = b.stream(1, "recv", StreamKind.COMMUNICATION);
        int c1 = b.stream(1, "compute", StreamKind.COMPUTE);
        int blocker = b.communicate("earlier", "p2p", new int[] {recv, send},
                Work.Communication.pointToPoint(1, 0, 0));
        int f = b.compute("f", "x", c0, 40, 0);
        int x = b.communicate("x", "p2p", new int[] {send, recv}, Work.Communication.pointToPoint(0, 1, 1000), f);
        int g = b.compute("g", "x", c1, 1, 0, x);
        Timeline t = run(b.build());
        assertEquals(0, t.start(blocker));
        assertEquals(10, t.end(blocker), "zero bytes: route latency only");
        assertEquals(40, t.start(x));
        // 2 hops x 5 ns + 1000 B / 100 GB/s = 10 ns + 10 ns
        assertEquals(60, t.end(x));
        assertEquals(60, t.start(g));
        assertEquals(61, t.makespan());
        // the send shows on both links of its route as 100 GB/s while it serialises (40..50 ns)
        Counters c = t.counters();
        assertEquals(2, c.trackCount(), "the zero-byte send draws nothing");
        Counters.Series up = c.allSeries().get(0);
        assertEquals("link gpu0->nvswitch", c.name(up.track()).replace("node0.", ""));
        assertArrayEquals(new long[] {40, 50}, up.timesNs());
        assertArrayEquals(new double[] {100, 0}, up.values());
    }

    @Test
    void multiPhaseCommunicationRunsPhasesInSequence() {
        TaskGraph.Builder b = TwoGpus.devices();
        int s0 = b.stream(0, "comm", StreamKind.COMMUNICATION);
        int s1 = b.stream(1, "comm", StreamKind.COMMUNICATION);
        Work.Communication twoPhases = new Work.Communication(java.util.List.of(
                new Phase(java.util.List.of(new Flow(0, 1, 1000), new Flow(1, 0, 3000))),
                new Phase(java.util.List.of(new Flow(0, 1, 500)))));
        int x = b.communicate("x", "coll", new int[] {s0, s1}, twoPhases);
        Timeline t = run(b.build());
        // phase 1 ends with its slowest flow: 10 + 30; phase 2: 10 + 5
        assertEquals(40 + 15, t.end(x));
        assertEquals(3 + 2, t.events(), "one event per flow drained and one per phase completed");
    }

    @Test
    void deadlockIsReportedWithTheBlockedHeads() {
        TaskGraph.Builder b = TwoGpus.devices();
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int c1 = b.stream(1, "compute", StreamKind.COMPUTE);
        int a0 = b.compute("a0", "x", c0, 10, 0);
        int b0 = b.compute("b0", "x", c0, 10, 0);
        int a1 = b.compute("a1", "x", c1, 10, 0);
        b.addDependency(a0, a1);
        b.addDependency(a1, b0); // a1 waits for b0, which queues behind a0, which waits for a1
        DeadlockException e = assertThrows(DeadlockException.class, () -> run(b.build()));
        assertEquals(2, e.blocked().size());
        assertTrue(e.blocked().get(0).contains("gpu0/compute: head task 'a0' waits for task 'a1'"),
                e.blocked().get(0));
        assertTrue(e.blocked().get(1).contains("gpu1/compute: head task 'a1' waits for task 'b0'"),
                e.blocked().get(1));
        assertTrue(e.getMessage().contains("3 of 3 tasks never ran"), e.getMessage());
    }

    @Test
    void rendezvousDeadlockNamesTheOtherStream() {
        TaskGraph.Builder b = TwoGpus.devices();
        int s0 = b.stream(0, "send", StreamKind.COMMUNICATION);
        int s1 = b.stream(1, "recv", StreamKind.COMMUNICATION);
        int s2 = b.stream(1, "other", StreamKind.COMMUNICATION);
        int c1 = b.stream(1, "compute", StreamKind.COMPUTE);
        b.compute("late", "x", c1, 5, 0);
        // The receiver posts w before x, but w can only start once x is done.
        int w = b.communicate("w", "p2p", new int[] {s1, s2}, Work.Communication.pointToPoint(1, 1, 0));
        int x = b.communicate("x", "p2p", new int[] {s0, s1}, Work.Communication.pointToPoint(0, 1, 0));
        b.addDependency(w, x);
        DeadlockException e = assertThrows(DeadlockException.class, () -> run(b.build()));
        assertTrue(e.getMessage().contains(
                "gpu0/send: head task 'x' waits for stream gpu1/recv to reach it (its head is 'w')"), e.getMessage());
        assertTrue(e.getMessage().contains("gpu1/recv: head task 'w' waits for task 'x'"), e.getMessage());
        assertEquals(5, e.timeNs(), "detected when the last event ran, after 'late'");
    }

    @Test
    void failureInsideATaskNamesTheTaskAndTime() {
        TaskGraph.Builder b = TwoGpus.devices();
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int s0 = b.stream(0, "comm", StreamKind.COMMUNICATION);
        int s1 = b.stream(1, "comm", StreamKind.COMMUNICATION);
        int f = b.compute("f", "x", c0, 77, 0);
        b.communicate("bad send", "p2p", new int[] {s0, s1}, Work.Communication.pointToPoint(0, 1, 8), f);
        TaskGraph g = b.build();
        DsolKernel k = new DsolKernel();
        Network broken = (owner, phase, done) -> {
            throw new IllegalStateException("link is down");
        };
        SimulationException e = assertThrows(SimulationException.class, () -> new Engine(g, k, broken, new Counters()).run());
        assertEquals(77, e.timeNs());
        assertTrue(e.getMessage().contains("'bad send'"), e.getMessage());
        assertInstanceOf(IllegalStateException.class, e.getCause());
    }

    @Test
    void builderRejectsBadReferences() {
        TaskGraph.Builder b = TwoGpus.devices();
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        assertThrows(IllegalArgumentException.class, () -> b.stream(5, "compute", StreamKind.COMPUTE));
        assertThrows(IllegalArgumentException.class, () -> b.stream(0, "compute", StreamKind.COMMUNICATION));
        int a = b.compute("a", "x", c0, 1, 0);
        b.addDependency(a, 42);
        assertThrows(IllegalArgumentException.class, b::build);
    }
}
