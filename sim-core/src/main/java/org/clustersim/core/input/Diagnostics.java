package org.clustersim.core.input;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Collects the errors of one input file so they can all be reported at once. */
public final class Diagnostics {
    private final Path file;
    private final List<InputError> errors = new ArrayList<>();

    public Diagnostics(Path file) {
        this.file = file;
    }

    /** The file whose errors these are. */
    public Path file() {
        return file;
    }

    public void error(SourceLocation location, String path, String message) {
        errors.add(new InputError(file, location, path, message));
    }

    /** Errors recorded so far (to tell whether a part of the file added any). */
    public int errorCount() {
        return errors.size();
    }

    public boolean hasErrors() {
        return !errors.isEmpty();
    }

    /** Throws all errors, sorted by position in the file, if there are any. */
    public void throwIfAny() {
        if (!errors.isEmpty()) {
            List<InputError> sorted = new ArrayList<>(errors);
            sorted.sort(Comparator.comparingInt((InputError e) -> e.location().line())
                    .thenComparingInt(e -> e.location().column()));
            throw new InputFileException(sorted);
        }
    }
}
