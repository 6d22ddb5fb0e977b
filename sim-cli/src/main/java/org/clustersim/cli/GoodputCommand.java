package org.clustersim.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.clustersim.study.engine.TaskEngine;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.study.whatif.Cable;
import org.clustersim.study.whatif.Outcome;
import org.clustersim.study.whatif.WhatIfStudy;
import org.clustersim.core.input.InputException;
import org.clustersim.core.reliability.FailureClass;
import org.clustersim.core.reliability.FailureRates;
import org.clustersim.core.reliability.LongRun;
import org.clustersim.topology.Topology;
import org.clustersim.topology.VertexKind;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code clustersim goodput SCENARIO --days D --checkpoint-every T}: the simulated step time
 * combined with failure processes over a long run ({@link LongRun}), as seeded replications
 * with a 95% confidence interval of the mean.
 */
@Command(name = "goodput", mixinStandardHelpOptions = true,
        description = "Expected interruptions, effective training time and tokens over a long run, from the "
                + "simulated step time, failure rates, checkpoint and restart costs.")
public final class GoodputCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SCENARIO", description = "Scenario file (.yaml, .yml or .json).")
    Path scenarioFile;

    /** Longest run accepted: ten years. */
    static final double MAX_DAYS = 3650;
    /** MTBF range accepted for any component, hours. */
    static final double MIN_MTBF_H = 0.01;
    static final double MAX_MTBF_H = 1e9;
    /** Most replications accepted. */
    static final int MAX_REPLICATIONS = 100_000;
    /** Longest checkpoint or restart cost accepted: thirty days. */
    static final double MAX_COST_S = 30 * 86_400;

    @Option(names = "--days", paramLabel = "D", required = true, description = "Wall-clock length of the run "
            + "(at most 3650).")
    double days;

    @Option(names = "--checkpoint-every", paramLabel = "DURATION", required = true,
            description = "Training time between checkpoints, e.g. 30m, 2h, 900s; 'optimal' for Young/Daly's "
                    + "sqrt(2 x checkpoint cost x MTBF); or 'sweep' to try 1/4 to 4 times that and keep the best.")
    String checkpointEvery;

    @Option(names = "--checkpoint-cost", paramLabel = "DURATION", defaultValue = "30s",
            description = "Time training stops to save a checkpoint (default ${DEFAULT-VALUE}).")
    String checkpointCost;

    @Option(names = "--restart-cost", paramLabel = "DURATION", defaultValue = "5m",
            description = "Detection, rescheduling and reload after a failure (default ${DEFAULT-VALUE}).")
    String restartCost;

    @Option(names = "--mtbf-gpu", paramLabel = "HOURS", description = "Per-GPU MTBF, 0.01 to 1e9 (default ${DEFAULT-VALUE}).")
    double mtbfGpu = FailureRates.GPU_MTBF_H;

    @Option(names = "--mtbf-host", paramLabel = "HOURS", description = "Per-server MTBF, 0.01 to 1e9 (default ${DEFAULT-VALUE}).")
    double mtbfHost = FailureRates.HOST_MTBF_H;

    @Option(names = "--mtbf-link", paramLabel = "HOURS", description = "Per scale-out cable MTBF, 0.01 to 1e9 (default "
            + "${DEFAULT-VALUE}).")
    double mtbfLink = FailureRates.LINK_MTBF_H;

    @Option(names = "--mtbf-switch", paramLabel = "HOURS", description = "Per scale-out switch MTBF, 0.01 to 1e9 (default "
            + "${DEFAULT-VALUE}).")
    double mtbfSwitch = FailureRates.SWITCH_MTBF_H;

    @Option(names = "--replications", paramLabel = "N", defaultValue = "20",
            description = "Seeded replications (default ${DEFAULT-VALUE}, at most 100000).")
    int replications;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "First seed (default ${DEFAULT-VALUE}).")
    long seed;

    @CommandLine.Mixin
    TaskEngineOptions engineOptions = new TaskEngineOptions();

    @Option(names = "--json", paramLabel = "FILE.json", description = "Also write the result as JSON.")
    Path json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (engineOptions.threads < 1 || engineOptions.threads > 256) {
            throw usage("--threads: found " + engineOptions.threads + ", expected 1 to 256");
        }
        if (!(days > 0 && days <= MAX_DAYS)) {
            throw usage("--days: found " + days + ", expected a number of days in (0, " + (int) MAX_DAYS + "]");
        }
        if (replications < 1 || replications > MAX_REPLICATIONS) {
            throw usage("--replications: found " + replications + ", expected 1 to " + MAX_REPLICATIONS);
        }
        String[] mtbfFlags = {"--mtbf-gpu", "--mtbf-host", "--mtbf-link", "--mtbf-switch"};
        double[] mtbfs = {mtbfGpu, mtbfHost, mtbfLink, mtbfSwitch};
        for (int i = 0; i < mtbfs.length; i++) {
            if (!(mtbfs[i] >= MIN_MTBF_H && mtbfs[i] <= MAX_MTBF_H)) {
                throw usage(mtbfFlags[i] + ": found " + mtbfs[i] + ", expected hours from " + MIN_MTBF_H
                        + " to 1e9");
            }
        }
        OutputFiles.check("--json", json);
        double saveS = seconds(checkpointCost, "--checkpoint-cost");
        double restartS = seconds(restartCost, "--restart-cost");
        if (!checkpointEvery.equals("sweep") && !checkpointEvery.equals("optimal")) {
            seconds(checkpointEvery, "--checkpoint-every");
        }
        Scenario scenario = new ScenarioReader().read(scenarioFile);
        WorkEstimate.of(scenario, false).requireFits();
        WhatIfStudy study = new WhatIfStudy(scenario);
        Outcome step = study.run("baseline", "", List.of(), null);
        if (step.failed()) {
            throw new InputException("the scenario's faults cut the cluster apart: " + step.failure());
        }
        Topology t = study.topology();
        long cables = Cable.all(t).stream().filter(c -> !c.clazz().equals("nvlink") && !c.clazz().equals("gpu-nic"))
                .count();
        long switches = t.vertices().stream().filter(v -> v.kind() == VertexKind.SWITCH).count();
        List<FailureClass> classes = FailureRates.of(t.deviceCount(), scenario.cluster().nodes(), cables, switches,
                mtbfGpu, mtbfHost, mtbfLink, mtbfSwitch);
        LongRun probe = new LongRun(days * 86_400, 1, saveS, restartS, classes);
        List<Map<String, Double>> sweepRows = new java.util.ArrayList<>();
        double intervalS;
        LongRun run;
        List<LongRun.Outcome> outcomes;
        double plannedS = checkpointEvery.equals("sweep") || checkpointEvery.equals("optimal")
                ? probe.youngDalyIntervalS()
                : seconds(checkpointEvery, "--checkpoint-every");
        double perReplication = days * 86_400 * (probe.failureRate() + 1 / plannedS) + 1;
        double sweeps = checkpointEvery.equals("sweep") ? 17 * 4 : 1; // 17 intervals down to a quarter of Young/Daly's
        WorkEstimate.longRun("goodput over " + days + " days x " + replications + " replications",
                perReplication * replications * (1 + sweeps)).requireFits();
        try (TaskEngine tasks = engineOptions.open("clustersim goodput " + scenario.name())) {
            if (checkpointEvery.equals("sweep")) {
                intervalS = sweepIntervals(tasks, probe, sweepRows);
            } else {
                intervalS = checkpointEvery.equals("optimal") ? probe.youngDalyIntervalS()
                        : seconds(checkpointEvery, "--checkpoint-every");
            }
            run = probe.withInterval(intervalS);
            outcomes = replicate(tasks, List.of(run)).get(0);
        }
        double stepS = step.stepTimeNs() / 1e9;
        double tokensPerStep = (double) scenario.training().globalBatch() * scenario.training().seqLen();
        Stats interruptions = Stats.of(outcomes.stream().mapToDouble(o -> o.interruptions()).toArray());
        Stats effective = Stats.of(outcomes.stream().mapToDouble(LongRun.Outcome::effectiveFraction).toArray());
        Stats tokens = Stats.of(outcomes.stream().mapToDouble(o -> o.trainedS() / stepS * tokensPerStep).toArray());
        Stats saving = Stats.of(outcomes.stream().mapToDouble(o -> o.checkpointingS() / run.durationS()).toArray());
        Stats restarting = Stats.of(outcomes.stream().mapToDouble(o -> o.restartingS() / run.durationS()).toArray());
        Stats lost = Stats.of(outcomes.stream().mapToDouble(o -> o.lostS() / run.durationS()).toArray());

        var out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "scenario      %s: step %.4f s simulated, %.0f tokens per step%n", scenario.name(),
                stepS, tokensPerStep);
        out.printf(Locale.ROOT, "run           %.1f days, checkpoint every %s (save %s), restart %s%n", days,
                clock(intervalS), clock(saveS), clock(restartS));
        out.println("failures      class      count        MTBF (h)   per day");
        for (FailureClass c : classes) {
            out.printf(Locale.ROOT, "              %-8s %7d %15.0f %9.2f%n", c.name(), c.count(), c.mtbfHours(),
                    c.ratePerSecond() * 86_400);
        }
        out.printf(Locale.ROOT, "              job MTBF %.2f h, Young/Daly interval sqrt(2 x save x MTBF) = %s%n%n",
                run.mtbfSeconds() / 3600, clock(run.youngDalyIntervalS()));
        if (!sweepRows.isEmpty()) {
            out.println("checkpoint interval sweep, same seeds (mean effective training time):");
            for (Map<String, Double> row : sweepRows) {
                double iv = row.get("intervalSeconds");
                out.printf(Locale.ROOT, "  %10s  %7.3f%%%s%n", clock(iv), 100 * row.get("effectiveTrainingFraction"),
                        iv == intervalS ? "  <- best" : "");
            }
            out.println();
        }
        out.printf(Locale.ROOT, "over %d replications (seeds %d..%d), mean and 95%% confidence interval:%n",
                replications, seed, seed + replications - 1);
        out.printf(Locale.ROOT, "interruptions            %9.1f  (%.1f .. %.1f)%n", interruptions.mean,
                interruptions.low(), interruptions.high());
        out.printf(Locale.ROOT, "effective training time  %8.2f%%  (%.2f%% .. %.2f%%)%n", 100 * effective.mean,
                100 * effective.low(), 100 * effective.high());
        out.printf(Locale.ROOT, "tokens trained           %9.4g  (%.4g .. %.4g)%n", tokens.mean, tokens.low(),
                tokens.high());
        out.printf(Locale.ROOT, "time lost to             saving %.2f%%, restarts %.2f%%, work redone %.2f%%%n",
                100 * saving.mean, 100 * restarting.mean, 100 * lost.mean);
        out.flush();
        if (json != null) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("scenario", scenario.name());
            doc.put("stepTimeSeconds", stepS);
            doc.put("days", days);
            doc.put("checkpointIntervalSeconds", intervalS);
            doc.put("checkpointCostSeconds", saveS);
            doc.put("restartCostSeconds", restartS);
            doc.put("failureClasses", classes);
            doc.put("jobMtbfHours", run.mtbfSeconds() / 3600);
            doc.put("youngDalyIntervalSeconds", run.youngDalyIntervalS());
            doc.put("replications", replications);
            if (!sweepRows.isEmpty()) {
                doc.put("intervalSweep", sweepRows);
            }
            doc.put("seed", seed);
            doc.put("interruptions", interruptions.asMap());
            doc.put("effectiveTrainingFraction", effective.asMap());
            doc.put("tokensTrained", tokens.asMap());
            doc.put("fractionSaving", saving.asMap());
            doc.put("fractionRestarting", restarting.asMap());
            doc.put("fractionRedone", lost.asMap());
            OutputFiles.writeJson(json, doc);
        }
        return 0;
    }

    /**
     * Tries intervals from 1/4 to 4 times Young/Daly's in steps of 2^(1/4), every one with the same
     * seeds (so they face the same failure times), and returns the best.
     */
    private double sweepIntervals(TaskEngine tasks, LongRun probe, List<Map<String, Double>> rows) {
        double youngDaly = probe.youngDalyIntervalS();
        double best = youngDaly;
        double bestFraction = -1;
        List<LongRun> runs = new java.util.ArrayList<>();
        for (int i = -8; i <= 8; i++) {
            runs.add(probe.withInterval(youngDaly * Math.pow(2, i / 4.0)));
        }
        List<List<LongRun.Outcome>> all = replicate(tasks, runs);
        for (int i = -8; i <= 8; i++) {
            double interval = runs.get(i + 8).checkpointIntervalS();
            double fraction = all.get(i + 8).stream()
                    .mapToDouble(LongRun.Outcome::effectiveFraction).average().orElse(0);
            Map<String, Double> row = new LinkedHashMap<>();
            row.put("intervalSeconds", interval);
            row.put("effectiveTrainingFraction", fraction);
            rows.add(row);
            if (fraction > bestFraction) {
                bestFraction = fraction;
                best = interval;
            }
        }
        return best;
    }

    /** One replication: a long run and its seed. */
    record Replication(LongRun run, long seed) implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
    }

    /**
     * Every run's replications with seeds seed, seed + 1, ... (as {@link LongRun#replicate}), each
     * a task of {@code tasks}; per run, outcomes in seed order.
     */
    private List<List<LongRun.Outcome>> replicate(TaskEngine tasks, List<LongRun> runs) {
        List<Replication> all = new java.util.ArrayList<>();
        for (LongRun r : runs) {
            for (int i = 0; i < replications; i++) {
                all.add(new Replication(r, seed + i));
            }
        }
        List<LongRun.Outcome> outcomes = tasks.map(all, x -> x.run().simulate(new java.util.SplittableRandom(x.seed())),
                org.clustersim.study.engine.Progress.silent());
        List<List<LongRun.Outcome>> out = new java.util.ArrayList<>();
        for (int r = 0; r < runs.size(); r++) {
            out.add(outcomes.subList(r * replications, (r + 1) * replications));
        }
        return out;
    }

    /** Mean and the half-width of its 95% confidence interval (normal approximation). */
    record Stats(double mean, double halfWidth) {
        static Stats of(double[] v) {
            double mean = java.util.Arrays.stream(v).average().orElse(0);
            double var = 0;
            for (double x : v) {
                var += (x - mean) * (x - mean);
            }
            double sd = v.length > 1 ? Math.sqrt(var / (v.length - 1)) : 0;
            return new Stats(mean, 1.96 * sd / Math.sqrt(v.length));
        }

        double low() {
            return mean - halfWidth;
        }

        double high() {
            return mean + halfWidth;
        }

        Map<String, Double> asMap() {
            Map<String, Double> m = new LinkedHashMap<>();
            m.put("mean", mean);
            m.put("ci95Low", low());
            m.put("ci95High", high());
            return m;
        }
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** A duration such as 90s, 30m, 2h or 1.5d. */
    private double seconds(String text, String flag) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        String[][] units = {{"min", "60"}, {"s", "1"}, {"m", "60"}, {"h", "3600"}, {"d", "86400"}};
        for (String[] u : units) {
            if (t.endsWith(u[0])) {
                try {
                    double v = Double.parseDouble(t.substring(0, t.length() - u[0].length()).trim());
                    if ((v > 0 || (v == 0 && !flag.equals("--checkpoint-every")))
                            && v * Double.parseDouble(u[1]) <= MAX_COST_S * 12) {
                        return v * Double.parseDouble(u[1]);
                    }
                } catch (NumberFormatException e) {
                    break;
                }
            }
        }
        throw usage(flag + " " + text + ": expected a duration such as 90s, 30m, 2h or 1.5d (at most 360d)"
                + (flag.equals("--checkpoint-every") ? ", or optimal, or sweep" : ""));
    }

    static String clock(double s) {
        if (s >= 3600) {
            return String.format(Locale.ROOT, "%.2f h", s / 3600);
        }
        if (s >= 60) {
            return String.format(Locale.ROOT, "%.1f min", s / 60);
        }
        return String.format(Locale.ROOT, "%.0f s", s);
    }
}
