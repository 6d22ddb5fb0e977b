package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.clustersim.study.scenario.SharedScenario;
import org.clustersim.study.scenario.SharedScenarioReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code run}, {@code validate} and {@code place} on shared-cluster files. */
class SharedClusterCommandTest {
    @TempDir
    Path dir;

    /** One job of a shared-cluster file's jobs list: GPT-3 1.3B at TP 8 x DP 2 (two servers). */
    static String job(String name, String placement) {
        return "  - name: " + name + "\n    placement: " + placement + "\n"
                + "    model: {preset: gpt3-1.3b}\n"
                + "    parallelism: {tp: 8, dp: 2}\n"
                + "    training: {globalBatch: 8, microBatch: 1, seqLen: 2048}\n";
    }

    private Path file(String text) throws Exception {
        Path f = dir.resolve("shared.yaml");
        Files.writeString(f, "cluster: {preset: dgx-h100, nodes: 64, fabric: rail-optimized, oversubscription: 4}\n"
                + "jobs:\n" + text);
        return f;
    }

    @Test
    void theBundledTpuFileSpeaksOfChipsOnHostsAndItsJobsOnOwnSlicesRunAsAlone() throws Exception {
        Path summary = dir.resolve("tpu.json");
        ClusterSimTest.Result r = ClusterSimTest.cli("run",
                Path.of("..", "scenarios", "shared", "llama3-8b-tpu-v5e-4x256-two-jobs.yaml").toString(), "--no-trace",
                "--summary", summary.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("job        fsdp-2-slices: 512 chips on hosts 0-63 (packed)"), r.out());
        assertTrue(r.out().contains("job        int8-1-slice: 256 chips on hosts 64-95 (packed)"), r.out());
        assertFalse(r.out().contains("GPUs"), r.out());
        ClusterSimTest.Result v = ClusterSimTest.cli("validate",
                Path.of("..", "scenarios", "shared", "llama3-8b-tpu-v5e-4x256-two-jobs.yaml").toString());
        assertEquals(0, v.code(), v.err());
        assertTrue(v.out().contains("ok (shared cluster of 1024 chips, 2 jobs)"), v.out());
        assertTrue(v.out().contains("job int8-1-slice: llama3-8b, 256 chips, on hosts 64-95 (packed)"), v.out());
        for (JsonNode job : new ObjectMapper().readTree(summary.toFile()).get("jobs")) {
            assertEquals(job.get("aloneStepTimeNs").asLong(), job.get("stepTimeNs").asLong(),
                    job.get("name").asText() + ": slices share no ICI link and no host's DCN link");
        }
    }

    @Test
    void runPrintsEachJobAndWritesASummaryCsvAndATraceWithAProcessPerJob() throws Exception {
        Path f = file(job("a", "spread") + job("b", "{servers: 40-41}"));
        Path summary = dir.resolve("s.json");
        Path csv = dir.resolve("s.csv");
        Path trace = dir.resolve("t.json");
        Path report = dir.resolve("r.html");
        ClusterSimTest.Result r = ClusterSimTest.cli("run", f.toString(), "--summary", summary.toString(), "--csv",
                csv.toString(), "--trace", trace.toString(), "--report", report.toString());
        assertEquals(0, r.code(), r.err());
        String html = Files.readString(report);
        assertTrue(html.contains("Job a") && html.contains("Job b") && html.contains("slowdown"), "the report's sections");
        Path again = dir.resolve("t2.json");
        assertEquals(0, ClusterSimTest.cli("run", f.toString(), "--trace", again.toString()).code());
        assertEquals(Files.readString(trace), Files.readString(again), "the same trace with or without a report");
        assertTrue(r.out().contains("job        a: 16 GPUs on servers 0,32 (spread)"), r.out());
        assertTrue(r.out().contains("job        b: 16 GPUs on servers 40-41 (servers 40-41)"), r.out());
        JsonNode json = new ObjectMapper().readTree(summary.toFile());
        assertEquals(2, json.get("jobs").size());
        JsonNode a = json.get("jobs").get(0);
        assertEquals(a.get("stepTimeNs").asDouble() / a.get("aloneStepTimeNs").asDouble(), a.get("slowdown").asDouble(),
                1e-12);
        assertEquals(3, Files.readAllLines(csv).size(), "a header and a row per job");
        JsonNode events = new ObjectMapper().readTree(trace.toFile()).get("traceEvents");
        Set<String> processes = new TreeSet<>();
        Set<String> threads = new TreeSet<>();
        for (JsonNode e : events) {
            if ("process_name".equals(e.path("name").asText())) {
                processes.add(e.get("args").get("name").asText());
            }
            if ("thread_name".equals(e.path("name").asText())) {
                threads.add(e.get("args").get("name").asText());
            }
        }
        assertEquals(Set.of("a", "b"), processes);
        assertTrue(threads.contains("a/node32.gpu7 compute") && threads.contains("b/node41.gpu0 compute"),
                threads.toString());
    }

    @Test
    void aBadPlacementIsExitTwoWithItsLineAndNothingWritten() throws Exception {
        Path f = file(job("a", "{servers: 0-1}") + job("b", "{servers: 1-2}"));
        Path summary = dir.resolve("s.json");
        ClusterSimTest.Result r = ClusterSimTest.cli("run", f.toString(), "--no-trace", "--summary", summary.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("shared.yaml:9:16: jobs[1].placement: found server 1, which a (jobs[0]) already "
                + "takes"), r.err());
        assertFalse(r.err().contains("Exception"), r.err());
        assertFalse(Files.exists(summary));
        ClusterSimTest.Result v = ClusterSimTest.cli("validate", f.toString());
        assertEquals(2, v.code());
        ClusterSimTest.Result whatif = ClusterSimTest.cli("whatif", f.toString(), "--slow", "node0.gpu0=0.5");
        assertEquals(2, whatif.code());
        assertTrue(whatif.err().contains("shared.yaml:9:16: jobs[1].placement: found server 1"), whatif.err());
        ClusterSimTest.Result goodput = ClusterSimTest.cli("goodput", f.toString(), "--days", "1",
                "--checkpoint-every", "1h");
        assertEquals(2, goodput.code());
        assertTrue(goodput.err().contains("jobs: a shared-cluster file (a jobs list) is read by run, validate, place "
                + "and whatif"), goodput.err());
        ClusterSimTest.Result ok = ClusterSimTest.cli("validate", file(job("a", "packed")).toString());
        assertEquals(0, ok.code(), ok.err());
        assertTrue(ok.out().contains("job a: gpt3-1.3b, 16 GPUs, on servers 0-1 (packed)"), ok.out());
    }

    @Test
    void whatifPrintsEachJobBeforeAndAfterAFaultAndTheAggregate() throws Exception {
        // a on servers 0 and 32 (its ring crosses the spines), b on 40-41; node 0's NIC 0 cable is a's alone
        Path f = file(job("a", "{servers: \"0,32\"}") + job("b", "{servers: 40-41}") + "    simulation: {steps: 3}\n");
        Path json = dir.resolve("w.json");
        Path csv = dir.resolve("w.csv");
        ClusterSimTest.Result r = ClusterSimTest.cli("whatif", f.toString(), "--degrade", "node0.nic0<->su0.leaf0=0.1",
                "--no-trace", "--json", json.toString(), "--csv", csv.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("variant    link node0.nic0<->su0.leaf0 at 10%"), r.out());
        List<String> rows = r.out().lines().filter(l -> l.startsWith("a ") || l.startsWith("b ")).toList();
        assertEquals(2, rows.size(), r.out());
        assertTrue(rows.get(1).contains("+0.000 ms") && rows.get(1).contains(" +0.00%"), "b untouched: " + rows.get(1));
        assertFalse(rows.get(0).contains("+0.000 ms"), "a slowed: " + rows.get(0));
        assertTrue(r.out().contains("aggregate  "), r.out());
        JsonNode doc = new ObjectMapper().readTree(json.toFile());
        JsonNode a = doc.get("jobs").get(0);
        assertEquals(a.get("variantStepTimeNs").asLong() - a.get("stepTimeNs").asLong(), a.get("deltaNs").asLong());
        assertTrue(a.get("deltaNs").asLong() > 0);
        assertEquals(0, doc.get("jobs").get(1).get("deltaNs").asLong());
        assertTrue(doc.get("variantTokensPerSecond").asDouble() < doc.get("tokensPerSecond").asDouble());
        assertEquals(3, Files.readAllLines(csv).size(), "a header and a row per job");

        Path other = dir.resolve("other.json");
        ClusterSimTest.Result unknown = ClusterSimTest.cli("whatif", f.toString(), "--fail", "node0.nic0<->su7.leaf0",
                "--no-trace", "--json", other.toString());
        assertEquals(2, unknown.code());
        assertTrue(unknown.err().contains("--fail node0.nic0<->su7.leaf0: no link named"), unknown.err());
        assertFalse(unknown.err().contains("Exception"), unknown.err());
        assertFalse(Files.exists(other), "nothing written");
        ClusterSimTest.Result sweep = ClusterSimTest.cli("whatif", f.toString(), "--sweep", "links", "--no-trace");
        assertEquals(2, sweep.code());
        assertTrue(sweep.err().contains("--sweep: a shared-cluster file takes one variant"), sweep.err());
        ClusterSimTest.Result names = ClusterSimTest.cli("topology", f.toString(), "--links");
        assertEquals(0, names.code(), names.err());
        assertTrue(names.out().contains("node0.nic0->su0.leaf0") && names.out().contains("2 SU x 32 nodes"),
                "the shared cluster's link names");
        ClusterSimTest.Result nothing = ClusterSimTest.cli("whatif", f.toString());
        assertEquals(2, nothing.code());
        assertTrue(nothing.err().contains("nothing to compare"), nothing.err());
    }

    @Test
    void placeComparesThePoliciesAndRanksThemByAggregateThroughput() throws Exception {
        Path f = file(job("a", "packed") + job("b", "packed"));
        ClusterSimTest.Result r = ClusterSimTest.cli("place", f.toString(), "--policies", "spread,packed");
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        // packed keeps each job's two servers under one SU's leaves; spread sends both over the 4:1 spines
        assertTrue(lines.get(2).startsWith("packed") && lines.stream().anyMatch(l -> l.startsWith("spread")),
                r.out());
        assertTrue(r.out().contains("best       packed"), r.out());
        ClusterSimTest.Result bad = ClusterSimTest.cli("place", f.toString(), "--policies", "packd");
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("--policies: found 'packd'"), bad.err());
    }

    @Test
    void schemaSharedPrintsTheCommittedSharedClusterSchema() throws Exception {
        ClusterSimTest.Result r = ClusterSimTest.cli("schema", "--shared");
        assertEquals(0, r.code(), r.err());
        assertEquals(Files.readString(Path.of("../docs/shared-scenario.schema.json")), r.out());
        assertFalse(r.out().equals(ClusterSimTest.cli("schema").out()), "not the single-job scenario schema");
    }

    @Test
    void theBundledSharedSuperPodPlacesTheBigJobOnEightSusWhenPackedAndOverAllTwelveWhenSpread() {
        SharedScenario s = new SharedScenarioReader().read(ClusterSimTest.SCENARIOS.resolve(
                "shared/llama-2048-and-512-superpod-2to1.yaml"));
        assertEquals(2, s.jobs().size());
        assertEquals(2048, s.jobs().get(0).scenario().parallelism().gpus());
        assertEquals(0, s.jobs().get(0).servers()[0]);
        assertEquals(255, s.jobs().get(0).servers()[255]);
        assertEquals(256, s.jobs().get(1).servers()[0]);
        SharedScenario spread = s.placedBy(new org.clustersim.study.scenario.Placement.Policy(
                org.clustersim.study.scenario.Placement.Kind.SPREAD, 0));
        Set<Integer> units = new TreeSet<>();
        for (int n : spread.jobs().get(1).servers()) {
            units.add(n / 32);
        }
        assertEquals(12, units.size(), "the small job dealt over every SU: " + units);
    }
}
