package org.clustersim.study.plan;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.clustersim.study.engine.Progress;
import org.clustersim.study.engine.TaskEngine;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.core.input.InputException;

/**
 * A simulated design-space search (issue 15): every layout of a {@link DesignSpace} is written as
 * a scenario, screened (reader, memory, lower bound) and, unless it cannot beat what is already
 * found, simulated; the rest are ranked by step time.
 *
 * <p>Pruning is deterministic. Candidates that fit are taken in order of their lower bound (ties
 * by index) in waves of a fixed size; before each wave, a candidate whose bound exceeds the
 * {@code keep}-th best step simulated so far is skipped, and since the order is by bound, so is
 * every one after it. Waves are fixed by the inputs, not by how many threads or machines run them
 * or in which order their tasks finish, so the set simulated, and every output, depends on the
 * inputs alone. A skipped candidate's step is at least its bound, which is above the
 * {@code keep}-th best, so the top {@code keep} are exactly those of a search without pruning;
 * the wave size only changes how many others get simulated.
 */
public final class PlanSearch {
    private final BaseScenario base;
    private final DesignSpace space;
    private final int keep;
    private final int wave;

    /**
     * @param keep how many of the best the ranking must get right (the rows printed)
     * @param wave candidates simulated between two updates of the pruning threshold
     */
    public PlanSearch(BaseScenario base, DesignSpace space, int keep, int wave) {
        if (keep < 1 || wave < 1) {
            throw new IllegalArgumentException("keep and wave must be at least 1");
        }
        this.base = base;
        this.space = space;
        this.keep = keep;
        this.wave = wave;
    }

    /** The shape of the problem: the cluster's GPUs, its GPU's HBM, the model's layers, batch and sequence. */
    public record Frame(int gpus, long hbmBytes, int layers, String clusterName, int globalBatch, int seqLen) {
        /** Tokens per step. */
        public long tokensPerStep() {
            return (long) globalBatch * seqLen;
        }
    }

    /** The problem's shape as the base states it (HBM unknown, -1, until a candidate has been read). */
    public Frame frame() {
        return new Frame(base.gpus(), -1, base.layers(), base.clusterLabel(), base.globalBatch(), base.seqLen());
    }

    Candidate candidate(int index, Layout l) {
        return candidate(index, l, frame().layers());
    }

    private Candidate candidate(int index, Layout l, int layers) {
        String name = base.modelName() + "-" + l.slug();
        return new Candidate(index, l, name, base.folder().resolve(name + ".yaml").toString(),
                base.scenarioText(name, l, layers));
    }

    /**
     * Everything a search found.
     *
     * @param frame       the problem's shape
     * @param candidates  the layouts formed, in enumeration order
     * @param dropped     layouts that could not be formed, by reason
     * @param screenings  each candidate's screening, in candidate order
     * @param evaluations simulated candidates by index
     * @param ranking     simulated candidates that fit in memory, fastest first (ties: lower index)
     * @param skipped     candidates that fit but were not simulated (their bound could not beat the ranking)
     * @param waves       waves simulated
     */
    public record Result(Frame frame, List<Candidate> candidates, Map<String, Integer> dropped,
                         List<Screening> screenings, Map<Integer, Evaluation> evaluations, List<Evaluation> ranking,
                         int skipped, int waves) {
        /** Candidates screened as {@code v}. */
        public long count(Screening.Verdict v) {
            return screenings.stream().filter(s -> s.verdict() == v).count();
        }

        /** Screening failures of one verdict by reason kind. */
        public Map<String, Integer> reasons(Screening.Verdict v) {
            Map<String, Integer> m = new TreeMap<>();
            screenings.stream().filter(s -> s.verdict() == v).forEach(s -> m.merge(s.reasonKey(), 1, Integer::sum));
            return m;
        }
    }

    /** Runs the search on {@code engine}, reporting progress on {@code err} (null: silent). */
    public Result run(TaskEngine engine, PrintWriter err, boolean terminal) {
        Frame stated = frame();
        Frame frame = stated;
        DesignSpace.Enumeration e = space.enumerate(frame.gpus(), frame.globalBatch(), frame.layers());
        List<Candidate> candidates = new ArrayList<>();
        for (Layout l : e.layouts()) {
            candidates.add(candidate(candidates.size(), l, frame.layers()));
        }
        if (candidates.isEmpty()) {
            throw new InputException("no layout of the design space fits " + frame.gpus() + " GPUs: " + e.dropped());
        }
        Progress screenProgress = progress(err, terminal, candidates.size(), "plan screening", "candidates");
        List<Screening> screenings = engine.map(candidates, new CandidateTasks.Screen(), screenProgress);
        screenProgress.finish();
        long hbm = screenings.stream().mapToLong(Screening::hbmBytes).filter(b -> b > 0).findFirst().orElse(-1);
        if (hbm < 0) {
            Screening first = screenings.get(0);
            throw new InputException("no layout of the search is a valid scenario; the first: "
                    + candidates.get(0).layout().label() + ": " + first.reason());
        }
        frame = new Frame(stated.gpus(), hbm, stated.layers(), stated.clusterName(), stated.globalBatch(),
                stated.seqLen());

        List<Screening> fit = new ArrayList<>();
        for (Screening s : screenings) {
            if (s.verdict() == Screening.Verdict.VALID) {
                fit.add(s);
            }
        }
        fit.sort(Comparator.comparingLong(Screening::boundNs).thenComparingInt(Screening::index));
        Map<Integer, Evaluation> evaluations = new TreeMap<>();
        List<Long> best = new ArrayList<>(); // sorted step times of simulated candidates that fit
        Progress simProgress = progress(err, terminal, fit.size(), "plan simulation", "candidates");
        int next = 0;
        int waves = 0;
        while (next < fit.size()) {
            long threshold = best.size() >= keep ? best.get(keep - 1) : Long.MAX_VALUE;
            List<Candidate> batch = new ArrayList<>();
            while (next < fit.size() && batch.size() < wave && fit.get(next).boundNs() <= threshold) {
                batch.add(candidates.get(fit.get(next).index()));
                next++;
            }
            if (batch.isEmpty()) {
                break; // every remaining bound exceeds the threshold
            }
            waves++;
            for (Evaluation ev : engine.map(batch, new CandidateTasks.Simulate(), simProgress)) {
                evaluations.put(ev.index(), ev);
                if (!ev.oom()) {
                    int at = java.util.Collections.binarySearch(best, ev.stepTimeNs());
                    best.add(at < 0 ? -at - 1 : at, ev.stepTimeNs());
                }
            }
        }
        int skipped = fit.size() - next;
        simProgress.add(-skipped);
        simProgress.finish();
        List<Evaluation> ranking = new ArrayList<>();
        for (Evaluation ev : evaluations.values()) {
            if (!ev.oom()) {
                ranking.add(ev);
            }
        }
        ranking.sort(Comparator.comparingLong(Evaluation::stepTimeNs).thenComparingInt(Evaluation::index));
        return new Result(frame, candidates, e.dropped(), screenings, evaluations, ranking, skipped, waves);
    }

    private static Progress progress(PrintWriter err, boolean terminal, int total, String label, String unit) {
        return err == null ? Progress.silent() : new Progress(err, total, terminal, label, unit);
    }

    /** Where the candidates' nominal files live (for messages). */
    public Path folder() {
        return base.folder();
    }
}
