package org.clustersim.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.TwoGpus;
import org.clustersim.core.engine.Work;
import org.junit.jupiter.api.Test;

class IdleBreakdownTest {
    private static final TaskTag P2P = TaskTag.of(TaskTag.Traffic.PIPELINE_SEND);
    private static final TaskTag REDUCE = TaskTag.of(TaskTag.Traffic.GRADIENT_REDUCE);

    /** Each GPU's compute stream and a communication stream named {@code comm}. */
    private record Streams(int c0, int c1, int s0, int s1) {
        static Streams of(TaskGraph.Builder b, String comm) {
            return new Streams(b.stream(0, "compute", StreamKind.COMPUTE), b.stream(1, "compute", StreamKind.COMPUTE),
                    b.stream(0, comm, StreamKind.COMMUNICATION), b.stream(1, comm, StreamKind.COMMUNICATION));
        }
    }

    /** Two GPUs on one switch at {@code gbps} GB/s per direction, 5 ns a hop. */
    private static Timeline run(TaskGraph g, double gbps) {
        return TwoGpus.run(g, TwoGpus.fabric(gbps));
    }

    /**
     * A two-stage pipeline of one microbatch: gpu0's forward (100 ns), its activations sent to
     * gpu1, gpu1's forward and backward (50 ns), the gradient sent back, gpu0's backward (80 ns).
     */
    private static TaskGraph pipeline() {
        TaskGraph.Builder b = TwoGpus.devices();
        Streams st = Streams.of(b, "pp");
        int c0 = st.c0();
        int c1 = st.c1();
        int s0 = st.s0();
        int s1 = st.s1();
        int f0 = b.compute("f0", TaskTag.of(TaskTag.Pass.FORWARD, 0, 0), c0, 100, 0);
        int x = b.communicate("x", P2P, new int[] {s0, s1}, Work.Communication.pointToPoint(0, 1, 1000), f0);
        int f1 = b.compute("f1", TaskTag.of(TaskTag.Pass.FORWARD, 0, 1), c1, 50, 0, x);
        int y = b.communicate("y", P2P, new int[] {s1, s0}, Work.Communication.pointToPoint(1, 0, 1000), f1);
        b.compute("b0", TaskTag.of(TaskTag.Pass.BACKWARD, 0, 0), c0, 80, 0, y);
        return b.build();
    }

    private static long transfers(Timeline t) {
        long sum = 0;
        for (int id = 0; id < t.graph().taskCount(); id++) {
            if (!t.graph().isCompute(id)) {
                sum += t.end(id) - t.start(id);
            }
        }
        return sum;
    }

    private static void assertAddsUp(IdleBreakdown b) {
        assertEquals(b.idleNs(), b.pipelineBubbleNs() + b.exposedCommNs() + b.otherWaitNs(), b.toString());
        assertEquals(b.exposedCommNs(), b.exposedByKind().values().stream().mapToLong(Long::longValue).sum(),
                b.toString());
    }

    @Test
    void waitingOnTheOtherStageIsBubbleAndTheTransfersAreExposed() {
        Timeline t = run(pipeline(), 100);
        List<IdleBreakdown> split = IdleBreakdown.of(t, d -> d);
        long transfers = transfers(t);
        IdleBreakdown first = split.get(0);
        IdleBreakdown last = split.get(1);
        split.forEach(IdleBreakdownTest::assertAddsUp);
        // gpu0 waits for the activations to leave, gpu1's 50 ns and the gradient to come back
        assertEquals(50, first.pipelineBubbleNs());
        assertEquals(transfers, first.exposedCommNs());
        assertEquals(Map.of("pp-p2p", transfers), first.exposedByKind());
        assertEquals(0, first.otherWaitNs());
        // gpu1 waits for gpu0's forward (fill) and, after its own work, for gpu0's backward (drain)
        assertEquals(100 + 80, last.pipelineBubbleNs());
        assertEquals(transfers, last.exposedCommNs());
        assertEquals(0, last.otherWaitNs());
        assertEquals(t.makespan() - 50, last.idleNs());
    }

    @Test
    void withOneStageNothingIsBubble() {
        Timeline t = run(pipeline(), 100);
        for (IdleBreakdown b : IdleBreakdown.of(t, d -> 0)) {
            assertAddsUp(b);
            assertEquals(0, b.pipelineBubbleNs(), b.toString());
        }
        assertEquals(100 + 80, IdleBreakdown.of(t, d -> 0).get(1).otherWaitNs(),
                "waiting for a device of its own stage is another wait");
    }

    @Test
    void slowerTransfersAreExposedCommunicationNotBubble() {
        Timeline fast = run(pipeline(), 100);
        Timeline slow = run(pipeline(), 1);
        for (int d = 0; d < 2; d++) {
            IdleBreakdown f = IdleBreakdown.of(fast, x -> x).get(d);
            IdleBreakdown s = IdleBreakdown.of(slow, x -> x).get(d);
            assertAddsUp(s);
            assertEquals(f.pipelineBubbleNs(), s.pipelineBubbleNs(), "device " + d);
            assertEquals(s.idleNs() - f.idleNs(), s.exposedCommNs() - f.exposedCommNs(), "device " + d);
            assertEquals(transfers(slow), s.exposedCommNs(), "device " + d);
        }
    }

    @Test
    void waitingInACollectiveForASlowerPeerIsAnotherWait() {
        TaskGraph.Builder b = TwoGpus.devices();
        Streams st = Streams.of(b, "dp");
        int c0 = st.c0();
        int c1 = st.c1();
        int s0 = st.s0();
        int s1 = st.s1();
        int a0 = b.compute("a0", TaskTag.of(TaskTag.Pass.BACKWARD, 0, 0), c0, 100, 0);
        int a1 = b.compute("a1", TaskTag.of(TaskTag.Pass.BACKWARD, 0, 0), c1, 300, 0);
        Work.Communication both = Work.Communication.concurrent(List.of(
                Work.Communication.pointToPoint(0, 1, 4000), Work.Communication.pointToPoint(1, 0, 4000)));
        int ar = b.communicate("reduce", REDUCE, new int[] {s0, s1}, both, a0, a1);
        b.compute("adam0", TaskTag.of(TaskTag.Pass.OPTIMIZER, -1, -1), c0, 10, 0, ar);
        b.compute("adam1", TaskTag.of(TaskTag.Pass.OPTIMIZER, -1, -1), c1, 10, 0, ar);
        Timeline t = run(b.build(), 100);
        List<IdleBreakdown> split = IdleBreakdown.of(t, d -> 0);
        long reduce = t.end(ar) - t.start(ar);
        split.forEach(IdleBreakdownTest::assertAddsUp);
        assertEquals(200, split.get(0).otherWaitNs(), "gpu0 waits for its slower peer");
        assertEquals(reduce, split.get(0).exposedCommNs());
        assertEquals(Map.of("dp-comm", reduce), split.get(0).exposedByKind());
        assertEquals(0, split.get(1).otherWaitNs());
        assertEquals(reduce, split.get(1).exposedCommNs());
    }
    /**
     * Two predecessors of a group task end together: each device charges the one on itself. gpu0's
     * is a transfer (exposed), gpu1's a task of its own (another wait); the lower task id is gpu1's,
     * so a tie broken by id alone, or one device's answer reused for the other, fails.
     */
    @Test
    void aTieIsBrokenForEachDeviceByTheTaskOnIt() {
        TaskGraph.Builder b = TwoGpus.devices();
        Streams st = Streams.of(b, "side");
        int c0 = st.c0();
        int c1 = st.c1();
        int s0 = st.s0();
        int s1 = st.s1();
        int x0 = b.compute("x0", TaskTag.of(TaskTag.Pass.FORWARD, 0, 0), c0, 100, 0);
        int x1 = b.compute("x1", TaskTag.of(TaskTag.Pass.FORWARD, 0, 0), c1, 100, 0);
        int own1 = b.compute("own1", TaskTag.of(TaskTag.Pass.FORWARD, 0, 0), s1, 200, 0, x1);
        int send0 = b.compute("send0", P2P, s0, 200, 0, x0);
        int group = b.computeOn("group", TaskTag.of(TaskTag.Pass.FORWARD, 1, 0), new int[] {c0, c1}, 50, 0);
        b.addDependency(group, own1);
        b.addDependency(group, send0);
        Timeline t = run(b.build(), 100);
        assertEquals(t.end(own1), t.end(send0), "the two predecessors end together");
        assertEquals(t.end(send0), t.start(group));
        List<IdleBreakdown> split = IdleBreakdown.of(t, d -> 0);
        split.forEach(IdleBreakdownTest::assertAddsUp);
        assertEquals(200, split.get(0).exposedCommNs(), split.get(0).toString());
        assertEquals(0, split.get(0).otherWaitNs(), split.get(0).toString());
        assertEquals(200, split.get(1).otherWaitNs(), split.get(1).toString());
        assertEquals(0, split.get(1).exposedCommNs(), split.get(1).toString());
    }
}
