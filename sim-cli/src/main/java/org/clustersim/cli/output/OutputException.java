package org.clustersim.cli.output;

import java.io.IOException;
import java.nio.file.Path;

/**
 * An output file cannot be written: names the path as the user gave it (never a temporary
 * file) and the reason in words.
 */
public final class OutputException extends IOException {
    private static final long serialVersionUID = 1L;
    private final transient Path target;
    private final String reason;

    public OutputException(Path target, String reason) {
        super((target.toString().isEmpty() ? "(empty file name)" : target.toString()) + ": " + reason);
        this.target = target;
        this.reason = reason;
    }

    /** The path as the user gave it. */
    public Path target() {
        return target;
    }

    /** Why it cannot be written. */
    public String reason() {
        return reason;
    }
}
