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
