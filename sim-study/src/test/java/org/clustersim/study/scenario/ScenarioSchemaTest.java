package org.clustersim.study.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;

import org.clustersim.core.input.InputError;
import org.clustersim.core.input.InputFileException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated JSON Schema checked with a real validator (networknt, draft 2020-12): the
 * committed copy is current, every bundled scenario validates and points editors at it, and
 * seeded random mutations of scenarios are accepted by the schema exactly when the reader's
 * field-level checks accept them.
 */
class ScenarioSchemaTest {
    private static final Path REPO = Path.of("..");
    private static final Path COMMITTED = REPO.resolve("docs/scenario.schema.json");
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static Schema schema;

    @TempDir
    Path dir;

    @BeforeAll
    static void loadSchema() {
        schema = SchemaChecks.compiled(ScenarioSchema.text());
    }

    @Test
    void committedSchemaIsTheGeneratedOne() throws IOException {
        assertEquals(ScenarioSchema.text(), Files.readString(COMMITTED, StandardCharsets.UTF_8),
                "docs/scenario.schema.json is stale: run ./clustersim schema -o docs/scenario.schema.json");
    }

    @Test
    void everyBundledScenarioValidatesAndNamesTheSchema() throws IOException {
        List<Path> files = bundled();
        assertTrue(files.size() >= 20, "found only " + files);
        SchemaChecks.validateAndNameIt(schema, files, COMMITTED);
    }

    @Test
    void schemaRejectsWhatTheReaderRejectsFieldByField() throws IOException {
        String bad = """
                model: {preset: gpt3-175b}
                parallelism: {pp: 0, order: tp-cp-pp}
                training: {globalBatch: 64, precision: fp64}
                """;
        List<Error> errors = schema.validate(bad, InputFormat.YAML);
        List<String> where = errors.stream().map(e -> e.getInstanceLocation().toString()).toList();
        assertTrue(where.stream().anyMatch(w -> w.contains("pp")), where.toString());
        assertTrue(where.stream().anyMatch(w -> w.contains("order")), where.toString());
        assertTrue(where.stream().anyMatch(w -> w.contains("precision")), where.toString());
        assertFalse(fieldErrors(dir.resolve("bad.yaml"), bad).isEmpty());
    }

    /**
     * Seeded mutations (a value of the right or wrong type, in or out of range, a name in another
     * case, an unknown key, a removed required field, a fault) of bundled scenarios: the schema
     * accepts a mutant exactly when the reader reports no field-level error for it.
     */
    @Test
    void mutantsAgreeWithTheReadersFieldChecks() throws IOException {
        ObjectMapper yaml = new YAMLMapper();
        ObjectMapper json = new ObjectMapper();
        List<ObjectNode> bases = new ArrayList<>();
        for (String name : List.of("gpt3-175b-pp8-1f1b.yaml", "mixtral-8x7b-64xh100-tp2-pp4-ep8.yaml",
                "llama3-70b-512xh100-tp8-pp4-cp2-fsdp.yaml", "gpt3-1.3b-pp4-gpipe.yaml",
                "validation/megatron-bridge/pending/gpt-oss-120b-64xh100-bf16-25.11.yaml",
                "llama3-8b-tpu-v5e-2x256-dcn.yaml", "validation/maxtext/v4-22b-2x128.yaml")) {
            bases.add((ObjectNode) yaml.readTree(REPO.resolve("scenarios").resolve(name).toFile()));
        }
        Random random = new Random(16);
        int accepted = 0;
        int rejected = 0;
        for (int i = 0; i < 200; i++) {
            ObjectNode mutant = bases.get(random.nextInt(bases.size())).deepCopy();
            String what = mutate(mutant, random);
            if (random.nextInt(4) == 0) {
                what += "; " + mutate(mutant, random);
            }
            String text = json.writeValueAsString(mutant);
            boolean schemaOk = schema.validate(text, InputFormat.JSON).isEmpty();
            List<InputError> fieldErrors = fieldErrors(dir.resolve("m" + i + ".json"), text);
            if (schemaOk != fieldErrors.isEmpty()) {
                fail("mutant " + i + " (" + what + "): schema " + (schemaOk ? "accepts" : "rejects: "
                        + schema.validate(text, InputFormat.JSON)) + ", reader's field errors: " + fieldErrors
                        + "\n" + text);
            }
            if (schemaOk) {
                accepted++;
            } else {
                rejected++;
            }
        }
        assertTrue(accepted > 40 && rejected > 40, "accepted " + accepted + ", rejected " + rejected);
    }

    // ---- the reader's field-level errors ----

    /**
     * The errors of the reader that concern one field on its own: its type, range or name, an
     * unknown key, a required field missing. Everything else (divisibility, fields that need other
     * fields, cluster size against the layout, a profile file that does not exist) is a rule
     * between fields, which the schema leaves to the reader.
     */
    private static List<InputError> fieldErrors(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
        try {
            new ScenarioReader().read(file);
            return List.of();
        } catch (InputFileException e) {
            return e.errors().stream().filter(ScenarioSchemaTest::fieldLevel).toList();
        } catch (RuntimeException e) {
            throw new AssertionError("the reader failed on\n" + text, e);
        }
    }

    private static boolean fieldLevel(InputError e) {
        String m = e.message();
        String p = e.path();
        if (m.startsWith("missing required value")) {
            // required unless the preset has them: a rule between fields
            return !p.contains("slidingWindow") && !p.contains("latentAttention");
        }
        return m.startsWith("unknown field") || m.contains("expected an integer") || m.contains("expected a number")
                || m.contains("expected true or false") || m.contains("expected a non-empty text")
                || m.contains("expected a mapping") || m.contains("expected a list") || m.contains("expected one of")
                || m.startsWith("not supported yet") || m.startsWith("missing target")
                || m.contains("expected one target per fault") || m.contains("expected start or a time")
                || m.contains("expected each module once") || m.startsWith("found an empty list")
                || (p.equals("parallelism.order") && m.startsWith("found '"))
                || m.contains("expected a slice shape") || m.contains("expected a physical axis");
    }

    // ---- mutations ----

    private static String mutate(ObjectNode root, Random r) {
        Field.MappingType rootType = ScenarioFields.ROOT.mapping();
        int kind = r.nextInt(20);
        if (kind == 0) {
            String key = List.of("paralelism", "trainig", "modle", "extra").get(r.nextInt(4));
            root.put(key, 1);
            return "unknown section " + key;
        }
        if (kind == 1) {
            String section = List.of("model", "training", "parallelism", "cluster").get(r.nextInt(4));
            root.set(section, value(r.nextBoolean() ? NODES.textNode("x") : NODES.arrayNode()));
            return section + " not a mapping";
        }
        if (kind == 2) {
            ObjectNode training = section(root, "training");
            training.remove("globalBatch");
            return "no globalBatch";
        }
        if (kind == 3) {
            ObjectNode model = section(root, "model");
            model.remove("preset");
            return "no model preset";
        }
        if (kind == 4) {
            root.set("faults", NODES.arrayNode().add(fault(r)));
            return "fault " + root.get("faults");
        }
        List<Field> sections = rootType.fields().stream().filter(f -> f.type() instanceof Field.MappingType)
                .toList();
        Field sectionField = sections.get(r.nextInt(sections.size()));
        ObjectNode section = section(root, sectionField.name());
        Field.MappingType type = sectionField.mapping();
        if (kind == 5) {
            section.put(sectionField.name().substring(0, 2) + "Extra", true);
            return sectionField.name() + ": unknown key";
        }
        List<Field> fields = type.fields().stream().filter(f -> f != ScenarioFields.DEVICE_PROFILE
                && f != ScenarioFields.DEVICE_OVERRIDES).toList();
        Field f = fields.get(r.nextInt(fields.size()));
        if (f.type() instanceof Field.MappingType nested) {
            ObjectNode inner = section(section, f.name());
            Field leaf = nested.fields().get(r.nextInt(nested.fields().size()));
            inner.set(leaf.name(), value(leaf.type(), r));
            return sectionField.name() + "." + f.name() + "." + leaf.name() + " = " + inner.get(leaf.name());
        }
        section.set(f.name(), value(f.type(), r));
        return sectionField.name() + "." + f.name() + " = " + section.get(f.name());
    }

    private static ObjectNode section(ObjectNode parent, String name) {
        JsonNode n = parent.get(name);
        if (n instanceof ObjectNode o) {
            return o;
        }
        return parent.putObject(name);
    }

    private static JsonNode value(JsonNode n) {
        return n;
    }

    private static ObjectNode fault(Random r) {
        ObjectNode f = NODES.objectNode();
        String target = List.of("link", "switch", "nic", "gpu").get(r.nextInt(4));
        f.put(target, target.equals("gpu") ? "node0.gpu1" : target.equals("link") ? "node0.gpu0->node0.nvswitch"
                : target.equals("nic") ? "node0.nic0" : "node0.nvswitch");
        if (r.nextInt(6) == 0) {
            f.put(List.of("link", "gpu").get(r.nextInt(2)).equals(target) ? "nic" : "gpu", "node0.gpu2");
        }
        if (r.nextInt(8) == 0) {
            f.remove(target);
        }
        String[] times = {"start", "15ms", "2.5 s", "250us", "1e3ns", "soon", "15", "-3ms", "REST", "rest", "3 MS"};
        if (r.nextBoolean()) {
            f.put("at", times[r.nextInt(times.length)]);
        }
        if (r.nextBoolean()) {
            f.put("for", times[r.nextInt(times.length)]);
        }
        switch (r.nextInt(5)) {
            case 0 -> f.put("speed", r.nextBoolean() ? 0.5 : 1.5);
            case 1 -> f.put("state", r.nextBoolean() ? "degraded" : "Broken");
            case 2 -> f.put("extraLatencyUs", r.nextBoolean() ? 3 : -1);
            case 3 -> f.put("fraction", r.nextBoolean() ? 0.5 : 2);
            default -> {
            }
        }
        return f;
    }

    /** A value for a field of {@code type}: usually right, often wrong in one way. */
    private static JsonNode value(Field.Type type, Random r) {
        int pick = r.nextInt(10);
        if (pick == 0) {
            return NODES.nullNode();
        }
        if (pick == 1) {
            return List.<JsonNode>of(NODES.textNode("abc"), NODES.booleanNode(true), NODES.arrayNode().add(1),
                    NODES.objectNode().put("a", 1), NODES.numberNode(2.5), NODES.textNode(" ")).get(r.nextInt(6));
        }
        if (type instanceof Field.IntegerType t) {
            long[] values = {t.min(), t.max(), t.min() - 1L, t.max() + 1L, t.min() + r.nextInt(Math.max(1,
                    Math.min(t.max() - t.min(), 64))), 1, 2, 8};
            return NODES.numberNode(values[r.nextInt(values.length)]);
        }
        if (type instanceof Field.NumberType t) {
            double[] values = {t.min(), t.max(), t.min() - 0.5, t.max() * 2 + 1, (t.min() + Math.min(t.max(), 10)) / 2};
            return NODES.numberNode(values[r.nextInt(values.length)]);
        }
        if (type instanceof Field.BooleanType) {
            return NODES.booleanNode(r.nextBoolean());
        }
        if (type instanceof Field.ChoiceType t) {
            List<String> names = new ArrayList<>(t.values().keySet());
            String name = names.get(r.nextInt(names.size()));
            return NODES.textNode(switch (r.nextInt(5)) {
                case 0 -> name.toUpperCase(java.util.Locale.ROOT);
                case 1 -> t.elsewhere().isEmpty() ? "nonsense"
                        : List.copyOf(t.elsewhere().keySet()).get(r.nextInt(t.elsewhere().size()));
                case 2 -> name + "x";
                default -> name;
            });
        }
        if (type instanceof Field.DegreeType t) {
            long[] values = {-1, 0, 1, 2, 4, 16, -2, t.max(), t.max() + 1L};
            return NODES.numberNode(values[r.nextInt(values.length)]);
        }
        if (type instanceof Field.TextListType) {
            ArrayNode a = NODES.arrayNode();
            String[] pieces = {"x", "y", "z", "Z", "x:2", "y: 4", "x:0", "w", "xy", "x:", "3"};
            int n = r.nextInt(3);
            for (int i = 0; i < n; i++) {
                a.add(pieces[r.nextInt(pieces.length)]);
            }
            return a;
        }
        if (type instanceof Field.IntegerListType t) {
            ArrayNode a = NODES.arrayNode();
            int n = 1 + r.nextInt(4);
            for (int i = 0; i < n; i++) {
                a.add(r.nextInt(8) == 0 ? t.max() + 1 : r.nextInt(8) == 0 ? 0 : 1 + r.nextInt(20));
            }
            return a;
        }
        if (type instanceof Field.NameListType t) {
            ArrayNode a = NODES.arrayNode();
            int n = r.nextInt(3);
            for (int i = 0; i < n; i++) {
                int which = r.nextInt(t.names().size() + 1);
                a.add(which == t.names().size() ? (r.nextBoolean() ? "moe" : "everything") : t.names().get(which));
            }
            return a;
        }
        if (type instanceof Field.TextType t) {
            if (t.pattern() == null) {
                return NODES.textNode(r.nextBoolean() ? "some-name" : "traces/x.json");
            }
            String[] values = {"tp-cp-pp-dp", "DP,PP,CP,TP", "tp cp dp pp", "tp-cp-pp", "tp-tp-pp-dp", "tp-cp-pp-dp-ep",
                "15ms", "start", "rest", "2 s", "soon", "16x16", "4x4x4", "8 X 8", "0x4", "4x4x4x4", "32x16"};
            return NODES.textNode(values[r.nextInt(values.length)]);
        }
        return NODES.textNode("unexpected");
    }

    private static List<Path> bundled() throws IOException {
        try (Stream<Path> s = Files.walk(REPO.resolve("scenarios"))) {
            // scenarios/shared holds shared-cluster files (a jobs list), read by SharedScenarioReader
            return s.filter(p -> p.toString().endsWith(".yaml"))
                    .filter(p -> !p.getParent().getFileName().toString().equals("shared")).sorted().toList();
        }
    }
}
