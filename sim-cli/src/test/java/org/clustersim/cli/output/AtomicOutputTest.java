package org.clustersim.cli.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicOutputTest {
    @TempDir
    Path dir;

    @Test
    void filesAppearOnlyOnCommitAndNoTemporaryIsLeft() throws IOException {
        Path a = dir.resolve("a.txt");
        AtomicOutput out = new AtomicOutput();
        out.stage(a, o -> o.write("alpha".getBytes(StandardCharsets.UTF_8)));
        assertTrue(Files.notExists(a), "not before commit");
        out.commit();
        assertEquals("alpha", Files.readString(a));
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count(), "no temporary file left");
        }
    }

    @Test
    void aFailingContentLeavesTheOldFileAndNoTemporary() throws IOException {
        Path a = dir.resolve("a.txt");
        Files.writeString(a, "old");
        AtomicOutput out = new AtomicOutput();
        assertThrows(IOException.class, () -> out.stage(a, o -> {
            o.write("half".getBytes(StandardCharsets.UTF_8));
            throw new IOException("disk full");
        }));
        assertEquals("old", Files.readString(a));
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count());
        }
    }

    @Test
    void aSpecialFileIsWrittenToNotReplaced() throws IOException {
        Path devNull = Path.of("/dev/null");
        if (!Files.exists(devNull)) {
            return;
        }
        AtomicOutput out = new AtomicOutput();
        out.stage(devNull, o -> o.write("discarded".getBytes(StandardCharsets.UTF_8)));
        out.commit();
        assertTrue(Files.exists(devNull) && !Files.isRegularFile(devNull), "/dev/null is still a device");
    }
}
