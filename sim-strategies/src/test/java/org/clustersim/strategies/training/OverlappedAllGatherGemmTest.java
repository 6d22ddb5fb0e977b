package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.core.engine.Timeline;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The measured op behind kernels.md section 7, rebuilt on one DGX H100 with the bundled
 * h100-sxm profile: A (m x k) sharded by rows over 8 GPUs and all-gathered, B (k x n) whole on
 * every GPU, so each GPU computes the full 2 m n k and receives 7/8 of A. Transformer Engine runs
 * it as a ring exchange (its te.Linear, column-parallel, {@code ub_overlap_ag}, initialize_ub's
 * qkv_fprop defaults, as DDLB's TPColumnwise benchmark sets it up): the local shard is copied
 * into the userbuffer, then 8 GEMM chunks of m / 8 rows, chunk k waiting for ring step k, each
 * step a copy-engine memcpy to the next rank. Published (DDLB, 2 m n k / wall time per GPU):
 * <ul>
 * <li>m = k = 32k, n = 8k: TE 626 TFLOP/s (NVIDIA/Fuser PR 5838);</li>
 * <li>m = 32k, k = 16k, n = 8k: TE 660 TFLOP/s; AG then matmul, no overlap (PyTorch eager and
 *     nvFuser on NCCL) 560 (NVIDIA/Fuser PR 5259).</li>
 * </ul>
 * Goal: the simulated rate within 5% of the published one. The sourced mechanisms (chunk shapes
 * on the GEMM surface, the ring's copy-engine steps and their one SM, the userbuffer fill) reached
 * only about +26% (626) and +20% (660) with the surface's short-burst rates: it gives these chunks
 * the profile's best measured rate, 794.5 TFLOP/s (MAMF), while the GEMM alone sustained about 670
 * on the DGX that measured them ({@link #mostOfTheGapIsTheGemmRateTheDgxSustainedAlone}). With the
 * profile's {@code power} section (0.87 of the burst rates at the 700 W limit, measured on our
 * H200 for 45 s, not on this op) the chunks run at about 685: +3.6% at k = 16k (goal reached), +9.5%
 * at k = 32k. The bounds below guard what is reached today.
 */
class OverlappedAllGatherGemmTest {
    private static final Topology NODE = SwitchedClusterSpec.dgxH100(1).build();
    private static final DeviceProfile H100 = DeviceProfiles.bundled("h100-sxm");
    private static final int TP = 8;
    private static final long M = 32768;
    private static final long N = 8192;

    private record Op(TaskGraph graph, Timeline timeline, long m, long n, long k) {
        /** Per-GPU rate of the whole op, TFLOP/s. */
        double tflops() {
            return 2.0 * m * n * k / timeline.makespan() / 1e3;
        }

        int task(String name) {
            for (int t = 0; t < graph.taskCount(); t++) {
                if (graph.task(t).name().equals(name)) {
                    return t;
                }
            }
            throw new AssertionError("no task " + name);
        }
    }

    /** The op with each chunk at {@code chunkNs} (null: the chunk's shape on the profile's GEMM surface). */
    private static Op run(long k, Double chunkNs) {
        KernelCosts costs = KernelCosts.of(H100, Precision.BF16);
        TaskGraph.Builder g = TaskGraph.builder();
        int[] devices = new int[TP];
        for (int d = 0; d < TP; d++) {
            devices[d] = g.device(NODE.device(d).name(), NODE.device(d).node());
        }
        long shardBytes = M / TP * k * 2;
        TensorParallel tensor = new TensorParallel(TP, 1, true, shardBytes * TP, new GroupPlans(NODE, null));
        Chain chain = new Chain(g, null, devices, TaskTag.of(TaskTag.Pass.FORWARD, 0, -1));
        // te.Linear copies the local shard into the userbuffer before the ring starts (read + write)
        chain.compute("fill", costs.memory(2.0 * shardBytes, 1), 0);
        double ns = chunkNs != null ? chunkNs : costs.gemm(M / TP, N, k);
        TensorParallelOverlap.ringGemm(chain, tensor, TensorParallelOverlap.RingExchange.USERBUFFERS, "ag+gemm", ns,
                2.0 * M * N * k);
        TaskGraph graph = g.build();
        Timeline t = Simulation.run(graph, NODE, RunOptions.DEFAULT.withLinkTracks(false)
                .withInterference(new CommInterference(H100.commKernels(), graph))).timeline();
        return new Op(graph, t, M, N, k);
    }

    @Test
    void everyRingStepHidesUnderTheChunkBeforeIt() {
        Op op = run(32768, null);
        for (int c = 2; c <= TP; c++) {
            int step = op.task("ag+gemm tp-ring " + (c - 1));
            int prev = op.task("ag+gemm " + (c - 1) + "/" + TP);
            int next = op.task("ag+gemm " + c + "/" + TP);
            assertTrue(op.timeline().end(step) < op.timeline().end(prev), "step " + (c - 1) + " ends under its chunk");
            assertEquals(op.timeline().end(prev), op.timeline().start(next), "chunk " + c + " follows without a gap");
        }
        // a step moves 4096 x 32768 x 2 bytes (268 MB) over NVLink: a fraction of a 2.2 TFLOP chunk
        int step = op.task("ag+gemm tp-ring 1");
        int chunk = op.task("ag+gemm 1/" + TP);
        long stepNs = op.timeline().end(step) - op.timeline().start(step);
        long chunkNs = op.timeline().end(chunk) - op.timeline().start(chunk);
        assertTrue(stepNs < chunkNs / 2, stepNs + " ns step vs " + chunkNs + " ns chunk");
    }

    /**
     * Goals 626 (k = 32k) and 660 (k = 16k) TFLOP/s +- 5%; today's bounds (+9.5% and +3.6% with the
     * profile's sustained clock, plus a margin); see the class comment.
     */
    @ParameterizedTest(name = "m = 32k, k = {0}: published {1} TFLOP/s")
    @CsvSource({"32768, 626, 0.11", "16384, 660, 0.05"})
    void theOpComesOutAtTheSustainedClockNearTheMeasured(int k, double published, double bound) {
        double tflops = run(k, null).tflops();
        double error = tflops / published - 1;
        assertTrue(Math.abs(error) < bound, "simulated " + tflops + " TFLOP/s vs " + published + " published: "
                + error);
    }

    /**
     * Most of the remaining gap is the GEMM's own rate, not the overlap. Fuser PR 5259 timed the
     * m = 32k, k = 16k, n = 8k op without overlap (NCCL all-gather, then one matmul) at 560
     * TFLOP/s: 15.7 ms, of which the all-gather of 7/8 of 1.07 GB at a ring's ~370 GB/s bus
     * bandwidth (collectives.md) is ~2.5 ms, leaving ~13.2 ms, ~668 TFLOP/s, for the GEMM alone on
     * that DGX (derived; uncertain by the all-gather's rate: 660-685). With the chunks at that
     * sustained rate instead of the surface's 794.5, the same ring-exchange timeline reproduces
     * TE's 660 at k = 16k within 5%, and comes to about +6% of the 626 at k = 32k (goal 5%; the
     * rest unexplained: a longer op, a later run on another machine). Not a calibration: the 668
     * comes from the non-overlapped baseline; the profile's GEMM surface stays as measured (MAMF,
     * XLA's table), and its sustained clock under the power limit comes from a single-GPU
     * measurement of its own (the {@code power} section: these chunks at about 685 TFLOP/s).
     */
    @Test
    void mostOfTheGapIsTheGemmRateTheDgxSustainedAlone() {
        double sustained = 8.796e12 / (15.71e-3 - 7.0 / 8 * 32768 * 16384 * 2 / 370e9);
        assertEquals(668e12, sustained, 5e12);
        double k16 = run(16384, 2.0 * (M / TP) * N * 16384 / sustained * 1e9).tflops();
        double k32 = run(32768, 2.0 * (M / TP) * N * 32768 / sustained * 1e9).tflops();
        assertEquals(0, k16 / 660 - 1, 0.05, k16 + " TFLOP/s vs 660");
        // goal 5%; reached +5.8%
        assertEquals(0, k32 / 626 - 1, 0.07, k32 + " TFLOP/s vs 626");
    }
}
