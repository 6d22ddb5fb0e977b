package org.clustersim.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CUDA graphs ({@code training.cudaGraphs}): kernels replayed from a graph pay the device's
 * per-node gap and never wait for the host's launch. A model whose kernels are shorter than a
 * host launch gets faster with per-layer graphs and faster again with the whole step captured;
 * a model of long kernels is never slower for graphs; the replayed layers say so in the trace.
 */
class CudaGraphsTest {
    @TempDir
    Path dir;

    private SimulatedStep run(int hidden, int seqLen, String graphs) throws IOException {
        String text = """
                cluster:
                  preset: dgx-h100
                  nodes: 1
                model:
                  layers: 4
                  hidden: %d
                  heads: 8
                  ffn: %d
                  vocab: 32000
                parallelism:
                  dp: 8
                training:
                  globalBatch: 16
                  microBatch: 1
                  seqLen: %d
                  cudaGraphs: %s
                simulation:
                  replicas: one
                """.formatted(hidden, 4 * hidden, seqLen, graphs);
        Path p = dir.resolve(hidden + "-" + seqLen + "-" + graphs + ".yaml");
        Files.writeString(p, text);
        Scenario s = new ScenarioReader().read(p);
        return SimulatedStep.of(s, s.trainingStep(), false);
    }

    /** Compute time of GPU 0 (what launch costs change; the data-parallel all-reduce is the same). */
    private static long busy(SimulatedStep s) {
        return s.figures().devices().get(0).computeBusyNs();
    }

    @Test
    void aLaunchBoundModelGetsFasterWithEachScope() throws IOException {
        SimulatedStep eager = run(256, 256, "none");
        SimulatedStep layers = run(256, 256, "per-layer");
        SimulatedStep step = run(256, 256, "full-step");
        assertTrue(busy(layers) < busy(eager), busy(layers) + " >= " + busy(eager));
        assertTrue(busy(step) < busy(layers), busy(step) + " >= " + busy(layers));
        assertTrue(step.figures().stepTimeNs() < eager.figures().stepTimeNs());
        // per-layer graphs saved at least a host launch less a gap on most of the layers' kernels
        assertTrue(busy(eager) - busy(layers) > 100_000, "saved only " + (busy(eager) - busy(layers)) + " ns");
    }

    @Test
    void graphsAreNeverSlowerThanEagerLaunches() throws IOException {
        for (int[] shape : new int[][] {{256, 256}, {1024, 2048}, {4096, 4096}}) {
            long eager = run(shape[0], shape[1], "none").figures().stepTimeNs();
            long layers = run(shape[0], shape[1], "per-layer").figures().stepTimeNs();
            long step = run(shape[0], shape[1], "full-step").figures().stepTimeNs();
            assertTrue(layers <= eager, shape[0] + ": per-layer " + layers + " > eager " + eager);
            assertTrue(step <= layers, shape[0] + ": full-step " + step + " > per-layer " + layers);
        }
    }

    @Test
    void replayedLayersAreNamedInTheTraceAndTheRestStaysEagerPerLayer() throws IOException {
        SimulatedStep layers = run(256, 256, "per-layer");
        TaskGraph g = layers.result().timeline().graph();
        int graphed = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            String name = g.name(i);
            if (g.isCompute(i) && g.tag(i).layer() >= 0 && g.tag(i).traffic() == TaskTag.Traffic.NONE) {
                assertTrue(name.contains(" graph L"), name);
                graphed++;
            }
            if (name.contains("embed") || name.contains("logits")) {
                assertFalse(name.contains("graph"), name);
            }
        }
        assertTrue(graphed > 0);
        TaskGraph eager = run(256, 256, "none").result().timeline().graph();
        for (int i = 0; i < eager.taskCount(); i++) {
            assertFalse(eager.name(i).contains("graph"), eager.name(i));
        }
        assertEquals(eager.taskCount(), g.taskCount());
    }
}
