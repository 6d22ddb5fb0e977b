package org.clustersim.cli;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.clustersim.core.input.InputException;
import org.clustersim.study.scenario.Placement;
import org.clustersim.study.scenario.SharedScenario;
import org.clustersim.study.scenario.SharedScenarioReader;
import org.clustersim.study.shared.SharedRun;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code clustersim place SHARED.yaml}: the jobs of a shared-cluster file placed by each policy in
 * turn (jobs with explicit servers keep them), each placement simulated together and every job
 * alone on its servers; prints each job's servers, step time together and alone and slowdown, and
 * the cluster's aggregate throughput per policy, best first.
 */
@Command(name = "place", mixinStandardHelpOptions = true,
        description = "Compare placement policies on a shared-cluster file: every policy-placed job placed by each "
                + "policy in turn, simulated together and alone; each job's slowdown and the aggregate throughput.")
public final class PlaceCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SHARED", description = "Shared-cluster file (a jobs list).")
    Path file;

    @Option(names = "--policies", paramLabel = "LIST", split = ",", defaultValue = "packed,spread,random,first-fit",
            description = "Policies to compare, comma-separated (default: ${DEFAULT-VALUE}).")
    List<String> policies;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1", description = "Seed of the random policy "
            + "(default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--csv", paramLabel = "FILE.csv", description = "Also write one row per policy and job as CSV.")
    Path csv;

    @Spec
    CommandSpec spec;

    /** One policy's outcome. */
    private record Outcome(Placement.Policy policy, SharedRun run) {
    }

    @Override
    public Integer call() throws IOException {
        List<Placement.Policy> chosen = new ArrayList<>();
        for (String p : policies) {
            Placement.Kind kind = java.util.Arrays.stream(Placement.Kind.values())
                    .filter(k -> k.id().equals(p.trim().toLowerCase(Locale.ROOT))).findFirst()
                    .orElseThrow(() -> new CommandLine.ParameterException(spec.commandLine(), "--policies: found '" + p
                            + "', expected packed, spread, random or first-fit"));
            if (chosen.stream().anyMatch(c -> c.kind() == kind)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--policies: " + p + " given twice");
            }
            chosen.add(new Placement.Policy(kind, seed));
        }
        if (csv != null) {
            OutputFiles.check("--csv", csv);
        }
        SharedScenario shared = new SharedScenarioReader().read(file);
        if (shared.jobs().stream().allMatch(j -> j.placement() instanceof Placement.Servers)) {
            throw new InputException(file + ": every job names its servers; give at least one a placement policy to "
                    + "compare policies");
        }
        List<Outcome> outcomes = new ArrayList<>();
        for (Placement.Policy p : chosen) {
            SharedScenario placed;
            try {
                placed = shared.placedBy(p);
            } catch (InputException e) {
                throw new InputException(file + ": placed by " + p.describe() + ": " + e.getMessage());
            }
            for (SharedScenario.Job j : placed.jobs()) {
                WorkEstimate.of(j.scenario(), j.scenario().trainingStep(), false).requireFits();
            }
            outcomes.add(new Outcome(p, SharedRun.of(placed, false, Runtime.getRuntime().availableProcessors())));
        }
        List<Outcome> ranked = new ArrayList<>(outcomes);
        ranked.sort((a, b) -> Double.compare(b.run().tokensPerSecond(), a.run().tokensPerSecond()));
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "cluster    %s: %s%n", shared.name(), shared.cluster().describe());
        out.printf(Locale.ROOT, "%-16s %-14s %-22s %14s %14s %9s %15s%n", "policy", "job", "servers", "step together",
                "step alone", "slowdown", "tokens/s");
        for (Outcome o : ranked) {
            for (SharedRun.JobRun j : o.run().jobs()) {
                out.printf(Locale.ROOT, "%-16s %-14s %-22s %14s %14s %8.4fx %,15.0f%n", o.policy().describe(),
                        j.job().name(), abbreviate(Placement.ranges(j.job().servers())), time(j.figures().stepTimeNs()),
                        time(j.alone().stepTimeNs()), j.slowdown(), j.figures().tokensPerSecond());
            }
            out.printf(Locale.ROOT, "%-16s %-14s %-22s %14s %14s %9s %,15.0f%n", o.policy().describe(), "aggregate", "",
                    "", "", "", o.run().tokensPerSecond());
        }
        out.printf(Locale.ROOT, "best       %s: %,.0f tokens/s%n", ranked.get(0).policy().describe(),
                ranked.get(0).run().tokensPerSecond());
        if (csv != null) {
            Map<Path, org.clustersim.cli.output.AtomicOutput.Content> files = new LinkedHashMap<>();
            files.put(csv, o -> {
                Writer w = new OutputStreamWriter(o, StandardCharsets.UTF_8);
                w.write("policy,job,servers,stepTimeNs,aloneStepTimeNs,slowdown,tokensPerSecond,aggregateTokensPerSecond\n");
                for (Outcome x : outcomes) {
                    for (SharedRun.JobRun j : x.run().jobs()) {
                        w.write(String.format(Locale.ROOT, "%s,%s,\"%s\",%d,%d,%.6f,%.3f,%.3f%n", x.policy().describe(),
                                j.job().name(), Placement.ranges(j.job().servers()), j.figures().stepTimeNs(),
                                j.alone().stepTimeNs(), j.slowdown(), j.figures().tokensPerSecond(),
                                x.run().tokensPerSecond()));
                    }
                }
                w.flush();
            });
            OutputFiles.write(files);
            out.printf("csv        %s%n", csv);
        }
        out.flush();
        return 0;
    }

    private static String abbreviate(String ranges) {
        return ranges.length() <= 22 ? ranges : ranges.substring(0, 19) + "...";
    }

    private static String time(long ns) {
        return String.format(Locale.ROOT, ns >= 1_000_000_000L ? "%.4f s" : "%.3f ms",
                ns >= 1_000_000_000L ? ns / 1e9 : ns / 1e6);
    }
}
