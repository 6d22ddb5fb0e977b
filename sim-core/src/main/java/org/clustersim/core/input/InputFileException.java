package org.clustersim.core.input;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** An input file (scenario, device profile) could not be accepted; carries every error found, in file order. */
public final class InputFileException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient List<InputError> errors;

    public InputFileException(List<InputError> errors) {
        super(errors.stream().map(InputError::format).collect(Collectors.joining("\n")));
        this.errors = List.copyOf(errors);
    }

    public static InputFileException single(Path file, SourceLocation location, String path, String message) {
        return new InputFileException(List.of(new InputError(file, location, path, message)));
    }

    public List<InputError> errors() {
        return errors;
    }
}
