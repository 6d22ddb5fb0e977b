package org.clustersim.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.clustersim.core.engine.Task;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.metrics.CommBreakdown;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slices of TPU v5e joined by DCN (MaxText's FSDP inside a slice, dcn_data across; 8K tokens per chip,
 * so that a layer's backward outlasts its reduction): each layer's
 * gradient shard is all-reduced across the slices through the hosts' NICs as a task of its own,
 * on its own stream, counted as dcn-comm in the exposed communication; its length is what the
 * hosts' NICs allow; and whether the next layer waits for it is XLA's data-parallel all-reduce
 * pipelining.
 */
class MultiSliceDcnTest {
    /** Per chip, one direction, as the tests set it: 25 GB/s per 8-chip v5e host (2 x 100 Gbps). */
    private static final double DCN_PER_CHIP = 25e9 / 8;
    private static final String DCN = "dcn-comm";

    @TempDir
    Path dir;

    private Scenario scenario(int slices, boolean pipelined, double dcnPerChip) throws IOException {
        String text = """
                cluster:
                  preset: tpu-v5e
                  topology: 4x4
                  slices: %d
                  dcnBandwidthGBpsPerChip: %s
                model:
                  layers: 4
                  hidden: 1024
                  heads: 8
                  headDim: 128
                  ffn: 4096
                  ffnKind: gelu
                  vocab: 1024
                  tiedEmbeddings: true
                parallelism:
                  mesh: {ici_fsdp: 16, dcn_data: %d}
                  dcnAllReducePipelining: %s
                training:
                  globalBatch: %d
                  microBatch: 4
                  seqLen: 2048
                  remat: full
                simulation:
                  replicas: one
                """.formatted(slices, String.format(Locale.ROOT, "%.6f", dcnPerChip / 1e9), slices, pipelined,
                4 * 16 * slices);
        Path p = dir.resolve("slices" + slices + pipelined + dcnPerChip + ".yaml");
        Files.writeString(p, text);
        return new ScenarioReader().read(p);
    }

    private static SimulatedStep run(Scenario s) {
        return SimulatedStep.of(s, s.trainingStep(), false);
    }

    /** Chip 0's cross-slice reductions: tasks on its dcn stream, in start order. */
    private static List<Integer> dcnTasks(Timeline t) {
        TaskGraph g = t.graph();
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < g.taskCount(); i++) {
            Task task = g.task(i);
            for (int k = 0; k < task.streamCount(); k++) {
                var stream = g.stream(task.stream(k));
                if (stream.device() == 0 && stream.name().equals("dcn")) {
                    out.add(i);
                    break;
                }
            }
        }
        out.sort(java.util.Comparator.comparingLong(t::start));
        return out;
    }

    @Test
    void twoSlicesExposeTheirDcnReductionsWhereOneSliceHasNone() throws IOException {
        SimulatedStep one = run(scenario(1, false, DCN_PER_CHIP));
        SimulatedStep two = run(scenario(2, false, DCN_PER_CHIP));
        CommBreakdown oneChip = CommBreakdown.of(one.result().timeline()).get(0);
        CommBreakdown twoChips = CommBreakdown.of(two.result().timeline()).get(0);
        assertFalse(oneChip.exposedNs().containsKey(DCN), "one slice has no DCN: " + oneChip.exposedNs());
        assertTrue(dcnTasks(one.result().timeline()).isEmpty());

        // without XLA's pipelining the next layer's backward waits for the in-iteration part of each
        // layer's reduction: the compute idles all along it
        Timeline t = two.result().timeline();
        long held = 0;
        for (int i : dcnTasks(t)) {
            String name = t.graph().task(i).name();
            assertTrue(name.contains("across slices (DCN)"), name);
            if (name.endsWith("in-iteration part") && !name.contains(" L0 ")) {
                held += t.end(i) - t.start(i);
            }
        }
        assertTrue(held > 0, "no in-iteration DCN part on chip 0");
        long exposed = twoChips.exposedNs().getOrDefault(DCN, 0L);
        assertTrue(exposed >= held, "exposed DCN " + exposed + " ns below the held parts' " + held + " ns");
        // and the step grows by what the compute waited
        assertTrue(two.figures().stepTimeNs() - one.figures().stepTimeNs() >= 0.9 * held,
                "step " + one.figures().stepTimeNs() + " -> " + two.figures().stepTimeNs() + " ns, held " + held);
    }

    @Test
    void pipelinedReductionsHideUnderTheNextLayersBackward() throws IOException {
        SimulatedStep held = run(scenario(2, false, DCN_PER_CHIP));
        SimulatedStep pipelined = run(scenario(2, true, DCN_PER_CHIP));
        long exposedHeld = CommBreakdown.of(held.result().timeline()).get(0).exposedNs().getOrDefault(DCN, 0L);
        long exposedPipelined = CommBreakdown.of(pipelined.result().timeline()).get(0).exposedNs().getOrDefault(DCN,
                0L);
        assertTrue(exposedPipelined > 0, "the last layer's reduction is waited for by the optimizer step");
        assertTrue(exposedPipelined < exposedHeld, exposedPipelined + " ns pipelined vs " + exposedHeld + " ns held");
        assertTrue(pipelined.figures().stepTimeNs() < held.figures().stepTimeNs());
    }

    /**
     * A layer's reduction moves its fp32 gradient shard (the layer's 12,584,960 weights: attention
     * 4h^2, MLP 2 x 4h x h, two norms of h, / 16 chips x 4 bytes) from each of a host's 8 chips
     * through the host's NIC: (s - 1) / s of it out in the reduce-scatter and again in the
     * all-gather, at most the NIC's line rate.
     */
    @Test
    void aDcnReductionTakesAtLeastItsBytesOverTheHostNic() throws IOException {
        Timeline t = run(scenario(2, true, DCN_PER_CHIP)).result().timeline();
        double shard = (4.0 * 1024 * 1024 + 2 * 4096.0 * 1024 + 2 * 1024) / 16 * 4;
        double perHost = 8 * shard * 2 * (2 - 1) / 2.0;
        double lineRateNs = perHost / (8 * DCN_PER_CHIP) * 1e9;
        int layer = -1;
        for (int i : dcnTasks(t)) {
            if (t.graph().task(i).name().startsWith("fsdp reduce-scatter L2 ")) {
                layer = i;
            }
        }
        assertTrue(layer >= 0, "no DCN reduction of layer 2 on chip 0");
        long took = t.end(layer) - t.start(layer);
        assertTrue(took >= lineRateNs, took + " ns < " + lineRateNs + " ns at line rate");
        // and the NIC, not anything else, sets it: within the sustained fraction and a few latencies
        assertEquals(lineRateNs / 0.9, took, 0.05 * lineRateNs, "bytes over 90% of the NIC");
    }

    @Test
    void moreDcnBandwidthIsNeverSlower() throws IOException {
        for (boolean pipelined : new boolean[] {false, true}) {
            long base = run(scenario(2, pipelined, DCN_PER_CHIP)).figures().stepTimeNs();
            long faster = run(scenario(2, pipelined, 2 * DCN_PER_CHIP)).figures().stepTimeNs();
            assertTrue(faster <= base, (pipelined ? "pipelined" : "held") + ": " + base + " -> " + faster + " ns");
            if (!pipelined) {
                assertTrue(faster < base, "held reductions are exposed, so twice the DCN must be faster");
            }
        }
    }
}
