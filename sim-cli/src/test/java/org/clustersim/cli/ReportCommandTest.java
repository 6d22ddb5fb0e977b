package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code run --report/--plots} and {@code whatif --report} end to end, and what a bad output path does. */
class ReportCommandTest {
    static final String SCENARIO = ReportFiguresTest.SCENARIO.toString();

    @TempDir
    Path dir;

    @Test
    void runWritesTheReportAndAnSvgAndPngPerChartBesideItsOtherOutputs() throws IOException {
        Path html = dir.resolve("r.html");
        Path plots = dir.resolve("plots");
        Path summary = dir.resolve("s.json");
        ClusterSimTest.Result r = ClusterSimTest.cli("run", SCENARIO, "--no-trace", "--summary", summary.toString(),
                "--report", html.toString(), "--plots", plots.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("report     " + html), r.out());
        assertTrue(r.out().contains("step time"), "the usual summary is still printed");
        String page = Files.readString(html);
        for (String id : List.of("step-breakdown", "pipeline", "memory", "links")) {
            assertTrue(page.contains("data-chart=\"" + id + "\""), id);
            assertTrue(Files.readString(plots.resolve(id + ".svg")).startsWith("<svg"), id);
            byte[] png = Files.readAllBytes(plots.resolve(id + ".png"));
            assertEquals((byte) 0x89, png[0], id + ".png is a PNG");
            assertEquals('P', png[1]);
        }
        try (Stream<Path> files = Files.list(plots)) {
            assertEquals(8, files.count());
        }
        assertTrue(Files.size(summary) > 100);
    }

    @Test
    void theTraceIsTheSameWithOrWithoutAReport() throws IOException {
        // the report's heat map needs link throughput, which the scenario does not ask the trace to carry
        Path plain = dir.resolve("plain.json");
        Path withReport = dir.resolve("with-report.json");
        assertEquals(0, ClusterSimTest.cli("run", SCENARIO, "--trace", plain.toString()).code());
        ClusterSimTest.Result r = ClusterSimTest.cli("run", SCENARIO, "--trace", withReport.toString(), "--report",
                dir.resolve("r.html").toString());
        assertEquals(0, r.code(), r.err());
        String page = Files.readString(dir.resolve("r.html"));
        assertTrue(page.contains("% of 450 GB/s") && page.contains("% of 50 GB/s"), "the heat map had rates");
        assertTrue(Files.readString(plain).contains("\"name\":\"memory node0.gpu0\""), "memory tracks in both");
        assertFalse(Files.readString(withReport).contains("\"name\":\"link "), "no link tracks");
        assertTrue(java.util.Arrays.equals(Files.readAllBytes(plain), Files.readAllBytes(withReport)),
                "byte-identical traces");
    }

    @Test
    void aReportThatCannotBeWrittenIsBadInputAndNothingIsLeftBehind() throws IOException {
        Path blocker = dir.resolve("file");
        Files.writeString(blocker, "x");
        Path summary = dir.resolve("s.json");
        ClusterSimTest.Result r = ClusterSimTest.cli("run", SCENARIO, "--no-trace", "--summary", summary.toString(),
                "--report", blocker.resolve("r.html").toString());
        assertEquals(2, r.code(), r.out());
        // checked before simulating: the option and the path that cannot be a directory are named
        assertTrue(r.err().contains("--report") && r.err().contains(blocker + " is a file, not a directory"),
                r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        assertFalse(Files.exists(summary), "all or nothing: the summary is not written either");
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(blocker), files.toList());
        }
    }

    @Test
    void whatifPutsBaselineAndVariantSideBySide() throws IOException {
        Path html = dir.resolve("w.html");
        ClusterSimTest.Result r = ClusterSimTest.cli("whatif", SCENARIO, "--slow", "node0.gpu2=0.7", "--no-trace",
                "--report", html.toString());
        assertEquals(0, r.code(), r.err());
        String page = Files.readString(html);
        for (String side : List.of("baseline-", "variant-")) {
            for (String id : List.of("step-breakdown", "pipeline", "memory", "links")) {
                assertTrue(page.contains("data-chart=\"" + side + id + "\""), side + id);
            }
        }
        assertTrue(page.contains("<table id=\"comparison-table\">"), "headline table");
        assertTrue(page.contains("Variant: gpu node0.gpu2 at 0.70x speed."), "what changed");
    }

    @Test
    void aWhatifSweepReportRanksTheVariants() throws IOException {
        Path html = dir.resolve("sweep.html");
        ClusterSimTest.Result r = ClusterSimTest.cli("whatif", SCENARIO, "--sweep", "links=gpu-nic", "--sample",
                "2", "--threads", "1", "--report", html.toString());
        assertEquals(0, r.code(), r.err());
        String page = Files.readString(html);
        assertTrue(page.contains("data-chart=\"ranking\""), "ranking chart");
        assertTrue(page.contains("data-chart=\"baseline-pipeline\""), "baseline figures");
        int rows = page.split("<tr>", -1).length - 1;
        assertTrue(page.contains("<table id=\"ranking-table\">") && rows >= 3, "a row per variant");
    }
}
