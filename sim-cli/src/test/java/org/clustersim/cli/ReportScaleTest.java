package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report of the 16,384-GPU Llama 3 405B scenario stays small: it samples and aggregates
 * (ranks, bars per lane, memory samples, links and time bins are bounded), it never embeds
 * the timeline. To keep the test to seconds the model has 16 layers (one per stage) instead of
 * 126; the cluster, the layout (TP 8, PP 16, DP 128) and the data-parallel traffic over all
 * 16,384 GPUs are the scenario's. The full scenario's report is measured in docs/benchmarks.md.
 */
class ReportScaleTest {
    @TempDir
    Path dir;

    @Test
    void theSixteenThousandGpuReportIsUnderAMegabyte() throws IOException {
        String yaml = Files.readString(ClusterSimTest.SCENARIOS.resolve("llama3-405b-16k-h100.yaml"))
                .replace("  preset: llama3-405b\n", "  preset: llama3-405b\n  layers: 32\n")
                .replaceAll("(?m)^  accountFor\\w+InPipelineSplit:.*\n", "")
                .replace("  v: 4\n", "  v: 2\n");
        assertTrue(yaml.contains("layers: 32") && !yaml.contains("accountFor") && yaml.contains("  v: 2\n"),
                "scenario shrunk as intended");
        Path scenario = dir.resolve("llama3-405b-16k-32-layers.yaml");
        Files.writeString(scenario, yaml);
        Path html = dir.resolve("16k.html");
        ClusterSimTest.Result r = ClusterSimTest.cli("report", scenario.toString(), "-o", html.toString());
        assertEquals(0, r.code(), r.err());
        long size = Files.size(html);
        assertTrue(size < 1_000_000, "report of 16,384 GPUs: " + size + " bytes");
        String page = Files.readString(html);
        assertTrue(page.contains("16,384"), "the GPU count is shown");
        long rankLabels = java.util.regex.Pattern.compile(">rank \\d+ node\\d+\\.gpu0<").matcher(page).results().count();
        assertEquals(2 * 16, rankLabels, "every one of the 16 pipeline ranks in the step bars and the timeline");
    }
}
