package org.clustersim.core.input;

/**
 * Bad input other than an input file's content (an unwritable output path, a malformed flag, an
 * engine that is not there): the command line reports its message and exits with code 2. It
 * lives beside {@link InputFileException} so that every layer that checks what the user asked
 * for can throw it without depending on the command line.
 */
public final class InputException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InputException(String message) {
        super(message);
    }
}
