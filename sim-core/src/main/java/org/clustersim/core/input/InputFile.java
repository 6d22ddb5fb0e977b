package org.clustersim.core.input;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Locale;

/**
 * The one way a user's input file (scenario, device profile, measurement CSV) is read: it says
 * precisely what the path is when it is not a regular file (a directory, a named pipe, a
 * device), caps the size before any parser sees a byte (parsers scan long values in quadratic
 * time, and a scenario is kilobytes), and checks that the bytes are UTF-8 text without control
 * characters, naming the line and column of the first bad byte. A named pipe is never opened, so
 * reading can never block.
 */
public final class InputFile {
    /** Largest scenario or profile accepted: a thousand times the largest bundled scenario. */
    public static final long MAX_STRUCTURED_BYTES = 1L << 20;
    /** Largest measurement file (CSV, nccl-tests output) accepted. */
    public static final long MAX_MEASUREMENT_BYTES = 16L << 20;

    private InputFile() {
    }

    /**
     * The file's text.
     *
     * @param file     as the user named it (messages show it unchanged)
     * @param maxBytes size limit
     * @param expected what the file should be, for messages ("a scenario file")
     * @throws InputFileException when the path is not a readable regular file within the limit of UTF-8 text
     */
    public static String readText(Path file, long maxBytes, String expected) {
        checkKind(file, expected);
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
        } catch (IOException e) {
            throw fail(file, SourceLocation.NONE, "cannot read: " + reason(e));
        }
        if (bytes.length > maxBytes) {
            throw fail(file, SourceLocation.NONE, "the file is larger than " + size(maxBytes) + " (" + size(sizeOf(file))
                    + "), the limit for " + expected + "; is it the right file?");
        }
        return decode(file, bytes);
    }

    /**
     * Checks that {@code file} exists and is a regular file (symbolic links followed), without opening it.
     *
     * @throws InputFileException saying what it is instead
     */
    public static void checkKind(Path file, String expected) {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            boolean dangling = Files.isSymbolicLink(file);
            throw fail(file, SourceLocation.NONE, dangling ? "a symbolic link to a file that does not exist"
                    : "no such file" + missingParent(file));
        } catch (IOException e) {
            throw fail(file, SourceLocation.NONE, "cannot read: " + reason(e));
        }
        if (a.isRegularFile()) {
            return;
        }
        throw fail(file, SourceLocation.NONE, "found " + kind(file, a) + ", expected " + expected);
    }

    /** What a path that is not a regular file is, in words: "a directory", "a named pipe (FIFO)", ... */
    public static String kind(Path file, BasicFileAttributes a) {
        if (a.isDirectory()) {
            return "a directory";
        }
        if (a.isRegularFile()) {
            return "a regular file";
        }
        try {
            int mode = (Integer) Files.getAttribute(file, "unix:mode");
            switch (mode & 0170000) {
                case 0010000:
                    return "a named pipe (FIFO)";
                case 0020000:
                    return "a character device";
                case 0060000:
                    return "a block device";
                case 0140000:
                    return "a socket";
                default:
                    break;
            }
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            // no unix attributes on this file system: fall through to the generic word
        }
        return "a special file";
    }

    private static String missingParent(Path file) {
        Path parent = file.toAbsolutePath().getParent();
        return parent != null && !Files.isDirectory(parent) ? " (the directory " + parent + " does not exist)" : "";
    }

    private static String decode(Path file, byte[] bytes) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length + 1);
        CoderResult r = decoder.decode(in, out, true);
        if (r.isError()) {
            int at = in.position();
            String before = new String(bytes, 0, at, StandardCharsets.UTF_8);
            throw fail(file, locationAfter(before), String.format(Locale.ROOT, "found the byte 0x%02X, which is not "
                    + "UTF-8 text; save the file as UTF-8", bytes[at] & 0xff));
        }
        decoder.flush(out);
        out.flip();
        String text = out.toString();
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
                throw fail(file, locationAfter(text.substring(0, i)), String.format(Locale.ROOT,
                        "found the control character U+%04X, expected text", (int) c));
            }
        }
        return text;
    }

    /** The line and column of the character that follows {@code prefix}. */
    static SourceLocation locationAfter(String prefix) {
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < prefix.length(); i++) {
            if (prefix.charAt(i) == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        return new SourceLocation(line, prefix.codePointCount(lineStart, prefix.length()) + 1);
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return -1;
        }
    }

    /** Bytes in words: 1.5 MB, 1 MiB. */
    public static String size(long bytes) {
        if (bytes < 0) {
            return "size unknown";
        }
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1_000_000_000L) {
            return String.format(Locale.ROOT, "%.1f GB", bytes / 1e9);
        }
        if (bytes >= 1_000_000) {
            return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
        }
        if (bytes >= 1_000) {
            return String.format(Locale.ROOT, "%.1f kB", bytes / 1e3);
        }
        return bytes + " bytes";
    }

    /** An I/O error's reason without the exception's class name. */
    public static String reason(IOException e) {
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static InputFileException fail(Path file, SourceLocation at, String message) {
        return InputFileException.single(file, at, "", message);
    }
}
