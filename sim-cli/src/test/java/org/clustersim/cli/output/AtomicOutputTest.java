package org.clustersim.cli.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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
        IOException e = assertThrows(IOException.class, () -> out.stage(a, o -> {
            o.write("half".getBytes(StandardCharsets.UTF_8));
            throw new IOException("disk full");
        }));
        assertEquals(a + ": disk full", e.getMessage(), "names the target, not the temporary file");
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

    @Test
    void temporaryFilesHaveARecognisableNameAndGoOnSigterm() throws Exception {
        Path target = dir.resolve("out.json");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m",
                "-cp", System.getProperty("java.class.path"), StagingProbe.class.getName(), target.toString())
                .redirectErrorStream(true).start();
        try {
            String first = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8)).readLine();
            assertEquals("staging", first);
            try (var files = Files.list(dir)) {
                List<String> names = files.map(f -> f.getFileName().toString()).toList();
                assertEquals(1, names.size(), names.toString());
                assertTrue(names.get(0).startsWith(".out.json" + AtomicOutput.TEMP_MARK + p.pid() + "-")
                        && names.get(0).endsWith(".tmp"), names.get(0));
            }
            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "the probe ends on SIGTERM");
            try (var files = Files.list(dir)) {
                assertEquals(List.of(), files.toList(), "the shutdown hook removed the temporary file");
            }
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void everyTargetIsCheckedAndNothingAppearsWhenOneFails() throws IOException {
        Path a = dir.resolve("sub/a.txt");
        Path b = dir.resolve("b");
        Files.createDirectory(b);
        AtomicOutput out = new AtomicOutput();
        out.stage(a, o -> o.write(1));
        OutputException e = assertThrows(OutputException.class, () -> out.stage(b, o -> o.write(2)));
        assertEquals(b, e.target());
        assertEquals("is a directory; expected a file name", e.reason());
        assertTrue(Files.notExists(dir.resolve("sub")), "no directory was created for the staged file");
        try (var files = Files.list(dir)) {
            assertEquals(List.of(b), files.toList());
        }
        assertThrows(OutputException.class, () -> AtomicOutput.check(Path.of("")));
    }

    @Test
    void aFailingSpecialFileKeepsRegularFilesFromAppearing() throws IOException {
        Path full = Path.of("/dev/full");
        if (!Files.exists(full)) {
            return;
        }
        Path a = dir.resolve("a.txt");
        AtomicOutput out = new AtomicOutput();
        out.stage(a, o -> o.write("alpha".getBytes(StandardCharsets.UTF_8)));
        out.stage(full, o -> o.write(new byte[1 << 17]));
        OutputException e = assertThrows(OutputException.class, out::commit);
        assertEquals(full, e.target());
        assertTrue(Files.notExists(a), "the regular file did not appear");
        assertTrue(!Files.isRegularFile(full), "/dev/full is still a device");
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "no temporary file left");
        }
    }
}
