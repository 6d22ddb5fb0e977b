package org.clustersim.cli;

/** Bad input other than a scenario file's content (an unwritable output path, say): exit code 2. */
public final class InputException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InputException(String message) {
        super(message);
    }
}
