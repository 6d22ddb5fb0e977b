package org.clustersim.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.clustersim.core.kernel.DsolKernel;
import org.clustersim.core.network.FlowNetwork;
import org.clustersim.topology.LinkStates;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/**
 * Compute beside communication: expectations worked by hand from the rule "a kernel runs at its
 * speed times (1 - the summed share of the communication in flight on its GPU)".
 */
class InterferenceTest {
    /** Two GPUs on one NVSwitch: 100 GB/s per direction, 10 ns GPU to GPU. */
    private static final Topology TWO_GPUS = TwoGpus.FABRIC;
    /** 40 kB at 100 GB/s: 400 ns on the wire plus 10 ns of route latency. */
    private static final long BYTES_410_NS = 40_000;

    private static Timeline run(TaskGraph g, DeviceSpeeds speeds, Interference interference) {
        DsolKernel k = new DsolKernel();
        Counters counters = new Counters();
        return new Engine(g, k, new FlowNetwork(TWO_GPUS, k, LinkStates.healthy(TWO_GPUS), counters), counters,
                speeds, interference).run();
    }

    /** Runs {@code g} on two GPUs under one NVSwitch (other engine tests share it). */
    static Timeline run(TaskGraph g, Interference interference) {
        return run(g, new DeviceSpeeds(g.devices().size()), interference);
    }


    /** Shares by task name prefix: "nccl" kernels take the given share, anything else none. */
    private static Interference ncclTakes(double share) {
        return t -> t.name().startsWith("nccl") ? share : 0;
    }

    @Test
    void computeBesideCommunicationStretchesByTheTimeItSharedTheGpu() {
        TaskGraph.Builder b = TwoGpus.devices();
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int s0 = b.stream(0, "comm", StreamKind.COMMUNICATION);
        int s1 = b.stream(1, "comm", StreamKind.COMMUNICATION);
        int gemm = b.compute("gemm", "x", c0, 1000, 0);
        b.communicate("nccl ag", "dp-comm", new int[] {s0, s1}, Work.Communication.pointToPoint(0, 1, BYTES_410_NS));
        Timeline t = run(b.build(), ncclTakes(0.25));
        // 0..410 at 0.75 does 307.5 ns of work, 692.5 left at full speed: ends at 1102.5, rounded up
        assertEquals(1103, t.end(gemm));
        assertEquals(410 * 0.25, t.interferenceNs(gemm), 1e-9);
        assertTrue(t.interferenceModelled());

        Timeline free = run(b.build(), Interference.NONE);
        assertEquals(1000, free.end(gemm), "without interference overlap is free");
        assertEquals(0, free.interferenceNs(gemm));
        assertFalse(free.interferenceModelled());
    }

    @Test
    void concurrentCommunicationSharesAddUpAndOnlyTheirGpusSlow() {
        TaskGraph.Builder b = TwoGpus.devices();
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int c1 = b.stream(1, "compute", StreamKind.COMPUTE);
        int a = b.stream(0, "comm a", StreamKind.COMMUNICATION);
        int bb = b.stream(0, "comm b", StreamKind.COMMUNICATION);
        int onGpu0 = b.compute("gemm0", "x", c0, 1000, 0);
        int onGpu1 = b.compute("gemm1", "x", c1, 1000, 0);
        // two kernels of gpu0 alone (a one-stream task: gpu0's side of a transfer), 0.2 + 0.3 of its compute
        b.communicate("nccl 1", "dp-comm", new int[] {a}, Work.Communication.pointToPoint(0, 1, BYTES_410_NS));
        b.communicate("nccl 2", "tp-comm", new int[] {bb}, Work.Communication.pointToPoint(0, 1, 0));
        Timeline t = run(b.build(), task -> task.name().equals("nccl 1") ? 0.2 : task.name().equals("nccl 2") ? 0.3 : 0);
        // 0..10 at 0.5 (5 ns of work), 10..410 at 0.8 (320 ns), 675 left at full speed: 1085
        assertEquals(1085, t.end(onGpu0));
        assertEquals(10 * 0.5 + 400 * 0.2, t.interferenceNs(onGpu0), 1e-9);
        assertEquals(1000, t.end(onGpu1), "the communication has no stream on gpu1: its compute runs alone");
    }

    @Test
    void manyComputeStreamsOfOneGpuAllSlowAndEachEndsOnce() {
        TaskGraph.Builder b = TwoGpus.devices();
        int s0 = b.stream(0, "comm", StreamKind.COMMUNICATION);
        int[] gemms = new int[5];
        for (int i = 0; i < gemms.length; i++) {
            // five kernels side by side on gpu0 (more than it first has room for), and one on gpu1
            gemms[i] = b.compute("gemm" + i, "x", b.stream(0, "compute" + i, StreamKind.COMPUTE), 1000 + 100 * i, 0);
        }
        int other = b.compute("gemm gpu1", "x", b.stream(1, "compute", StreamKind.COMPUTE), 1000, 0);
        b.communicate("nccl", "dp-comm", new int[] {s0}, Work.Communication.pointToPoint(0, 1, BYTES_410_NS));
        Timeline t = run(b.build(), ncclTakes(0.25));
        for (int i = 0; i < gemms.length; i++) {
            // each loses a quarter of the 410 ns it ran beside the transfer
            assertEquals(1000 + 100 * i + 103, t.end(gemms[i]), "gemm" + i);
            assertEquals(410 * 0.25, t.interferenceNs(gemms[i]), 1e-9);
        }
        assertEquals(1000, t.end(other));
    }

    @Test
    void aKernelOnTwoGpusRunsAtItsMostBurdenedGpusRate() {
        TaskGraph.Builder b = TwoGpus.devices();
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int c1 = b.stream(1, "compute", StreamKind.COMPUTE);
        int s0 = b.stream(0, "comm", StreamKind.COMMUNICATION);
        int s1 = b.stream(1, "comm", StreamKind.COMMUNICATION);
        int wide = b.computeOn("wide", "x", new int[] {c0, c1}, 1000, 0);
        // opposite directions: each transfer has its link to itself, 0..410 both
        b.communicate("nccl a", "dp-comm", new int[] {s0}, Work.Communication.pointToPoint(0, 1, BYTES_410_NS));
        b.communicate("nccl b", "dp-comm", new int[] {s1}, Work.Communication.pointToPoint(1, 0, BYTES_410_NS));
        Timeline t = run(b.build(), task -> task.name().equals("nccl a") ? 0.2 : task.name().equals("nccl b") ? 0.3 : 0);
        // gpu1 is the more burdened: 0..410 at 0.7 does 287 ns of work, 713 left at full speed: 1123
        assertEquals(1123, t.end(wide));
        assertEquals(410 * 0.3, t.interferenceNs(wide), 1e-9);
    }

    @Test
    void aKernelTakingOverAnotherGpusEndedKernelsPlaceIsSlowedOnlyByItsOwnGpu() {
        TaskGraph.Builder b = TwoGpus.devices();
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int c1 = b.stream(1, "compute", StreamKind.COMPUTE);
        int s1 = b.stream(1, "comm", StreamKind.COMMUNICATION);
        int first = b.compute("first", "x", c1, 100, 0);
        // starts on gpu0 when gpu1's kernel ends, in the place that kernel left (it runs alone on gpu0)
        int next = b.compute("next", "x", c0, 1000, 0, first);
        b.communicate("nccl", "dp-comm", new int[] {s1}, Work.Communication.pointToPoint(1, 0, BYTES_410_NS));
        Timeline t = run(b.build(), ncclTakes(0.5));
        // first: 100 ns of work at 0.5 ends at 200; next: gpu0 carries no communication, 200..1200
        assertEquals(200, t.end(first));
        assertEquals(1200, t.end(next));
        assertEquals(0, t.interferenceNs(next));
    }

    @Test
    void lossIsMeasuredAgainstAStragglersOwnSpeed() {
        TaskGraph.Builder b = TwoGpus.devices();
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int s0 = b.stream(0, "comm", StreamKind.COMMUNICATION);
        int gemm = b.compute("gemm", "x", c0, 1000, 0);
        b.communicate("nccl", "dp-comm", new int[] {s0}, Work.Communication.pointToPoint(0, 1, BYTES_410_NS));
        TaskGraph g = b.build();
        DeviceSpeeds half = new DeviceSpeeds(2);
        half.set(0, 0.5);
        Timeline t = run(g, half, ncclTakes(0.2));
        // 0..410 at 0.5 x 0.8 = 0.4 does 164 ns of work; 836 left at 0.5 takes 1672: ends at 2082
        assertEquals(2082, t.end(gemm));
        assertEquals(410 * 0.2, t.interferenceNs(gemm), 1e-9, "the straggler's own slowness is not interference");
    }

    @Test
    void computeStartingAfterTheCommunicationEndedRunsAtFullSpeed() {
        TaskGraph.Builder b = TwoGpus.devices();
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int s0 = b.stream(0, "comm", StreamKind.COMMUNICATION);
        int comm = b.communicate("nccl", "dp-comm", new int[] {s0}, Work.Communication.pointToPoint(0, 1, BYTES_410_NS));
        int gemm = b.compute("gemm", "x", c0, 1000, 0, comm);
        Timeline t = run(b.build(), ncclTakes(0.5));
        assertEquals(410, t.start(gemm));
        assertEquals(1410, t.end(gemm));
        assertEquals(0, t.interferenceNs(gemm));
    }

    @Test
    void computeStartingWhileCommunicationRunsIsSlowedFromItsStart() {
        TaskGraph.Builder b = TwoGpus.devices();
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int s0 = b.stream(0, "comm", StreamKind.COMMUNICATION);
        int first = b.compute("first", "x", c0, 100, 0);
        int gemm = b.compute("gemm", "x", c0, 1000, 0);
        b.communicate("nccl", "dp-comm", new int[] {s0}, Work.Communication.pointToPoint(0, 1, BYTES_410_NS));
        Timeline t = run(b.build(), ncclTakes(0.5));
        // first: 100 ns of work at 0.5 ends at 200; gemm: 200..410 at 0.5 does 105, 895 left: 1305
        assertEquals(200, t.end(first));
        assertEquals(1305, t.end(gemm));
        assertEquals(210 * 0.5, t.interferenceNs(gemm), 1e-9);
    }
}
