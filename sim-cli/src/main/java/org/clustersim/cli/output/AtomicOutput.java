package org.clustersim.cli.output;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.clustersim.core.input.InputFile;

/**
 * The output files of one command, written as one transaction: all of them appear, or none.
 * <ul>
 * <li>{@link #check} tells, before any work, whether a path can be written (not a directory,
 * not empty, its directory creatable and writable, a device or named pipe written directly);
 * commands check every target before simulating.</li>
 * <li>{@link #stage} writes a regular file under a temporary name
 * ({@code .NAME.clustersim-PID-RANDOM.tmp}) in the nearest existing directory of its target;
 * nothing else is created yet.</li>
 * <li>{@link #commit} first streams the content of special targets (/dev/null, /dev/stdout,
 * a named pipe, a character device) into them, then creates missing directories and renames
 * every temporary file over its target. A special file is never renamed over or replaced;
 * if writing it fails (/dev/full), no regular file appears.</li>
 * <li>{@link #discard}, a failure anywhere, or the JVM shutting down (SIGTERM, Ctrl-C) deletes
 * every temporary file still there.</li>
 * </ul>
 * Errors are {@link OutputException}s naming the user's path, never the temporary one.
 */
public final class AtomicOutput {
    /** Writes the content of one file. */
    @FunctionalInterface
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    /** Prefix of the middle part of every temporary file's name, so that a leftover is recognisable. */
    public static final String TEMP_MARK = ".clustersim-";

    /** Temporary files of every transaction in this JVM, deleted by the shutdown hook. */
    private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(AtomicOutput::deleteLive, "clustersim-output-cleanup"));
    }

    /** Where one target resolves to and how it is written. */
    private record Target(Path given, Path resolved, boolean special) {
    }

    private record Pending(Target target, Path temp) {
    }

    private record Special(Target target, Content content) {
    }

    private final List<Pending> pending = new ArrayList<>();
    private final List<Special> special = new ArrayList<>();
    private final Set<Path> seen = new HashSet<>();

    /**
     * Checks that {@code target} can be written, writing nothing.
     *
     * @throws OutputException naming {@code target} and why not
     */
    public static void check(Path target) throws OutputException {
        resolve(target);
    }

    private static Target resolve(Path given) throws OutputException {
        if (given.toString().isEmpty()) {
            throw new OutputException(given, "an empty file name; give a file name");
        }
        Path path = given;
        if (Files.isSymbolicLink(given) && Files.exists(given)
                && given.toAbsolutePath().normalize().startsWith(Path.of("/dev"))) {
            // /dev/stdout, /dev/stderr, /dev/fd/N: the stream the shell opened, even when it is a file
            return new Target(given, given, true);
        }
        if (Files.isSymbolicLink(given)) {
            try {
                path = given.toRealPath();
            } catch (IOException e) {
                if (Files.exists(given)) {
                    path = given; // /dev/stdout -> /proc/self/fd/1 -> a pipe: no real path, but it is there
                } else {
                    try {
                        // a link to a file not written yet: write where it points
                        Path parent = given.toAbsolutePath().getParent();
                        path = parent.resolve(Files.readSymbolicLink(given));
                    } catch (IOException | UnsupportedOperationException e2) {
                        throw new OutputException(given, "a symbolic link that cannot be followed");
                    }
                    if (Files.isSymbolicLink(path)) {
                        throw new OutputException(given, "a chain of symbolic links to a missing file; give the file "
                                + "itself");
                    }
                }
            }
        }
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            a = null;
        } catch (IOException e) {
            Path dir = existingAncestor(path.toAbsolutePath().normalize());
            throw new OutputException(given, dir != null && !Files.isDirectory(dir) ? dir + " is a file, not a directory"
                    : InputFile.reason(e));
        }
        if (a != null) {
            if (a.isDirectory()) {
                throw new OutputException(given, "is a directory; expected a file name");
            }
            if (!a.isRegularFile()) {
                String kind = InputFile.kind(path, a);
                if (kind.contains("pipe") || kind.contains("character device")) {
                    return new Target(given, path, true);
                }
                throw new OutputException(given, "is " + kind + "; refusing to write to it");
            }
            if (!Files.isWritable(path)) {
                throw new OutputException(given, "is read-only");
            }
        }
        Path abs = path.toAbsolutePath().normalize();
        Path dir = existingAncestor(abs);
        if (dir == null || !Files.isDirectory(dir)) {
            throw new OutputException(given, (dir == null ? "no directory to create it in"
                    : dir + " is a file, not a directory"));
        }
        if (!Files.isWritable(dir)) {
            throw new OutputException(given, "cannot create files in " + dir + " (permission denied)");
        }
        if (abs.getFileName() == null) {
            throw new OutputException(given, "expected a file name");
        }
        return new Target(given, abs, false);
    }

    /** The nearest ancestor of {@code file} that exists (its parent, when the directory is there). */
    private static Path existingAncestor(Path file) {
        Path dir = file.getParent();
        while (dir != null && !Files.exists(dir)) {
            dir = dir.getParent();
        }
        return dir;
    }

    /** Writes {@code content} to a temporary file for {@code target} (a special target is written on commit). */
    public void stage(Path target, Content content) throws IOException {
        Target t;
        try {
            t = resolve(target);
            if (!seen.add(t.resolved())) {
                throw new OutputException(target, "given twice as an output of one command");
            }
        } catch (OutputException e) {
            discard();
            throw e;
        }
        if (t.special()) {
            special.add(new Special(t, content));
            return;
        }
        Path temp;
        Path dir = existingAncestor(t.resolved());
        try {
            temp = Files.createTempFile(dir, tempPrefix(t.resolved()), ".tmp");
        } catch (IOException e) {
            discard();
            throw new OutputException(target, "cannot create a file in " + dir + " (" + reason(e) + ")");
        }
        LIVE.add(temp);
        pending.add(new Pending(t, temp));
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp), 1 << 16)) {
            content.writeTo(out);
            out.flush();
            readableByAll(temp);
        } catch (OutputException e) {
            discard();
            throw e;
        } catch (IOException e) {
            discard();
            throw new OutputException(target, reason(e));
        } catch (RuntimeException | Error e) {
            discard();
            throw e;
        }
    }

    private static String tempPrefix(Path target) {
        String name = target.getFileName().toString();
        if (name.length() > 80) {
            name = name.substring(0, 80);
        }
        return "." + name + TEMP_MARK + ProcessHandle.current().pid() + "-";
    }

    /** Writes every special target, then moves every staged file into place. */
    public void commit() throws IOException {
        try {
            for (Special s : special) {
                try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(s.target().resolved(),
                        StandardOpenOption.WRITE, StandardOpenOption.APPEND), 1 << 16)) {
                    s.content().writeTo(out);
                } catch (OutputException e) {
                    throw e;
                } catch (IOException e) {
                    throw new OutputException(s.target().given(), reason(e));
                }
            }
            for (Pending p : pending) {
                Path target = p.target().resolved();
                try {
                    Files.createDirectories(target.getParent());
                    try {
                        Files.move(p.temp(), target, StandardCopyOption.ATOMIC_MOVE,
                                StandardCopyOption.REPLACE_EXISTING);
                    } catch (AtomicMoveNotSupportedException e) {
                        Files.move(p.temp(), target, StandardCopyOption.REPLACE_EXISTING);
                    }
                    LIVE.remove(p.temp());
                } catch (IOException e) {
                    throw new OutputException(p.target().given(), reason(e));
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

    /** An I/O failure's reason, without the temporary file's name. */
    private static String reason(IOException e) {
        if (e instanceof FileSystemException f) {
            if (f.getReason() != null) {
                return f.getReason();
            }
            // the message of a reason-less one is the (temporary) path itself: never show it
            return e instanceof java.nio.file.AccessDeniedException ? "permission denied"
                    : e instanceof NoSuchFileException ? "no such file or directory" : "refused by the file system";
        }
        String m = e.getMessage();
        return m == null ? "cannot write" : m;
    }

    /** Deletes every staged temporary file that is still there. */
    public void discard() {
        for (Pending p : pending) {
            try {
                Files.deleteIfExists(p.temp());
            } catch (IOException ignored) {
                // best effort: the shutdown hook tries again; the target was never touched
            }
            LIVE.remove(p.temp());
        }
        pending.clear();
        special.clear();
        seen.clear();
    }

    private static void deleteLive() {
        for (Path p : LIVE) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // nothing more can be done while the JVM exits
            }
        }
    }
}
