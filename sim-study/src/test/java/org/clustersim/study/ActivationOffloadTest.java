package org.clustersim.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.input.InputError;
import org.clustersim.core.input.InputFileException;
import org.clustersim.strategies.training.MemoryModel;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CPU activation offload ({@code training.cpuOffloadLayers}) as Transformer Engine's default
 * synchronizer runs it: the copies on each GPU's offload stream, at the host link's rate, the
 * offloaded layers' activations gone from the peak, what the copies may cost, and the rules
 * Megatron-core sets, each reported at the field.
 */
class ActivationOffloadTest {
    private static final int LAYERS = 8;

    @TempDir
    Path dir;

    private Path write(String cluster, String training) throws IOException {
        String text = """
                cluster:
                  preset: %s
                model:
                  layers: %d
                  hidden: 2048
                  heads: 16
                  ffn: 8192
                  vocab: 32000
                parallelism:
                  tp: 2
                  dp: 4
                  sequenceParallel: true
                training:
                  globalBatch: 4
                  microBatch: 1
                  seqLen: 4096
                %s
                simulation:
                  replicas: one
                """.formatted(cluster, LAYERS, training.indent(2).stripTrailing());
        Path p = dir.resolve("s" + Math.abs((cluster + training).hashCode()) + ".yaml");
        Files.writeString(p, text);
        return p;
    }

    private SimulatedStep run(String cluster, String training) throws IOException {
        Scenario s = new ScenarioReader().read(write(cluster, training));
        return SimulatedStep.of(s, s.trainingStep(), false);
    }

    private SimulatedStep dgx(int offload, double hostGBps) throws IOException {
        return run("dgx-h100\n  nodes: 1\n  hostLinkGBps: " + hostGBps, "cpuOffloadLayers: " + offload);
    }

    /** The copies to and from the host: every task tagged as host offload. */
    private static List<Integer> copies(Timeline t) {
        TaskGraph g = t.graph();
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < g.taskCount(); i++) {
            if (g.tag(i).traffic() == TaskTag.Traffic.HOST_OFFLOAD) {
                out.add(i);
            }
        }
        return out;
    }

    private static long layerBytes(SimulatedStep s) {
        return new MemoryModel(s.step()).layerBytes(0);
    }

    private static StepFigures.Device gpu0(SimulatedStep s) {
        return s.figures().devices().get(0);
    }

    @Test
    void theOffloadedLayersLeaveThePeak() throws IOException {
        SimulatedStep none = dgx(0, 55);
        long layer = layerBytes(none);
        long kept = gpu0(none).memory().activationBytes();
        // one microbatch's L layers at once (one microbatch per replica: no second one's forward
        // starting under the first one's last exchanges)
        assertTrue(kept >= LAYERS * layer, kept + " < " + LAYERS + " x " + layer);
        for (int n : new int[] {2, 4, 6}) {
            SimulatedStep off = dgx(n, 55);
            long peak = gpu0(off).memory().activationBytes();
            // (L - N) layers stay, plus at most one layer in flight between the GPU and the host
            assertTrue(peak <= (LAYERS - n + 1) * layer, n + " offloaded: " + peak + " > " + (LAYERS - n + 1)
                    + " x " + layer);
            assertTrue(kept - peak >= (n - 1) * layer, n + " offloaded saved only " + (kept - peak));
        }
    }

    @Test
    void eachCopyRunsOnTheOffloadStreamNoFasterThanTheHostLink() throws IOException {
        SimulatedStep off = dgx(4, 20);
        Timeline t = off.result().timeline();
        TaskGraph g = t.graph();
        List<Integer> copies = copies(t);
        // one microbatch (4 / dp 4): 4 layers out and 4 back, on each of the TP pair's GPUs in lockstep
        assertEquals(2 * 4, copies.size());
        double floor = layerBytes(off) / 20e9 * 1e9;
        for (int c : copies) {
            assertTrue(t.end(c) - t.start(c) >= floor - 1, g.name(c) + ": " + (t.end(c) - t.start(c)) + " ns < "
                    + floor);
            for (int k = 0; k < g.streamCount(c); k++) {
                var stream = g.streams().get(g.taskStream(c, k));
                assertEquals("offload", stream.name());
                assertEquals(StreamKind.COMMUNICATION, stream.kind());
            }
        }
    }

    @Test
    void twoGpusOnOneGraceShareItsLink() throws IOException {
        SimulatedStep rack = run("nvl72\n  nodes: 1\n  gpusPerNode: 8", "cpuOffloadLayers: 4");
        Timeline t = rack.result().timeline();
        int c = copies(t).get(0);
        // 450 GB/s per direction for the Grace's two GPUs
        double alone = layerBytes(rack) / 450e9 * 1e9;
        assertTrue(t.end(c) - t.start(c) >= 2 * alone - 1, (t.end(c) - t.start(c)) + " < " + 2 * alone);
    }

    @Test
    void moreHostBandwidthIsNeverSlowerAndTheCostIsTheExposedCopies() throws IOException {
        long none = dgx(0, 55).figures().stepTimeNs();
        long previous = Long.MAX_VALUE;
        for (double gbps : new double[] {0.5, 2, 8, 55, 450}) {
            SimulatedStep off = dgx(LAYERS - 1, gbps);
            long step = off.figures().stepTimeNs();
            assertTrue(step <= previous, gbps + " GB/s: " + step + " > " + previous);
            assertTrue(step >= none, gbps + " GB/s: faster than without offload");
            long exposed = gpu0(off).exposedByKind().getOrDefault("offload", 0L);
            // what offload costs is the time the compute stream waited for the copies
            assertTrue(step - none <= exposed + 1_000, gbps + " GB/s: " + (step - none) + " ns slower, "
                    + exposed + " ns of copies exposed");
            previous = step;
        }
        // at half a GB/s the copies cannot hide, and with N = L - 1 each reload waits for its own layer
        SimulatedStep slow = dgx(LAYERS - 1, 0.5);
        assertTrue(slow.figures().stepTimeNs() > none + 10_000_000L, "slow copies hidden");
        assertTrue(slow.figures().exposedByKindNs().getOrDefault("offload", 0L) > 0);
    }

    private List<InputError> errors(Path p) {
        return assertThrows(InputFileException.class, () -> new ScenarioReader().read(p)).errors();
    }

    private static InputError only(List<InputError> errors) {
        assertEquals(1, errors.size(), () -> "expected one error, got " + errors);
        return errors.get(0);
    }

    @Test
    void megatronsRulesAndTheHostMemoryAreCheckedAtTheField() throws IOException {
        InputError all = only(errors(write("dgx-h100\n  nodes: 1", "cpuOffloadLayers: " + LAYERS)));
        assertEquals("training.cpuOffloadLayers", all.path());
        assertEquals(18, all.location().line());
        assertTrue(all.message().contains("holds 8 layers; expected fewer"), all.message());
        InputError recompute = only(errors(write("dgx-h100\n  nodes: 1", "cpuOffloadLayers: 2\nrecompute: full")));
        assertTrue(recompute.message().contains("expected recompute: none"), recompute.message());
        InputError host = only(errors(write("dgx-h100\n  nodes: 1\n  hostMemoryGB: 0.1", "cpuOffloadLayers: 4")));
        assertEquals("training.cpuOffloadLayers", host.path());
        assertTrue(host.message().contains("cluster.hostMemoryGB"), host.message());
        // enough host memory for them: accepted
        new ScenarioReader().read(write("dgx-h100\n  nodes: 1\n  hostMemoryGB: 10", "cpuOffloadLayers: 4"));
    }

    @Test
    void pipelineParallelismIsRefusedAsMegatronCoreDoes() throws IOException {
        Path p = dir.resolve("pp.yaml");
        Files.writeString(p, """
                cluster:
                  preset: dgx-h100
                  nodes: 1
                model:
                  layers: 8
                  hidden: 1024
                  heads: 8
                  ffn: 4096
                  vocab: 32000
                parallelism:
                  pp: 2
                  dp: 4
                training:
                  globalBatch: 8
                  cpuOffloadLayers: 2
                """);
        InputError pp = only(errors(p));
        assertEquals("training.cpuOffloadLayers", pp.path());
        assertTrue(pp.message().contains("without pipeline parallelism"), pp.message());
    }
}
