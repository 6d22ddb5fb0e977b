package org.clustersim.cli.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.clustersim.strategies.device.DeviceProfiles;
import org.junit.jupiter.api.Test;

/**
 * A validation scenario states only what its source published (issue 30, "No knobs in
 * validation"): no {@code deviceOverrides} and no device profile other than a bundled one,
 * anywhere in any file under scenarios/validation/ (all subfolders, pending rows included).
 * A constant laid over a profile because it makes a published table agree is a fit to
 * end-to-end results; the profile itself must come from single-device measurements.
 */
class ValidationScenarioKnobsTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** Every knob in one parsed scenario, as "field path: what is wrong". */
    static List<String> knobs(JsonNode node, String path) {
        List<String> found = new ArrayList<>();
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                String at = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
                if (field.getKey().equals("deviceOverrides")) {
                    found.add(at + ": a device override (" + field.getValue() + ")");
                } else if (field.getKey().equals("deviceProfile")
                        && !DeviceProfiles.NAMES.contains(field.getValue().asText())) {
                    found.add(at + ": '" + field.getValue().asText() + "' is not a bundled profile "
                            + DeviceProfiles.NAMES);
                }
                found.addAll(knobs(field.getValue(), at));
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                found.addAll(knobs(node.get(i), path + "[" + i + "]"));
            }
        }
        return found;
    }

    @Test
    void noValidationScenarioCarriesADeviceOverrideOrAnUnbundledProfile() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(Path.of("..", "scenarios", "validation"))) {
            files = walk.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
                    .sorted().toList();
        }
        assertTrue(files.size() >= 10 + 30 + 7, "validation scenarios found: " + files.size());
        List<String> wrong = new ArrayList<>();
        for (Path file : files) {
            for (String knob : knobs(YAML.readTree(file.toFile()), "")) {
                wrong.add(file + " " + knob);
            }
        }
        assertTrue(wrong.isEmpty(), "validation scenarios must state only what their source published:\n"
                + String.join("\n", wrong));
    }

    @Test
    void theWalkFindsOverridesAndForeignProfilesAtAnyDepth() throws IOException {
        JsonNode scenario = YAML.readTree("""
                cluster:
                  preset: dgx-a100
                  deviceProfile: my-a100.yaml
                  deviceOverrides: {memory: {streamEfficiency: 0.36}}
                tpu:
                  deviceProfile: tpu-v4
                """);
        List<String> found = knobs(scenario, "");
        assertEquals(2, found.size(), found.toString());
        assertTrue(found.get(0).startsWith("cluster.deviceProfile: 'my-a100.yaml'"), found.get(0));
        assertTrue(found.get(1).startsWith("cluster.deviceOverrides"), found.get(1));
    }
}
