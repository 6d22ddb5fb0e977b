package org.clustersim.cli;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Standard output that remembers why a write failed. The {@link java.io.PrintWriter} the commands
 * print through swallows I/O errors and keeps only a flag; this keeps the first failure's reason
 * so that a command whose output went to a full disk or a closed pipe can say so and fail.
 */
final class StandardOutput extends FilterOutputStream {
    private IOException failure;

    StandardOutput(OutputStream out) {
        super(out);
    }

    /** The first write or flush failure, or null when every byte went out. */
    IOException failure() {
        return failure;
    }

    @Override
    public void write(int b) throws IOException {
        try {
            out.write(b);
        } catch (IOException e) {
            throw remember(e);
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        try {
            out.write(b, off, len);
        } catch (IOException e) {
            throw remember(e);
        }
    }

    @Override
    public void flush() throws IOException {
        try {
            out.flush();
        } catch (IOException e) {
            throw remember(e);
        }
    }

    private IOException remember(IOException e) {
        if (failure == null) {
            failure = e;
        }
        return e;
    }
}
