package org.clustersim.study.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToLongFunction;

import org.clustersim.core.engine.DeadlockException;
import org.clustersim.core.input.InputException;
import org.clustersim.core.input.InputFileException;
import org.clustersim.strategies.training.StepWalk;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.study.SimulatedStep;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;

/**
 * How well {@link StepWalk}'s step time agrees with the simulation's over a problem's candidates:
 * each candidate the reader accepts and whose predicted peak ({@link PeakMemory}) fits the
 * accelerator's HBM is simulated and walked, and the pairs are summed up in {@link Figures}
 * (Spearman's rank correlation, error percentiles). Beside the walk it keeps the free-communication
 * critical path ({@link org.clustersim.core.engine.CriticalPath} with communication free) as a reference of what ignoring communication costs. A
 * candidate whose simulation deadlocks is a simulator fault, not a disagreement: it is listed apart.
 */
public final class WalkAgreement {
    private WalkAgreement() {
    }

    /**
     * One candidate compared.
     *
     * @param label     what the candidate varies
     * @param simNs     the simulated step
     * @param walkNs    the step walk's time
     * @param boundNs   the task graph's critical path with free communication
     * @param simWallNs wall time of the simulation (build and run)
     * @param walkWallNs wall time of the walk (from the training step)
     */
    public record Row(String label, long simNs, long walkNs, long boundNs, long simWallNs, long walkWallNs) {
        /** The walk's signed relative error against the simulation. */
        public double error() {
            return (walkNs - simNs) / (double) simNs;
        }
    }

    /**
     * The rows of one problem and what was passed over.
     *
     * @param rows     compared candidates, in the problem's order
     * @param rejected candidates the reader rejected
     * @param overHbm  candidates predicted over HBM
     * @param deadlocked labels of the candidates whose simulation deadlocked (a simulator fault, reported apart)
     */
    public record Run(List<Row> rows, int rejected, int overHbm, List<String> deadlocked) {
    }

    /**
     * Agreement of a time against the simulation's over some rows.
     *
     * @param count       rows
     * @param spearman    Spearman's rank correlation (ties at their mean rank)
     * @param p50         median |error|
     * @param p90         90th percentile |error|
     * @param p99         99th percentile |error|
     * @param max         largest |error|
     * @param signedMedian median signed error (positive: above the simulation)
     */
    public record Figures(int count, double spearman, double p50, double p90, double p99, double max,
                          double signedMedian) {
        /** The figures of {@code time} (a row's walk or bound) against each row's simulation. */
        public static Figures of(List<Row> rows, ToLongFunction<Row> time) {
            int n = rows.size();
            double[] sim = new double[n];
            double[] other = new double[n];
            double[] abs = new double[n];
            double[] signed = new double[n];
            for (int i = 0; i < n; i++) {
                Row r = rows.get(i);
                sim[i] = r.simNs();
                other[i] = time.applyAsLong(r);
                signed[i] = (other[i] - sim[i]) / sim[i];
                abs[i] = Math.abs(signed[i]);
            }
            Arrays.sort(abs);
            Arrays.sort(signed);
            return new Figures(n, WalkAgreement.spearman(sim, other), percentile(abs, 0.5), percentile(abs, 0.9),
                    percentile(abs, 0.99), n == 0 ? Double.NaN : abs[n - 1], percentile(signed, 0.5));
        }
    }

    /**
     * Compares the first {@code limit} candidates of {@code problem} that the reader accepts and that
     * fit in HBM, walking each with one {@link StepWalk.Context} for the problem.
     */
    public static Run of(AgreementProblem problem, int limit) {
        ScenarioReader reader = new ScenarioReader();
        StepWalk.Context context = StepWalk.context();
        List<Row> rows = new ArrayList<>();
        int rejected = 0;
        int overHbm = 0;
        List<String> deadlocked = new ArrayList<>();
        for (AgreementProblem.Candidate c : problem.candidates()) {
            if (rows.size() >= limit) {
                break;
            }
            Scenario s;
            TrainingStep step;
            try {
                s = reader.readText(problem.folder().resolve(c.label().replace(' ', '-') + ".yaml"), c.yaml().get());
                step = s.trainingStep();
            } catch (InputException | InputFileException | IllegalArgumentException e) {
                rejected++;
                continue;
            }
            if (PeakMemory.of(step).peakBytes() > s.cluster().accelerator().hbmBytes()) {
                overHbm++;
                continue;
            }
            long w0 = System.nanoTime();
            long walk = StepWalk.stepNs(step, s.stepSequence(), context);
            long w1 = System.nanoTime();
            SimulatedStep sim;
            try {
                sim = SimulatedStep.of(s, step, false);
            } catch (DeadlockException e) {
                deadlocked.add(c.label());
                continue;
            }
            long w2 = System.nanoTime();
            long bound = org.clustersim.core.engine.CriticalPath.of(sim.built().graph(), free -> 0).endNs();
            rows.add(new Row(c.label(), sim.figures().stepTimeNs(), walk, bound, w2 - w1, w1 - w0));
        }
        return new Run(List.copyOf(rows), rejected, overHbm, List.copyOf(deadlocked));
    }

    /** The {@code n} rows whose walk is furthest from the simulation, furthest first. */
    public static List<Row> worst(List<Row> rows, int n) {
        return rows.stream().sorted(Comparator.comparingDouble((Row r) -> -Math.abs(r.error()))
                .thenComparing(Row::label)).limit(n).toList();
    }

    /** Spearman's rank correlation of two equally long series. */
    static double spearman(double[] a, double[] b) {
        double[] ra = ranks(a);
        double[] rb = ranks(b);
        int n = a.length;
        double ma = 0;
        double mb = 0;
        for (int i = 0; i < n; i++) {
            ma += ra[i];
            mb += rb[i];
        }
        ma /= n;
        mb /= n;
        double sab = 0;
        double saa = 0;
        double sbb = 0;
        for (int i = 0; i < n; i++) {
            sab += (ra[i] - ma) * (rb[i] - mb);
            saa += (ra[i] - ma) * (ra[i] - ma);
            sbb += (rb[i] - mb) * (rb[i] - mb);
        }
        return sab / Math.sqrt(saa * sbb);
    }

    /** Ranks from 1, ties at their mean rank. */
    static double[] ranks(double[] x) {
        Integer[] order = new Integer[x.length];
        for (int i = 0; i < x.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingDouble(i -> x[i]));
        double[] r = new double[x.length];
        for (int i = 0; i < x.length; ) {
            int j = i;
            while (j + 1 < x.length && x[order[j + 1]] == x[order[i]]) {
                j++;
            }
            double mean = (i + j) / 2.0 + 1;
            for (int k = i; k <= j; k++) {
                r[order[k]] = mean;
            }
            i = j + 1;
        }
        return r;
    }

    /** The nearest-rank percentile of sorted values. */
    static double percentile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int idx = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))];
    }
}
