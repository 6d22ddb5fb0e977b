package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34, item 1: {@code validate} runs the memory model before anything is simulated, so a
 * layout that cannot fit in HBM (Llama 3 70B with TP 8 on one DGX H100: about 230 GB a GPU) is
 * an error there, with the breakdown {@code run} gives, and not only after a simulation.
 */
class ValidateMemoryTest {
    /** Llama 3 70B, TP 8 on one DGX H100, without ZeRO: the optimizer state alone exceeds 80 GB. */
    static final String LLAMA70B_TP8 = """
            name: llama3-70b-tp8-one-dgx
            cluster:
              preset: dgx-h100
              nodes: 1
            model:
              preset: llama3-70b
            parallelism:
              tp: 8
            schedule:
              kind: 1f1b
            training:
              globalBatch: 4
              microBatch: 1
              seqLen: 8192
              precision: bf16
            """;
    private static final Pattern PEAK = Pattern.compile("peak ([0-9.]+) GB against 80 GB of HBM \\(weights [0-9.]+, "
            + "gradients [0-9.]+, optimizer state [0-9.]+, workspace [0-9.]+, activations [0-9.]+ GB\\)");

    @TempDir
    Path dir;

    @Test
    void aLayoutOverHbmIsAnErrorWithTheBreakdownThatRunAlsoReports() throws IOException {
        Path scenario = dir.resolve("llama70b.yaml");
        Files.writeString(scenario, LLAMA70B_TP8);
        HardeningTest.Result v = HardeningTest.cli("validate", scenario.toString()).badInput();
        assertFalse(v.out().contains(": ok ("), v.out());
        assertTrue(v.err().contains("llama3-70b-tp8-one-dgx runs out of memory on node0.gpu0: peak "), v.err());
        assertTrue(v.err().contains("predicted before simulating") && v.err().contains("simulation.allowOom"), v.err());
        double predicted = peak(v.err());
        // run measures the same GPU on the simulated timeline: at least the prediction, both over HBM
        HardeningTest.Result r = HardeningTest.cli("run", scenario.toString(), "--no-trace").badInput();
        assertTrue(r.err().contains("llama3-70b-tp8-one-dgx runs out of memory on node0.gpu0: peak "), r.err());
        double measured = peak(r.err());
        assertTrue(predicted > 80 && measured >= predicted, predicted + " predicted, " + measured + " measured");
        assertEquals(java.util.List.of(scenario), files());
    }

    @Test
    void allowOomMakesALayoutOverHbmAWarning() throws IOException {
        Path scenario = dir.resolve("llama70b-oom.yaml");
        Files.writeString(scenario, LLAMA70B_TP8 + "simulation:\n  allowOom: true\n");
        HardeningTest.Result v = HardeningTest.cli("validate", scenario.toString());
        assertEquals(0, v.code(), v.err());
        assertTrue(v.out().contains("llama70b-oom.yaml: ok (llama3-70b, 8 GPUs"), v.out());
        assertTrue(v.err().startsWith("warning: llama3-70b-tp8-one-dgx does not fit in HBM: on node0.gpu0 peak "),
                v.err());
        assertTrue(peak(v.err()) > 80, v.err());
        assertTrue(v.out().contains("memory: node0.gpu0 (pipeline rank 0), predicted: peak "), v.out());
    }

    @Test
    void aLayoutThatFitsPrintsItsPredictedPeakAndNoWarning() {
        HardeningTest.Result v = HardeningTest.cli("validate", HardeningTest.SMALL.toString());
        assertEquals(0, v.code(), v.err());
        assertEquals("", v.err());
        Matcher m = Pattern.compile("memory: node\\d+\\.gpu\\d+ \\(pipeline rank \\d+\\), predicted: " + PEAK.pattern())
                .matcher(v.out());
        assertTrue(m.find(), v.out());
        double gb = Double.parseDouble(m.group(1));
        assertTrue(gb > 0 && gb <= 80, v.out());
    }

    private static double peak(String text) {
        Matcher m = PEAK.matcher(text);
        assertTrue(m.find(), text);
        return Double.parseDouble(m.group(1));
    }

    private java.util.List<Path> files() throws IOException {
        try (var s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).toList();
        }
    }
}
