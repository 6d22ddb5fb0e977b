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

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code run} on a scenario with a {@code workload} section (an imported Chakra trace). */
class ImportedRunTest {
    private static final Path ASTRA = Path.of("../sim-study/src/test/resources/org/clustersim/study/workload/astra-sim")
            .toAbsolutePath().normalize();
    private static final Path GENERATOR = ASTRA.resolveSibling("chakra-generator");

    @TempDir
    Path tmp;

    private Path scenario(String text) throws IOException {
        Path f = tmp.resolve("w.yaml");
        Files.writeString(f, text);
        return f;
    }

    /** A workload scenario: the cluster's fields (one a line), the trace, and further workload fields. */
    private Path workload(String cluster, Object trace, String... more) throws IOException {
        StringBuilder b = new StringBuilder("cluster:\n").append(cluster.indent(2)).append("workload:\n  chakraTrace: ")
                .append(trace).append('\n');
        for (String field : more) {
            b.append(field.indent(2));
        }
        return scenario(b.toString());
    }

    /** {@code run FILE --no-trace}, which must succeed. */
    private static HardeningTest.Result ran(Path file) {
        HardeningTest.Result r = cli("run", file.toString(), "--no-trace");
        assertEquals(0, r.code(), r.err());
        return r;
    }

    private static double stepMs(String out) {
        Matcher m = Pattern.compile("step time  ([0-9.]+) ms").matcher(out);
        assertTrue(m.find(), out);
        return Double.parseDouble(m.group(1));
    }

    @Test
    void runsAPublicTraceAndTheTraceShowsItsNodeNames() throws IOException {
        Path trace = tmp.resolve("t.json");
        HardeningTest.Result r = cli("run", ASTRA.resolve("all-reduce-dgx-h100.yaml").toString(), "--trace",
                trace.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("8 ranks"), r.out());
        assertTrue(r.out().contains("1 collectives"), r.out());
        String json = Files.readString(trace);
        assertEquals(8, json.split("\"name\":\"all_reduce_8npus_1MB\"", -1).length - 1, "one slice per rank's stream");
        // the same trace over two servers' NICs is slower than inside one NVSwitch domain
        HardeningTest.Result split = ran(workload("preset: dgx-h100\ngpusPerNode: 4\nnodes: 2",
                ASTRA.resolve("all_reduce")));
        assertTrue(stepMs(split.out()) > stepMs(r.out()), split.out() + r.out());
    }

    @Test
    void anEightRankTraceRunsAtSixtyFourRanks() throws IOException {
        String trace = ASTRA.resolve("all_reduce").toString();
        HardeningTest.Result small = ran(workload("preset: dgx-h100\nnodes: 8", trace));
        HardeningTest.Result r = ran(workload("preset: dgx-h100\nnodes: 8", trace, "ranks: 64"));
        assertTrue(r.out().contains("64 ranks on devices 0-63"), r.out());
        assertTrue(r.out().contains("1 collectives"), r.out());
        // the all-reduce now crosses the servers' NICs
        assertTrue(stepMs(r.out()) > stepMs(small.out()), r.out() + small.out());
        Path tooFew = workload("preset: dgx-h100", trace, "ranks: 64");
        assertTrue(cli("run", tooFew.toString(), "--no-trace").badInput().err().contains("64 rank traces"));
    }

    @Test
    void runsOnATpuSlice() throws IOException {
        HardeningTest.Result r = ran(workload("preset: tpu-v5p\ntopology: 2x2x2", ASTRA.resolve("all_reduce")));
        assertTrue(r.out().contains("tpu-v5p-2x2x2, 8 ranks"), r.out());
        assertTrue(stepMs(r.out()) > 0, r.out());
        Path unsized = workload("preset: tpu-v5p", ASTRA.resolve("all_reduce"));
        assertTrue(cli("run", unsized.toString(), "--no-trace").badInput().err().contains("cluster.topology"));
    }

    @Test
    void aCorruptTraceFileIsALocatedErrorWithExitCode2() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("et"));
        Files.copy(ASTRA.resolve("all_reduce/all_reduce.0.et"), dir.resolve("job.0.et"));
        byte[] one = Files.readAllBytes(ASTRA.resolve("all_reduce/all_reduce.1.et"));
        Files.write(dir.resolve("job.1.et"), java.util.Arrays.copyOf(one, one.length - 5));
        Path s = scenario("cluster:\n  preset: dgx-h100\nworkload:\n  chakraTrace: et\n");
        HardeningTest.Result r = cli("run", s.toString(), "--no-trace").badInput();
        assertTrue(r.err().contains(dir.resolve("job.1.et").toString()), r.err());
        assertTrue(r.err().contains("truncated"), r.err());
        assertFalse(Files.exists(Path.of("traces", "w.json")));
    }

    @Test
    void theSummaryAndCsvSayTheStepAndEachRanksTime() throws IOException {
        Path summary = tmp.resolve("s.json");
        Path csv = tmp.resolve("s.csv");
        HardeningTest.Result r = cli("run", ASTRA.resolve("all-reduce-dgx-h100.yaml").toString(), "--no-trace",
                "--summary", summary.toString(), "--csv", csv.toString());
        assertEquals(0, r.code(), r.err());
        com.fasterxml.jackson.databind.JsonNode s = new com.fasterxml.jackson.databind.ObjectMapper().readTree(
                summary.toFile());
        long step = s.get("stepTimeNs").asLong();
        assertEquals(stepMs(r.out()), step / 1e6, 0.0005);
        assertEquals(8, s.get("ranks").asInt());
        assertEquals(1, s.get("collectiveTasks").asInt());
        assertEquals(0, s.get("computeTasks").asInt());
        assertEquals(8, s.get("devices").size());
        for (com.fasterxml.jackson.databind.JsonNode d : s.get("devices")) {
            // the step is one all-reduce: every rank communicates all of it, with no compute to hide it
            assertEquals(0, d.get("computeBusyNs").asLong());
            assertEquals(step, d.get("computeIdleNs").asLong());
            assertEquals(step, d.get("commBusyNs").asLong());
            assertEquals(step, d.get("exposedCommNs").asLong());
        }
        List<String> rows = Files.readAllLines(csv);
        assertEquals("rank,name,computeBusyNs,computeIdleNs,commBusyNs,exposedCommNs", rows.get(0));
        assertEquals(9, rows.size());
        assertEquals("3,node0.gpu3,0," + step + "," + step + "," + step, rows.get(4));
    }

    @Test
    void chakraGeneratorsAllReduceRunsWithinItsBoundsAndAlikeOnEveryRank() throws IOException {
        // generator.py's ALL_REDUCE: one 65536-byte all-reduce on each of 8 ranks, named by a glob beside the scenario
        Path s = GENERATOR.resolve("all-reduce-dgx-h100.yaml");
        Path summary = tmp.resolve("s.json");
        HardeningTest.Result r = cli("run", s.toString(), "--no-trace", "--summary", summary.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("8 ranks on devices 0-7"), r.out());
        assertTrue(r.out().contains("0 compute, 1 collectives, 0 transfers, 0 untimed"), r.out());
        com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(
                summary.toFile());
        long step = j.get("stepTimeNs").asLong();
        // bandwidth-bound floor: every GPU must send at least (n-1)/n of its buffer over its NVLink
        // (H100 SXM: 18 NVLink 4 links, 450 GB/s each way); loose ceiling: 100 us for 64 KiB
        double floorNs = 7.0 / 8 * 65536 / 450e9 * 1e9;
        assertTrue(step >= floorNs && step <= 100_000, step + " ns");
        for (com.fasterxml.jackson.databind.JsonNode d : j.get("devices")) {
            assertEquals(step, d.get("commBusyNs").asLong(), "every rank runs the same all-reduce");
        }
    }

    @Test
    void chakraGeneratorsDependentComputeNodesRunBackToBackAndItsSendsAreRefused() throws IOException {
        HardeningTest.Result r = ran(workload("preset: dgx-h100", GENERATOR.resolve("two_comp_nodes_dependent.*.et")));
        // two nodes of the generator's default runtime, 5 us, the second waiting on the first
        assertTrue(r.out().contains("16 compute"), r.out());
        assertEquals(0.010, stepMs(r.out()), 1e-9, r.out());
        Path send = workload("preset: dgx-h100", GENERATOR.resolve("one_comm_send_node.*.et"));
        String err = cli("run", send.toString(), "--no-trace").badInput().err();
        assertTrue(err.contains("one_comm_send_node.0.et: node 112 (COMM_SEND_NODE): attribute comm_dst is missing"),
                err);
    }

    @Test
    void modelSectionsAndModelOnlyOutputsAreRefused() throws IOException {
        Path s = scenario("cluster:\n  preset: dgx-h100\nmodel:\n  preset: gpt3-1.3b\nworkload:\n  chakraTrace: "
                + ASTRA.resolve("all_reduce") + "\n");
        assertTrue(cli("run", s.toString(), "--no-trace").badInput().err().contains("leave model out"));
        Path ok = workload("preset: dgx-h100", ASTRA.resolve("all_reduce"), "collectiveAlgorithm: rign");
        assertTrue(cli("run", ok.toString(), "--no-trace").badInput().err().contains("collectiveAlgorithm"));
        Path good = workload("preset: dgx-h100", ASTRA.resolve("all_reduce"));
        assertTrue(cli("run", good.toString(), "--no-trace", "--report", tmp.resolve("x.html").toString()).badInput()
                .err().contains("--report: not supported yet"));
        assertFalse(Files.exists(tmp.resolve("x.html")));
        assertTrue(cli("validate", good.toString()).badInput().err().contains("is simulated by 'clustersim run' only"));
    }
}
