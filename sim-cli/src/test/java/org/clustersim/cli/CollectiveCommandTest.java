package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CollectiveCommandTest {
    @TempDir
    Path dir;

    @Test
    void sweepsSizesAndWritesNcclTestsStyleRows() throws IOException {
        Path json = dir.resolve("c.json");
        ClusterSimTest.Result r = ClusterSimTest.cli("collective", "--cluster", "dgx-h100", "--op", "allreduce",
                "--ranks", "0-7", "--algo", "ring", "--min", "1MiB", "--max", "64MiB", "--factor", "4", "--json",
                json.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode rows = new ObjectMapper().readTree(json.toFile());
        assertEquals(4, rows.size(), "1, 4, 16, 64 MiB");
        for (JsonNode row : rows) {
            double bytes = row.get("bytes").asDouble();
            double t = row.get("timeUs").asDouble();
            assertEquals(bytes / t / 1e3, row.get("algbwGBps").asDouble(), 1e-6);
            assertEquals(row.get("algbwGBps").asDouble() * 2 * 7 / 8.0, row.get("busbwGBps").asDouble(), 1e-6);
            assertEquals("ring", row.get("algorithm").asText());
        }
        assertTrue(rows.get(3).get("busbwGBps").asDouble() > rows.get(0).get("busbwGBps").asDouble(),
                "bandwidth grows with size");
    }

    @Test
    void aFailedNvlinkIsAvoidedAndADegradedOneSlowsTheRing() {
        ClusterSimTest.Result healthy = ClusterSimTest.cli("collective", "--cluster", "dgx-h100", "--algo", "ring",
                "--min", "1GiB", "--max", "1GiB");
        ClusterSimTest.Result degraded = ClusterSimTest.cli("collective", "--cluster", "dgx-h100", "--algo", "ring",
                "--min", "1GiB", "--max", "1GiB", "--degrade", "node0.gpu3->node0.nvswitch=0.5");
        assertEquals(0, degraded.code(), degraded.err());
        double a = busbw(healthy.out());
        double b = busbw(degraded.out());
        assertEquals(0.5, b / a, 0.02, healthy.out() + degraded.out());
    }

    private static double busbw(String out) {
        for (String line : out.split("\n")) {
            if (!line.startsWith("#") && line.trim().length() > 0 && Character.isDigit(line.trim().charAt(0))) {
                return Double.parseDouble(line.trim().split("\\s+")[3]);
            }
        }
        throw new AssertionError("no row in " + out);
    }

    @Test
    void namedRankGroupsAndBadInput() {
        ClusterSimTest.Result rail = ClusterSimTest.cli("collective", "--cluster", "superpod-h100-1su", "--ranks",
                "rail:3", "--algo", "ring", "--min", "1MiB", "--max", "1MiB");
        assertEquals(0, rail.code(), rail.err());
        assertTrue(rail.out().contains("over 32 ranks"), rail.out());
        assertEquals(2, ClusterSimTest.cli("collective", "--cluster", "dgx-h900").code());
        ClusterSimTest.Result ranks = ClusterSimTest.cli("collective", "--cluster", "dgx-h100", "--ranks", "0-8");
        assertEquals(2, ranks.code());
        assertTrue(ranks.err().contains("GPU 8 does not exist"), ranks.err());
        ClusterSimTest.Result link = ClusterSimTest.cli("collective", "--cluster", "dgx-h100", "--fail", "nope");
        assertEquals(2, link.code());
        assertTrue(link.err().contains("no link named 'nope'"), link.err());
        ClusterSimTest.Result algo = ClusterSimTest.cli("collective", "--cluster", "dgx-a100", "--algo", "nvls",
                "--min", "1MiB", "--max", "1MiB");
        assertEquals(2, algo.code());
        assertTrue(algo.err().contains("has no in-switch reduction"), algo.err());
        ClusterSimTest.Result size = ClusterSimTest.cli("collective", "--cluster", "dgx-h100", "--max", "lots");
        assertEquals(2, size.code());
        assertTrue(size.err().contains("cannot read size 'lots'"), size.err());
    }

    @Test
    void presetsAndTopologyListings() {
        ClusterSimTest.Result p = ClusterSimTest.cli("presets");
        assertEquals(0, p.code());
        assertTrue(p.out().contains("superpod-h100-64su") && p.out().contains("16384"), p.out());
        String mixtral = p.out().lines().filter(l -> l.startsWith("mixtral-8x7b ")).findFirst().orElseThrow();
        assertTrue(mixtral.contains("8 x 14336, top 2") && mixtral.endsWith("46.7B     12.9B"), mixtral);
        String h100 = p.out().lines().filter(l -> l.startsWith("h100-sxm ")).findFirst().orElseThrow();
        assertTrue(h100.contains("794.5") && h100.contains("cudnn") && h100.endsWith("1979 / 1402.6"), h100);
        ClusterSimTest.Result t = ClusterSimTest.cli("topology", "dgx-h100", "--links");
        assertEquals(0, t.code(), t.err());
        assertTrue(t.out().contains("node0.gpu3->node0.nvswitch"), t.out());
        assertEquals(3 + 1 + 16, t.out().split("\n").length, "description, vertex and link counts, header, 16 links");
    }
}
