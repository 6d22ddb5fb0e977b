package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.clustersim.cli.output.StepRun;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.Timeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code simulation.kernel}: a real step run on DSOL (the default) and on the heap kernel gives
 * the same timeline task for task and byte-identical outputs, and a bad value is a located error.
 */
class KernelChoiceTest {
    /**
     * The bundled Mixtral step cut down (8 layers, 4 microbatches) with what makes events tie and
     * interleave: every replica simulated (lockstep instants), ZeRO-1 gradient and weight
     * collectives, expert all-to-alls, adaptive routing, two steps back to back, interference, a
     * link degraded mid-run and a straggler GPU.
     */
    private static final String OVERRIDES = "model.layers=8;training.globalBatch=32;simulation.replicas=all;"
            + "simulation.steps=2";
    private static final String FAULTS = """
            faults:
              - link: node1.gpu2->node1.nvswitch
                at: 1ms
                state: degraded
                fraction: 0.25
              - gpu: node3.gpu5
                at: 500us
                speed: 0.8
            """;

    @TempDir
    Path dir;

    private Path scenario(String kernel) throws IOException {
        Path file = dir.resolve(kernel + "/moe.yaml");
        Files.createDirectories(file.getParent());
        ScenarioOverrides.write("mixtral-8x7b-64xh100-tp2-pp4-ep8", OVERRIDES
                + (kernel.equals("default") ? "" : ";simulation.kernel=" + kernel), file);
        Files.writeString(file, Files.readString(file) + FAULTS);
        return file;
    }

    @Test
    void theKernelIsReadAndDsolIsTheDefault() throws IOException {
        ScenarioReader reader = new ScenarioReader();
        assertEquals(Simulation.Kernel.DSOL, reader.read(scenario("default")).kernel());
        assertEquals(Simulation.Kernel.DSOL, reader.read(scenario("dsol")).kernel());
        assertEquals(Simulation.Kernel.HEAP, reader.read(scenario("HEAP")).kernel(), "names are case-insensitive");
    }

    @Test
    void bothKernelsGiveTheSameTimelineTaskForTask() throws IOException {
        Scenario dsol = new ScenarioReader().read(scenario("dsol"));
        Scenario heap = new ScenarioReader().read(scenario("heap"));
        Simulation.Result d = StepRun.of(dsol).result();
        Simulation.Result h = StepRun.of(heap).result();
        Timeline a = d.timeline();
        Timeline b = h.timeline();
        int tasks = a.graph().taskCount();
        assertEquals(tasks, b.graph().taskCount());
        assertTrue(tasks > 10_000, "a step with " + tasks + " tasks");
        for (int t = 0; t < tasks; t++) {
            assertEquals(a.graph().name(t), b.graph().name(t));
            assertEquals(a.start(t), b.start(t), a.graph().name(t));
            assertEquals(a.end(t), b.end(t), a.graph().name(t));
            assertEquals(a.interferenceNs(t), b.interferenceNs(t), a.graph().name(t));
        }
        assertEquals(a.events(), b.events(), "events executed");
        assertEquals(a.makespan(), b.makespan());
        assertEquals(d.rerates(), h.rerates());
        assertEquals(d.flowsRerated(), h.flowsRerated());
    }

    @Test
    void runWritesByteIdenticalOutputsOnEitherKernel() throws IOException {
        byte[][] dsol = run(scenario("dsol"));
        byte[][] heap = run(scenario("heap"));
        for (int i = 0; i < dsol.length; i++) {
            assertTrue(dsol[i].length > 0);
            assertArrayEquals(dsol[i], heap[i], "output " + i);
        }
    }

    /** Stdout (less the wall-clock time), summary, CSV and trace of {@code clustersim run}. */
    private static byte[][] run(Path file) throws IOException {
        Path folder = file.getParent();
        ClusterSimTest.Result r = ClusterSimTest.cli("run", file.toString(), "--trace", folder.resolve("t.json")
                .toString(), "--summary", folder.resolve("s.json").toString(), "--csv", folder.resolve("g.csv")
                .toString());
        assertEquals(0, r.code(), r.err());
        // the output names the run's folder and the wall-clock time; the rest must match
        String out = r.out().replace(folder.toString(), "").replaceAll("(events) in [0-9.]+ s", "$1");
        assertTrue(out.contains("tasks with"), out);
        return new byte[][] {out.getBytes(), Files.readAllBytes(
                folder.resolve("s.json")), Files.readAllBytes(folder.resolve("g.csv")),
                Files.readAllBytes(folder.resolve("t.json"))};
    }

    @Test
    void anUnknownKernelIsALocatedError() throws IOException {
        Path file = scenario("fast");
        ClusterSimTest.Result r = ClusterSimTest.cli("run", file.toString(), "--no-trace");
        assertEquals(2, r.code());
        int line = Files.readAllLines(file).indexOf("  kernel: \"fast\"") + 1;
        assertTrue(line > 0, Files.readString(file));
        assertTrue(r.err().contains(file + ":" + line + ":11: simulation.kernel: found 'fast', expected one of dsol, "
                + "heap"), r.err());
    }
}
