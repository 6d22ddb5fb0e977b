package org.clustersim.cli;

import static org.clustersim.cli.ClusterSimTest.cli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.clustersim.study.scenario.ScenarioSchema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI ends of {@code --trace-format} and {@code clustersim schema}. */
class TraceFormatAndSchemaCommandTest {
    @TempDir
    Path dir;

    @Test
    void runWritesAPerfettoTraceSmallerThanTheJsonOne() throws IOException {
        String scenario = ClusterSimTest.SCENARIOS.resolve("gpt3-1.3b-pp4-gpipe.yaml").toString();
        Path json = dir.resolve("t.json");
        Path pb = dir.resolve("t.pftrace");
        ClusterSimTest.Result a = cli("run", scenario, "--trace", json.toString());
        ClusterSimTest.Result b = cli("run", scenario, "--trace-format", "perfetto", "--trace", pb.toString());
        assertEquals(0, a.code(), a.err());
        assertEquals(0, b.code(), b.err());
        byte[] bytes = Files.readAllBytes(pb);
        // a Trace message: field 1 (packet), length-delimited
        assertEquals(0x0a, bytes[0]);
        assertTrue(bytes.length * 3 < Files.size(json), bytes.length + " against " + Files.size(json));
        assertTrue(b.out().contains(pb.toString()), b.out());
    }

    @Test
    void anUnknownFormatIsABadFlagAndWritesNothing() {
        Path t = dir.resolve("t.json");
        ClusterSimTest.Result r = cli("run", ClusterSimTest.SCENARIOS.resolve("gpt3-1.3b-pp4-gpipe.yaml").toString(),
                "--trace-format", "protobuf", "--trace", t.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--trace-format: found 'protobuf', expected json or perfetto"), r.err());
        assertFalse(Files.exists(t));
    }

    @Test
    void aDefaultTracePathTakesTheFormatsExtension() {
        TraceFormatOption o = new TraceFormatOption();
        o.name = "perfetto";
        assertEquals(Path.of("traces/x.pftrace"), o.path(Path.of("traces/x.json")));
        assertEquals(Path.of("out/x.bin"), o.path(Path.of("out/x.bin")));
        o.name = "json";
        assertEquals(Path.of("traces/x.json"), o.path(Path.of("traces/x.json")));
        assertEquals(Path.of("traces/x.json"), o.path(Path.of("traces/x.perfetto-trace")));
        o.name = null;
        assertEquals(Path.of("traces/x.pftrace"), o.path(Path.of("traces/x.pftrace")));
    }

    /**
     * Issue 34, item 4: {@code --trace-format perfetto --trace x.json} wrote protobuf into a .json
     * file and said to open it in chrome://tracing. The contradiction is now a usage error naming
     * both flags, before anything is simulated or written.
     */
    @Test
    void aFormatThatContradictsTheTraceFileNameIsAUsageErrorBeforeSimulating() {
        String scenario = ClusterSimTest.SCENARIOS.resolve("gpt3-1.3b-pp4-gpipe.yaml").toString();
        Path json = dir.resolve("x.json");
        ClusterSimTest.Result r = cli("run", scenario, "--trace-format", "perfetto", "--trace", json.toString());
        assertEquals(2, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("--trace-format perfetto and --trace " + json + " disagree"), r.err());
        assertTrue(r.err().contains("x.pftrace"), r.err());
        assertFalse(r.err().contains("Usage:"), "one clear line, not the usage: " + r.err());
        assertFalse(r.out().contains("step time"), "nothing simulated: " + r.out());
        assertFalse(Files.exists(json));
        Path pb = dir.resolve("x.perfetto-trace");
        ClusterSimTest.Result j = cli("run", scenario, "--trace-format", "json", "--trace", pb.toString());
        assertEquals(2, j.code(), j.out() + j.err());
        assertTrue(j.err().contains("--trace-format json and --trace " + pb + " disagree"), j.err());
        assertFalse(Files.exists(pb));
        ClusterSimTest.Result s = cli("schedule", "--kind", "1f1b", "-p", "2", "-m", "4", "--trace-format", "json",
                "--trace", dir.resolve("s.pftrace").toString());
        assertEquals(2, s.code(), s.out() + s.err());
        assertTrue(s.err().contains("--trace-format json and --trace"), s.err());
    }

    /** Without --trace-format the extension chooses the format, and the printed hint names the viewers that open it. */
    @Test
    void theTraceExtensionChoosesTheFormatAndTheHintNamesItsViewer() throws IOException {
        String scenario = ClusterSimTest.SCENARIOS.resolve("gpt3-1.3b-pp4-gpipe.yaml").toString();
        Path pb = dir.resolve("t.pftrace");
        ClusterSimTest.Result p = cli("run", scenario, "--trace", pb.toString());
        assertEquals(0, p.code(), p.err());
        assertEquals(0x0a, Files.readAllBytes(pb)[0], "a Perfetto Trace message, not JSON");
        String line = p.out().lines().filter(l -> l.startsWith("trace ")).findFirst().orElseThrow();
        assertTrue(line.contains("ui.perfetto.dev") && line.contains("chrome://tracing cannot read it"), line);
        Path json = dir.resolve("t.json");
        ClusterSimTest.Result j = cli("run", scenario, "--trace", json.toString());
        assertEquals(0, j.code(), j.err());
        assertEquals('{', Files.readAllBytes(json)[0]);
        String jline = j.out().lines().filter(l -> l.startsWith("trace ")).findFirst().orElseThrow();
        assertTrue(jline.contains("ui.perfetto.dev or chrome://tracing"), jline);
    }

    @Test
    void schemaPrintsTheGeneratedSchemaOrWritesIt() throws IOException {
        ClusterSimTest.Result r = cli("schema");
        assertEquals(0, r.code(), r.err());
        assertEquals(ScenarioSchema.text(), r.out());
        assertTrue(r.out().contains("\"$schema\" : \"https://json-schema.org/draft/2020-12/schema\""));
        Path f = dir.resolve("s/scenario.schema.json");
        assertEquals(0, cli("schema", "-o", f.toString()).code());
        assertEquals(ScenarioSchema.text(), Files.readString(f));
    }
}
