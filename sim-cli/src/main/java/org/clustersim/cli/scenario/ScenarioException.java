package org.clustersim.cli.scenario;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** A scenario file could not be accepted; carries every error found, in file order. */
public final class ScenarioException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient List<ScenarioError> errors;

    public ScenarioException(List<ScenarioError> errors) {
        super(errors.stream().map(ScenarioError::format).collect(Collectors.joining("\n")));
        this.errors = List.copyOf(errors);
    }

    static ScenarioException single(Path file, SourceLocation location, String path, String message) {
        return new ScenarioException(List.of(new ScenarioError(file, location, path, message)));
    }

    public List<ScenarioError> errors() {
        return errors;
    }
}
