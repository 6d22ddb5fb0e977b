package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The last bad-input classes of issue 34, item 8: each runs the real command line in-process and
 * checks the exit code and the one message a user sees.
 */
class LastBadInputsTest {
    @TempDir
    Path dir;

    /** Standard output on a full disk: every write fails as /dev/full's do. */
    private static final class FullDisk extends OutputStream {
        @Override
        public void write(int b) throws IOException {
            throw new IOException("No space left on device");
        }
    }

    private static HardeningTest.Result toFullDisk(String... args) {
        StandardOutput stdout = new StandardOutput(new FullDisk());
        StringWriter err = new StringWriter();
        int code = ClusterSim.execute(args, new PrintWriter(stdout, true), new PrintWriter(err), stdout);
        return new HardeningTest.Result(code, "", err.toString());
    }

    @Test
    void aCommandWhoseStandardOutputCannotBeWrittenFails() {
        List<String[]> commands = new ArrayList<>();
        commands.add(new String[] {"schema"});
        commands.add(new String[] {"calibrate", "--base", "h100-sxm", "--gemm", CalibrateCommandTest.GEMM});
        commands.add(new String[] {"presets"});
        for (String[] args : commands) {
            HardeningTest.Result r = toFullDisk(args).badInput();
            assertEquals("error: cannot write standard output: No space left on device; what was printed is "
                    + "incomplete\n", r.err(), String.join(" ", args));
        }
    }

    @Test
    void aClosedPipeFailsQuietly() {
        StandardOutput stdout = new StandardOutput(new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("Broken pipe");
            }
        });
        StringWriter err = new StringWriter();
        int code = ClusterSim.execute(new String[] {"schema"}, new PrintWriter(stdout, true), new PrintWriter(err),
                stdout);
        assertEquals(ClusterSim.BAD_INPUT, code);
        assertEquals("", err.toString(), "the reader stopped reading on purpose (| head)");
    }

    @Test
    void aCommandThatPrintsNothingOnAFullDiskStillSucceeds() {
        Path out = dir.resolve("schema.json");
        HardeningTest.Result r = toFullDisk("schema", "-o", out.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(out.toFile().length() > 0);
        assertFalse(r.err().contains("standard output"), r.err());
    }
}
