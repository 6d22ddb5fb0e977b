package org.clustersim.cli.scenario;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Collects the errors of one scenario file so they can all be reported at once. */
final class Diagnostics {
    private final Path file;
    private final List<ScenarioError> errors = new ArrayList<>();

    Diagnostics(Path file) {
        this.file = file;
    }

    void error(SourceLocation location, String path, String message) {
        errors.add(new ScenarioError(file, location, path, message));
    }

    boolean hasErrors() {
        return !errors.isEmpty();
    }

    /** Throws all errors, sorted by position in the file, if there are any. */
    void throwIfAny() {
        if (!errors.isEmpty()) {
            List<ScenarioError> sorted = new ArrayList<>(errors);
            sorted.sort(Comparator.comparingInt((ScenarioError e) -> e.location().line())
                    .thenComparingInt(e -> e.location().column()));
            throw new ScenarioException(sorted);
        }
    }
}
