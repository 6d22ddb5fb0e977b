package org.clustersim.study.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;

import org.clustersim.core.input.InputFileException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared-cluster JSON Schema checked with a real validator (networknt, draft 2020-12): the
 * committed copy is current, the bundled shared-cluster files validate and point editors at it,
 * and files the reader refuses field by field are refused by the schema too.
 */
class SharedScenarioSchemaTest {
    private static final Path REPO = Path.of("..");
    private static final Path COMMITTED = REPO.resolve("docs/shared-scenario.schema.json");
    private static final String JOB = "    model: {preset: gpt3-1.3b}\n    parallelism: {tp: 8, dp: 2}\n"
            + "    training: {globalBatch: 8, microBatch: 1, seqLen: 2048}\n";
    private static final String CLUSTER = "cluster: {preset: dgx-h100, nodes: 8, fabric: rail-optimized}\n";
    private static Schema schema;

    @TempDir
    Path dir;

    @BeforeAll
    static void loadSchema() {
        schema = SchemaChecks.compiled(SharedScenarioSchema.text());
    }

    @Test
    void committedSchemaIsTheGeneratedOne() throws IOException {
        assertEquals(SharedScenarioSchema.text(), Files.readString(COMMITTED, StandardCharsets.UTF_8),
                "docs/shared-scenario.schema.json is stale: run ./clustersim schema --shared -o "
                        + "docs/shared-scenario.schema.json");
    }

    @Test
    void everyBundledSharedClusterFileValidatesAndNamesTheSchema() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(REPO.resolve("scenarios/shared"))) {
            files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        assertFalse(files.isEmpty());
        SchemaChecks.validateAndNameIt(schema, files, COMMITTED);
    }

    @Test
    void everyPlacementFormAndAJobFromAScenarioFileAreAccepted() throws IOException {
        Files.writeString(dir.resolve("own.yaml"), JOB.replace("\n    ", "\n").replaceFirst("^    ", ""));
        String text = "name: four\n" + CLUSTER + "network: {fidelity: flow}\nsimulation: {steps: auto}\njobs:\n"
                + "  - name: a\n    placement: Packed\n" + JOB
                + "  - name: b\n    placement: {policy: random, seed: 3}\n" + JOB
                + "  - name: c\n    placement: {servers: [4, \"5\"]}\n" + JOB
                + "  - name: d\n    placement: {servers: 6-7}\n    scenario: own.yaml\n";
        assertTrue(schema.validate(text, InputFormat.YAML).isEmpty(), schema.validate(text, InputFormat.YAML)
                .toString());
        Path f = dir.resolve("ok.yaml");
        Files.writeString(f, text);
        assertEquals(4, new SharedScenarioReader().read(f).jobs().size(), "the reader takes it too");
    }

    @Test
    void aClusterOfTpuSlicesWithJobsTakingSlicesIsAccepted() throws IOException {
        String text = "cluster: {preset: tpu-v5e, topology: 4x4, slices: 3}\njobs:\n  - slices: 2\n    placement: packed\n"
                + "    model: {preset: gpt3-1.3b}\n    parallelism: {mesh: {ici_fsdp: 4, ici_tensor: 4, dcn_data: 2}}\n"
                + "    training: {globalBatch: 16, microBatch: 2, seqLen: 1024}\n";
        assertTrue(schema.validate(text, InputFormat.YAML).isEmpty(), schema.validate(text, InputFormat.YAML)
                .toString());
        Path f = dir.resolve("tpu.yaml");
        Files.writeString(f, text);
        assertEquals(4, new SharedScenarioReader().read(f).jobs().get(0).servers().length, "two slices of 2 hosts");
        assertFalse(schema.validate(text.replace("slices: 2", "slices: 0"), InputFormat.YAML).isEmpty());
    }

    /** Each broken file, with the place in it the schema must point at; the reader refuses each as well. */
    @Test
    void whatTheReaderRefusesFieldByFieldTheSchemaRefuses() throws IOException {
        Map<String, String> bad = Map.of(
                "a misspelt policy", CLUSTER + "jobs:\n  - placement: packd\n" + JOB,
                "a job with a cluster of its own", CLUSTER + "jobs:\n  - placement: packed\n    cluster: {nodes: 2}\n"
                        + JOB,
                "a job with both a scenario file and a model", CLUSTER + "jobs:\n  - placement: packed\n"
                        + "    scenario: own.yaml\n" + JOB,
                "a job without a placement", CLUSTER + "jobs:\n  - name: a\n" + JOB,
                "a server range that is no range", CLUSTER + "jobs:\n  - placement: {servers: 3-x}\n" + JOB,
                "a cluster without nodes", "cluster: {preset: dgx-h100}\njobs:\n  - placement: packed\n" + JOB,
                "an empty jobs list", CLUSTER + "jobs: []\n",
                "a model section at the top", CLUSTER + "model: {preset: gpt3-1.3b}\njobs:\n  - placement: packed\n"
                        + JOB,
                "a job's name with a slash", CLUSTER + "jobs:\n  - name: a/b\n    placement: packed\n" + JOB,
                "a shared step count other than auto", CLUSTER + "simulation: {steps: 4}\njobs:\n"
                        + "  - placement: packed\n" + JOB);
        Files.writeString(dir.resolve("own.yaml"), JOB.replace("\n    ", "\n").replaceFirst("^    ", ""));
        for (Map.Entry<String, String> e : bad.entrySet()) {
            assertFalse(schema.validate(e.getValue(), InputFormat.YAML).isEmpty(), e.getKey() + ": the schema "
                    + "accepts\n" + e.getValue());
            Path f = dir.resolve("bad.yaml");
            Files.writeString(f, e.getValue());
            assertThrows(InputFileException.class, () -> new SharedScenarioReader().read(f), e.getKey()
                    + ": the reader accepts");
        }
    }
}
