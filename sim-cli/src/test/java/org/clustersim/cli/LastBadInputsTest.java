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

    @Test
    void eachRangeMessageNamesTheFlagAndItsValue() {
        String small = HardeningTest.SMALL.toString();
        String[][] cases = {
            {"--threads: found 0, expected 1 to 256", "whatif", small, "--sweep", "links", "--threads", "0"},
            {"--sample: found -1, expected 0", "whatif", small, "--sweep", "links", "--sample", "-1"},
            {"--top: found -3, expected 0 or more rows", "whatif", small, "--sweep", "links", "--top", "-3"},
            {"--top: found 0, expected 1 or more", "plan", "--model", "gpt3-1.3b", "--cluster", "dgx-h100",
                "--nodes", "1", "--global-batch", "16", "--seq", "1024", "--top", "0"},
            {"--simulate: found 0, expected 1 or more", "plan", "--model", "gpt3-1.3b", "--cluster", "dgx-h100",
                "--nodes", "1", "--global-batch", "16", "--seq", "1024", "--simulate", "0"},
            {"--nodes: found -2, expected 0 or more", "plan", "--model", "gpt3-1.3b", "--cluster", "dgx-h100",
                "--nodes", "-2", "--global-batch", "16", "--seq", "1024"},
            {"--min 0B: expected a size of at least 1 byte", "collective", "--cluster", "dgx-h100", "--min", "0B"},
            {"--max 1MiB: expected at least --min 8MiB (8388608 bytes), found 1048576 bytes", "collective",
                "--cluster", "dgx-h100", "--min", "8MiB", "--max", "1MiB"},
            {"--price-per-gpu-hour: found -1.0, expected dollars", "plan", "--model", "gpt3-1.3b", "--cluster",
                "dgx-h100", "--nodes", "1", "--global-batch", "16", "--seq", "1024", "--price-per-gpu-hour", "-1"},
        };
        for (String[] c : cases) {
            String[] args = java.util.Arrays.copyOfRange(c, 1, c.length);
            HardeningTest.Result r = HardeningTest.cli(args).badInput();
            assertTrue(r.err().contains(c[0]), c[0] + " in: " + r.err());
        }
    }

    @Test
    void planChecksItsOutputFolderBeforeSearching() throws IOException {
        Path file = java.nio.file.Files.writeString(dir.resolve("plans"), "a file, not a folder");
        HardeningTest.Result r = HardeningTest.cli("plan", "--model", "gpt3-1.3b", "--cluster", "dgx-h100", "--nodes",
                "1", "--global-batch", "16", "--seq", "1024", "--space", "narrow", "--out", file.toString()).badInput();
        assertTrue(r.err().startsWith("error: --out (ranking) " + file.resolve("gpt3-1.3b-8gpus-gb16-s1024.csv")),
                r.err());
        assertFalse(r.err().contains("plan: running on"), "refused before the search: " + r.err());
        assertEquals("a file, not a folder", java.nio.file.Files.readString(file));
    }

    @Test
    void aSpaceWithNoLayoutListsWhatWasLeftOutByReason() {
        HardeningTest.Result r = HardeningTest.cli("plan", "--cluster", "dgx-h100", "--nodes", "125000", "--model",
                "gpt3-175b", "--global-batch", "1536", "--seq", "2048").badInput();
        assertTrue(r.err().contains("error: no layout of the design space fits 1000000 GPUs; left out: "
                + "microbatch x dp does not divide the global batch: "), r.err());
        assertTrue(r.err().contains("; tp x pp x cp does not divide the 1000000 GPUs: "), r.err());
        assertFalse(r.err().contains("{") || r.err().contains("="), "no Java map: " + r.err());
    }

    @Test
    void aTruncatedScenarioSaysWhatIsMissingAndWhereItWasOpened() throws IOException {
        String json = "{\n  \"name\": \"cut\",\n  \"cluster\": {\n    \"preset\": \"dgx-h100\"";
        String[][] cases = {
            {"cut.json", json, ":4:25: the file ends inside an object opened at line 3, within an object opened at "
                + "line 1 ('}}' is missing)"},
            {"list.json", "{\n  \"name\": \"cut\",\n  \"faults\": [1, 2", ":3:18: the file ends inside a list opened "
                + "at line 3, within an object opened at line 1 (']}' is missing)"},
            {"comma.json", "{\n  \"name\": \"cut\",\n", ":3:1: the file ends where a field or value is expected, "
                + "inside an object opened at line 1 (a '}' is missing)"},
            {"quote.json", "{\n  \"name\": \"cu", ":2:14: the file ends inside a quoted text, inside an object "
                + "opened at line 1 ('\"}' is missing)"},
            {"cut.yaml", "name: cut\ncluster: {preset: dgx", ":2:22: the file ends inside a '{' mapping opened at line "
                + "2, column 10 (a '}' is missing)"},
            {"quote.yaml", "name: cut\ncluster:\n  preset: \"dgx-h100\n", ":3:9: the file ends inside a quoted text "
                + "opened at line 3, column 11 (its closing quote is missing)"},
        };
        for (String[] c : cases) {
            Path file = java.nio.file.Files.writeString(dir.resolve(c[0]), c[1]);
            HardeningTest.Result r = HardeningTest.cli("validate", file.toString()).badInput();
            assertEquals("error: " + file + c[2], r.err().lines().findFirst().orElse(""), c[0]);
            assertFalse(r.err().contains("marker") || r.err().contains("Source") || r.err().contains("while "),
                    r.err());
        }
    }

    @Test
    void aDeviceProfileThatIsNotARegularFileIsNamedForWhatItIs() throws Exception {
        java.nio.file.Files.createDirectory(dir.resolve("profiles"));
        Path fifo = dir.resolve("profile.yaml");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mkfifo.waitFor());
        String small = java.nio.file.Files.readString(HardeningTest.SMALL);
        String[][] cases = {{"profiles", "a directory"}, {"profile.yaml", "a named pipe (FIFO)"}};
        for (String[] c : cases) {
            String text = small.replaceFirst("(?m)^cluster:\\n", "cluster:\n  deviceProfile: " + c[0] + "\n");
            assertTrue(text.contains("deviceProfile: " + c[0]), "the scenario names the profile");
            Path scenario = java.nio.file.Files.writeString(dir.resolve("s-" + c[0].replace('.', '-') + ".yaml"), text);
            HardeningTest.Result r = HardeningTest.cli("validate", scenario.toString()).badInput();
            assertTrue(r.err().contains("deviceProfile: found '" + c[0] + "', which is " + c[1] + " ("
                    + dir.resolve(c[0]) + "), expected a bundled profile"), r.err());
        }
    }

    @Test
    void aPlanWhosePaceShowsItWouldRunPastTheLimitIsStoppedWithTheEstimate() {
        Path out = dir.resolve("plans");
        HardeningTest.Result r = HardeningTest.cli("plan", "--model", "gpt3-1.3b", "--cluster", "dgx-h100", "--nodes",
                "4", "--global-batch", "512", "--seq", "2048", "--threads", "1", "--max-minutes", "0.001", "--out",
                out.toString()).badInput();
        assertTrue(r.err().contains("error: the search would take about "), r.err());
        assertTrue(r.err().contains("on 1 task slot, more than --max-minutes 0.001: "), r.err());
        assertTrue(r.err().contains(" layouts to screen at "), r.err());
        assertTrue(r.err().contains("narrow the space (values per knob: --schedule 8, --pp "), r.err());
        assertTrue(r.err().endsWith("or raise --max-minutes\n"), r.err());
        assertFalse(out.toFile().exists(), "nothing written");
        HardeningTest.Result zero = HardeningTest.cli("plan", "--model", "gpt3-1.3b", "--cluster", "dgx-h100",
                "--nodes", "1", "--max-minutes", "0").badInput();
        assertTrue(zero.err().contains("--max-minutes: found 0.0, expected minutes above 0"), zero.err());
    }
}
