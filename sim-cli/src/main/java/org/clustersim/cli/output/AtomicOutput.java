package org.clustersim.cli.output;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A set of output files written all-or-nothing: each file is first written under a temporary
 * name next to its target, and only when every one is complete are they moved into place. A
 * failure leaves no half-written file behind. A target that exists and is not a regular file
 * (a device such as /dev/null or /dev/stdout, a named pipe) is never replaced: its content is
 * held in memory and written to it on commit, after the regular files are in place.
 */
public final class AtomicOutput {
    /** Writes the content of one file. */
    @FunctionalInterface
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    private record Pending(Path target, Path temp) {
    }

    private record Special(Path target, byte[] content) {
    }

    private final List<Pending> pending = new ArrayList<>();
    private final List<Special> special = new ArrayList<>();

    /** Writes {@code content} to a temporary file beside {@code target} (to memory for a special file). */
    public void stage(Path target, Content content) throws IOException {
        if (Files.exists(target) && !Files.isRegularFile(target) && !Files.isDirectory(target)) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try {
                content.writeTo(bytes);
            } catch (IOException | RuntimeException e) {
                discard();
                throw e;
            }
            special.add(new Special(target, bytes.toByteArray()));
            return;
        }
        Path abs = target.toAbsolutePath();
        Path dir = abs.getParent();
        Files.createDirectories(dir);
        Path temp = Files.createTempFile(dir, "." + abs.getFileName(), ".tmp");
        pending.add(new Pending(abs, temp));
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp), 1 << 16)) {
            content.writeTo(out);
            out.flush();
            readableByAll(temp);
        } catch (IOException | RuntimeException e) {
            discard();
            throw e;
        }
    }

    /** Moves every staged file into place. */
    public void commit() throws IOException {
        try {
            for (Pending p : pending) {
                try {
                    Files.move(p.temp(), p.target(), StandardCopyOption.ATOMIC_MOVE,
                            StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(p.temp(), p.target(), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            for (Special s : special) {
                try (OutputStream out = Files.newOutputStream(s.target(), StandardOpenOption.WRITE)) {
                    out.write(s.content());
                }
            }
        } finally {
            discard();
        }
    }

    /** Temporary files are created owner-only; outputs are ordinary files readable by everyone (rw-r--r--). */
    private static void readableByAll(Path file) throws IOException {
        if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        }
    }

    /** Deletes every staged temporary file that is still there. */
    public void discard() {
        for (Pending p : pending) {
            try {
                Files.deleteIfExists(p.temp());
            } catch (IOException ignored) {
                // best effort: a leftover temp file is harmless, the target was never touched
            }
        }
        pending.clear();
        special.clear();
    }
}
