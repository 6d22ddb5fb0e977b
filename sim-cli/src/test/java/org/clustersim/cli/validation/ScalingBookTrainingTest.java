package org.clustersim.cli.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.study.SimulatedStep;
import org.clustersim.core.engine.Task;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.topology.CommTuning;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JAX scaling book's training chapter (the first seed document; shared/reference/tpu.md
 * section 5.1) worked its TPU v5p numbers with a roofline: only the MLP matmuls, the chip at its
 * bf16 peak (C = 4.59e14 FLOP/s), 9e10 B/s per ICI link and direction, bf16 weights and
 * gradients, no recomputation. Each test builds that machine from a scenario file (an MLP-only
 * model, a device profile at the roofline, ICI set so that after the simulator's sustained
 * fraction 9e10 B/s remains), simulates the step, and reads the book's number back from the
 * timeline: how long a chip computes and how long its collectives take. The closed forms appear
 * here only as oracles.
 */
class ScalingBookTrainingTest {
    /** The book's per-link figure, one direction (SB-old; the 2550 arithmetic in both versions). */
    static final double LINK = 9e10;
    static final double PEAK = 4.59e14;
    /** The book's DCN egress per v5p chip: 25 GB/s per 4-chip host. */
    static final double DCN_PER_CHIP = 6.25e9;
    /** C / W_ici with W_ici both directions of one axis: the book's 2550 tokens per chip. */
    static final double ALPHA = PEAK / (2 * LINK);

    /** Each layer's weight all-gathers and gradient reduce-scatters inside the FSDP group. */
    static final String FSDP = "fsdp (all-gather|reduce-scatter) L\\d+";

    @TempDir
    Path dir;

    /** A v5p slice at the book's roofline training an MLP-only model. */
    private Scenario scenario(String topology, String mesh, String mapping, int ffn, int microBatch, int globalBatch)
            throws IOException {
        return scenario(topology, 1, mesh, mapping, ffn, microBatch, globalBatch);
    }

    private Scenario scenario(String topology, int slices, String mesh, String mapping, int ffn, int microBatch,
                              int globalBatch) throws IOException {
        double ici = LINK / CommTuning.TPU.nvlinkEfficiency() / 1e9;
        double dcn = DCN_PER_CHIP / CommTuning.TPU.netEfficiency() / 1e9;
        String text = """
                cluster:
                  preset: tpu-v5p
                  topology: %s
                  slices: %d
                  dcnBandwidthGBpsPerChip: %s
                  iciBandwidthGBps: %s
                  deviceOverrides:
                    memory: {bandwidthTBps: 1000000}
                    gemm: {bf16: {model: {bestTflops: 459, computeFactor: 1, memoryFactor: 0, fixedUs: 0, mxuTile: 0}}}
                    launch: {gapUs: 0}
                model:
                  layers: 4
                  hidden: 8192
                  heads: 1
                  kvHeads: 1
                  headDim: 8
                  ffn: %d
                  vocab: 8
                  tiedEmbeddings: true
                parallelism:
                  mesh: %s
                %s
                training:
                  globalBatch: %d
                  microBatch: %d
                  seqLen: 512
                  remat: none
                  mainGradDtype: bf16
                simulation:
                  replicas: one
                  interference: false
                """.formatted(topology, slices, String.format(Locale.ROOT, "%.6f", dcn),
                String.format(Locale.ROOT, "%.6f", ici), ffn, mesh,
                mapping.isEmpty() ? "" : "  meshMapping: " + mapping, globalBatch, microBatch);
        Path p = dir.resolve("book.yaml");
        Files.writeString(p, text);
        return new ScenarioReader().read(p);
    }

    /** Simulated timeline of one step. */
    private static Timeline run(Scenario s) {
        TrainingStep step = s.trainingStep();
        return SimulatedStep.of(s, step, false).result().timeline();
    }

    /**
     * Time chip 0 computes in the step, and time during which at least one of its collectives
     * whose name matches {@code pattern} is in flight (collectives that run at once share the
     * links, so their union, not their sum, is the communication time).
     */
    private static long[] computeAndComm(Timeline t, String pattern) {
        TaskGraph g = t.graph();
        java.util.List<long[]> spans = new java.util.ArrayList<>();
        for (int i = 0; i < g.taskCount(); i++) {
            Task task = g.task(i);
            if (task.name().matches(pattern) && onDevice(g, task, 0)) {
                spans.add(new long[] {t.start(i), t.end(i)});
            }
        }
        spans.sort(java.util.Comparator.comparingLong(x -> x[0]));
        long comm = 0;
        long until = Long.MIN_VALUE;
        for (long[] x : spans) {
            long from = Math.max(x[0], until);
            if (x[1] > from) {
                comm += x[1] - from;
            }
            until = Math.max(until, x[1]);
        }
        return new long[] {t.computeBusy(0), comm};
    }

    private static boolean onDevice(TaskGraph g, Task task, int device) {
        for (int k = 0; k < task.streamCount(); k++) {
            if (g.stream(task.stream(k)).device() == device) {
                return true;
            }
        }
        return false;
    }

    /**
     * T2 and T3: FSDP is ICI-bound below C / (n_axes W_ici) tokens per chip: 2550 over one axis,
     * 850 over the three axes of a v5p cube. The threshold is where the chip's collective time
     * (two weight all-gathers and one gradient reduce-scatter per layer) equals its compute time;
     * both are measured, and the threshold is tokens x comm / compute.
     */
    @Test
    void fsdpBecomesIciBoundAt2550TokensPerChipOnOneAxisAnd850OnThree() throws IOException {
        int seqs = 4; // 2048 tokens per chip
        Scenario oneAxis = scenario("4x4x16", "{ici_fsdp: 16, ici_data: 16}", "{fsdp: [z], data: [x, y]}", 32768,
                seqs, seqs * 256);
        long[] a = computeAndComm(run(oneAxis), FSDP);
        double threshold1 = seqs * 512.0 * a[1] / a[0];
        Scenario threeAxes = scenario("4x4x4", "{ici_fsdp: 64}", "", 32768, seqs, seqs * 64);
        long[] b = computeAndComm(run(threeAxes), FSDP);
        double threshold3 = seqs * 512.0 * b[1] / b[0];
        System.out.printf(Locale.ROOT, "FSDP threshold: one axis %.0f, three axes %.0f tokens per chip%n", threshold1,
                threshold3);
        assertEquals(ALPHA * 15 / 16, threshold1, 0.03 * ALPHA, "one axis of 16: the book's 2550 x (n-1)/n");
        assertEquals(ALPHA / 3 * 63 / 64, threshold3, 0.03 * ALPHA / 3, "three axes of 4: the book's 850");
    }

    /** Summed durations of chip 0's tasks whose names match {@code pattern}. */
    private static long sum(Timeline t, String pattern) {
        TaskGraph g = t.graph();
        long total = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            Task task = g.task(i);
            if (task.name().matches(pattern) && onDevice(g, task, 0)) {
                total += t.end(i) - t.start(i);
            }
        }
        return total;
    }

    /**
     * T7 and T8: tensor parallelism over one axis is ICI-bound once Y > F W_ici / C = F / 2550;
     * for LLaMA-3-70B's F = 28,672 that is about 11: 8-way is fine, 16-way is not. Read back from
     * the collective matmul of one MLP block in the forward: its ring steps and reduce-scatter
     * splits (communication) against its fc1 and fc2 chunks (compute), both on chip 0 of an 8-way
     * tensor axis (8,192 tokens per tensor group); the threshold is Y x compute / comm (the ring
     * moves (Y - 1) / Y of the activations, so the oracle carries that factor).
     */
    @Test
    void tensorParallelismBecomesIciBoundAboveFOver2550() throws IOException {
        int ffn = 28672;
        int y = 8;
        Scenario s = scenario("4x4x8", "{ici_tensor: 8, ici_data: 16}", "{tensor: [z], data: [x, y]}", ffn, 16, 256);
        Timeline t = run(s);
        long comm = sum(t, "F mb0 L1 mlp (fc1 tp-ring \\d+|tp-rs \\d/\\d)");
        long math = sum(t, "F mb0 L1 mlp fc[12] \\d/\\d");
        double threshold = y * (double) math / comm;
        System.out.printf(Locale.ROOT, "TP threshold for F = %d: %.2f-way (book: F / 2550 = %.2f)%n", ffn, threshold,
                ffn / ALPHA);
        // each ring step and reduce-scatter split also pays its hop and step latencies (about 5% here)
        assertEquals(ffn / ALPHA * y / (y - 1), threshold, 0.07 * ffn / ALPHA, "F / 2550 x Y / (Y - 1)");
        assertTrue(threshold > 8 && threshold < 16, "8-way fine, 16-way ICI-bound: " + threshold);
    }

    /**
     * T17: pure data parallelism across slices over DCN is DCN-bound below C / W_dcn tokens per
     * slice (W_dcn the DCN egress per chip: 4.59e14 / 6.25e9 = 73,440; the book's 71,360 uses C =
     * 4.46e14), whatever the slice size, because a slice's DCN bandwidth grows with its hosts.
     * Four v5p 4x4x4 slices, FSDP inside each and dcn_data 4: each layer's gradients are
     * reduce-scattered over ICI, then the shard all-reduced across the slices (a ring over DCN,
     * (s - 1) / s of it each way). Read back as tokens per slice x (time the DCN reductions are
     * in flight) / (backward compute time), the book's comparison.
     */
    @Test
    void dataParallelismAcrossSlicesBecomesDcnBoundBelowCOverWdcnTokensPerSlice() throws IOException {
        int slices = 4;
        Scenario s = scenario("4x4x4", slices, "{ici_fsdp: 64, dcn_data: 4}", "", 32768, 2, 2 * 64 * slices);
        Timeline t = run(s);
        long dcn = computeAndComm(t, "fsdp reduce-scatter L\\d+ across slices \\(DCN\\)")[1];
        long backward = sum(t, "B mb0 L\\d+");
        double perSlice = 2 * 64 * 512.0;
        double threshold = perSlice * dcn / backward;
        double oracle = PEAK / DCN_PER_CHIP * (slices - 1) / slices;
        System.out.printf(Locale.ROOT, "DCN threshold: %.0f tokens per slice (oracle %.0f; book C / W_dcn %.0f)%n",
                threshold, oracle, PEAK / DCN_PER_CHIP);
        assertEquals(oracle, threshold, 0.05 * oracle, "C / W_dcn x (s - 1) / s");
    }
}
