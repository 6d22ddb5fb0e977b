package org.clustersim.cli.invariants;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import org.clustersim.core.input.InputException;
import org.clustersim.study.SimulatedStep;
import org.clustersim.study.StepFigures;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;

/**
 * One variant of a bundled scenario run in this JVM exactly as {@code run} runs it
 * ({@link SimulatedStep}: the scenario's interference, fidelity, routing and kernel): the
 * scenario's tree with dotted-path overrides applied is written next to the test and read back
 * through the scenario reader, so a variant is checked by every rule a user's file is.
 */
final class StepRun {
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private StepRun() {
    }

    /** The scenario's tree, as written in its file under scenarios/. */
    static ObjectNode tree(BundledScenario s) {
        try {
            return (ObjectNode) YAML.readTree(s.file().toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Writes {@code tree} as {@code name}.yaml in {@code dir} and reads it.
     *
     * @throws InputException when the reader rejects the variant (an option the layout does not allow)
     */
    static Scenario read(ObjectNode tree, Path dir, String name) {
        Path file = dir.resolve(name + ".yaml");
        try {
            Files.createDirectories(dir);
            YAML.writeValue(file.toFile(), tree);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ScenarioReader().read(file);
    }

    /** Simulates {@code scenario}'s step as {@code run} does and measures it. */
    static StepFigures figures(Scenario scenario) {
        return SimulatedStep.of(scenario, scenario.trainingStep(), false).figures();
    }

    /** Sets a dotted path of {@code tree} (creating the sections on the way) to {@code value}. */
    static void set(ObjectNode tree, String path, Object value) {
        String[] keys = path.split("\\.");
        ObjectNode node = tree;
        for (int i = 0; i < keys.length - 1; i++) {
            node = node.has(keys[i]) ? (ObjectNode) node.get(keys[i]) : node.putObject(keys[i]);
        }
        String key = keys[keys.length - 1];
        if (value == null) {
            node.remove(key);
        } else if (value instanceof Integer i) {
            node.put(key, i);
        } else if (value instanceof Double d) {
            node.put(key, d);
        } else if (value instanceof Boolean b) {
            node.put(key, b);
        } else {
            node.put(key, value.toString());
        }
    }

    /** The value at a dotted path, or null. */
    static com.fasterxml.jackson.databind.JsonNode get(ObjectNode tree, String path) {
        com.fasterxml.jackson.databind.JsonNode node = tree;
        for (String k : path.split("\\.")) {
            node = node == null ? null : node.get(k);
        }
        return node == null || node.isMissingNode() ? null : node;
    }
}
