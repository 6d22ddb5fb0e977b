package org.clustersim.cli;

import static org.clustersim.cli.ClusterSimTest.cli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a run's summary says about the run itself (issue 34, items 5 to 7): the faults and
 * stragglers it applied, the nouns of the cluster's accelerators (chips on hosts for a TPU
 * slice), and counts in the singular when there is one.
 */
class RunSummaryWordsTest {
    @TempDir
    Path dir;

    private static final String TWO_DGX = """
            cluster: {preset: dgx-h100, nodes: 2}
            model: {preset: llama3-8b, layers: 4}
            parallelism: {tp: 8, pp: 2}
            training: {globalBatch: 4, seqLen: 2048}
            """;

    /**
     * Item 5: a scenario's link fault and straggler are listed, in the text and in the JSON, with
     * what they hit, when and how hard; the straggler really slowed the step; a fault that starts
     * after the run ended is listed as having changed nothing.
     */
    @Test
    void theSummaryListsTheAppliedFaultsAndStragglers() throws IOException {
        Path plain = dir.resolve("plain.yaml");
        Files.writeString(plain, TWO_DGX);
        Path faulty = dir.resolve("faulty.yaml");
        Files.writeString(faulty, TWO_DGX + """
                faults:
                  - link: node0.nic0<->switch0
                    state: degraded
                    fraction: 0.5
                    at: 1ms
                    for: 2ms
                  - gpu: node1.gpu3
                    speed: 0.5
                  - switch: switch0
                    at: 1000s
                """);
        Path plainJson = dir.resolve("plain.json");
        Path faultyJson = dir.resolve("faulty.json");
        ClusterSimTest.Result a = cli("run", plain.toString(), "--no-trace", "--summary", plainJson.toString());
        ClusterSimTest.Result b = cli("run", faulty.toString(), "--no-trace", "--summary", faultyJson.toString());
        assertEquals(0, a.code(), a.err());
        assertEquals(0, b.code(), b.err());
        assertFalse(a.out().contains("faults ") || a.out().contains("stragglers"), a.out());
        assertTrue(b.out().contains("faults     link node0.nic0<->switch0 at 50% of its capacity from 1.000 ms for "
                + "2.000 ms, 2 links (faults[0]"), b.out());
        assertTrue(b.out().contains("           switch switch0 down from 1000.0000 s for the rest of the run, 32 links "
                + "(faults[2]"), b.out());
        assertTrue(b.out().contains("started after the run ended: no effect"), b.out());
        assertTrue(b.out().contains("stragglers node1.gpu3 at 0.50x speed (each kernel 2.00x as long) from the start "
                + "for the rest of the run (faults[1]"), b.out());

        ObjectMapper mapper = new ObjectMapper();
        JsonNode none = mapper.readTree(plainJson.toFile());
        JsonNode some = mapper.readTree(faultyJson.toFile());
        assertEquals(0, none.get("faults").size());
        assertEquals(0, none.get("stragglers").size());
        JsonNode link = some.get("faults").get(0);
        assertEquals("link", link.get("target").asText());
        assertEquals("node0.nic0<->switch0", link.get("name").asText());
        assertEquals(2, link.get("links").asInt());
        assertEquals(0.5, link.get("capacityFraction").asDouble());
        assertEquals(1_000_000, link.get("atNs").asLong());
        assertEquals(2_000_000, link.get("durationNs").asLong());
        assertTrue(link.get("applied").asBoolean());
        assertFalse(some.get("faults").get(1).get("applied").asBoolean());
        JsonNode slow = some.get("stragglers").get(0);
        assertEquals("node1.gpu3", slow.get("name").asText());
        assertEquals(11, slow.get("device").asInt());
        assertEquals(2.0, slow.get("slowdown").asDouble(), 1e-12);
        assertTrue(slow.get("applied").asBoolean());
        // the straggler the summary lists did slow the step
        assertTrue(some.get("stepTimeNs").asLong() > none.get("stepTimeNs").asLong() * 1.2,
                some.get("stepTimeNs") + " against " + none.get("stepTimeNs"));
    }

    /** Item 6: a TPU slice's summary and validate speak of chips and hosts, never of GPUs or servers. */
    @Test
    void aTpuRunSpeaksOfChipsAndHosts() throws IOException {
        Path p = dir.resolve("tpu.yaml");
        Files.writeString(p, SmallDenseModel.TPU_SLICE);
        ClusterSimTest.Result r = cli("run", p.toString(), "--no-trace");
        assertEquals(0, r.code(), r.err());
        String text = r.out();
        assertTrue(text.contains("model TFLOP/s per chip"), text);
        assertTrue(text.matches("(?s).*group +4 chips on \\d+ hosts? over .*"), text);
        assertFalse(text.contains("GPU") || text.contains("server"), text);
        ClusterSimTest.Result v = cli("validate", p.toString());
        assertEquals(0, v.code(), v.err());
        assertTrue(v.out().contains("16 chips"), v.out());
        assertFalse(v.out().contains("GPU"), v.out());
        // the report's summary and subtitle too
        Path html = dir.resolve("tpu.html");
        ClusterSimTest.Result rep = cli("report", p.toString(), "-o", html.toString());
        assertEquals(0, rep.code(), rep.err());
        String page = Files.readString(html);
        assertTrue(page.contains("model TFLOP/s per chip") && page.contains("16 chips (") && page.contains(
                "<th>chips</th>") && page.contains("<th>hosts</th>"), "report words");
        assertFalse(page.contains("model TFLOP/s per GPU") || page.contains("16 GPUs"), "no GPU words");
        // and a GPU cluster keeps its words
        Path gpu = dir.resolve("gpu.yaml");
        Files.writeString(gpu, TWO_DGX);
        ClusterSimTest.Result g = cli("run", gpu.toString(), "--no-trace");
        assertTrue(g.out().contains("model TFLOP/s per GPU") && g.out().contains("8 GPUs on 1 server over"), g.out());
    }

    /**
     * Item 7: one name per link class. topology --links called the NIC's link to its switch
     * nic-leaf where the summary said nic-switch; now the summary's groups, the topology listing,
     * its counts and the JSON's links all use the same classes.
     */
    @Test
    void theSummaryAndTheTopologyNameLinkClassesAlike() throws IOException {
        Path s = dir.resolve("two.yaml");
        Files.writeString(s, TWO_DGX.replace("tp: 8, pp: 2", "tp: 4, pp: 2, dp: 2"));
        ClusterSimTest.Result t = cli("topology", s.toString(), "--links");
        assertEquals(0, t.code(), t.err());
        java.util.Set<String> listed = new java.util.TreeSet<>();
        for (String line : t.out().lines().toList()) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 6 && f[0].contains("->")) {
                listed.add(f[3]);
            }
        }
        assertEquals(java.util.Set.of("nvlink", "gpu-nic", "nic-switch"), listed, t.out());
        assertTrue(t.out().contains("directed links: nvlink 32, gpu-nic 32, nic-switch 32"), t.out());
        Path json = dir.resolve("two.json");
        ClusterSimTest.Result r = cli("run", s.toString(), "--no-trace", "--summary", json.toString());
        assertEquals(0, r.code(), r.err());
        java.util.Set<String> used = new java.util.TreeSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("group +\\d+ GPUs? on \\d+ servers? over ([^:]+):")
                .matcher(r.out());
        while (m.find()) {
            used.addAll(List.of(m.group(1).split(" \\+ ")));
        }
        assertTrue(used.contains("nic-switch"), r.out());
        assertTrue(listed.containsAll(used), used + " against " + listed);
        for (JsonNode link : new ObjectMapper().readTree(json.toFile()).get("links")) {
            assertTrue(listed.contains(link.get("kind").asText()), link.toString());
        }
        assertFalse(t.out().contains("nic-leaf") || r.out().contains("nic-leaf"));
    }

    /** Item 7: validate counts one link as "1 link", not "1 links". */
    @Test
    void validateCountsInTheSingular() throws IOException {
        Path one = dir.resolve("one.yaml");
        Files.writeString(one, TWO_DGX + "faults:\n  - link: node0.nic0->switch0\n");
        ClusterSimTest.Result r = cli("validate", one.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("1 fault touching 1 link and 0 GPUs"), r.out());
        Path two = dir.resolve("two.yaml");
        Files.writeString(two, TWO_DGX + "faults:\n  - link: node0.nic0<->switch0\n  - gpu: node0.gpu1\n");
        ClusterSimTest.Result t = cli("validate", two.toString());
        assertTrue(t.out().contains("2 faults touching 2 links and 1 GPU)"), t.out());
    }
}
