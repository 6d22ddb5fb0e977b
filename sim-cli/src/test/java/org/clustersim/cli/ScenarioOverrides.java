package org.clustersim.cli;

import java.io.IOException;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

/**
 * Test scenarios derived from bundled ones: {@code "model.layers=16;schedule.kind=interleaved"}
 * sets each dotted path in a scenario's tree to an integer, a boolean or a string, or removes it
 * when the value is empty.
 */
final class ScenarioOverrides {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private ScenarioOverrides() {
    }

    /** Writes bundled scenario {@code name} with {@code overrides} applied to {@code file}, and returns it. */
    static Path write(String name, String overrides, Path file) throws IOException {
        ObjectNode tree = (ObjectNode) YAML.readTree(Path.of("..", "scenarios", name + ".yaml").toFile());
        apply(tree, overrides);
        YAML.writeValue(file.toFile(), tree);
        return file;
    }

    /** Applies {@code overrides} (dotted path=value, ';' between) to {@code tree}. */
    static void apply(ObjectNode tree, String overrides) {
        for (String o : overrides.split(";")) {
            String[] kv = o.split("=", 2);
            set(tree, kv[0].trim(), kv[1].trim());
        }
    }

    private static void set(ObjectNode tree, String path, String value) {
        String[] keys = path.split("\\.");
        ObjectNode node = tree;
        for (int i = 0; i < keys.length - 1; i++) {
            node = node.has(keys[i]) ? (ObjectNode) node.get(keys[i]) : node.putObject(keys[i]);
        }
        String key = keys[keys.length - 1];
        if (value.isEmpty()) {
            node.remove(key);
        } else if (value.matches("-?\\d+")) {
            node.put(key, Integer.parseInt(value));
        } else if (value.equals("true") || value.equals("false")) {
            node.put(key, Boolean.parseBoolean(value));
        } else {
            node.put(key, value);
        }
    }
}
