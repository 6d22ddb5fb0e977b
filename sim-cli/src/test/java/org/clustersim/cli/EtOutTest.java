package org.clustersim.cli;

import static org.clustersim.cli.HardeningTest.cli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.clustersim.study.workload.EtNode;
import org.clustersim.study.workload.EtTraceReader;
import org.clustersim.study.workload.RankTrace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code run --et-out DIR}: the step as Chakra ET, one file per rank, checked and written like the other outputs. */
class EtOutTest {
    private static final Path GPIPE = Path.of("..", "scenarios", "gpt3-1.3b-pp4-gpipe.yaml").toAbsolutePath().normalize();

    @TempDir
    Path tmp;

    private static double ms(String out, String label) {
        Matcher m = Pattern.compile(label + " +([0-9.]+) ms").matcher(out);
        assertTrue(m.find(), out);
        return Double.parseDouble(m.group(1));
    }

    @Test
    void writesOneTracePerRankThatReadsBackToTheSameStep() throws IOException {
        Path dir = tmp.resolve("et");
        HardeningTest.Result r = cli("run", GPIPE.toString(), "--no-trace", "--et-out", dir.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("chakra ET  " + dir.resolve("gpt3-1.3b-pp4-gpipe.*.et") + " (4 ranks"), r.out());
        List<Path> files = EtTraceReader.files(tmp, "et", "test");
        assertEquals(4, files.size());
        assertEquals(dir.resolve("gpt3-1.3b-pp4-gpipe.3.et"), files.get(3));
        List<RankTrace> ranks = new EtTraceReader().read(files);
        // the process groups for ASTRA-sim: the tied embeddings' all-reduce of the first and last stage
        com.fasterxml.jackson.databind.JsonNode groups = new com.fasterxml.jackson.databind.ObjectMapper().readTree(
                dir.resolve("gpt3-1.3b-pp4-gpipe.json").toFile());
        String pg = ranks.get(0).nodes().stream().filter(n -> n.kind() == EtNode.Kind.COLLECTIVE).findFirst()
                .orElseThrow().processGroup();
        assertEquals("[0,3]", groups.get(pg).toString());
        assertTrue(ranks.get(0).nodes().stream().anyMatch(n -> n.kind() == EtNode.Kind.SEND), "stage 0 sends");
        assertTrue(ranks.get(3).nodes().stream().anyMatch(n -> n.kind() == EtNode.Kind.RECV), "stage 3 receives");

        // read back on the same cluster: the same step within the compute nodes' microsecond rounding
        // (the pipeline only sends: no communication kernels beside compute, so interference does not enter)
        Path back = tmp.resolve("back.yaml");
        Files.writeString(back, "cluster:\n  preset: dgx-h100\n  gpusPerNode: 4\nworkload:\n  chakraTrace: et\n"
                + "  computeFrom: duration\n");
        Path summary = tmp.resolve("back.json");
        HardeningTest.Result b = cli("run", back.toString(), "--no-trace", "--summary", summary.toString());
        assertEquals(0, b.code(), b.err());
        long computes = ranks.stream().mapToLong(t -> t.nodes().stream()
                .filter(n -> n.kind() == EtNode.Kind.COMPUTE).count()).sum();
        assertEquals(ms(r.out(), "step time"), ms(b.out(), "step time"), 0.0005 * computes + 0.001, b.out());

        // its summary: each rank's compute busy and idle time make the step; the stages wait on each other
        com.fasterxml.jackson.databind.JsonNode s = new com.fasterxml.jackson.databind.ObjectMapper().readTree(
                summary.toFile());
        long step = s.get("stepTimeNs").asLong();
        assertEquals(4, s.get("devices").size());
        for (com.fasterxml.jackson.databind.JsonNode d : s.get("devices")) {
            long busy = d.get("computeBusyNs").asLong();
            assertTrue(busy > 0 && busy < step, d.toString());
            assertEquals(step, busy + d.get("computeIdleNs").asLong());
            assertTrue(d.get("exposedCommNs").asLong() <= d.get("commBusyNs").asLong(), d.toString());
        }
    }

    @Test
    void aBadFolderIsRefusedBeforeSimulatingAndNothingIsWritten() throws IOException {
        Path file = Files.writeString(tmp.resolve("taken"), "x");
        Path summary = tmp.resolve("s.json");
        HardeningTest.Result r = cli("run", GPIPE.toString(), "--no-trace", "--summary", summary.toString(),
                "--et-out", file.toString()).badInput();
        assertTrue(r.err().contains("--et-out " + file + ": is a file; expected a folder"), r.err());
        assertFalse(Files.exists(summary), "nothing written");
        assertEquals("x", Files.readString(file));
    }

    @Test
    void aStepThatDoesNotHoldEveryRankIsRefused() {
        Path oneReplica = Path.of("..", "scenarios", "small-gpt-8xh100-cuda-graphs.yaml");
        Path dir = tmp.resolve("et");
        HardeningTest.Result r = cli("run", oneReplica.toString(), "--no-trace", "--et-out", dir.toString()).badInput();
        assertTrue(r.err().contains("simulation.replicas: one"), r.err());
        assertFalse(Files.exists(dir));
    }

    @Test
    void aWorkloadScenarioRefusesIt() throws IOException {
        Path w = tmp.resolve("w.yaml");
        Files.writeString(w, "cluster:\n  preset: dgx-h100\nworkload:\n  chakraTrace: nowhere\n");
        HardeningTest.Result r = cli("run", w.toString(), "--no-trace", "--et-out", tmp.resolve("et").toString())
                .badInput();
        assertTrue(r.err().contains("--et-out: not supported yet for a workload scenario"), r.err());
    }
}
