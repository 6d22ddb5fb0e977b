package org.clustersim.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.clustersim.core.input.InputException;
import org.clustersim.study.engine.TaskEngine;
import org.clustersim.study.goodput.CheckpointInterval;
import org.clustersim.study.goodput.GoodputInput;
import org.clustersim.study.goodput.GoodputResult;
import org.clustersim.study.goodput.GoodputStudy;
import org.clustersim.study.goodput.Mean;
import org.clustersim.study.goodput.Replications;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.core.reliability.FailureClass;
import org.clustersim.core.reliability.FailureRates;
import org.clustersim.core.reliability.LongRun;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code clustersim goodput SCENARIO --days D --checkpoint-every T}: the simulated step time
 * combined with failure processes over a long run ({@link LongRun}), as seeded replications
 * with a 95% confidence interval of the mean. The command checks the flags, prints and writes
 * the JSON; {@link GoodputStudy} computes.
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
        engineOptions.check();
        double saveS = seconds(checkpointCost, "--checkpoint-cost");
        double restartS = seconds(restartCost, "--restart-cost");
        CheckpointInterval interval = switch (checkpointEvery) {
            case "sweep" -> new CheckpointInterval.Sweep();
            case "optimal" -> new CheckpointInterval.YoungDaly();
            default -> new CheckpointInterval.Fixed(seconds(checkpointEvery, "--checkpoint-every"));
        };
        Scenario scenario = new ScenarioReader().read(scenarioFile);
        WorkEstimate.of(scenario, false).requireFits();
        GoodputStudy study = GoodputStudy.of(scenario, new GoodputInput(days, interval, saveS, restartS, mtbfGpu,
                mtbfHost, mtbfLink, mtbfSwitch, replications, seed));
        if (study.step().failed()) {
            throw new InputException("the scenario's faults cut the cluster apart: " + study.step().failure());
        }
        WorkEstimate.longRun("goodput over " + days + " days x " + replications + " replications",
                study.expectedEvents()).requireFits();
        GoodputResult result;
        try (TaskEngine tasks = engineOptions.open("clustersim goodput " + scenario.name())) {
            result = study.run(tasks);
        }
        print(scenario.name(), saveS, restartS, result);
        if (json != null) {
            OutputFiles.writeJson(json, document(scenario.name(), saveS, restartS, result));
        }
        return 0;
    }

    private void print(String scenarioName, double saveS, double restartS, GoodputResult r) {
        double intervalS = r.intervalS();
        LongRun run = r.run();
        var out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "scenario      %s: step %.4f s simulated, %.0f tokens per step%n", scenarioName,
                r.stepS(), r.tokensPerStep());
        out.printf(Locale.ROOT, "run           %.1f days, checkpoint every %s (save %s), restart %s%n", days,
                clock(intervalS), clock(saveS), clock(restartS));
        out.println("failures      class      count        MTBF (h)   per day");
        for (FailureClass c : r.failureClasses()) {
            out.printf(Locale.ROOT, "              %-8s %7d %15.0f %9.2f%n", c.name(), c.count(), c.mtbfHours(),
                    c.ratePerSecond() * 86_400);
        }
        out.printf(Locale.ROOT, "              job MTBF %.2f h, Young/Daly interval sqrt(2 x save x MTBF) = %s%n%n",
                run.mtbfSeconds() / 3600, clock(run.youngDalyIntervalS()));
        if (!r.sweep().isEmpty()) {
            out.println("checkpoint interval sweep, same seeds (mean effective training time):");
            for (Replications.SweepPoint row : r.sweep()) {
                double iv = row.intervalSeconds();
                out.printf(Locale.ROOT, "  %10s  %7.3f%%%s%n", clock(iv), 100 * row.effectiveTrainingFraction(),
                        iv == intervalS ? "  <- best" : "");
            }
            out.println();
        }
        out.printf(Locale.ROOT, "over %d replications (seeds %d..%d), mean and 95%% confidence interval:%n",
                replications, seed, seed + replications - 1);
        Mean interruptions = r.interruptions();
        Mean effective = r.effectiveFraction();
        Mean tokens = r.tokens();
        out.printf(Locale.ROOT, "interruptions            %9.1f  (%.1f .. %.1f)%n", interruptions.mean(),
                interruptions.low(), interruptions.high());
        out.printf(Locale.ROOT, "effective training time  %8.2f%%  (%.2f%% .. %.2f%%)%n", 100 * effective.mean(),
                100 * effective.low(), 100 * effective.high());
        out.printf(Locale.ROOT, "tokens trained           %9.4g  (%.4g .. %.4g)%n", tokens.mean(), tokens.low(),
                tokens.high());
        out.printf(Locale.ROOT, "time lost to             saving %.2f%%, restarts %.2f%%, work redone %.2f%%%n",
                100 * r.savingFraction().mean(), 100 * r.restartingFraction().mean(), 100 * r.redoneFraction().mean());
        out.flush();
    }

    private Map<String, Object> document(String scenarioName, double saveS, double restartS, GoodputResult r) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("scenario", scenarioName);
        doc.put("stepTimeSeconds", r.stepS());
        doc.put("days", days);
        doc.put("checkpointIntervalSeconds", r.intervalS());
        doc.put("checkpointCostSeconds", saveS);
        doc.put("restartCostSeconds", restartS);
        doc.put("failureClasses", r.failureClasses());
        doc.put("jobMtbfHours", r.run().mtbfSeconds() / 3600);
        doc.put("youngDalyIntervalSeconds", r.run().youngDalyIntervalS());
        doc.put("replications", replications);
        if (!r.sweep().isEmpty()) {
            List<Map<String, Double>> rows = new ArrayList<>();
            for (Replications.SweepPoint p : r.sweep()) {
                Map<String, Double> row = new LinkedHashMap<>();
                row.put("intervalSeconds", p.intervalSeconds());
                row.put("effectiveTrainingFraction", p.effectiveTrainingFraction());
                rows.add(row);
            }
            doc.put("intervalSweep", rows);
        }
        doc.put("seed", seed);
        doc.put("interruptions", asMap(r.interruptions()));
        doc.put("effectiveTrainingFraction", asMap(r.effectiveFraction()));
        doc.put("tokensTrained", asMap(r.tokens()));
        doc.put("fractionSaving", asMap(r.savingFraction()));
        doc.put("fractionRestarting", asMap(r.restartingFraction()));
        doc.put("fractionRedone", asMap(r.redoneFraction()));
        return doc;
    }

    private static Map<String, Double> asMap(Mean m) {
        Map<String, Double> out = new LinkedHashMap<>();
        out.put("mean", m.mean());
        out.put("ci95Low", m.low());
        out.put("ci95High", m.high());
        return out;
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
