package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import com.code_intelligence.jazzer.junit.FuzzTest;

import org.clustersim.cli.output.AtomicOutput;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;

/**
 * Coverage-guided fuzzing (Jazzer) of the whole command line: the scenario reader through every
 * command that reads a scenario, and every command's argument parsing. The property checked for
 * every input is the promise of docs/reliability.md: exit 0 or 2, never 1; never a stack trace;
 * no output file (and no temporary file) left on exit 2; and bounded time.
 *
 * <p>An input is raw bytes: {@code [command, flag count n, n x (flag, value), scenario bytes...]}.
 * Flags and values index small dictionaries per command (typical and hostile values: 0, -1, NaN,
 * Infinity, 1e-12, empty text, a directory, /dev/full...), so that mutations explore flag
 * combinations; the remaining bytes are written as the scenario (or measurement) file, so the
 * reader sees arbitrary bytes. Every output path is inside a fresh sandbox directory (or a
 * device), and simulating commands always get explicit outputs, so no input can write elsewhere.
 *
 * <p>Without {@code JAZZER_FUZZ} (every {@code mvn verify}) it replays the committed corpus in
 * {@code src/test/resources/org/clustersim/cli/CommandLineFuzzTestInputs/commandLine/}, seeded from
 * the bundled scenarios; with {@code JAZZER_FUZZ=1} it fuzzes for {@code JAZZER_MAX_DURATION} (15 s in
 * {@code mvn verify}) or else ten minutes: see docs/reliability.md for the long run before a release.
 */
class CommandLineFuzzTest {
    /** Scenarios larger than this are only validated, so one input stays within seconds. */
    static final long MAX_TASKS_SIMULATED = 30_000;
    /** Clusters larger than this are only validated (building their graph takes seconds). */
    static final long MAX_GPUS_SIMULATED = 256;
    /** Wall time one input may take. */
    static final long MAX_MILLIS = 60_000;

    static final String[] COMMANDS = {"validate", "run", "schedule", "bubbles", "collective", "presets", "topology",
        "whatif", "goodput", "calibrate"};

    /** Flags per command; a flag ending in '!' takes no value. */
    static final String[][] FLAGS = {
        {"--help!"},
        {"--no-trace!", "--allow-oom!", "--csv", "--summary", "--trace"},
        {"--kind", "-p", "-m", "-v", "--f", "--bi", "--w", "--fb", "--latency", "--unit", "--trace"},
        {"-p", "-m", "-v", "--f", "--bi", "--w", "--fb", "--latency", "--json"},
        {"--op", "--ranks", "--algo", "--min", "--max", "--factor", "--fidelity", "--routing", "--fail", "--degrade",
            "--json"},
        {"--help!"},
        {"--links!"},
        {"--fail", "--degrade", "--slow", "--sweep", "--sample", "--seed", "--slow-factor", "--threads", "--json",
            "--csv", "--no-trace!", "--top"},
        {"--days", "--checkpoint-every", "--checkpoint-cost", "--restart-cost", "--mtbf-gpu", "--mtbf-host",
            "--mtbf-link", "--mtbf-switch", "--replications", "--seed", "--json"},
        {"--gemm", "--attention", "--memory-bandwidth", "--nccl", "--nccl-op", "-o", "--name", "--gemm-best"},
    };

    /** Flags that name a file to write. */
    static final Set<String> OUTPUTS = Set.of("--csv", "--summary", "--trace", "--json", "-o");

    /** Values; {@code @NAME} is a path in the sandbox, {@code @SCENARIO} the fuzzed file. */
    static final String[] VALUES = {"", "0", "-1", "1", "2", "3", "8", "64", "1e-12", "1e9", "Infinity", "NaN",
        "-0", "2147483648", "abc", "all", "0-7", "node:0", "rail:0", "ring", "auto", "tree", "8B", "64KiB", "8GiB",
        "1h", "30s", "0s", "optimal", "sweep", "links", "stragglers", "links=nvlink", "node0.gpu1=0.5",
        "node0.gpu0->node0.nvswitch", "node0.nvswitch", "bf16=700", "allreduce", "alltoall", "gpipe", "1f1b",
        "interleaved", "zb-v", "dualpipev", "flow", "analytical", "adaptive", "h100-sxm", "0.5", "1e300",
        "@out.json", "@out.csv", "@dir", "@existing.json", "@missing/sub/x.json", "@existing.json/x.json",
        "@SCENARIO", "/dev/null", "/dev/full"};

    /** How a Java stack trace looks, line by line. */
    static final java.util.regex.Pattern STACK_TRACE = java.util.regex.Pattern.compile(
            "(?m)^(?:\\s+at [\\w$.]+\\(|Caused by: |(?:[a-z_][\\w$]*\\.)+[A-Z][\\w$]*(?:Exception|Error)\\b)");

    /** Bundled scenario files, the seeds' source. */
    static final Path SCENARIOS = Path.of("..", "scenarios");

    @FuzzTest(maxDuration = "10m")
    void commandLine(byte[] input) throws IOException {
        Path sandbox = Files.createTempDirectory("clustersim-fuzz");
        try {
            check(input, sandbox);
        } finally {
            delete(sandbox);
        }
    }

    private static void check(byte[] input, Path sandbox) throws IOException {
        int at = 0;
        int command = input.length > at ? (input[at++] & 0xff) % COMMANDS.length : 0;
        int flagCount = input.length > at ? (input[at++] & 0xff) % 6 : 0;
        List<String[]> flags = new ArrayList<>();
        for (int i = 0; i < flagCount && at + 1 < input.length; i++, at += 2) {
            String[] dict = FLAGS[command];
            flags.add(new String[] {dict[(input[at] & 0xff) % dict.length],
                VALUES[(input[at + 1] & 0xff) % VALUES.length]});
        }
        byte[] file = Arrays.copyOfRange(input, Math.min(at, input.length), input.length);
        String ext = command == 9 ? ".csv" : looksLikeJson(file) ? ".json" : ".yaml";
        Path scenario = sandbox.resolve("scenario" + ext);
        Files.write(scenario, file);
        Files.createDirectory(sandbox.resolve("dir"));
        Files.writeString(sandbox.resolve("existing.json"), "old");

        String name = COMMANDS[command];
        if (isSimulating(name) && !small(scenario)) {
            name = "validate"; // a large scenario is work, not a bug: only read and estimate it
            flags.clear();
        }
        List<String> args = new ArrayList<>(List.of(name));
        switch (name) {
            case "validate", "run", "topology", "whatif", "goodput" -> args.add(scenario.toString());
            case "collective" -> args.addAll(List.of("--cluster", small(scenario) ? scenario.toString() : "dgx-h100",
                    "--max", "64KiB"));
            case "calibrate" -> args.addAll(List.of("--base", "h100-sxm", "--gemm", scenario.toString()));
            case "schedule" -> args.addAll(List.of("--kind", "1f1b"));
            default -> {
            }
        }
        boolean traceGiven = false;
        for (String[] f : flags) {
            if (f[0].endsWith("!")) {
                args.add(f[0].substring(0, f[0].length() - 1));
                continue;
            }
            traceGiven |= f[0].equals("--trace") || f[0].equals("--no-trace!");
            args.add(f[0]);
            String v = value(f[1], sandbox, scenario);
            // an output named by a bare word lands in the sandbox, never in the working directory
            args.add(OUTPUTS.contains(f[0]) && !v.isEmpty() && !Path.of(v).isAbsolute() ? sandbox.resolve(v).toString()
                    : v);
        }
        // outputs never default to the working directory: simulating commands get explicit ones
        if (name.equals("run") && !traceGiven) {
            args.add("--no-trace");
        }
        if (name.equals("run") && flags.stream().noneMatch(f -> f[0].equals("--summary"))) {
            args.addAll(List.of("--summary", sandbox.resolve("summary.json").toString()));
        }
        if (name.equals("whatif")) {
            args.addAll(List.of("--trace-dir", sandbox.resolve("traces").toString(), "--threads", "1"));
            if (flags.stream().noneMatch(f -> f[0].equals("--sample"))) {
                args.addAll(List.of("--sample", "3"));
            }
        }
        if (name.equals("goodput") && flags.stream().noneMatch(f -> f[0].equals("--checkpoint-every"))) {
            args.addAll(List.of("--checkpoint-every", "2h"));
        }
        if (name.equals("goodput") && flags.stream().noneMatch(f -> f[0].equals("--days"))) {
            args.addAll(List.of("--days", "7"));
        }
        if (name.equals("goodput") && flags.stream().noneMatch(f -> f[0].equals("--replications"))) {
            args.addAll(List.of("--replications", "3"));
        }
        Set<String> before = listing(sandbox);

        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        long t0 = System.nanoTime();
        int code = ClusterSim.execute(args.toArray(String[]::new), new PrintWriter(out), new PrintWriter(err));
        long millis = (System.nanoTime() - t0) / 1_000_000;

        String where = String.join(" ", args) + "\n--- stderr:\n" + err;
        if (code != 0 && code != 2) {
            fail("exit " + code + " (expected 0 or 2): " + where);
        }
        // user text is echoed in messages, so only the shape of a trace counts: a line that is a
        // frame, a "Caused by", or starts with an exception's class name (messages start "error: ")
        assertFalse(STACK_TRACE.matcher(err.toString()).find(), "a stack trace: " + where);
        assertTrue(millis < MAX_MILLIS, millis + " ms: " + where);
        Set<String> after = listing(sandbox);
        assertTrue(after.stream().noneMatch(p -> p.contains(AtomicOutput.TEMP_MARK)), "temporary file left: "
                + after + "\n" + where);
        if (code == 2) {
            assertEquals(before, after, "files written on exit 2: " + where);
            assertEquals("old", Files.readString(sandbox.resolve("existing.json")), "replaced on exit 2: " + where);
        }
    }

    private static boolean isSimulating(String command) {
        return Set.of("run", "whatif", "goodput", "topology", "collective").contains(command);
    }

    /** Whether the file is a scenario small enough to simulate within the time bound (or not a scenario at all). */
    private static boolean small(Path scenario) {
        try {
            Scenario s = new ScenarioReader().read(scenario);
            return s.cluster().gpus() <= MAX_GPUS_SIMULATED && WorkEstimate.of(s, false).tasks() <= MAX_TASKS_SIMULATED;
        } catch (RuntimeException e) {
            return true; // rejected input: the command fails fast, which is what is under test
        }
    }

    private static boolean looksLikeJson(byte[] file) {
        return file.length > 0 && (file[0] == '{' || file[0] == '[');
    }

    private static String value(String v, Path sandbox, Path scenario) {
        if (v.equals("@SCENARIO")) {
            return scenario.toString();
        }
        return v.startsWith("@") ? sandbox.resolve(v.substring(1)).toString() : v;
    }

    private static Set<String> listing(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.map(p -> dir.relativize(p).toString()).collect(java.util.stream.Collectors.toCollection(
                    TreeSet::new));
        }
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    /** The seed of a command with flags (pairs of flag and value indexes) and a file's bytes. */
    static byte[] seed(int command, int[][] flags, byte[] file) {
        byte[] head = new byte[2 + 2 * flags.length];
        head[0] = (byte) command;
        head[1] = (byte) flags.length;
        for (int i = 0; i < flags.length; i++) {
            head[2 + 2 * i] = (byte) flags[i][0];
            head[3 + 2 * i] = (byte) flags[i][1];
        }
        byte[] all = Arrays.copyOf(head, head.length + file.length);
        System.arraycopy(file, 0, all, head.length, file.length);
        return all;
    }

    static int valueIndex(String v) {
        int i = Arrays.asList(VALUES).indexOf(v);
        if (i < 0) {
            throw new IllegalArgumentException(v);
        }
        return i;
    }

    static int flagIndex(int command, String flag) {
        int i = Arrays.asList(FLAGS[command]).indexOf(flag);
        if (i < 0) {
            throw new IllegalArgumentException(flag);
        }
        return i;
    }

    /**
     * Writes the seed corpus: every bundled scenario for validate, the small one for every
     * scenario command, and flag seeds for the others. Run by hand after changing the input format:
     * {@code mvn -pl sim-cli -am test -Dtest=CommandLineFuzzTest#writeSeeds -Dseeds=write}
     * (also after adding a bundled scenario).
     */
    @org.junit.jupiter.api.Test
    void writeSeeds() throws IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue("write".equals(System.getProperty("seeds")),
                "writes the seed corpus only when asked (-Dseeds=write)");
        Path dir = Path.of("src", "test", "resources", "org", "clustersim", "cli", "CommandLineFuzzTestInputs",
                "commandLine");
        List<Path> scenarios;
        try (Stream<Path> s = Files.list(SCENARIOS)) {
            scenarios = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        java.util.Map<String, byte[]> seeds = new java.util.TreeMap<>();
        for (Path p : scenarios) {
            seeds.put("validate-" + p.getFileName(), seed(0, new int[0][], Files.readAllBytes(p)));
        }
        byte[] small = Files.readAllBytes(SCENARIOS.resolve("gpt3-1.3b-pp4-gpipe.yaml"));
        seeds.put("run-small", seed(1, new int[][] {{flagIndex(1, "--csv"), valueIndex("@out.csv")}}, small));
        seeds.put("topology-small", seed(6, new int[][] {{0, 0}}, small));
        seeds.put("whatif-small", seed(7, new int[][] {{flagIndex(7, "--slow"), valueIndex("node0.gpu1=0.5")},
            {flagIndex(7, "--json"), valueIndex("@out.json")}}, small));
        seeds.put("goodput-small", seed(8, new int[][] {{flagIndex(8, "--json"), valueIndex("@out.json")}}, small));
        seeds.put("collective-small", seed(4, new int[][] {{flagIndex(4, "--ranks"), valueIndex("0-7")}}, small));
        seeds.put("schedule", seed(2, new int[][] {{flagIndex(2, "--kind"), valueIndex("zb-v")},
            {flagIndex(2, "-p"), valueIndex("8")}}, new byte[0]));
        seeds.put("bubbles", seed(3, new int[][] {{flagIndex(3, "-p"), valueIndex("3")}}, new byte[0]));
        seeds.put("presets", seed(5, new int[0][], new byte[0]));
        seeds.put("calibrate", seed(9, new int[0][], ("m,n,k,dtype,tflops\n8192,8192,8192,bf16,700\n"
                + "4096,4096,4096,bf16,600\n").getBytes(StandardCharsets.UTF_8)));
        Files.createDirectories(dir);
        for (var e : seeds.entrySet()) {
            Files.write(dir.resolve(e.getKey()), e.getValue());
        }
    }
}
