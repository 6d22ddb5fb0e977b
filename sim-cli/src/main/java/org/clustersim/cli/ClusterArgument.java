package org.clustersim.cli;

import java.nio.file.Files;
import java.nio.file.Path;

import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.core.input.InputException;
import org.clustersim.topology.ClusterPresets;
import org.clustersim.topology.ClusterSpec;

/** A {@code --cluster} value: a preset name, or a scenario file whose cluster section is used. */
final class ClusterArgument {
    private ClusterArgument() {
    }

    /**
     * @param option how the value was given, for messages ({@code --cluster}, or the positional parameter's label)
     */
    static ClusterSpec resolve(String option, String value) {
        var preset = ClusterPresets.byName(value);
        if (preset.isPresent()) {
            return preset.get();
        }
        Path file = Path.of(value);
        if (Files.exists(file) || value.matches(".*\\.(ya?ml|json)")) {
            return new ScenarioReader().read(file).cluster();
        }
        throw new InputException(option + ": '" + value + "' is neither a preset (" + String.join(", ",
                ClusterPresets.all().keySet()) + ") nor a scenario file");
    }
}
