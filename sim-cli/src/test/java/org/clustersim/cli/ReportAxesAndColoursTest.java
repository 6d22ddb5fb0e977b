package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report's pipeline timeline and time axes (issue 34, item 7), read from the written HTML: a
 * 64-microbatch pipeline gives each microbatch a colour of its own (ten hues repeated before),
 * and the charts over simulated time (pipeline, memory, links) share one time axis: the same
 * tick labels at the same x positions.
 */
class ReportAxesAndColoursTest {
    private static final Pattern RECT = Pattern.compile("<rect [^>]*fill=\"(#[0-9a-f]{6})\"><title>rank \\d+: "
            + "forward of microbatch (\\d+) ");
    /** The time axis's labels: middle-anchored 11-pixel text (lane, link and y labels are end-anchored). */
    private static final Pattern TICK = Pattern.compile("<text x=\"([0-9.]+)\" y=\"[0-9.]+\" font-size=\"11\" "
            + "text-anchor=\"middle\"[^>]*>([^<]+)</text>");

    private static String html;

    @BeforeAll
    static void report(@TempDir Path dir) throws IOException {
        Path scenario = dir.resolve("mb64.yaml");
        Files.writeString(scenario, """
                name: mb64
                cluster: {preset: dgx-h100, nodes: 2}
                model: {preset: gpt3-1.3b, layers: 8}
                parallelism: {tp: 2, pp: 4, dp: 2}
                schedule: {kind: 1f1b}
                training: {globalBatch: 128, microBatch: 1, seqLen: 1024}
                """);
        Path out = dir.resolve("mb64.html");
        ClusterSimTest.Result r = ClusterSimTest.cli("report", scenario.toString(), "-o", out.toString());
        assertEquals(0, r.code(), r.err());
        html = Files.readString(out);
    }

    private static String svg(String id) {
        int from = html.indexOf("data-chart=\"" + id + "\"");
        assertTrue(from >= 0, "chart " + id);
        return html.substring(from, html.indexOf("</svg>", from));
    }

    @Test
    void sixtyFourMicrobatchesGetSixtyFourColours() {
        Map<Integer, String> colour = new HashMap<>();
        Matcher m = RECT.matcher(svg("pipeline"));
        while (m.find()) {
            String before = colour.put(Integer.parseInt(m.group(2)), m.group(1));
            assertTrue(before == null || before.equals(m.group(1)), "microbatch " + m.group(2) + " keeps its colour");
        }
        assertEquals(64, colour.size(), "every microbatch's forward drawn: " + colour.keySet());
        assertEquals(64, new HashSet<>(colour.values()).size(), "one colour per microbatch: " + colour);
        // neighbours, which sit side by side in the timeline, differ clearly (not just in the last digit)
        for (int mb = 0; mb + 1 < 64; mb++) {
            assertTrue(distance(colour.get(mb), colour.get(mb + 1)) > 60,
                    "microbatches " + mb + " and " + (mb + 1) + ": " + colour.get(mb) + " " + colour.get(mb + 1));
        }
        assertFalse(html.contains("hues repeat"), "the legend no longer says the colours repeat");
    }

    @Test
    void theTimeChartsShareOneTimeAxis() {
        List<List<String>> axes = new ArrayList<>();
        for (String id : List.of("pipeline", "memory", "links")) {
            List<String> ticks = new ArrayList<>();
            Matcher m = TICK.matcher(svg(id));
            while (m.find()) {
                ticks.add(m.group(2) + " at x=" + m.group(1));
            }
            assertTrue(ticks.size() >= 4, id + ": " + ticks);
            assertTrue(ticks.get(0).startsWith("0 ns at x="), id + " starts at 0: " + ticks);
            axes.add(ticks);
        }
        assertEquals(axes.get(0), axes.get(1), "pipeline and memory");
        assertEquals(axes.get(0), axes.get(2), "pipeline and links");
        Set<String> widths = new HashSet<>();
        for (String id : List.of("pipeline", "memory", "links")) {
            Matcher w = Pattern.compile("viewBox=\"0 0 (\\d+) ").matcher(svg(id));
            assertTrue(w.find());
            widths.add(w.group(1));
        }
        assertEquals(1, widths.size(), "one chart width: " + widths);
    }

    private static double distance(String a, String b) {
        int[] x = rgb(a);
        int[] y = rgb(b);
        return Math.sqrt(Math.pow(x[0] - y[0], 2) + Math.pow(x[1] - y[1], 2) + Math.pow(x[2] - y[2], 2));
    }

    private static int[] rgb(String hex) {
        int v = Integer.parseInt(hex.substring(1), 16);
        return new int[] {v >> 16, (v >> 8) & 0xff, v & 0xff};
    }
}
