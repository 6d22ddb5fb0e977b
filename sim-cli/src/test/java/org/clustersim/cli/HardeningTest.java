package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One regression test per reproducer of issue 13 (hardening): each runs the real command line
 * in-process and checks the exit code, the message and that nothing was written or replaced.
 */
class HardeningTest {
    static final Path SMALL = Path.of("..", "scenarios", "gpt3-1.3b-pp4-gpipe.yaml");
    static final Path WITH_NVLINK = Path.of("..", "scenarios", "deepseek-v3-like-2048xh100-pp16-ep64.yaml");

    @TempDir
    Path dir;

    record Result(int code, String out, String err) {
        /** Exit 2 with one located error and no trace of Java internals. */
        Result badInput() {
            assertEquals(2, code, err);
            assertNoInternals(err);
            return this;
        }
    }

    static Result cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = ClusterSim.execute(args, new PrintWriter(out), new PrintWriter(err));
        return new Result(code, out.toString(), err.toString());
    }

    static void assertNoInternals(String err) {
        for (String leak : List.of("Exception", "\tat ", "jackson", "snakeyaml", "StreamReadConstraints", "`",
                "internal error:", ".tmp")) {
            assertFalse(err.contains(leak), "'" + leak + "' in: " + err);
        }
    }

    private Path scenario(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    private List<Path> files(Path d) throws IOException {
        try (Stream<Path> s = Files.walk(d)) {
            return s.filter(Files::isRegularFile).toList();
        }
    }

    // 1. non-finite numbers

    @Test
    void nonFiniteNumbersAreLocatedErrors() throws IOException {
        String base = Files.readString(WITH_NVLINK);
        // the field's own line, wherever the bundled file puts it
        int line = 1 + (int) base.substring(0, base.indexOf("nvlinkBandwidthGBps:")).chars().filter(c -> c == '\n')
                .count();
        for (String bad : List.of(".inf", "-.inf", ".nan", ".NaN", "+.Inf", "1e999")) {
            Path s = scenario("inf.yaml", base.replaceFirst("nvlinkBandwidthGBps: \\d+", "nvlinkBandwidthGBps: "
                    + bad));
            Result r = cli("validate", s.toString()).badInput();
            assertTrue(r.err().contains("inf.yaml:" + line + ":24: cluster.nvlinkBandwidthGBps: found " + bad
                    + ", expected a finite number"), r.err());
        }
        Path json = scenario("n.json", "{\"training\": {\"seqLen\": NaN}}");
        Result r = cli("validate", json.toString()).badInput();
        assertTrue(r.err().matches("(?s).*n\\.json:1:\\d+: found NaN, expected a finite number.*"), r.err());
    }

    // 2. special files

    @Test
    void devNullIsWrittenToAndStaysADevice() {
        Result r = cli("run", SMALL.toString(), "--trace", "/dev/null");
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.exists(Path.of("/dev/null")) && !Files.isRegularFile(Path.of("/dev/null")));
    }

    @Test
    void devFullFailsNamingItAndNothingElseAppears() throws IOException {
        Path full = Path.of("/dev/full");
        if (!Files.exists(full)) {
            return;
        }
        Path summary = dir.resolve("s.json");
        Result r = cli("run", SMALL.toString(), "--trace", "/dev/full", "--summary", summary.toString()).badInput();
        assertTrue(r.err().contains("cannot write /dev/full: No space left on device; nothing was written"), r.err());
        assertFalse(Files.isRegularFile(full), "/dev/full is still a device");
        assertEquals(List.of(), files(dir));
    }

    @Test
    void aNamedPipeIsWrittenToNotReplaced() throws Exception {
        Path fifo = dir.resolve("trace.json");
        if (new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() != 0) {
            return;
        }
        CompletableFuture<byte[]> reader = CompletableFuture.supplyAsync(() -> {
            try (InputStream in = Files.newInputStream(fifo)) {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        Result r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> cli("run", SMALL.toString(), "--trace",
                fifo.toString()));
        assertEquals(0, r.code(), r.err());
        String trace = new String(reader.get(), StandardCharsets.UTF_8);
        assertTrue(trace.startsWith("{") && trace.contains("traceEvents"), trace.substring(0, 40));
        assertEquals("a named pipe (FIFO)", org.clustersim.core.input.InputFile.kind(fifo,
                Files.readAttributes(fifo, java.nio.file.attribute.BasicFileAttributes.class)));
    }

    // 3. partial output

    @Test
    void aBadSecondTargetStopsTheRunBeforeAnythingIsWritten() throws IOException {
        Path out = dir.resolve("OUT");
        Files.createDirectory(out);
        Result r = cli("run", SMALL.toString(), "--trace", out.resolve("t.json").toString(), "--summary",
                out.toString()).badInput();
        assertTrue(r.err().contains("--summary " + out + ": is a directory; expected a file name"), r.err());
        assertFalse(r.out().contains("simulated"), "refused before simulating: " + r.out());
        assertEquals(List.of(), files(dir));
    }

    @Test
    void whatifWritesNoTraceWhenItsJsonTargetIsADirectory() throws IOException {
        Path traces = dir.resolve("D");
        Path json = dir.resolve("DIR");
        Files.createDirectory(json);
        Result r = cli("whatif", SMALL.toString(), "--slow", "node0.gpu1=0.5", "--trace-dir", traces.toString(),
                "--json", json.toString()).badInput();
        assertTrue(r.err().contains("--json " + json + ": is a directory"), r.err());
        assertFalse(Files.exists(traces), "the trace directory was not even created");
        assertEquals(List.of(), files(dir));
    }

    @Test
    void twoOutputsOnOneFileAreRefused() {
        Path same = dir.resolve("x.json");
        Result r = cli("run", SMALL.toString(), "--trace", same.toString(), "--summary", same.toString()).badInput();
        assertTrue(r.err().contains("--summary " + same + ": the same file as --trace"), r.err());
        assertFalse(Files.exists(same));
    }

    @Test
    void aLinkToAFileNotYetWrittenIsWrittenThrough() throws IOException {
        Path link = dir.resolve("link.json");
        Files.createSymbolicLink(link, Path.of("real.json"));
        Result r = cli("run", SMALL.toString(), "--no-trace", "--summary", link.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.isSymbolicLink(link), "the link stays a link");
        assertTrue(Files.readString(dir.resolve("real.json")).contains("\"stepTimeSeconds\""));
    }

    @Test
    void anUnwritablePlaceIsNamedNotItsTemporaryFile() {
        Path proc = Path.of("/proc/version");
        if (!Files.exists(proc)) {
            return;
        }
        Result r = cli("run", SMALL.toString(), "--no-trace", "--summary", proc.toString()).badInput();
        assertTrue(r.err().contains("cannot write /proc/version: cannot create a file in /proc"), r.err());
    }

    // 4. runaway size

    @Test
    void runawaySizesAreRefusedWithTheEstimate() throws IOException {
        Path big = scenario("big.yaml", Files.readString(SMALL).replace("globalBatch: 8", "globalBatch: 16777216")
                .replaceAll("\\n  trace: .*", "\n  trace: " + dir.resolve("t.json")));
        Result v = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> cli("validate", big.toString()))
                .badInput();
        assertTrue(v.out().contains("work: estimated 1.9G tasks"), v.out());
        assertTrue(v.err().contains("needs more tasks than one simulation can hold"), v.err());
        Result run = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> cli("run", big.toString())).badInput();
        assertTrue(run.err().contains("estimated 1.9G tasks") && run.err().contains("simulation.replicas: one"),
                run.err());
        assertEquals(List.of(big), files(dir));
        for (String[] args : List.of(new String[] {"schedule", "--kind", "1f1b", "-p", "100000"},
                new String[] {"bubbles", "-p", "8", "-m", "10000000"},
                new String[] {"schedule", "--kind", "1f1b", "--unit", "1e-12"})) {
            Result r = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> cli(args)).badInput();
            assertTrue(r.err().contains("estimated") && r.err().contains("nothing was simulated"), r.err());
        }
        Result g = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> cli("goodput", SMALL.toString(),
                "--days", "1", "--checkpoint-every", "1h", "--replications", "2000000000")).badInput();
        assertTrue(g.err().contains("--replications: found 2000000000, expected 1 to 100000"), g.err());
    }

    @Test
    void validatePrintsTheEstimateOfAScenarioThatFits() {
        Result r = cli("validate", SMALL.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().matches("(?s).*work: estimated \\d+ tasks, \\d+ events, [0-9.]+ [kMG]i?B of heap.*"), r.out());
    }

    @Test
    void outOfMemoryIsACleanExitWithAdvice() {
        StringWriter err = new StringWriter();
        assertEquals(1, ClusterSim.outOfMemory(new PrintWriter(err)));
        assertTrue(err.toString().contains("-Xmx") && err.toString().contains("simulation.replicas: one")
                && err.toString().contains("--no-trace"), err.toString());
        assertNoInternals(err.toString());
    }

    // 5. hangs

    @Test
    void goodputFlagsAreBoundedAndNeverHang() {
        for (String[] extra : List.of(new String[] {"--days", "Infinity"}, new String[] {"--days", "1e9"},
                new String[] {"--days", "1", "--mtbf-gpu", "1e-9"}, new String[] {"--days", "NaN"})) {
            String[] args = Stream.concat(Stream.of("goodput", SMALL.toString(), "--checkpoint-every", "1h"),
                    Stream.of(extra)).toArray(String[]::new);
            Result r = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> cli(args)).badInput();
            assertTrue(r.err().contains(extra[extra.length - 2] + ": found"), r.err());
        }
        Result many = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> cli("goodput", SMALL.toString(),
                "--days", "3650", "--checkpoint-every", "1s", "--mtbf-gpu", "0.01", "--replications", "100000"))
                .badInput();
        assertTrue(many.err().contains("events") && many.err().contains("Try fewer --days"), many.err());
    }

    // 6. long values

    @Test
    void aHugeFileIsRefusedBeforeParsing() throws IOException {
        Path huge = dir.resolve("huge.yaml");
        Files.writeString(huge, "name: " + "x".repeat(6_000_000) + "\n");
        Result r = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> cli("validate", huge.toString()))
                .badInput();
        assertTrue(r.err().contains("huge.yaml: the file is larger than 1 MiB (6.0 MB)"), r.err());
        Path longValue = scenario("long.yaml", "name: " + "x".repeat(100_000) + "\n");
        Result l = cli("validate", longValue.toString()).badInput();
        assertTrue(l.err().contains("long.yaml:1:") && l.err().contains("longer than 65536 characters"), l.err());
    }

    // 7. unclear messages

    @Test
    void aDirectoryOrPipeGivenAsTheScenarioIsNamedForWhatItIs() throws Exception {
        Path d = dir.resolve("d.yaml");
        Files.createDirectory(d);
        assertTrue(cli("validate", d.toString()).badInput().err().contains("d.yaml: found a directory, expected a "
                + "YAML file"));
        Path fifo = dir.resolve("f.yaml");
        if (new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0) {
            Result r = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> cli("run", fifo.toString()))
                    .badInput();
            assertTrue(r.err().contains("f.yaml: found a named pipe (FIFO), expected a YAML file"), r.err());
        }
    }

    @Test
    void bytesThatAreNotUtf8AreLocated() throws IOException {
        Path bad = dir.resolve("bad.yaml");
        Files.write(bad, new byte[] {'n', 'a', 'm', 'e', ':', ' ', 'x', '\n', 'm', ':', ' ', (byte) 0xff, '\n'});
        Result r = cli("validate", bad.toString()).badInput();
        assertTrue(r.err().contains("bad.yaml:2:4: found the byte 0xFF, which is not UTF-8 text"), r.err());
    }

    @Test
    void anEscapedControlCharacterInATextIsRefused() throws IOException {
        Path s = scenario("nul.yaml", "name: \"a\\0b\"\n");
        Result r = cli("validate", s.toString()).badInput();
        assertTrue(r.err().contains("nul.yaml:1:7: name: the text holds the control character U+0000"), r.err());
    }

    @Test
    void aTabUsedToIndentIsSaidSo() throws IOException {
        Path tab = scenario("tab.yaml", "model:\n  layers: 2\ncluster:\n\tpreset: dgx-h100\n");
        Result r = cli("validate", tab.toString()).badInput();
        assertTrue(r.err().contains("line 4 is indented with a tab; YAML indents with spaces only"), r.err());
    }

    @Test
    void parserLimitsAreReportedInOurWordsWithALine() throws IOException {
        StringBuilder deep = new StringBuilder("a:\n");
        for (int i = 0; i < 100; i++) {
            deep.append("  ".repeat(i + 1)).append("k").append(i).append(":\n");
        }
        Result r = cli("validate", scenario("deep.yaml", deep.toString()).toString()).badInput();
        assertTrue(r.err().matches("(?s).*deep\\.yaml:\\d+:\\d+: nested deeper than 64 levels.*"), r.err());
        Path deepJson = scenario("deep.json", "[".repeat(5000));
        Result j = cli("validate", deepJson.toString()).badInput();
        assertTrue(j.err().matches("(?s).*deep\\.json:1:\\d+: nested deeper than 64 levels.*"), j.err());
    }

    @Test
    void duplicateKeysNameTheFieldPath() throws IOException {
        Path dup = scenario("dup.yaml", "model:\n  layers: 1\n  layers: 2\n");
        Result r = cli("validate", dup.toString()).badInput();
        assertTrue(r.err().contains("dup.yaml:3:3: model.layers: given twice; the first is on line 2"), r.err());
    }

    @Test
    void anEmptyTraceNameIsRefusedBeforeSimulating() {
        Result r = cli("run", SMALL.toString(), "--trace=").badInput();
        assertTrue(r.err().contains("--trace (empty): an empty file name"), r.err());
        assertFalse(r.out().contains("simulated"), r.out());
    }

    @Test
    void topologyErrorsCiteItsOwnParameter() {
        Result r = cli("topology", "nosuch").badInput();
        assertFalse(r.err().contains("--cluster"), r.err());
        assertTrue(r.err().contains("PRESET_OR_SCENARIO: 'nosuch' is neither a preset"), r.err());
    }

    @Test
    void noCommandListsEveryCommand() {
        Result r = cli();
        assertEquals(2, r.code());
        for (String c : List.of("run", "validate", "schedule", "bubbles", "collective", "presets", "topology",
                "whatif", "goodput", "calibrate")) {
            assertTrue(r.err().lines().findFirst().orElseThrow().contains(c), c + " in " + r.err());
        }
    }

    // 8. silently accepted nonsense

    @Test
    void aFaultAfterTheStepWarns() throws IOException {
        Path s = scenario("late.yaml", Files.readString(SMALL).replaceAll("\\noutput:\\n  trace: .*", "")
                + "faults:\n  - switch: node0.nvswitch\n    at: 100s\n");
        Result r = cli("run", s.toString(), "--no-trace");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().matches("(?s)warning: fault at 100\\.0 s \\(faults\\[0\\]\\.switch, line \\d+\\) starts after the "
                + "step ended at [0-9.]+ ms; it had no effect.*"), r.err());
    }

    @Test
    void aCollectiveOfOneRankIsAnError() {
        Path json = dir.resolve("c.json");
        Result r = cli("collective", "--cluster", "dgx-h100", "--ranks", "3", "--json", json.toString()).badInput();
        assertTrue(r.err().contains("--ranks 3: selects 1 GPU; a collective needs at least 2 ranks"), r.err());
        assertFalse(Files.exists(json));
    }

    @Test
    void jsonOutputRefusesNonFiniteNumbers() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> OutputFiles.json(java.util.Map.of("x", Double.NaN)).writeTo(bytes));
        assertTrue(e.getMessage().contains("/x"), e.getMessage());
    }
}
